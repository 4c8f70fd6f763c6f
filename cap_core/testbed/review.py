"""Human review of a built testbed: accept, reject or edit each pair (CAP App. A.6 (ii)).

The review is an append-only JSON-lines file in the testbed folder (``review.jsonl``), one
line per decision, flushed and synced at once: a crash loses at most the line being written
(a cut last line is skipped with a notice), and a reload resumes with every earlier decision.
The latest line for a pair wins. A line is tied to the pair's texts as built
(:func:`cap_core.testbed.layout.pair_sha`): after a rebuild that changed a pair, its old
lines no longer apply (a notice says how many).

Line: ``{"v": 1, "benchmark", "base_item_id", "action": "accept" | "reject" | "edit",
"correct", "flawed", "error_note", "failure_type" (edits only), "note", "pair_sha", "ts"}``.
Every line is checked when the review is read (:func:`read_review`): a line written by hand
or by another program that lacks a field, or holds one of the wrong kind, is refused with its
file and line number, so no reader half-applies a review.

States (:data:`STATES`): ``pending`` (no decision), ``accepted``, ``rejected``, ``edited``.
The items judges run on are always the review applied to the pairs as built
(:func:`reviewed_items`): rejected pairs leave them, edited pairs enter with their edited
texts, planted-error note and type (flag ``edited``) and presentation variants made again by
the offline rules with the same label-preservation checks (a variant that fails is left out),
every other pair as built. Every reader applies it when it reads the folder (``judge --items``,
``evaluate --benchmark testbed``, the Live run page), so a decision appended by hand or by
another process counts at once; :func:`apply_review` also writes the result to
``run_items.parquet`` for other tools.

An edit is refused (:func:`record`) when its correct answer is empty or leaves the question
(:func:`cap_core.testbed.checks.correct_problem`), when the pair fails the flaw checks
(:func:`cap_core.testbed.checks.flaw_problem`), when it changes the flawed answer but keeps
the old planted-error note (the note the Form A evaluator reads would describe another
text), or when its error type is not one of the four.
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
from cap_core.testbed.wording import count

__all__ = ["ACTIONS", "STATES", "COUNTS_SCHEMA", "review_lines", "read_review", "record", "review_state",
           "apply_review", "reviewed_pairs", "reviewed_items", "pair_counts"]

ACTIONS = ("accept", "reject", "edit")
STATES = ("pending", "accepted", "rejected", "edited")
_STATE_OF = {"accept": "accepted", "reject": "rejected", "edit": "edited"}


def _line_problem(rec: object) -> str | None:
    """Why a parsed review line cannot be used, or None."""
    from cap_core.testbed.taxonomy import ERROR_TYPES

    if not isinstance(rec, dict):
        return "not a JSON object"
    if rec.get("action") not in ACTIONS:
        return "action must be one of " + ", ".join(ACTIONS)
    for key in ("benchmark", "base_item_id", "pair_sha"):
        if not isinstance(rec.get(key), str) or not rec[key]:
            return f"{key} must be a non-empty text"
    if rec["action"] == "edit":
        for key in ("correct", "flawed"):
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                return f"an edit needs its {key} answer (a non-empty text)"
        if rec.get("error_note") is not None and not isinstance(rec["error_note"], str):
            return "error_note must be a text"
        if rec.get("failure_type") is not None and rec["failure_type"] not in ERROR_TYPES:
            return "failure_type must be one of " + ", ".join(ERROR_TYPES)
    return None


def review_lines(folder: str | Path) -> tuple[list[dict], list[str]]:
    """Every usable line of the review file of the testbed folder, in order, and notices.

    Raises
    ------
    CAPInputError
        A file that is not UTF-8; a line (other than a last line cut short while being
        written) that is not JSON or misses a field (:func:`_line_problem`): file and line named.
    """
    path = Path(folder) / REVIEW
    if not path.is_file():
        return [], []
    try:
        lines = path.read_bytes().decode("utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise CAPInputError("the review file is not UTF-8 text", file=str(path),
                            expected="JSON lines written by the review", fix="restore the file or remove it") from None
    out, notes = [], []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):  # a hand-edited line nested past Python's limit reads as unreadable
            if n == len(lines):
                notes.append(f"{path.name}: the last line was cut short (line {n}) and is ignored; decide that "
                             "pair again.")
                continue
            raise CAPInputError("unreadable line in the review file", file=str(path), row=n, got=line[:60],
                                fix="remove or repair that line (the file is append-only JSON lines)") from None
        why = _line_problem(rec)
        if why:
            raise CAPInputError(f"a review line cannot be applied: {why}", file=str(path), row=n, got=line[:60],
                                fix="repair or remove that line (decide the pair again on the Labelling page)")
        out.append(rec)
    return out, notes


def read_review(tb: Testbed) -> tuple[dict[tuple[str, str], dict], list[str]]:
    """The latest applicable decision per ``(benchmark, base_item_id)``, and notices.

    Raises
    ------
    CAPInputError
        From :func:`review_lines`.
    """
    lines, notes = review_lines(tb.path)
    shas = {(b, i): s for b, i, s in tb.pairs.select("benchmark", "base_item_id", "pair_sha").iter_rows()}
    latest: dict[tuple[str, str], dict] = {}
    stale = 0
    for rec in lines:
        key = (rec["benchmark"], rec["base_item_id"])
        if shas.get(key) != rec["pair_sha"]:
            stale += 1
            continue
        latest[key] = rec
    if stale:
        notes.append(f"{count(stale, 'review line')} {'refers' if stale == 1 else 'refer'} to pairs that a rebuild changed or removed; they no longer apply.")
    return latest, notes


def record(path: str | Path, *, benchmark: str, base_item_id: str, action: str, correct: str | None = None,
           flawed: str | None = None, error_note: str | None = None, failure_type: str | None = None,
           note: str = "") -> dict:
    """Append one decision to the review of the testbed at ``path`` and re-apply the review.

    Parameters
    ----------
    path : path
        The testbed folder.
    benchmark, base_item_id : str
        The pair.
    action : {"accept", "reject", "edit"}
    correct, flawed : str, optional
        An edit's texts (None keeps the pair's current text).
    error_note : str, optional
        An edit's planted-error note (None keeps the current one, allowed only while the flawed
        answer is unchanged).
    failure_type : str, optional
        An edit's planted error type (None keeps the current one).
    note : str
        The reviewer's remark, kept in the line.

    Returns
    -------
    dict
        The line written.

    Raises
    ------
    CAPInputError
        Not a testbed folder, an unknown pair or action; an edit whose correct answer is empty
        or off the question (argument ``correct``), whose pair fails the flaw checks (argument
        ``flawed``), which changes the flawed answer but keeps the old note (argument
        ``error_note``), or names an unknown type (argument ``failure_type``); a review file
        with a bad line (:func:`review_lines`).
    """
    from cap_core.testbed.checks import correct_problem, flaw_problem
    from cap_core.testbed.taxonomy import ERROR_TYPES

    tb = load_testbed_dir(path)
    if action not in ACTIONS:
        raise CAPInputError("unknown review action", argument="action", expected=", ".join(ACTIONS), got=action)
    latest, _ = read_review(tb)  # a bad line is refused before another is appended
    pair = tb.pairs.filter((pl.col("benchmark") == benchmark) & (pl.col("base_item_id") == base_item_id))
    if pair.height != 1:
        raise CAPInputError("no such pair in the testbed", argument="base_item_id", got=f"{benchmark}/{base_item_id}",
                            fix="pick a pair listed in pairs.parquet")
    p = pair.row(0, named=True)
    rec = {"v": 1, "benchmark": benchmark, "base_item_id": base_item_id, "action": action, "note": note or "",
           "pair_sha": p["pair_sha"], "ts": round(time.time(), 3)}
    if action == "edit":
        now = latest.get((benchmark, base_item_id))
        cur = now if now is not None and now["action"] == "edit" else p  # an edit starts from the last edit
        cur_note = cur.get("error_note") or p["error_note"] or ""
        cur_type = cur.get("failure_type") or p["failure_type"]
        correct = (correct if correct is not None else cur["correct"]).strip()
        flawed = (flawed if flawed is not None else cur["flawed"]).strip()
        why = correct_problem(p["question"], p["correct"], correct)
        if why:
            raise CAPInputError("the edited correct answer fails a check", argument="correct", got=why,
                                expected="the correct answer to this question",
                                fix="keep the correct answer of this pair's question")
        why = flaw_problem(p["question"], correct, flawed)
        if why:
            raise CAPInputError("the edited pair fails a check", argument="flawed", got=why,
                                expected="a flawed answer that differs from the correct one, keeps the question's "
                                         "subject and does not contain the correct answer",
                                fix="plant the error in the flawed answer and keep the rest of the correct answer")
        new_note = (error_note if error_note is not None else cur_note).strip()
        if not new_note:
            raise CAPInputError("an edit needs a planted-error note", argument="error_note", got=error_note,
                                expected="what the flawed answer gets wrong",
                                fix="say what the flawed answer changes (the rationale evaluator reads it)")
        if flawed != cur["flawed"].strip() and new_note == cur_note.strip():
            raise CAPInputError("the flawed answer changed but its planted-error note did not", argument="error_note",
                                got=new_note, expected="a note describing the edited flawed answer",
                                fix="rewrite the note to say what the edited flawed answer gets wrong")
        new_type = failure_type if failure_type is not None else cur_type
        if new_type not in ERROR_TYPES:
            raise CAPInputError("unknown planted error type", argument="failure_type", got=new_type,
                                expected="one of " + ", ".join(ERROR_TYPES))
        rec.update(correct=correct, flawed=flawed, error_note=new_note, failure_type=new_type)
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
    """The pairs after review: rejected ones removed, edits applied (texts, note, type; flag ``edited`` added)."""
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
                     p["error_note"], failure_type=rec.get("failure_type") or p["failure_type"], flags=";".join(flags))
        rows.append(p)
    return pl.DataFrame(rows, schema=tb.pairs.schema)


def reviewed_items(tb: Testbed | str | Path) -> pl.DataFrame:
    """The judge-ready items of the testbed: its pairs and variants with the review applied (module doc).

    Returns
    -------
    polars.DataFrame
        :data:`cap_core.testbed.layout.RUN_ITEMS_SCHEMA`, sorted by benchmark, base item, variant.

    Raises
    ------
    CAPInputError
        Not a testbed folder; a review file with a bad line.
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
    variants = tb.variants.filter((pl.col("benchmark") == main) & pl.col("base_item_id").is_in(sorted(kept - edited)))
    parts = [plain, variants.select(list(RUN_ITEMS_SCHEMA)).cast(RUN_ITEMS_SCHEMA)]
    redo = plain.filter((pl.col("benchmark") == main) & pl.col("base_item_id").is_in(sorted(edited)))
    if redo.height:
        added, _dropped = augment_items(redo, pad_factor=float(tb.manifest["settings"]["pad_factor"]))
        parts.append(added.filter(pl.col("variant") != "plain"))
    return pl.concat(parts, how="vertical").sort("benchmark", "base_item_id", "variant")


def apply_review(tb: Testbed | str | Path) -> pl.DataFrame:
    """Write :func:`reviewed_items` to the folder's ``run_items.parquet`` (for other tools) and return them."""
    if not isinstance(tb, Testbed):
        tb = load_testbed_dir(tb)
    items = reviewed_items(tb)
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
