"""Per-unit arrays behind :func:`cap_core.profile.conditions.compute_profile`.

For one benchmark, the verdict rows of :func:`cap_core.verdicts.verdict_rows` (the one
place where correct, tie, unparsed and missing are decided) become dense numpy arrays:
verdict codes and correctness / exclusion flags of shape ``(n_judges, n_items)`` per
order, evaluated rationales, the base-item index (:func:`cap_core.bootstrap.base_index`)
and bootstrap stratum of every item. Item selections (subsets, planted failure types,
variant pairs) and strata are read from the items' integer codes
(:mod:`cap_core.profile.item_codes`, one polars query for every benchmark). Every condition
cell is then a vectorised numpy expression over all judges at once. The rules are documented
in :mod:`cap_core.profile.conditions`; this module only implements them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core import verdicts
from cap_core.bootstrap import per_base_sums
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, counted
from cap_core.profile.coverage import reference_of
from cap_core.profile.item_codes import ItemCodes, benchmark_codes, code_items

#: Verdict codes in the dense arrays (``-1`` = no judgment row). Codes only tell verdicts
#: apart (pure consistency: the same verdict twice); correctness comes from the flags.
A, B, TIE, OTHER, MISSING = 0, 1, 2, 3, -1
_STRATA_COLUMNS = ("subset", "failure_type", "variant")


#: Subset row of the items that carry no subset (only with ``by_subset`` and other subsets present).
MISSING_SUBSET = "(missing)"

@dataclass
class BenchUnits:
    """Dense verdict arrays of one benchmark.

    ``items``: the benchmark's items (or a part's), one per unit position (read only to name
    an item in a message); ``codes``: their :class:`cap_core.profile.item_codes.ItemCodes`
    (selections, base items, gold); ``v``: order -> int8 verdict codes ``(n_judges, n_items)``; ``ok``: order ->
    bool ``correct`` flags and ``bad``: order -> bool ``excluded`` flags (tie, unparsed
    or missing) of :func:`cap_core.verdicts.verdict_rows`, same shape; ``rs``:
    ``(n_judges, n_items)`` rationale_supported of the first order (-1 when null or
    missing); ``recv``: ``(n_judges, n_items)`` bool, the judge received the item (has a
    judgment row on it in some order: :mod:`cap_core.verdicts`); ``gold``: ``(n_items,)``
    bool, the item has a gold label; ``base``: ``(n_items,)`` base index; ``strata``:
    ``(n_base,)`` stratum label of every base item.
    """

    items: pl.DataFrame
    codes: ItemCodes
    v: dict[str, np.ndarray]
    ok: dict[str, np.ndarray]
    bad: dict[str, np.ndarray]
    rs: np.ndarray
    recv: np.ndarray
    gold: np.ndarray
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
               strata_extra: tuple[str, ...] = (), *, present: np.ndarray | None = None,
               orders: tuple[str, ...] | None = None,
               with_strata: bool = True, codes: ItemCodes | None = None, rows: np.ndarray | None = None
               ) -> tuple[BenchUnits, list[str], tuple[str, ...]]:
    """Dense arrays of one benchmark from :func:`prepare` output.

    Returns the units, the judges with at least one judgment here (in ``judges``
    order) and the orders present (``AB`` before ``BA``). Strata: base items with the
    same set of (``subset``, ``failure_type``, ``variant``, ``strata_extra``) values
    over their items share a stratum.

    ``present`` (judge codes, ascending) and ``orders`` override the judges and orders
    found in ``coded``: a partition of the benchmark's base items
    (:func:`partition_cells`) uses the benchmark's own, so that every partition has the
    same cells. ``with_strata=False`` leaves ``strata`` empty. ``codes``: the items'
    :class:`cap_core.profile.item_codes.ItemCodes` when the caller has them (default: coded
    here); ``rows``: ``(n_judgments,)`` each judgment's row in ``items`` when it differs from
    ``coded``'s ``idx``.
    """
    g, i, o, code, ok_all, bad_all, rs_all = (coded[c].to_numpy() for c in ("g", "idx", "o", "code", "ok", "bad",
                                                                            "rs"))
    i = i if rows is None else np.asarray(rows)
    present = np.unique(g) if present is None else np.asarray(present)
    j = np.searchsorted(present, g)
    orders = tuple(("AB", "BA")[k] for k in np.unique(o)) if orders is None else tuple(orders)
    n, nj = items.height, present.size
    cell = j * n + i  # each judgment's place in the (n_judges, n_items) arrays, flattened
    v, ok, bad = {}, {}, {}
    for k, name in enumerate(("AB", "BA")):
        if name in orders:
            m = o == k
            at = cell[m]
            v[name] = np.full((nj, n), MISSING, dtype=np.int8)
            v[name].ravel()[at] = code[m]
            ok[name] = np.zeros((nj, n), dtype=bool)
            ok[name].ravel()[at] = ok_all[m] == 1
            bad[name] = np.ones((nj, n), dtype=bool)
            bad[name].ravel()[at] = bad_all[m] == 1
    recv = np.zeros((nj, n), dtype=bool)
    recv.ravel()[cell] = True  # received: a judgment row on the item in some order (cap_core.verdicts)
    codes = benchmark_codes(items) if codes is None else codes
    gold = codes.gold
    rs = np.full((nj, n), -1, dtype=np.int8)
    if orders:
        first = o == (0 if orders[0] == "AB" else 1)
        rs.ravel()[cell[first]] = rs_all[first]
    strata = base_strata(codes, strata_extra) if with_strata else np.zeros(0, dtype=np.int64)
    units = BenchUnits(items, codes, v, ok, bad, rs, recv, gold, codes.base, codes.n_base, strata)
    return units, [judges[x] for x in present], orders


def _dense_rank(keys: list[str]) -> tuple[np.ndarray, list[str]]:
    """``(len(keys),)`` int64 dense rank of each key among the distinct ``keys`` in code-point order (the
    order of polars' string sort), from 0, and the distinct keys in that order."""
    distinct = sorted(set(keys))
    at = {k: r for r, k in enumerate(distinct)}
    return np.array([at[k] for k in keys], dtype=np.int64), distinct


def _row_codes(columns: list[np.ndarray], sizes: list[int], n: int) -> np.ndarray:
    """``(n,)`` int64, equal exactly where every column is equal (column ``k`` holds codes in ``[0, sizes[k])``)."""
    out = np.zeros(n, dtype=np.int64)
    span = 1
    for x, size in zip(columns, sizes):
        if span * size >= 2**62:  # the mixed-radix code would overflow: renumber what there is so far
            out = np.unique(out, return_inverse=True)[1].ravel().astype(np.int64)
            span = int(out.max(initial=0)) + 1
        out = out * size + x
        span *= size
    return out


def base_strata(codes: ItemCodes, strata_extra: tuple[str, ...] = ()) -> np.ndarray:
    """``(n_base,)`` uint32 stratum label of every base item (rule: :func:`load_units`), from 1.

    The label is the dense rank, in code-point order, of the base item's key. An item's key
    joins its values of the strata columns (a null as ``"\\x00"``) with ``"\\x1f"``; a base
    item's key joins its items' distinct keys, sorted, with ``"\\x1e"`` (one item per base
    item: the item's key). Only the distinct keys are made as strings; the rest is integer work
    on ``codes``.
    """
    cols = [c for c in dict.fromkeys(_STRATA_COLUMNS + tuple(strata_extra)) if c in codes.codes]
    n, n_base = codes.n, codes.n_base
    if n == 0:
        return np.zeros(0, dtype=np.uint32)
    combo = _row_codes([codes.codes[c] for c in cols], [len(codes.values[c]) + 1 for c in cols], n)
    _, first, combo = np.unique(combo, return_index=True, return_inverse=True)

    def value(c: str, k: int) -> str:
        return codes.values[c][k - 1] if k else "\x00"

    keys = ["\x1f".join(value(c, int(codes.codes[c][i])) for c in cols) for i in first]
    rank, by_rank = _dense_rank(keys)  # of each item key (two combinations may make one string)
    item_rank = rank[combo.ravel()]
    if n == n_base:  # one item per base item: the item's own key
        strata = np.empty(n_base, dtype=np.uint32)
        strata[codes.base] = item_rank + 1
        return strata
    # each base item's distinct item keys, ascending (key order = rank order): column b of sets (-1: none)
    k = len(by_rank)
    pairs = np.unique(codes.base * k + item_rank)
    pb, pr = pairs // k, pairs % k
    per = np.bincount(pb, minlength=n_base)
    start = np.cumsum(per) - per
    sets = np.full((int(per.max()), n_base), -1, dtype=np.int64)
    sets[np.arange(pairs.size) - start[pb], pb] = pr
    _, first, which = np.unique(_row_codes(list(sets + 1), [k + 1] * len(sets), n_base),
                                return_index=True, return_inverse=True)
    joined = ["\x1e".join(by_rank[r] for r in sets[:, b] if r >= 0) for b in first.tolist()]
    return (_dense_rank(joined)[0][which.ravel()] + 1).astype(np.uint32)


#: Per-cell totals kept beside the per-base sums, in this order: numerator, denominator
#: (``n_items``), units excluded (``n_excluded``), units of the cell the judge did not
#: receive (``n_not_received``) and received units without gold (of cells that need gold).
TOTALS: tuple[str, ...] = ("num", "den", "excl", "unrecv", "nogold")


class Cells:
    """Per-base numerator / denominator sums of every cell; cell index = type * n_judges + judge.

    :meth:`add` takes one cell type for all judges: unit base indices ``(m,)`` and
    numerator, denominator (``None`` = 1 per unit, shared by all judges), excluded,
    not-received and no-gold indicators of shape ``(n_judges, m)`` (the last two may be
    ``None``: none).
    """

    def __init__(self, n_judges: int, n_base: int, keep_units: bool = False):
        self.J, self.n_base, self.types = n_judges, n_base, {}
        self.num, self.den, self.den_col, self.totals = [], [], [], []
        self.units = {} if keep_units else None  # key -> (base, num, den) per unit, for checks
        self.exact32 = True  # every block so far holds values exact in float32 (then kept in float32)
        self.distinct = False  # no base item has two units in any cell (set by add_cells: one item per base item)

    def _block(self, x: np.ndarray) -> np.ndarray:
        """A block of per-base sums as kept: float32 when its values are exact there (half the memory of a
        large benchmark; :meth:`matrices` decides the precision of the whole), else float64."""
        if self.exact32 and x.nbytes >= 2**20:  # small blocks stay float64 (checked in matrices() if need be)
            y = x.astype(np.float32)
            if np.array_equal(y, x):
                return y
            self.exact32 = False
        return x

    def add(self, key: tuple, base: np.ndarray, num: np.ndarray, den: np.ndarray | None, excl: np.ndarray,
            unrecv: np.ndarray | None = None, nogold: np.ndarray | None = None) -> None:
        self.types[key] = len(self.types)
        num = num.astype(np.float64, copy=False)
        if self.units is not None:
            self.units[key] = (base, num, np.ones_like(num) if den is None else den.astype(np.float64))
        one = self.distinct
        self.num.append(self._block(per_base_sums(base, num.T, self.n_base, distinct=one)))
        start = sum(d.shape[1] for d in self.den)  # first column of the block added below
        if den is None:
            self.den.append(self._block(per_base_sums(base, np.ones(base.size), self.n_base, distinct=one)))
            self.den_col += [start] * self.J
            tot_den = np.full(self.J, float(base.size))
        else:
            den = den.astype(np.float64, copy=False)
            self.den.append(self._block(per_base_sums(base, den.T, self.n_base, distinct=one)))
            self.den_col += list(range(start, start + self.J))
            tot_den = den.sum(axis=1)
        zero = np.zeros(self.J)
        self.totals.append((num.sum(axis=1), tot_den, excl.sum(axis=1).astype(np.float64),
                            zero if unrecv is None else unrecv.sum(axis=1).astype(np.float64),
                            zero if nogold is None else nogold.sum(axis=1).astype(np.float64)))

    def idx(self, key: tuple, j: int) -> int:
        return self.types[key] * self.J + j

    def matrices(self, order: np.ndarray | None = None):
        """``num (n_base, K)``, ``den (n_base, D)``, ``den_col (K,)`` (column of ``den`` per cell) and
        the per-cell totals of :data:`TOTALS`, a tuple of arrays of shape ``(K,)``; ``order``: the
        base items of the rows (default: base code order).

        The matrices are float64, or float32 when they are large (:data:`COMPACT_BYTES`) and every value
        is exact there (the rule of :func:`_compact`: the same numbers). The blocks are moved into
        them one at a time and released (``matrices`` is called once), so the sums are never held twice.
        """
        if not self.num:
            z = np.zeros((self.n_base, 0))
            return z, z, np.zeros(0, dtype=np.int64), tuple(np.zeros(0) for _ in TOTALS)
        tot = tuple(np.concatenate(t) for t in zip(*self.totals))
        widths = [sum(b.shape[1] for b in blocks) for blocks in (self.num, self.den)]
        small = all(self.n_base * w * 8 <= COMPACT_BYTES for w in widths)
        if self.exact32 and not small:
            self.exact32 = all(b.dtype == np.float32 or np.array_equal(b.astype(np.float32), b)
                               for blocks in (self.num, self.den) for b in blocks)
        dtype = np.float32 if self.exact32 and not small else np.float64
        out = []
        for blocks, width in zip((self.num, self.den), widths):
            m = np.empty((self.n_base, width), dtype=dtype)
            at = 0
            while blocks:
                b = blocks.pop(0)
                m[:, at:at + b.shape[1]] = b if order is None else b[order]
                at += b.shape[1]
            out.append(m)
        return out[0], out[1], np.asarray(self.den_col), tot


def _variant_pairs(u: BenchUnits, sides: tuple[np.ndarray, np.ndarray], names: tuple, bench: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Base items holding a reference and a treated presentation: (base index, reference item, treated item).

    ``sides``: Boolean ``(n_items,)`` masks of the reference and the treated variants; ``names`` their
    variant names (for the message). Pairs in the order of the base codes.

    Raises
    ------
    CAPInputError
        A base item has two items of one side (naming the first such base item).
    """
    at = []
    for mask, vals in zip(sides, names):
        items = np.flatnonzero(mask)
        base = u.base[items]
        n = np.bincount(base, minlength=u.n_base)
        if (n > 1).any():
            first = items[np.flatnonzero(n[base] > 1)[0]]
            raise CAPInputError(
                f"a base item has more than one {'/'.join(vals)} item", file=bench, column="variant",
                expected="at most one item per base item and variant", got=u.items["base_item_id"][int(first)],
                fix="give each presentation variant of a base item its own variant name",
            )
        pos = np.full(u.n_base, -1, dtype=np.int64)
        pos[base] = items
        at.append(pos)
    both = np.flatnonzero((at[0] >= 0) & (at[1] >= 0))
    return both, at[0][both], at[1][both]


def _any(arrays: list[np.ndarray]) -> np.ndarray:
    """Elementwise or of Boolean arrays of one shape (without stacking them first)."""
    out = arrays[0].copy()
    for x in arrays[1:]:
        out |= x
    return out


def _failed(v: np.ndarray) -> np.ndarray:
    """An API or parse failure (``unparsed`` or missing verdict) from verdict codes."""
    return (v == MISSING) | (v == OTHER)


def add_cells(cells: Cells, u: BenchUnits, plans, orders, subsets, bench, ref: object = ...,
              failures: str = "count", partial_gold: bool = False) -> None:
    """Register every measurable cell of one benchmark (rules: conditions module).

    ``ref``: the benchmark's reference variant (default: from ``u.items``; a partition
    passes the whole benchmark's). ``failures``: :data:`cap_core.verdicts.FAILURE_RULES`.
    Each cell's denominator follows :func:`cap_core.verdicts.counted` (the denominator
    rule); where every unit of every judge is in it, the cell keeps one shared
    denominator (complete data: the same sums as before the rule existed).
    ``partial_gold``: some items of the benchmark lack gold; pure consistency is then also
    registered over the items with gold (``consistency_g``), so that stable-but-wrong
    (consistency minus strict) compares the same items.
    """
    correct, bad = u.ok, u.bad  # flags of cap_core.verdicts.verdict_rows
    failed = {o: _failed(u.v[o]) for o in orders}
    # one item per base item: every cell has at most one unit per base item (pairs need two items of one base
    # item, so there are none); the per-base sums are then the unit values placed, not counted
    cells.distinct = u.n_base == u.base.size

    def consistent(a, b):
        return (a == b) & (a >= 0) & (a <= TIE)

    def add(key, base, num, bad_any, failed_any, recv, gold, needs_gold=True):
        keep = verdicts.counted(recv, gold, failed_any, failures=failures, needs_gold=needs_gold)
        if failures == "exclude":  # units that left n for a failure
            excl = verdicts.counted(recv, gold, failed_any, failures="count", needs_gold=needs_gold) & failed_any
        else:  # units in n forced to not-correct
            excl = keep & bad_any
        nogold = (recv & ~np.broadcast_to(gold, recv.shape)) if needs_gold else None
        if keep.all():
            cells.add(key, base, num, None, excl, ~recv, nogold)
        else:
            cells.add(key, base, np.where(keep, num, 0), keep, excl, ~recv, nogold)

    pa = sum(correct[o].astype(np.float64) for o in orders) / len(orders)
    pa_bad = _any([bad[o] for o in orders])
    pa_failed = _any([failed[o] for o in orders])
    codes = u.codes
    ref = reference_of(codes.distinct("variant")) if ref is ... else ref
    everything = np.ones(codes.n, dtype=bool)
    pool = everything if ref is None else codes.mask("variant", [ref])
    mask = {}  # item selections: Boolean (n_items,), a null value never selected
    for s in subsets:
        mask[("s", s)] = everything if s == "all" else codes.mask("subset", [s])
    for cond, p in plans.items():
        if p.kind == "content":
            mask[(cond, "pa")] = pool & codes.mask(p.column, p.values)
        elif p.kind == "subset_gap":
            mask[(cond, "pa")] = pool & codes.mask("subset", p.values)
            mask[(cond, "natural_pa")] = pool & codes.mask("subset", p.reference)
        elif p.kind == "paired":  # the two presentations of a pair (masks, not positions)
            mask[(cond, "ref")] = codes.mask("variant", p.reference)
            mask[(cond, "treat")] = codes.mask("variant", p.values)
    # the items of each selection (every item: a slice, so the arrays below are views, not copies)
    idx = {k: slice(None) if m is everything else np.flatnonzero(m) for k, m in mask.items()
           if k[1] not in ("ref", "treat")}
    for s in subsets:
        it = idx[("s", s)]
        rv, gd = u.recv[:, it], u.gold[it]
        add(("overall", "pa", s), u.base[it], pa[:, it], pa_bad[:, it], pa_failed[:, it], rv, gd)
        if plans["C7"].kind == "position":
            ab, ba = u.v["AB"][:, it], u.v["BA"][:, it]
            both = bad["AB"][:, it] | bad["BA"][:, it]
            fail = failed["AB"][:, it] | failed["BA"][:, it]
            add(("C7", "strict", s), u.base[it], correct["AB"][:, it] & correct["BA"][:, it], both, fail, rv, gd)
            add(("C7", "consistency", s), u.base[it], consistent(ab, ba), both, fail, rv, gd, needs_gold=False)
            if partial_gold:
                add(("C7", "consistency_g", s), u.base[it], consistent(ab, ba), both, fail, rv, gd)
    for cond, p in plans.items():
        if p.kind in ("content", "subset_gap"):
            for metric in ("pa", "natural_pa") if p.kind == "subset_gap" else ("pa",):
                it = idx[(cond, metric)]
                add((cond, metric, "all"), u.base[it], pa[:, it], pa_bad[:, it], pa_failed[:, it],
                    u.recv[:, it], u.gold[it])
        elif p.kind == "paired":
            base, r, t = _variant_pairs(u, (mask[(cond, "ref")], mask[(cond, "treat")]), (p.reference, p.values),
                                        bench)
            strict = sum((correct[o][:, r] & correct[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            cons = sum(consistent(u.v[o][:, r], u.v[o][:, t]).astype(np.float64) for o in orders) / len(orders)
            nb = _any([bad[o][:, x] for o in orders for x in (r, t)])
            nf = _any([failed[o][:, x] for o in orders for x in (r, t)])
            rv, gd = u.recv[:, r] & u.recv[:, t], u.gold[r] & u.gold[t]
            add((cond, "strict", "all"), base, strict, nb, nf, rv, gd)
            add((cond, "consistency", "all"), base, cons, nb, nf, rv, gd, needs_gold=False)
            if partial_gold:
                add((cond, "consistency_g", "all"), base, cons, nb, nf, rv, gd)
    if plans["C8"].kind == "rationale":
        o0 = orders[0]
        ok, rs = correct[o0], u.rs
        if failures == "exclude":  # a correct verdict is never a failure: the same cell under either rule
            ok = ok & ~failed[o0]
        nogold = u.recv & ~u.gold
        cells.add(("C8", "supported", "all"), u.base, ok & (rs == 1), ok & (rs >= 0), ok & (rs < 0), ~u.recv, nogold)
        add(("C8", "acc", "all"), u.base, ok, bad[o0], failed[o0], u.recv, u.gold)


# ---- partitions of base items: the same cells from pieces of the data -------------------------------------------
#
# The per-base sums of a base item depend only on the verdicts of its own items, given a few
# benchmark-wide facts (the judges and orders present, the plans, the subsets, the reference
# variant). So the verdicts can be split by base item, each piece turned into its rows of the
# per-base sums by the code above, and the pieces stacked: the streamed and the Dask engines
# (cap_core.profile.engine_stream / engine_dask) do that; in memory the whole benchmark is one piece.


def item_key(items: pl.DataFrame, n_buckets: int = 1, coded: dict | None = None) -> tuple[pl.DataFrame, list[str]]:
    """Per item: ``benchmark``, ``item_id`` -> ``b`` (benchmark code), ``idx`` (row within its benchmark), ``gold``, ``bucket``.

    ``bucket``: the item's base item falls in the ``bucket``-th of ``n_buckets`` equal ranges of its
    benchmark's base items (in base-item order), so all items of a base item share a bucket
    and a bucket's rows of the statistics lie close together. Returns the frame (``b``,
    ``bucket`` Int32, ``idx`` Int64, the other columns as in ``items``) and the benchmark names
    (``b`` indexes them, sorted). ``coded``: :func:`cap_core.profile.item_codes.code_items` of
    ``items`` when the caller has it.
    """
    coded = code_items(items) if coded is None else coded
    k = max(1, int(n_buckets))
    b, idx, bucket = (np.zeros(items.height, dtype=np.int64) for _ in range(3))
    for code, (rows, codes) in enumerate(coded.values()):  # benchmarks in sorted order
        b[rows] = code
        idx[rows] = np.arange(rows.size)
        bucket[rows] = codes.base * k // max(codes.n_base, 1)
    key = pl.DataFrame([items.get_column("benchmark"), items.get_column("item_id"), items.get_column("gold"),
                        pl.Series("b", b, dtype=pl.Int32), pl.Series("idx", idx, dtype=pl.Int64),
                        pl.Series("bucket", bucket, dtype=pl.Int32)])
    return key, list(coded)


def code_judgments(judgments, key: pl.DataFrame, judges: list[str], positions: pl.Series | None = None
                   ) -> pl.LazyFrame:
    """The judgments of ``judges`` as compact codes, flags by :func:`cap_core.verdicts.verdict_flags`.

    Parameters
    ----------
    judgments : polars.DataFrame or LazyFrame
        Validated judgments (columns of :data:`cap_core.schema.JUDGMENTS_SCHEMA`; a scan
        of Parquet files works, nothing is read until collected).
    key : polars.DataFrame
        :func:`item_key` of the items.
    judges : list of str
        The profiled judges; ``g`` is the position in this list.
    positions : polars.Series, optional
        Each judgment's item as its row in ``key`` (from
        :func:`cap_core.schema.validate_judgments` with ``positions=True``): the item facts
        are then gathered by row instead of joined on the item's strings.

    Returns
    -------
    polars.LazyFrame
        One row per judgment: ``b``, ``bucket`` (Int32), ``g``, ``idx`` (Int64), ``o``
        (0 = AB, 1 = BA), ``code``, ``ok``, ``bad``, ``rs`` (Int8; as in :func:`prepare`).
        Missing verdicts have no row: :func:`load_units` fills them (code ``MISSING``,
        not correct, excluded, rationale -1), the values ``verdict_flags`` gives a null
        verdict.
    """
    lf = judgments.lazy() if isinstance(judgments, pl.DataFrame) else judgments
    has_rs = "rationale_supported" in lf.collect_schema().names()
    rs = pl.col("rationale_supported") if has_rs else pl.lit(None)
    # Only small codes cross the join: judge, order and rationale become integers and the verdict and gold
    # letters categoricals before it (the rule of verdict_flags compares them as the letters they name), so
    # ten million verdicts join as a few hundred megabytes of integers rather than copies of their strings.
    # the judge's position in ``judges`` (null for another judge): an Enum of the names codes them in that
    # order, a lookup many times cheaper than replacing strings one by one
    g = (pl.col("judge").cast(pl.Enum(list(judges)), strict=False).to_physical().cast(pl.Int64) if len(judges)
         else pl.lit(None, dtype=pl.Int64))
    small = lf.select("benchmark", "item_id", g.alias("g"), (pl.col("order") == "BA").cast(pl.Int8).alias("o"),
                      pl.col("verdict").cast(pl.Categorical), rs.cast(pl.Int8).fill_null(-1).alias("rs"))
    keys = key.lazy().select("benchmark", "item_id", "b", "bucket", "idx", pl.col("gold").cast(pl.Categorical))
    if positions is not None:  # rows known: gather the item facts, no join on strings
        facts = key.select("b", "bucket", "idx", pl.col("gold").cast(pl.Categorical))
        own = small.drop("benchmark", "item_id").with_columns(positions.alias("_pos")).filter(
            pl.col("g").is_not_null()).collect()
        joined = pl.concat([own.drop("_pos"), facts[own.get_column("_pos")]], how="horizontal").lazy()
    else:
        joined = small.filter(pl.col("g").is_not_null()).join(keys, on=["benchmark", "item_id"], how="inner")
    return (joined
            .with_columns(verdicts.verdict_flags())
            .select("b", "bucket", "g", "idx", "o", _code().alias("code"), pl.col("correct").cast(pl.Int8).alias("ok"),
                    pl.col("excluded").cast(pl.Int8).alias("bad"), "rs"))


@dataclass
class BenchContext:
    """Benchmark-wide facts every partition of its base items must share.

    ``items``: the benchmark's items in ``ds.items`` order with ``idx`` and the global
    ``base_idx``; ``present``: codes (into the profiled judges) of the judges with a
    judgment here, ascending; ``judges`` their names; ``orders``; ``plans`` (coverage);
    ``subsets``; ``ref`` (reference variant); ``n_base`` and ``strata`` ``(n_base,)``;
    ``notices`` (e.g. items without a subset forming the ``(missing)`` subset);
    ``failures`` (:data:`cap_core.verdicts.FAILURE_RULES`); ``codes``: the
    :class:`cap_core.profile.item_codes.ItemCodes` of ``items`` (row for row; a subset
    relabelled for the subset rows is relabelled there too).
    """

    bench: str
    items: pl.DataFrame
    present: np.ndarray
    judges: list[str]
    orders: tuple[str, ...]
    plans: dict
    subsets: list[str]
    ref: object
    n_base: int
    strata: np.ndarray
    notices: tuple = ()
    failures: str = "count"
    partial_gold: bool = False
    codes: ItemCodes | None = None

    @property
    def position(self) -> np.ndarray:
        """``(n_base,)`` the row of each base item in the statistics: base items sorted by stratum (stably,
        so by base item within a stratum), the order the bootstrap draws them in
        (:class:`cap_core.bootstrap.StratifiedRatios`), so the sums are never permuted again."""
        if "position" not in self.__dict__:
            order = np.argsort(np.asarray(self.strata), kind="stable")
            pos = np.empty(order.size, dtype=np.int64)
            pos[order] = np.arange(order.size)
            self.__dict__["position"] = pos
        return self.__dict__["position"]


def bench_context(bench: str, items_b: pl.DataFrame, present: np.ndarray, orders: tuple[str, ...],
                  judge_list: list[str], plans: dict, by_subset: bool, failures: str = "count",
                  codes: ItemCodes | None = None) -> BenchContext:
    """The :class:`BenchContext` of one benchmark (``items_b`` in ``ds.items`` order with ``idx``; ``codes``:
    its :class:`cap_core.profile.item_codes.ItemCodes` when the caller has them)."""
    extra = tuple(p.column for p in plans.values() if p.kind == "content" and p.column)
    codes = benchmark_codes(items_b) if codes is None else codes
    base, n_base = codes.base, codes.n_base
    items_b = items_b.hstack([pl.Series("base_idx", base, dtype=pl.Int64)])
    strata = base_strata(codes, extra)
    ref = reference_of(codes.distinct("variant"))
    subsets, notices = ["all"], []
    if by_subset:
        subsets += [s for s in codes.present("subset") if s != "all"]
        n_missing = int(codes.mask("subset", ["all"]).sum())
        if len(subsets) > 1 and n_missing:
            # relabel for the subset rows only: strata (and so the resamples) are fixed above
            items_b = items_b.with_columns(pl.when(pl.col("subset") == "all").then(pl.lit(MISSING_SUBSET))
                                           .otherwise(pl.col("subset")).alias("subset"))
            codes = codes.relabel("subset", "all", MISSING_SUBSET)
            subsets.append(MISSING_SUBSET)
            notices.append(f"{bench}: {n_missing} of {counted(items_b.height, 'item')} "
                           f"{'carries' if n_missing == 1 else 'carry'} no subset; they form "
                           f"the subset row {MISSING_SUBSET!r}: they count in 'all' (micro), and the macro mean "
                           "is over the named subsets, with this row beside it")
    present = np.asarray(present, dtype=np.int64)
    n_nogold = int(codes.n - codes.gold.sum())
    if n_nogold:
        notices.append(f"{bench}: {n_nogold} of {counted(items_b.height, 'item')} "
                       f"{'has' if n_nogold == 1 else 'have'} no gold label; metrics that compare "
                       "verdicts with gold use the items that have one, pure consistency uses all"
                       + ("" if n_nogold < items_b.height else " (every accuracy metric here needs gold)"))
    return BenchContext(bench, items_b, present, [judge_list[x] for x in present], tuple(orders), plans, subsets,
                        ref, n_base, strata, tuple(notices), failures, 0 < n_nogold < items_b.height, codes)


@dataclass
class PartCells:
    """Per-base sums of one partition: ``rows`` (global base codes, in the order of
    :attr:`BenchContext.position`), ``num``, ``den``, per-cell totals
    ``tot`` (the arrays of :data:`TOTALS`) and ``types`` (the cell-type keys of :class:`Cells`, in
    column-block order)."""

    types: tuple
    rows: np.ndarray
    num: np.ndarray
    den: np.ndarray
    den_col: np.ndarray
    tot: tuple


def partition_cells(ctx: BenchContext, items_part: pl.DataFrame, coded_part: pl.DataFrame) -> PartCells:
    """Per-base sums of the base items in ``items_part`` (all their items), from their judgments ``coded_part``.

    ``items_part``: rows of ``ctx.items`` (with ``idx`` and global ``base_idx``) holding
    whole base items; ``coded_part``: their rows of :func:`code_judgments` (columns
    ``g``, ``idx``, ``o``, ``code``, ``ok``, ``bad``, ``rs``).
    """
    at = items_part.get_column("idx").to_numpy()  # the part's rows of ctx.items
    whole = at.size == ctx.items.height and np.array_equal(at, np.arange(at.size))
    codes = ctx.codes if ctx.codes is not None else benchmark_codes(ctx.items)
    codes = codes if whole else codes.take(at)
    lookup = None
    if not whole:  # each judgment's row in the part
        lookup = np.full(ctx.items.height, -1, dtype=np.int64)
        lookup[at] = np.arange(at.size)
        lookup = lookup[coded_part.get_column("idx").to_numpy()]
    # the part's base codes: ranks of the base items' rows in the statistics (ctx.position: by stratum, then
    # base item), so the per-base sums come out in the statistics' order and are not permuted again
    uniq, local_base = np.unique(ctx.position[codes.base], return_inverse=True)
    u, _, _ = load_units(items_part, coded_part, list(range(int(ctx.present.max(initial=-1)) + 1)),
                         present=ctx.present, orders=ctx.orders, with_strata=False,
                         codes=codes.with_base(local_base.ravel(), uniq.size), rows=lookup)
    rows = np.zeros(u.n_base, dtype=np.int64)
    rows[u.base] = codes.base
    cells = Cells(len(ctx.present), u.n_base)
    add_cells(cells, u, ctx.plans, ctx.orders, ctx.subsets, ctx.bench, ref=ctx.ref, failures=ctx.failures,
              partial_gold=ctx.partial_gold)
    num, den, den_col, tot = cells.matrices()
    return PartCells(tuple(cells.types), rows, _compact(num), _compact(den), den_col, tot)


#: Per-base sum matrices above this many bytes are kept in float32 when that is exact.
COMPACT_BYTES = 2**26


def _compact(x: np.ndarray) -> np.ndarray:
    """``x`` in float32 when it is large and every value is exactly representable there.

    The values are the same numbers, so nothing computed from them changes (the bootstrap
    decides its precision from the values: :class:`cap_core.bootstrap.StratifiedRatios`);
    memory halves.
    """
    if x.nbytes <= COMPACT_BYTES or x.dtype != np.float64:
        return x
    y = x.astype(np.float32)
    return y if np.array_equal(y, x) else x


def merge_cells(ctx: BenchContext, parts: list[PartCells]):
    """Stack partitions into the benchmark's cell types, ``num (n_base, K)``, ``den``, ``den_col`` and totals.

    Every base item lies in exactly one partition; totals add (sums of halves: exact in any
    order, so the result does not depend on how the base items were split). Returns
    ``(types, num, den, den_col, tot)`` with ``tot`` the arrays of :data:`TOTALS`.
    Partitions whose cells share denominators differently (one complete, another not)
    are stacked with one denominator column per cell.
    """
    given = parts
    parts = [p for p in parts if p.rows.size]
    first = parts[0]
    tot = tuple(np.sum([p.tot[k] for p in parts], axis=0) for k in range(len(TOTALS)))
    at = [ctx.position[p.rows] for p in parts]
    if len(parts) == 1 and first.rows.size == ctx.n_base and np.array_equal(at[0], np.arange(ctx.n_base)):
        return first.types, first.num, first.den, first.den_col, tot  # one part: as it is
    if any(not np.array_equal(p.den_col, first.den_col) for p in parts):
        parts = [PartCells(p.types, p.rows, p.num, p.den[:, p.den_col], np.arange(p.den_col.size), p.tot)
                 for p in parts]
        first = parts[0]

    def exact32(x):
        return x.dtype == np.float32 or bool(np.array_equal(x.astype(np.float32), x))

    # values exact in float32 are kept there for large benchmarks (the rule of _compact): the same numbers
    big = sum(p.num.nbytes + p.den.nbytes for p in parts) > 2**28
    exact = big and all(exact32(p.num) and exact32(p.den) for p in parts)
    dtype = np.float32 if exact else np.float64
    types, den_col = first.types, first.den_col
    num = np.zeros((ctx.n_base, first.num.shape[1]), dtype=dtype)
    den = np.zeros((ctx.n_base, first.den.shape[1]), dtype=dtype)
    given.clear()  # each part is released once placed: the sums are not held twice
    del first
    while parts:
        p, rows = parts.pop(0), at.pop(0)
        num[rows] = p.num
        den[rows] = p.den
        del p
    return types, num, den, den_col, tot
