"""Command-line interface: ``python -m cap_core VERB ...``.

Verbs
-----
``import KIND PATH [options] --out DIR`` (or ``import --format KIND PATH ...``)
    Read judge outputs of any kind of the import registry
    (:data:`cap_core.importers.formats.KINDS`: ``table``, ``llmbar``, ``judgebench``,
    ``pandalm``, ``alpacaeval``, ``mtbench``, ``arena-hard``, ``inspect``, ``autoj``,
    ``rewardbench``) and write a dataset directory (items / judgments / declarations
    Parquet). Each kind takes only its own options (``--gold-judge``/``--gold`` for the
    tools, ``--baseline`` for Arena-Hard v0.1, ``--strategies`` for LLMBar, ``--fork`` for
    JudgeBench, ``--judgments``/``--declarations`` for a table); another is refused.
``build-default [--shared DIR] [--out DIR] [--no-audit]``
    Rebuild the embedded data (``data/``) from the public data folder (default: the one
    :mod:`cap_core.importers.default_data` names); ``--no-audit`` skips the label-set
    audits (the slow part, minutes).
``profile --data DIR [--benchmark B ...] [--judge J ...] [--bootstrap 1000] [--seed 0] [--verdicts derived|recorded] [--engine memory|stream|dask [--scheduler ADDRESS]] --out FILE.csv``
    Compute CAP profiles (percent, 95% bootstrap CIs) and write them as CSV; ``--verdicts``
    picks CAP's derived verdicts (default) or the sources' recorded ones
    (:func:`cap_core.verdicts.choose_verdicts`); ``--engine`` says where the per-base-item
    statistics are computed (memory, streamed from Parquet, or a Dask cluster).
``coverage --data DIR --out FILE.csv``
    Write the benchmark × condition coverage matrix.

Further verbs come from the modules listed in :data:`EXTENSIONS`; each defines
``register(subparsers)`` that adds its parsers and sets ``handler=<function(args) -> str>``
with ``set_defaults``.

Before a verb reads or writes anything, every output path is checked against every input
(:func:`cap_core.cli.options.check_paths`: an output that is an input, two outputs on one path,
a folder that refuses files); the verb then runs inside
:func:`cap_core.outputs.all_or_nothing`, so a run refused half-way leaves no file.

Exit codes: 0 success; 2 for every failure the user can cause, with one line on stderr
(``error: ...``): a :class:`~cap_core.errors.CAPInputError` naming the file, row and
column or the option (``argument `--bootstrap```), what was expected and the fix; a bad
command line; a file the system cannot read or write; a run too large for memory.
1 only for an unexpected failure (a bug: one line, ``CAP_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from cap_core.cli.options import (
    BOOTSTRAP,
    LEVEL,
    MIN_CLI_RESAMPLES,
    SEED,
    add_failures,
    csv_file,
    int_between,
    output_folder,
)
from cap_core.cli.parser import Parser
from cap_core.cli.visible import visible
from cap_core.errors import CAPInputError

__all__ = ["main", "build_parser", "write_csv", "EXTENSIONS"]

#: Function arguments whose command-line option has another name.
_OPTION_OF = {"n_resamples": "bootstrap"}
#: Function arguments that only ever come from one option (``benchmarks`` <- ``--benchmark``, repeatable):
#: the error names the option whatever value it reports (one of a list, a count, the tags present).
_ALWAYS_OPTION_OF = {"benchmarks": "benchmark", "judges": "judge", "flag": "flag"}


#: Modules adding further verbs (each exposes ``register(subparsers)``).
EXTENSIONS: tuple[str, ...] = ("cap_core.cli.cascades", "cap_core.cli.audit", "cap_core.cli.validity", "cap_core.cli.judge",
                               "cap_core.cli.analyses", "cap_core.cli.choose", "cap_core.cli.fetch",
                               "cap_core.cli.evaluate", "cap_core.cli.source_metrics", "cap_core.cli.testbed")


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The argument parser for all verbs (its sub-parsers share its one-line errors).

    With ``verb`` (the first word of a command line), only that verb is built: a verb of
    this module is added with its siblings here (before any extension), and for any other
    the modules of :data:`EXTENSIONS` are imported only until one has registered it (the
    module named like the verb first). That verb's command line parses the same, without
    importing and building every other verb (a cached ``judge`` run starts faster). An
    unknown verb gets the full parser (every verb, in the usual order).
    """
    prog = "cap" if Path(sys.argv[0]).name == "cap" else "python -m cap_core"  # the installed command or the module
    p = Parser(prog=prog, description="Conditional Accuracy Profiling of LLM judges.")
    sub = p.add_subparsers(dest="verb", required=True)
    core = verb is None or verb in _VERBS
    if core:
        _add_core_verbs(sub)
    modules = list(EXTENSIONS)
    if verb is not None:
        own = "cap_core.cli." + verb.replace("-", "_")
        modules.sort(key=lambda m: m != own)  # stable: the verb's namesake first, the rest in order
    for module in modules:
        if verb is not None and verb in sub.choices:
            break
        importlib.import_module(module).register(sub)
    if not core and verb not in sub.choices:  # an unknown verb: the full parser, verbs in their usual order
        return build_parser(None)
    return p


