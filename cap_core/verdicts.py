"""Item-level verdicts: one row per (judge, benchmark, item, order) with correctness flags.

Every analysis that asks "was this verdict correct?" reads the answer from
:func:`verdict_rows` (or, for a verdict it derives itself, such as a jury's majority,
from the same rule in :func:`verdict_flags`), so the tie, unparsed and missing rules
live here and nowhere else.

Rules (CAP Table 1 and eq. 1: each condition is an accuracy ``E[I_c(x; j)]``; CAP
App. L: exclusions):

* Verdicts are stored in the letters of the **original** presentation (see
  :mod:`cap_core.schema`): when the judge saw the responses swapped (order ``BA``) and
  preferred the response originally labelled A, the stored verdict is ``A``. The
  importers de-swap when they read a raw file (e.g. JudgeBench's second-order decision);
  nothing downstream flips letters again, so ``verdict`` here is already de-swapped.
* ``correct``: the verdict equals the gold letter (``A`` or ``B``).
* ``tie`` and ``unparsed`` verdicts, and a **missing** verdict (the judge has no
  judgment row for an order of an item it received), are never correct. CAP counts
  such units in ``n_excluded`` (:mod:`cap_core.profile.conditions`); ``excluded`` is
  that flag.
* **The denominator rule** (:func:`counted`). A judge *received* an item when it has at
  least one judgment row on it (in any order). An item it did not receive is outside
  its denominator: it is not scored, not missing and not excluded; the profile counts
  it in ``n_not_received``. So a judge that judged 10 of 20 items, all correctly, has
  accuracy 100% on n = 10, and judges that covered different items are each scored on
  their own (comparisons between judges then use the items all of them received:
  :func:`shared_items`). Of an item a judge received, the verdict of each order the
  benchmark uses is expected; one it lacks is missing. Under ``failures="exclude"`` (CAP
  App. L: API and parse failures lower n) a unit with an ``unparsed`` or missing
  verdict leaves the denominator instead (counted in ``n_excluded``); a tie is an
  answer and stays, never correct. An item without a gold label (a preference-only
  source) is outside the denominator of every metric that needs gold (accuracy,
  strict, rationale) and inside those that do not (pure consistency).
* Which (item, order) cells :func:`verdict_rows` holds: for every requested judge, every
  item it received, in every order that occurs in the judgments of the requested judges
  on that benchmark. So with ``judges=[j]`` a judge is held to its own orders only;
  with several judges, a judge lacking an order the others used is missing there.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped

__all__ = ["verdict_rows", "verdict_grid", "verdict_flags", "choose_verdicts", "counted", "check_failures",
           "shared_items", "joint_units", "VERDICT_ROWS_SCHEMA", "FLAGS", "VERDICT_SOURCES", "FAILURE_RULES"]

#: Which verdict feeds the correctness rule: ``derived`` (CAP's reading of the source,
#: e.g. equal scores -> tie; the default) or ``recorded`` (the verdict the source itself
#: wrote: LLMBar ``winner``, JudgeBench ``decision``; column ``verdict_recorded``).
VERDICT_SOURCES: tuple[str, ...] = ("derived", "recorded")

#: What a failed attempt does to the denominator (:func:`counted`): ``count`` (the default:
#: the unit stays in n, never correct) or ``exclude`` (CAP App. L: API and parse failures,
#: i.e. ``unparsed`` and missing verdicts, lower n; ties stay).
FAILURE_RULES: tuple[str, ...] = ("count", "exclude")

#: The Boolean flag columns of :func:`verdict_rows`, in order.
FLAGS: tuple[str, ...] = ("correct", "tie", "unparsed", "missing", "excluded")

#: Columns and dtypes of :func:`verdict_rows` (before any ``carry`` columns).
VERDICT_ROWS_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String,
    "benchmark": pl.String,
    "item_id": pl.String,
    "base_item_id": pl.String,
    "order": pl.String,
    "verdict": pl.String,
    "gold": pl.String,
    **{f: pl.Boolean for f in FLAGS},
}

_KEYS = ["judge", "benchmark", "item_id", "order"]


def verdict_flags(verdict: str | pl.Expr = "verdict", gold: str | pl.Expr = "gold") -> list[pl.Expr]:
    """The correctness rule as polars expressions, named as in :data:`FLAGS`.

    Parameters
    ----------
    verdict, gold : str or polars.Expr
        The verdict (``A`` / ``B`` / ``tie`` / ``unparsed``, null = missing, in the
        original letters) and the gold letter (``A`` / ``B``).

    Returns
    -------
    list of polars.Expr
        Boolean, never null: ``correct`` (verdict == gold), ``tie``, ``unparsed``
        (any verdict other than A, B or tie), ``missing`` (null verdict), ``excluded``
        (tie, unparsed or missing: never correct, CAP App. L ``n_excluded``).
    """
    v = pl.col(verdict) if isinstance(verdict, str) else verdict
    g = pl.col(gold) if isinstance(gold, str) else gold
    missing = v.is_null()
    tie = (v == "tie").fill_null(False)
    decisive = v.is_in(["A", "B"]).fill_null(False)
    return [
        (decisive & (v == g)).fill_null(False).alias("correct"),
        tie.alias("tie"),
        (~missing & ~decisive & ~tie).alias("unparsed"),
        missing.alias("missing"),
        (~decisive).alias("excluded"),
    ]


def choose_verdicts(ds: Dataset, which: str = "derived") -> Dataset:
    """``ds`` with the chosen verdicts in ``verdict``, so every analysis applies the one rule to them.

    Parameters
    ----------
    ds : Dataset
        Validated items and judgments.
    which : {"derived", "recorded"}
        ``derived`` returns ``ds`` unchanged (CAP's verdicts: equal scores are a tie, a
        failed score unparsed; CAP App. L). ``recorded`` puts the source's own verdict
        (``verdict_recorded``) in ``verdict`` wherever the source recorded one; rows
        without a recorded verdict keep the derived one, and a notice names the judges
        concerned.

    Returns
    -------
    Dataset
        Same tables and columns; only ``verdict`` (String, A/B/tie/unparsed, original
        letters) and, for ``recorded``, ``notices`` may differ.

    Raises
    ------
    CAPInputError
        ``ds`` not a Dataset, or ``which`` not one of :data:`VERDICT_SOURCES`.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("choose_verdicts needs a Dataset", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    if which not in VERDICT_SOURCES:
        raise CAPInputError("unknown verdict source", argument="which", expected=" or ".join(VERDICT_SOURCES),
                            got=which, fix="pass derived (CAP's reading, the default) or recorded (the source's own)")
    if which == "derived":
        return ds
    jm = ds.judgments
    rec = jm.get_column("verdict_recorded") if "verdict_recorded" in jm.columns else None
    if rec is None:
        jm = jm.with_columns(pl.lit(None, dtype=pl.String).alias("verdict_recorded"))
    lacking = sorted(jm.filter(pl.col("verdict_recorded").is_null()).get_column("judge").unique().to_list())
    notices = tuple(ds.notices)
    if lacking:
        notices += (f"recorded verdicts: {len(lacking)} judge(s) have rows without a verdict recorded by the source "
                    f"({capped(lacking)}); their derived verdicts are used there.",)
    jm = jm.with_columns(pl.coalesce("verdict_recorded", "verdict").alias("verdict"))
    if rec is None:
        jm = jm.drop("verdict_recorded")
    return dataclasses.replace(ds, judgments=jm, notices=notices)


def _names(given, allowed: list[str], what: str) -> list[str] | None:
    if given is None:
        return None
    if isinstance(given, str) or not all(isinstance(g, str) for g in given):
        raise CAPInputError(f"{what} must be a list of names", argument=what, expected="a list of str", got=given)
    unknown = [g for g in given if g not in allowed]
    if unknown:
        raise CAPInputError(f"unknown {what[:-1]} name", argument=what, got=unknown[0],
                            expected="one of " + capped(allowed), fix=f"pick {what} present in the dataset")
    return list(dict.fromkeys(given))


def verdict_rows(ds: Dataset, *, benchmarks: list[str] | None = None, judges: list[str] | None = None,
                 carry: tuple[str, ...] = (), gold_only: bool = False) -> pl.DataFrame:
    """Every verdict a judge gave or should have given, with its correctness flags.

    Parameters
    ----------
    ds : Dataset
        Validated items and judgments.
    benchmarks, judges : list of str, optional
        Restrict to these names (default: all in ``ds``). The judges chosen decide which
        orders are expected (module notes).
    carry : tuple of str
        Further judgment columns to carry along (e.g. ``"rationale_supported"``,
        ``"confidence"``); null on missing rows.
    gold_only : bool, default False
        Keep only the items that have a gold label: what every analysis that scores
        verdicts against gold reads (an item without gold is outside its denominator,
        never a wrong verdict; module notes).

    Returns
    -------
    polars.DataFrame
        :data:`VERDICT_ROWS_SCHEMA` plus ``carry``: one row per (judge, benchmark,
        item_id, order) expected by the module rule, sorted by benchmark, judge,
        item_id, order. ``verdict`` (String, de-swapped, null when missing), ``gold``
        (String A/B), ``base_item_id`` (String) from the items table; the Boolean flags
        ``correct``, ``tie``, ``unparsed``, ``missing``, ``excluded`` of
        :func:`verdict_flags` (exactly one of correct / tie / unparsed / missing / a
        wrong A-B letter holds on each row).

    Raises
    ------
    CAPInputError
        ``ds`` not a Dataset; unknown benchmark or judge names; a ``carry`` column that
        is not a judgments column.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("verdict_rows needs a Dataset", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    benches = _names(benchmarks, ds.benchmarks, "benchmarks")
    judge_list = _names(judges, ds.judges, "judges")
    carry = tuple(dict.fromkeys(carry))
    bad = [c for c in carry if c not in ds.judgments.columns or c in _KEYS or c == "verdict"]
    if bad:
        raise CAPInputError("cannot carry this column", argument="carry", got=bad[0],
                            expected="a judgments column other than judge, benchmark, item_id, order, verdict")
    grid = verdict_grid(ds, benches, judge_list, carry)
    if grid is None:
        return pl.DataFrame(schema={**VERDICT_ROWS_SCHEMA, **{c: ds.judgments.schema[c] for c in carry}})
    items, names, cols = grid
    at_item = items.select(pl.col("benchmark", "item_id", "base_item_id", "gold").gather(cols["item"]))
    out = pl.concat([at_item, cols.select("verdict", *carry), pl.DataFrame([
        pl.Series(names, dtype=pl.String).gather(cols["judge"]).alias("judge"),
        pl.Series(["AB", "BA"], dtype=pl.String).gather(cols["order"]).alias("order")])],
        how="horizontal")
    if gold_only:
        out = out.filter(pl.col("gold").is_not_null())
    return out.with_columns(verdict_flags()).select(*VERDICT_ROWS_SCHEMA, *carry)


def verdict_grid(ds: Dataset, benches: list[str] | None, judge_list: list[str] | None, carry: tuple[str, ...] = ()):
    """The expected verdict cells of :func:`verdict_rows` as integer codes (its row order).

    Arguments are already checked (``None`` = all). Returns ``None`` when no judgment
    is selected, else ``(items, names, cols)``: ``items`` the selected items sorted by
    (benchmark, item_id) with ``item_row`` (their row in ``ds.items``); ``names`` the
    judges with judgments, sorted; ``cols`` one row per expected (judge, item, order)
    cell with ``judge`` (index into ``names``), ``item`` (row of ``items``), ``order``
    (0 = AB, 1 = BA) as UInt32 / Int64 codes, and ``verdict`` plus ``carry`` from the
    judgment (null when missing). The expected cells are those of the module's rule:
    every order of the benchmark for each (judge, item) the judge received.
    """
    items = ds.items.with_row_index("item_row").select(pl.exclude("item_row"), pl.col("item_row"))
    jm = ds.judgments.select(*_KEYS, "verdict", *carry)
    if benches is not None:
        items = items.filter(pl.col("benchmark").is_in(benches))
        jm = jm.filter(pl.col("benchmark").is_in(benches))
    if judge_list is not None:
        jm = jm.filter(pl.col("judge").is_in(judge_list))
    items = items.sort("benchmark", "item_id")
    # each judgment's item as a position among the sorted items (every judgment has an item: schema)
    keyed = jm.select("benchmark", "item_id", "judge", "order").with_row_index("_src").join(
        items.select("benchmark", "item_id", pl.int_range(pl.len(), dtype=pl.Int64).alias("_pos")),
        on=["benchmark", "item_id"], how="inner")
    if keyed.height == 0:
        return None
    names = sorted(keyed.get_column("judge").unique().to_list())
    # position in ``names`` (an Enum of them codes the strings in that order: far cheaper than replace_strict)
    jc = keyed.get_column("judge").cast(pl.Enum(names)).to_physical().cast(pl.Int64).to_numpy()
    oc = (keyed.get_column("order") == "BA").cast(pl.Int64).to_numpy()  # 0 = AB, 1 = BA (sorted)
    pos, row = keyed.get_column("_pos").to_numpy(), keyed.get_column("_src").to_numpy()
    item_b = (items.get_column("benchmark").rank("dense") - 1).cast(pl.Int64).to_numpy()  # non-decreasing
    n_b = int(item_b.max()) + 1
    b = item_b[pos]
    has_o = np.zeros((n_b, 2), dtype=bool)
    has_o[b, oc] = True
    n_o, rank_o = has_o.sum(axis=1), np.cumsum(has_o, axis=1) - 1
    # the received (judge, item) pairs, in the output order: benchmark, judge, item (items are sorted)
    pair_key = (b * len(names) + jc) * items.height + pos
    pairs, pair_of = np.unique(pair_key, return_inverse=True)
    p_pos = pairs % items.height
    p_judge = (pairs // items.height) % len(names)
    p_b = item_b[p_pos]
    width = n_o[p_b]  # cells per pair: the benchmark's orders
    start = np.concatenate([[0], np.cumsum(width)[:-1]])
    src = np.full(int(width.sum()), -1, dtype=np.int64)
    src[start[pair_of] + rank_o[b, oc]] = row
    within = np.arange(src.size) - np.repeat(start, width)
    only = np.argmax(has_o, axis=1)  # the one order of a one-order benchmark
    g_order = np.where(np.repeat(width, width) == 2, within, np.repeat(only[p_b], width))
    cols = pl.concat([
        pl.DataFrame([pl.Series("judge", np.repeat(p_judge, width), dtype=pl.UInt32),
                      pl.Series("item", np.repeat(p_pos, width), dtype=pl.Int64),
                      pl.Series("order", g_order, dtype=pl.UInt32)]),
        jm.select(pl.col("verdict", *carry).gather(pl.Series(src).replace(-1, None)))], how="horizontal")
    return items, names, cols


def check_failures(failures: object) -> str:
    """``failures`` if it names a rule of :data:`FAILURE_RULES`, else :class:`CAPInputError` (argument ``failures``)."""
    if failures not in FAILURE_RULES:
        raise CAPInputError("unknown rule for failed judgments", argument="failures",
                            expected=" or ".join(FAILURE_RULES), got=failures,
                            fix="count (a failure stays in n, never correct; the default) or exclude (CAP App. L: "
                                "API and parse failures lower n)")
    return str(failures)


def counted(received, gold_known, failed, *, failures: str = "count", needs_gold: bool = True):
    """The denominator rule (module notes): does a unit enter a metric's denominator?

    Elementwise on numpy Boolean arrays or polars Boolean expressions (broadcasting as
    either does).

    Parameters
    ----------
    received : bool array or polars.Expr
        The judge has a judgment row on every item of the unit (in some order).
    gold_known : bool array or polars.Expr
        Every item of the unit has a gold label (A or B).
    failed : bool array or polars.Expr
        Some verdict of the unit is ``unparsed`` or missing (an API or parse failure).
    failures : {"count", "exclude"}
        :data:`FAILURE_RULES`; ``exclude`` drops failed units (CAP App. L).
    needs_gold : bool
        The metric compares verdicts with gold (accuracy, strict, rationale on correct
        verdicts); pure consistency does not.

    Returns
    -------
    Same kind as the inputs: True where the unit is in the denominator.
    """
    keep = received
    if needs_gold:
        keep = keep & gold_known
    if failures == "exclude":
        keep = keep & ~failed
    return keep


def shared_items(ds: Dataset, *, judges: list[str] | None = None,
                 benchmarks: list[str] | None = None, failures: str = "count") -> pl.DataFrame:
    """The items every judge received, per benchmark: where judges can be compared.

    Parameters
    ----------
    ds : Dataset
    judges, benchmarks : list of str, optional
        Restrict to these names (default all). On each benchmark, the judges that have
        at least one judgment there count; a judge with none is not part of it.
    failures : {"count", "exclude"}
        Under ``exclude`` an item on which some judge has an ``unparsed`` or missing verdict
        is not shared either: it is outside that judge's denominator, so comparing the
        others on it would compare different items (a judge that fails on the hard items
        must not win by it).

    Returns
    -------
    polars.DataFrame
        ``benchmark``, ``item_id`` (String): the items on which each of those judges has
        a judgment row (the received rule of the module notes) and, under ``exclude``, no
        failed verdict, sorted.

    Raises
    ------
    CAPInputError
        Unknown judge or benchmark names.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("shared_items needs a Dataset", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    benches = _names(benchmarks, ds.benchmarks, "benchmarks")
    judge_list = _names(judges, ds.judges, "judges")
    jm = ds.judgments.select("judge", "benchmark", "item_id")
    if benches is not None:
        jm = jm.filter(pl.col("benchmark").is_in(benches))
    if judge_list is not None:
        jm = jm.filter(pl.col("judge").is_in(judge_list))
    per = jm.unique()
    n_judges = per.group_by("benchmark").agg(pl.col("judge").n_unique().alias("_n"))
    out = (per.group_by("benchmark", "item_id").agg(pl.len().alias("_k")).join(n_judges, on="benchmark")
           .filter(pl.col("_k") == pl.col("_n")).select("benchmark", "item_id").sort("benchmark", "item_id"))
    if check_failures(failures) == "exclude" and out.height:
        rows = verdict_rows(ds.keep_items(out), benchmarks=benches, judges=judge_list)
        failed = rows.filter(pl.col("unparsed") | pl.col("missing")).select("benchmark", "item_id").unique()
        out = out.join(failed, on=["benchmark", "item_id"], how="anti")
    return out


def joint_units(rows: pl.DataFrame, judges: list[str], unit: tuple[str, ...] = ("item_id", "order")) -> pl.DataFrame:
    """``rows`` (of :func:`verdict_rows`) on the units every one of ``judges`` has a verdict on.

    A unit (by default an item in one order) is kept when each listed judge has a row there
    that is not ``missing``: an item a judge never received (no row at all, module notes) and
    an order it lacks both take the unit out, for every judge. The one rule of "judged by all"
    for juries, agreement and paired comparisons.
    """
    judges = list(dict.fromkeys(judges))
    mine = rows.filter(pl.col("judge").is_in(judges))
    full = (mine.filter(~pl.col("missing")).group_by(*unit).agg(pl.col("judge").n_unique().alias("_k"))
            .filter(pl.col("_k") == len(judges)).drop("_k"))
    return mine.join(full, on=list(unit), how="semi")
