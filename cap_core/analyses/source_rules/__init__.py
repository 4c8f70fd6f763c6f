"""One module per source whose published metrics follow rules of their own (read by
:mod:`cap_core.analyses.source_metrics`).

``alpacaeval``  AlpacaEval's preference encoding, how an item names its generator pair, and its
                leaderboard metrics (win rate, discrete win rate, standard error, counts, LC win rate)

May import: the ``cap_core`` root.
"""