def _add_core_verbs(sub) -> None:
    """Add the verbs of this module (import, build-default, profile, coverage, summary) to ``sub``."""
    from cap_core.importers.formats import FORMATS, KINDS, OPTIONS, PATH_OPTIONS, flag

    imp = sub.add_parser("import", help="import judge outputs into a dataset directory",
                         description="Kinds: " + "; ".join(f"{k}: {f.description} (path: {f.path})"
                                                           for k, f in FORMATS.items()))
    imp.add_argument("kind", nargs="?", choices=KINDS, metavar="KIND", help="the format: " + ", ".join(KINDS))
    imp.add_argument("path", type=Path, help="what the kind reads (see the kinds above)")
    imp.add_argument("--format", choices=KINDS, help="the format (same as KIND)")
    for name, what in OPTIONS.items():
        takers = ", ".join(k for k, f in FORMATS.items() if name in f.options)
        imp.add_argument(flag(name), type=Path if name in PATH_OPTIONS else str,
                         help=f"({takers}) {what}")
    imp.add_argument("--out", type=output_folder, required=True, help="dataset directory to write")

    bd = sub.add_parser("build-default", help="rebuild the embedded default data")
    bd.add_argument("--shared", type=Path, help="public data folder holding data/ and published/ "
                    "(default: the one beside the repository)")
    bd.add_argument("--out", type=output_folder, help="data folder to write (default: the repository's data/)")
    bd.add_argument("--no-audit", action="store_true", help="skip the label-set audits (data/audit left as it is)")

    pr = sub.add_parser("profile", help="compute CAP profiles with bootstrap CIs")
    pr.add_argument("--data", type=Path, required=True)
    pr.add_argument("--benchmark", action="append", help="restrict to a benchmark (repeatable)")
    pr.add_argument("--judge", action="append", help="restrict to a judge (repeatable)")
    pr.add_argument("--bootstrap", type=BOOTSTRAP, default=1000, help="number of resamples (default 1000)")
    pr.add_argument("--seed", type=SEED, default=0)
    pr.add_argument("--level", type=LEVEL, default=0.95)
    pr.add_argument("--by-subset", action="store_true", help="also profile each native subset "
                    "(items without one form '(missing)'; 'all' is the micro value, macro_pa the subsets' mean)")
    pr.add_argument("--verdicts", choices=["derived", "recorded"], default="derived",
                    help="derived (default): CAP's reading of each source (equal scores are a tie, a failed score "
                    "unparsed); recorded: the verdict the source itself wrote (LLMBar winner, JudgeBench decision), "
                    "where it wrote one")
    add_failures(pr)
    pr.add_argument("--engine", choices=("memory", "stream", "dask"), default="memory",
                    help="where the per-base-item statistics are computed: in memory (default), streamed from "
                         "Parquet (larger than memory) or on a Dask cluster; the bootstrap always runs here")
    pr.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786); default: a local cluster")
    pr.add_argument("--workers", type=int_between(1, 256), default=2,
                    help="workers of the local Dask cluster (default 2)")
    pr.add_argument("--out", type=csv_file, required=True)

    cv = sub.add_parser("coverage", help="write the coverage matrix")
    cv.add_argument("--data", type=Path, required=True)
    cv.add_argument("--out", type=csv_file, required=True)

    sm = sub.add_parser("summary", help="per judge: items received, verdicts, tie and unparsed rates (no gold needed)")
    sm.add_argument("--data", type=Path, required=True)
    sm.add_argument("--out", type=csv_file, help="CSV to write (default: print it, as source-metrics does)")

    for name, parser in (("import", imp), ("build-default", bd), ("profile", pr), ("coverage", cv), ("summary", sm)):
        parser.set_defaults(handler=_VERBS[name])


