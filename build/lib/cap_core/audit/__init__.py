"""Label-set surface audit: can surface features reproduce a label set without reading it?

``label_set``    the label-set data model (pairs or single responses with labels)
``user_sets``    a user's own label set from a table file
``features``     the surface features a construct-blind predictor may see
``surface``      the audit: predictors, folds, permutation null and verdicts
``shipped``      the audit figures of the public sets shipped in ``data/audit``

The public label sets are read (from a user's local copy of the public data) by
:mod:`cap_core.importers.label_sets`.

May import: the ``cap_core`` root.
"""
