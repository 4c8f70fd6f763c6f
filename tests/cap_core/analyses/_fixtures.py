"""Shared inputs for the analysis tests: published profiles plus JB-Pro (JB minus Table 6 delta)."""

import polars as pl

from cap_core.profile.published import load_published_profiles
from cap_core.profile.selection import published_stress_profile


def published_with_pro() -> pl.DataFrame:
    prof = load_published_profiles()
    return pl.concat([prof, published_stress_profile(prof)])


def toy_profile(rows) -> pl.DataFrame:
    """rows: (judge, benchmark, condition, value) -> primary profile rows (percent)."""
    return pl.DataFrame(
        [{"judge": j, "benchmark": b, "subset": "all", "condition": c, "metric": "pa", "value": v,
          "primary": True, "source": "computed"} for j, b, c, v in rows])
