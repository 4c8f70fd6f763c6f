"""Construct validity of graded judges: invariance S and sensitivity R (Validity paper).

``sr``               S, R and per-axis R of a judge from its probe grades, with intervals
``frontier``         threshold sweep, monotone hull and the matched-invariance point
``slots``            R per construct edit and the flip rate per control
``report``           per-judge operating points, quadrants and published rows
``public_gradings``  existing public gradings mapped onto the (S, R) plane
``instrument``       instrument quality (distinct grades, regrade agreement)
``annotation``       human direction annotation of probes
``probes``           probe sets: rules, rule-based and LLM generators, live grading

May import: the ``cap_core`` root, :mod:`cap_core.profile` and (for live grading only)
:mod:`cap_core.judging`.
"""
