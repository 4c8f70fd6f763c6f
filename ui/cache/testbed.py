"""Streamlit glue of the *Build a testbed* page and of the testbed review on the Labelling page.

Every rule lives in :mod:`cap_core.testbed` (no streamlit there); this module caches, keeps
session keys and hands the pages what they draw.

Session keys:

``tb_last``          str path of the testbed folder this session built last.
``tb_review_error``  the message of an edit the review refused (shown once).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.errors import CAPInputError
from ui.cache.keys import path_stamp

LAST_KEY = "tb_last"
ERROR_KEY = "tb_review_error"
ITEM_SOURCES = ("table path", "upload")


def default_out(name: str) -> str:
    """``<runs dir>/testbeds/<file stem>``: where a testbed goes unless the user names a folder."""
    return str(config.runs_dir() / "testbeds" / (Path(name).stem or "testbed"))


def read_path(path: str) -> tuple[str, bytes]:
    """``(path, bytes)`` of a questions file on disk. Raises CAPInputError when it is missing, a folder, a pipe
    or device (:func:`cap_core.io.require_file`), or unreadable."""
    from cap_core.io import require_file

    p = Path(path).expanduser()
    require_file(p, "questions")
    try:
        return str(p), p.read_bytes()
    except OSError as exc:
        raise CAPInputError("cannot read the questions file", file=str(p), got=exc.strerror or type(exc).__name__,
                            fix="check the file's permissions") from None


#: The page's field for each argument of the build (and each command-line flag a message may name): its
#: errors name what the user sees. Build page fields first, then the review's edit fields.
FIELDS = {"out_dir": "Testbed folder to write", "--out": "Testbed folder to write",
          "generators": "Generator", "--generator": "Generator",
          "subtlety_judge": "Subtlety judge", "--subtlety-judge": "Subtlety judge",
          "api_base": "API base", "--api-base": "API base",
          "hard": "Pairs to harden", "--hard": "Pairs to harden",
          "regenerations": "Regenerations below subtlety 4", "--regenerations": "Regenerations below subtlety 4",
          "pad_factor": "Padding of the flawed answer", "--pad-factor": "Padding of the flawed answer",
          "budget_usd": "Budget: dollars", "--budget-usd": "Budget: dollars",
          "--skip-unplantable": "Leave out questions no type fits",
          "correct": "Correct answer", "flawed": "Flawed answer",
          "error_note": "Planted error", "failure_type": "Planted error type"}


def on_page(err: CAPInputError) -> CAPInputError:
    """``err`` naming the page's fields (:data:`FIELDS`) instead of the function's arguments or the
    command line's flags, in its argument and in its text."""
    def say(text: object) -> object:
        if not isinstance(text, str):
            return text
        for flag in sorted((f for f in FIELDS if f.startswith("--")), key=len, reverse=True):
            text = re.sub(re.escape(flag) + r"(?![\w-])", f"'{FIELDS[flag]}'", text)
        return text

    return err.replace(argument=FIELDS.get(err.argument or "", err.argument), problem=say(err.problem),
                       fix=say(err.fix))


def spec(generator: str, generator2: str, judge: str, api_base: str, hard: str | int | None, regenerations: int,
         pad_factor: float, budget_usd: float, skip_unplantable: bool = False):
    """The :class:`cap_core.testbed.build.BuildSpec` of the widgets, validated (CAPInputError naming the
    page's fields). ``hard``: the field's text; empty or None: the build's default share of the questions
    (as on the command line)."""
    from cap_core.testbed.build import BuildSpec

    text = "" if hard is None else str(hard).strip()
    if text and not (text.isascii() and text.isdigit()):
        raise CAPInputError("the number of pairs to harden is not a whole number", argument=FIELDS["hard"],
                            expected="a whole number >= 0, or empty (a quarter of the questions)", got=text,
                            fix="e.g. 8, or 0 for no Hard-Constructed subset")
    hard = int(text) if text else None
    gens = tuple(g.strip() for g in (generator, generator2) if g and g.strip()) or ("rules",)
    s = BuildSpec(generators=gens, subtlety_judge=judge.strip() or None, api_base=api_base.strip() or None,
                  hard=hard, regenerations=int(regenerations),
                  pad_factor=float(pad_factor), budget_usd=float(budget_usd) if budget_usd else None,
                  skip_unplantable=bool(skip_unplantable))
    try:
        s.validate()
    except CAPInputError as err:
        raise on_page(err) from None
    return s


@dataclass(frozen=True)
class Plan:
    """What the page shows before building: the questions, their types by domain, the estimate line."""

    n: int
    benchmark: str
    counts: pl.DataFrame
    unplantable: pl.DataFrame
    estimate: str
    n_hard: int


@st.cache_data(max_entries=8, show_spinner="Planning the testbed…")
def _plan(name: str, data: bytes, generators: tuple[str, ...], hard: int | None, skip: bool) -> tuple:
    from cap_core.testbed.build import BuildSpec, plan_build
    from cap_core.testbed.questions import read_questions

    p = plan_build(read_questions(Path(name).name, data), BuildSpec(generators=generators, hard=hard,
                                                                    skip_unplantable=skip))
    counts = (pl.DataFrame({"domain": p.questions.frame["domain"], "failure_type": p.types})
              .group_by("domain", "failure_type").len().rename({"len": "n"}))
    return p.questions.frame.height, p.benchmark, counts, p.unplantable, p.jobs(), p.n_hard


