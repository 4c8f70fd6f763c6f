"""Argument types shared by the verbs: bounded integers and finite numbers, so a bad count, seed
or margin is refused by the parser (one line, exit status 2) before any work starts; and the
roles of path options (input, output file, output folder, cache), from which the CLI checks
every output against every input before a verb reads or writes anything (:func:`check_paths`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cap_core.config import MAX_RESAMPLES
from cap_core.errors import CAPInputError

__all__ = ["check_model_names", "int_between", "finite_between", "SEED", "BOOTSTRAP", "LEVEL", "MIN_CLI_RESAMPLES", "check_paths",
           "check_outputs", "paths_of", "csv_file", "html_file", "json_file", "output_folder", "cache_folder", "input_or_name", "OutputFile",
           "OutputFolder", "CacheFolder", "InputName", "add_call_options", "check_call_options", "add_failures",
           "add_items"]


def int_between(low: int, high: int):
    """An ``argparse`` type accepting integers in ``[low, high]``; the message states the range."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, got {value:,}")
        return value

    parse.__name__ = "integer"
    return parse


#: Seeds of numpy's and scikit-learn's generators: 0 to 2**32 - 1.
SEED = int_between(0, 2**32 - 1)


class OutputFile(type(Path())):
    """A path option naming a file the verb writes (``type=csv_file``, ``html_file`` or ``json_file``)."""


class OutputFolder(type(Path())):
    """A path option naming a folder the verb writes files into (``type=output_folder``)."""


class CacheFolder(type(Path())):
    """A path option naming the judging cache (read and written by design; ``type=cache_folder``)."""


class InputName(str):
    """A text option that is a name or the path of an input (``type=input_or_name``: ``--items testbed``)."""


