"""The files of a testbed folder, how they are read, and how its judge-ready items are made.

A testbed folder (written by :func:`cap_core.testbed.build.build_testbed`):

=========================  ==================================================================
``testbed.json``           the manifest (:data:`FORMAT`): benchmarks, input file and its SHA-256,
                           settings, counts, call totals and the estimate; never a key or URL
``pairs.parquet``          one row per generated pair (:data:`PAIRS_SCHEMA`) with provenance
``variants.parquet``       the polished and length-padded items as built (run-item columns)
``attempts.parquet/.csv``  every generation attempt (:data:`cap_core.testbed.generate.ATTEMPTS_SCHEMA`)
``variants.csv``           label preservation per item and variant (kept, reason)
``dropped.csv``            questions that did not become a pair, with the stage and reason
``unplantable.csv``        (rules) the error types each question could not carry, and why
``hard_constructed.csv``   the Hard-Constructed items (``item_id``): ``hard --construction``
``review.jsonl``           the review log (:mod:`cap_core.testbed.review`), kept across rebuilds
``run_items.parquet``      the judge-ready items after review: what ``judge --items DIR``, the
                           Live run page and ``evaluate --benchmark testbed`` read
=========================  ==================================================================

Benchmarks: the main slice ``<name>`` (plain, polished and length-padded variants of every
pair: all eight conditions measurable with both orders and a rationale evaluator),
``<name>-hard`` (the hardened pairs, plain only, flagged ``hard_constructed``) and, with a
second generator, ``<name>-replication`` (its plain pairs on the same questions, App. I).

Items: ``item_id`` is the question id (``<id>::polished`` / ``<id>::length_padded`` for the
variants), ``base_item_id`` the question id, ``subset`` the domain, ``failure_type`` the
planted type, ``gold`` the position of the correct answer (balanced per type and
benchmark), ``flags`` ``low_quality`` / ``hard_constructed`` / ``edited``, and
``error_note`` the planted-error note the Form A evaluator reads.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import ITEMS_SCHEMA

__all__ = ["FORMAT", "MANIFEST", "PAIRS", "VARIANTS", "ATTEMPTS", "REVIEW", "RUN_ITEMS", "HARD_LIST", "PAIRS_SCHEMA",
           "RUN_ITEMS_SCHEMA", "Testbed", "is_testbed", "read_manifest", "load_testbed_dir", "pair_sha", "pair_items",
           "write_parquet", "check_output", "FILES", "MIN_ITEMS", "condition_counts", "thin_notice", "HARD_SUFFIX", "REPLICATION_SUFFIX"]

FORMAT = "cap-testbed/1"
MANIFEST, PAIRS, VARIANTS, ATTEMPTS = "testbed.json", "pairs.parquet", "variants.parquet", "attempts.parquet"
REVIEW, RUN_ITEMS, HARD_LIST = "review.jsonl", "run_items.parquet", "hard_constructed.csv"
#: Every file a testbed folder holds (some only after a review): no other output may take these names in it.
FILES = (MANIFEST, PAIRS, VARIANTS, ATTEMPTS, "attempts.csv", "variants.csv", "dropped.csv", "unplantable.csv",
         HARD_LIST, REVIEW, RUN_ITEMS)
HARD_SUFFIX, REPLICATION_SUFFIX = "-hard", "-replication"

#: One row per generated pair (every benchmark of the folder).
PAIRS_SCHEMA: dict[str, pl.DataType] = {
    "benchmark": pl.String, "base_item_id": pl.String, "kind": pl.String, "source_row": pl.Int64,
    "domain": pl.String, "failure_type": pl.String, "question": pl.String, "context": pl.String,
    "answer_given": pl.String, "expanded": pl.Boolean, "correct": pl.String, "flawed": pl.String,
    "error_note": pl.String, "gold": pl.String, "flags": pl.String, "subtlety": pl.Int64, "attempts": pl.Int64,
    "kept_attempt": pl.Int64, "generator": pl.String, "template_version": pl.String, "temperature": pl.Float64,
    "seed": pl.Int64, "cost_usd": pl.Float64, "a_flaw": pl.String, "b_added": pl.String, "pair_sha": pl.String,
}
#: What a judging run reads: the items columns plus the texts (and the Form A note).
RUN_ITEMS_SCHEMA: dict[str, pl.DataType] = dict(ITEMS_SCHEMA, question=pl.String, response_a=pl.String,
                                                response_b=pl.String, error_note=pl.String)


#: Fewest items a condition should rest on in a testbed (the README's promise for every content
#: condition); below it the build, ``testbed show`` and the dashboard say which conditions are thin.
MIN_ITEMS = 5
#: What each condition's count of :func:`condition_counts` counts.
CONDITION_UNITS = {"C1": "pairs with a factual fabrication", "C2": "pairs with a logical reversal",
                   "C3": "pairs with a scope-overclaim", "C4": "pairs with a scope-omission",
                   "C5": "pairs with a polished variant", "C6": "pairs with a length-padded variant",
                   "C7": "pairs (each judged in both orders)", "C8": "pairs with a planted-error note"}


def condition_counts(items: pl.DataFrame, benchmark: str) -> dict[str, int]:
    """Base items each condition C1-C8 of ``benchmark`` rests on, from its run items.

    C1-C4: plain items of each planted type; C5 / C6: base items with a polished /
    length-padded variant; C7: base items (both orders are judged); C8: base items with a
    planted-error note (read by a rationale evaluator).

    Parameters
    ----------
    items : polars.DataFrame
        Run items (:data:`RUN_ITEMS_SCHEMA`).
    benchmark : str

    Returns
    -------
    dict
        ``{"C1": n, ..., "C8": n}`` (int, 0 where none).
    """
    from cap_core.schema import CONTENT_FAILURE_TYPES

    b = items.filter(pl.col("benchmark") == benchmark)
    plain = b.filter(pl.col("variant") == "plain")
    out = {c: int((plain["failure_type"] == t).sum()) for c, t in CONTENT_FAILURE_TYPES.items()}
    for c, v in (("C5", "polished"), ("C6", "length_padded")):
        out[c] = b.filter(pl.col("variant") == v)["base_item_id"].n_unique()
    out["C7"] = plain.height
    out["C8"] = int(plain["error_note"].fill_null("").str.strip_chars().str.len_chars().gt(0).sum())
    return {c: out[c] for c in sorted(out)}


def thin_notice(counts: dict[str, int], what: str = "items") -> str | None:
    """The notice for the conditions of ``counts`` with fewer than :data:`MIN_ITEMS` (None when none is)."""
    from cap_core.errors import capped

    thin = [f"{c} {n}" for c, n in counts.items() if n < MIN_ITEMS]
    if not thin:
        return None
    return (f"fewer than {MIN_ITEMS} {what} for {capped(thin)}: a value on so few items says little (add "
            "questions that carry these error types, or check unplantable.csv and variants.csv for why)")


def pair_sha(benchmark: str, base: str, question: str, correct: str, flawed: str) -> str:
    """First 16 hex of the SHA-256 of a pair's texts: names the pair a review line was made on."""
    text = "\x1f".join([benchmark, base, question, correct, flawed])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def pair_items(pairs: pl.DataFrame) -> pl.DataFrame:
    """Plain run items (:data:`RUN_ITEMS_SCHEMA`) of ``pairs`` (their ``correct``, ``flawed`` and ``gold``)."""
    rows = []
    for p in pairs.iter_rows(named=True):
        a, b = (p["correct"], p["flawed"]) if p["gold"] == "A" else (p["flawed"], p["correct"])
        rows.append({"benchmark": p["benchmark"], "item_id": p["base_item_id"], "base_item_id": p["base_item_id"],
                     "subset": p["domain"], "failure_type": p["failure_type"], "variant": "plain", "gold": p["gold"],
                     "flags": p["flags"], "len_a": len(a), "len_b": len(b), "question": p["question"],
                     "response_a": a, "response_b": b, "error_note": p["error_note"]})
    return pl.DataFrame(rows, schema=RUN_ITEMS_SCHEMA)


