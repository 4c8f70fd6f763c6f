"""Integer codes of the item columns a profile reads, for every benchmark in one polars query.

The coverage plans (:func:`cap_core.profile.coverage.plan_benchmark`), the bootstrap strata
and the cell selections (:mod:`cap_core.profile.units`) ask the same few questions of a
benchmark's items: which items carry this subset, failure type or variant, which base item
holds each item, does it have gold. :func:`code_items` answers them for all benchmarks with
one ``select``; each question is then a numpy lookup on small integers, with no further
query per benchmark or per condition.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from cap_core.schema import ITEM_SELECTORS

#: Item columns coded: those an item selection may name (:data:`cap_core.schema.ITEM_SELECTORS`).
CODED_COLUMNS: tuple[str, ...] = ITEM_SELECTORS


@dataclass(frozen=True)
class ItemCodes:
    """Codes of one benchmark's items (or of some of them), rows in the items' order.

    Attributes
    ----------
    base : numpy.ndarray
        ``(n,)`` int64 base-item code: the rank of the item's ``base_item_id`` among the
        benchmark's distinct ids, from 0 (the codes of :func:`cap_core.bootstrap.base_index`).
    n_base : int
        Number of base items the codes range over.
    gold : numpy.ndarray
        ``(n,)`` bool, the item has a gold label.
    codes : dict of str to numpy.ndarray
        Column -> ``(n,)`` int32 code: 0 for null, ``k >= 1`` for ``values[column][k - 1]``.
        Columns of :data:`CODED_COLUMNS` that the items have.
    values : dict of str to tuple of str
        Column -> the strings its codes stand for.
    """

    base: np.ndarray
    n_base: int
    gold: np.ndarray
    codes: dict
    values: dict

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self.base.size)

    def mask(self, column: str, wanted) -> np.ndarray:
        """``(n,)`` bool: the item's ``column`` is one of ``wanted`` (a null never is; an absent
        column is all null)."""
        if column not in self.codes:
            return np.zeros(self.n, dtype=bool)
        want = set(wanted)
        lut = np.array([False] + [v in want for v in self.values[column]], dtype=bool)
        return lut[self.codes[column]]

    def present(self, column: str) -> list[str]:
        """The distinct non-null values of ``column`` among these items, sorted (by code point)."""
        if column not in self.codes:
            return []
        vals = self.values[column]
        used = np.flatnonzero(np.bincount(self.codes[column], minlength=len(vals) + 1)[1:])
        return sorted(vals[k] for k in used)

    def distinct(self, column: str) -> set:
        """The distinct values of ``column`` among these items, ``None`` among them when some are null."""
        if column not in self.codes:
            return set()
        return set(self.present(column)) | ({None} if (self.codes[column] == 0).any() else set())

    def take(self, rows: np.ndarray) -> ItemCodes:
        """The codes of the items at ``rows`` (base codes and ``n_base`` unchanged)."""
        return ItemCodes(self.base[rows], self.n_base, self.gold[rows],
                         {c: x[rows] for c, x in self.codes.items()}, self.values)

    def with_base(self, base: np.ndarray, n_base: int) -> ItemCodes:
        """The same items with other base codes (e.g. renumbered within a part of the benchmark)."""
        return replace(self, base=np.asarray(base, dtype=np.int64), n_base=int(n_base))

    def relabel(self, column: str, old: str, new: str) -> ItemCodes:
        """``column``'s value ``old`` read as ``new`` (codes unchanged)."""
        vals = tuple(new if v == old else v for v in self.values[column])
        return replace(self, values={**self.values, column: vals})


def code_items(items: pl.DataFrame) -> dict[str, tuple[np.ndarray, ItemCodes]]:
    """Code the items of every benchmark with one query.

    Parameters
    ----------
    items : polars.DataFrame
        Items with ``benchmark``, ``base_item_id``, ``gold`` and the columns of
        :data:`CODED_COLUMNS` it has (String).

    Returns
    -------
    dict
        ``{benchmark: (rows, codes)}``: ``rows`` ``(n_b,)`` int64, the benchmark's rows of
        ``items`` ascending (its items in ``items`` order); ``codes`` their :class:`ItemCodes`.
    """
    cols = [c for c in CODED_COLUMNS if c in items.columns]
    if items.height == 0:
        return {}
    # dense ranks code strings in sorted order; the strings behind the codes are read back below
    got = items.select(
        (pl.col("benchmark").rank("dense") - 1).cast(pl.Int64).alias("_b"),
        (pl.col("base_item_id").rank("dense").over("benchmark") - 1).cast(pl.Int64).alias("_base"),
        (pl.col("gold").is_not_null() if "gold" in items.columns else pl.repeat(True, pl.len())).alias("_gold"),
        *[pl.col(c).rank("dense").fill_null(0).cast(pl.Int32).alias(c) for c in cols],
    )
    b = got.get_column("_b").to_numpy()
    base = got.get_column("_base").to_numpy()
    gold = got.get_column("_gold").to_numpy()
    codes = {c: got.get_column(c).to_numpy() for c in cols}
    # the string of each code: that of its first item (one gather of those few rows)
    firsts = {c: np.unique(x, return_index=True) for c, x in (("benchmark", b), *codes.items())}
    at = np.unique(np.concatenate([first for _, first in firsts.values()]))
    few = items[at]
    values = {}
    for c, (k, first) in firsts.items():
        strings = few.get_column(c).to_list()
        values[c] = tuple(strings[i] for i, code in zip(np.searchsorted(at, first).tolist(), k.tolist())
                          if c == "benchmark" or code > 0)
    names = values.pop("benchmark")
    order = np.argsort(b, kind="stable")
    ends = np.cumsum(np.bincount(b))
    out = {}
    for name, end, n in zip(names, ends, np.bincount(b)):
        rows = order[end - n:end]
        bb = base[rows]
        out[name] = (rows, ItemCodes(bb, int(bb.max()) + 1 if bb.size else 0, gold[rows],
                                     {c: x[rows] for c, x in codes.items()}, values))
    return out


def benchmark_codes(items_b: pl.DataFrame) -> ItemCodes:
    """:class:`ItemCodes` of one benchmark's items (``items_b``: that benchmark only)."""
    got = code_items(items_b)
    if not got:
        cols = [c for c in CODED_COLUMNS if c in items_b.columns]
        return ItemCodes(np.zeros(0, dtype=np.int64), 0, np.zeros(0, dtype=bool),
                         {c: np.zeros(0, dtype=np.int32) for c in cols}, {c: () for c in cols})
    (_, codes), = got.values()
    return codes
