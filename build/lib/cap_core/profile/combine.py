"""One profile frame for the cross-benchmark analyses, from computed and published profiles.

The analyses (:mod:`cap_core.analyses.rank_stability`, :mod:`cap_core.analyses.stress`,
:mod:`cap_core.analyses.family_distance`) need one value per (judge, view, condition). Stacking
computed profiles with the published tables can give two values for a cell:

* the paper prints some judgerEva full-set cells twice (GPT-4o C5-C7 in Table 15 and
  Table 19, e.g. C7 72.9 vs 72.5); the table listed first in ``PUBLISHED_PREFERENCE``
  is kept (Table 15: it covers all seven judges);
* a computed judge with the same name as a published one on the same view: the
  computed row is kept.

Table 19's ``peer_mean_non_gpt`` is an average of five judges, not a judge, and is
left out. The JudgeBench-Pro cells implied by Table 6 are added to the published
rows (:func:`cap_core.profile.selection.published_stress_profile`).
"""

from __future__ import annotations

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import PROFILE_SCHEMA

__all__ = ["combine_profiles", "PUBLISHED_PREFERENCE", "PSEUDO_JUDGES"]

PUBLISHED_PREFERENCE: tuple[str, ...] = ("published: CAP Table 15", "published: CAP Table 19")
PSEUDO_JUDGES: tuple[str, ...] = ("peer_mean_non_gpt",)
_KEYS = ["judge", "benchmark", "subset", "condition", "metric"]


def combine_profiles(computed: list[pl.DataFrame], published: pl.DataFrame | None = None,
                     *, add_stress: bool = True) -> pl.DataFrame:
    """Stack computed and published profiles with one row per cell.

    Parameters
    ----------
    computed : list of polars.DataFrame
        Computed profiles (PROFILE_SCHEMA, percent); may be empty.
    published : polars.DataFrame, optional
        Published profiles (:func:`cap_core.profile.published.load_published_profiles`).
    add_stress : bool, default True
        Add the JudgeBench-Pro cells implied by CAP Tables 5 and 6.

    Returns
    -------
    polars.DataFrame
        PROFILE_SCHEMA; unique on (judge, benchmark, subset, condition, metric),
        published duplicates resolved as in the module notes.

    Raises
    ------
    CAPInputError
        A frame not in PROFILE_SCHEMA; nothing to combine.
    """
    frames = list(computed or [])
    for f in frames + ([published] if published is not None else []):
        if not isinstance(f, pl.DataFrame) or not set(PROFILE_SCHEMA) <= set(f.columns):
            raise CAPInputError("a profile table is needed", expected="PROFILE_SCHEMA columns",
                                got=getattr(f, "columns", type(f).__name__))
    parts = [f.select(list(PROFILE_SCHEMA)) for f in frames]
    if published is not None:
        from cap_core.profile.selection import published_stress_profile

        pub = published.select(list(PROFILE_SCHEMA)).filter(~pl.col("judge").is_in(list(PSEUDO_JUDGES)))
        if add_stress:
            pub = pl.concat([pub, published_stress_profile(pub)])
        rank = {s: i for i, s in enumerate(PUBLISHED_PREFERENCE)}
        pub = (pub.with_columns(pl.col("source").replace_strict(rank, default=len(rank)).alias("_rank"))
               .sort("_rank", maintain_order=True).unique(_KEYS, keep="first", maintain_order=True).drop("_rank"))
        if parts:
            pub = pub.join(pl.concat(parts).select(_KEYS), on=_KEYS, how="anti")
        parts.append(pub)
    if not parts:
        raise CAPInputError("no profile to analyse", expected="loaded data or the published tables",
                            fix="load a dataset or include the published CAP judges")
    return pl.concat(parts)
