"""The locked baseline of a pipeline and the gate that compares a new run with it.

A **baseline file** is JSON (never a pickle), written by ``choose --lock FILE``::

    {"format": "cap-choice-baseline/1", "benchmark": "...", "fingerprint": "...",
     "weights": {"C1": 1.0, ...}, "filters": "C7=60", "level": 0.95, "resamples": 1000, "seed": 0,
     "scores": [{"judge", "subset", "source", "score", "ci_low", "ci_high", "n_items"}, ...],
     "judgments": [{"judge", "item_id", "order", "verdict", "rationale_supported"}, ...]}

``judgments`` holds the item-level verdicts of the computed judges on the benchmark, so a
later run can be compared **paired**: the gate profiles the new and the locked verdicts of
a judge together on the items both runs share (one dataset, one bootstrap resample of
base items, the profile's own condition rules) and takes the replicate-wise difference of
the weighted scores. A judge is *significantly below* its baseline when the upper bound of
the ``level`` interval of (new - baseline) is below 0. When the runs share no item (or
the judge is published), the comparison is unpaired: independent normal approximations
from both intervals, ``(new - base) + z sqrt(sd_new² + sd_base²) < 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from cap_core.bootstrap import percentile_interval
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import CONDITION_IDS, JUDGMENTS_SCHEMA
from cap_core.verdicts import shared_items

__all__ = ["FORMAT", "lock_baseline", "read_baseline", "check_baseline_weights", "check_baseline_items", "GateResult",
           "compare_to_baseline"]

FORMAT = "cap-choice-baseline/1"
_Z975 = 1.959963984540054
_LOCKED = " [baseline]"


def lock_baseline(ds: Dataset | None, benchmark: str, leaderboard: pl.DataFrame, weights: dict[str, float], *,
                  filters: str, level: float, resamples: int, seed: int, fingerprint: str) -> dict:
    """The baseline document (module notes) for one benchmark's leaderboard."""
    judges = leaderboard.filter(pl.col("source") == "computed")["judge"].to_list()
    jm = []
    if ds is not None and judges:
        cols = ["judge", "item_id", "order", "verdict", "rationale_supported"]
        jm = (ds.judgments.filter((pl.col("benchmark") == benchmark) & pl.col("judge").is_in(judges))
              .select(cols).sort("judge", "item_id", "order").to_dicts())
    scores = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in s.items()}
              for s in leaderboard.select("judge", "subset", "source", "score", "ci_low", "ci_high",
                                          "n_items").to_dicts()]  # JSON holds no NaN: an unknown value is null
    return {"format": FORMAT, "benchmark": benchmark, "fingerprint": fingerprint,
            "weights": {c: float(weights.get(c, 0.0)) for c in CONDITION_IDS}, "filters": filters,
            "level": float(level), "resamples": int(resamples), "seed": int(seed), "scores": scores, "judgments": jm}


def read_baseline(path: str | Path) -> dict:
    """Read and check a baseline file.

    Raises
    ------
    CAPInputError
        Missing file, not JSON (or nested too deeply), another format, missing keys, or a key
        whose value is not of the shape ``choose --lock`` writes: scores and interval bounds
        that are not finite percentages from 0 to 100, an interval whose low end lies above
        its high end or that does not hold its score, weights that are not finite and
        non-negative, a level outside (0, 1), orders or verdicts outside the allowed sets
        (file, key and the first bad record named, fix given).
    """
    from cap_core.io import parse_json

    p = Path(path)
    if not p.is_file():
        raise CAPInputError("baseline file not found", file=str(p), fix="write one with `choose ... --lock FILE`")
    doc = parse_json(p.read_bytes(), file=str(p), what="the baseline file")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CAPInputError("not a CAP choice baseline", file=str(p), column="format", expected=FORMAT,
                            got=doc.get("format") if isinstance(doc, dict) else type(doc).__name__,
                            fix="pass the file written by `choose --lock`")
    for key in ("benchmark", "weights", "scores", "judgments", "level"):
        if key not in doc:
            raise CAPInputError("the baseline file lacks a key", file=str(p), column=key, expected=FORMAT,
                                fix="write the baseline again with `choose --lock`")
    _check_shapes(doc, p)
    return doc


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _percent(v: object) -> bool:
    return _number(v) and 0 <= v <= 100


