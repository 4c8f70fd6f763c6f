"""Coverage matrix: which CAP condition each benchmark can measure, and how.

The coverage status of a (benchmark, condition) cell follows CAP Table 2 (``direct``,
``approximate``, ``augmented``, ``unavailable``) and its operator follows CAP
Appendix D / Table 12. Status comes from the importer's declarations together with
the data itself. The rules, applied per benchmark and condition:

1. A declaration with status ``unavailable`` always wins (the importer knows the
   condition is not valid there, e.g. augmentation would break the label).
2. C1-C4: items whose ``failure_type`` is the condition's planted error make the cell
   ``direct`` (or the declared status if one is declared). Otherwise a declaration
   with a selector column (``subset`` ...) and values selects a native task subset,
   with the declared status (normally ``approximate``).
3. C5/C6: a declaration with selector ``subset`` and a ``reference`` (LLMBar style)
   compares adversarial subsets with a natural reference subset. Otherwise base items
   that carry both a reference variant (``plain``, else ``original``, or the declared
   reference) and the condition's variant (C5 ``polished``, C6 ``length_padded``, or
   the declared values) make the cell measurable: declared status (e.g.
   ``augmented``) or ``direct``.
4. C7: measurable when the benchmark's judgments contain both orders AB and BA.
5. C8: measurable when some judgment of the benchmark has ``rationale_supported``.
6. A declared or data-implied cell with no usable items is ``unavailable``.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import (
    CONDITION_IDS,
    CONDITIONS,
    CONTENT_FAILURE_TYPES,
    ITEM_SELECTORS,
    PROFILE_SCHEMA,
)

__all__ = ["CellPlan", "plan_benchmark", "reference_variant", "reference_of", "coverage_matrix", "plan_members"]

_PAIRED_DEFAULT = {"C5": ("polished",), "C6": ("length_padded",)}


@dataclass(frozen=True)
class CellPlan:
    """How one condition is measured on one benchmark.

    ``kind`` is ``content`` (pa on selected items), ``paired`` (C5/C6 strict vs the
    reference variant), ``subset_gap`` (LLMBar-style C5), ``position`` (C7),
    ``rationale`` (C8) or ``none`` (unavailable). ``column``/``values`` select items;
    ``reference`` names the reference variants or subsets; ``n_units`` counts the
    units available in the items table; ``declared_operator`` is the importer's text.
    """

    condition: str
    status: str
    kind: str
    column: str | None = None
    values: tuple[str, ...] = ()
    reference: tuple[str, ...] = ()
    n_units: int = 0
    declared_operator: str = ""


def reference_variant(items_b: pl.DataFrame) -> str | None:
    """The variant used for content conditions: ``plain``, else ``original``.

    Returns ``None`` when the benchmark has a single variant (all items are used).
    """
    return reference_of(items_b.get_column("variant").unique().to_list())


def reference_of(variants) -> str | None:
    """:func:`reference_variant` from a benchmark's distinct variants (an iterable)."""
    variants = set(variants)
    if len(variants) <= 1:
        return None
    for v in ("plain", "original"):
        if v in variants:
            return v
    return None


def _none(cond: str) -> CellPlan:
    return CellPlan(cond, "unavailable", "none")


def judgment_facts(judgments) -> dict[str, dict]:
    """What :func:`plan_benchmark` reads of the judgments, for every benchmark in one pass.

    ``judgments``: a judgments frame (or LazyFrame) with ``benchmark``, ``item_id``,
    ``order`` and ``rationale_supported``. Returns ``{benchmark: {"orders": [...], "n8":
    int}}``: the orders judged there and the number of items with an evaluated
    rationale (any judge).
    """
    return facts_of(*pl.collect_all(judgment_facts_queries(judgments)))


def judgment_facts_queries(judgments) -> list[pl.LazyFrame]:
    """The queries behind :func:`judgment_facts` (to collect together with others, ``polars.collect_all``):
    the distinct (``benchmark``, ``order``) and the distinct (``benchmark``, ``item_id``) with an
    evaluated rationale counted per benchmark (``len``). :func:`facts_of` reads their results."""
    lf = judgments.lazy() if isinstance(judgments, pl.DataFrame) else judgments
    return [lf.select("benchmark", "order").unique(),
            lf.filter(pl.col("rationale_supported").is_not_null()).select("benchmark", "item_id").unique()
            .group_by("benchmark").len()]


