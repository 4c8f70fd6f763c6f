"""Build a controlled testbed from your own questions (CAP §3.2, Appendix A).

A user's questions with reference answers become pairwise items on which all eight CAP
conditions are measurable: the correct answer against a flawed one carrying exactly one
planted error of a known type (C1-C4), polished and length-padded presentation variants
(C5, C6), both orders at judging time (C7) and a planted-error note for the rationale
evaluator (C8, Form A). A hardened, judge-independent subset (Hard-Constructed, App. A.5)
and an optional second-generator slice (App. I) come with it.

Modules, in the order a build uses them:

``questions``   read the questions file (question / answer, or multiple-choice rows)
``taxonomy``    the four planted error types, their balanced assignment, gold positions
``rules``       the offline deterministic generator (and its hardening rule)
``prompts``     the model generator and the subtlety judge (litellm, cached)
``checks``      the rejection checks every flawed answer passes
``generate``    the generation loop: expansion, flawing with the subtlety gate, hardening
``cost``        the estimate printed before any call
``layout``      the files of a testbed folder and how they are read
``build``       :func:`~cap_core.testbed.build.build_testbed`: the whole build, written at the end
``review``      accept / reject / edit, saved append-only and applied to the items
``replication`` the second-generator comparison (CAP Table 16 form)

May import: the ``cap_core`` root, ``cap_core.judging`` (requests, cache, client, templates,
augmentation, parsing, estimates) and ``cap_core.profile`` (replication). Never streamlit.
"""
