"""What the importers of other tools' judge files share: verdict tallies, gold, the dataset build.

The four importers (:mod:`~cap_core.importers.alpacaeval`, :mod:`~cap_core.importers.mtbench`,
:mod:`~cap_core.importers.arena_hard`, :mod:`~cap_core.importers.inspect_logs`) each parse
their tool's files into :class:`Verdict` records, in the CAP letters of the item's original
presentation, and hand them to :func:`build_tool_dataset`. One rule per concern lives here:

* :class:`Tally` counts every raw encoding a source used and what it became (``A``, ``B``,
  ``tie``, ``unparsed``); its :meth:`Tally.notices` are the per-judge counts the user sees.
* :func:`canonical_pair` orients a pair of model names (sorted, as FastChat's agreement
  code does), so that files that list the same pair in either order meet on one item.
* :func:`resolve_gold` decides each item's gold label: a label the source carries (inspect's
  ``target``), a gold table (``item_id,gold``), or the majority of the reference judges a
  glob pattern names (e.g. ``expert_*`` in MT-Bench's human judgments). The reference
  judges' rows then leave the judgments, so no judge is scored against itself.
* :func:`judge_files` lists the files of a path (one file, or a folder searched by suffix) and
  :func:`read_each` reads them one by one: a bad file in a folder is reported (one notice per
  file: its name and the reason) and the good ones are kept; only a folder without any good
  file is refused.

Verdict mapping of each tool's encodings lives in that tool's module (one function each);
anything a module does not recognise is ``unparsed`` and is counted.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped, counted
from cap_core.importers._common import ORDER_OPERATOR, declaration, declarations_frame
from cap_core.io import read_table

__all__ = ["Verdict", "Tally", "canonical_pair", "short_hash", "resolve_gold", "build_tool_dataset",
           "repeats_notice", "judge_files", "read_each", "GOLD_FIX"]

GOLD_FIX = ("give --gold-judge a pattern naming reference judges of these files (e.g. 'expert_*' or 'humans'; "
            "their majority becomes gold) or --gold a table with item_id and gold (A/B)")


@dataclass
class Verdict:
    """One judgment read from a tool's file, in the CAP letters of the item's original order.

    ``row`` is the 1-based record (line or list position) of ``file`` it came from.
    """

    benchmark: str
    item_id: str
    judge: str
    order: str
    verdict: str
    file: str
    row: int
    subset: str = "all"
    confidence: float | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    tokens: int | None = None
    gold: str | None = None  # a gold label the source itself carries (inspect ``target``)
    verdict_strength: int | None = None  # a graded verdict's strength (Arena-Hard: 2 >>, 1 >, 0 =)
    judge_prompt: str | None = None  # the judge prompt the source names (FastChat ``pair-v2``)


@dataclass
class Tally:
    """Counts of raw verdict encodings per (judge) and what each became."""

    source: str
    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    finals: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, judge: str, raw: object, mapped: str, meaning: str | None = None) -> str:
        """Record that ``judge`` wrote ``raw``, which the tool means as ``meaning`` (e.g.
        ``output_1``; default ``mapped``) and which became ``mapped`` in the item's CAP
        letters; returns ``mapped``."""
        text = raw if isinstance(raw, str) else repr(raw)
        self.counts[judge][(text, meaning or mapped)] += 1
        self.finals[judge][mapped] += 1
        return mapped

    def notices(self, kept: dict[str, Counter] | None = None) -> list[str]:
        """One line per judge: totals of A / B / tie / unparsed (the item's letters) and the
        raw encodings behind them, with what the tool means by each: the most frequent
        :data:`cap_core.errors.LIST_LIMIT`, then how many more (:func:`cap_core.errors.capped`),
        so a weighted annotator's distinct floats do not fill a page.

        ``kept``: the verdicts per judge that were written (repeated records left out); the totals
        are those, and when fewer than were read the encodings say they are of the records read."""
        out = []
        for judge in sorted(self.counts):
            c = self.counts[judge]
            per = kept[judge] if kept is not None and judge in kept else self.finals[judge]  # reference judges: read
            ranked = sorted(c.items(), key=lambda kv: -kv[1])
            enc = capped(f"{raw!s} = {meaning} x{n}" for (raw, meaning), n in ranked)
            read = sum(c.values())
            of = "encodings" if sum(per.values()) == read else f"encodings of the {read} records read"
            out.append(
                f"{self.source}: judge {judge}: {per['A']} A, {per['B']} B, {per['tie']} tie, "
                f"{per['unparsed']} unparsed ({of}: {enc})."
            )
        return out


def canonical_pair(model_1: str, model_2: str) -> tuple[str, str, bool]:
    """``(a, b, swapped)``: the two model names sorted; ``swapped`` when ``model_1`` is not ``a``.

    A record that presents ``model_1`` first is then the original (``AB``) order of the item
    when not swapped, the ``BA`` order when swapped.
    """
    m1, m2 = str(model_1), str(model_2)
    return (m1, m2, False) if m1 <= m2 else (m2, m1, True)


def short_hash(text: str) -> str:
    """First 12 hex digits of the SHA-1 of ``text`` (an id for records that carry none)."""
    return hashlib.sha1(str(text).encode("utf-8")).hexdigest()[:12]


def _gold_table(path: Path | str) -> dict[str, str]:
    frame, _ = read_table(path, kind="gold")
    name = Path(path).name
    for col in ("item_id", "gold"):
        if col not in frame.columns:
            raise CAPInputError("gold table without a required column", file=name, column=col,
                                expected="columns item_id and gold", got=sorted(frame.columns),
                                fix="write one row per item: item_id (as the import names it) and gold A or B")
    out = {}
    for i, (item, gold) in enumerate(zip(frame["item_id"].cast(pl.String), frame["gold"].cast(pl.String)), start=1):
        g = (gold or "").strip()
        if g not in ("A", "B"):
            raise CAPInputError("gold outside the allowed set", file=name, row=i, column="gold",
                                expected="A or B (the better response in the item's original order)", got=gold,
                                fix="write A or B; leave out items without a clear winner")
        out[str(item)] = g
    return out


def resolve_gold(records: list[Verdict], *, gold_judge: str | None = None, gold_path: Path | str | None = None,
                 source: str) -> tuple[dict[tuple[str, str], str], list[Verdict], list[str]]:
    """Gold per (benchmark, item_id), the records left to profile, and notices.

    Order of precedence: a gold table (``gold_path``), reference judges (``gold_judge``, a
    ``fnmatch`` pattern matched against judge names: the majority of their A/B verdicts
    over every row and order; a tie of votes, or only ties, leaves the item without gold),
    else the labels the source carries (``Verdict.gold``).

    With no gold source at all the gold is empty: the items are kept without gold (a
    preference-only import), and a notice says which metrics that leaves.

    Raises
    ------
    CAPInputError
        A gold table none of whose ids is an item of the import (naming an id the import uses), a
        ``gold_judge`` pattern that matches no judge (naming the judges found), or one that matches
        every judge.
    """
    notes: list[str] = []
    gold: dict[tuple[str, str], str] = {}
    keep = records
    if gold_path is not None:
        table = _gold_table(gold_path)
        for r in records:
            if r.item_id in table:
                gold[(r.benchmark, r.item_id)] = table[r.item_id]
        name = Path(gold_path).name
        if table and not gold and records:  # every id differs from the import's: a gold table of other items
            raise CAPInputError("no item_id of the gold table is an item of this import", file=name,
                                column="item_id", expected=f"ids as the import names its items, e.g. "
                                f"{records[0].item_id!r}", got=next(iter(table)),
                                fix="write the item_id column with the import's ids (the item_id column of items.parquet "
                                    "written by an import without --gold lists them)")
        used = {item for _, item in gold}
        unmatched = [item for item in table if item not in used]
        n_rows = len(unmatched)
        notes.append(f"{source}: gold from {name} for {len(gold)} item{'' if len(gold) == 1 else 's'}."
                     + (f" {n_rows} of its rows {'names' if n_rows == 1 else 'name'} no item of this import "
                        f"(e.g. {unmatched[0]!r}) and {'was' if n_rows == 1 else 'were'} not used." if unmatched else ""))
    elif gold_judge:
        judges = sorted({r.judge for r in records})
        ref = {j for j in judges if fnmatch.fnmatchcase(j, gold_judge)}
        if not ref:
            raise CAPInputError("no judge matches the reference pattern", argument="--gold-judge",
                                expected="a pattern matching one of: " + capped(judges),
                                got=gold_judge, fix="name a judge of these files (wildcards * and ? allowed)")
        if len(ref) == len(judges):
            raise CAPInputError("every judge matches the reference pattern: none would be left to profile",
                                argument="--gold-judge", got=gold_judge,
                                fix="name only the reference judges (e.g. 'expert_*'), or import the judges to "
                                    "profile together with them")
        votes: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for r in records:
            if r.judge in ref and r.verdict in ("A", "B"):
                votes[(r.benchmark, r.item_id)][r.verdict] += 1
        split = 0
        for key, c in votes.items():
            if c["A"] != c["B"]:
                gold[key] = "A" if c["A"] > c["B"] else "B"
            else:
                split += 1
        keep = [r for r in records if r.judge not in ref]
        notes.append(f"{source}: gold is the majority verdict of {counted(len(ref), 'reference judge')} "
                     f"({capped(sorted(ref))}) on {counted(len(gold), 'item')}; {counted(split, 'item')} with split "
                     f"votes {'has' if split == 1 else 'have'} no gold; the reference judges' rows are not profiled.")
    else:
        for r in records:
            if r.gold in ("A", "B"):
                gold.setdefault((r.benchmark, r.item_id), r.gold)
    if not gold:
        notes.append(f"{source}: no gold label for any item: the source's own metrics and the gold-free CAP "
                     "ones (C7 pure consistency, tie and unparsed rates) are computed; accuracy metrics are marked "
                     "'needs gold' (to add gold, " + GOLD_FIX + ").")
    return gold, keep, notes


def _shown_paths(paths: list[str]) -> dict[str, str]:
    """Each path as shown in a notice: relative to the folder all of them share (whole when they share none)."""
    import os

    distinct = sorted(set(paths))
    try:
        root = os.path.commonpath(distinct) if len(distinct) > 1 else os.path.dirname(distinct[0])
    except ValueError:  # mixed absolute and relative paths
        root = ""
    if root and all(p != root for p in distinct):
        return {p: os.path.relpath(p, root) for p in distinct}
    return {p: p for p in distinct}


def repeats_notice(repeats: Counter) -> str:
    """Which files' records were left out as repeats, and of which file: ``"Left out: 805 of
    a/annotations.json (repeating b/annotations.json), ..."`` (the largest first, capped by
    :func:`cap_core.errors.capped`); a file repeating itself says ``within the file``.

    ``repeats`` maps ``(file left out, file kept)`` to the number of records."""
    if not repeats:
        return ""
    shown = _shown_paths([f for pair in repeats for f in pair])
    parts = [f"{n} of {shown[out]} ({'within the file' if out == kept else 'repeating ' + shown[kept]})"
             for (out, kept), n in sorted(repeats.items(), key=lambda kv: (-kv[1], kv[0]))]
    return f"Left out: {capped(parts, sep='; ')}."


def build_tool_dataset(records: list[Verdict], tally: Tally, *, source: str, gold_judge: str | None = None,
                       gold_path: Path | str | None = None, notices: list[str] | None = None,
                       path: Path | str | None = None) -> Dataset:
    """Items, judgments and declarations from parsed records (see the module docstring).

    Items without gold are kept with a null gold (counted in a notice): they count in the
    metrics that need no gold (:mod:`cap_core.verdicts`); a second record for the same
    (judge, benchmark, item_id, order) is left out and counted (the first one read wins; the
    notice names the files whose records were left out and the file each repeats,
    :func:`repeats_notice`). C7 (position) is declared ``direct`` for a benchmark whose
    judgments hold both orders of some item.

    Returns
    -------
    Dataset
        Validated tables (:mod:`cap_core.schema`); ``notices`` hold the tallies.

    Parameters
    ----------
    path : path, optional
        What was read (named in the errors).

    Raises
    ------
    CAPInputError
        No record at all (an empty file: ``path`` named); from :func:`resolve_gold`; no
        judgment left to profile once the reference judges are set aside (naming the gold
        option given).
    """
    if not records:
        raise CAPInputError(f"no judgment in the {source} files", file=None if path is None else str(path),
                            expected="the tool's judgment records", got="no record (an empty file?)",
                            fix="give the files the tool wrote, with their records")
    notes = list(notices or [])
    gold, keep, more = resolve_gold(records, gold_judge=gold_judge, gold_path=gold_path, source=source)
    notes += more
    items: dict[tuple[str, str], dict] = {}
    judg: dict[tuple, dict] = {}
    first_file: dict[tuple, str] = {}
    repeats: Counter[tuple[str, str]] = Counter()  # (file left out, file kept) -> records
    dup = no_gold = 0
    for r in keep:
        key = (r.benchmark, r.item_id)
        if key not in items:
            no_gold += key not in gold
            items[key] = {"benchmark": r.benchmark, "item_id": r.item_id, "subset": r.subset, "gold": gold.get(key)}
        jkey = (r.judge, r.benchmark, r.item_id, r.order)
        if jkey in judg:
            dup += 1
            repeats[(r.file, first_file[jkey])] += 1
            continue
        first_file[jkey] = r.file
        judg[jkey] = {"judge": r.judge, "benchmark": r.benchmark, "item_id": r.item_id, "order": r.order,
                      "verdict": r.verdict, "confidence": r.confidence, "cost_usd": r.cost_usd,
                      "latency_s": r.latency_s, "tokens": r.tokens, "verdict_strength": r.verdict_strength,
                      "judge_prompt": r.judge_prompt}
    if no_gold and gold:
        notes.append(f"{source}: {no_gold} of {counted(len(items), 'item')} {'has' if no_gold == 1 else 'have'} no "
                     "gold label: they count only in metrics "
                     "that need none (C7 pure consistency).")
    if dup:
        notes.append(f"{source}: {dup} repeated judgments (same judge, item and order) left out; the first was kept. "
                     + repeats_notice(repeats))
    if not judg:
        raise CAPInputError(f"no judgment left to profile in the {source} files",
                            file=None if path is None else str(path),
                            argument="--gold-judge" if gold_judge else "--gold",
                            expected="judgments of items that are not the reference judges' own",
                            fix="check that the gold labels name the items of these files; " + GOLD_FIX)
    kept: dict[str, Counter] = defaultdict(Counter)
    for j in judg.values():
        kept[j["judge"]][j["verdict"]] += 1
    notes += tally.notices(kept)
    orders = defaultdict(set)
    for (_, bench, item, order) in judg:
        orders[(bench, item)].add(order)
    decl = [declaration(b, "C7", "direct", ORDER_OPERATOR, "order", ["AB", "BA"])
            for b in sorted({b for (b, _), o in orders.items() if len(o) == 2})]
    schema = {"confidence": pl.Float64, "cost_usd": pl.Float64, "latency_s": pl.Float64, "tokens": pl.Int64,
              "verdict_strength": pl.Int8, "judge_prompt": pl.String}
    jframe = pl.DataFrame(list(judg.values()), schema={"judge": pl.String, "benchmark": pl.String,
                                                       "item_id": pl.String, "order": pl.String,
                                                       "verdict": pl.String, **schema})
    iframe = pl.DataFrame(list(items.values()), schema={"benchmark": pl.String, "item_id": pl.String,
                                                        "subset": pl.String, "gold": pl.String})
    return Dataset.build(iframe, jframe, declarations_frame(decl), notices=tuple(notes))


def judge_files(path: Path | str, suffixes: tuple[str, ...], *, source: str, expected: str, fix: str,
                skip=None) -> list[Path]:
    """The judgment files at ``path``: the file itself, or a folder's files (searched recursively)
    whose suffix is in ``suffixes``, sorted (``skip(path)`` True leaves a file out).

    Raises
    ------
    CAPInputError
        ``path`` does not exist, or a folder holds no such file (``expected`` and ``fix`` say
        which files the tool writes).
    """
    p = Path(path)
    if p.is_file():
        return [p]
    if p.is_dir():
        found = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in suffixes
                       and not (skip is not None and skip(f)))
        if found:
            return found
        raise CAPInputError(f"no {source} files in the folder", file=str(p), expected=expected, fix=fix)
    raise CAPInputError(f"{source} files not found", file=str(p), expected=expected,
                        fix="check the path: " + fix)


def read_each(files: list[Path], read, *, source: str) -> tuple[list, list[str]]:
    """Read every file with ``read(path)`` (a list of records each); a bad file does not lose the others.

    Parameters
    ----------
    files : list of pathlib.Path
        From :func:`judge_files`.
    read : callable
        Returns the file's records, raising :class:`CAPInputError` for a file it cannot use.
    source : str
        The tool's name, for the notices.

    Returns
    -------
    (records, notices)
        The records of the good files in file order, and one notice per bad file naming it
        and the reason (the error's one line).

    Raises
    ------
    CAPInputError
        Every file is bad: the first file's error (with the number of other bad files added
        to its problem when there are several).
    """
    records, notices, errors = [], [], []
    for f in files:
        try:
            records += read(f)
        except CAPInputError as err:
            err = err.with_file(str(f))
            errors.append(err)
            notices.append(f"{source}: skipped {f.name}: {err}")
    if errors and len(errors) == len(files):
        first = errors[0]
        if len(errors) > 1:
            first = first.replace(problem=f"{first.problem} (and {len(errors) - 1} other file(s) of the folder "
                                          "could not be read either)")
        raise first
    return records, notices
