"""Import inspect_ai eval logs of a pairwise judging task into the CAP data model.

inspect_ai is not a dependency (it pulls a large stack); its documented log format is read
directly (UKGovernmentBEIS/inspect_ai, ``docs/eval-logs.qmd`` and ``inspect_ai/log``):

* ``.json`` logs: one object with ``eval`` (``task``, ``model``, ...), ``status`` and
  ``samples`` (a list).
* ``.eval`` logs (the default since inspect 0.3.46): a ZIP archive holding ``header.json``
  (the same object without samples; ``_journal/start.json`` in a log whose run stopped) and
  one ``samples/<id>_epoch_<n>.json`` per sample. Members stored or deflated are read with
  the standard library; inspect 0.3.206 and later compress them with Zstandard, read when the
  ``zstandard`` package is installed (else the error says how to convert the log).

Each sample (``EvalSample``) has ``id``, ``epoch``, ``target``, ``scores`` (scorer name ->
``{value, answer, explanation, metadata}``), ``output`` (``completion``, ``usage``) and
``metadata``. For a pairwise judge task this importer reads, per sample:

=================  ========================================================================
CAP field          read from
=================  ========================================================================
judge              ``eval.model`` (e.g. ``openai/gpt-4o``)
benchmark          ``metadata.benchmark``, else ``eval.task``
item_id            ``metadata.item_id``, else the sample ``id``
order              ``metadata.order`` (``AB`` / ``BA``: the presentation the prompt
                   used; required)
verdict            the first scorer's ``answer``, else ``output.completion`` (see
                   :func:`answer_verdict`), in the prompt's letters, mapped back for ``BA``
gold               ``target`` (``A`` / ``B`` in the prompt's letters), mapped back for ``BA``
subset             ``metadata.subset``, else ``all``
tokens, latency_s  ``output.usage.total_tokens``; ``total_time`` of the sample
=================  ========================================================================

Later epochs of a sample repeat its judgment: the first epoch read is kept (counted).

**Only pairwise judging logs are read** (:data:`PAIRWISE_NEEDS`, checked by
:func:`check_pairwise`): every sample's ``target`` is ``A`` or ``B``, its ``metadata.order`` is
``AB`` or ``BA``, and it offers no ``choices`` other than the two responses. A log of any
other task (a multiple-choice MMLU run: four choices, targets ``A``-``D``) is refused with one
line saying so, never read as judgments (its answer ``C`` is not a tie). In a folder, each
log that cannot be read is skipped with a notice naming it and the reason; only a folder
without a readable pairwise log is refused.
"""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.importers._common import load_json
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset, judge_files, read_each
from cap_core.io import parse_json, read_unpacked
from cap_core.schema import unswap

__all__ = ["import_inspect", "answer_verdict", "read_log", "check_pairwise", "PAIRWISE_NEEDS"]

_ZSTD = 93  # ZIP compression method id of Zstandard
_WORDS = {"A": "A", "B": "B", "TIE": "tie", "A=B": "tie", "DRAW": "tie", "EQUAL": "tie"}
#: What a log must hold to be read as pairwise judgments (the one line of a refusal).
PAIRWISE_NEEDS = ("a pairwise judging log: each sample's target A or B (the better response, in the prompt's "
                  "letters), metadata.order AB or BA (which presentation the prompt used) and no choices other "
                  "than the two responses")
_PREFIX = re.compile(r"^(?:RESPONSE|OUTPUT|ASSISTANT|ANSWER)\s*[:(]?\s*", re.I)


def answer_verdict(text: object) -> str:
    """A judge's answer text -> ``A`` / ``B`` / ``tie`` (prompt letters) or ``unparsed``.

    Case, surrounding brackets (``[[A]]``, ``(B)``), a trailing period and a leading
    ``Response`` / ``Output`` / ``Assistant`` / ``Answer`` word are ignored; ``tie``, ``A=B``,
    ``draw`` and ``equal`` mean a tie. Anything longer or different (``C``, a third option of
    a multiple-choice task) is unparsed (a free-text completion is not guessed at).
    """
    if not isinstance(text, str):
        return "unparsed"
    s = text.strip().strip("[]()*`'\". ").upper()
    s = _PREFIX.sub("", s).strip("[]()*`'\". ")
    return _WORDS.get(s, "unparsed")


