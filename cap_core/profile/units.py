"""Per-unit arrays behind :func:`cap_core.profile.conditions.compute_profile`.

For one benchmark, a few polars operations turn the items and judgments tables into
dense numpy arrays (verdict codes of shape ``(n_orders, n_judges, n_items)``, gold
codes, evaluated rationales, base-item index and bootstrap stratum of every item),
and item selections (subsets, planted failure types, paired presentations) come
from one ``select`` over the items table. Every condition cell is then a vectorised
numpy expression over all judges at once. The rules are documented in
:mod:`cap_core.profile.conditions`; this module only implements them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.coverage import reference_variant

#: Verdict codes in the dense arrays (``-1`` = no judgment row).
A, B, TIE, OTHER, MISSING = 0, 1, 2, 3, -1
_STRATA_COLUMNS = ("subset", "failure_type", "variant")


@dataclass
class BenchUnits:
    """Dense verdict arrays of one benchmark.

    ``items``: the benchmark's items with ``idx`` (row) and ``base_idx`` (rank of
    ``base_item_id``); ``v``: order -> int8 codes ``(n_judges, n_items)``; ``gold``:
    ``(n_items,)`` codes; ``rs``: ``(n_judges, n_items)`` rationale_supported of the
    first order (-1 when null or missing); ``base``: ``(n_items,)`` base index;
    ``strata``: ``(n_base,)`` stratum label of every base item.
    """

    items: pl.DataFrame
    v: dict[str, np.ndarray]
    gold: np.ndarray
    rs: np.ndarray
    base: np.ndarray
    n_base: int
    strata: np.ndarray


def _code(col: str) -> pl.Expr:
    c = pl.col(col)
    return pl.when(c == "A").then(A).when(c == "B").then(B).when(c == "tie").then(TIE).otherwise(OTHER).cast(pl.Int8)


def prepare(ds: Dataset, judges: list[str]) -> tuple[dict, dict]:
    """Index items and code judgments of every benchmark in one pass.

    Returns two dicts keyed by ``(benchmark,)``: items with ``idx`` (row within the
    benchmark) and ``base_idx`` (dense rank of ``base_item_id`` within the benchmark,
    so base items are sorted), and coded judgments of the given judges with ``g``
    (position in ``judges``), ``idx``, ``o`` (0 = AB, 1 = BA), ``code`` (verdict code)
    and ``rs`` (rationale_supported, -1 when null).
    """
    items = ds.items.lazy().with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).over("benchmark").alias("idx"),
        (pl.col("base_item_id").rank("dense").over("benchmark") - 1).cast(pl.Int64).alias("base_idx"),
    )
    jrs = pl.col("rationale_supported") if "rationale_supported" in ds.judgments.columns else pl.lit(None)
    coded = (ds.judgments.lazy().filter(pl.col("judge").is_in(judges))
             .join(items.select("benchmark", "item_id", "idx"), on=["benchmark", "item_id"], how="inner")
             .select("benchmark",
                     pl.col("judge").replace_strict(judges, list(range(len(judges))), return_dtype=pl.Int64).alias("g"),
                     "idx", (pl.col("order") == "BA").cast(pl.Int8).alias("o"), _code("verdict").alias("code"),
                     jrs.cast(pl.Int8).fill_null(-1).alias("rs")))
    items_df, coded_df = pl.collect_all([items, coded])
    return items_df.partition_by("benchmark", as_dict=True), coded_df.partition_by("benchmark", as_dict=True)


def load_units(items: pl.DataFrame, coded: pl.DataFrame, judges: list[str],
               strata_extra: tuple[str, ...] = ()) -> tuple[BenchUnits, list[str], tuple[str, ...]]:
    """Dense arrays of one benchmark from :func:`prepare` output.

    Returns the units, the judges with at least one judgment here (in ``judges``
    order) and the orders present (``AB`` before ``BA``). Strata: base items with the
    same set of (``subset``, ``failure_type``, ``variant``, ``strata_extra``) values
    over their items share a stratum.
    """
    g, i, o, code, rs_all = (coded[c].to_numpy() for c in ("g", "idx", "o", "code", "rs"))
    present = np.unique(g)
    j = np.searchsorted(present, g)
    orders = tuple(("AB", "BA")[k] for k in np.unique(o))
    n, nj = items.height, present.size
    v = {}
    for k, name in enumerate(("AB", "BA")):
        if name in orders:
            m = o == k
            v[name] = np.full((nj, n), MISSING, dtype=np.int8)
            v[name][j[m], i[m]] = code[m]
    rs = np.full((nj, n), -1, dtype=np.int8)
    if orders:
        first = o == (0 if orders[0] == "AB" else 1)
        rs[j[first], i[first]] = rs_all[first]
    base = items["base_idx"].to_numpy()
    n_base = int(base.max()) + 1 if n else 0
    cols = [c for c in dict.fromkeys(_STRATA_COLUMNS + tuple(strata_extra)) if c in items.columns]
    key = pl.concat_str([pl.col(c).cast(pl.String).fill_null("\x00") for c in cols], separator="\x1f")
    if n == n_base:  # one item per base item: the item's own key
        strata = items.select(key.rank("dense").alias("s")).to_series().to_numpy()
        strata = strata[np.argsort(base)]
    else:
        strata = (items.group_by("base_idx").agg(key.unique().sort().str.join("\x1e").alias("k"))
                  .sort("base_idx").select(pl.col("k").rank("dense"))).to_series().to_numpy()
    gold = items.select(_code("gold").alias("g")).to_series().to_numpy()
    units = BenchUnits(items, v, gold, rs, base, n_base, strata)
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

    def _per_base(self, base: np.ndarray, x: np.ndarray) -> np.ndarray:
        flat = (np.arange(self.J)[:, None] * self.n_base + base[None, :]).ravel()
        return np.bincount(flat, weights=x.ravel(), minlength=self.J * self.n_base).reshape(self.J, self.n_base)

    def add(self, key: tuple, base: np.ndarray, num: np.ndarray, den: np.ndarray | None, excl: np.ndarray) -> None:
        self.types[key] = len(self.types)
        num = num.astype(np.float64)
        if self.units is not None:
            self.units[key] = (base, num, np.ones_like(num) if den is None else den.astype(np.float64))
        self.num.append(self._per_base(base, num).T)
        start = sum(d.shape[1] for d in self.den)  # first column of the block added below
        if den is None:
            self.den.append(np.bincount(base, minlength=self.n_base).astype(np.float64)[:, None])
            self.den_col += [start] * self.J
            tot_den = np.full(self.J, float(base.size))
        else:
            den = den.astype(np.float64)
            self.den.append(self._per_base(base, den).T)
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


def _paired(u: BenchUnits, reference, values, bench: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    correct = {o: u.v[o] == u.gold[None, :] for o in orders}
    bad = {o: (u.v[o] < 0) | (u.v[o] > B) for o in orders}

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
            base, r, t = _paired(u, p.reference, p.values, bench)
            strict = sum((correct[o][:, r] & correct[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            cons = sum(consistent(u.v[o][:, r], u.v[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            nb = np.logical_or.reduce([bad[o][:, x] for o in orders for x in (r, t)])
            cells.add((cond, "strict", "all"), base, strict, None, nb)
            cells.add((cond, "consistency", "all"), base, cons, None, nb)
    if plans["C8"].kind == "rationale":
        ok, rs = correct[orders[0]], u.rs
        cells.add(("C8", "supported", "all"), u.base, ok & (rs == 1), ok & (rs >= 0), ok & (rs < 0))
        cells.add(("C8", "acc", "all"), u.base, ok, None, bad[orders[0]])
