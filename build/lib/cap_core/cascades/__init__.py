"""Cost-aware judge choice: cascades, juries, agreement and cost (Jev paper, §3.5, §6).

``judge_confidence`` per-item correctness and the judge's own confidence; AUROC of errors
``cost``             cost per verdict from recorded dollars or tokens × an editable price table
``cascade``          a cheap judge first, deferring uncertain items to a stronger one
``jury``             juries of k judges against the best single judge
``agreement``        repeated errors and judge–judge vs judge–label agreement
``graded``           graded (ordinal) verdicts against ordinal labels

May import: the ``cap_core`` root and :mod:`cap_core.profile`.
"""
