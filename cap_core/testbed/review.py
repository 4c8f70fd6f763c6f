"""Human review of a built testbed: accept, reject or edit each pair (CAP App. A.6 (ii)).

The review is an append-only JSON-lines file in the testbed folder (``review.jsonl``), one
line per decision, flushed and synced at once: a crash loses at most the line being written
(a cut last line is skipped with a notice), and a reload resumes with every earlier decision.
The latest line for a pair wins. A line is tied to the pair's texts as built
(:func:`cap_core.testbed.layout.pair_sha`): after a rebuild that changed a pair, its old
lines no longer apply (a notice says how many).

Line: ``{"v": 1, "benchmark", "base_item_id", "action": "accept" | "reject" | "edit",
"correct", "flawed", "error_note" (edits only), "note", "pair_sha", "ts"}``.

States (:data:`STATES`): ``pending`` (no decision), ``accepted``, ``rejected``, ``edited``.
:func:`apply_review` rewrites the folder's ``run_items.parquet``: rejected pairs leave it,
edited pairs enter with their edited texts (flag ``edited``) and presentation variants made
again by the offline rules with the same label-preservation checks (a variant that fails is
left out), every other pair as built. An edit must pass the flaw checks
(:func:`cap_core.testbed.checks.flaw_problem`) or it is refused.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.testbed.layout import (
    REVIEW,
    RUN_ITEMS,
    RUN_ITEMS_SCHEMA,
    Testbed,
    load_testbed_dir,
    pair_items,
    write_parquet,
)

__all__ = ["ACTIONS", "STATES", "COUNTS_SCHEMA", "read_review", "record", "review_state", "apply_review",
           "reviewed_pairs", "pair_counts"]

ACTIONS = ("accept", "reject", "edit")
STATES = ("pending", "accepted", "rejected", "edited")
_STATE_OF = {"accept": "accepted", "reject": "rejected", "edit": "edited"}


def read_review(tb: Testbed) -> tuple[dict[tuple[str, str], dict], list[str]]:
    """The latest applicable decision per ``(benchmark, base_item_id)``, and notices.

    Raises
    ------
    CAPInputError
        A malformed line before the last (file and line named), a file that is not UTF-8.
    """
    path = tb.path / REVIEW
    if not path.is_file():
        return {}, []
    try:
        lines = path.read_bytes().decode("utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise CAPInputError("the review file is not UTF-8 text", file=str(path),
                            expected="JSON lines written by the review", fix="restore the file or remove it") from None
    shas = {(b, i): s for b, i, s in tb.pairs.select("benchmark", "base_item_id", "pair_sha").iter_rows()}
    latest: dict[tuple[str, str], dict] = {}
    notes, stale = [], 0
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or rec.get("action") not in ACTIONS or not rec.get("base_item_id"):
                raise ValueError
        except ValueError:
            if n == len(lines):
                notes.append(f"{path.name}: the last line was cut short (line {n}) and is ignored; decide that "
                             "pair again.")
                continue
            raise CAPInputError("unreadable line in the review file", file=str(path), row=n, got=line[:60],
                                fix="remove or repair that line (the file is append-only JSON lines)") from None
        key = (str(rec.get("benchmark")), str(rec["base_item_id"]))
        if shas.get(key) != rec.get("pair_sha"):
            stale += 1
            continue
        latest[key] = rec
    if stale:
        notes.append(f"{stale} review line(s) refer to pairs that a rebuild changed or removed; they no longer apply.")
    return latest, notes


def record(path: str | Path, *, benchmark: str, base_item_id: str, action: str, correct: str | None = None,
           flawed: str | None = None, error_note: str | None = None, note: str = "") -> dict:
    """Append one decision to the review of the testbed at ``path`` and re-apply the review.

    Returns the line written.

    Raises
    ------
    CAPInputError
        Not a testbed folder, an unknown pair or action, an edit without texts or whose texts
        fail the flaw checks (argument ``flawed``).
    """
    from cap_core.testbed.checks import flaw_problem

    tb = load_testbed_dir(path)
    if action not in ACTIONS:
        raise CAPInputError("unknown review action", argument="action", expected=", ".join(ACTIONS), got=action)
    pair = tb.pairs.filter((pl.col("benchmark") == benchmark) & (pl.col("base_item_id") == base_item_id))
    if pair.height != 1:
        raise CAPInputError("no such pair in the testbed", argument="base_item_id", got=f"{benchmark}/{base_item_id}",
                            fix="pick a pair listed in pairs.parquet")
    p = pair.row(0, named=True)
    rec = {"v": 1, "benchmark": benchmark, "base_item_id": base_item_id, "action": action, "note": note or "",
           "pair_sha": p["pair_sha"], "ts": round(time.time(), 3)}
    if action == "edit":
        correct = (correct if correct is not None else p["correct"]).strip()
        flawed = (flawed if flawed is not None else p["flawed"]).strip()
        why = flaw_problem(p["question"], correct, flawed) if correct else "empty correct answer"
        if why:
            raise CAPInputError("the edited pair fails a check", argument="flawed", got=why,
                                expected="a flawed answer that differs from the correct one, keeps the question's "
                                         "subject and does not contain the correct answer",
                                fix="plant the error in the flawed answer and keep the rest of the correct answer")
        rec.update(correct=correct, flawed=flawed, error_note=(error_note or p["error_note"] or "").strip())
    f = tb.path / REVIEW
    with open(f, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    apply_review(tb)
    return rec


def review_state(tb: Testbed, latest: dict | None = None) -> pl.DataFrame:
    """``benchmark``, ``base_item_id``, ``state`` (:data:`STATES`) of every pair, in the pairs' order."""
    if latest is None:
        latest, _ = read_review(tb)
    states = [_STATE_OF[latest[(b, i)]["action"]] if (b, i) in latest else "pending"
              for b, i in tb.pairs.select("benchmark", "base_item_id").iter_rows()]
    return tb.pairs.select("benchmark", "base_item_id").with_columns(pl.Series("state", states, dtype=pl.String))


