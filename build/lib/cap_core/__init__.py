"""CAP core: Conditional Accuracy Profiling of pairwise LLM judges.

A plain library (no UI imports). The data model is documented in
:mod:`cap_core.schema`; profiles are computed by :mod:`cap_core.profile.conditions`.

Layout (lower layers never import upper ones)::

    cap_core/            the shared model: config, errors, schema, io, dataset, export, bootstrap, verdicts
      profile/           coverage and condition membership, the eight conditions, weights, published tables
      analyses/          rank stability, stress, family distance, consistency, judge comparison, QC, hard subsets, bias correction
      cascades/          judge confidence, cost, cascades, juries, agreement, graded verdicts
      validity/          invariance S and sensitivity R, frontiers, slots, public gradings, probes/
      audit/             label sets and the surface audit
      judging/           live judging through litellm and a diskcache
      importers/         every reading of a raw public file or a user table; the default-data build
      cli/               ``python -m cap_core VERB``

References
----------
Docstrings cite three papers by these names:

* **CAP** — W. Li, B. Liu, M. Ruan, C. Hu, M. Yin, X. Li, *Conditional Accuracy
  Profiles: Diagnosing LLM Judges across Deployment Conditions*, arXiv:2610.09229.
* **Validity** — J. Chen, W. Chen, Z. Lin, C. M. Vong, *A Judge Should Know What
  Changed: Construct Validity for LLM-as-a-Judge Evaluation* (2026; our sources give
  no arXiv id).
* **Jev** — D. Rao, C. Callison-Burch, *JEV vs. LLMs as Rubric Judges: Cheaper, Faster,
  and Wrong in the Same Places*, arXiv:2609.29769 (cascades, juries, graded verdicts).

Notebook API
------------
``import cap_core`` also gives the functions of :mod:`cap_core.api` (``load``,
``from_frames``, ``import_source``, ``tables``, ``compute_profile``, ``weighted_scores``,
``compare``, ``choose``, ``benchmark_items``, ``evaluate``): pandas or polars frames in, polars (or
pandas with ``output="pandas"``) out. They are imported on first use, so ``import
cap_core`` stays light (no scipy, litellm or streamlit).
"""

from cap_core.dataset import Dataset, load_dataset, save_dataset
from cap_core.errors import CAPInputError

_API = ("load", "from_frames", "import_source", "tables", "compute_profile", "weighted_scores", "compare",
        "choose", "benchmark_items", "evaluate")

__all__ = ["CAPInputError", "Dataset", "load_dataset", "save_dataset", *_API]


def __getattr__(name: str):
    # PEP 562: the notebook API loads on first use (cap_core.api imports nothing heavy itself)
    if name in _API:
        from cap_core import api

        return getattr(api, name)
    raise AttributeError(f"module 'cap_core' has no attribute {name!r}")
