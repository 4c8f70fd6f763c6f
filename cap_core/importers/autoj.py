"""Import Auto-J pairwise judgments (Li et al., 2023; GAIR-NLP/auto-j) into the CAP data model.

Files read (the layout of the Auto-J repository's ``codes/leaderboard/pairwise_eval.py``):

``testdata_pairwise.jsonl`` (the source)
    One line per pair: ``scenario`` (58 scenarios), ``label`` (0 = response 1 better,
    1 = response 2 better, 2 = tie, by human annotators); the texts (``prompt``,
    ``response 1``, ``response 2``) are not needed and not kept.
``<name>.jsonl`` (a judge's predictions)
    One line per source line, in the same order: ``{"output": 0 | 1 | 2}`` with the labels'
    meaning, or Auto-J's generated text, read as Auto-J's ``extract_pariwise_result`` reads
    it (``codes/usage/example.py``): after the last ``final decision is``, ``Response 1``,
    ``Response 2`` or ``tie``; anything else is unparsed.
``<name with "exchange">.jsonl`` (the same judge with the two responses swapped)
    Its outputs are in the swapped presentation's numbers, as Auto-J writes them; they are
    de-swapped here (:data:`cap_core.schema.SWAP`). The file is paired with the prediction
    file whose name is the same without ``exchange_`` / ``_exchange``.

A judge is named by its prediction file without ``_output`` (``pairwise_example``). Items:
benchmark ``autoj``, ``item_id`` the 1-based line of the source, ``subset`` the scenario;
gold ``A`` / ``B`` from labels 0 / 1; a human tie (label 2) has no A/B gold, so those items
keep a null gold (counted in a notice) and count only in the metrics that need none.

Auto-J's own metrics (:func:`autoj_agreement`, ``pairwise_eval.py``) are computed from the
same reading, by the rule of :mod:`cap_core.analyses.source_rules.autoj` (which ``source-metrics``
also applies to an imported ``autoj`` dataset): with both files, *agreement* is the share of pairs whose prediction and
de-swapped exchange prediction both equal the label (a tie label is matched by a tie
prediction), *consistency* the share whose two predictions are equal; with one file
(``single``), agreement is the share of predictions equal to the label. Per scenario group
(:data:`GROUPS`) and ``Overall``. An unparsed prediction (Auto-J's -1) never equals a label
and never agrees (Auto-J's script would stop on it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cap_core.analyses.source_rules.autoj import BENCHMARK, GROUPS, autoj_table, group_of
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped
from cap_core.importers._common import load_jsonl
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset
from cap_core.schema import unswap

__all__ = ["import_autoj", "autoj_agreement", "read_autoj", "autoj_verdict", "GROUPS", "BENCHMARK"]

#: Auto-J's label numbers -> CAP letters (0 = response 1 better).
_LABEL = {0: "A", 1: "B", 2: "tie"}
_DECISION = "final decision is "
_EXCHANGE = re.compile(r"(^|_)exchange(_|$)")


def autoj_verdict(output: object) -> str:
    """One Auto-J prediction -> ``A`` / ``B`` / ``tie`` / ``unparsed``, in the letters it was written in.

    ``0`` / ``1`` / ``2`` (numbers or digit strings) are response 1 / response 2 / tie; a text
    is read after its last ``final decision is`` (case kept as Auto-J keeps it: the phrase is
    matched as written, what follows in lower case): ``response 1``, ``response 2``, ``tie``.
    """
    if isinstance(output, bool):
        return "unparsed"
    if isinstance(output, int) or (isinstance(output, str) and output.strip() in ("0", "1", "2")):
        return _LABEL.get(int(output), "unparsed")
    if not isinstance(output, str):
        return "unparsed"
    text = output.strip()
    pos = text.rfind(_DECISION)
    if pos < 0:
        return "unparsed"
    rest = text[pos + len(_DECISION):].strip().lower()
    for prefix, letter in (("response 1", "A"), ("response 2", "B"), ("tie", "tie")):
        if rest.startswith(prefix):
            return letter
    return "unparsed"


@dataclass(frozen=True)
class _Run:
    """One judge: its predictions in the original order and, if given, the exchanged order (de-swapped)."""

    judge: str
    file: str
    ab: list[str]
    ba_file: str | None
    ba: list[str] | None
    raw_ab: list[object]
    raw_ba: list[object] | None


def _is_source(recs: list[dict]) -> bool:
    return bool(recs) and all("label" in r and "scenario" in r for r in recs[:5])


def _judge_name(stem: str) -> str:
    name = _EXCHANGE.sub(lambda m: "_" if m.group(1) and m.group(2) else "", stem).strip("_")
    return re.sub(r"_output$", "", name) or stem


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CAPInputError("Auto-J path not found", file=str(path),
                            expected="a folder holding testdata_pairwise.jsonl and prediction files",
                            fix="point at the folder (or pass the source file with its prediction files beside it)")
    return sorted(p for p in path.rglob("*.jsonl") if p.is_file())


def read_autoj(path: Path | str) -> tuple[list[dict], list[_Run], list[str]]:
    """One reading of an Auto-J folder: source records, the judges' runs and notices.

    Parameters
    ----------
    path : path
        A folder searched (recursively) for ``*.jsonl``: the source (records with ``label``
        and ``scenario``) and prediction files (records with ``output``). A single source
        file reads the prediction files beside it.

    Returns
    -------
    tuple
        ``(source, runs, notices)``: the source records (``label`` an int 0 / 1 / 2,
        ``scenario``); one run per judge with its verdicts in the original letters.

    Raises
    ------
    CAPInputError
        No source file or two of them, a label other than 0 / 1 / 2, a prediction file
        whose line count differs from the source's (Auto-J requires one line per pair), a
        prediction record without ``output``, an exchange file without its prediction file,
        or no prediction file.
    """
    path = Path(path)
    files = _files(path.parent if path.is_file() else path)
    read = {f: load_jsonl(f) for f in files}
    sources = [f for f, recs in read.items() if _is_source(recs)]
    if len(sources) != 1:
        raise CAPInputError("Auto-J source file not found" if not sources else "more than one Auto-J source file",
                            file=str(path), expected="one testdata_pairwise.jsonl (records with label and scenario)",
                            got=capped(f.name for f in sources) or None,
                            fix="put the Auto-J test file and the prediction files of one test set in the folder")
    src_file = sources[0]
    source = read[src_file]
    for i, r in enumerate(source, start=1):
        if r.get("label") not in (0, 1, 2) or isinstance(r.get("label"), bool):
            raise CAPInputError("Auto-J label outside 0 / 1 / 2", file=src_file.name, row=i, column="label",
                                expected="0 (response 1 better), 1 (response 2 better) or 2 (tie)",
                                got=r.get("label"), fix="use the unmodified testdata_pairwise.jsonl")
    preds: dict[str, tuple[Path, list[str], list[object]]] = {}
    exchanged: dict[str, tuple[Path, list[str], list[object]]] = {}
    for f, recs in read.items():
        if f == src_file or _is_source(recs):
            continue
        if len(recs) != len(source):
            raise CAPInputError("Auto-J prediction file does not line up with the source", file=f.name,
                                expected=f"{len(source)} lines, one per pair of {src_file.name}", got=len(recs),
                                fix="write one {\"output\": ...} line per source line, in the source's order")
        verdicts = []
        for i, r in enumerate(recs, start=1):
            if "output" not in r:
                raise CAPInputError("Auto-J prediction without output", file=f.name, row=i, column="output",
                                    expected='{"output": 0, 1 or 2} or the judge\'s generated text',
                                    got=sorted(r)[:8], fix="write Auto-J's prediction format")
            verdicts.append(autoj_verdict(r["output"]))
        key = _judge_name(f.stem)
        (exchanged if _EXCHANGE.search(f.stem) else preds)[key] = (f, verdicts, [r["output"] for r in recs])
    orphans = sorted(set(exchanged) - set(preds))
    if orphans:
        f = exchanged[orphans[0]][0]
        raise CAPInputError("Auto-J exchange file without its prediction file", file=f.name,
                            expected=f"a prediction file named like {f.name} without 'exchange'",
                            fix="add the original-order predictions of the same judge")
    if not preds:
        raise CAPInputError("no Auto-J prediction file", file=str(path),
                            expected='files of {"output": ...} lines beside the source',
                            fix="add the judge's prediction files (and its exchange files)")
    runs = []
    for key in sorted(preds):
        f, ab, raw_ab = preds[key]
        ba_f, ba, raw_ba = exchanged.get(key, (None, None, None))
        runs.append(_Run(key, f.name, ab, ba_f.name if ba_f else None,
                         [unswap(v, "BA") for v in ba] if ba is not None else None, raw_ab, raw_ba))
    notes = [f"Auto-J: source {src_file.name} ({len(source)} pairs); judges "
             + capped(f"{r.judge} ({'both orders' if r.ba is not None else 'one order'})" for r in runs) + "."]
    return source, runs, notes


def import_autoj(path: Path | str) -> Dataset:
    """Build a :class:`Dataset` from Auto-J's pairwise test file and prediction files.

    Parameters
    ----------
    path : path
        See :func:`read_autoj`.

    Returns
    -------
    Dataset
        Benchmark ``autoj``; items with ``subset`` = scenario and gold A / B (null for a
        human tie); judgments in order ``AB`` (prediction file) and ``BA`` (exchange file,
        de-swapped), C7 declared where both exist. ``notices`` count each judge's verdicts by
        encoding and the tie-labelled items.

    Raises
    ------
    CAPInputError
        As :func:`read_autoj`.
    """
    source, runs, notes = read_autoj(path)
    tally = Tally("Auto-J")
    records = []
    for run in runs:
        for order, fname, verdicts, raws in (("AB", run.file, run.ab, run.raw_ab),
                                              ("BA", run.ba_file, run.ba, run.raw_ba)):
            if verdicts is None:
                continue
            for i, (src, v, raw) in enumerate(zip(source, verdicts, raws), start=1):
                gold = _LABEL[src["label"]]
                shown = raw if not isinstance(raw, str) or len(raw) < 12 else "text"
                tally.add(run.judge, shown, v, f"{autoj_verdict(raw)} as shown in {order}")
                records.append(Verdict(BENCHMARK, str(i), run.judge, order, v, fname, i,
                                       subset=str(src["scenario"]), gold=gold if gold in ("A", "B") else None))
    ties = sum(1 for s in source if s["label"] == 2)
    if ties:
        notes.append(f"Auto-J: {ties} of {len(source)} pairs are labelled a tie by the annotators: CAP's gold is "
                     "A or B, so they have no gold (Auto-J's own agreement counts a tie prediction right on them: "
                     "`source-metrics` gives it).")
    return build_tool_dataset(records, tally, source="Auto-J", notices=notes, path=path)


def autoj_agreement(path: Path | str) -> pl.DataFrame:
    """Auto-J's published metrics per judge and scenario group (``pairwise_eval.py``'s rule).

    Returns
    -------
    polars.DataFrame
        ``judge`` (String), ``type`` (``pairwise`` with an exchange file, else ``single``),
        ``group`` (the groups of :data:`GROUPS` in their order, then ``Overall``), ``n``
        (Int64 pairs), ``agreement`` and ``consistency`` (Float64 percent; consistency null
        for ``single``), unrounded (Auto-J prints them rounded to 2 decimals).

    Raises
    ------
    CAPInputError
        As :func:`read_autoj`; a scenario outside :data:`GROUPS` (named).
    """
    source, runs, _ = read_autoj(path)
    for i, s in enumerate(source, start=1):
        if group_of(s["scenario"]) is None:
            raise CAPInputError("Auto-J scenario outside Auto-J's groups", row=i, column="scenario",
                                got=s["scenario"], expected="one of the 58 scenarios of Auto-J's test set",
                                fix="use the unmodified testdata_pairwise.jsonl")
    return autoj_table([_LABEL[s["label"]] for s in source], [s["scenario"] for s in source],
                       [(run.judge, run.ab, run.ba) for run in runs])