def reviewed_pairs(tb: Testbed, latest: dict | None = None) -> pl.DataFrame:
    """The pairs after review: rejected ones removed, edits applied (flag ``edited`` added)."""
    if latest is None:
        latest, _ = read_review(tb)
    rows = []
    for p in tb.pairs.iter_rows(named=True):
        rec = latest.get((p["benchmark"], p["base_item_id"]))
        if rec is not None and rec["action"] == "reject":
            continue
        if rec is not None and rec["action"] == "edit":
            flags = [f for f in (p["flags"] or "").split(";") if f] + ["edited"]
            p = dict(p, correct=rec["correct"], flawed=rec["flawed"], error_note=rec.get("error_note") or
                     p["error_note"], flags=";".join(flags))
        rows.append(p)
    return pl.DataFrame(rows, schema=tb.pairs.schema)


def apply_review(tb: Testbed | str | Path) -> pl.DataFrame:
    """Rewrite ``run_items.parquet`` of the testbed from its pairs, variants and review (module doc).

    Returns the items written (:data:`cap_core.testbed.layout.RUN_ITEMS_SCHEMA`).
    """
    from cap_core.judging.augment import augment_items

    if not isinstance(tb, Testbed):
        tb = load_testbed_dir(tb)
    latest, _ = read_review(tb)
    pairs = reviewed_pairs(tb, latest)
    plain = pair_items(pairs)
    main = tb.manifest["benchmark"]
    edited = {i for (b, i), r in latest.items() if b == main and r["action"] == "edit"}
    kept = set(pairs.filter(pl.col("benchmark") == main)["base_item_id"].to_list())
    variants = tb.variants.filter(pl.col("base_item_id").is_in(sorted(kept - edited)))
    parts = [plain, variants.select(list(RUN_ITEMS_SCHEMA)).cast(RUN_ITEMS_SCHEMA)]
    redo = plain.filter((pl.col("benchmark") == main) & pl.col("base_item_id").is_in(sorted(edited)))
    if redo.height:
        added, _dropped = augment_items(redo, pad_factor=float(tb.manifest["settings"]["pad_factor"]))
        parts.append(added.filter(pl.col("variant") != "plain"))
    items = pl.concat(parts, how="vertical").sort("benchmark", "base_item_id", "variant")
    write_parquet(items, tb.path / RUN_ITEMS)
    return items


#: ``testbed show``: one row per benchmark, dimension and value.
COUNTS_SCHEMA = {"benchmark": pl.String, "dimension": pl.String, "value": pl.String, "n": pl.Int64}


def pair_counts(tb: Testbed) -> pl.DataFrame:
    """Pairs of each benchmark by error type, domain, flag, gold position per type (after review:
    rejected pairs left out) and by review state (all pairs): :data:`COUNTS_SCHEMA`."""
    latest, _ = read_review(tb)
    pairs = reviewed_pairs(tb, latest)
    flags = pairs.with_columns(pl.col("flags").fill_null("").str.split(";")).explode("flags").with_columns(
        pl.when(pl.col("flags") == "").then(pl.lit("(none)")).otherwise(pl.col("flags")).alias("flags"))
    parts = [
        pairs.group_by("benchmark", pl.col("failure_type").alias("value")).len().with_columns(
            pl.lit("error type").alias("dimension")),
        pairs.group_by("benchmark", pl.col("domain").alias("value")).len().with_columns(
            pl.lit("domain").alias("dimension")),
        flags.group_by("benchmark", pl.col("flags").alias("value")).len().with_columns(
            pl.lit("flag").alias("dimension")),
        pairs.group_by("benchmark", (pl.col("failure_type") + " gold " + pl.col("gold")).alias("value")).len()
        .with_columns(pl.lit("gold position").alias("dimension")),
        review_state(tb, latest).group_by("benchmark", pl.col("state").alias("value")).len()
        .with_columns(pl.lit("review").alias("dimension")),
    ]
    order = {"error type": 0, "domain": 1, "flag": 2, "gold position": 3, "review": 4}
    out = pl.concat([p.select("benchmark", "dimension", "value", pl.col("len").cast(pl.Int64).alias("n"))
                     for p in parts], how="vertical")
    return (out.with_columns(pl.col("dimension").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
            .sort("benchmark", "_o", "value").drop("_o"))
