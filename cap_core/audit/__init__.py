"""Label-set surface audit: can surface features reproduce a label set without reading it?

``public_sets``  the public label sets (read from a user's local copy) and their loader
``user_sets``    a user's own label set from a table file
``features``     the surface features a construct-blind predictor may see
``surface``      the audit: predictors, folds, permutation null and verdicts

May import: the ``cap_core`` root.
"""
