"""Side-by-side views of alternative metrics stored in a profile.

* Strict vs pure consistency (CAP App. H, Table 15): for C5-C7, *strict* is the share
  of units correct under both presentations, *pure consistency* the share with the
  same verdict under both (correctness ignored). Their difference,
  ``stable_but_wrong = consistency − strict``, is the mass of stable-but-wrong
  behaviour (points). GPT-4o-mini C7 on judgerEva: 80.9 − 61.0 = 19.9.
* C8 conditional vs unconditional (CAP §4.1): conditional C8 (``supported``) is the
  share of supported rationales among correct verdicts; the unconditional
  supported-correct rate is ``overall accuracy × C8 / 100`` (percent), e.g. Claude
  Sonnet 4.5 on Hard-Empirical 89.7 × 85.7 / 100 = 76.9.

Both work on computed profiles (which store ``consistency``, ``stable_but_wrong`` and
``supported_correct`` rows) and on published ones (Table 15 prints strict and
consistency; the unconditional C8 is derived from the overall accuracy when the same
benchmark/subset has one).
"""

from __future__ import annotations

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["strict_vs_consistency", "c8_conditional_unconditional"]

_KEYS = ["judge", "benchmark", "subset"]


def _iv(profile: object) -> pl.DataFrame:
    need = {"judge", "benchmark", "subset", "condition", "metric", "value", "source"}
    if not isinstance(profile, pl.DataFrame) or not need <= set(profile.columns):
        raise CAPInputError("a profile table is needed", expected="PROFILE_SCHEMA columns " + ", ".join(sorted(need)),
                            got=getattr(profile, "columns", type(profile).__name__),
                            fix="compute a profile or load the published profiles")
    return profile.filter(pl.col("value").is_not_null())


def _cell(frame: pl.DataFrame, keys: list[str], metric_filter: pl.Expr, name: str) -> pl.DataFrame:
    return (frame.filter(metric_filter).group_by(keys)
            .agg(pl.col("value").first().alias(name), pl.col("source").first().alias(f"{name}_source")))


def strict_vs_consistency(profile: pl.DataFrame) -> pl.DataFrame:
    """Strict, pure consistency and stable-but-wrong per judge and robustness condition.

    Parameters
    ----------
    profile : polars.DataFrame
        PROFILE_SCHEMA (percent), computed or published.

    Returns
    -------
    polars.DataFrame
        ``judge``, ``benchmark``, ``subset``, ``condition`` (C5-C7), ``strict``,
        ``consistency``, ``stable_but_wrong`` (Float64, percent / points; the stored
        ``stable_but_wrong`` row when present, else consistency − strict),
        ``source``. Only cells with both strict and consistency.

    Raises
    ------
    CAPInputError
        Not a profile table.
    """
    rows = _iv(profile).filter(pl.col("condition").is_in(["C5", "C6", "C7"]))
    keys = _KEYS + ["condition"]
    strict = _cell(rows, keys, pl.col("metric") == "strict", "strict")
    cons = _cell(rows, keys, pl.col("metric") == "consistency", "consistency")
    sbw = _cell(rows, keys, pl.col("metric") == "stable_but_wrong", "sbw")
    out = strict.join(cons, on=keys).join(sbw, on=keys, how="left")
    return out.select(
        *keys, "strict", "consistency",
        pl.coalesce("sbw", pl.col("consistency") - pl.col("strict")).alias("stable_but_wrong"),
        pl.col("strict_source").alias("source"),
    ).sort(keys)


def c8_conditional_unconditional(profile: pl.DataFrame) -> pl.DataFrame:
    """Conditional C8 next to the unconditional supported-correct rate (CAP §4.1).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``benchmark``, ``subset``, ``supported`` (conditional C8,
        percent), ``overall`` (overall accuracy, percent, null when absent),
        ``supported_correct`` (percent; the stored row when computed, else
        ``overall × supported / 100``, null when neither exists), ``how``
        (``"stored"`` / ``"overall × C8"`` / ``"needs overall accuracy"``), ``source``.

    Raises
    ------
    CAPInputError
        Not a profile table.
    """
    rows = _iv(profile)
    c8 = rows.filter(pl.col("condition") == "C8")
    sup = _cell(c8, _KEYS, pl.col("metric") == "supported", "supported")
    stored = _cell(c8, _KEYS, pl.col("metric") == "supported_correct", "stored")
    overall = _cell(rows.filter(pl.col("condition") == "overall"), _KEYS, pl.col("metric") == "pa", "overall")
    out = sup.join(stored, on=_KEYS, how="left").join(overall, on=_KEYS, how="left")
    derived = pl.col("overall") * pl.col("supported") / 100.0
    return out.select(
        *_KEYS, "supported", "overall",
        pl.coalesce("stored", derived).alias("supported_correct"),
        pl.when(pl.col("stored").is_not_null()).then(pl.lit("stored"))
        .when(pl.col("overall").is_not_null()).then(pl.lit("overall × C8"))
        .otherwise(pl.lit("needs overall accuracy")).alias("how"),
        pl.col("supported_source").alias("source"),
    ).sort(_KEYS)
