"""Per-unit arrays behind :func:`cap_core.profile.conditions.compute_profile`.

For one benchmark, the verdict rows of :func:`cap_core.verdicts.verdict_rows` (the one
place where correct, tie, unparsed and missing are decided) become dense numpy arrays:
verdict codes and correctness / exclusion flags of shape ``(n_judges, n_items)`` per
order, evaluated rationales, the base-item index (:func:`cap_core.bootstrap.base_index`)
and bootstrap stratum of every item. Item selections (subsets, planted failure types,
variant pairs) come from one ``select`` over the items table. Every condition cell is
then a vectorised numpy expression over all judges at once. The rules are documented
in :mod:`cap_core.profile.conditions`; this module only implements them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core.bootstrap import base_index, per_base_sums
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.coverage import reference_variant
from cap_core import verdicts

#: Verdict codes in the dense arrays (``-1`` = no judgment row). Codes only tell verdicts
#: apart (pure consistency: the same verdict twice); correctness comes from the flags.
A, B, TIE, OTHER, MISSING = 0, 1, 2, 3, -1
_STRATA_COLUMNS = ("subset", "failure_type", "variant")


@dataclass
class BenchUnits:
    """Dense verdict arrays of one benchmark.

    ``items``: the benchmark's items with ``idx`` (row) and ``base_idx`` (base-item
    code); ``v``: order -> int8 verdict codes ``(n_judges, n_items)``; ``ok``: order ->
    bool ``correct`` flags and ``bad``: order -> bool ``excluded`` flags (tie, unparsed
    or missing) of :func:`cap_core.verdicts.verdict_rows`, same shape; ``rs``:
    ``(n_judges, n_items)`` rationale_supported of the first order (-1 when null or
    missing); ``base``: ``(n_items,)`` base index; ``strata``: ``(n_base,)`` stratum
    label of every base item.
    """

    items: pl.DataFrame
    v: dict[str, np.ndarray]
    ok: dict[str, np.ndarray]
    bad: dict[str, np.ndarray]
    rs: np.ndarray
    base: np.ndarray
    n_base: int
    strata: np.ndarray


def _code() -> pl.Expr:
    """Verdict code from the flags of :func:`cap_core.verdicts.verdict_rows`."""
    return (pl.when(pl.col("missing")).then(MISSING).when(pl.col("tie")).then(TIE)
            .when(pl.col("unparsed")).then(OTHER).when(pl.col("verdict") == "A").then(A).otherwise(B)
            .cast(pl.Int8))


def prepare(ds: Dataset, judges: list[str]) -> tuple[dict, dict]:
    """Index items and code the verdict rows of every benchmark in one pass.

    Returns two dicts keyed by ``(benchmark,)``: items with ``idx`` (row within the
    benchmark), and the verdict rows of the given judges (the expected cells of
    :func:`cap_core.verdicts.verdict_grid`, so a missing (item, order) is a row, with the
    flags of :func:`cap_core.verdicts.verdict_flags`) with ``g`` (position in
    ``judges``), ``idx``, ``o`` (0 = AB, 1 = BA), ``code`` (verdict code), ``ok`` /
    ``bad`` (Int8 ``correct`` / ``excluded`` flags) and ``rs`` (rationale_supported, -1
    when null). Integer keys throughout: no join or string comparison per verdict row
    beyond the grid's own.
    """
    items = ds.items.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).over("benchmark").alias("idx"))
    carry = ("rationale_supported",) if "rationale_supported" in ds.judgments.columns else ()
    grid = verdicts.verdict_grid(ds, None, list(judges), carry)
    by_bench = items.partition_by("benchmark", as_dict=True)
    if grid is None:
        return by_bench, {}
    sorted_items, names, cols = grid
    # per sorted item: benchmark code, row within its benchmark, gold
    bench_names = sorted(sorted_items.get_column("benchmark").unique().to_list())
    b_code = (sorted_items.get_column("benchmark").rank("dense") - 1).cast(pl.Int64).to_numpy()
    idx = items.get_column("idx").to_numpy()[sorted_items.get_column("item_row").to_numpy()]
    g_of = np.searchsorted(np.asarray(judges, dtype=object), np.asarray(names, dtype=object))
    item = cols.get_column("item").to_numpy()
    rs = pl.col("rationale_supported") if carry else pl.lit(None)
    coded = (cols.with_columns(sorted_items.get_column("gold").gather(cols.get_column("item")).alias("gold"))
             .with_columns(verdicts.verdict_flags())  # looked up at call time: the one rule
             .select(pl.Series("b", b_code[item]), pl.Series("g", g_of[cols.get_column("judge").to_numpy()]),
                     pl.Series("idx", idx[item]), pl.col("order").cast(pl.Int8).alias("o"), _code().alias("code"),
                     pl.col("correct").cast(pl.Int8).alias("ok"), pl.col("excluded").cast(pl.Int8).alias("bad"),
                     rs.cast(pl.Int8).fill_null(-1).alias("rs")))
    parts = coded.partition_by("b", as_dict=True, include_key=False)
    return by_bench, {(bench_names[k[0]],): part for k, part in parts.items()}


def load_units(items: pl.DataFrame, coded: pl.DataFrame, judges: list[str],
               strata_extra: tuple[str, ...] = ()) -> tuple[BenchUnits, list[str], tuple[str, ...]]:
    """Dense arrays of one benchmark from :func:`prepare` output.

    Returns the units, the judges with at least one judgment here (in ``judges``
    order) and the orders present (``AB`` before ``BA``). Strata: base items with the
    same set of (``subset``, ``failure_type``, ``variant``, ``strata_extra``) values
    over their items share a stratum.
    """
    g, i, o, code, ok_all, bad_all, rs_all = (coded[c].to_numpy() for c in ("g", "idx", "o", "code", "ok", "bad",
                                                                            "rs"))
    present = np.unique(g)
    j = np.searchsorted(present, g)
    orders = tuple(("AB", "BA")[k] for k in np.unique(o))
    n, nj = items.height, present.size
    v, ok, bad = {}, {}, {}
    for k, name in enumerate(("AB", "BA")):
        if name in orders:
            m = o == k
            v[name] = np.full((nj, n), MISSING, dtype=np.int8)
            v[name][j[m], i[m]] = code[m]
            ok[name] = np.zeros((nj, n), dtype=bool)
            ok[name][j[m], i[m]] = ok_all[m] == 1
            bad[name] = np.ones((nj, n), dtype=bool)
            bad[name][j[m], i[m]] = bad_all[m] == 1
    rs = np.full((nj, n), -1, dtype=np.int8)
    if orders:
        first = o == (0 if orders[0] == "AB" else 1)
        rs[j[first], i[first]] = rs_all[first]
    base, n_base = base_index(items["base_item_id"])
    items = items.with_columns(pl.Series("base_idx", base, dtype=pl.Int64))
    cols = [c for c in dict.fromkeys(_STRATA_COLUMNS + tuple(strata_extra)) if c in items.columns]
    key = pl.concat_str([pl.col(c).cast(pl.String).fill_null("\x00") for c in cols], separator="\x1f")
    if n == n_base:  # one item per base item: the item's own key
        strata = items.select(key.rank("dense").alias("s")).to_series().to_numpy()
        strata = strata[np.argsort(base)]
    else:
        strata = (items.group_by("base_idx").agg(key.unique().sort().str.join("\x1e").alias("k"))
                  .sort("base_idx").select(pl.col("k").rank("dense"))).to_series().to_numpy()
    units = BenchUnits(items, v, ok, bad, rs, base, n_base, strata)
    return units, [judges[x] for x in present], orders


class Cells:
    """Per-base numerator / denominator sums of every cell; cell index = type * n_judges + judge.

    :meth:`add` takes one cell type for all judges: unit base indices ``(m,)`` and
    numerator, denominator (``None`` = 1 per unit, shared by all judges) and
    excluded indicators of shape ``(n_judges, m)``.
    """

    def __init__(self, n_judges: int, n_base: int, keep_units: bool = False):
        self.J, self.n_base, self.types = n_judges, n_base, {}
        self.num, self.den, self.den_col, self.totals = [], [], [], []
        self.units = {} if keep_units else None  # key -> (base, num, den) per unit, for checks

    def add(self, key: tuple, base: np.ndarray, num: np.ndarray, den: np.ndarray | None, excl: np.ndarray) -> None:
        self.types[key] = len(self.types)
        num = num.astype(np.float64)
        if self.units is not None:
            self.units[key] = (base, num, np.ones_like(num) if den is None else den.astype(np.float64))
        self.num.append(per_base_sums(base, num.T, self.n_base))
        start = sum(d.shape[1] for d in self.den)  # first column of the block added below
        if den is None:
            self.den.append(per_base_sums(base, np.ones(base.size), self.n_base))
            self.den_col += [start] * self.J
            tot_den = np.full(self.J, float(base.size))
        else:
            den = den.astype(np.float64)
            self.den.append(per_base_sums(base, den.T, self.n_base))
            self.den_col += list(range(start, start + self.J))
            tot_den = den.sum(axis=1)
        self.totals.append((num.sum(axis=1), tot_den, excl.sum(axis=1).astype(np.float64)))

    def idx(self, key: tuple, j: int) -> int:
        return self.types[key] * self.J + j

    def matrices(self):
        """``num (n_base, K)``, ``den (n_base, D)``, ``den_col (K,)`` (column of ``den`` per cell) and
        per-cell totals ``num, den, excl`` of shape ``(K,)``."""
        if not self.num:
            z = np.zeros((self.n_base, 0))
            return z, z, np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0)
        tn, td, te = (np.concatenate(t) for t in zip(*self.totals))
        return np.hstack(self.num), np.hstack(self.den), np.asarray(self.den_col), tn, td, te


def _variant_pairs(u: BenchUnits, reference, values, bench: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Base items holding a reference and a treated presentation: (base index, reference item, treated item)."""
    sides = []
    for vals in (reference, values):
        part = u.items.filter(pl.col("variant").is_in(list(vals))).select("base_idx", "base_item_id", "idx")
        dup = part.filter(pl.col("base_item_id").is_duplicated())
        if dup.height:
            raise CAPInputError(
                f"a base item has more than one {'/'.join(vals)} item", file=bench, column="variant",
                expected="at most one item per base item and variant", got=dup["base_item_id"][0],
                fix="give each presentation variant of a base item its own variant name",
            )
        sides.append(part.drop("base_item_id"))
    pr = sides[0].join(sides[1], on="base_idx", how="inner", suffix="_t")
    return pr["base_idx"].to_numpy(), pr["idx"].to_numpy(), pr["idx_t"].to_numpy()