def facts_of(orders: pl.DataFrame, evaluated: pl.DataFrame) -> dict[str, dict]:
    """:func:`judgment_facts` from the results of :func:`judgment_facts_queries`."""
    n8 = dict(zip(evaluated.get_column("benchmark").to_list(), evaluated.get_column("len").to_list()))
    out: dict[str, dict] = {}
    for bench, order in zip(orders.get_column("benchmark").to_list(), orders.get_column("order").to_list()):
        out.setdefault(bench, {"orders": [], "n8": n8.get(bench, 0)})["orders"].append(order)
    return out


class _TableCounts:
    """The item counts :func:`plan_benchmark` reads, by polars queries over one benchmark's items table
    (no numpy: the judging commands plan a run's coverage without loading it)."""

    def __init__(self, items_b: pl.DataFrame):
        self.items, self.n = items_b, items_b.height
        self._combos: list[tuple[dict, int]] | None = None

    def distinct(self, column: str) -> set:
        """Distinct values of ``column`` (``None`` among them when some are null)."""
        return set(self.items.get_column(column).unique().to_list()) if column in self.items.columns else set()

    def count(self, ref: str | None, column: str, values) -> int:
        """Items of variant ``ref`` (any when None) whose ``column`` is one of ``values`` (a null never is).

        Counted from the items' distinct combinations of the selector columns, found in one query
        the first time (a plan asks for several counts)."""
        if column not in self.items.columns:
            return 0
        if self._combos is None:
            cols = [c for c in ITEM_SELECTORS if c in self.items.columns]
            got = self.items.group_by(cols).len() if cols else pl.DataFrame()
            self._combos = [({c: r[c] for c in cols}, r["len"]) for r in got.iter_rows(named=True)]
        want = set(values)
        return sum(n for row, n in self._combos
                   if row[column] is not None and row[column] in want and (ref is None or row.get("variant") == ref))

    def paired(self, reference, values) -> int:
        """Base items holding an item of a ``reference`` variant and one of a ``values`` variant."""
        v = pl.col("variant")
        return int(self.items.group_by("base_item_id").agg(
            v.is_in(list(reference)).fill_null(False).any().alias("r"),
            v.is_in(list(values)).fill_null(False).any().alias("t")).select((pl.col("r") & pl.col("t")).sum()).item())


class _CodeCounts:
    """The same counts as :class:`_TableCounts` from a benchmark's integer item codes
    (:class:`cap_core.profile.item_codes.ItemCodes`, the profile's path)."""

    def __init__(self, codes):
        self.codes, self.n = codes, codes.n

    def distinct(self, column: str) -> set:
        return self.codes.distinct(column)

    def count(self, ref: str | None, column: str, values) -> int:
        hit = self.codes.mask(column, values)
        if ref is not None:
            hit = hit & self.codes.mask("variant", [ref])
        return int(hit.sum())

    def paired(self, reference, values) -> int:
        import numpy as np

        c = self.codes
        have = [np.bincount(c.base[c.mask("variant", x)], minlength=c.n_base) > 0 for x in (reference, values)]
        return int((have[0] & have[1]).sum())


