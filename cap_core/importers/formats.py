"""The one registry of import formats: every kind the CLI, the notebook API and the dashboard read.

``python -m cap_core import KIND PATH`` (and ``--format KIND``), :func:`cap_core.api.import_source`
and the dashboard's upload all take their list of kinds, the options each kind takes, and the
reader they call from :data:`FORMATS`; :func:`read` is the single entry point, and
:func:`check_options` the single place an option is checked (an option a kind does not take is
refused, naming it).

=============  ==========================================================================
kind           reads
=============  ==========================================================================
``table``      your own items / judgments tables (:mod:`cap_core.importers.generic`)
``llmbar``     LLMBar's Dataset folder with its evaluators' outputs
``judgebench`` JudgeBench's folder (data/ pairs, outputs/ judges), optionally a fork
``pandalm``    PandaLM's test set with its two judges' outputs
``alpacaeval`` AlpacaEval annotations.json files
``mtbench``    FastChat MT-Bench pairwise judgments (model and human)
``arena-hard`` Arena-Hard-Auto model_judgment files
``inspect``    inspect_ai eval logs of a pairwise judging task
``autoj``      Auto-J's pairwise test file with prediction (and exchange) files
``rewardbench`` RewardBench per-item scores files (eval-set-scores/)
=============  ==========================================================================

Options (:data:`OPTIONS`; the CLI spells them ``--gold-judge`` etc.): ``gold_judge`` and
``gold`` (the tools' reference), ``baseline`` (Arena-Hard v0.1), ``strategies`` (LLMBar),
``fork`` (JudgeBench), ``judgments`` and ``declarations`` (table).
"""

from __future__ import annotations

import importlib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cap_core.errors import CAPInputError, capped
from cap_core.io import parse_json

__all__ = ["ImportFormat", "FORMATS", "KINDS", "OPTIONS", "PATH_OPTIONS", "FIELDS", "flag", "check_options", "read",
           "detect", "describe"]

#: Every option a format may take -> what it is (one line; the CLI's help and the dashboard's labels).
OPTIONS: dict[str, str] = {
    "gold_judge": "pattern of the reference judges whose majority becomes gold, e.g. 'expert_*'",
    "gold": "a table with item_id and gold (A/B) giving each item's gold label",
    "baseline": "the baseline model of Arena-Hard v0.1 files (their records do not name it)",
    "strategies": "LLMBar prompting strategies to import, comma-separated, e.g. Vanilla_NoRules,CoT,Rating "
                  "(default: every strategy present with both orders, in the LLMBar and the Processed sets)",
    "fork": "a JudgeBench fork's folder: judge output files named like JudgeBench's "
            "(dataset=judgebench,response_model=M,judge_name=J,judge_model=X.jsonl) in it or in its outputs/ folder; "
            "rubric files (judge_name=rubric, score_A/score_B per judgment, -1 = parse failure) and arena_hard-style "
            "files (a decision per judgment) are read, for pairs of the JudgeBench folder's data/",
    "judgments": "the judgments table (without it the path holds judgments joined with item columns)",
    "declarations": "a coverage declarations table",
}
#: The options whose value is a file or folder.
PATH_OPTIONS: tuple[str, ...] = ("gold", "fork", "judgments", "declarations")
#: The dashboard's field for each option it offers (the sidebar's labels; the readers' messages name the
#: CLI's flag, :func:`flag`, and an upload's messages name these fields instead).
FIELDS: dict[str, str] = {
    "gold_judge": "Reference judges (their majority is gold)",
    "gold": "Gold table (optional)",
    "baseline": "Baseline model",
    "strategies": "Strategies (comma-separated)",
    "judgments": "Judgments table (optional)",
    "declarations": "Coverage declarations (optional)",
}


def flag(name: str) -> str:
    """The CLI's flag of option ``name``: ``--gold-judge`` for ``gold_judge``."""
    return "--" + name.replace("_", "-")
_GOLD = ("gold_judge", "gold")


