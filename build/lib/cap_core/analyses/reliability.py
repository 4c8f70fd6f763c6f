"""Reliability of one judge: test-retest agreement and self-preference.

Test-retest (:func:`test_retest`)
    A run with ``repeats = K`` judges every item and order K times at a temperature above
    0 (``repeats.parquet``: :data:`cap_core.judging.run_dir.REPEATS_SCHEMA`). A *unit* is
    one (item, order) with at least two recorded verdicts; verdicts are nominal values
    ``A`` / ``B`` / ``tie`` / ``unparsed`` (an unreadable answer is an answer that changed
    too). Per judge, benchmark and condition (the items the coverage plan assigns to
    it, :func:`cap_core.profile.coverage.plan_members`; ``overall`` = every item):

    * ``flip_rate``: share of units whose verdicts are not all equal (with K = 2, the share
      of units where the two judgments differ), percent;
    * ``alpha``: Krippendorff's alpha for nominal data with the repeats as coders and the
      units as units (the point estimate from the ``krippendorff`` package; 1 = the same
      verdict every time, 0 = agreement no better than chance, undefined when only one
      value ever occurs).

    Intervals: percentile bootstrap over base items with the profile's resamples
    (:func:`cap_core.bootstrap.benchmark_seed`), so all orders and variants of a base item
    move together. Alpha's replicates are computed from the coincidence matrix weighted
    by the resample counts (the same formula as the package, exactly; tested against it).

Self-preference (:func:`self_preference`)
    Where the models that wrote the responses are known (``author_a`` / ``author_b``:
    RewardBench's chosen and rejected models, PandaLM's ``cmp_key``, an author column in
    an upload), a judge of family F is looked at on the *mixed* items: exactly one
    response written by family F, the other by a known author of another family. Two
    error rates, position-averaged over the judged orders (a tie counts half, unparsed
    and missing verdicts are left out):

    * ``own_rate``: among mixed items whose own-family response is the WORSE one (gold),
      the share of verdicts that still pick it;
    * ``other_rate``: among mixed items whose other-family response is the worse one, the
      share of verdicts that pick it.

    ``gap = own_rate - other_rate`` (points) is the self-preference: a judge that errs
    the same way whoever wrote the responses has a gap near 0. The interval of the gap is
    paired (both rates from the same base-item resamples); ``detected`` when its lower
    bound is above 0. Families: :func:`load_families` (an editable CSV of name patterns,
    first match wins; :func:`cap_core.analyses.family_distance.family_of`).

    JudgeBench names one ``response_model`` per pair (both responses by the same model),
    so it has no mixed items: self-preference needs per-response authors.

References: CAP §3.3 (base-item bootstrap); Krippendorff's alpha as implemented by the
``krippendorff`` package; self-preference as a gold-conditioned error asymmetry (our
definition; the issue names the quantity, not the estimator).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from cap_core.bootstrap import (
    base_index,
    base_ratios,
    benchmark_seed,
    percentile_interval,
    resample_counts,
)
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["FAMILIES_CSV", "load_families", "test_retest", "self_preference", "alpha_nominal",
           "RELIABILITY_SCHEMA", "SELF_PREFERENCE_SCHEMA"]

FAMILIES_CSV = Path(__file__).with_name("model_families.csv")
_VALUES = ("A", "B", "tie", "unparsed")

RELIABILITY_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "benchmark": pl.String, "condition": pl.String, "repeats": pl.Int64, "n_units": pl.Int64,
    "flip_rate": pl.Float64, "flip_low": pl.Float64, "flip_high": pl.Float64,
    "alpha": pl.Float64, "alpha_low": pl.Float64, "alpha_high": pl.Float64,
}
SELF_PREFERENCE_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "benchmark": pl.String, "family": pl.String, "n_items": pl.Int64,
    "n_own_worse": pl.Int64, "n_other_worse": pl.Int64,
    "own_rate": pl.Float64, "own_low": pl.Float64, "own_high": pl.Float64,
    "other_rate": pl.Float64, "other_low": pl.Float64, "other_high": pl.Float64,
    "gap": pl.Float64, "gap_low": pl.Float64, "gap_high": pl.Float64, "detected": pl.Boolean,
}


def load_families(path: str | Path | None = None) -> dict[str, tuple[str, ...]]:
    """Model families from a CSV with columns ``family`` and ``pattern`` (``note`` optional).

    Parameters
    ----------
    path : str or Path, optional
        The user's table; default :data:`FAMILIES_CSV` (shipped, editable). Rows are tried
        in file order (a family's patterns in the order of its rows); a pattern is a
        case-insensitive regular expression searched in the model or judge name.

    Returns
    -------
    dict
        family -> patterns, in first-appearance order (the form
        :func:`cap_core.analyses.family_distance.family_of` takes).

    Raises
    ------
    CAPInputError
        Unreadable file, missing ``family`` / ``pattern`` column, an empty cell or a
        pattern that is not a regular expression (file, row and column named).
    """
    import re

    from cap_core.io import read_table

    f = FAMILIES_CSV if path is None else Path(path)
    df, _ = read_table(f, kind="model families")
    for col in ("family", "pattern"):
        if col not in df.columns:
            raise CAPInputError(f"model-family table without a {col!r} column", file=str(f), column=col,
                                expected="columns family, pattern", got=df.columns,
                                fix="copy cap_core/analyses/model_families.csv and edit it")
    out: dict[str, list[str]] = {}
    for i, r in enumerate(df.select(pl.col("family", "pattern").cast(pl.String)).iter_rows(named=True), start=1):
        for col in ("family", "pattern"):
            if not (r[col] or "").strip():
                raise CAPInputError("empty cell in the model-family table", file=str(f), row=i, column=col,
                                    expected="a family name and a pattern on every row", fix="fill or delete the row")
        try:
            re.compile(r["pattern"])
        except re.error as exc:
            raise CAPInputError("model-family pattern is not a regular expression", file=str(f), row=i,
                                column="pattern", got=r["pattern"], fix=f"fix the pattern ({exc})") from None
        out.setdefault(r["family"].strip(), []).append(r["pattern"])
    return {k: tuple(v) for k, v in out.items()}


# -- test-retest ------------------------------------------------------------------------------

def _coincidences(codes: np.ndarray, n_values: int) -> np.ndarray:
    """Per-unit nominal coincidence matrices, flattened: shape (n_units, V*V).

    ``codes``: (n_units, K) value codes, -1 for a missing repeat. For unit u with value
    counts n_uc and m_u pairable values, o_u[c, k] = (n_uc n_uk - [c == k] n_uc) / (m_u - 1).
    """
    counts = np.stack([(codes == v).sum(axis=1) for v in range(n_values)], axis=1).astype(np.float64)
    m = counts.sum(axis=1)
    outer = counts[:, :, None] * counts[:, None, :]
    outer -= counts[:, :, None] * np.eye(n_values)[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        o = outer / np.where(m > 1, m - 1, np.nan)[:, None, None]
    o[m < 2] = 0.0
    return o.reshape(len(codes), -1)


def alpha_nominal(coincidence: np.ndarray, n_values: int) -> np.ndarray:
    """Krippendorff's alpha (nominal) from summed coincidence matrices, shape (..., V*V) -> (...).

    alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k, with n_c = sum_k o_ck
    and n = sum_c n_c; NaN when only one value occurs (no expected disagreement).
    """
    o = coincidence.reshape(*coincidence.shape[:-1], n_values, n_values)
    nc = o.sum(axis=-1)
    n = nc.sum(axis=-1)
    off = 1.0 - np.eye(n_values)
    d_obs = (o * off).sum(axis=(-1, -2))
    d_exp = (nc[..., :, None] * nc[..., None, :] * off).sum(axis=(-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d_exp > 0, 1.0 - (n - 1) * d_obs / d_exp, np.nan)


def _condition_units(ds: Dataset, bench: str, orders: tuple[str, ...]) -> list[tuple[str, pl.DataFrame]]:
    """(condition, items of the benchmark with the orders that count) for overall and C1-C7."""
    from cap_core.profile.coverage import plan_benchmark, plan_members

    items_b = ds.items.filter(pl.col("benchmark") == bench)
    out = [("overall", items_b.select("item_id", "base_item_id").join(
        pl.DataFrame({"order": list(orders)}), how="cross"))]
    for cond, plan in plan_benchmark(ds, bench).items():
        if plan.kind in ("none", "rationale"):
            continue
        member, use = plan_members(plan, items_b, orders)
        sel = items_b.filter(member).select("item_id", "base_item_id")
        if sel.height:
            out.append((cond, sel.join(pl.DataFrame({"order": list(use)}), how="cross")))
    return out


def _interval(reps: np.ndarray, level: float) -> tuple[float | None, float | None]:
    if reps.size == 0 or np.all(np.isnan(reps)):
        return None, None
    lo, hi = percentile_interval(reps, level)
    return (None if np.isnan(lo) else float(lo)), (None if np.isnan(hi) else float(hi))


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def test_retest(ds: Dataset, repeats: pl.DataFrame, *, n_resamples: int = 1000, seed: int = 0,
                level: float = 0.95) -> pl.DataFrame:
    """Flip rate and Krippendorff's alpha of each judge's repeated verdicts (module doc).

    Parameters
    ----------
    ds : Dataset
        The run's dataset (items, declarations: the conditions' items).
    repeats : polars.DataFrame
        ``judge``, ``benchmark``, ``item_id``, ``order``, ``repeat`` (Int64, 0-based),
        ``verdict`` (original letters).
    n_resamples, seed, level
        Bootstrap over base items (percentile interval).

    Returns
    -------
    polars.DataFrame
        :data:`RELIABILITY_SCHEMA`: ``flip_rate`` and its interval in percent, ``alpha``
        and its interval (-1..1; null when undefined), ``repeats`` = K (most repeats of a
        unit), ``n_units`` = (item, order) units with two or more verdicts.

    Raises
    ------
    CAPInputError
        ``repeats`` lacks a column, or bad bootstrap arguments.
    """
    import krippendorff

    need = ("judge", "benchmark", "item_id", "order", "repeat", "verdict")
    missing = [c for c in need if c not in repeats.columns]
    if missing:
        raise CAPInputError("the repeats table lacks a column", argument="repeats", column=missing[0],
                            expected=", ".join(need), got=repeats.columns, fix="pass the run's repeats.parquet")
    rows = []
    for (judge, bench), part in repeats.group_by("judge", "benchmark", maintain_order=True):
        k = int(part["repeat"].max()) + 1
        wide = part.with_columns(pl.col("verdict").replace_strict({v: i for i, v in enumerate(_VALUES)},
                                                                   default=3, return_dtype=pl.Int64)) \
            .pivot(on="repeat", index=["item_id", "order"], values="verdict", aggregate_function="first")
        rep_cols = [str(r) for r in range(k) if str(r) in wide.columns]
        orders = tuple(o for o in ("AB", "BA") if o in set(part["order"].to_list()))
        for cond, units in _condition_units(ds, bench, orders):
            u = units.join(wide, on=["item_id", "order"], how="inner")
            codes = u.select(rep_cols).fill_null(-1).to_numpy().astype(np.int64)
            m = (codes >= 0).sum(axis=1)
            keep = m >= 2
            u, codes = u.filter(pl.Series(keep)), codes[keep]
            if u.height == 0:
                continue
            present = np.where(codes >= 0, codes, codes.max(axis=1, keepdims=True))
            flip = (present.min(axis=1) != present.max(axis=1)).astype(np.float64)
            bseed = benchmark_seed(seed, bench)
            fr = base_ratios(u["base_item_id"], flip, n_resamples=n_resamples, seed=bseed)
            flo, fhi = _interval(fr.replicates[:, 0], level)
            data = np.where(codes >= 0, codes, np.nan).astype(np.float64).T  # coders x units
            try:
                a_point = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal",
                                                   value_domain=list(range(len(_VALUES)))))
            except ValueError:  # one value only: no expected disagreement
                a_point = float("nan")
            co = _coincidences(codes, len(_VALUES))
            bcodes, n_base = base_index(u["base_item_id"])
            per_base = np.zeros((n_base, co.shape[1]))
            np.add.at(per_base, bcodes, co)
            w = resample_counts(n_base, n_resamples, bseed)
            a_reps = alpha_nominal(w @ per_base, len(_VALUES))
            alo, ahi = _interval(a_reps, level)
            rows.append({"judge": judge, "benchmark": bench, "condition": cond, "repeats": k, "n_units": u.height,
                         "flip_rate": 100 * float(fr.point[0]), "flip_low": None if flo is None else 100 * flo,
                         "flip_high": None if fhi is None else 100 * fhi, "alpha": _num(a_point),
                         "alpha_low": alo if not np.isnan(a_point) else None,
                         "alpha_high": ahi if not np.isnan(a_point) else None})
    return pl.DataFrame(rows, schema=RELIABILITY_SCHEMA)


# -- self-preference --------------------------------------------------------------------------

def self_preference(ds: Dataset, authors: pl.DataFrame, *, families: dict[str, tuple[str, ...]] | None = None,
                    judges: list[str] | None = None, n_resamples: int = 1000, seed: int = 0,
                    level: float = 0.95) -> pl.DataFrame:
    """Each judge's preference for responses of its own model family (module doc).

    Parameters
    ----------
    ds : Dataset
    authors : polars.DataFrame
        ``benchmark``, ``item_id``, ``author_a``, ``author_b`` (String; null = unknown).
    families : dict, optional
        family -> patterns (:func:`load_families`; default the shipped table).
    judges : list of str, optional
        Judges to look at (default every judge of ``ds`` whose family is known).

    Returns
    -------
    polars.DataFrame
        :data:`SELF_PREFERENCE_SCHEMA`, rates and gap in percent (points); one row per
        judge and benchmark with at least one mixed item.

    Raises
    ------
    CAPInputError
        ``authors`` lacks a column; bad bootstrap arguments.
    """
    from cap_core.analyses.family_distance import family_of

    need = ("benchmark", "item_id", "author_a", "author_b")
    missing = [c for c in need if c not in authors.columns]
    if missing:
        raise CAPInputError("the authors table lacks a column", argument="authors", column=missing[0],
                            expected=", ".join(need), got=authors.columns,
                            fix="give author_a and author_b (the models that wrote each response)")
    fams = load_families() if families is None else families
    names = set(authors["author_a"].drop_nulls().to_list()) | set(authors["author_b"].drop_nulls().to_list())
    fam_of_author = {a: family_of(a, fams) for a in names}
    items = ds.items.select("benchmark", "item_id", "base_item_id", "gold").join(
        authors.select(need), on=["benchmark", "item_id"], how="inner").with_columns(
        pl.col("author_a").replace_strict(fam_of_author, default=None, return_dtype=pl.String).alias("fam_a"),
        pl.col("author_b").replace_strict(fam_of_author, default=None, return_dtype=pl.String).alias("fam_b"))
    rows = []
    for judge in judges or ds.judges:
        fam = family_of(judge, fams)
        if fam == "unknown":
            continue
        mixed = items.filter(pl.col("fam_a").is_not_null() & pl.col("fam_b").is_not_null()
                             & ((pl.col("fam_a") == fam) != (pl.col("fam_b") == fam)))
        if mixed.height == 0:
            continue
        mixed = mixed.with_columns(pl.when(pl.col("fam_a") == fam).then(pl.lit("A")).otherwise(pl.lit("B"))
                                   .alias("own"))
        jd = ds.judgments.filter(pl.col("judge") == judge).select("benchmark", "item_id", "order", "verdict")
        for (bench,), mb in mixed.group_by("benchmark", maintain_order=True):
            u = mb.join(jd, on=["benchmark", "item_id"], how="inner").filter(pl.col("verdict").is_in(["A", "B", "tie"]))
            if u.height == 0:
                continue
            own_pick = np.where(u["verdict"] == "tie", 0.5, (u["verdict"] == u["own"]).cast(pl.Float64).to_numpy())
            own_worse = (u["gold"] != u["own"]).cast(pl.Float64).to_numpy()
            num = np.stack([own_pick * own_worse, (1 - own_pick) * (1 - own_worse)], axis=1)
            den = np.stack([own_worse, 1 - own_worse], axis=1)
            br = base_ratios(u["base_item_id"], num, den, n_resamples=n_resamples, seed=benchmark_seed(seed, bench))
            lo_o, hi_o = _interval(br.replicates[:, 0], level)
            lo_x, hi_x = _interval(br.replicates[:, 1], level)
            gap_reps = br.replicates[:, 0] - br.replicates[:, 1]
            lo_g, hi_g = _interval(gap_reps, level)
            pct = lambda v: None if v is None or np.isnan(v) else 100 * float(v)  # noqa: E731
            gap = pct(br.point[0] - br.point[1])
            per_item = mb.select("item_id", (pl.col("gold") != pl.col("own")).alias("ow"))
            rows.append({"judge": judge, "benchmark": bench, "family": fam, "n_items": mb.height,
                         "n_own_worse": int(per_item["ow"].sum()), "n_other_worse": int((~per_item["ow"]).sum()),
                         "own_rate": pct(br.point[0]), "own_low": pct(lo_o), "own_high": pct(hi_o),
                         "other_rate": pct(br.point[1]), "other_low": pct(lo_x), "other_high": pct(hi_x),
                         "gap": gap, "gap_low": pct(lo_g), "gap_high": pct(hi_g),
                         "detected": bool(lo_g is not None and lo_g > 0)})
    return pl.DataFrame(rows, schema=SELF_PREFERENCE_SCHEMA)