def _zip_member(zf: zipfile.ZipFile, name: str, path: Path) -> object:
    info = zf.getinfo(name)
    if info.compress_type == _ZSTD:
        try:
            import zstandard  # optional; not a dependency of the product
        except ImportError:
            raise CAPInputError("this .eval log is compressed with Zstandard (inspect 0.3.206 or later)",
                                file=str(path), column=name, expected="stored or deflated ZIP members, or the "
                                "zstandard package", fix="convert it with `inspect log convert LOG --to json "
                                "--output-dir DIR` and import the .json, or `pip install zstandard`") from None
        with open(path, "rb") as fh:  # the member's raw bytes after its local header
            fh.seek(info.header_offset)
            head = fh.read(30)
            name_len, extra_len = struct.unpack("<HH", head[26:30])
            fh.seek(info.header_offset + 30 + name_len + extra_len)
            raw = fh.read(info.compress_size)
        data = read_unpacked(zstandard.ZstdDecompressor().stream_reader(raw), file=str(path), member=name,
                             what="a member of the .eval log")
    else:  # counted while unpacking (cap_core.io.MAX_UNPACKED_BYTES): the sizes the archive declares are not trusted
        with zf.open(name) as src:
            data = read_unpacked(src, file=str(path), member=name, what="a member of the .eval log")
    try:
        return parse_json(data, file=str(path), what="the .eval log")
    except CAPInputError as err:
        raise err.replace(column=name) from None


def _read_eval_zip(path: Path) -> tuple[dict, list[tuple[str, dict]]]:
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise CAPInputError("not an inspect .eval log", file=str(path), expected="a ZIP archive with header.json and "
                            "samples/*.json", fix="pass a log written by inspect eval (.eval or .json)") from None
    with zf:
        names = zf.namelist()
        head_name = next((n for n in ("header.json", "_journal/start.json") if n in names), None)
        if head_name is None:
            raise CAPInputError("inspect .eval log without header.json", file=str(path), expected="header.json "
                                "(or _journal/start.json)", got=sorted(names)[:6], fix="pass a complete .eval log")
        header = _zip_member(zf, head_name, path)
        samples = [(n, _zip_member(zf, n, path)) for n in sorted(names)
                   if n.startswith("samples/") and n.endswith(".json")]
    return header, samples


def _sample_list(log: object, path: Path) -> tuple[dict, list[tuple[str, dict]]]:
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise CAPInputError("not an inspect eval log", file=str(path), column="eval",
                            expected="an object with eval (task, model) and samples",
                            got=sorted(log)[:8] if isinstance(log, dict) else type(log).__name__,
                            fix="pass a log written by inspect eval (.eval or .json)")
    samples = log.get("samples") or []
    return log, [(f"samples[{i}]", s) for i, s in enumerate(samples)]


def _target(sample: dict) -> str | None:
    """A sample's target as ``A`` / ``B`` (a one-element list unwrapped), else None."""
    t = sample.get("target")
    t = t[0] if isinstance(t, list) and len(t) == 1 else t
    t = t.strip().upper() if isinstance(t, str) else None
    return t if t in ("A", "B") else None


def check_pairwise(samples: list[tuple[str, object]], *, task: str, path: Path) -> None:
    """Refuse a log that is not a pairwise judging log (:data:`PAIRWISE_NEEDS`).

    ``samples`` are ``(where, sample)`` pairs as read from the log. Checked per sample, in
    order: an object; ``choices`` absent or exactly two; ``target`` A or B; ``metadata.order``
    AB or BA.

    Raises
    ------
    CAPInputError
        Naming the file, the first offending sample (row and field), what a pairwise log
        needs and what was found.
    """
    problem = f"not a pairwise judging log (task {task})"
    fix = ("import the log of a pairwise judge task; a multiple-choice or other task has no pair of responses to "
           "profile")
    for row, (where, s) in enumerate(samples, start=1):
        if not isinstance(s, dict):
            raise CAPInputError("inspect sample is not an object", file=str(path), row=row, column=where,
                                expected=PAIRWISE_NEEDS, got=type(s).__name__, fix=fix)
        choices = s.get("choices")
        if choices and (not isinstance(choices, list) or len(choices) != 2):
            raise CAPInputError(problem, file=str(path), row=row, column=f"{where}.choices", expected=PAIRWISE_NEEDS,
                                got=f"{len(choices) if isinstance(choices, list) else type(choices).__name__} choices",
                                fix=fix)
        if _target(s) is None:
            raise CAPInputError(problem, file=str(path), row=row, column=f"{where}.target", expected=PAIRWISE_NEEDS,
                                got=s.get("target"), fix=fix)
        meta = s.get("metadata")
        order = meta.get("order") if isinstance(meta, dict) else None
        if order not in ("AB", "BA"):
            raise CAPInputError(problem, file=str(path), row=row, column=f"{where}.metadata.order",
                                expected=PAIRWISE_NEEDS, got=order,
                                fix="give every sample metadata.order: AB when the prompt showed the original "
                                    "response A first, BA when it showed them swapped")