def add_cells(cells: Cells, u: BenchUnits, plans, orders, subsets, bench) -> None:
    """Register every measurable cell of one benchmark (rules: conditions module)."""
    correct, bad = u.ok, u.bad  # flags of cap_core.verdicts.verdict_rows

    def consistent(a, b):
        return (a == b) & (a >= 0) & (a <= TIE)

    pa = sum(correct[o].astype(np.float64) for o in orders) / len(orders)
    pa_bad = np.logical_or.reduce([bad[o] for o in orders])
    ref = reference_variant(u.items)
    pool = pl.lit(True) if ref is None else (pl.col("variant") == ref)
    sel = {}
    for s in subsets:
        sel[("s", s)] = pl.lit(True) if s == "all" else (pl.col("subset") == s)
    for cond, p in plans.items():
        if p.kind == "content":
            sel[(cond, "pa")] = pool & pl.col(p.column).is_in(list(p.values))
        elif p.kind == "subset_gap":
            sel[(cond, "pa")] = pool & pl.col("subset").is_in(list(p.values))
            sel[(cond, "natural_pa")] = pool & pl.col("subset").is_in(list(p.reference))
    names = {k: f"m{i}" for i, k in enumerate(sel)}
    got = u.items.select([e.fill_null(False).alias(names[k]) for k, e in sel.items()])
    idx = {k: np.flatnonzero(np.broadcast_to(got[names[k]].to_numpy(), (u.base.size,))) for k in sel}
    for s in subsets:
        it = idx[("s", s)]
        cells.add(("overall", "pa", s), u.base[it], pa[:, it], None, pa_bad[:, it])
        if plans["C7"].kind == "position":
            ab, ba = u.v["AB"][:, it], u.v["BA"][:, it]
            both = bad["AB"][:, it] | bad["BA"][:, it]
            cells.add(("C7", "strict", s), u.base[it], correct["AB"][:, it] & correct["BA"][:, it], None, both)
            cells.add(("C7", "consistency", s), u.base[it], consistent(ab, ba), None, both)
    for cond, p in plans.items():
        if p.kind in ("content", "subset_gap"):
            for metric in ("pa", "natural_pa") if p.kind == "subset_gap" else ("pa",):
                it = idx[(cond, metric)]
                cells.add((cond, metric, "all"), u.base[it], pa[:, it], None, pa_bad[:, it])
        elif p.kind == "paired":
            base, r, t = _variant_pairs(u, p.reference, p.values, bench)
            strict = sum((correct[o][:, r] & correct[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            cons = sum(consistent(u.v[o][:, r], u.v[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            nb = np.logical_or.reduce([bad[o][:, x] for o in orders for x in (r, t)])
            cells.add((cond, "strict", "all"), base, strict, None, nb)
            cells.add((cond, "consistency", "all"), base, cons, None, nb)
    if plans["C8"].kind == "rationale":
        ok, rs = correct[orders[0]], u.rs
        cells.add(("C8", "supported", "all"), u.base, ok & (rs == 1), ok & (rs >= 0), ok & (rs < 0))
        cells.add(("C8", "acc", "all"), u.base, ok, None, bad[orders[0]])
