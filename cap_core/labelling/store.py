"""Human labels of your own pairs: the items to label, the seeded presentation, the append-only file.

Flow (the Labelling page, :mod:`app_pages.labelling`, is a thin view over these functions):

1. :func:`read_pairs` reads a user's table with ``question``, ``response_a``, ``response_b``
   (``item_id``, ``benchmark``, ``subset`` optional; no gold: that is what the labeller gives).
2. :func:`shown_swapped` decides, from a seed and the item id, whether the pair is shown in
   the original order (``AB``) or swapped (``BA``); the shown order is recorded with the label,
   so a reader can check position effects of the labeller too.
3. :class:`LabelStore` appends one JSON line per label to a file (``<runs>/labels/<benchmark>-
   <first 12 hex of the items' SHA-256>.jsonl`` by :func:`labels_path`): flushed and synced
   after each line, never rewritten, so a crash loses at most the line being written and a
   reload resumes at the first unlabelled item. A later line for the same item replaces the
   earlier one (relabelling appends).
4. :func:`labelled_items` turns the labels into CAP items (gold in the ORIGINAL letters);
   :func:`labelled_dataset` joins them with judgments of the same items into a
   :class:`cap_core.Dataset`, so the labelled pairs work as a benchmark on every page, and
   :func:`export_benchmark` writes them with their texts as an ``items.parquet`` that the
   judging runs read.

A label line: ``{"v": 1, "benchmark", "item_id", "shown": "AB"|"BA", "picked": "A"|"B"|"tie"
(the letter of the screen), "label": "A"|"B"|"tie" (original letters), "note", "seed",
"items_sha", "ts"}``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.io import parse_json, read_table
from cap_core.schema import MAX_ID_LENGTH, unswap

__all__ = ["TEXT_COLUMNS", "CHOICES", "read_pairs", "items_sha", "shown_swapped", "labels_path", "LabelStore",
           "labelled_items", "labelled_dataset", "export_benchmark", "to_original", "next_unlabelled"]

TEXT_COLUMNS = ("question", "response_a", "response_b")
#: What the labeller may pick, in the letters of the screen.
CHOICES = ("A", "B", "tie")


def items_sha(data: bytes) -> str:
    """SHA-256 (hex) of the items file's bytes: names the labels file of exactly these items."""
    return hashlib.sha256(data).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).strip("_") or "mine"


def read_pairs(name: str, data: bytes) -> pl.DataFrame:
    """The pairs to label from a table (CSV, TSV, JSONL, JSON or Parquet; ``name`` gives the format).

    Returns
    -------
    polars.DataFrame
        ``benchmark``, ``item_id``, ``subset``, ``question``, ``response_a``, ``response_b``
        (all String), in file order. ``item_id`` defaults to ``row-<n>`` (the 1-based row),
        ``benchmark`` to the file's stem, ``subset`` to ``all``.

    Raises
    ------
    CAPInputError
        From :func:`cap_core.io.read_table`; a missing text column (naming the columns
        found), an empty text (file, row and column), a repeated or over-long ``item_id``.
    """
    frame, _ = read_table(name, kind="items to label", data=data)
    missing = [c for c in TEXT_COLUMNS if c not in frame.columns]
    if missing:
        raise CAPInputError("the items to label lack a text column", file=name, column=missing[0],
                            expected="columns " + ", ".join(TEXT_COLUMNS), got=sorted(frame.columns),
                            fix="give every row the question and both responses")
    n = frame.height
    cols = {
        "benchmark": (frame["benchmark"].cast(pl.String) if "benchmark" in frame.columns
                      else pl.Series([_slug(Path(name).stem)] * n)),
        "item_id": (frame["item_id"].cast(pl.String) if "item_id" in frame.columns
                    else pl.Series([f"row-{i}" for i in range(1, n + 1)])),
        "subset": frame["subset"].cast(pl.String) if "subset" in frame.columns else pl.Series(["all"] * n),
        **{c: frame[c].cast(pl.String) for c in TEXT_COLUMNS},
    }
    out = pl.DataFrame(cols).with_columns(pl.col("subset").fill_null("all"))
    for col in ("benchmark", "item_id", *TEXT_COLUMNS):
        bad = out.with_row_index("_r", offset=1).filter(pl.col(col).is_null() | (pl.col(col).str.strip_chars() == ""))
        if bad.height:
            raise CAPInputError(f"empty {col} in the items to label", file=name, row=int(bad["_r"][0]), column=col,
                                expected="a non-empty value on every row", fix=f"fill {col} on every row")
    long = out.with_row_index("_r", offset=1).filter(pl.col("item_id").str.len_chars() > MAX_ID_LENGTH)
    if long.height:
        raise CAPInputError("item_id too long in the items to label", file=name, row=int(long["_r"][0]),
                            column="item_id", expected=f"at most {MAX_ID_LENGTH} characters",
                            fix="shorten the ids (a long id usually means a misplaced text column)")
    dup = out.with_row_index("_r", offset=1).filter(pl.struct("benchmark", "item_id").is_duplicated())
    if dup.height:
        rows = dup.filter(pl.col("item_id") == dup["item_id"][0])["_r"].to_list()
        raise CAPInputError("repeated item_id in the items to label", file=name, row=int(rows[1]), column="item_id",
                            expected="each item_id once", got=dup["item_id"][0],
                            fix=f"give row {rows[1]} its own id (row {rows[0]} has the same one)")
    return out


