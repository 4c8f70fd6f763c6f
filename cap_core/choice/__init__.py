"""The judge choice: a leaderboard under application weights that says how sure it is.

CAP §5 asks that judge choice be conditional on the deployment: weigh the conditions
that matter, then pick. This package turns a profile (one benchmark) into that choice.

``fit``          which weight presets fit a benchmark (weigh a condition measured there), the
                 closest that fits, and the refusal of weights under which no judge has a score
``filters``      per-condition minimums (``C7=60`` on the value, ``C7.low=60`` on the
                 interval's lower bound) and which judges they remove
``leaderboard``  rank, weighted score with interval, P(best), paired differences from the
                 leader on the shared bootstrap resamples with a Holm correction, the set
                 not separable from the leader and one plain sentence
``sample_size``  generic sample-size formulas (per-item variance, effect or margin, level,
                 power) and the "how many more items" estimate of the top two
``drilldown``    items where the leader is wrong and the runner-up right, and the reverse
``costs``        cost per 1,000 items and median latency of computed judges
``exports``      the profile and scores CSVs that reproduce every weighted score, and the
                 recomputation from those two files
``report``       a self-contained HTML report of one choice (plotly embedded)
``baseline``     the locked baseline file of a pipeline and the gates that read it

May import: the shared model at the ``cap_core`` root, :mod:`cap_core.profile`,
:mod:`cap_core.analyses` and :mod:`cap_core.cascades` (costs). Never imports streamlit,
components or ui; nothing below it imports this package.
"""
