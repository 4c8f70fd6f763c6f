"""Sufficient statistics of a profile, kept per dataset, and the bootstrap over them.

The shared-resample bootstrap of :mod:`cap_core.profile.conditions` (CAP §3.3) needs,
per benchmark, only the per-base-item numerator and denominator sums of every cell
(``num``, ``den``), the bootstrap stratum of every base item and, per profile row, which
cells it combines. :class:`BenchStats` holds exactly that; it is computed once per
dataset fingerprint (:func:`cached_stats`) and every profile at any seed, level or
number of resamples is then a resample of these compact arrays
(:func:`bench_replicates`): the verdict tables are not read again.

Where the statistics come from is an *engine*: in memory (the default), streamed from
Parquet (:mod:`cap_core.profile.engine_stream`) or on a Dask cluster
(:mod:`cap_core.profile.engine_dask`); the bootstrap always runs here, so every engine
gives the same profile at the same seed.

May import: the ``cap_core`` root (bootstrap, dataset). Never imports conditions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from cap_core.bootstrap import (
    StratifiedRatios,
    _one_blas_thread,
    benchmark_seed,
    percentile_interval,
)
from cap_core.config import worker_threads

__all__ = ["BenchStats", "bench_replicates", "bench_block", "BootstrapAhead", "replicate_benchmarks", "cached_stats",
           "clear_stats_cache", "NONE", "CELL", "DIFF", "PROD", "MACRO"]

#: How a profile row combines cell replicates (``k0``, ``k1`` are cell columns).
NONE, CELL, DIFF, PROD, MACRO = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class BenchStats:
    """Compact sufficient statistics of one benchmark's profile rows.

    Attributes
    ----------
    benchmark : str
        Benchmark name (its bootstrap seed is ``benchmark_seed(seed, benchmark)``).
    n_base : int
        Number of base items (bootstrap units).
    strata : numpy.ndarray
        ``(n_base,)`` stratum label of every row, sorted: the rows are the base items in
        stratum order (by ``base_item_id`` within a stratum), the order the bootstrap draws
        them in, so the sums are used as they are (never permuted or copied again).
    num : numpy.ndarray
        ``(n_base, K)`` per-base numerator sums of the ``K`` cells (float64; float32 for
        large statistics whose values are exact there: sums of halves below ``2**22``).
    den : numpy.ndarray
        ``(n_base, D)`` per-base denominator sums (same dtype); ``den_col`` ``(K,)`` int64
        gives the column of ``den`` of each cell.
    rows : tuple of dict
        The profile rows (``PROFILE_SCHEMA`` fields except ``ci_low``, ``ci_high``,
        ``source``) in output order.
    kind, k0, k1 : numpy.ndarray
        ``(n_rows,)``: row combination (:data:`NONE` no replicates, :data:`CELL` cell
        ``k0``, :data:`DIFF` ``k0 - k1``, :data:`PROD` ``k0 * k1 / 100``, :data:`MACRO` the
        mean of the cells that ``macro`` lists for the row).
    macro : tuple of (int, tuple of int)
        ``(row, cells)`` of every :data:`MACRO` row (the subsets' overall pa cells).
    notices : tuple of str
        Things the reader must know about the rows (e.g. items without a subset).
    """

    benchmark: str
    n_base: int
    strata: np.ndarray
    num: np.ndarray
    den: np.ndarray
    den_col: np.ndarray
    rows: tuple
    kind: np.ndarray
    k0: np.ndarray
    k1: np.ndarray
    macro: tuple = ()
    notices: tuple = ()
    _ratios: list = field(default_factory=list, init=False, repr=False, compare=False)

    def ratios(self) -> StratifiedRatios:
        """The cells ready to resample (built on first use and kept)."""
        if not self._ratios:
            self._ratios.append(StratifiedRatios(self.n_base, self.strata, self.num, self.den, self.den_col))
        return self._ratios[0]

    @property
    def nbytes(self) -> int:
        """Memory held by the arrays, in bytes."""
        return int(self.num.nbytes + self.den.nbytes + self.strata.nbytes)


def bench_replicates(st: BenchStats, n_resamples: int, seed: int) -> np.ndarray:
    """Bootstrap replicates of every profile row of one benchmark, in percent.

    Parameters
    ----------
    st : BenchStats
    n_resamples : int
        Resamples ``B``.
    seed : int
        The benchmark's own seed (``benchmark_seed(seed, benchmark)``).

    Returns
    -------
    numpy.ndarray
        ``(B, len(st.rows))`` float64; NaN where a row has no replicate (kind
        :data:`NONE`) or a replicate drew none of the cell's base items. Draws: those of
        :func:`cap_core.bootstrap.stratified_counts`.
    """
    cells = 100.0 * st.ratios().replicates(int(n_resamples), int(seed))
    out = np.full((int(n_resamples), st.kind.size), np.nan)
    for kind in (CELL, DIFF, PROD):
        at = np.flatnonzero(st.kind == kind)
        if not at.size:
            continue
        a = cells[:, st.k0[at]]
        if kind == CELL:
            out[:, at] = a
        elif kind == DIFF:
            out[:, at] = a - cells[:, st.k1[at]]
        else:
            out[:, at] = a * cells[:, st.k1[at]] / 100.0
    for row, ks in st.macro:
        out[:, row] = cells[:, list(ks)].mean(axis=1)
    return out


def replicate_benchmarks(stats, n_resamples: int, seed: int, level: float,
                         threads: int | None = None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Replicates and percentile bounds of every benchmark, benchmarks spread over threads.

    Each benchmark draws from its own generator (``benchmark_seed(seed, benchmark)``),
    so the benchmarks are independent work: they run on up to ``threads`` threads
    (default :func:`cap_core.config.worker_threads`), largest first, and the result is
    the same, bit for bit, for any number of threads (numpy's generators, counting
    and BLAS release the GIL; BLAS is held to one thread per product throughout).

    Returns
    -------
    list of (replicates, low, high)
        In the order of ``stats``: ``(B, n_rows)`` replicates in percent
        (:func:`bench_replicates`) and the ``(n_rows,)`` lower and upper bounds of the
        ``level`` percentile interval (:func:`cap_core.bootstrap.percentile_interval`).
    """
    def one(st):
        return bench_block(st, n_resamples, seed, level)

    stats = list(stats)
    n_threads = min(len(stats), worker_threads() if threads is None else max(1, int(threads)))
    with _one_blas_thread():
        if n_threads <= 1:
            return [one(st) for st in stats]
        order = sorted(range(len(stats)), key=lambda i: -stats[i].n_base * max(1, stats[i].num.shape[1]))
        with ThreadPoolExecutor(max_workers=n_threads, thread_name_prefix="cap-bootstrap") as pool:
            done = dict(zip(order, pool.map(one, [stats[i] for i in order])))
        return [done[i] for i in range(len(stats))]


def bench_block(st: BenchStats, n_resamples: int, seed: int, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One benchmark's ``(replicates, low, high)`` of :func:`replicate_benchmarks` (``seed``: the user's)."""
    reps = bench_replicates(st, n_resamples, benchmark_seed(seed, st.benchmark))
    low, high = percentile_interval(reps, level=level, axis=0)
    return reps, low, high


class BootstrapAhead:
    """Bootstrap benchmarks on worker threads as their statistics are built (the cold path).

    ``submit(BenchStats)`` (an ``on_stats`` callback of the statistics builders) starts that
    benchmark's :func:`bench_block` on a pool of :func:`cap_core.config.worker_threads`
    threads while the caller builds the next benchmark; :meth:`blocks` then gives every
    benchmark's block in the order of ``stats``, or None when nothing was submitted (the
    statistics came from the cache: :func:`replicate_benchmarks` does the work). Each
    benchmark draws from its own generator, so the blocks are those of
    :func:`replicate_benchmarks`, bit for bit. Use as a context manager (the pool is shut down).
    """

    def __init__(self, n_resamples: int, seed: int, level: float, threads: int | None = None):
        self.args = (int(n_resamples), int(seed), float(level))
        self.threads = worker_threads() if threads is None else max(1, int(threads))
        self._pool: ThreadPoolExecutor | None = None
        self._futures: dict = {}

    def __enter__(self) -> "BootstrapAhead":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, st: BenchStats):
        with _one_blas_thread():
            return bench_block(st, *self.args)

    def submit(self, st: BenchStats) -> None:
        if self.threads < 2:  # one thread: nothing to overlap
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="cap-bootstrap")
        self._futures[id(st)] = (st, self._pool.submit(self._run, st))

    def blocks(self, stats) -> list | None:
        if not self._futures:
            return None
        out = []
        for st in stats:
            got = self._futures.get(id(st))
            out.append(got[1].result() if got is not None and got[0] is st else self._run(st))
        return out


#: Statistics kept in memory (least recently used dropped first).
CACHE_ENTRIES = 8
_CACHE: OrderedDict = OrderedDict()
_LOCK = threading.Lock()


def cached_stats(key: tuple, build):
    """The statistics stored under ``key``, built by ``build()`` on the first call.

    ``key`` must hold everything the statistics read: the dataset fingerprint, the
    benchmarks, the judges and the options (the caller's job). At most
    :data:`CACHE_ENTRIES` entries are kept; ``build`` runs outside the lock.
    """
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = build()
    with _LOCK:
        _CACHE[key] = value
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return value


def clear_stats_cache() -> None:
    """Forget every kept statistic (benchmarks and tests time the cold path with it)."""
    with _LOCK:
        _CACHE.clear()
