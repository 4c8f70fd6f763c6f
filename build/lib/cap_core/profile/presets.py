"""Weight presets of the weighted score (CAP §5), apart from :mod:`cap_core.profile.weights`
so that naming them (the CLI's ``--preset`` choices) loads no numerical code.

:data:`PRESETS` maps a preset name to a weight per condition id (``C1``..``C8``, floats,
unlisted conditions 0); :mod:`cap_core.profile.weights` re-exports it.
"""

from __future__ import annotations

from cap_core.schema import CONDITION_IDS

__all__ = ["PRESETS"]


def _preset(**w: float) -> dict[str, float]:
    return {c: float(w.get(c, 0.0)) for c in CONDITION_IDS}


#: Weight presets for the application settings named in CAP §5 (plus adversarial traffic,
#: which stresses the robustness conditions C5-C7). Unlisted conditions weigh 0.
PRESETS: dict[str, dict[str, float]] = {
    "balanced": _preset(**{c: 1.0 for c in CONDITION_IDS}),
    "scientific review": _preset(C1=1.0, C8=1.0),
    "long-form": _preset(C6=1.0),
    "legal and policy": _preset(C4=1.0),
    "adversarial traffic": _preset(C5=1.0, C6=1.0, C7=1.0),
}
