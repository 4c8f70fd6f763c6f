"""evaluate: candidates (an offline local judge and a judge behind an OpenAI-compatible server) beside o1-mini."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.judge_comparison import compare_judges
from cap_core.cli.main import main
from cap_core.dataset import load_dataset
from cap_core.profile.conditions import compute_profile
from tests.cap_core.judging.tiny_server import TinyServer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
JB = SHARED / "judgebench"
pytestmark = pytest.mark.skipif(not JB.is_dir(), reason="needs ../shared/data")
N = 6
O1 = "o1-mini (arena_hard)"
SERVED = "openai/tiny-judge"
_DEC = {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}
_SWAP = {"A": "B", "B": "A", "tie": "tie"}


def _first_pairs(n):
    f = JB / "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    return [json.loads(ln) for ln in f.read_text().splitlines()[:n]]


def _gold(rec):
    return {"A>B": "A", "B>A": "B"}[rec["label"]]


def _pa_by_hand(verdicts: dict, pairs) -> float:
    """Position-averaged accuracy in percent: mean over items and both orders of 1[v == gold]."""
    hits = [verdicts.get((p["pair_id"], o)) == _gold(p) for p in pairs for o in ("AB", "BA")]
    return 100 * sum(hits) / len(hits)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    server = TinyServer()
    out = tmp_path_factory.mktemp("eval") / "out"
    cache = tmp_path_factory.mktemp("cache")
    try:
        args = ["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                "--limit", str(N), "--model", "local/longer", "--model", SERVED, "--model", f"choice:{SERVED}",
                "--api-base", server.url, "--out", str(out), "--cache", str(cache), "--bootstrap", "200"]
        assert main(args) == 0
        first_calls = server.calls
        assert main(args) == 0  # resumed: everything is a cache hit
        assert server.calls == first_calls
    finally:
        server.close()
    return out, first_calls


def test_candidates_sit_beside_o1_mini_on_the_same_items(evaluated):
    out, calls = evaluated
    # N items x 2 orders x 2 served judges (generating + choice)
    assert calls == N * 2 * 2
    ds = load_dataset(out)
    assert {O1, "local/longer", SERVED, f"choice:{SERVED}"} <= set(ds.judges)
    pairs = _first_pairs(N)
    ids = {p["pair_id"] for p in pairs}
    assert set(ds.items["item_id"]) == ids
    for judge in (O1, "local/longer", SERVED):
        assert set(ds.judgments.filter(pl.col("judge") == judge)["item_id"]) == ids


def test_paired_interval_of_served_judge_against_o1_mini(evaluated):
    out, _ = evaluated
    ds = load_dataset(out)
    pairs = _first_pairs(N)
    # o1-mini's verdicts straight from the published output file (second judgment swapped back)
    f = JB / "outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl"
    o1 = {}
    for ln in f.read_text().splitlines():
        r = json.loads(ln)
        if r["pair_id"] in {p["pair_id"] for p in pairs}:
            d = [_DEC.get(str(j.get("decision")), "unparsed") for j in r["judgments"][:2]]
            o1[(r["pair_id"], "AB")], o1[(r["pair_id"], "BA")] = d[0], _SWAP.get(d[1], "unparsed")
    # the served judge prefers the shorter response, in both orders the same original response
    served = {}
    for p in pairs:
        short = "A" if len(p["response_A"]) < len(p["response_B"]) else "B"
        served[(p["pair_id"], "AB")] = served[(p["pair_id"], "BA")] = short
    cmp = compare_judges(ds, SERVED, O1, "judgebench", n_resamples=200, seed=0)
    overall = cmp.filter(pl.col("condition") == "overall").row(0, named=True)
    assert overall["value_a"] == pytest.approx(_pa_by_hand(served, pairs))
    assert overall["value_b"] == pytest.approx(_pa_by_hand(o1, pairs))
    assert overall["ci95_low"] <= overall["diff"] <= overall["ci95_high"]


def test_choice_judge_reads_the_token_probabilities(evaluated):
    out, _ = evaluated
    ds = load_dataset(out)
    ch = ds.judgments.filter(pl.col("judge") == f"choice:{SERVED}")
    gen = ds.judgments.filter(pl.col("judge") == SERVED).select("item_id", "order", pl.col("verdict").alias("g"))
    # the server puts 0.8 on the shorter answer's letter and 0.2 on the other: P(verdict) = 0.8
    assert ch["confidence"].to_list() == pytest.approx([0.8] * ch.height)
    assert ch.join(gen, on=["item_id", "order"]).filter(pl.col("verdict") != pl.col("g")).height == 0


def test_usage_is_summarised_per_judge(evaluated):
    out, _ = evaluated
    usage = pl.read_csv(out / "usage.csv")
    row = usage.filter(pl.col("judge") == SERVED).row(0, named=True)
    assert row["mode"] == "generate" and row["judgments"] == 2 * N
    assert row["tokens"] == 110 * 2 * N  # the server's usage: 100 + 10 per call
    assert row["latency_mean_s"] > 0
    assert usage.filter(pl.col("judge") == f"choice:{SERVED}")["mode"][0] == "choice"
    assert usage.filter(pl.col("judge") == O1)["mode"][0] == "reference"
    assert usage.filter(pl.col("judge") == O1)["cost_usd"][0] is None


def test_profile_holds_everyone(evaluated):
    out, _ = evaluated
    prof = compute_profile(load_dataset(out), n_resamples=100, seed=0).profile
    judges = set(prof.filter(pl.col("condition") == "overall")["judge"])
    assert {O1, "local/longer", SERVED, f"choice:{SERVED}"} <= judges


def test_unknown_benchmark_is_one_line(capsys, tmp_path):
    code = main(["evaluate", "--benchmark", "judgebenc", "--source", str(JB), "--model", "local/longer",
                 "--out", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err
    assert "judgebench" in err and "Traceback" not in err


def test_candidate_named_like_a_reference_judge_is_refused(capsys, tmp_path):
    code = main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--model", O1, "--limit", "1",
                 "--out", str(tmp_path / "o"), "--cache", str(tmp_path / "c")])
    assert code == 2
    assert "reference judge" in capsys.readouterr().err


def test_dry_run_sends_nothing(capsys, tmp_path):
    code = main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                 "--model", "local/longer", "--limit", "3", "--dry-run", "--out", str(tmp_path / "o"),
                 "--cache", str(tmp_path / "c")])
    assert code == 0
    captured = capsys.readouterr()
    assert "estimate: 6 calls (0 cached, 6 to send)" in captured.err
    assert not (tmp_path / "o").exists()


def test_repeats_give_flip_rate_and_alpha(tmp_path):
    # local/longer is deterministic: at temperature 0.7 its three repeats agree on every unit,
    # so the flip rate is 0 and alpha is 1 (its verdicts differ between items, never within one)
    out = tmp_path / "o"
    assert main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                 "--limit", "5", "--model", "local/longer", "--repeats", "3", "--out", str(out),
                 "--cache", str(tmp_path / "c"), "--bootstrap", "100"]) == 0
    rel = pl.read_csv(out / "reliability.csv")
    row = rel.filter((pl.col("judge") == "local/longer") & (pl.col("condition") == "overall")).row(0, named=True)
    assert row["repeats"] == 3 and row["n_units"] == 10
    assert row["flip_rate"] == 0.0 and row["alpha"] == pytest.approx(1.0)
    reps = pl.read_parquet(out / "run" / "repeats.parquet")
    assert reps.height == 5 * 2 * 3
    # the dataset keeps one judgment per (judge, item, order): the first repeat
    assert load_dataset(out).judgments.filter(pl.col("judge") == "local/longer").height == 10


def test_repeats_at_temperature_zero_is_one_line(capsys, tmp_path):
    code = main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--model", "local/longer",
                 "--repeats", "3", "--temperature", "0", "--out", str(tmp_path / "o")])
    assert code == 2
    assert "--temperature" in capsys.readouterr().err


def test_augmentation_reports_label_preservation_per_item(tmp_path):
    out = tmp_path / "o"
    assert main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                 "--limit", "3", "--model", "local/longer", "--augment", "--out", str(out),
                 "--cache", str(tmp_path / "c"), "--bootstrap", "100"]) == 0
    report = pl.read_csv(out / "augmentation.csv")
    assert report.height == 3 * 2 and set(report["variant"]) == {"polished", "length_padded"}
    assert (report.filter(~pl.col("kept"))["reason"].str.len_chars() > 0).all()
    ds = load_dataset(out)
    assert "judgebench_augmented" in ds.benchmarks
    kept = report.filter(pl.col("kept")).height
    aug_items = ds.items.filter(pl.col("benchmark") == "judgebench_augmented")
    assert aug_items.height == 3 + kept
    # the published judges never saw the variants: they are not scored on the augmented benchmark
    assert set(ds.judgments.filter(pl.col("benchmark") == "judgebench_augmented")["judge"]) == {"local/longer"}
    decl = ds.declarations.filter(pl.col("benchmark") == "judgebench_augmented")
    if kept:
        assert set(decl["status"]) == {"augmented"}


def test_a_bad_family_table_stops_before_any_call_or_file(capsys, tmp_path):
    """The family table is read before judging: a bad one costs no request and leaves no output folder."""
    fam = tmp_path / "families.csv"
    fam.write_text("x,y\n1,2\n")
    out = tmp_path / "o"
    code = main(["evaluate", "--benchmark", "judgebench", "--source", str(JB), "--only", "judgebench",
                 "--model", "local/longer", "--limit", "1", "--families", str(fam), "--out", str(out),
                 "--cache", str(tmp_path / "c")])
    assert code == 2
    err = capsys.readouterr().err
    assert "family" in err and str(fam) in err
    assert "estimate:" not in err and not out.exists()
