"""Shared-resample percentile bootstrap over base items.

CAP reports every condition with a nonparametric bootstrap 95% confidence interval
over items, from 1,000 resamples (CAP §3.1 eq. 1 and §3.3). CAP Studio makes the
resample explicit and shared:

* the resampling unit is the ``base_item_id`` of a benchmark, so all orders and
  presentation variants of one base item move together;
* one resample is drawn per benchmark, as a matrix of multinomial counts
  ``W`` of shape ``(n_resamples, n_base)``; ``W[r, i]`` is how many times base item
  ``i`` appears in resample ``r``;
* every judge and every condition of that benchmark is evaluated on the same ``W``,
  so the replicate-wise difference of two cells is itself a bootstrap replicate of
  the difference and has a percentile interval.

A condition cell is a ratio of sums over units (``sum num / sum den``). With per-base
item sums in matrices ``num`` and ``den`` of shape ``(n_base, K)``, all replicates of
all ``K`` cells are ``(W @ num) / (W @ den)``: no Python loop over resamples.

The chain *base-item index -> per-base sums -> replicate ratios* is built here once:
:func:`base_index` (codes of base ids in sorted order), :func:`per_base_sums` and
:func:`base_ratios` (both steps plus the counts and the point estimate). The profile,
cascades, juries and the validity measures (S, R, slots) all use them.
"""

from __future__ import annotations

import contextlib
import hashlib
import numbers
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core.config import MAX_RESAMPLES, worker_threads
from cap_core.errors import CAPInputError

__all__ = ["resample_counts", "stratified_counts", "stratified_ratio_replicates",
           "StratifiedRatios", "percentile_interval", "ratio_replicates", "check_bootstrap_args",
           "base_index", "per_base_sums", "base_ratios", "BaseRatios"]


@contextlib.contextmanager
def _one_blas_thread():
    """Context that runs BLAS single-threaded; re-entrant and safe across threads.

    The products here are small (about a thousand rows); with two cores shared with
    other work, a multi-threaded BLAS waits for a busy core and runs several times
    slower than one thread. The limit is process-wide, so it is set by the first
    context entered and restored when the last one (in any thread) leaves: worker
    threads of :func:`cap_core.profile.conditions.profile_from_stats` never see it
    lifted under them. Without ``threadpoolctl`` this is a no-op.
    """
    global _CONTROLLER, _DEPTH, _LIMITER
    with _BLAS_LOCK:
        if _CONTROLLER is None:
            try:
                from threadpoolctl import ThreadpoolController
                _CONTROLLER = ThreadpoolController()
            except ImportError:  # optional speed-up only
                _CONTROLLER = False
        if _DEPTH == 0 and _CONTROLLER:
            _LIMITER = _CONTROLLER.limit(limits=1, user_api="blas")
        _DEPTH += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _LIMITER is not None:
                _LIMITER.restore_original_limits()
                _LIMITER = None


_CONTROLLER = None
_DEPTH = 0
_LIMITER = None
_BLAS_LOCK = threading.Lock()