def _score_problem(s: object) -> str | None:
    """Why one ``scores`` record is not what ``choose --lock`` writes (None when it is)."""
    if not isinstance(s, dict) or not isinstance(s.get("judge"), str):
        return "a record without a judge name"
    score, lo, hi = s.get("score"), s.get("ci_low"), s.get("ci_high")
    for name, v in (("score", score), ("ci_low", lo), ("ci_high", hi)):
        if v is not None and not _percent(v):
            return f"{name} {v!r} of {s['judge']!r} is not a finite percentage from 0 to 100"
    if score is not None and (lo is None) != (hi is None):
        return f"the interval of {s['judge']!r} has one bound"
    if lo is not None and hi is not None:
        if lo > hi:
            return f"the interval of {s['judge']!r} runs backwards (ci_low {lo:g} > ci_high {hi:g})"
    n = s.get("n_items")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        return f"n_items {n!r} of {s['judge']!r} is not a count"
    return None


def _judgment_problem(j: object) -> str | None:
    """Why one ``judgments`` record is not what ``choose --lock`` writes (None when it is)."""
    from cap_core.schema import ORDERS, VERDICTS

    if not isinstance(j, dict) or not all(isinstance(j.get(k), str) for k in ("judge", "item_id", "order")):
        return "a record without judge, item_id and order as text"
    if j["order"] not in ORDERS:
        return f"order {j['order']!r} (expected AB or BA)"
    if j.get("verdict") is not None and j.get("verdict") not in VERDICTS:
        return f"verdict {j.get('verdict')!r} (expected one of {', '.join(VERDICTS)})"
    rs = j.get("rationale_supported")
    if rs is not None and rs not in (0, 1):
        return f"rationale_supported {rs!r} (expected 0, 1 or null)"
    return None


def _check_shapes(doc: dict, p: Path) -> None:
    """The types and ranges ``choose --lock`` writes; a hand-edited file that differs is refused, key named."""
    scores, jm, weights = doc["scores"], doc["judgments"], doc["weights"]
    fix = "write the baseline again with `choose --lock` (do not edit it by hand)"

    def refuse(key: str, expected: str, got: object, row: int | None = None) -> None:
        raise CAPInputError("the baseline file holds a value of the wrong shape", file=str(p), row=row, column=key,
                            expected=expected, got=str(got)[:80], fix=fix)

    if not isinstance(doc["benchmark"], str):
        refuse("benchmark", "text", doc["benchmark"])
    if not (_number(doc["level"]) and 0 < doc["level"] < 1):
        refuse("level", "a number strictly between 0 and 1", doc["level"])
    if not (isinstance(weights, dict) and weights
            and all(c in CONDITION_IDS and _number(w) and w >= 0 for c, w in weights.items())
            and any(w > 0 for w in weights.values())):
        refuse("weights", "an object of condition weights, e.g. {\"C7\": 1.0} (finite, >= 0, one above 0)", weights)
    for key in ("resamples", "seed"):
        v = doc.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            refuse(key, "a non-negative integer", v)
    if not isinstance(scores, list):
        refuse("scores", "a list of {judge, score, ci_low, ci_high} records", type(scores).__name__)
    for i, s in enumerate(scores, start=1):
        why = _score_problem(s)
        if why:
            refuse("scores", "scores and interval bounds in percent (0-100), ci_low <= ci_high", why, i)
    if not isinstance(jm, list):
        refuse("judgments", "a list of {judge, item_id, order, verdict} records", type(jm).__name__)
    for i, j in enumerate(jm, start=1):
        why = _judgment_problem(j)
        if why:
            refuse("judgments", "records {judge, item_id, order, verdict} in the judgments schema", why, i)