def plan_benchmark(ds: Dataset, benchmark: str, facts: dict | None = None, *,
                   codes=None) -> dict[str, CellPlan]:
    """Resolve the measurement plan of C1..C8 on one benchmark (rules in the module doc).

    ``facts``: this benchmark's entry of :func:`judgment_facts` when the caller has them
    (read from ``ds.judgments`` otherwise). ``codes``: this benchmark's items as
    :class:`cap_core.profile.item_codes.ItemCodes` when the caller has them
    (:func:`cap_core.profile.item_codes.code_items`); ``ds.items`` is then not read.
    Without them the counts are polars queries over ``ds.items`` (the same counts:
    :class:`_TableCounts`, :class:`_CodeCounts`).

    Returns
    -------
    dict
        Condition id -> :class:`CellPlan`, for all eight conditions.
    """
    counts = (_CodeCounts(codes) if codes is not None
              else _TableCounts(ds.items.filter(pl.col("benchmark") == benchmark)))
    decl = {r["condition"]: r for r in ds.declarations.iter_rows(named=True) if r["benchmark"] == benchmark}
    if facts is None:
        facts = judgment_facts(ds.judgments.lazy().filter(pl.col("benchmark") == benchmark)).get(
            benchmark, {"orders": [], "n8": 0})
    variants = counts.distinct("variant")
    orders = set(facts["orders"])
    ref = reference_of(variants)

    def n_items(column: str, values) -> int:  # items of the reference variant whose column is one of values
        return counts.count(ref, column, values)

    got: dict[str, int] = {}  # every item count needed
    specs: dict[str, tuple] = {}
    for cond in CONDITION_IDS:
        d = decl.get(cond)
        if (d is not None and d["status"] == "unavailable") or cond in ("C7", "C8"):
            continue
        dvals = tuple(d["values"] or ()) if d else ()
        dref = tuple(d["reference"] or ()) if d else ()
        sel = d["selector"] if d else None
        if cond in CONTENT_FAILURE_TYPES:
            got[f"{cond}_ft"] = n_items("failure_type", [CONTENT_FAILURE_TYPES[cond]])
            if d is not None and sel in ITEM_SELECTORS and dvals:
                got[f"{cond}_sel"] = n_items(sel, dvals)
            specs[cond] = (sel, dvals)
        elif d is not None and sel == "subset" and dvals and dref:
            got[f"{cond}_gap"] = n_items("subset", dvals)
            specs[cond] = ("gap", dvals, dref)
        else:
            values = dvals if (sel == "variant" and dvals) else _PAIRED_DEFAULT[cond]
            reference = dref or tuple(v for v in ("plain", "original") if v in variants)[:1]
            if reference:  # base items holding both a reference and a treated item
                got[cond] = counts.paired(reference, values)
            specs[cond] = ("paired", values, reference)
    plans: dict[str, CellPlan] = {}
    for cond in CONDITION_IDS:
        d = decl.get(cond)
        dstat, dop = (d["status"], d["operator"] or "") if d else (None, "")
        plan = _none(cond)
        if cond == "C7":
            if {"AB", "BA"} <= orders and not (d is not None and dstat == "unavailable"):
                plan = CellPlan(cond, dstat or "direct", "position", "order", ("AB", "BA"), (), counts.n, dop)
        elif cond == "C8":
            if facts["n8"] and not (d is not None and dstat == "unavailable"):
                plan = CellPlan(cond, dstat or "direct", "rationale", "rationale", (), (), facts["n8"], dop)
        elif cond not in specs:
            pass
        elif cond in CONTENT_FAILURE_TYPES:
            sel, dvals = specs[cond]
            if got[f"{cond}_ft"]:
                ft = CONTENT_FAILURE_TYPES[cond]
                plan = CellPlan(cond, dstat or "direct", "content", "failure_type", (ft,), (), got[f"{cond}_ft"], dop)
            elif f"{cond}_sel" in got:
                plan = CellPlan(cond, dstat, "content", sel, dvals, (), got[f"{cond}_sel"], dop)
        elif specs[cond][0] == "gap":
            _, dvals, dref = specs[cond]
            plan = CellPlan(cond, dstat, "subset_gap", "subset", dvals, dref, got[f"{cond}_gap"], dop)
        else:
            _, values, reference = specs[cond]
            plan = CellPlan(cond, dstat or "direct", "paired", "variant", values, reference, got.get(cond, 0), dop)
        if plan.kind != "none" and plan.n_units == 0:
            plan = _none(cond)
        plans[cond] = plan
    return plans


def describe_plan(plan: CellPlan, orders: tuple[str, ...]) -> str:
    """One-line description of the measurement, used as the coverage operator."""
    if plan.kind == "none":
        return "not measurable on this benchmark"
    over = "over A/B and B/A" if len(orders) == 2 else f"on the {orders[0]} order only"
    sel = ", ".join(plan.values)
    if plan.kind == "content":
        what = f"{sel} items" if plan.column == "failure_type" else f"the {sel} {plan.column}"
        return f"position-averaged accuracy {over} on {what}"
    if plan.kind == "paired":
        return f"strict both-correct: {sel} vs. {'/'.join(plan.reference)} presentation, per order, averaged {over}"
    if plan.kind == "subset_gap":
        return f"position-averaged accuracy {over} on adversarial subsets {sel} (reference {', '.join(plan.reference)})"
    if plan.kind == "position":
        return "strict both-correct over the A/B and B/A orderings"
    return "share of correct A/B verdicts whose rationale the evaluator judged supporting"