def check_bootstrap_args(n_resamples: object, seed: object, level: object) -> None:
    """Validate the bootstrap arguments shared by the public functions.

    Raises
    ------
    CAPInputError
        ``n_resamples`` not a positive integer or above
        :data:`cap_core.config.MAX_RESAMPLES` (its replicates would not fit in memory),
        ``seed`` not a non-negative integer, ``level`` not a number strictly between 0 and 1.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise CAPInputError(
            "n_resamples must be a positive integer",
            argument="n_resamples",
            expected="an integer >= 1 (CAP uses 1000)",
            got=n_resamples,
            fix="pass e.g. n_resamples=1000",
        )
    if n_resamples > MAX_RESAMPLES:
        raise CAPInputError(
            "too many bootstrap resamples to hold in memory",
            argument="n_resamples",
            expected=f"at most {MAX_RESAMPLES:,} (replicates take cells x resamples x 8 bytes: "
            f"{MAX_RESAMPLES * 8 / 1e6:.1f} MB per profile cell at the limit)",
            got=n_resamples,
            fix="use 1000 resamples, as CAP does",
        )
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise CAPInputError(
            "seed must be a non-negative integer",
            argument="seed",
            expected="an integer >= 0",
            got=seed,
            fix="pass an explicit seed such as seed=0 so the intervals can be reproduced",
        )
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not (0.0 < float(level) < 1.0):
        raise CAPInputError(
            "level must be a confidence level strictly between 0 and 1",
            argument="level",
            expected="a fraction such as 0.95",
            got=level,
            fix="write 95% as level=0.95",
        )


def benchmark_seed(seed: int, benchmark: str) -> int:
    """The seed :func:`cap_core.profile.conditions.compute_profile` uses for one benchmark.

    Each benchmark gets its own stream, derived from the user's ``seed`` and the
    benchmark's name (BLAKE2b of ``"<seed>:<benchmark>"``, first 8 bytes), so that the
    resamples of two benchmarks are independent and a difference between benchmarks
    (stress degradation) can be bootstrapped from their replicates. Equal inputs give
    equal seeds on every machine.

    Returns
    -------
    int
        A non-negative integer below ``2**63``.
    """
    digest = hashlib.blake2b(f"{int(seed)}:{benchmark}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def resample_counts(n_units: int, n_resamples: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """Multinomial resample counts over ``n_units`` bootstrap units, optionally stratified.

    Parameters
    ----------
    n_units : int
        Number of units (base items of one benchmark), ``>= 0``.
    n_resamples : int
        Number of bootstrap resamples ``B``, ``>= 1``.
    seed : int
        Seed for ``numpy.random.default_rng``; equal seeds give equal counts.
    strata : numpy.ndarray, optional
        Shape ``(n_units,)`` integer stratum label of every unit. Without it all
        units form one stratum.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_resamples, n_units)``, dtype int64. Within each stratum of ``m``
        units, row ``r`` counts how often each unit is drawn when ``m`` units are
        drawn with replacement from that stratum (an exact multinomial with equal
        probabilities), so each row's sum over a stratum is that stratum's size.
        Draw order (fixed, so a plain loop can reproduce it): strata in ascending
        label order; for a stratum with units ``u_0 < ... < u_{m-1}``,
        ``rng.integers(0, m, size=(n_resamples, m), dtype=numpy.int32)`` gives the
        drawn positions (``int64`` when ``n_resamples * n_units >= 2**31``). With one
        stratum this is ``rng.integers(0, n_units, size=(B, n_units), dtype=numpy.int32)``.

    Raises
    ------
    CAPInputError
        Negative or non-integer ``n_units``; bad ``n_resamples`` or ``seed``;
        ``strata`` of the wrong shape.
    """
    check_bootstrap_args(n_resamples, seed, 0.95)
    if isinstance(n_units, bool) or not isinstance(n_units, numbers.Integral) or n_units < 0:
        raise CAPInputError(
            "n_units must be a non-negative integer", argument="n_units", expected="an integer >= 0", got=n_units
        )
    if strata is not None and np.shape(strata) != (int(n_units),):
        raise CAPInputError("strata must hold one label per unit", argument="strata",
                            expected=f"shape ({int(n_units)},)", got=np.shape(strata))
    counts, perm = stratified_counts(int(n_units), int(n_resamples), int(seed), strata)
    out = np.empty_like(counts)
    out[:, perm] = counts
    return out


def stratified_counts(n: int, b: int, seed: int, strata: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Counts of :func:`resample_counts` with units permuted so strata are contiguous.

    Returns ``(counts, perm)``: ``counts[:, k]`` is the count of unit ``perm[k]``
    (``perm`` sorts units by stratum, stably). Arguments are not validated (internal
    fast path; callers permute their per-unit matrices by ``perm`` instead of the
    counts).
    """
    if strata is None or n == 0:
        perm, sizes = np.arange(n), [n]
    else:
        lab = np.asarray(strata)
        perm = np.argsort(lab, kind="stable")
        sizes = np.unique(lab, return_counts=True)[1].tolist()
    if n == 0:
        return np.zeros((b, 0), dtype=np.int64), perm
    # positions are drawn as int32 (the documented stream; int64 for huge b * n)
    itype = np.int32 if b * n < 2**31 else np.int64
    return StratifiedRatios._counts(np.random.default_rng(seed), itype, b, 0, n, sizes), perm