def _import(args: argparse.Namespace) -> str:
    from cap_core.dataset import check_dataset_folder, save_dataset
    from cap_core.importers.formats import KINDS, OPTIONS, flag, read

    check_dataset_folder(args.out)  # before reading: a run's or another tool's folder would come out mixed

    kind = args.format or args.kind
    if args.format and args.kind and args.format != args.kind:
        raise CAPInputError("two formats given", argument="--format", expected=f"one format ({args.kind!r} or "
                            f"{args.format!r})", got=args.format, fix="give the format once")
    if kind is None:
        raise CAPInputError("no format given", argument="--format", expected="KIND or --format, one of "
                            + ", ".join(KINDS),
                            fix="e.g. `python -m cap_core import --format mtbench gpt-4_pair.jsonl --out DIR`")
    try:
        ds = read(kind, args.path, **{name: getattr(args, name) for name in OPTIONS})
    except CAPInputError as err:  # the registry names options as the API does: say the CLI's spelling
        if err.argument in OPTIONS:
            raise err.replace(argument=flag(err.argument)) from None
        if err.argument == "path":
            raise err.replace(argument="PATH") from None
        raise
    out = save_dataset(ds, args.out)
    for notice in ds.notices:
        print(visible(f"notice: {notice}"), file=sys.stderr)
    return f"wrote {ds.items.height} items and {ds.judgments.height} judgments to {out}"


def write_csv(frame, out: Path) -> None:
    """Write ``frame`` as formula-safe CSV to ``out`` (:func:`cap_core.export.write_csv`).

    Raises
    ------
    CAPInputError
        The file cannot be written.
    """
    from cap_core.export import write_csv as _write_csv

    _write_csv(frame, out)


def _profile(args: argparse.Namespace) -> str:
    from cap_core.bootstrap import check_bootstrap_args
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile
    from cap_core.verdicts import choose_verdicts

    check_bootstrap_args(args.bootstrap, args.seed, args.level)  # before reading the data
    if args.bootstrap < MIN_CLI_RESAMPLES:
        raise CAPInputError(
            "too few bootstrap resamples for a percentile interval",
            argument="--bootstrap",
            expected=f"at least {MIN_CLI_RESAMPLES} (1000 recommended, as in CAP)",
            got=args.bootstrap,
            fix="pass --bootstrap 1000",
        )
    if args.scheduler and args.engine != "dask":
        raise CAPInputError("--scheduler needs the Dask engine", argument="--scheduler", got=args.scheduler,
                            expected="--engine dask", fix="add --engine dask, or drop --scheduler")
    if args.verdicts != "derived" and args.engine != "memory":
        raise CAPInputError("recorded verdicts need the memory engine", argument="--verdicts", got=args.verdicts,
                            expected="--engine memory with --verdicts recorded",
                            fix="drop --engine, or profile the derived verdicts")
    if args.engine == "memory":
        ds = choose_verdicts(load_dataset(args.data), args.verdicts)
        res = compute_profile(ds, n_resamples=args.bootstrap, seed=args.seed, level=args.level,
                              benchmarks=args.benchmark, judges=args.judge, by_subset=args.by_subset,
                              failures=args.failures)
    else:
        from cap_core.profile.conditions import profile_from_stats

        opts = {"benchmarks": args.benchmark, "judges": args.judge, "by_subset": args.by_subset,
                "failures": args.failures}
        if args.engine == "stream":
            from cap_core.profile.engine_stream import stream_stats
            stats = stream_stats(args.data, **opts)
        else:
            from cap_core.profile.engine_dask import connect, dask_stats
            if args.workers < 1:
                raise CAPInputError("--workers must be at least 1", argument="--workers", got=args.workers,
                                    expected="an integer >= 1", fix="pass --workers 2")
            client = connect(args.scheduler, n_workers=args.workers)
            try:
                stats = dask_stats(args.data, client=client, **opts)
            finally:
                cluster = getattr(client, "cluster", None) if not args.scheduler else None
                client.close()
                if cluster is not None:
                    cluster.close()
        res = profile_from_stats(stats, args.bootstrap, args.seed, args.level)
    for notice in res.notices:
        print(visible(f"notice: {notice}"), file=sys.stderr)
    write_csv(res.profile, args.out)
    if args.verdicts == "recorded":
        for notice in ds.notices[-1:]:
            if notice.startswith("recorded verdicts:"):
                print(visible(f"notice: {notice}"), file=sys.stderr)
    return f"wrote {res.profile.height} profile rows ({args.verdicts} verdicts) to {args.out}"