def coverage_matrix(ds: Dataset, profile: pl.DataFrame | None = None) -> pl.DataFrame:
    """Coverage status of every benchmark x condition (CAP Table 2, operators per Appendix D).

    Parameters
    ----------
    ds : Dataset
        Items, judgments and declarations.
    profile : polars.DataFrame, optional
        A profile from :func:`cap_core.profile.conditions.compute_profile`. When given,
        ``n_items`` is the largest primary-row ``n_items`` over judges (subset
        ``all``) and a cell whose primary rows are all null becomes ``unavailable``.

    Returns
    -------
    polars.DataFrame
        One row per benchmark x C1..C8 (benchmarks sorted): ``benchmark``,
        ``condition``, ``condition_name`` (CAP Table 1), ``status`` (CAP Table 2
        vocabulary), ``operator`` (declared text, else a generated description),
        ``n_items`` (Int64, units available: items for C1-C4/C7, base items for
        paired C5/C6, items with an evaluated rationale for C8; 0 when
        unavailable), ``source`` = ``"computed"``.

    Raises
    ------
    CAPInputError
        ``ds`` is not a Dataset, or ``profile`` lacks profile columns.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("coverage_matrix needs a Dataset", expected="cap_core.dataset.Dataset", got=type(ds).__name__)
    if profile is not None:
        missing = [c for c in PROFILE_SCHEMA if c not in profile.columns]
        if missing:
            raise CAPInputError(
                "profile is missing columns", column=missing[0], expected="PROFILE_SCHEMA columns", got=profile.columns,
                fix="pass the .profile frame returned by compute_profile",
            )
    rows = []
    for bench in ds.benchmarks:
        orders = tuple(sorted(ds.judgments.filter(pl.col("benchmark") == bench).get_column("order").unique()))
        for cond, plan in plan_benchmark(ds, bench).items():
            status, n = plan.status, plan.n_units
            if profile is not None and status != "unavailable":
                prim = profile.filter(
                    (pl.col("benchmark") == bench) & (pl.col("condition") == cond)
                    & (pl.col("subset") == "all") & pl.col("primary") & pl.col("value").is_not_null()
                )
                if prim.height == 0:
                    status, n = "unavailable", 0
                else:
                    n = int(prim.get_column("n_items").max())
            if status == "unavailable":
                n = 0
            op = plan.declared_operator or describe_plan(plan, orders or ("AB",))
            rows.append((bench, cond, CONDITIONS[cond][0], status, op if status != "unavailable" else "", n, "computed"))
    schema = {
        "benchmark": pl.String, "condition": pl.String, "condition_name": pl.String, "status": pl.String,
        "operator": pl.String, "n_items": pl.Int64, "source": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def plan_members(plan: CellPlan, items_b: pl.DataFrame, orders: tuple[str, ...]) -> tuple[pl.Expr, tuple[str, ...]]:
    """Which judged calls of one benchmark feed ``plan``'s condition (the plan's own selection).

    ``items_b`` is the benchmark's items table; ``orders`` the orders judged (``AB``
    before ``BA``). Returns a Boolean expression over ``items_b`` rows and the orders
    whose calls count: content conditions take the plan's ``column``/``values`` within
    the reference variant; a subset gap its adversarial and reference subsets; paired
    C5/C6 the reference and changed variants of base items that have both; C7 every
    item in both orders; C8 every item in the first order (rule 5). Used by the live-run
    failure table, so its rows are the conditions the profile measures.
    """
    ref = reference_variant(items_b)
    pool = pl.lit(True) if ref is None else (pl.col("variant") == ref)
    if plan.kind == "content":
        member = pool & pl.col(plan.column).is_in(list(plan.values))
    elif plan.kind == "subset_gap":
        member = pool & pl.col("subset").is_in([*plan.values, *plan.reference])
    elif plan.kind == "paired":
        has = [pl.col("variant").is_in(list(v)).any().over("base_item_id") for v in (plan.reference, plan.values)]
        member = pl.col("variant").is_in([*plan.reference, *plan.values]) & has[0] & has[1]
    elif plan.kind in ("position", "rationale"):
        member = pl.lit(True)
    else:
        member = pl.lit(False)
    return member.fill_null(False), (orders[:1] if plan.kind == "rationale" else orders)