#: Above this many draws (resamples x units) :func:`stratified_ratio_replicates` works
#: in blocks of about this many instead of holding the whole count matrix (8 bytes per draw:
#: positions and counts, 512 MB a block, two blocks in flight). Large blocks keep the product
#: efficient: each block reads the whole per-base matrix of its stratum once.
BLOCK_DRAWS = 2**26
#: Up to this many draws the whole count matrix is made at once (:meth:`StratifiedRatios.replicates`).
WHOLE_DRAWS = 2**23


def stratified_ratio_replicates(n: int, b: int, seed: int, strata: np.ndarray | None, num: np.ndarray,
                                den: np.ndarray, den_index: np.ndarray | None = None,
                                block_draws: int = BLOCK_DRAWS) -> np.ndarray:
    """``ratio_replicates(counts, num[perm], den[perm], den_index)`` for ``stratified_counts(n, b, seed, strata)``.

    Shorthand for ``StratifiedRatios(n, strata, num, den, den_index).replicates(b, seed,
    block_draws)``; see :class:`StratifiedRatios`.
    """
    return StratifiedRatios(n, strata, num, den, den_index).replicates(b, seed, block_draws)


class StratifiedRatios:
    """Ratio-of-sums cells over ``n`` stratified units, ready to be resampled many times.

    Holds the per-unit sums with rows permuted so strata are contiguous, in the precision
    the product needs, so that each :meth:`replicates` call only draws, counts and
    multiplies. Rows already in stratum order (``strata`` sorted) in that precision are
    used as they are: a large benchmark's sums are never copied.

    Parameters
    ----------
    n : int
        Number of units; ``strata`` ``(n,)`` their stratum labels (None: one stratum).
    num, den, den_index
        As in :func:`ratio_replicates`, rows in the original unit order.
    """

    def __init__(self, n: int, strata: np.ndarray | None, num: np.ndarray, den: np.ndarray,
                 den_index: np.ndarray | None = None):
        num, den = np.asarray(num), np.asarray(den)
        if not (np.issubdtype(num.dtype, np.floating) and np.issubdtype(den.dtype, np.floating)):
            num, den = num.astype(np.float64), den.astype(np.float64)
        self.n, self.k, self.strata = int(n), num.shape[1], strata
        if strata is None or n == 0:
            self.perm, self.sizes = np.arange(n), [n]
        else:
            lab = np.asarray(strata)
            self.perm = np.argsort(lab, kind="stable")
            self.sizes = np.unique(lab, return_counts=True)[1].tolist()
        in_order = bool(np.array_equal(self.perm, np.arange(self.n)))
        # Single precision is exact when every value is a multiple of 1/2 and no replicate sum can reach 2**23:
        # the rule of ratio_replicates, decided per block of draws from its largest count (either precision then
        # gives the same exact sums). Such values are kept in float32 only (halves below 2**23 are exact there).
        # Checked in row blocks (no full-size temporaries).
        width = self.k + den.shape[1]
        step = max(1, (1 << 24) // max(1, 8 * width))  # row blocks of 16 MB temporaries
        bound = np.zeros(width)
        halves = True
        for part, cols in ((num, slice(0, self.k)), (den, slice(self.k, width))):
            for r0 in range(0, self.n, step):
                twice = 2.0 * part[r0:r0 + step].astype(np.float64)
                halves = halves and bool(np.array_equal(twice, np.round(twice)))
                bound[cols] += np.abs(twice).sum(axis=0)
        self.halves = halves
        self.col_bound = float(bound.max(initial=0.0))
        dtype = np.float32 if halves and self.col_bound < 2.0**24 else np.float64

        def arrange(x: np.ndarray) -> np.ndarray:
            if in_order:
                return x.astype(dtype, copy=False)
            out = np.empty(x.shape, dtype=dtype)
            for r0 in range(0, self.n, step):
                out[r0:r0 + step] = x[self.perm[r0:r0 + step]]
            return out

        self.num_p, self.den_p = arrange(num), arrange(den)
        self.width = width
        self.den_index = None if den_index is None else np.asarray(den_index, dtype=np.int64)

    def _product(self, counts: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """``counts @ [num | den][lo:hi]`` (rows in stratum order) in float64, computed in float32 when that is
        exact (numerators and denominators multiplied apart: the same sums)."""
        if self.halves and self.col_bound * float(counts.max(initial=0)) < 2.0**23:
            c, t = counts.astype(np.float32, copy=False), np.float32
        else:
            c, t = counts.astype(np.float64), np.float64
        out = np.empty((counts.shape[0], self.width))
        out[:, :self.k] = c @ self.num_p[lo:hi].astype(t, copy=False)
        out[:, self.k:] = c @ self.den_p[lo:hi].astype(t, copy=False)
        return out

    def replicates(self, b: int, seed: int, block_draws: int = BLOCK_DRAWS) -> np.ndarray:
        """Replicates ``(b, K)`` float64 under ``stratified_counts(n, b, seed, strata)``.

        The same draws in the same order (stratum by stratum, resample rows in order),
        so the values equal ``ratio_replicates`` of those counts. When ``b * n >
        block_draws`` each stratum's draws are taken ``block_draws`` at a time
        (consecutive ``rng.integers`` calls continue one stream) and their counts are
        multiplied into running sums: memory ``O(block_draws + b * K)``, never the
        ``(b, n)`` count matrix. NaN where a replicate's denominator is 0.
        """
        n, b = self.n, int(b)
        acc = np.zeros((b, self.width))
        if n:
            rng = np.random.default_rng(seed)
            itype = np.int32 if b * n < 2**31 else np.int64
            whole = b * n <= min(block_draws, WHOLE_DRAWS)
            start = 0
            with _one_blas_thread():
                if whole:
                    acc = self._product(self._counts(rng, itype, b, 0, n, self.sizes, np.float32), 0, n)
                elif worker_threads() < 2:
                    for m in self.sizes:
                        step = max(1, block_draws // m)
                        for r0 in range(0, b, step):
                            cnt = self._counts(rng, itype, min(b, r0 + step) - r0, start, m, [m], np.float32)
                            acc[r0:r0 + cnt.shape[0]] += self._product(cnt, start, start + m)
                        start += m
                else:
                    self._pipelined(acc, rng, itype, b, block_draws)
        top, bottom = acc[:, :self.k], acc[:, self.k:]
        if self.den_index is not None:
            bottom = bottom[:, self.den_index]
        out = np.full(top.shape, np.nan)
        np.divide(top, bottom, out=out, where=bottom > 0)
        return out

    def _pipelined(self, acc: np.ndarray, rng, itype, b: int, block_draws: int) -> None:
        """The blocked loop of :meth:`replicates` on two threads, same draws and same sums.

        This thread draws and counts the next block (the generator's stream must stay in
        order) while one worker multiplies the previous block's counts into ``acc``; the
        worker takes the blocks in the order drawn, so every running sum adds the same
        terms in the same order as the one-thread loop (numpy's generators, the counting
        and BLAS release the GIL, so the two overlap).
        """
        def add(cnt: np.ndarray, r0: int, start: int, m: int) -> None:
            acc[r0:r0 + cnt.shape[0]] += self._product(cnt, start, start + m)

        pending = None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="cap-product") as pool:
            start = 0
            for m in self.sizes:
                step = max(1, block_draws // m)
                for r0 in range(0, b, step):
                    cnt = self._counts(rng, itype, min(b, r0 + step) - r0, start, m, [m], np.float32)
                    if pending is not None:
                        pending.result()
                    pending = pool.submit(add, cnt, r0, start, m)
                start += m
            if pending is not None:
                pending.result()

    @staticmethod
    def _counts(rng, itype, rows: int, start: int, width: int, sizes, dtype=np.int64) -> np.ndarray:
        """Counts ``(rows, width)`` of the next draws for consecutive strata of ``sizes``.

        Each stratum's ``(rows, m)`` positions are drawn in turn (the one draw rule of
        :func:`stratified_counts` and :meth:`replicates`), then counted by :meth:`_count`.
        ``dtype``: of the counts (float32 holds every count exactly: a count never exceeds
        its stratum's size, below ``2**24`` here).
        """
        draws = [rng.integers(0, m, size=(rows, m), dtype=itype) for m in sizes]
        return StratifiedRatios._count(draws, rows, width, dtype)

    @staticmethod
    def _count(draws: list, rows: int, width: int, dtype=np.int64) -> np.ndarray:
        """How often each unit was drawn, per resample row: the ``(rows, m_s)`` positions of each
        stratum, side by side, become counts ``(rows, width)``.

        Counted a block of rows at a time (positions offset into one int64 buffer of about
        :data:`COUNT_BLOCK` draws, which ``np.bincount`` counts while it stays in cache).
        """
        out = np.empty((rows, width), dtype=dtype)
        step = max(1, min(rows, COUNT_BLOCK // max(1, width)))
        flat = np.empty((step, width), dtype=np.int64)
        offset = np.arange(step, dtype=np.int64)[:, None] * width
        for r0 in range(0, rows, step):
            k = min(rows, r0 + step) - r0
            at = 0
            for d in draws:
                m = d.shape[1]
                np.add(d[r0:r0 + k], offset[:k] + at, out=flat[:k, at:at + m])
                at += m
            out[r0:r0 + k] = np.bincount(flat[:k].ravel(), minlength=k * width).reshape(k, width)
        return out


#: Draws counted at a time by :meth:`StratifiedRatios._count` (1 MB of int64 positions: in cache).
COUNT_BLOCK = 2**17


def _halves_fit_float32(counts: np.ndarray, values: np.ndarray) -> bool:
    """True if ``counts @ values`` is exact in float32 (values are multiples of 1/2, sums small)."""
    if values.size == 0 or counts.size == 0:
        return True
    twice = 2.0 * values
    if not np.array_equal(twice, np.round(twice)):
        return False
    bound = float(np.abs(twice).sum(axis=0).max()) * float(np.max(counts))
    return bound < 2.0**23


def ratio_replicates(counts: np.ndarray, num: np.ndarray, den: np.ndarray,
                     den_index: np.ndarray | None = None) -> np.ndarray:
    """Bootstrap replicates of ratio-of-sums statistics under shared counts.

    Parameters
    ----------
    counts : numpy.ndarray
        Shape ``(B, n_units)``, from :func:`resample_counts`.
    num : numpy.ndarray
        Shape ``(n_units, K)``: per-unit numerator sums of ``K`` cells.
    den : numpy.ndarray
        Shape ``(n_units, K)``, or ``(n_units, D)`` with ``den_index``: per-unit
        denominator sums (a unit with no data for a cell has ``den == 0``).
    den_index : numpy.ndarray, optional
        Shape ``(K,)``: column of ``den`` used by each cell, so cells sharing a
        denominator (e.g. all judges on one item set) share one column.

    Returns
    -------
    numpy.ndarray
        Shape ``(B, K)``, float64; ``(counts @ num) / (counts @ den)``, NaN where a
        replicate has a zero denominator for that cell (the cell's units were not
        drawn). The values are in the units of ``num / den`` (fractions for
        indicators).
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    # Single precision is exact when every product and sum is a small multiple of 1/2
    # (indicators and two-order averages): then all partial sums are integers / 2 below
    # 2**23. Otherwise fall back to double precision.
    exact32 = _halves_fit_float32(counts, num) and _halves_fit_float32(counts, den)
    dtype = np.float32 if exact32 else np.float64
    w = np.asarray(counts, dtype=dtype)
    k = num.shape[1]
    with _one_blas_thread():  # one product over numerators and denominators side by side
        both = (w @ np.hstack([num, den]).astype(dtype)).astype(np.float64)
    top, bottom = both[:, :k], both[:, k:]
    if den_index is not None:
        bottom = bottom[:, np.asarray(den_index, dtype=np.int64)]
    out = np.full(top.shape, np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def base_index(ids) -> tuple[np.ndarray, int]:
    """Bootstrap-unit codes of base item ids.

    Parameters
    ----------
    ids : array-like, shape (n_units,)
        The base item id of every unit (strings or integers; a polars Series works).

    Returns
    -------
    (codes, n_base) : (numpy.ndarray of int64, int)
        ``codes[u]`` is the rank of unit ``u``'s id among the distinct ids sorted
        ascending (for strings: by code point, the order of polars' ``rank("dense")``),
        so column ``i`` of :func:`resample_counts` always belongs to the same base item,
        whatever ran before in the process.
    """
    s = ids if isinstance(ids, pl.Series) else pl.Series(np.asarray(ids).reshape(-1).tolist())
    if s.len() == 0:
        return np.zeros(0, dtype=np.int64), 0
    # a dense rank is the position among the sorted distinct ids (polars sorts strings by code point)
    codes = (s.rank("dense") - 1).cast(pl.Int64).to_numpy()
    return codes, int(codes.max()) + 1


def per_base_sums(base: np.ndarray, values: np.ndarray, n_base: int, *, distinct: bool = False) -> np.ndarray:
    """Sums of per-unit values within each base item.

    Parameters
    ----------
    base : numpy.ndarray
        Shape ``(n_units,)`` codes in ``[0, n_base)`` (from :func:`base_index`).
    values : numpy.ndarray
        Shape ``(n_units,)`` or ``(n_units, K)``.
    n_base : int
        Number of base items (rows of the result).
    distinct : bool
        The caller knows that no base item has two units (e.g. one item per base item):
        each sum is then its one value, placed without counting (same numbers).

    Returns
    -------
    numpy.ndarray
        Shape ``(n_base, K)`` float64 (``K = 1`` for 1-D ``values``); units are added in
        their order, so sums of halves are exact.
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    b = np.asarray(base, dtype=np.int64)
    k = x.shape[1]
    if distinct:
        out = np.zeros((n_base, k))
        out[b] = x
        return out
    out = np.empty((n_base, k))
    for c in range(k):  # one count per column: no (n_units * K) index is built
        out[:, c] = np.bincount(b, weights=x[:, c], minlength=n_base)
    return out


@dataclass(frozen=True)
class BaseRatios:
    """Output of :func:`base_ratios`.

    Attributes
    ----------
    num, den : numpy.ndarray
        Shape ``(n_base, K)`` per-base numerators and denominators.
    point : numpy.ndarray
        Shape ``(K,)``: ``num.sum(0) / den.sum(0)``, NaN where the denominator is 0.
    replicates : numpy.ndarray
        Shape ``(B, K)`` from :func:`ratio_replicates` (NaN where a replicate drew no
        base item of the cell).
    n_base : int
        Number of base items (columns of the counts).
    """

    num: np.ndarray
    den: np.ndarray
    point: np.ndarray
    replicates: np.ndarray
    n_base: int


def base_ratios(base_ids, num, den=None, *, n_resamples: int, seed: int, within: str = "sum") -> BaseRatios:
    """Ratio statistics over units, bootstrapped over their base items.

    One call does base index -> per-base sums -> resample counts -> replicate ratios.

    Parameters
    ----------
    base_ids : array-like, shape (n_units,)
        Base item id of every unit (coded by :func:`base_index`).
    num : array-like, shape (n_units,) or (n_units, K)
        Per-unit numerators of ``K`` statistics.
    den : array-like, optional
        Same shape as ``num`` (or ``(n_units,)``, shared by every column); default 1
        per unit. A unit with ``den == 0`` is outside that statistic.
    n_resamples, seed : int
        Counts from ``resample_counts(n_base, n_resamples, seed)`` (one stratum).
    within : {"sum", "mean"}
        ``"sum"``: every unit weighs ``den`` (per-base sums of num and den; the pooled
        ratio). ``"mean"``: every base item with ``den > 0`` weighs 1 and contributes its
        own ratio ``sum num / sum den`` (units within one base item weigh by ``den``);
        Validity §3-§5, eq. 6: items equal, probes equal within an item.

    Returns
    -------
    BaseRatios
        Point estimates and replicates in the units of ``num / den``.

    Raises
    ------
    CAPInputError
        Bad bootstrap arguments, an unknown ``within``, shapes that do not match.
    """
    check_bootstrap_args(n_resamples, seed, 0.95)
    if within not in ("sum", "mean"):
        raise CAPInputError("unknown weighting within a base item", argument="within", expected="sum or mean",
                            got=within)
    codes, n_base = base_index(base_ids)
    x = np.asarray(num, dtype=np.float64)
    x = x[:, None] if x.ndim == 1 else x
    d = np.ones_like(x) if den is None else np.asarray(den, dtype=np.float64)
    d = d[:, None] if d.ndim == 1 else d
    if x.ndim != 2 or x.shape[0] != codes.size or d.ndim != 2 or d.shape[0] != x.shape[0] \
            or d.shape[1] not in (1, x.shape[1]):
        raise CAPInputError("numerators, denominators and base ids must describe the same units", argument="num",
                            expected=f"{codes.size} rows", got=f"num {x.shape}, den {np.shape(den)}")
    d = np.broadcast_to(d, x.shape)
    top, bottom = per_base_sums(codes, x, n_base), per_base_sums(codes, d, n_base)
    if within == "mean":
        has = bottom > 0
        top = np.divide(top, bottom, out=np.zeros_like(top), where=has)
        bottom = has.astype(np.float64)
    tot = bottom.sum(axis=0)
    point = np.full(tot.shape, np.nan)
    np.divide(top.sum(axis=0), tot, out=point, where=tot > 0)
    reps = ratio_replicates(resample_counts(n_base, n_resamples, seed), top, bottom)
    return BaseRatios(top, bottom, point, reps, n_base)


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval, ignoring NaN replicates.

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates; NaN marks a replicate without a value (dropped).
    level : float
        Confidence level as a fraction in (0, 1); default 0.95.
    axis : int
        Axis along which the replicates lie (default 0, as in ``(B, K)``).

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        The ``(1-level)/2`` and ``(1+level)/2`` quantiles with linear interpolation
        (``numpy.percentile``'s default rule, as used by
        ``scipy.stats.bootstrap(method="percentile")``), same units as
        ``replicates``; NaN where a slice holds no finite replicate.

    Raises
    ------
    CAPInputError
        ``level`` outside (0, 1).
    """
    check_bootstrap_args(1, 0, level)
    reps = np.moveaxis(np.asarray(replicates, dtype=np.float64), axis, 0)
    alpha = (1.0 - float(level)) / 2.0
    low, high = _nan_quantiles(reps.reshape(reps.shape[0], -1), (alpha, 1.0 - alpha))
    return low.reshape(reps.shape[1:]), high.reshape(reps.shape[1:])


def _nan_quantiles(x: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """Quantiles along axis 0 of a 2-D array ignoring NaN, numpy's default "linear" rule.

    Columns without NaN only need a few order statistics, found with one
    ``np.partition``; columns holding NaN are sorted (NaN sorts last) and indexed by
    their own count of finite values. No per-column Python loop.
    """
    b, k = x.shape
    outs = [np.full(k, np.nan) for _ in qs]
    if b == 0 or k == 0:
        return outs
    has_nan = np.isnan(x).any(axis=0)
    full = np.flatnonzero(~has_nan)
    if full.size:
        los = [int(np.floor(q * (b - 1))) for q in qs]
        kth = sorted({i for lo in los for i in (lo, min(lo + 1, b - 1))})
        part = np.partition(x[:, full] if full.size < k else x, kth, axis=0)
        for out, q, lo in zip(outs, qs, los):
            out[full] = _lerp(part[lo], part[min(lo + 1, b - 1)], q * (b - 1) - lo)
    some = np.flatnonzero(has_nan)
    if some.size:
        sub = x[:, some]
        srt = np.sort(sub, axis=0)
        n = np.sum(~np.isnan(sub), axis=0)
        for out, q in zip(outs, qs):
            pos = q * np.maximum(n - 1, 0)
            lo = np.floor(pos).astype(np.int64)
            hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
            a = np.take_along_axis(srt, lo[None, :], axis=0)[0]
            c = np.take_along_axis(srt, hi[None, :], axis=0)[0]
            out[some] = np.where(n > 0, _lerp(a, c, pos - lo), np.nan)
    return outs


def _lerp(a, b, t):
    """numpy's linear interpolation between neighbouring order statistics."""
    return np.where(t >= 0.5, b - (b - a) * (1.0 - t), a + (b - a) * t)
