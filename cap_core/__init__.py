"""CAP core: Conditional Accuracy Profiling of pairwise LLM judges.

A plain library (no UI imports). The data model is documented in
:mod:`cap_core.schema`; profiles are computed by :mod:`cap_core.profile.conditions`.
"""

from cap_core.dataset import Dataset, load_dataset, save_dataset
from cap_core.errors import CAPInputError

__all__ = ["CAPInputError", "Dataset", "load_dataset", "save_dataset"]