def plan(name: str, data: bytes, spec_) -> Plan:
    """The plan of a build (:func:`cap_core.testbed.build.plan_build`, cached: streamlit hashes the bytes) and
    its estimate line, read against the judging cache on every call (it changes as builds finish). Raises
    CAPInputError (bad questions, a question no type fits)."""
    from cap_core.testbed.cost import estimate_build, estimate_line

    try:
        n, bench, counts, unplantable, jobs, n_hard = _plan(name, data, spec_.generators, spec_.hard,
                                                            spec_.skip_unplantable)
    except CAPInputError as err:
        raise on_page(err) from None
    est = estimate_build(jobs, spec_, n_hard, config.cache_dir())
    return Plan(n, bench, counts, unplantable, estimate_line(est), n_hard)


def build(name: str, data: bytes, from_disk: bool, spec_, out_dir: str, on_progress: Callable[[dict], None]):
    """Build the testbed into ``out_dir`` (a path on disk is checked against the output), remember the folder
    in the session (:data:`LAST_KEY`) and return the :class:`cap_core.testbed.build.BuildResult`."""
    from cap_core.testbed.build import build_testbed

    cancel = threading.Event()
    try:
        res = build_testbed(name, spec_, out_dir=out_dir, cache_dir=config.cache_dir(),
                            data=None if from_disk else data, on_progress=on_progress, cancel=cancel)
    except CAPInputError as err:
        raise on_page(err) from None
    finally:
        cancel.set()
    st.session_state[LAST_KEY] = str(res.out_dir)
    return res


@st.cache_data(max_entries=8, show_spinner=False)
def _counts(path: str, stamp: tuple) -> tuple[pl.DataFrame, dict, list[str]]:
    from cap_core.testbed.layout import load_testbed_dir
    from cap_core.testbed.review import pair_counts, read_review

    tb = load_testbed_dir(path)
    return pair_counts(tb), tb.manifest, read_review(tb)[1]


def counts(path: str) -> tuple[pl.DataFrame, dict, list[str]]:
    """``(counts, manifest, review notices)`` of a testbed folder, read again when its files change."""
    return _counts(path, path_stamp(path))


def open_in_live_run(path: str) -> None:
    """Button callback: the Live run page reads this folder (its source and path set), then the page switches."""
    from ui.cache.live_run import ITEM_SOURCES as LR_SOURCES
    from ui.state import STORE

    store = st.session_state.setdefault(STORE, {})
    store.update(lr_src=LR_SOURCES[1], lr_path=path)
    for key in ("lr_src", "lr_path"):
        st.session_state.pop(key, None)


def open_in_review(path: str) -> None:
    """Button callback: the Labelling page reviews this folder."""
    from ui.state import STORE

    store = st.session_state.setdefault(STORE, {})
    store.update(lab_mode=MODES[1], lab_tb_path=path)
    for key in ("lab_mode", "lab_tb_path"):
        st.session_state.pop(key, None)


# -- review (Labelling page) -----------------------------------------------------------------------

#: What the Labelling page labels.
MODES = ("your pairs (A, B or tie)", "a built testbed (accept, reject or edit)")


@dataclass(frozen=True)
class ReviewView:
    """A testbed as the review draws it: ``pairs`` with ``state``, ``attempts``, ``notes``."""

    pairs: pl.DataFrame
    attempts: pl.DataFrame
    notes: list[str]


@st.cache_data(max_entries=4, show_spinner=False)
def _review(path: str, stamp: tuple) -> ReviewView:
    from cap_core.testbed.layout import load_testbed_dir
    from cap_core.testbed.review import read_review, review_state

    tb = load_testbed_dir(path)
    latest, notes = read_review(tb)
    state = review_state(tb, latest)
    rows = []
    for p in tb.pairs.iter_rows(named=True):  # an edited pair is shown with its edited texts
        rec = latest.get((p["benchmark"], p["base_item_id"]))
        if rec is not None and rec["action"] == "edit":
            p = dict(p, correct=rec["correct"], flawed=rec["flawed"], error_note=rec.get("error_note") or
                     p["error_note"], failure_type=rec.get("failure_type") or p["failure_type"])
        rows.append(p)
    pairs = pl.DataFrame(rows, schema=tb.pairs.schema).with_columns(state["state"])
    return ReviewView(pairs, tb.attempts, notes)


def review(path: str) -> ReviewView:
    """The review view of a testbed folder (read again whenever a decision is saved). Raises CAPInputError."""
    return _review(path, path_stamp(Path(path).expanduser()))


def decide(path: str, benchmark: str, base: str, action: str) -> None:
    """Button callback: save ``action`` for the pair (an edit takes the two text areas); a refused edit's
    message is kept for the page (:data:`ERROR_KEY`)."""
    from cap_core.testbed.review import record

    ss = st.session_state
    kw = {}
    if action == "edit":
        kw = {"correct": ss.get("lab_tb_correct"), "flawed": ss.get("lab_tb_flawed"),
              "error_note": ss.get("lab_tb_note"), "failure_type": ss.get("lab_tb_type")}
    try:
        record(Path(path).expanduser(), benchmark=benchmark, base_item_id=base, action=action, **kw)
        ss.pop(ERROR_KEY, None)
    except CAPInputError as err:
        ss[ERROR_KEY] = str(on_page(err))