def read_log(path: Path, tally: Tally) -> list[Verdict]:
    """The verdicts of one inspect log (``.json`` or ``.eval``), per the module table.

    Raises
    ------
    CAPInputError
        Not an inspect log, a log without samples, not a pairwise judging log
        (:func:`check_pairwise`), a sample without ``scores`` (file, sample and field
        named), a Zstandard log without ``zstandard``.
    """
    if path.suffix == ".eval":
        header, samples = _read_eval_zip(path)
        if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
            raise CAPInputError("not an inspect eval log", file=str(path), column="header.json",
                                expected="an object with eval (task, model)", fix="pass a complete .eval log")
    else:
        header, samples = _sample_list(load_json(path), path)
    if not samples:
        raise CAPInputError("inspect log without samples", file=str(path), column="samples",
                            expected="at least one sample", got=header.get("status"),
                            fix="re-run the eval to completion (or without --no-log-samples)")
    ev = header["eval"]
    judge = str(ev.get("model") or "unknown-model")
    task = str(ev.get("task") or "inspect").split("/")[-1]
    check_pairwise(samples, task=task, path=path)
    out = []
    for row, (where, s) in enumerate(samples, start=1):
        if not isinstance(s.get("scores"), dict) or not s["scores"]:
            raise CAPInputError("inspect sample without scores", file=str(path), row=row, column=f"{where}.scores",
                                expected="a scored sample (the judge's answer A, B or tie in a scorer's answer)",
                                got=s.get("scores"), fix="score the log (`inspect score LOG`) before importing it")
        meta = s.get("metadata") or {}
        order = str(meta["order"])
        score = next(iter(s["scores"].values()))
        raw = score.get("answer") if isinstance(score, dict) else None
        if raw is None:
            raw = (s.get("output") or {}).get("completion")
        letter = answer_verdict(raw)
        gold = _target(s)
        gold = unswap(gold, order)
        verdict = tally.add(judge, raw if raw is None or len(str(raw)) <= 20 else str(raw)[:20] + "…",
                            unswap(letter, order),
                            {"A": "prompt's A", "B": "prompt's B"}.get(letter, letter))
        usage = (s.get("output") or {}).get("usage") or {}
        tokens = usage.get("total_tokens")
        latency = s.get("total_time")
        out.append(Verdict(
            benchmark=str(meta.get("benchmark") or task), item_id=str(meta.get("item_id", s.get("id", row))),
            judge=judge, order=order, verdict=verdict, file=path.name, row=row,
            subset=str(meta.get("subset") or "all"), gold=gold,
            tokens=int(tokens) if isinstance(tokens, int) and tokens >= 0 else None,
            latency_s=float(latency) if isinstance(latency, (int, float)) and latency >= 0 else None,
        ))
    out.sort(key=lambda v: v.row)
    return out


def import_inspect(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None) -> Dataset:
    """Build a :class:`Dataset` from inspect_ai eval logs of a pairwise judging task.

    Parameters
    ----------
    path : pathlib.Path or str
        A ``.eval`` / ``.json`` log or a folder of them (one log per judge model). In a
        folder, a log that cannot be read (another task's log, a damaged file) is skipped
        with a notice naming it and the reason; the good logs are imported.
    gold_judge, gold
        Override the samples' ``target`` as gold (:func:`cap_core.importers._tools.resolve_gold`).

    Returns
    -------
    Dataset
        One benchmark per task (or ``metadata.benchmark``); C7 declared when both orders occur.

    Raises
    ------
    CAPInputError
        No readable pairwise log at ``path`` (the first log's error, see :func:`read_log`).
    """
    tally = Tally("inspect")
    files = judge_files(path, (".eval", ".json"), source="inspect log", expected="*.eval or *.json logs",
                        fix="point at inspect's log folder (./logs by default)",
                        skip=lambda f: f.name.startswith("logs.json"))
    records, notices = read_each(files, lambda f: read_log(f, tally), source="inspect")
    return build_tool_dataset(records, tally, source="inspect", gold_judge=gold_judge, gold_path=gold,
                              notices=notices, path=path)