@dataclass(frozen=True)
class ImportFormat:
    """One import kind.

    Attributes
    ----------
    kind : str
        The name the CLI, the API and the dashboard use.
    title : str
        Display name.
    description : str
        One line: what the format is.
    path : str
        What the path must look like.
    options : tuple of str
        The keys of :data:`OPTIONS` this kind takes.
    reader : str
        ``"module:function"`` called as ``function(path, **arguments)`` (imported on first use).
    arguments : dict
        Option name -> the reader's argument name, where they differ.
    folder : bool
        The reader needs a folder laid out as the tool lays it out (an upload is a .zip of it).
    """

    kind: str
    title: str
    description: str
    path: str
    options: tuple[str, ...]
    reader: str
    arguments: tuple[tuple[str, str], ...] = ()
    folder: bool = False

    def function(self) -> Callable[..., Any]:
        """The reader function (its module imported now)."""
        module, name = self.reader.split(":")
        return getattr(importlib.import_module(module), name)


FORMATS: dict[str, ImportFormat] = {f.kind: f for f in (
    ImportFormat("table", "Your own tables (CAP schema)",
                 "items and judgments tables in the documented schema (CSV, TSV, JSONL, JSON or Parquet)",
                 "the items table, or one table of judgments joined with their item columns",
                 ("judgments", "declarations"), "cap_core.importers.generic:import_table",
                 (("judgments", "judgments_path"), ("declarations", "declarations_path"))),
    ImportFormat("llmbar", "LLMBar", "LLMBar's items with its evaluators' outputs (both orders)",
                 "the LLMBar repository or its Dataset/ folder (evaluators/<model>/<strategy>/result.json)",
                 ("strategies",), "cap_core.importers.llmbar:import_llmbar", folder=True),
    ImportFormat("judgebench", "JudgeBench", "JudgeBench pairs with its judges' outputs (both orders)",
                 "the JudgeBench folder holding data/ and outputs/", ("fork",),
                 "cap_core.importers.judgebench:import_judgebench", (("fork", "fork_root"),), folder=True),
    ImportFormat("pandalm", "PandaLM", "PandaLM's human-annotated test set with GPT-3.5 and PandaLM-7B verdicts",
                 "the PandaLM folder (or its data/ folder) with testset-v1.json, gpt-3.5-turbo-testset-v1.json "
                 "and pandalm-7b-testset-v1.json", (), "cap_core.importers.pandalm:import_pandalm"),
    ImportFormat("alpacaeval", "AlpacaEval", "AlpacaEval annotations (a preference per pair and annotator)",
                 "an annotations.json or a folder searched for them (e.g. results/)", _GOLD,
                 "cap_core.importers.alpacaeval:import_alpacaeval"),
    ImportFormat("mtbench", "MT-Bench (FastChat)", "FastChat MT-Bench pairwise judgments, model and human",
                 "a judgment file (gpt-4_pair.jsonl, human judgments .json/.jsonl) or a folder of them", _GOLD,
                 "cap_core.importers.mtbench:import_mtbench"),
    ImportFormat("arena-hard", "Arena-Hard-Auto", "Arena-Hard-Auto judgments (two games per pair)",
                 "a model_judgment/<judge>/<model>.jsonl file or a folder of them", (*_GOLD, "baseline"),
                 "cap_core.importers.arena_hard:import_arena_hard"),
    ImportFormat("inspect", "inspect_ai logs", "inspect_ai eval logs of a pairwise judging task",
                 "a .eval or .json log, or a folder of them", _GOLD, "cap_core.importers.inspect_logs:import_inspect"),
    ImportFormat("autoj", "Auto-J", "Auto-J's pairwise test file with a judge's predictions (and exchange run)",
                 "a folder with testdata_pairwise.jsonl and {\"output\": ...} prediction files "
                 "(the swapped-order file named with 'exchange')", (), "cap_core.importers.autoj:import_autoj"),
    ImportFormat("rewardbench", "RewardBench", "RewardBench per-item reward scores (chosen vs rejected)",
                 "an eval-set-scores/<org>/<model>.json file or a results/ folder", (),
                 "cap_core.importers.rewardbench:import_rewardbench"),
)}
#: The import kinds, in the order the CLI and the dashboard list them (``table`` first).
KINDS: tuple[str, ...] = tuple(FORMATS)