def shown_swapped(item_id: str, seed: int, benchmark: str = "") -> bool:
    """Whether the pair is shown with the responses swapped (``BA``).

    A fair coin per item from SHA-256 of ``"<seed>:<benchmark>:<item_id>"``: the same seed
    shows every item the same way on every machine and after every reload; another seed
    draws again.
    """
    digest = hashlib.sha256(f"{int(seed)}:{benchmark}:{item_id}".encode("utf-8")).digest()
    return digest[0] % 2 == 1


def to_original(picked: str, shown: str) -> str:
    """The screen's letter -> the original letter (``BA`` swaps A and B; a tie stays a tie)."""
    if picked not in CHOICES:
        raise CAPInputError("unknown choice", argument="picked", expected="A, B or tie", got=picked)
    return unswap(picked, shown)


def labels_path(runs_dir: Path | str, benchmark: str, sha: str) -> Path:
    """``<runs_dir>/labels/<benchmark>-<sha[:12]>.jsonl``: one file per items file content."""
    return Path(runs_dir) / "labels" / f"{_slug(benchmark)}-{sha[:12]}.jsonl"


class LabelStore:
    """The append-only labels file of one items file (see the module docstring).

    Parameters
    ----------
    path : pathlib.Path
        The JSON-lines file (created with its folder on the first label).
    items_sha : str
        SHA-256 of the items file; lines of another items file are refused on reading.
    """

    def __init__(self, path: Path | str, items_sha: str) -> None:
        self.path = Path(path)
        self.items_sha = items_sha

    def read(self) -> tuple[dict[tuple[str, str], dict], list[str]]:
        """The latest label per (benchmark, item_id), and notices.

        A last line cut short (the process stopped while writing it) is skipped with a
        notice; any other unreadable line, or a line of another items file, raises.

        Raises
        ------
        CAPInputError
            A malformed line before the last (file and line named; a line needs label,
            benchmark and item_id), a line whose ``items_sha`` is not this items file's, a
            file that is not UTF-8 (a BOM is allowed).
        """
        if not self.path.is_file():
            return {}, []
        try:
            lines = self.path.read_bytes().decode("utf-8-sig").splitlines()  # an editor's BOM is not a label
        except UnicodeDecodeError:
            raise CAPInputError("the labels file is not UTF-8 text", file=str(self.path),
                                expected="UTF-8 JSON lines written by the Labelling page",
                                fix="save the file as UTF-8 again, or start a new labels file") from None
        latest: dict[tuple[str, str], dict] = {}
        notes = []
        for i, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                rec = parse_json(line, file=str(self.path), row=i)
                if (not isinstance(rec, dict) or rec.get("label") not in CHOICES
                        or rec.get("benchmark") is None or rec.get("item_id") is None):
                    raise ValueError("not a label line")
            except ValueError:  # CAPInputError (malformed or too deep) is a ValueError
                if i == len(lines):
                    notes.append(f"{self.path.name}: the last line was cut short (line {i}) and is ignored; "
                                 "label that item again.")
                    continue
                raise CAPInputError("unreadable line in the labels file", file=str(self.path), row=i,
                                    got=line[:60], fix="remove or repair that line (the file is append-only "
                                                       "JSON lines)") from None
            if rec.get("items_sha") != self.items_sha:
                raise CAPInputError("the labels file belongs to another items file", file=str(self.path), row=i,
                                    column="items_sha", expected=self.items_sha[:12],
                                    got=str(rec.get("items_sha"))[:12],
                                    fix="load the items file these labels were made on, or start a new labels file")
            latest[(str(rec["benchmark"]), str(rec["item_id"]))] = rec
        return latest, notes

    def append(self, *, benchmark: str, item_id: str, shown: str, picked: str, seed: int, note: str = "") -> dict:
        """Write one label line (flushed and synced) and return it.

        Raises
        ------
        CAPInputError
            ``picked`` not A / B / tie, ``shown`` not AB / BA.
        """
        if shown not in ("AB", "BA"):
            raise CAPInputError("unknown presentation order", argument="shown", expected="AB or BA", got=shown)
        rec = {"v": 1, "benchmark": benchmark, "item_id": item_id, "shown": shown, "picked": picked,
               "label": to_original(picked, shown), "note": note or "", "seed": int(seed),
               "items_sha": self.items_sha, "ts": round(time.time(), 3)}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return rec


