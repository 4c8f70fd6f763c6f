"""Analyses over profiles and per-item data (CAP paper §4, Appendices F–K).

``rank_stability``   Spearman rank stability across benchmarks and conditions (§4.2, App. F/G)
``stress``           stress degradation δ between a base and a stressed benchmark (§4.3)
``family_distance``  model families and within-family L1 distance (App. J)
``consistency``      strict vs pure consistency; C8 conditional vs unconditional (App. H)
``judge_comparison`` the paired difference of two judges on shared resamples
``qc_sensitivity``   the profile with flagged items left out (App. A.6)
``hard_subsets``     hard-empirical subsets and their profiles (App. A.5)
``bias_correction``  plug-in bias correction of accuracies (App. K)
``source_metrics``   each source's own published metrics (LLMBar, JudgeBench, AlpacaEval, RewardBench, FastChat
                     MT-Bench, Arena-Hard) beside CAP's
``source_rules``     one module per source whose rules are its own (``alpacaeval``, ``fastchat``, ``arena_hard``)
``verdict_summary``  per judge: items received, verdicts, tie and unparsed rates (no gold needed)

May import: the ``cap_core`` root and :mod:`cap_core.profile`.
"""
