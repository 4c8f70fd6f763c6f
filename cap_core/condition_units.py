"""Per-unit tables behind :func:`cap_core.conditions.compute_profile`.

Builds, for one benchmark, the (judge x item) verdict grid with polars joins and the
per-unit numerator / denominator / excluded rows of every condition cell. The rules
are documented in :mod:`cap_core.conditions`; this module only implements them.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.coverage import CellPlan, reference_variant
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

_OK, _PARSED = ["A", "B"], ["A", "B", "tie"]


def _correct(col: str) -> pl.Expr:
    return (pl.col(col) == pl.col("gold")).fill_null(False)


def _bad(col: str) -> pl.Expr:
    return ~pl.col(col).is_in(_OK).fill_null(False)


def _consistent(a: str, b: str) -> pl.Expr:
    return ((pl.col(a) == pl.col(b)) & pl.col(a).is_in(_PARSED) & pl.col(b).is_in(_PARSED)).fill_null(False)


def _mean(exprs: list[pl.Expr]) -> pl.Expr:
    return pl.sum_horizontal([e.cast(pl.Float64) for e in exprs]) / len(exprs)


def _any(exprs: list[pl.Expr]) -> pl.Expr:
    return pl.any_horizontal(exprs)


def build_grid(ds: Dataset, bench: str, judges: list[str], orders: tuple[str, ...]) -> tuple[pl.DataFrame, int]:
    """(judge x item) frame with verdicts per order; returns it and the number of base items."""
    items = ds.items.filter(pl.col("benchmark") == bench)
    bases = items.select("base_item_id").unique().sort("base_item_id").with_row_index("base_idx")
    items = items.join(bases, on="base_item_id", how="left", validate="m:1")
    jf = pl.DataFrame({"judge": judges}).with_row_index("judge_idx")
    grid = jf.join(items, how="cross")
    jb = ds.judgments.filter(pl.col("benchmark") == bench)
    for o in orders:
        part = jb.filter(pl.col("order") == o).select("judge", "item_id", pl.col("verdict").alias(f"v_{o}"),
                                                       pl.col("rationale_supported").alias(f"rs_{o}"))
        grid = grid.join(part, on=["judge", "item_id"], how="left", validate="1:1")
    return grid, bases.height


class CellCollector:
    """Collects the per-unit rows of every cell; cell index = type * n_judges + judge.

    Each :meth:`add` records expressions over a frame; :meth:`arrays` evaluates all
    expressions of one frame in a single lazy ``select`` and returns numpy arrays.
    """

    def __init__(self, n_judges: int):
        self.J, self.types, self.specs = n_judges, {}, []

    def add(self, key: tuple, frame: pl.DataFrame, num: pl.Expr, den: pl.Expr, excl: pl.Expr,
            where: pl.Expr | None = None) -> None:
        t = self.types.setdefault(key, len(self.types))
        self.specs.append((t, frame, num, den, excl, pl.lit(True) if where is None else where))

    def idx(self, key: tuple, j: int) -> int:
        return self.types[key] * self.J + j

    def arrays(self) -> dict[str, np.ndarray]:
        """Concatenated ``cell``, ``base``, ``num``, ``den``, ``excl`` arrays (one entry per unit row)."""
        groups: dict[int, tuple[pl.DataFrame, list]] = {}
        for spec in self.specs:
            groups.setdefault(id(spec[1]), (spec[1], []))[1].append(spec)
        parts: dict[str, list] = {k: [] for k in ("cell", "base", "num", "den", "excl")}
        for frame, specs in groups.values():
            exprs = [pl.col("judge_idx").cast(pl.Int64), pl.col("base_idx").cast(pl.Int64)]
            for i, (_, _, num, den, excl, where) in enumerate(specs):
                exprs += [num.cast(pl.Float64).alias(f"n{i}"), den.cast(pl.Float64).alias(f"d{i}"),
                          excl.cast(pl.Float64).alias(f"e{i}"), where.fill_null(False).alias(f"w{i}")]
            got = frame.lazy().select(exprs).collect()
            judge, base = got["judge_idx"].to_numpy(), got["base_idx"].to_numpy()
            for i, (t, *_rest) in enumerate(specs):
                w = got[f"w{i}"].to_numpy()
                if w.shape != judge.shape:  # a literal True broadcasts to one row
                    w = np.broadcast_to(w, judge.shape)
                parts["cell"].append(judge[w] + t * self.J)
                parts["base"].append(base[w])
                for k, c in (("num", "n"), ("den", "d"), ("excl", "e")):
                    arr = got[f"{c}{i}"].to_numpy()
                    parts[k].append(np.broadcast_to(arr, judge.shape)[w])
        return {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}


def _paired(grid: pl.DataFrame, plan: CellPlan, orders: tuple[str, ...], bench: str) -> pl.DataFrame:
    cols = ["judge_idx", "base_item_id", "base_idx", "gold"] + [f"v_{o}" for o in orders]
    sides = {}
    for side, vals in (("r", plan.reference), ("t", plan.values)):
        part = grid.filter(pl.col("variant").is_in(list(vals)) & (pl.col("judge_idx") == 0))
        if part.select("base_item_id").is_duplicated().any():
            raise CAPInputError(
                f"a base item has more than one {'/'.join(vals)} item", file=bench, column="variant",
                expected="at most one item per base item and variant", got=part.filter(pl.col("base_item_id").is_duplicated())["base_item_id"][0],
                fix="give each presentation variant of a base item its own variant name",
            )
        sides[side] = grid.filter(pl.col("variant").is_in(list(vals))).select(
            [pl.col(c).alias(f"{side}_{c}") if c not in ("judge_idx", "base_item_id", "base_idx") else pl.col(c) for c in cols])
    return sides["r"].join(sides["t"].drop("base_idx"), on=["judge_idx", "base_item_id"], how="inner", validate="1:1")


def add_cells(cells: CellCollector, grid, plans, orders, subsets, bench) -> None:
    """Register the unit rows of every measurable cell of one benchmark (rules: conditions module)."""
    first = orders[0]
    v = [f"v_{o}" for o in orders]
    pa, pa_bad = _mean([_correct(c) for c in v]), _any([_bad(c) for c in v])
    one = pl.lit(1.0)
    ref = reference_variant(grid)
    pool = pl.lit(True) if ref is None else (pl.col("variant") == ref)
    for s in subsets:
        w = None if s == "all" else (pl.col("subset") == s)
        cells.add(("overall", "pa", s), grid, pa, one, pa_bad, w)
        if plans["C7"].kind == "position":
            both = _any([_bad("v_AB"), _bad("v_BA")])
            cells.add(("C7", "strict", s), grid, _correct("v_AB") & _correct("v_BA"), one, both, w)
            cells.add(("C7", "consistency", s), grid, _consistent("v_AB", "v_BA"), one, both, w)
    for cond in ("C1", "C2", "C3", "C4"):
        p = plans[cond]
        if p.kind == "content":
            cells.add((cond, "pa", "all"), grid, pa, one, pa_bad, pool & pl.col(p.column).is_in(list(p.values)))
    for cond in ("C5", "C6"):
        p = plans[cond]
        if p.kind == "subset_gap":
            cells.add((cond, "pa", "all"), grid, pa, one, pa_bad, pool & pl.col("subset").is_in(list(p.values)))
            cells.add((cond, "natural_pa", "all"), grid, pa, one, pa_bad, pool & pl.col("subset").is_in(list(p.reference)))
        elif p.kind == "paired":
            pr = _paired(grid, p, orders, bench)
            both_ok = [(pl.col(f"r_v_{o}") == pl.col("r_gold")) & (pl.col(f"t_v_{o}") == pl.col("t_gold")) for o in orders]
            bad = _any([~pl.col(f"{x}_v_{o}").is_in(_OK).fill_null(False) for o in orders for x in "rt"])
            cells.add((cond, "strict", "all"), pr, _mean([e.fill_null(False) for e in both_ok]), one, bad)
            cells.add((cond, "consistency", "all"), pr, _mean([_consistent(f"r_v_{o}", f"t_v_{o}") for o in orders]), one, bad)
    if plans["C8"].kind == "rationale":
        ok, rs = _correct(f"v_{first}"), pl.col(f"rs_{first}")
        cells.add(("C8", "supported", "all"), grid, (ok & (rs == 1)).fill_null(False), ok & rs.is_not_null(), ok & rs.is_null())
        cells.add(("C8", "acc", "all"), grid, ok, one, _bad(f"v_{first}"))
