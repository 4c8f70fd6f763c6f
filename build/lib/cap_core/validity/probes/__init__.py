"""Probe sets for the validity profile (Validity paper, §4, Fig. 7).

``rules``         deterministic text edits and the marker lexicons the verifier reads
``generate``      base claims, the rule-based generator and the probe verifier
``generate_llm``  a language model proposes each edit; the same verifier accepts or rejects it
``grade``         live grading of a probe set through :mod:`cap_core.judging`

May import: the ``cap_core`` root and :mod:`cap_core.judging`.
"""
