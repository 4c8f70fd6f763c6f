"""Bad command lines across every verb: each kind exits 2 with one line naming the option or file.

Issue 21 ("bad CLI inputs across all verbs: at least 150 kinds tried, 0 silent accepts, 0 exit-1
tracebacks"). Every row of :data:`KINDS` is one kind of bad input, run in-process through
``cap_core.cli.main.main``; the test asserts exit status 2 (never 0, a silent accept; never 1, an
unexpected failure), exactly one line on stderr starting with ``error:`` that names the option or
the file at fault, and that no output file or folder the command named was left behind.

The inputs are real: the embedded default data (a copy), a profile and a baseline written by the
verbs themselves from it, the built-in probe tables of ``data/validity``. The bad values are
written here by hand. Placeholders in the command lines: ``{D}`` the dataset copy, ``{X}`` the
folder of prepared (good and bad) input files, ``{T}`` an empty folder for this test's outputs.

Kinds, counted per verb in :data:`KINDS` (the ids read ``verb: what is wrong``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cap_core.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
VALIDITY = ROOT / "data" / "validity"
JB = "judgebench"
JUDGE = "o1-mini (arena_hard)"
DEEP = 100_000  # nesting of the "deep" JSON files: far past Python's recursion limit


def _choose(*extra: str) -> list[str]:
    return ["choose", "--data", "{D}", "--benchmark", JB, "--bootstrap", "100", "--out", "{T}/s.csv", *extra]


def _profile(*extra: str) -> list[str]:
    return ["profile", "--data", "{D}", "--bootstrap", "100", "--out", "{T}/p.csv", *extra]


def _gate(baseline: str) -> list[str]:
    return _choose("--weights", "C1=1,C7=1", "--baseline", f"{{X}}/{baseline}")


_VERIFY = ["probes", "verify", "--bases", str(VALIDITY / "probe_bases.csv"), "--probes",
           str(VALIDITY / "probes_builtin.csv"), "--out", "{T}/v.csv"]
_GRADE = ["probes", "grade", "--bases", str(VALIDITY / "probe_bases.csv"), "--probes",
          str(VALIDITY / "probes_builtin.csv"), "--cache", "{T}/cache", "--out", "{T}/g.csv"]
_GEN = ["probes", "generate", "--bases", str(VALIDITY / "probe_bases.csv"), "--out", "{T}/pr.csv"]
_JUDGE = ["judge", "--items", "testbed", "--model", "local/longer", "--cache", "{T}/cache", "--limit", "1",
          "--out", "{T}/run"]
_EVAL = ["evaluate", "--benchmark", "judgebench", "--source", "{X}/jb", "--model", "local/longer", "--cache",
         "{T}/cache", "--out", "{T}/ev"]
_CASCADE = ["cascade", "--data", "{D}", "--benchmark", JB, "--cheap", "internlm2-7b-reward (RM)", "--fallback",
            JUDGE, "--out", "{T}/c.csv"]
_JURY = ["jury", "--data", "{D}", "--benchmark", JB, "--out", "{T}/j.csv"]
_COMPARE = ["compare", "--data", "{D}", "--benchmark", JB, "--out", "{T}/cmp.csv"]
_PAIR = ["--judge-a", JUDGE, "--judge-b", "internlm2-7b-reward (RM)"]

#: (id "verb: what is wrong", command line, text the one error line must hold: the option or the file)
KINDS: list[tuple[str, list[str], str]] = [
    # -- the command line itself ------------------------------------------------------------------
    ("cli: no verb", [], "verb"),
    ("cli: unknown verb", ["frobnicate"], "frobnicate"),
    ("cli: unknown option", [*_profile("--bootstraps", "9")], "--bootstraps"),
    ("cli: missing required option", ["profile", "--out", "{T}/p.csv"], "--data"),
    # -- import -----------------------------------------------------------------------------------
    ("import: no format", ["import", "{X}/all.csv", "--out", "{T}/ds"], "--format"),
    ("import: two formats", ["import", "table", "{X}/all.csv", "--format", "mtbench", "--out", "{T}/ds"],
     "--format"),
    ("import: unknown format", ["import", "--format", "nosuch", "{X}/all.csv", "--out", "{T}/ds"], "--format"),
    ("import: table file missing", ["import", "table", "{X}/nope.csv", "--out", "{T}/ds"], "nope.csv"),
    ("import: table is binary", ["import", "table", "{X}/binary.csv", "--out", "{T}/ds"], "binary.csv"),
    ("import: table with semicolons", ["import", "table", "{X}/semi.csv", "--out", "{T}/ds"], "semi.csv"),
    ("import: table JSON nested 100,000 deep", ["import", "table", "{X}/deep.json", "--out", "{T}/ds"],
     "deep.json"),
    ("import: judgments file missing", ["import", "table", "{X}/all.csv", "--judgments", "{X}/nope.csv", "--out",
                                        "{T}/ds"], "nope.csv"),
    ("import: alpacaeval JSON nested 100,000 deep", ["import", "--format", "alpacaeval", "{X}/deep.json", "--out",
                                                     "{T}/ds"], "deep.json"),
    ("import: mtbench JSON lines nested 100,000 deep", ["import", "--format", "mtbench", "{X}/deep.jsonl", "--out",
                                                        "{T}/ds"], "deep.jsonl"),
    ("import: arena-hard JSON lines nested 100,000 deep", ["import", "--format", "arena-hard", "{X}/deep.jsonl",
                                                           "--out", "{T}/ds"], "deep.jsonl"),
    ("import: inspect log nested 100,000 deep", ["import", "--format", "inspect", "{X}/deep.json", "--out",
                                                 "{T}/ds"], "deep.json"),
    ("import: rewardbench file nested 100,000 deep", ["import", "--format", "rewardbench", "{X}/deep.json",
                                                      "--out", "{T}/ds"], "deep.json"),
    ("import: rewardbench folder of a file nested 100,000 deep", ["import", "--format", "rewardbench",
                                                                  "{X}/rbdeep", "--out", "{T}/ds"], "deep.json"),
    ("import: autoj JSON lines nested 100,000 deep", ["import", "--format", "autoj", "{X}/rbdeep", "--out",
                                                      "{T}/ds"], "deep.jsonl"),
    ("import: mtbench malformed JSON line", ["import", "--format", "mtbench", "{X}/bad.jsonl", "--out", "{T}/ds"],
     "bad.jsonl"),
    ("import: llmbar folder missing", ["import", "llmbar", "{X}/nope", "--out", "{T}/ds"], "nope"),
    ("import: judgebench folder missing", ["import", "judgebench", "{X}/nope", "--out", "{T}/ds"], "nope"),
    ("import: --out is the input file", ["import", "table", "{X}/all.csv", "--out", "{X}/all.csv"], "--out"),
    ("import: --out holds the input", ["import", "table", "{X}/all.csv", "--out", "{X}"], "--out"),
    ("import: --out is an existing file", ["import", "table", "{X}/all.csv", "--out", "{X}/semi.csv"], "--out"),
    ("import: --out is the dataset read", ["import", "table", "{X}/all.csv", "--judgments", "{D}/judgments.parquet",
                                           "--out", "{D}"], "--out"),
    # -- build-default ----------------------------------------------------------------------------
    ("build-default: --shared missing", ["build-default", "--shared", "{X}/nope", "--out", "{T}/data"], "nope"),
    ("build-default: --out is a file", ["build-default", "--shared", "{X}", "--out", "{X}/all.csv"], "--out"),
    # -- profile and coverage ---------------------------------------------------------------------
    ("profile: --bootstrap 0", _profile("--bootstrap", "0"), "--bootstrap"),
    ("profile: --bootstrap 99", _profile("--bootstrap", "99"), "--bootstrap"),
    ("profile: --bootstrap 10^12", _profile("--bootstrap", str(10**12)), "--bootstrap"),
    ("profile: --bootstrap not a number", _profile("--bootstrap", "many"), "--bootstrap"),
    ("profile: --seed -5", _profile("--seed", "-5"), "--seed"),
    ("profile: --seed 2^32", _profile("--seed", str(2**32)), "--seed"),
    ("profile: --level 0", _profile("--level", "0"), "--level"),
    ("profile: --level 1", _profile("--level", "1"), "--level"),
    ("profile: --level 95", _profile("--level", "95"), "--level"),
    ("profile: --level nan", _profile("--level", "nan"), "--level"),
    ("profile: unknown benchmark", _profile("--benchmark", "nosuch"), "--benchmark"),
    ("profile: unknown judge", _profile("--judge", "nosuch"), "--judge"),
    ("profile: --data missing", ["profile", "--data", "{X}/nope", "--out", "{T}/p.csv"], "nope"),
    ("profile: --data is a file", ["profile", "--data", "{X}/all.csv", "--out", "{T}/p.csv"], "all.csv"),
    ("profile: --out replaces the data's items", ["profile", "--data", "{D}", "--out", "{D}/items.parquet"],
     "--out"),
    ("profile: --out is a folder", ["profile", "--data", "{D}", "--out", "{X}"], "--out"),
    ("profile: --out under a file", ["profile", "--data", "{D}", "--out", "{X}/all.csv/p.csv"], "--out"),
    ("profile: --out in a folder that refuses files", ["profile", "--data", "{D}", "--out", "/proc/p.csv"], "--out"),
    ("profile: --scheduler without dask", _profile("--scheduler", "tcp://127.0.0.1:1"), "--scheduler"),
    ("profile: recorded verdicts streamed", _profile("--verdicts", "recorded", "--engine", "stream"), "--verdicts"),
    ("profile: --workers 0", _profile("--engine", "dask", "--workers", "0"), "--workers"),
    ("profile: --engine unknown", _profile("--engine", "spark"), "--engine"),
    ("coverage: --data missing", ["coverage", "--data", "{X}/nope", "--out", "{T}/c.csv"], "nope"),
    ("summary: --data missing", ["summary", "--data", "{X}/nope", "--out", "{T}/s.csv"], "nope"),
    ("summary: --out replaces the data's judgments", ["summary", "--data", "{D}", "--out",
                                                      "{D}/judgments.parquet"], "--out"),
    ("summary: --out is a folder", ["summary", "--data", "{D}", "--out", "{D}"], "--out"),
    ("summary: --out - (standard output is not a file)", ["summary", "--data", "{D}", "--out", "-"], "--out"),
    ("summary: --out a blank name", ["summary", "--data", "{D}", "--out", " "], "--out"),
    ("import: --out - (a folder, not standard output)", ["import", "--format", "table", "{X}/all.csv", "--out", "-"],
     "--out"),
    ("choose: an empty --preset", _choose("--preset", ""), "--preset"),
    ("profile: misspelt benchmark gets the closest name", _profile("--benchmark", "judgebnch"), "did you mean"),
    ("coverage: --out replaces the data's judgments", ["coverage", "--data", "{D}", "--out",
                                                       "{D}/judgments.parquet"], "--out"),
    # -- choose: weights, presets, minimums, gates ------------------------------------------------
    ("choose: weight of an unknown condition", _choose("--weights", "C9=1"), "--weights"),
    ("choose: negative weight", _choose("--weights", "C1=-1"), "--weights"),
    ("choose: weight nan", _choose("--weights", "C1=nan"), "--weights"),
    ("choose: weight inf", _choose("--weights", "C1=inf"), "--weights"),
    ("choose: weight 1e309 (overflows to inf)", _choose("--weights", "C1=1e309"), "--weights"),
    ("choose: weight without a number", _choose("--weights", "C1"), "--weights"),
    ("choose: weight not a number", _choose("--weights", "C1=high"), "--weights"),
    ("choose: weight with digit grouping 1_000", _choose("--weights", "C1=1,C7=1_000"), "C7=1_000"),
    ("choose: a condition weighed twice", _choose("--weights", "C1=1,C1=2"), "--weights"),
    ("choose: all weights zero", _choose("--weights", "C1=0,C7=0"), "--weights"),
    ("choose: empty weights", _choose("--weights", ","), "--weights"),
    ("choose: unknown preset", _choose("--preset", "nosuch"), "--preset"),
    ("choose: weights and a preset", _choose("--weights", "C1=1", "--preset", "balanced"), "--preset"),
    ("choose: minimum of an unknown condition", _choose("--min", "C9=60"), "--min"),
    ("choose: minimum nan", _choose("--min", "C7=nan"), "--min"),
    ("choose: minimum with digit grouping 6_0", _choose("--min", "C7=6_0"), "C7=6_0"),
    ("choose: minimum above 100", _choose("--min", "C7=150"), "--min"),
    ("choose: minimum without a value", _choose("--min", "C7"), "--min"),
    ("choose: gate on an unknown judge", _choose("--fail-below", "nosuch=60"), "--fail-below"),
    ("choose: gate without a judge", _choose("--fail-below", "=60"), "--fail-below"),
    ("choose: gate threshold nan", _choose("--fail-below", f"{JUDGE}=nan"), "--fail-below"),
    ("choose: gate threshold above 100", _choose("--fail-below", f"{JUDGE}=150"), "--fail-below"),
    ("choose: gate threshold not a number", _choose("--fail-below", f"{JUDGE}=high"), "--fail-below"),
    ("choose: --level 1.5", _choose("--level", "1.5"), "--level"),
    ("choose: --level nan", _choose("--level", "nan"), "--level"),
    ("choose: --bootstrap 0", _choose("--bootstrap", "0"), "--bootstrap"),
    ("choose: --seed -5", _choose("--seed", "-5"), "--seed"),
    ("choose: unknown benchmark", ["choose", "--data", "{D}", "--benchmark", "nosuch", "--out", "{T}/s.csv"],
     "--benchmark"),
    ("choose: --html for several benchmarks", ["choose", "--data", "{D}", "--bootstrap", "100", "--out",
                                               "{T}/s.csv", "--html", "{T}/r.html"], "--benchmark"),
    ("choose: --failures unknown", _choose("--failures", "drop"), "--failures"),
    ("choose: --items unknown", _choose("--items", "all"), "--items"),
    # -- choose: outputs --------------------------------------------------------------------------
    ("choose: --out replaces the data's items", ["choose", "--data", "{D}", "--out", "{D}/items.parquet"], "--out"),
    ("choose: --out and --profile-out one path", _choose("--profile-out", "{T}/s.csv"), "--profile-out"),
    ("choose: --out and --html one path", _choose("--html", "{T}/s.csv"), "--html"),
    ("choose: --lock replaces the data's judgments", _choose("--lock", "{D}/judgments.parquet"), "--lock"),
    ("choose: --lock is the --baseline read", _choose("--baseline", "{X}/base.json", "--lock", "{X}/base.json"),
     "--lock"),
    ("choose: --html in a folder that refuses files", _choose("--html", "/proc/x.html"), "--html"),
    ("choose: --profile-out is a folder", _choose("--profile-out", "{X}"), "--profile-out"),
    ("choose: --out under a file", ["choose", "--data", "{D}", "--out", "{X}/all.csv/s.csv"], "--out"),
    ("report: --out is a folder", ["report", "--data", "{D}", "--benchmark", JB, "--out", "{X}"], "--out"),
    ("report: unknown condition weight", ["report", "--data", "{D}", "--benchmark", JB, "--weights", "C0=1", "--out",
                                          "{T}/r.html"], "--weights"),
    ("report: several benchmarks", ["report", "--data", "{D}", "--bootstrap", "100", "--out", "{T}/r.html"],
     "--benchmark"),
    # -- choose: the locked baseline --------------------------------------------------------------
    ("baseline: file missing", _gate("nope.json"), "nope.json"),
    ("baseline: not JSON", _gate("notjson.json"), "notjson.json"),
    ("baseline: JSON nested 100,000 deep", _gate("deep.json"), "deep.json"),
    ("baseline: another format", _gate("b_format.json"), "b_format.json"),
    ("baseline: a key missing", _gate("b_nokey.json"), "b_nokey.json"),
    ("baseline: score NaN", _gate("b_nan.json"), "b_nan.json"),
    ("baseline: score Infinity", _gate("b_inf.json"), "b_inf.json"),
    ("baseline: interval bound -Infinity", _gate("b_lo_inf.json"), "b_lo_inf.json"),
    ("baseline: interval bound NaN", _gate("b_hi_nan.json"), "b_hi_nan.json"),
    ("baseline: interval swapped", _gate("b_swapped.json"), "b_swapped.json"),
    ("baseline: score 1e300", _gate("b_huge.json"), "b_huge.json"),
    ("baseline: score -50", _gate("b_negative.json"), "b_negative.json"),
    ("baseline: foreign item ids", _gate("b_foreign.json"), "b_foreign.json"),
    ("baseline: negative weight", _gate("b_weight.json"), "b_weight.json"),
    ("baseline: weights all zero", _gate("b_zero.json"), "b_zero.json"),
    ("baseline: level 2", _gate("b_level.json"), "b_level.json"),
    ("baseline: verdict outside the set", _gate("b_verdict.json"), "b_verdict.json"),
    ("baseline: order outside the set", _gate("b_order.json"), "b_order.json"),
    ("baseline: scores not a list", _gate("b_scores.json"), "b_scores.json"),
    ("baseline: n_items negative", _gate("b_n.json"), "b_n.json"),
    ("baseline: another benchmark", _choose("--weights", "C1=1,C7=1", "--baseline", "{X}/b_bench.json"),
     "--baseline"),
    ("baseline: other weights", _choose("--weights", "C1=1,C7=2", "--baseline", "{X}/base.json"), "--baseline"),
    ("baseline: gated judge unknown", _gate("base.json") + ["--gate-judge", "nosuch"], "--gate-judge"),
    # -- analyses ---------------------------------------------------------------------------------
    ("spearman: --profile missing", ["spearman", "--profile", "{X}/nope.csv", "--out", "{T}/r.csv"], "nope.csv"),
    ("spearman: --profile not a profile", ["spearman", "--profile", "{X}/all.csv", "--out", "{T}/r.csv"], "all.csv"),
    ("spearman: --across-conditions without a view", ["spearman", "--profile", "{X}/profile.csv",
                                                      "--across-conditions", "--out", "{T}/r.csv"], "--view"),
    ("spearman: unknown condition", ["spearman", "--profile", "{X}/profile.csv", "--condition", "C9", "--out",
                                     "{T}/r.csv"], "--condition"),
    ("spearman: --out is the --profile read", ["spearman", "--profile", "{X}/profile.csv", "--out",
                                               "{X}/profile.csv"], "--out"),
    ("spearman: --profile and --published", ["spearman", "--profile", "{X}/profile.csv", "--published", "--out",
                                             "{T}/r.csv"], "--published"),
    ("stress: --base without --stressed", ["stress", "--published", "--base", JB, "--out", "{T}/r.csv"], "--base"),
    ("stress: unknown view", ["stress", "--profile", "{X}/profile.csv", "--base", "nosuch", "--stressed", JB,
                              "--out", "{T}/r.csv"], "nosuch"),
    ("stress: --bootstrap 0 with --data", ["stress", "--data", "{D}", "--bootstrap", "0", "--out", "{T}/r.csv"],
     "--bootstrap"),
    ("stress: --summary-out is --out", ["stress", "--published", "--out", "{T}/r.csv", "--summary-out",
                                        "{T}/r.csv"], "--summary-out"),
    ("distance: --family-map missing", ["distance", "--published", "--family-map", "{X}/nope.csv", "--out",
                                        "{T}/r.csv"], "nope.csv"),
    ("distance: --family-map without its columns", ["distance", "--published", "--family-map", "{X}/semi.csv",
                                                    "--out", "{T}/r.csv"], "semi.csv"),
    ("distance: --pairs-out is --out", ["distance", "--published", "--out", "{T}/r.csv", "--pairs-out",
                                        "{T}/r.csv"], "--pairs-out"),
    ("correct: unknown benchmark", ["correct", "--data", "{D}", "--benchmark", "nosuch", "--out", "{T}/r.csv"],
     "nosuch"),
    ("correct: unknown judge", ["correct", "--data", "{D}", "--benchmark", JB, "--judge", "nosuch", "--out",
                                "{T}/r.csv"], "nosuch"),
    ("correct: --bootstrap 5", ["correct", "--data", "{D}", "--benchmark", JB, "--bootstrap", "5", "--out",
                                "{T}/r.csv"], "--bootstrap"),
    ("compare: no judges", _COMPARE, "--judge"),
    ("compare: --judge-a alone", [*_COMPARE, "--judge-a", JUDGE], "--judge"),
    ("compare: a pair and --judge", [*_COMPARE, *_PAIR, "--judge", JUDGE], "--judge"),
    ("compare: --margin nan", [*_COMPARE, *_PAIR, "--margin", "nan"], "--margin"),
    ("compare: --margin inf", [*_COMPARE, *_PAIR, "--margin", "inf"], "--margin"),
    ("compare: --margin -1", [*_COMPARE, *_PAIR, "--margin", "-1"], "--margin"),
    ("compare: unknown judge", [*_COMPARE, "--judge-a", JUDGE, "--judge-b", "nosuch"], "nosuch"),
    ("compare: --correction unknown", [*_COMPARE, *_PAIR, "--correction", "bonferroni"], "--correction"),
    ("compare: --seed -5", [*_COMPARE, *_PAIR, "--seed", "-5"], "--seed"),
    ("qc: a flag no item carries", ["qc", "--data", "{D}", "--flag", "typo", "--out", "{T}/r.csv"], "--flag"),
    ("qc: --bootstrap 0", ["qc", "--data", "{D}", "--bootstrap", "0", "--out", "{T}/r.csv"], "--bootstrap"),
    ("hard: no selector nor construction", ["hard", "--data", "{D}", "--benchmark", JB, "--out", "{T}/r.csv"],
     "--selector"),
    ("hard: construction without item_id", ["hard", "--data", "{D}", "--benchmark", JB, "--construction",
                                            "{X}/semi.csv", "--out", "{T}/r.csv"], "semi.csv"),
    ("hard: unknown selector", ["hard", "--data", "{D}", "--benchmark", JB, "--selector", "nosuch", "--out",
                                "{T}/r.csv"], "nosuch"),
    ("hard: --types-out is --out", ["hard", "--data", "{D}", "--benchmark", JB, "--selector", JUDGE, "--out",
                                    "{T}/r.csv", "--types-out", "{T}/r.csv"], "--types-out"),
    ("robustness: --profile missing", ["robustness", "--profile", "{X}/nope.csv", "--out", "{T}/r.csv"], "nope.csv"),
    ("robustness: --c8-out is --out", ["robustness", "--published", "--out", "{T}/r.csv", "--c8-out", "{T}/r.csv"],
     "--c8-out"),
    # -- cascades ---------------------------------------------------------------------------------
    ("cascade: unknown cheap judge", ["cascade", "--data", "{D}", "--benchmark", JB, "--cheap", "nosuch",
                                      "--fallback", JUDGE, "--out", "{T}/c.csv"], "nosuch"),
    ("cascade: unknown fallback", ["cascade", "--data", "{D}", "--benchmark", JB, "--cheap",
                                   "internlm2-7b-reward (RM)", "--fallback", "nosuch", "--out", "{T}/c.csv"],
     "nosuch"),
    ("cascade: unknown benchmark", ["cascade", "--data", "{D}", "--benchmark", "nosuch", "--cheap", JUDGE,
                                    "--fallback", JUDGE, "--out", "{T}/c.csv"], "nosuch"),
    ("cascade: --splits 0", [*_CASCADE, "--splits", "0"], "--splits"),
    ("cascade: --bootstrap 0", [*_CASCADE, "--bootstrap", "0"], "--bootstrap"),
    ("cascade: unknown confidence method", [*_CASCADE, "--method", "psychic"], "--method"),
    ("cascade: --prices missing", [*_CASCADE, "--prices", "{X}/nope.csv"], "nope.csv"),
    ("jury: two jurors", [*_JURY, "--judge", JUDGE, "--judge", "internlm2-7b-reward (RM)"], "--judge"),
    ("jury: unknown juror", [*_JURY, "--judge", JUDGE, "--judge", "internlm2-7b-reward (RM)", "--judge", "nosuch"],
     "nosuch"),
    ("agreement: --cheap without --repeated", ["agreement", "--data", "{D}", "--benchmark", JB, "--judge", JUDGE,
                                               "--judge", "internlm2-7b-reward (RM)", "--cheap", JUDGE, "--out",
                                               "{T}/a.csv"], "--repeated"),
    ("agreement: --repeated is --out", ["agreement", "--data", "{D}", "--benchmark", JB, "--judge", JUDGE, "--judge",
                                        "internlm2-7b-reward (RM)", "--cheap", JUDGE, "--repeated", "{T}/a.csv",
                                        "--out", "{T}/a.csv"], "--repeated"),
    ("agreement: unknown judge", ["agreement", "--data", "{D}", "--benchmark", JB, "--judge", JUDGE, "--judge",
                                  "nosuch", "--out", "{T}/a.csv"], "nosuch"),
    ("graded: --table missing", ["graded", "--table", "{X}/nope.csv", "--out", "{T}/g.csv"], "nope.csv"),
    ("graded: --data without graded.parquet", ["graded", "--data", "{D}", "--out", "{T}/g.csv"], "graded.parquet"),
    ("graded: unknown label column", ["graded", "--data", str(ROOT / "data" / "pandalm"), "--label", "nosuch",
                                      "--out", "{T}/g.csv"], "nosuch"),
    ("graded: a jury of one", ["graded", "--data", str(ROOT / "data" / "pandalm"), "--jury", "PandaLM-7B",
                               "--out", "{T}/g.csv"], "--jury"),
    ("confidence: unknown judge", ["confidence", "--data", "{D}", "--benchmark", JB, "--judge", "nosuch", "--out",
                                   "{T}/f.csv"], "nosuch"),
    ("confidence: --bands-out is --out", ["confidence", "--data", "{D}", "--benchmark", JB, "--judge", JUDGE,
                                          "--out", "{T}/f.csv", "--bands-out", "{T}/f.csv"], "--bands-out"),
    # -- audit ------------------------------------------------------------------------------------
    ("audit: --permutations 5", ["audit", "--labels", "{X}/labels.csv", "--permutations", "5", "--out",
                                 "{T}/a.csv"], "--permutations"),
    ("audit: --permutations 10^8", ["audit", "--labels", "{X}/labels.csv", "--permutations", str(10**8), "--out",
                                    "{T}/a.csv"], "--permutations"),
    ("audit: --folds 1", ["audit", "--labels", "{X}/labels.csv", "--folds", "1", "--out", "{T}/a.csv"], "--folds"),
    ("audit: label file missing", ["audit", "--labels", "{X}/nope.csv", "--out", "{T}/a.csv"], "nope.csv"),
    ("audit: label file without labels", ["audit", "--labels", "{X}/semi.csv", "--out", "{T}/a.csv"], "semi.csv"),
    ("audit: --mode unknown", ["audit", "--labels", "{X}/labels.csv", "--mode", "triple", "--out", "{T}/a.csv"],
     "--mode"),
    ("audit: --predictions is --out", ["audit", "--labels", "{X}/labels.csv", "--out", "{T}/a.csv", "--predictions",
                                       "{T}/a.csv"], "--predictions"),
    ("audit: --out is the label file", ["audit", "--labels", "{X}/labels.csv", "--out", "{X}/labels.csv"], "--out"),
    # -- probes and validity ----------------------------------------------------------------------
    ("probes generate: --bases missing", ["probes", "generate", "--bases", "{X}/nope.csv", "--out", "{T}/p.csv"],
     "nope.csv"),
    ("probes generate: bases without their columns", ["probes", "generate", "--bases", "{X}/semi.csv", "--out",
                                                      "{T}/p.csv"], "semi.csv"),
    ("probes generate: --skipped is --out", [*_GEN, "--skipped", "{T}/pr.csv"], "--skipped"),
    ("probes generate: --out is --bases", ["probes", "generate", "--bases", "{X}/bases.csv", "--out",
                                           "{X}/bases.csv"], "--out"),
    ("probes generate: empty generator", [*_GEN, "--generator", " ", "--cache", "{T}/cache"], "--generator"),
    ("probes generate: --max-attempts 0", [*_GEN, "--generator", "localgen/rules", "--max-attempts", "0", "--cache",
                                           "{T}/cache"], "--max-attempts"),
    ("probes generate: unknown slot", [*_GEN, "--generator", "localgen/rules", "--slot", "sarcasm", "--cache",
                                       "{T}/cache"], "--slot"),
    ("probes generate: every request fails", [*_GEN, "--generator", "local/nosuch", "--max-attempts", "1",
                                              "--cache", "{T}/cache"], "--generator"),
    ("probes verify: --max-length-change nan", [*_VERIFY, "--max-length-change", "nan"], "--max-length-change"),
    ("probes verify: --max-length-change 0", [*_VERIFY, "--max-length-change", "0"], "--max-length-change"),
    ("probes verify: --max-length-change -1", [*_VERIFY, "--max-length-change", "-1"], "--max-length-change"),
    ("probes verify: --max-length-change inf", [*_VERIFY, "--max-length-change", "inf"], "--max-length-change"),
    ("probes verify: --probes missing", ["probes", "verify", "--bases", str(VALIDITY / "probe_bases.csv"),
                                         "--probes", "{X}/nope.csv", "--out", "{T}/v.csv"], "nope.csv"),
    ("probes grade: every request fails", [*_GRADE, "--judge", "local/nosuch"], "--judge"),
    ("probes grade: blank judge", [*_GRADE, "--judge", " "], "--judge"),
    ("probes grade: --max-calls -1", [*_GRADE, "--judge", "localgrade/overlap", "--max-calls", "-1"], "--max-calls"),
    ("probes grade: unverified probes", ["probes", "grade", "--bases", str(VALIDITY / "probe_bases.csv"), "--probes",
                                         "{X}/bases.csv", "--judge", "localgrade/overlap", "--cache", "{T}/cache",
                                         "--out", "{T}/g.csv"], "status"),
    ("probes annotate: --min-agreement 1.5", ["probes", "annotate", "--probes", str(VALIDITY / "probes_builtin.csv"),
                                              "--annotations", "{X}/semi.csv", "--min-agreement", "1.5", "--out",
                                              "{T}/k.csv"], "--min-agreement"),
    ("probes annotate: --min-agreement nan", ["probes", "annotate", "--probes", str(VALIDITY / "probes_builtin.csv"),
                                              "--annotations", "{X}/semi.csv", "--min-agreement", "nan", "--out",
                                              "{T}/k.csv"], "--min-agreement"),
    ("probes annotate: --annotations missing", ["probes", "annotate", "--probes",
                                                str(VALIDITY / "probes_builtin.csv"), "--annotations", "{X}/nope.csv",
                                                "--out", "{T}/k.csv"], "nope.csv"),
    ("probes annotate: --report is --out", ["probes", "annotate", "--probes", str(VALIDITY / "probes_builtin.csv"),
                                            "--annotations", "{X}/semi.csv", "--out", "{T}/k.csv", "--report",
                                            "{T}/k.csv"], "--report"),
    ("validity: --min-s nan", ["validity", "--grades", "{X}/grades.parquet", "--min-s", "nan", "--out", "{T}/o.csv"],
     "--min-s"),
    ("validity: --min-s 2", ["validity", "--grades", "{X}/grades.parquet", "--min-s", "2", "--out", "{T}/o.csv"],
     "--min-s"),
    ("validity: --bootstrap 0", ["validity", "--grades", "{X}/grades.parquet", "--bootstrap", "0", "--out",
                                 "{T}/o.csv"], "--bootstrap"),
    ("validity: --grades missing", ["validity", "--grades", "{X}/nope.csv", "--out", "{T}/o.csv"], "nope.csv"),
    ("validity: --grades not a graded table", ["validity", "--grades", "{X}/all.csv", "--out", "{T}/o.csv"],
     "all.csv"),
    ("validity: --sweep is --out", ["validity", "--grades", "{X}/grades.parquet", "--out", "{T}/o.csv", "--sweep",
                                    "{T}/o.csv"], "--sweep"),
    # -- judge ------------------------------------------------------------------------------------
    ("judge: --items missing", ["judge", "--items", "{X}/nope.csv", "--model", "local/longer", "--cache",
                                "{T}/cache", "--out", "{T}/run"], "nope.csv"),
    ("judge: --orders XY", [*_JUDGE, "--orders", "AB,XY"], "--orders"),
    ("judge: a model named twice", [*_JUDGE, "--model", "local/longer"], "--model"),
    ("judge: --concurrency 0", [*_JUDGE, "--concurrency", "0"], "--concurrency"),
    ("judge: --temperature nan", [*_JUDGE, "--temperature", "nan"], "--temperature"),
    ("judge: --temperature 3", [*_JUDGE, "--temperature", "3"], "--temperature"),
    ("judge: --max-tokens 0", [*_JUDGE, "--max-tokens", "0"], "--max-tokens"),
    ("judge: --timeout inf", [*_JUDGE, "--timeout", "inf"], "--timeout"),
    ("judge: --timeout nan", [*_JUDGE, "--timeout", "nan"], "--timeout"),
    ("judge: --budget-usd inf", [*_JUDGE, "--budget-usd", "inf"], "--budget-usd"),
    ("judge: --budget-usd -1", [*_JUDGE, "--budget-usd", "-1"], "--budget-usd"),
    ("judge: --budget-calls -2", [*_JUDGE, "--budget-calls", "-2"], "--budget-calls"),
    ("judge: --max-retries -1", [*_JUDGE, "--max-retries", "-1"], "--max-retries"),
    ("judge: --limit 0", [*_JUDGE[:-2], "--limit", "0", "--out", "{T}/run"], "--limit"),
    ("judge: --repeats 0", [*_JUDGE, "--repeats", "0"], "--repeats"),
    ("judge: repeats at temperature 0", [*_JUDGE, "--repeats", "3", "--temperature", "0"], "--temperature"),
    ("judge: unknown template", [*_JUDGE, "--template", "nosuch"], "--template"),
    ("judge: the evaluator is a judge", [*_JUDGE, "--evaluator", "local/longer"], "--evaluator"),
    ("judge: --out is an existing file", [*_JUDGE[:-2], "--out", "{X}/all.csv"], "--out"),
    ("judge: --out is the dataset read as --items", ["judge", "--items", "{D}", "--model", "local/longer", "--cache",
                                                     "{T}/cache", "--out", "{D}"], "--out"),
    ("judge: an unknown local model (refused before any call)", ["judge", "--items", "testbed", "--model",
                                                                  "local/nosuch", "--cache", "{T}/cache",
                                                                  "--limit", "1", "--out", "{T}/run"], "--model"),
    # -- evaluate ---------------------------------------------------------------------------------
    ("evaluate: --bootstrap 0", [*_EVAL, "--bootstrap", "0"], "--bootstrap"),
    ("evaluate: --seed -5", [*_EVAL, "--seed", "-5"], "--seed"),
    ("evaluate: --out is an existing file", [*_EVAL[:-2], "--out", "{X}/all.csv"], "--out"),
    ("evaluate: --out is the --source folder", [*_EVAL[:-2], "--out", "{X}/jb"], "--out"),
    ("evaluate: unknown benchmark", ["evaluate", "--benchmark", "nosuch", "--source", "{X}/jb", "--model",
                                     "local/longer", "--cache", "{T}/cache", "--out", "{T}/ev"], "--benchmark"),
    ("evaluate: --source missing", ["evaluate", "--benchmark", "judgebench", "--source", "{X}/nope", "--model",
                                    "local/longer", "--cache", "{T}/cache", "--out", "{T}/ev"], "nope"),
    ("evaluate: --orders XY", [*_EVAL, "--orders", "XY"], "--orders"),
    ("evaluate: --temperature nan", [*_EVAL, "--temperature", "nan"], "--temperature"),
    ("evaluate: --budget-usd nan", [*_EVAL, "--budget-usd", "nan"], "--budget-usd"),
    ("evaluate: --repeats 0", [*_EVAL, "--repeats", "0"], "--repeats"),
    ("evaluate: --families missing", [*_EVAL, "--families", "{X}/nope.csv"], "nope.csv"),
    # -- fetch and source-metrics -----------------------------------------------------------------
    ("fetch: no name", ["fetch", "--out", "{T}/f"], "NAME"),
    ("fetch: no --out", ["fetch", "judgebench"], "--out"),
    ("fetch: unknown name", ["fetch", "nosuch", "--out", "{T}/f"], "nosuch"),
    ("fetch: --out is an existing file", ["fetch", "judgebench", "--out", "{X}/all.csv"], "--out"),
    ("source-metrics: --data missing", ["source-metrics", "--data", "{X}/nope", "--out", "{T}/m.csv"], "nope"),
    ("source-metrics: --out replaces the data's items", ["source-metrics", "--data", "{D}", "--out",
                                                         "{D}/items.parquet"], "--out"),
    ("source-metrics: data without a source of its own metrics", ["source-metrics", "--data", str(ROOT / "data" / "pandalm"),
                                                           "--out", "{T}/m.csv"], "pandalm"),
    # -- an output named for another format than the one written (cap_core.outputs.check_suffix) ---------
    ("choose: --out names an Excel file", ["choose", "--data", "{D}", "--benchmark", JB, "--out", "{T}/s.xlsx"],
     "s.xlsx"),
    ("profile: --out names a Parquet file", ["profile", "--data", "{D}", "--out", "{T}/p.parquet"], "p.parquet"),
    ("report: --out names a CSV", ["report", "--data", "{D}", "--benchmark", JB, "--out", "{T}/r.csv"], "r.csv"),
    ("choose: --lock names a CSV", [*_choose("--lock", "{T}/l.csv")], "l.csv"),
    ("choose: --html names a PDF", [*_choose("--html", "{T}/r.pdf")], "r.pdf"),
    ("jury: --out names a gzip file", [*_JURY[:-1], "{T}/j.csv.gz"], "j.csv.gz"),
]


#: Kinds refused after their calls were made: the run folder (calls, reasons) stays as the record of them,
#: and the run's progress lines precede the error.
RUNS_KEPT = {"judge: every call fails"}


def _write_inputs(x: Path, d: Path) -> None:
    """The prepared input files of :data:`KINDS` in folder ``x`` (``d`` is the dataset copy)."""
    deep = "[" * DEEP + "]" * DEEP
    (x / "deep.json").write_text(deep)
    (x / "deep.jsonl").write_text('{"question_id": 1, "x": ' + deep + "}\n")
    (x / "rbdeep" / "eval-set-scores" / "org").mkdir(parents=True)  # RewardBench's layout, one file
    (x / "rbdeep" / "eval-set-scores" / "org" / "deep.json").write_text(deep)
    (x / "rbdeep" / "deep.jsonl").write_text('{"output": ' + deep + "}\n")
    (x / "bad.jsonl").write_text('{"question_id": 1, "model": \n')
    (x / "notjson.json").write_text("{not json")
    (x / "binary.csv").write_bytes(bytes(range(256)) * 8)
    (x / "semi.csv").write_text("benchmark;item_id;gold\nb;1;A\n")
    (x / "all.csv").write_text("judge,benchmark,item_id,order,verdict,gold\nj,b,1,AB,A,A\nj,b,1,BA,B,A\n")
    (x / "labels.csv").write_text("prompt,response_a,response_b,label\n" + "".join(
        f"q{i},{'long answer ' * (1 + i % 3)},short,{'A' if i % 2 else 'B'}\n" for i in range(40)))
    shutil.copy(VALIDITY / "probe_bases.csv", x / "bases.csv")
    shutil.copy(VALIDITY / "real_gradings.parquet", x / "grades.parquet")
    (x / "jb").mkdir()
    assert main(["profile", "--data", str(d), "--bootstrap", "100", "--out", str(x / "profile.csv")]) == 0
    assert main(["choose", "--data", str(d), "--benchmark", JB, "--weights", "C1=1,C7=1", "--bootstrap", "100",
                 "--out", str(x / "locked.csv"), "--lock", str(x / "base.json")]) == 0
    base = json.loads((x / "base.json").read_text())
    first = base["scores"][0]

    def variant(name: str, change) -> None:
        doc = json.loads(json.dumps(base))
        change(doc)
        (x / name).write_text(json.dumps(doc))  # json writes NaN and Infinity as bare literals, as a hand edit may

    variant("b_format.json", lambda b: b.update(format="cap-choice-baseline/0"))
    variant("b_nokey.json", lambda b: b.pop("judgments"))
    variant("b_nan.json", lambda b: b["scores"][0].update(score=float("nan")))
    variant("b_inf.json", lambda b: b["scores"][0].update(score=float("inf")))
    variant("b_lo_inf.json", lambda b: b["scores"][0].update(ci_low=float("-inf")))
    variant("b_hi_nan.json", lambda b: b["scores"][0].update(ci_high=float("nan")))
    variant("b_swapped.json", lambda b: b["scores"][0].update(ci_low=first["ci_high"], ci_high=first["ci_low"]))
    variant("b_huge.json", lambda b: b["scores"][0].update(score=1e300))
    variant("b_negative.json", lambda b: b["scores"][0].update(score=-50.0))
    variant("b_foreign.json", lambda b: b["judgments"][0].update(item_id="not-an-item-of-judgebench"))
    variant("b_weight.json", lambda b: b["weights"].update(C1=-1.0))
    variant("b_zero.json", lambda b: b.update(weights={"C1": 0.0, "C7": 0.0}))
    variant("b_level.json", lambda b: b.update(level=2))
    variant("b_verdict.json", lambda b: b["judgments"][0].update(verdict="maybe"))
    variant("b_order.json", lambda b: b["judgments"][0].update(order="XY"))
    variant("b_scores.json", lambda b: b.update(scores={"judge": JUDGE}))
    variant("b_n.json", lambda b: b["scores"][0].update(n_items=-1))
    variant("b_bench.json", lambda b: b.update(benchmark="llmbar"))


@pytest.fixture(scope="module")
def inputs(default_data_dir, tmp_path_factory) -> tuple[Path, Path]:
    """``(D, X)``: a copy of the default dataset and the folder of prepared input files."""
    root = tmp_path_factory.mktemp("bad_inputs")
    d = Path(shutil.copytree(default_data_dir, root / "D"))
    x = root / "X"
    x.mkdir()
    _write_inputs(x, d)
    return d, x


def _snapshot(*folders: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file()}


def test_at_least_150_kinds_over_every_verb():
    from cap_core.cli.main import build_parser

    assert len(KINDS) >= 150 and len({k for k, _, _ in KINDS}) == len(KINDS)
    verbs = set(build_parser()._subparsers._group_actions[0].choices)  # every verb the CLI has
    tried = {argv[0] for _, argv, _ in KINDS if argv}
    assert verbs - {"testbed"} <= tried, sorted(verbs - tried)


@pytest.mark.parametrize("kind, argv, names", KINDS, ids=[k for k, _, _ in KINDS])
def test_bad_input_exits_2_with_one_line_naming_it(inputs, tmp_path, capsys, monkeypatch, kind, argv, names):
    d, x = inputs
    monkeypatch.chdir(tmp_path)
    fill = {"{D}": str(d), "{X}": str(x), "{T}": str(tmp_path / "out")}

    def sub(text: str) -> str:
        for k, v in fill.items():
            text = text.replace(k, v)
        return text

    before = _snapshot(d, x)
    capsys.readouterr()
    try:
        code = main([sub(a) for a in argv])
    except SystemExit as stop:  # argparse stops the parser itself
        code = stop.code
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()
             and not (kind in RUNS_KEPT and line.startswith("judging "))]  # the progress of calls made
    assert code == 2, (kind, code, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (kind, err)
    assert "Traceback" not in err
    assert sub(names) in lines[0], (kind, lines[0])
    # nothing written: no output under the test's folder, inputs unchanged byte for byte
    left = [p for p in (tmp_path / "out").rglob("*") if p.is_file() and "cache" not in p.parts
            and not (kind in RUNS_KEPT and "run" in p.parts)]
    assert not left, (kind, left)
    assert _snapshot(d, x) == before, kind
