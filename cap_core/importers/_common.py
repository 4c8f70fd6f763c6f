"""Helpers shared by the importers: safe JSON reading, declarations, verdict tallies."""

from __future__ import annotations

import gzip
import zlib
from collections import Counter
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.io import decode_text, parse_json, read_unpacked
from cap_core.schema import DECLARATION_SCHEMA

ORDER_OPERATOR = (
    "Every item shown in the original A/B order and in the swapped B/A order; "
    "strict both-correct (the better response must win in both orders)"
)


def check_dir(path: Path | str, what: str) -> Path:
    """Return ``path`` as a Path, raising CAPInputError if it is not a directory."""
    if not isinstance(path, (str, Path)):
        raise CAPInputError(f"{what} must be a folder path", got=type(path).__name__, fix="pass a pathlib.Path")
    p = Path(path)
    if not p.is_dir():
        raise CAPInputError(f"{what} folder not found", file=str(p), fix="point the importer at the downloaded folder")
    return p


def load_json(path: Path) -> object:
    """Parse a JSON file (gzip-compressed when its name ends in ``.gz``, unpacked under
    :data:`cap_core.io.MAX_UNPACKED_BYTES`), raising CAPInputError that names the file on failure."""
    if not path.is_file():
        raise CAPInputError("expected file is missing", file=str(path), fix="re-download the benchmark folder")
    if path.suffix == ".gz":
        try:
            with gzip.open(path, "rb") as fh:
                raw = read_unpacked(fh, file=str(path), what="the gzip file")
        except (OSError, EOFError, zlib.error) as exc:
            raise CAPInputError("not a readable gzip file", file=str(path), got=type(exc).__name__,
                                fix="re-compress it with gzip, or pass the uncompressed file") from None
    else:
        raw = path.read_bytes()
    text, _ = decode_text(raw, path.name)
    return parse_json(text, file=str(path))


def load_jsonl(path: Path) -> list[dict]:
    """Parse a JSON-lines file into a list of objects; bad lines raise CAPInputError with the line."""
    text, _ = decode_text(path.read_bytes(), path.name)
    out = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        rec = parse_json(line, file=str(path), row=i)
        if not isinstance(rec, dict):
            raise CAPInputError("JSON line is not an object", file=str(path), row=i, got=type(rec).__name__)
        out.append(rec)
    return out


def declaration(
    benchmark: str,
    condition: str,
    status: str,
    operator: str,
    selector: str,
    values: list[str],
    reference: list[str] | None = None,
) -> dict:
    """One DECLARATION_SCHEMA row as a dict."""
    return {
        "benchmark": benchmark,
        "condition": condition,
        "status": status,
        "operator": operator,
        "selector": selector,
        "values": list(values),
        "reference": list(reference) if reference else [],
    }


def declarations_frame(rows: list[dict]) -> pl.DataFrame:
    """Stack declaration dicts into a frame with DECLARATION_SCHEMA."""
    if not rows:
        return pl.DataFrame(schema=DECLARATION_SCHEMA)
    return pl.DataFrame(rows, schema=DECLARATION_SCHEMA)


def verdict_notices(judgments: list[dict], source: str) -> list[str]:
    """One notice per (benchmark, judge) with ties or unparsed verdicts, plus a summary line."""
    total: Counter = Counter()
    odd: dict[tuple[str, str], Counter] = {}
    for j in judgments:
        key = (j["benchmark"], j["judge"])
        total[key] += 1
        if j["verdict"] in ("tie", "unparsed"):
            odd.setdefault(key, Counter())[j["verdict"]] += 1
    notes = []
    for key in sorted(odd):
        c = odd[key]
        notes.append(
            f"{source}: judge {key[1]} on {key[0]} gave {c['tie']} tie and {c['unparsed']} unparsed verdicts "
            f"out of {total[key]} (kept; they count as not correct)."
        )
    clean = len(total) - len(odd)
    if clean:
        notes.append(f"{source}: {clean} judge-benchmark pairs had no tie or unparsed verdict.")
    return notes


def rule_notices(judgments: list[dict], source: str) -> list[str]:
    """One notice per (benchmark, judge) whose verdicts came from a score rule that differs from a written verdict.

    Counts the rows with ``verdict_rule`` ``scores_equal_tie`` (equal scores: CAP's tie) and
    ``score_missing_unparsed`` (a missing or -1 score: unparsed), and how many of them the
    source recorded otherwise (``verdict_recorded``), so ties and unparsed verdicts say
    which rule produced them (:data:`cap_core.schema.VERDICT_RULES`).
    """
    counts: dict[tuple[str, str], Counter] = {}
    for j in judgments:
        rule = j.get("verdict_rule")
        if rule in ("scores_equal_tie", "score_missing_unparsed"):
            c = counts.setdefault((j["benchmark"], j["judge"]), Counter())
            c[rule] += 1
            if j.get("verdict_recorded") not in (None, j["verdict"]):
                c["recorded_otherwise"] += 1
    notes = []
    for (bench, judge) in sorted(counts):
        c = counts[(bench, judge)]
        notes.append(
            f"{source}: judge {judge} on {bench}: {c['scores_equal_tie']} ties from equal scores and "
            f"{c['score_missing_unparsed']} unparsed from a missing or failed score (-1) (CAP's rules); "
            f"the source recorded a different verdict on {c['recorded_otherwise']} of them (see verdict_recorded)."
        )
    return notes
