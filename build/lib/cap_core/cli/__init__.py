"""Command line: ``python -m cap_core VERB ...``.

``main``       the parser, the data verbs (import, build-default, profile, coverage) and
               the registration of the verb groups below; exit status 2 on bad input
``analyses``   spearman, stress, distance, correct, compare, qc, hard, robustness
``cascades``   cascade, jury, agreement
``audit``      audit
``validity``   probes, validity
``judge``      judge (live judging runs)

May import anything in :mod:`cap_core`; nothing imports it but ``__main__``.
"""