def check_baseline_weights(baseline: dict, weights: dict[str, float]) -> None:
    """Refuse weights other than those the baseline was locked with (a score under other weights is
    another quantity: it cannot be compared with the locked one). Weights are relative: proportional
    weights (2:4 for 1:2) are the same weights.

    Raises
    ------
    CAPInputError
        Naming ``--baseline``, the locked weights and the ones given.
    """
    from cap_core.profile.weights import weight_shares

    w_base = {c: float(baseline["weights"].get(c, 0.0)) for c in CONDITION_IDS}
    w_now = {c: float(weights.get(c, 0.0)) for c in CONDITION_IDS}
    # weights are relative: C1=1,C7=2 and C1=2,C7=4 are the same choice (compared as shares of their total)
    s_base, s_now = weight_shares(w_base, CONDITION_IDS), weight_shares(w_now, CONDITION_IDS)
    if any(abs(s_base[c] - s_now[c]) > 1e-12 for c in CONDITION_IDS):
        raise CAPInputError("the baseline was taken with other weights", argument="--baseline",
                            expected=", ".join(f"{c}={w:g}" for c, w in w_base.items() if w > 0),
                            got=", ".join(f"{c}={w:g}" for c, w in w_now.items() if w > 0),
                            fix="use the baseline's weights or lock a new baseline")


def check_baseline_items(baseline: dict, ds: Dataset, path: str | Path) -> None:
    """Refuse a baseline whose locked judgments name items the benchmark does not have.

    The locked verdicts are paired with today's on the items both runs received; an item id
    that is not an item of the benchmark at all (a hand edit, another benchmark's file) is
    not a verdict that can be paired or ignored silently.

    Raises
    ------
    CAPInputError
        Naming the file, the first foreign item id and how many there are.
    """
    bench = baseline["benchmark"]
    if bench not in ds.benchmarks:
        return  # the caller says which benchmark is missing
    known = set(ds.items.filter(pl.col("benchmark") == bench)["item_id"].to_list())
    foreign = sorted({j["item_id"] for j in baseline["judgments"]} - known)
    if foreign:
        raise CAPInputError(f"the baseline holds verdicts on {len(foreign)} item(s) the benchmark {bench!r} does not "
                            "have", file=str(path), column="judgments", expected=f"item ids of {bench}",
                            got=foreign[0], fix="lock a new baseline on this data with `choose --lock`")


@dataclass(frozen=True)
class GateResult:
    """``below`` true when the judge is significantly below its baseline; ``diff`` (points, new -
    baseline) and its interval; ``paired`` and ``n_items`` (shared items, paired only); ``message``."""

    judge: str
    below: bool
    diff: float
    ci_low: float
    ci_high: float
    paired: bool
    n_items: int
    message: str


def _unpaired(judge, new, base, level) -> GateResult:
    z = float(__import__("scipy.stats", fromlist=["norm"]).norm.ppf(1 - (1 - level) / 2))
    sd = math.hypot((new["ci_high"] - new["ci_low"]) / (2 * _Z975), (base["ci_high"] - base["ci_low"]) / (2 * _Z975))
    d = new["score"] - base["score"]
    lo, hi = d - z * sd, d + z * sd
    below = hi < 0
    msg = (f"{judge}: weighted score {new['score']:.1f} vs baseline {base['score']:.1f} "
           f"(difference {d:+.1f}, {level:.0%} CI {lo:+.1f} to {hi:+.1f}, unpaired: no shared items)")
    return GateResult(judge, below, d, lo, hi, False, 0, msg)


