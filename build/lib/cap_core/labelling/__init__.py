"""Labelling your own traffic: the human labels that make your own pairs a benchmark.

``store``  the pairs to label, the seeded presentation order, the append-only labels file,
           the labelled items as a dataset or an exported benchmark
``plan``   how many labels separate two candidate judges (or show parity) from their
           disagreement rate on a pilot run

May import: the ``cap_core`` root, ``cap_core.importers._common`` (declarations) and
``cap_core.choice.sample_size`` (the sample-size formulas). Never streamlit.
"""
