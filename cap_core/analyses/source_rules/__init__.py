"""One module per source whose published metrics follow rules of their own (read by
:mod:`cap_core.analyses.source_metrics`).

``alpacaeval``  AlpacaEval's preference encoding, how an item names its generator pair, and its
                leaderboard metrics (win rate, discrete win rate, standard error, counts, LC win rate)
``fastchat``    FastChat's MT-Bench rules: a judge's vote from its two games, the pairwise win
                rates of show_result.py and the judge-human agreement of compute_agreement.py
``arena_hard``  Arena-Hard-Auto's score: the model's win rate against the baseline, a ``>>``
                label counting three battles
``autoj``       Auto-J's pairwise_eval.py: agreement with the human label (a tie included) and
                consistency across the swapped run, per scenario group

May import: the ``cap_core`` root.
"""