@dataclass(frozen=True)
class Testbed:
    """A testbed folder read back: its ``manifest`` (dict), ``pairs``, ``variants``, ``attempts``."""

    path: Path
    manifest: dict
    pairs: pl.DataFrame
    variants: pl.DataFrame
    attempts: pl.DataFrame


def read_manifest(path: str | Path) -> dict | None:
    """The manifest of the testbed folder ``path``, or None when ``path`` holds no testbed.

    A folder holds a testbed only when its ``testbed.json`` is a JSON object whose ``format``
    is :data:`FORMAT`: a file of that name written by anything else (a config of the user's)
    does not make the folder a testbed, so it is never rebuilt in place.
    """
    from cap_core.io import parse_json

    f = Path(path).expanduser() / MANIFEST
    if not f.is_file():
        return None
    try:
        manifest = parse_json(f.read_bytes(), file=str(f), what="the testbed manifest")
    except (CAPInputError, OSError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FORMAT else None


def is_testbed(path: str | Path) -> bool:
    """True when ``path`` is a folder holding a testbed manifest of :data:`FORMAT` (:func:`read_manifest`)."""
    return Path(path).expanduser().is_dir() and read_manifest(path) is not None


def load_testbed_dir(path: str | Path) -> Testbed:
    """Read a testbed folder.

    Raises
    ------
    CAPInputError
        Not a folder, no ``testbed.json`` (argument ``testbed``), a manifest of another
        format, or a missing or unreadable table (file named).
    """
    from cap_core.io import parse_json

    p = Path(path).expanduser()
    if not p.is_dir() or not (p / MANIFEST).is_file():
        raise CAPInputError("not a testbed folder", file=str(p), argument="testbed",
                            expected=f"a folder holding {MANIFEST} (written by `testbed build`)",
                            fix="point at the output folder of a testbed build")
    try:
        manifest = parse_json((p / MANIFEST).read_bytes(), file=str(p / MANIFEST), what="the testbed manifest")
    except OSError as exc:
        raise CAPInputError("unreadable testbed manifest", file=str(p / MANIFEST), got=exc.strerror or
                            type(exc).__name__, fix="rebuild the testbed") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CAPInputError("a testbed manifest of another format", file=str(p / MANIFEST), column="format",
                            expected=FORMAT, got=manifest.get("format") if isinstance(manifest, dict) else None,
                            fix="point at a folder written by `testbed build`, or rebuild the testbed")
    tables = {}
    for name, schema in ((PAIRS, PAIRS_SCHEMA), (VARIANTS, RUN_ITEMS_SCHEMA), (ATTEMPTS, None)):
        f = p / name
        try:
            tables[name] = pl.read_parquet(f)
        except Exception:  # noqa: BLE001 - a missing or damaged file, whatever polars raises
            raise CAPInputError("a testbed table is missing or unreadable", file=str(f),
                                fix="rebuild the testbed (testbed build ... --out this folder)") from None
        if schema is not None:
            missing = [c for c in schema if c not in tables[name].columns]
            if missing:
                raise CAPInputError("a testbed table lacks a column", file=str(f), column=missing[0],
                                    expected=", ".join(schema), fix="rebuild the testbed")
    return Testbed(p, manifest, tables[PAIRS], tables[VARIANTS], tables[ATTEMPTS])


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` whole or not at all (:func:`cap_core.outputs.write_file`)."""
    from cap_core.outputs import write_file

    write_file(path, frame.write_parquet)


def _sha256(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def check_output(tb: Testbed, path: str | Path | None, option: str) -> None:
    """Refuse to write the output file ``path`` over a file of the testbed ``tb`` or over the questions
    file it was built from.

    A file of the folder (:data:`FILES`) is refused even before it exists (``review.jsonl``
    appears with the first decision). The manifest keeps the input's name and SHA-256 (not its
    path), so an existing file whose content has that digest is the user's questions file
    wherever it lies.

    Raises
    ------
    CAPInputError
        Either case (argument ``option``).
    """
    if path is None:
        return
    p = Path(path).expanduser()
    if p.name in FILES and p.absolute().parent.resolve() == tb.path.resolve():
        raise CAPInputError(f"the output would replace the testbed's own {p.name}", argument=option, got=str(p),
                            expected="a path outside the testbed folder, or a name the testbed does not use",
                            fix="write the output to another path; the testbed stays as it is")
    want = (tb.manifest.get("input") or {}).get("sha256")
    if want and p.is_file() and _sha256(p) == want:
        raise CAPInputError("the output file is the questions file this testbed was built from", argument=option,
                            got=str(p), expected="a new file, or one that is not an input",
                            fix="write the output to another path; the questions file stays as it is")
