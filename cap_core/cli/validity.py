"""CLI verbs for validity profiles.

``probes generate --bases FILE --out FILE.csv [--skipped FILE.csv]``
    Apply every construct edit and control rule to the base claims (deterministic).
``probes generate --generator MODEL --bases FILE --out FILE.csv [--slot S ...] [--max-attempts 3]
[--attempts FILE.csv] [--cache DIR] [--api-base URL]`` (``--cache`` defaults to the project cache,
    :func:`cap_core.config.cache_dir`, for every verb)
    Ask a generator model (litellm; ``localgen/rules`` offline) for each edit, verify each
    answer, regenerate on rejection; writes verified probes and, optionally, every attempt.
``probes verify --bases FILE --probes FILE --out FILE.csv [--max-length-change 0.5]``
    Verify probes against their bases; writes the probes with status and reason and
    prints the rejection counts per slot.
``probes grade --bases FILE --probes FILE --judge MODEL [--judge MODEL ...] --out FILE.csv [--cache DIR]``
    Grade base claims and kept probes live through the judging cache and litellm
    (``localgrade/overlap`` runs offline); writes a graded probe table.
``probes annotate --probes FILE --annotations FILE --out FILE.csv [--report FILE.csv] [--min-agreement 0.75]``
    Keep probes whose annotator majority matches the intended direction, in slots whose
    mean pairwise agreement reaches the bar; excluded slots are printed and reported.
``validity --grades FILE --out FILE.csv [--sweep FILE.csv] [--slots FILE.csv] [--min-s 0.90] [--bootstrap 1000]``
    Matched-invariance operating point of every judge in a graded probe table, with
    base-item bootstrap intervals; ``--sweep`` also writes every threshold's (S, R);
    ``--slots`` the R / flip rate of every slot at that point (Validity Table 6 analogue).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cap_core.cli.options import BOOTSTRAP, SEED, cache_folder, finite_between, csv_file
from cap_core.cli.visible import visible
from cap_core.errors import CAPInputError

__all__ = ["register"]

_CACHE_HELP = "judging cache directory (default: the project cache, $CAP_CACHE_DIR)"


def _cache(args: argparse.Namespace) -> Path:
    from cap_core.config import cache_dir

    return args.cache or cache_dir()


def register(sub) -> None:
    """Add the ``probes`` and ``validity`` verbs to an argparse subparsers object."""
    pr = sub.add_parser("probes", help="generate or verify validity probes")
    psub = pr.add_subparsers(dest="probes_verb", required=True)
    gen = psub.add_parser("generate", help="rule-based probes from base claims")
    gen.add_argument("--bases", type=Path, required=True, help="base claims table (CSV/TSV/JSONL/JSON/Parquet)")
    gen.add_argument("--out", type=csv_file, required=True)
    gen.add_argument("--skipped", type=csv_file, help="also write the rules that did not apply")
    gen.add_argument("--generator", help="litellm model string of a generator model (e.g. localgen/rules); "
                                         "without it the rule-based generator runs")
    gen.add_argument("--slot", action="append", help="generate only this slot (repeatable; model generator)")
    gen.add_argument("--max-attempts", type=int, default=3, help="requests per slot at most (model generator)")
    gen.add_argument("--attempts", type=csv_file, help="also write every attempt with its verdict (model generator)")
    gen.add_argument("--cache", type=cache_folder, default=None, help=_CACHE_HELP)
    gen.add_argument("--api-base", default=None)
    gen.add_argument("--max-calls", type=int, default=None)
    gen.set_defaults(handler=_generate)
    ver = psub.add_parser("verify", help="verify probes against their base claims")
    ver.add_argument("--bases", type=Path, required=True)
    ver.add_argument("--probes", type=Path, required=True)
    ver.add_argument("--out", type=csv_file, required=True)
    ver.add_argument("--max-length-change", type=finite_between(0, 100, low_open=True), default=None,
                     help="fraction, e.g. 0.5")
    ver.set_defaults(handler=_verify)
    gr = psub.add_parser("grade", help="grade base claims and verified probes with judges (live)")
    gr.add_argument("--bases", type=Path, required=True)
    gr.add_argument("--probes", type=Path, required=True, help="verified probe table")
    gr.add_argument("--judge", action="append", required=True, help="litellm model string (repeatable)")
    gr.add_argument("--out", type=csv_file, required=True)
    gr.add_argument("--cache", type=cache_folder, default=None, help=_CACHE_HELP)
    gr.add_argument("--max-calls", type=int, default=None)
    gr.add_argument("--api-base", default=None)
    gr.set_defaults(handler=_grade)
    an = psub.add_parser("annotate", help="apply human direction annotation to probes")
    an.add_argument("--probes", type=Path, required=True)
    an.add_argument("--annotations", type=Path, required=True, help="probe_id, annotator, label (changed/unchanged)")
    an.add_argument("--out", type=csv_file, required=True, help="the probes that enter the arms")
    an.add_argument("--report", type=csv_file, help="per-slot agreement and yield")
    an.add_argument("--min-agreement", type=finite_between(0, 1), default=0.75)
    an.set_defaults(handler=_annotate)
    va = sub.add_parser("validity", help="(S, R) operating points of graded judges")
    va.add_argument("--grades", type=Path, required=True, help="graded probe table")
    va.add_argument("--out", type=csv_file, required=True)
    va.add_argument("--sweep", type=csv_file, help="also write the full threshold sweep")
    va.add_argument("--slots", type=csv_file, help="also write R / flip rate per slot at the matched threshold")
    va.add_argument("--min-s", type=finite_between(0, 1), default=0.90, help="invariance floor (proportion)")
    va.add_argument("--bootstrap", type=BOOTSTRAP, default=1000)
    va.add_argument("--seed", type=SEED, default=0)
    va.set_defaults(handler=_validity)


def _read(path: Path, kind: str):
    from cap_core.io import read_table

    if not path.is_file():
        raise CAPInputError(f"{kind} file not found", file=str(path), fix="check the path")
    frame, _ = read_table(path, kind=kind)
    return frame


def _write(frame, out: Path) -> None:
    from cap_core.cli.main import write_csv

    write_csv(frame, out)


def _named(err: CAPInputError, path: Path) -> CAPInputError:
    return err.with_file(path.name)


def _generate(args: argparse.Namespace) -> str:
    if args.generator:
        return _generate_llm(args)
    from cap_core.validity.probes.generate import generate_probes

    try:
        probes, skipped = generate_probes(_read(args.bases, "base claims"))
    except CAPInputError as err:
        raise _named(err, args.bases) from None
    _write(probes, args.out)
    if args.skipped:
        _write(skipped, args.skipped)
    return f"wrote {probes.height} probes to {args.out} ({skipped.height} rule applications did not apply)"


#: Function arguments of the probe generation and grading API -> the option that sets them.
_OPTIONS = {"generator": "--generator", "slots": "--slot", "max_attempts": "--max-attempts",
            "max_calls": "--max-calls", "judges": "--judge", "cache_dir": "--cache"}


def _live(run, *args, **kw):
    """Call a live (model) step, naming the command-line option in its errors."""
    from cap_core.cli.judge import as_option

    try:
        return run(*args, **kw)
    except CAPInputError as err:
        raise as_option(err, _OPTIONS) from None


def _generate_llm(args: argparse.Namespace) -> str:
    import sys

    from cap_core.validity.probes.generate import validate_bases
    from cap_core.validity.probes.generate_llm import generate_probes_llm

    try:
        bases = validate_bases(_read(args.bases, "base claims"))
    except CAPInputError as err:
        raise _named(err, args.bases) from None
    probes, attempts, notices = _live(generate_probes_llm, bases, args.generator, cache_dir=_cache(args),
                                      slots=args.slot, max_attempts=args.max_attempts, api_base=args.api_base,
                                      max_calls=args.max_calls)
    for n in notices:
        print(visible(f"notice: {n}"), file=sys.stderr)
    _write(probes, args.out)
    if args.attempts:
        _write(attempts, args.attempts)
    kept = int((probes["status"] == "kept").sum()) if probes.height else 0
    return f"wrote {probes.height} probes ({kept} kept by the verifier) to {args.out}"


def _verify(args: argparse.Namespace) -> str:
    import polars as pl

    from cap_core.validity.probes.generate import rejection_summary, verify_probes

    bases = _read(args.bases, "base claims")
    probes = _read(args.probes, "probes")
    if "delta_length_pct" in probes.columns:
        probes = probes.with_columns(pl.col("delta_length_pct").cast(pl.Float64, strict=False))
    try:
        verified = verify_probes(bases, probes, max_length_change=args.max_length_change)
    except CAPInputError as err:
        raise _named(err, args.probes) from None
    _write(verified, args.out)
    summary = rejection_summary(verified)
    lines = [f"{r['slot']}: kept {r['kept']}/{r['n']}" + (f" ({r['reasons']})" if r["rejected"] else "")
             for r in summary.iter_rows(named=True) if r["n"]]
    kept = int((verified["status"] == "kept").sum())
    return "\n".join(lines + [f"kept {kept} of {verified.height} probes; wrote {args.out}"])


def _grade(args: argparse.Namespace) -> str:
    import sys

    from cap_core.validity.probes.grade import grade_probes

    grades, notices = _live(grade_probes, _read(args.bases, "base claims"), _read(args.probes, "probes"), args.judge,
                            cache_dir=_cache(args), max_calls=args.max_calls, api_base=args.api_base)
    for n in notices:
        print(visible(f"notice: {n}"), file=sys.stderr)
    _write(grades, args.out)
    return f"wrote {grades.height} graded probes to {args.out}"


def _annotate(args: argparse.Namespace) -> str:
    from cap_core.validity.annotation import apply_annotations

    probes = _read(args.probes, "probes")
    try:
        kept, report = apply_annotations(probes, _read(args.annotations, "annotations"),
                                         min_agreement=args.min_agreement)
    except CAPInputError as err:
        raise _named(err, args.annotations) from None
    _write(kept, args.out)
    if args.report:
        _write(report, args.report)
    lines = [f"excluded slot {r['slot']}: {r['reason']}" for r in report.iter_rows(named=True) if r["excluded"]]
    return "\n".join(lines + [f"kept {kept.height} of {probes.height} probes; wrote {args.out}"])


def _validity(args: argparse.Namespace) -> str:
    from cap_core.validity.frontier import sweep
    from cap_core.validity.report import operating_table
    from cap_core.validity.sr import validate_grades

    try:
        grades = validate_grades(_read(args.grades, "grades"), file=args.grades.name)
    except CAPInputError as err:
        raise _named(err, args.grades) from None
    sw = sweep(grades)
    table = operating_table(grades, min_s=args.min_s, n_resamples=args.bootstrap, seed=args.seed, sw=sw)
    _write(table, args.out)
    if args.sweep:
        _write(sw, args.sweep)
    if args.slots and table.height:
        from cap_core.validity.slots import slot_sensitivity

        _write(slot_sensitivity(grades, dict(zip(table["judge"], table["tau"])), n_resamples=args.bootstrap,
                                seed=args.seed), args.slots)
    return f"wrote operating points of {table.height} judge(s) to {args.out}"
