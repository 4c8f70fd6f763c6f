"""Shared errors: repeated wrong answers and judge–judge vs judge–label agreement.

Units are verdicts, one per (item, order) that both compared judges have; verdicts are
in the original letters, gold is the human/benchmark label. Whether a verdict is wrong,
and a judge's agreement with the label, come from the ``correct`` flag of
:func:`cap_core.verdicts.verdict_rows` (a tie or unparsed verdict is never correct).

Repeated errors (Jev paper §6.2, App. J): among the cheap judge's wrong verdicts (all
of them, and those in its top confidence band), the share on which another judge gives
the *same* wrong verdict, next to an independence baseline: the other judge's rate of
giving that verdict among all units with the same gold label (and order), averaged over
the cheap judge's errors. Agreement structure (§5.1): exact agreement and Cohen's κ
(``sklearn.metrics.cohen_kappa_score``) for every pair of judges and of judge and label.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from sklearn.metrics import cohen_kappa_score

from cap_core.cascades.judge_confidence import BANDS, item_confidence
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.verdicts import joint_units, verdict_rows

__all__ = ["verdict_table", "repeated_errors", "agreement_matrix", "LABEL"]

LABEL = "label (gold)"


def _check_judges(ds: Dataset, benchmark: str, judges: list[str]) -> None:
    have = set(ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list())
    missing = sorted(set(judges) - have)
    if missing:
        raise CAPInputError(f"judge {missing[0]!r} has no verdicts on {benchmark!r}", argument="judges",
                            got=missing[0], fix="pick judges listed for this benchmark")


def _shared_units(ds: Dataset, benchmark: str, judges: list[str], rows: pl.DataFrame | None = None) -> pl.DataFrame:
    """Verdict rows of ``judges`` on the (item, order) units where every one of them has a verdict.

    Wide, one row per unit sorted by item_id, order: ``item_id``, ``order``, ``gold``, then
    ``<judge>`` (verdict) and ``<judge>\x1fcorrect`` (Boolean, :func:`cap_core.verdicts.verdict_rows`)
    per judge. ``rows``: verdict rows of the benchmark for a superset of ``judges`` (the
    units are the same: a unit any of them misses is dropped either way).
    """
    judges = list(dict.fromkeys(judges))
    _check_judges(ds, benchmark, judges)
    if rows is None:
        rows = verdict_rows(ds, benchmarks=[benchmark], judges=judges, gold_only=True)
    kept = joint_units(rows, judges)  # every judge has a verdict there (items it never received drop out)
    if kept.height == 0:
        raise CAPInputError(f"the judges share no verdict unit on {benchmark!r}", column="item_id",
                            expected="(item, order) pairs judged by every judge", got=", ".join(judges),
                            fix="choose judges that rated the same items in the same order")
    wide = kept.pivot(on="judge", index=["item_id", "order", "gold"], values=["verdict", "correct"],
                      separator="\x1f")
    return wide.rename({f"verdict\x1f{j}": j for j in judges}
                       | {f"correct\x1f{j}": f"{j}\x1fcorrect" for j in judges}).sort("item_id", "order")


def verdict_table(ds: Dataset, benchmark: str, judges: list[str]) -> pl.DataFrame:
    """Wide table ``item_id, order, gold, <judge>...`` of verdict units every listed judge has.

    Raises
    ------
    CAPInputError
        A judge without verdicts on the benchmark, or no unit shared by all of them.
    """
    w = _shared_units(ds, benchmark, judges)
    return w.select("item_id", "order", "gold", *dict.fromkeys(judges))


def repeated_errors(ds: Dataset, benchmark: str, cheap: str, others: list[str], *, method: str = "auto",
                    top_band: float = BANDS[-2]) -> pl.DataFrame:
    """How often other judges repeat the cheap judge's wrong verdicts, against independence.

    Parameters
    ----------
    top_band : float
        Lower edge of the top confidence band on the [0, 1] scale (default 0.75).

    Returns
    -------
    polars.DataFrame
        One row per (other judge, errors) with ``errors`` = ``"all"`` or ``"top band"``:
        ``n_errors`` (Int64, the cheap judge's wrong verdicts in scope), ``repeated``
        (Int64), ``repeated_share`` and ``baseline_share`` (percent; baseline =
        expected repeats under independence given gold and order / n_errors).

    Raises
    ------
    CAPInputError
        No other judge, a judge without verdicts, no shared units. A cheap judge
        without confidence gets only the ``"all"`` rows (no top band).
    """
    others = [o for o in dict.fromkeys(others) if o != cheap]
    if not others:
        raise CAPInputError("repeated errors need at least one other judge", argument="judges",
                            expected="one or more judges besides the cheap one", fix="add a judge to compare")
    try:
        conf = item_confidence(ds, benchmark, cheap, method=method).select("item_id", "confidence")
    except CAPInputError:
        conf = None
    rows = []
    for o in others:
        w = _shared_units(ds, benchmark, [cheap, o])
        if conf is not None:
            w = w.join(conf, on="item_id", how="left")
        cv, ov, gold = w[cheap].to_numpy(), w[o].to_numpy(), w["gold"].to_numpy()
        order = w["order"].to_numpy()
        wrong = ~w[f"{cheap}\x1fcorrect"].to_numpy()
        # P(other says v | gold, order), from all shared units
        base = np.zeros(w.height)
        for k in np.flatnonzero(wrong):
            same = (gold == gold[k]) & (order == order[k])
            base[k] = np.mean(ov[same] == cv[k])
        scopes = [("all", wrong)]
        if conf is not None:
            scopes.append(("top band", wrong & (w["confidence"].fill_null(0).to_numpy() >= top_band)))
        for scope, m in scopes:
            n = int(m.sum())
            rep = int((ov[m] == cv[m]).sum())
            rows.append({"judge": o, "errors": scope, "n_errors": n, "repeated": rep,
                         "repeated_share": 100 * rep / n if n else None,
                         "baseline_share": 100 * base[m].mean() if n else None})
    return pl.DataFrame(rows, schema={"judge": pl.String, "errors": pl.String, "n_errors": pl.Int64,
                                      "repeated": pl.Int64, "repeated_share": pl.Float64,
                                      "baseline_share": pl.Float64})


def agreement_matrix(ds: Dataset, benchmark: str, judges: list[str]) -> pl.DataFrame:
    """Pairwise agreement of judges with one another and with the label.

    Returns
    -------
    polars.DataFrame
        Long form, one row per ordered pair (``row``, ``col``) over the judges and
        :data:`LABEL` (label x label left out): ``n_units`` (Int64, shared verdict units), ``agreement``
        (percent exact agreement), ``kappa`` (Cohen's κ; null when undefined, e.g. a
        constant pair), ``kind`` (``judge-judge`` / ``judge-label`` / ``self``).
    """
    judges = list(dict.fromkeys(judges))
    if not judges:
        raise CAPInputError("no judges given", argument="judges", expected="one or more judges")
    names = [*judges, LABEL]
    _check_judges(ds, benchmark, judges)
    every = verdict_rows(ds, benchmarks=[benchmark], judges=judges, gold_only=True)
    if every.height == 0:
        raise CAPInputError(f"no item of {benchmark!r} has a gold label: agreement with the label needs gold",
                            argument="benchmark", got=benchmark,
                            fix="import a gold source (e.g. --gold-judge or --gold), or compare judges on a "
                                "benchmark with gold")
    rows = []
    for a in names:
        for b in names:
            pair = [x for x in (a, b) if x != LABEL]
            w = _shared_units(ds, benchmark, pair, every) if pair else None
            if w is None:
                continue
            va = w["gold" if a == LABEL else a].to_numpy()
            vb = w["gold" if b == LABEL else b].to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                kappa = float(cohen_kappa_score(va, vb)) if len(set(va) | set(vb)) > 1 else float("nan")
            kind = "self" if a == b else ("judge-label" if LABEL in (a, b) else "judge-judge")
            # a judge agrees with the label exactly when its verdict is correct (verdict_rows' rule)
            same = w[f"{pair[0]}\x1fcorrect"].to_numpy() if kind == "judge-label" else va == vb
            rows.append({"row": a, "col": b, "n_units": w.height, "agreement": 100 * float(np.mean(same)),
                         "kappa": None if np.isnan(kappa) else kappa, "kind": kind})
    return pl.DataFrame(rows, schema={"row": pl.String, "col": pl.String, "n_units": pl.Int64,
                                      "agreement": pl.Float64, "kappa": pl.Float64, "kind": pl.String})