def describe(kind: str) -> str:
    """``"<title>: <description>. Path: <path>"`` for help texts."""
    f = FORMATS[kind]
    return f"{f.title}: {f.description}. Path: {f.path}"


def _format(kind: object) -> ImportFormat:
    if kind not in FORMATS:
        from cap_core.schema import suggest_name

        near = suggest_name(str(kind), KINDS) if isinstance(kind, str) else None
        raise CAPInputError("unknown import format", argument="kind", got=kind, expected="one of " + ", ".join(KINDS),
                            fix=f"did you mean {near!r}?" if near else "pick a format from the list")
    return FORMATS[kind]


def check_options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options given (value not None) after checking that ``kind`` takes each of them.

    Raises
    ------
    CAPInputError
        An unknown kind (argument ``kind``); an option the kind does not take, or that no
        kind takes (argument the option's name; expected: the options of this kind); both
        ``gold_judge`` and ``gold``.
    """
    fmt = _format(kind)
    given = {k: v for k, v in options.items() if v is not None}
    for name in given:
        if name not in fmt.options:
            takes = ", ".join(fmt.options) or "none"
            raise CAPInputError(f"option not taken by the {kind} format" if name in OPTIONS else "unknown option",
                                argument=name, got=given[name], expected=f"options of {kind}: {takes}",
                                fix="leave it out" + ("" if name in OPTIONS else
                                                      " (options of the formats: " + ", ".join(OPTIONS) + ")"))
    if "gold_judge" in given and "gold" in given:
        raise CAPInputError("two gold sources given", argument="gold", got=str(given["gold"]),
                            expected="gold_judge or gold, not both", fix="keep one of them")
    return given


def _strategies(path: Path, value: Any) -> tuple[str, ...] | None:
    """LLMBar ``strategies`` (comma-separated text or a sequence) checked against the folder."""
    from cap_core.importers.llmbar import llmbar_strategies

    if isinstance(value, str):
        names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = tuple(dict.fromkeys(value))
    else:
        raise CAPInputError("strategies must be names", argument="strategies", got=value,
                            expected="comma-separated text or a list of strategy names")
    present = llmbar_strategies(path)
    unknown = [n for n in names if n not in present]
    if not names or unknown:
        raise CAPInputError("LLMBar strategy not present in the data", argument="strategies",
                            expected="names among " + (capped(present) or "(none found)"),
                            got=unknown[0] if unknown else value,
                            fix="name strategies that have evaluators/<model>/<strategy>/result.json files, "
                                "or leave the option out")
    return names


def read(kind: str, path: str | Path, **options: Any):
    """Import ``path`` as format ``kind`` with ``options``: the one call behind every import.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    path : str or Path
        As :attr:`ImportFormat.path` of the kind says.
    **options
        Keys of :data:`OPTIONS` that the kind takes (None values are ignored).

    Returns
    -------
    cap_core.dataset.Dataset

    Raises
    ------
    CAPInputError
        From :func:`check_options`; a path that does not exist (argument ``path``); the
        reader's own errors (file, row and column named), or, when the reader refuses files
        that :func:`detect` finds to be another kind's, a line saying which kind they look like
        (an MT-Bench file read as AlpacaEval is not "malformed JSON").
    """
    fmt = _format(kind)
    given = check_options(kind, options)
    if not isinstance(path, (str, Path)):
        raise CAPInputError("path must be a file or folder path", argument="path", got=type(path).__name__,
                            fix="pass a str or pathlib.Path")
    path = Path(path).expanduser()
    if not path.exists():
        raise CAPInputError(f"{fmt.title} path not found", file=str(path), argument="path", expected=fmt.path,
                            fix="check the path")
    for name in PATH_OPTIONS:
        if name in given and not Path(given[name]).expanduser().exists():
            raise CAPInputError("file or folder not found", argument=name, got=str(given[name]),
                                expected=OPTIONS[name], fix="check the path")
    if kind == "llmbar":
        # LLMBar's reader defaults to three strategies; the registry's default is every strategy present
        given["strategies"] = _strategies(path, given["strategies"]) if "strategies" in given else None
    rename = dict(fmt.arguments)
    try:
        return fmt.function()(path, **{rename.get(k, k): v for k, v in given.items()})
    except CAPInputError as err:
        other = detect(path)
        if other is None or other == kind:
            raise
        what = "file" if path.is_file() else "folder"
        raise CAPInputError(f"the {what} looks like {FORMATS[other].title}, not {fmt.title}", file=err.file or
                            str(path), expected=f"{fmt.title}: {fmt.path}", got=err.problem,
                            fix=f"read it as the {other} format ({FORMATS[other].title}), or give {fmt.title}'s "
                                "own files") from None


# ------------------------------------------------------------------------------------------------
# detection: a kind named by the files themselves, where exactly one kind fits
# ------------------------------------------------------------------------------------------------

def _first_record(p: Path) -> dict | None:
    """The first JSON object of a .json / .jsonl file (a list's first element), None if unreadable."""
    try:
        text = p.read_text(encoding="utf-8", errors="replace") if p.stat().st_size < 50_000_000 else ""
    except OSError:
        return None
    obj = None
    if p.suffix == ".json":
        try:
            obj = parse_json(text)
        except CAPInputError:  # not JSON, or nested deeper than Python parses
            obj = None
    if obj is None:  # JSON lines (or a .json holding them): the first line
        try:
            obj = parse_json(text.lstrip().split("\n", 1)[0])
        except CAPInputError:
            return None
    if isinstance(obj, list):
        obj = obj[0] if obj else None
    return obj if isinstance(obj, dict) else None


def _kind_of_file(p: Path) -> str | None:
    name = p.name
    if name.startswith("dataset=judgebench"):
        return "judgebench"
    if name in ("testset-v1.json", "gpt-3.5-turbo-testset-v1.json", "pandalm-7b-testset-v1.json"):
        return "pandalm"
    if p.suffix == ".eval" and zipfile.is_zipfile(p):
        return "inspect"
    if p.suffix not in (".json", ".jsonl"):
        return None
    rec = _first_record(p)
    if rec is None:
        return None
    keys = set(rec)
    if {"eval", "samples"} <= keys or {"eval", "results"} <= keys:
        return "inspect"
    if "games" in keys and ("uid" in keys or "question_id" in keys):
        return "arena-hard"
    if "question_id" in keys and ({"model_1", "g1_winner"} <= keys or {"model_a", "winner"} <= keys):
        return "mtbench"
    if "preference" in keys and ("generator_1" in keys or "output_1" in keys):
        return "alpacaeval"
    if "subset" in keys and ("scores_chosen" in keys or "results" in keys):
        return "rewardbench"
    if keys == {"output"} or {"label", "scenario"} <= keys and "response 1" in keys:
        return "autoj"
    if {"annotator1", "response1"} <= keys:
        return "pandalm"
    return None


def detect(path: str | Path) -> str | None:
    """The one kind whose files ``path`` holds, or None when none or several fit.

    Reads file names and each JSON file's first record (``gpt-4_pair.jsonl``'s ``question_id``,
    ``model_1``, ``g1_winner`` is MT-Bench; ``games`` is Arena-Hard; ``preference`` with
    ``generator_1`` AlpacaEval; ...). A table (CSV, Parquet) or an LLMBar folder is not
    detected: a table is the default, and LLMBar is named by the user.
    """
    p = Path(path)
    files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else []
    kinds = {k for k in (_kind_of_file(f) for f in files[:200]) if k}
    return kinds.pop() if len(kinds) == 1 else None