def _coverage(args: argparse.Namespace) -> str:
    from cap_core.dataset import load_dataset
    from cap_core.profile.coverage import coverage_matrix

    cov = coverage_matrix(load_dataset(args.data))
    write_csv(cov, args.out)
    return f"wrote {cov.height} coverage cells to {args.out}"


def _summary(args: argparse.Namespace) -> str:
    from cap_core.analyses.verdict_summary import verdict_summary
    from cap_core.dataset import load_dataset

    out = verdict_summary(load_dataset(args.data))
    if args.out is None:
        from cap_core.export import to_csv_bytes

        return to_csv_bytes(out).decode("utf-8").rstrip("\n")
    write_csv(out, args.out)
    return f"wrote {out.height} judge rows (items received, tie and unparsed rates) to {args.out}"


def _build_default(args: argparse.Namespace) -> str:
    from cap_core import config
    from cap_core.importers.default_data import build_default

    build_default(args.shared, args.out, audit=not args.no_audit)
    return f"rebuilt the embedded data under {args.out or config.data_dir()}"


_VERBS = {"import": _import, "profile": _profile, "coverage": _coverage, "summary": _summary,
          "build-default": _build_default}


def _as_option(err: CAPInputError, args: argparse.Namespace) -> CAPInputError:
    """Name the command-line option (``--bootstrap``) of an error about a function argument."""
    always = _ALWAYS_OPTION_OF.get(err.argument or "")
    if always and getattr(args, always, None) is not None:
        return err.replace(argument="--" + always)
    dest = _OPTION_OF.get(err.argument or "", err.argument or "").replace("-", "_")
    value = getattr(args, dest, None) if dest else None
    same = value == err.got or (isinstance(value, float) and isinstance(err.got, float) and value != value
                                and err.got != err.got)  # nan == nan is False
    if dest and hasattr(args, dest) and same:
        return err.replace(argument="--" + dest.replace("_", "-"))
    return err


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 any failure the user can cause, 1 a bug). Everything
    it prints reaches the terminal as text: control characters from data are written as their code
    points (:func:`cap_core.cli.visible.visible_output`)."""
    from cap_core.cli.visible import visible_output

    with visible_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    verb = words[0] if words and not words[0].startswith("-") else None
    args = build_parser(verb).parse_args(argv)
    try:
        from cap_core.cli.options import check_paths, paths_of
        from cap_core.outputs import all_or_nothing

        # every output against every input, before the verb reads or writes anything; then
        # the verb's files appear together or, if it is refused half-way, not at all
        check_paths(*paths_of(args))
        with all_or_nothing():
            print(args.handler(args))
    except CAPInputError as err:  # it may quote the data: its control characters are shown, not obeyed
        print(f"error: {visible(_one_line(_as_option(err, args)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT (128 + 2)
        print("interrupted (Ctrl-C): finished calls stay in the cache, so running the command again resumes",
              file=sys.stderr)
        return 130
    except MemoryError:
        print("error: not enough memory for this run: expected a smaller --bootstrap, fewer benchmarks or judges, "
              "or a machine with more memory", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the system refuses (permissions, a folder for a file, a full disk)
        where = exc.filename if exc.filename is not None else "a file"
        print(f"error: cannot read or write {where}: {exc.strerror or type(exc).__name__}. "
              "Fix: check the path and its permissions", file=sys.stderr)
        return 2
    except Exception as exc:  # last resort: a message, not a traceback
        if os.environ.get("CAP_DEBUG"):
            raise
        print(
            _one_line(f"unexpected error ({type(exc).__name__}): {exc}. Set CAP_DEBUG=1 to see the traceback."),
            file=sys.stderr,
        )
        return 1
    return 0