def _written_path(text: str, what: str) -> str:
    """``text`` as a path the verb writes: refused when blank or ``-`` (the verbs write files and folders,
    never to standard output; a file named ``-`` or `` `` is not what a user who typed it would look for),
    a file path ending in a slash (``s.csv/``: a folder was meant, or a slip), and a path starting with a
    literal ``~`` (quoted, so the shell did not expand it: a folder named ``~`` would be made)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"a {what} path, not a blank name")
    if text.strip() == "-":
        raise argparse.ArgumentTypeError(f"a {what} path, not '-' (this verb writes a {what}, not standard output)")
    if what == "file" and text.endswith(("/", "\\")):
        raise argparse.ArgumentTypeError(f"a file path, not a folder: {text!r} ends in a slash; name the file")
    if Path(text).parts[:1] == ("~",):
        raise argparse.ArgumentTypeError(f"{text!r} starts with a literal '~' (the shell expands it only unquoted); "
                                         "write the home folder out, e.g. $HOME/…")
    return text


def _output_file_of(fmt: str):
    """The ``argparse`` type of an option naming a file the verb writes in ``fmt`` (a key of
    :data:`cap_core.outputs.WRITTEN_SUFFIXES`): blank and ``-`` refused (:func:`_written_path`), and a
    name whose ending says another format (:func:`cap_core.outputs.check_suffix`); checked against the
    inputs later by :func:`check_paths`."""
    from cap_core.outputs import check_suffix

    def parse(text: str) -> OutputFile:
        path = OutputFile(_written_path(text, "file"))
        try:
            check_suffix(path, fmt)
        except CAPInputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return path

    parse.__name__ = f"{fmt} file"
    return parse


#: Options naming a CSV, an HTML or a JSON file the verb writes.
csv_file = _output_file_of("CSV")
html_file = _output_file_of("HTML")
json_file = _output_file_of("JSON")


def output_folder(text: str) -> OutputFolder:
    """``argparse`` type of an option naming a folder the verb writes into (checked by :func:`check_paths`;
    blank and ``-`` refused: :func:`_written_path`)."""
    return OutputFolder(_written_path(text, "folder"))


def cache_folder(text: str) -> CacheFolder:
    """``argparse`` type of the judging cache option (not an input nor an output for :func:`check_paths`;
    blank and ``-`` refused: :func:`_written_path`)."""
    return CacheFolder(_written_path(text, "folder"))


def input_or_name(text: str) -> InputName:
    """``argparse`` type of an option that is a built-in name or an input path (an input when it exists)."""
    return InputName(text)


def finite_between(low: float, high: float, *, low_open: bool = False, high_open: bool = False):
    """An ``argparse`` type accepting finite numbers from ``low`` to ``high`` (bounds excluded with
    ``low_open`` / ``high_open``); nan, inf and text are refused with the range stated."""
    import math

    span = (f"{'above' if low_open else 'from'} {low:g} {'and below' if high_open else 'to'} {high:g}")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {span}, got {text!r}") from None
        if (not math.isfinite(value) or value < low or value > high or (low_open and value == low)
                or (high_open and value == high)):
            raise argparse.ArgumentTypeError(f"expected a finite number {span}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


#: Fewest resamples the CLI accepts: below this the 2.5% / 97.5% percentiles are one or two
#: replicates and the interval means little.
MIN_CLI_RESAMPLES = 100
#: ``--bootstrap`` of every verb: 100 resamples to :data:`cap_core.config.MAX_RESAMPLES`.
BOOTSTRAP = int_between(MIN_CLI_RESAMPLES, MAX_RESAMPLES)
#: ``--level`` of every verb: a confidence level strictly between 0 and 1.
LEVEL = finite_between(0, 1, low_open=True, high_open=True)


def _reads(folder: Path, path: Path, option: str) -> bool:
    """True if a verb reading the input ``folder`` (given as ``option``) reads ``path`` inside it, now or
    once the file exists (both paths resolved).

    A dataset folder (``--data``, or a folder holding ``items.parquet`` or ``judgments.parquet``) is
    read from the names of :data:`cap_core.dataset.DATASET_FILES` and the parts under
    :data:`cap_core.dataset.JUDGMENT_PARTS`, whether or not they exist yet (a ``texts.parquet`` written
    there would be read, and refused, by every later command), and for any other top-level
    ``*.parquet`` table it holds (``graded.parquet``, a run's ``repeats.parquet``). Any other input
    folder (a benchmark copy, a folder of logs) may be read whole, so every existing file in it counts.
    """
    from cap_core.dataset import DATASET_FILES, JUDGMENT_PARTS

    rel = path.relative_to(folder)
    dataset = (option == "--data" or any((folder / name).is_file() for name in DATASET_FILES[:2]))
    if not dataset:
        return path.is_file()
    if rel.parts[0] == JUDGMENT_PARTS or (len(rel.parts) == 1 and rel.name in DATASET_FILES):
        return True
    return path.is_file() and len(rel.parts) == 1 and path.suffix == ".parquet"


def _writable(folder: Path) -> bool:
    """True if a file can be created in ``folder`` (or, when it does not exist yet, in its nearest
    existing parent): tried with a temporary file that is removed at once."""
    import os
    import tempfile

    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        return False
    try:
        fd, name = tempfile.mkstemp(dir=existing, prefix=".cap-write-test-")
    except OSError:
        return False
    os.close(fd)
    os.unlink(name)
    return True


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and folder in path.parents


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False


def check_paths(inputs: dict[str, Path], files: dict[str, Path], folders: dict[str, Path]) -> None:
    """Refuse output paths that cannot be written, or would destroy an input, before anything is read or written.

    Parameters
    ----------
    inputs, files, folders : dict of str to Path
        Option name (``--data``, ``PATH``) -> path, for the inputs the verb reads, the files it
        writes and the folders it writes into (options not given are left out).

    Raises
    ------
    CAPInputError
        Naming the option: an output file that is an existing folder, or whose parent is a
        file; an output folder that is an existing file; two outputs with one path; an output
        file that is an input, or a file an input folder is read from (:func:`_reads`: in a dataset
        folder, any name of :data:`cap_core.dataset.DATASET_FILES` even before it exists); an
        output folder that is an input, holds an input, or lies in an input folder and already
        holds files (which it may replace). Paths are compared with symbolic links resolved.
    """
    def refuse(option: str, path: Path, problem: str, fix: str) -> None:
        raise CAPInputError(problem, argument=option, got=str(path), fix=fix)

    ins = {opt: Path(p).resolve() for opt, p in inputs.items()}
    seen: dict[Path, str] = {}
    for kind, outs in (("file", files), ("folder", folders)):
        for opt, raw in outs.items():
            path = Path(raw)
            where = path.resolve()
            if kind == "file" and path.is_dir():
                refuse(opt, path, "an output file is an existing folder", "name a file, e.g. out/scores.csv")
            if kind == "folder" and path.exists() and not path.is_dir():
                refuse(opt, path, "an output folder is an existing file", "name a new or empty folder")
            blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
            if blocker is not None:
                refuse(opt, path, f"an output path lies under a file ({blocker} is a file)",
                       "name a path in a folder")
            if not _writable(path if kind == "folder" else path.parent):
                refuse(opt, path, "the output cannot be written there (the folder refuses new files)",
                       "name a path in a folder you can write to")
            if where in seen:
                refuse(opt, path, f"two outputs share one path (also {seen[where]})",
                       "give every output its own path")
            seen[where] = opt
            for in_opt, src in ins.items():
                if _same(where, src):
                    refuse(opt, path, f"an output is the input of {in_opt}", "write the output to another path; "
                           "the input stays as it is")
                if src.is_dir() and _inside(where, src):
                    if kind == "file" and _reads(src, where, in_opt):
                        what = "would replace" if where.exists() else "would become"
                        refuse(opt, path, f"the output {what} {where.relative_to(src)}, a file the input folder "
                               f"of {in_opt} is read from", "write the output outside the input folder, or under "
                               "a name the folder is not read from")
                    if kind == "folder" and where.is_dir() and any(where.iterdir()):
                        refuse(opt, path, f"the output folder lies in the input folder of {in_opt} and holds "
                               "files", "name a new or empty folder outside the input")
                if kind == "folder" and _inside(src, where):
                    refuse(opt, path, f"the output folder holds the input of {in_opt}",
                           "name an output folder that does not contain the input")


def check_outputs(**paths: Path | None) -> None:
    """Refuse output files that cannot be files (:func:`check_paths` with no inputs); ``paths`` maps an
    option name with underscores (``profile_out``) to its path (``None``: not given)."""
    check_paths({}, {"--" + k.replace("_", "-"): p for k, p in paths.items() if p is not None}, {})


#: Destinations of positional arguments: named in messages by their upper-case metavar, not as ``--options``.
_POSITIONALS = ("path", "name", "kind", "questions", "folder")


def paths_of(args: argparse.Namespace) -> tuple[dict[str, Path], dict[str, Path], dict[str, Path]]:
    """``(inputs, files, folders)`` of a parsed command line for :func:`check_paths`, from the option
    types: :class:`OutputFile`, :class:`OutputFolder`, plain paths (inputs), :class:`InputName` values
    that exist (inputs); :class:`CacheFolder` is neither."""
    inputs, files, folders = {}, {}, {}
    for dest, value in vars(args).items():
        opt = dest.upper() if dest in _POSITIONALS else "--" + dest.replace("_", "-")
        for i, v in enumerate(value if isinstance(value, list) else [value]):
            key = opt if not isinstance(value, list) or len(value) == 1 else f"{opt} ({i + 1})"
            if isinstance(v, OutputFile):
                files[key] = v
            elif isinstance(v, OutputFolder):
                folders[key] = v
            elif isinstance(v, CacheFolder):
                continue
            elif isinstance(v, Path) or (isinstance(v, InputName) and Path(v).exists()):
                inputs[key] = Path(v)
    return inputs, files, folders


def add_failures(p: argparse.ArgumentParser) -> None:
    """``--failures count|exclude``: the rule for failed judgments of every verb that computes a profile
    (:data:`cap_core.verdicts.FAILURE_RULES`)."""
    p.add_argument("--failures", choices=("count", "exclude"), default="count",
                   help="failed judgments (unparsed verdicts, missing orders): count (default: they stay in n, "
                        "never correct) or exclude (CAP App. L: API and parse failures lower n; ties stay)")


def add_items(p: argparse.ArgumentParser) -> None:
    """``--items shared|own``: which items judges are compared on (:data:`cap_core.choice.pipeline.ITEM_SETS`)."""
    p.add_argument("--items", choices=("shared", "own"), default="shared",
                   help="when judges covered different items: shared (default: compare them on the items all of "
                        "them judged) or own (each on everything it judged)")


def add_call_options(p: argparse.ArgumentParser, *, max_tokens: bool = True) -> None:
    """The request options every judging verb takes (``judge``, ``evaluate``): tokens, budgets,
    concurrency, retries and timeout, with one set of defaults. ``max_tokens=False`` leaves out
    ``--max-tokens`` for a verb whose calls set their own limits (``testbed build``: one per stage),
    so the parser refuses it instead of ignoring it."""
    if max_tokens:
        p.add_argument("--max-tokens", type=int, default=1024)
    p.add_argument("--budget-calls", type=int, help="at most this many requests (retries count)")
    p.add_argument("--budget-usd", type=finite_between(0, 1_000_000),
                   help="stop sending once this many dollars are spent (a finite number; leave it out for no limit)")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--max-retries", type=int, default=4)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per request")


def check_call_options(args: argparse.Namespace) -> float:
    """Refuse bad ``--max-retries`` / ``--timeout`` (CAPInputError naming the option) and return
    the temperature in force: ``--temperature``, else 0.7 with ``--repeats`` above 1, else 0."""
    if args.max_retries < 0:
        raise CAPInputError("retries must be a non-negative integer", argument="--max-retries",
                            expected="0 or more retries per call", got=args.max_retries, fix="e.g. --max-retries 4")
    if not 0 < args.timeout < float("inf"):
        raise CAPInputError("timeout must be a positive number of seconds", argument="--timeout",
                            expected="finite seconds > 0", got=args.timeout, fix="e.g. --timeout 60")
    return args.temperature if args.temperature is not None else (0.7 if args.repeats > 1 else 0.0)


def check_model_names(**options: list[str] | str | None) -> None:
    """Refuse a misspelt offline model name before any call or file (``--model local/firts``).

    ``options`` maps an option's name without dashes (``model``, ``evaluator``) to its value(s);
    each ``local/`` or ``smollm/`` name (also behind ``choice:``) must be one the offline
    providers answer (:func:`cap_core.judging.offline_models.check_offline_model`).

    Raises
    ------
    CAPInputError
        Naming the option (``--model``), the known names and the closest one.
    """
    from cap_core.judging.choice import model_of
    from cap_core.judging.offline_models import check_offline_model

    for name, value in options.items():
        for model in [value] if isinstance(value, str) else (value or []):
            check_offline_model(model_of(model), argument="--" + name.replace("_", "-"))
