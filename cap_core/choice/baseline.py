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

import json
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

__all__ = ["FORMAT", "lock_baseline", "read_baseline", "GateResult", "compare_to_baseline"]

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
    scores = leaderboard.select("judge", "subset", "source", "score", "ci_low", "ci_high", "n_items").to_dicts()
    return {"format": FORMAT, "benchmark": benchmark, "fingerprint": fingerprint,
            "weights": {c: float(weights.get(c, 0.0)) for c in CONDITION_IDS}, "filters": filters,
            "level": float(level), "resamples": int(resamples), "seed": int(seed), "scores": scores, "judgments": jm}


def read_baseline(path: str | Path) -> dict:
    """Read and check a baseline file.

    Raises
    ------
    CAPInputError
        Missing file, not JSON, another format, missing keys, or a key whose value is not of the
        shape ``choose --lock`` writes (file and key named, fix given).
    """
    p = Path(path)
    if not p.is_file():
        raise CAPInputError("baseline file not found", file=str(p), fix="write one with `choose ... --lock FILE`")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CAPInputError("the baseline file is not JSON", file=str(p), got=str(err)[:80],
                            fix="pass the file written by `choose --lock`") from None
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


def _check_shapes(doc: dict, p: Path) -> None:
    """The types ``choose --lock`` writes; a hand-edited file that differs is refused, key named."""
    scores, jm, weights = doc["scores"], doc["judgments"], doc["weights"]
    checks = {
        "benchmark": (isinstance(doc["benchmark"], str), "text"),
        "level": (_number(doc["level"]) and 0 < doc["level"] < 1, "a number strictly between 0 and 1"),
        "weights": (isinstance(weights, dict) and all(c in CONDITION_IDS and _number(w) and w >= 0
                                                      for c, w in weights.items()),
                    "an object of condition weights, e.g. {\"C7\": 1.0} (finite, >= 0)"),
        "scores": (isinstance(scores, list) and all(
            isinstance(s, dict) and isinstance(s.get("judge"), str)
            and (s.get("score") is None or _number(s.get("score")))
            and all(s.get(k) is None or (isinstance(s.get(k), (int, float)) and not isinstance(s.get(k), bool))
                    for k in ("ci_low", "ci_high")) for s in scores),
                   "a list of {judge, score, ci_low, ci_high} with numbers or null"),
        "judgments": (isinstance(jm, list) and all(
            isinstance(j, dict) and all(isinstance(j.get(k), str) for k in ("judge", "item_id", "order"))
            and (j.get("verdict") is None or isinstance(j.get("verdict"), str)) for j in jm),
                      "a list of {judge, item_id, order, verdict} records"),
    }
    for key, (ok, expected) in checks.items():
        if not ok:
            raise CAPInputError("the baseline file holds a value of the wrong shape", file=str(p), column=key,
                                expected=expected, got=str(doc[key])[:60],
                                fix="write the baseline again with `choose --lock` (do not edit it by hand)")


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
    from cap_core.profile.weights import weight_shares, weighted_score_draws

    if baseline["benchmark"] != benchmark:
        raise CAPInputError("the baseline is of another benchmark", argument="--baseline",
                            expected=benchmark, got=baseline["benchmark"], fix="pass --benchmark of the baseline")
    w_base = {c: float(baseline["weights"].get(c, 0.0)) for c in CONDITION_IDS}
    w_now = {c: float(weights.get(c, 0.0)) for c in CONDITION_IDS}
    # weights are relative: C1=1,C7=2 and C1=2,C7=4 are the same choice (compared as shares of their total)
    s_base, s_now = weight_shares(w_base, CONDITION_IDS), weight_shares(w_now, CONDITION_IDS)
    if any(abs(s_base[c] - s_now[c]) > 1e-12 for c in CONDITION_IDS):
        raise CAPInputError("the baseline was taken with other weights", argument="--baseline",
                            expected=", ".join(f"{c}={w:g}" for c, w in w_base.items() if w > 0),
                            got=", ".join(f"{c}={w:g}" for c, w in w_now.items() if w > 0),
                            fix="use the baseline's weights or lock a new baseline")
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