def compare_to_baseline(ds: Dataset | None, benchmark: str, judge: str, new_row: dict, baseline: dict,
                        weights: dict[str, float], *, level: float, n_resamples: int, seed: int,
                        failures: str = "count") -> GateResult:
    """Compare one judge's weighted score with its locked baseline (module notes).

    The two are paired on the items both received (the locked verdicts and today's), under
    the failure rule in force (``failures``, :data:`cap_core.verdicts.FAILURE_RULES`) on
    both sides.

    Raises
    ------
    CAPInputError
        The baseline is of another benchmark, was taken with other weights, or lacks the judge.
    """
    from cap_core.profile.conditions import compute_profile
    from cap_core.profile.weights import weighted_score_draws

    if baseline["benchmark"] != benchmark:
        raise CAPInputError("the baseline is of another benchmark", argument="--baseline",
                            expected=benchmark, got=baseline["benchmark"], fix="pass --benchmark of the baseline")
    check_baseline_weights(baseline, weights)
    w_now = {c: float(weights.get(c, 0.0)) for c in CONDITION_IDS}
    base_row = next((s for s in baseline["scores"] if s["judge"] == judge and s.get("score") is not None), None)
    if base_row is None:
        raise CAPInputError("the baseline has no score for this judge", argument="--baseline", got=judge,
                            expected="one of " + ", ".join(s["judge"] for s in baseline["scores"]),
                            fix="lock a baseline that includes the judge")
    locked = pl.DataFrame([j for j in baseline["judgments"] if j["judge"] == judge],
                          schema={"judge": pl.String, "item_id": pl.String, "order": pl.String,
                                  "verdict": pl.String, "rationale_supported": pl.Int8})
    if ds is None or new_row.get("source", "computed") != "computed" or locked.height == 0:
        return _unpaired(judge, new_row, base_row, level)
    items = ds.items.filter(pl.col("benchmark") == benchmark)
    shared = items.filter(pl.col("item_id").is_in(locked["item_id"].implode()))
    if shared.height == 0:
        return _unpaired(judge, new_row, base_row, level)
    ids = shared["item_id"].implode()
    now = ds.judgments.filter((pl.col("benchmark") == benchmark) & (pl.col("judge") == judge)
                              & pl.col("item_id").is_in(ids))
    old = locked.filter(pl.col("item_id").is_in(ids)).with_columns(
        (pl.col("judge") + _LOCKED).alias("judge"), pl.lit(benchmark).alias("benchmark"))
    old = old.with_columns(pl.lit(None, dtype=t).alias(c) for c, t in JUDGMENTS_SCHEMA.items() if c not in old.columns)
    jm = pl.concat([now.select(list(JUDGMENTS_SCHEMA)).cast(JUDGMENTS_SCHEMA),
                    old.select(list(JUDGMENTS_SCHEMA)).cast(JUDGMENTS_SCHEMA)])
    pair = Dataset.build(shared, jm, ds.declarations.filter(pl.col("benchmark") == benchmark))
    both = shared_items(pair)  # the items today's run and the locked one both received
    if both.height == 0:
        return _unpaired(judge, new_row, base_row, level)
    pair = pair.keep_items(both)
    res = compute_profile(pair, n_resamples=n_resamples, seed=seed, level=level, failures=failures)
    frame, draws = weighted_score_draws(res.profile, res.replicates, w_now, seed=seed, level=level)
    names = frame["judge"].to_list()
    if judge not in names or judge + _LOCKED not in names:
        return _unpaired(judge, new_row, base_row, level)
    a, b = names.index(judge), names.index(judge + _LOCKED)
    d = draws[:, a] - draws[:, b]
    lo, hi = (float(x[0]) for x in percentile_interval(d[np.isfinite(d)][:, None], level=level))
    diff = float(frame["score"][a] - frame["score"][b])
    n = int(both.height)
    msg = (f"{judge}: weighted score {frame['score'][a]:.1f} vs baseline {frame['score'][b]:.1f} on the {n} shared "
           f"items (paired difference {diff:+.1f}, {level:.0%} CI {lo:+.1f} to {hi:+.1f})")
    return GateResult(judge, hi < 0, diff, lo, hi, True, n, msg)