def next_unlabelled(pairs: pl.DataFrame, latest: dict) -> int | None:
    """0-based position of the first pair (file order) without a label; None when all are labelled."""
    for i, (b, it) in enumerate(zip(pairs["benchmark"], pairs["item_id"])):
        if (b, it) not in latest:
            return i
    return None


def labelled_items(pairs: pl.DataFrame, latest: dict) -> tuple[pl.DataFrame, list[str]]:
    """The labelled pairs as items with texts and gold (original letters), and notices.

    Pairs labelled ``tie`` are left out (CAP gold is A or B) and counted; unlabelled pairs
    are left out.

    Returns
    -------
    polars.DataFrame
        ``benchmark``, ``item_id``, ``subset``, ``gold``, ``question``, ``response_a``,
        ``response_b``, ``label_note``, ``shown`` (String), in file order.
    """
    rows = []
    ties = 0
    for r in pairs.iter_rows(named=True):
        lab = latest.get((r["benchmark"], r["item_id"]))
        if lab is None:
            continue
        if lab["label"] == "tie":
            ties += 1
            continue
        rows.append({**r, "gold": lab["label"], "label_note": lab.get("note") or "", "shown": lab.get("shown")})
    schema = {c: pl.String for c in ("benchmark", "item_id", "subset", "question", "response_a", "response_b",
                                     "gold", "label_note", "shown")}
    frame = pl.DataFrame(rows, schema=schema)
    notes = [f"labels: {frame.height} pairs labelled A or B" + (f"; {ties} labelled tie are left out (gold must "
                                                                 "be A or B)" if ties else "") + "."]
    return frame, notes


def labelled_dataset(items: pl.DataFrame, judgments: pl.DataFrame, notices: list[str] | None = None) -> Dataset:
    """The labelled items with the judgments of those items, as a :class:`Dataset`.

    ``judgments`` (:data:`cap_core.schema.JUDGMENTS_SCHEMA` columns) may cover more items
    or another benchmark name; only the rows of labelled items are kept (matched on
    ``item_id``, the benchmark renamed to the items'). C7 is declared when both orders
    occur.

    Raises
    ------
    CAPInputError
        No judgment of any labelled item (argument ``judgments``), or the schema checks.
    """
    from cap_core.importers._common import (
        ORDER_OPERATOR,
        declaration,
        declarations_frame,
    )

    bench = {i: b for b, i in zip(items["benchmark"], items["item_id"])}
    j = judgments.filter(pl.col("item_id").cast(pl.String).is_in(list(bench)))
    if j.height == 0:
        raise CAPInputError("no judgment of a labelled item", argument="judgments",
                            expected="judgments whose item_id is one of the labelled items",
                            got=f"{judgments.height} judgments of other items",
                            fix="judge the labelled items (export them as a benchmark and run judges on the Live "
                                "run page), or upload the judgments of these items")
    j = j.with_columns(pl.col("item_id").cast(pl.String).replace_strict(bench).alias("benchmark"))
    decl = [declaration(b, "C7", "direct", ORDER_OPERATOR, "order", ["AB", "BA"])
            for b in sorted(set(bench.values())) if set(j.filter(pl.col("benchmark") == b)["order"]) >= {"AB", "BA"}]
    return Dataset.build(items.select("benchmark", "item_id", "subset", "gold"), j, declarations_frame(decl),
                         notices=tuple(notices or ()))


def export_benchmark(items: pl.DataFrame, out_dir: Path | str) -> Path:
    """Write the labelled items with texts as ``<out_dir>/items.parquet`` (read by the judging runs).

    Returns the file's path. Raises OSError when the folder cannot be written.
    """
    from cap_core.outputs import write_file

    return write_file(Path(out_dir) / "items.parquet",
                      items.select("benchmark", "item_id", "subset", "gold", *TEXT_COLUMNS).write_parquet)
