"""Test-retest (flip rate, Krippendorff's alpha) and self-preference, with offline fake judges."""

from __future__ import annotations

import json
import os
import re
from collections import Counter

import krippendorff
import numpy as np
import polars as pl
import pytest

from cap_core.analyses.reliability import (
    _coincidences,
    alpha_nominal,
    load_families,
    self_preference,
)
from cap_core.analyses.reliability import (
    test_retest as retest,
)
from cap_core.dataset import load_dataset
from cap_core.errors import CAPInputError
from cap_core.judging.local_providers import register_offline_provider, section
from cap_core.judging.run import RunSpec, run_judging
from cap_core.schema import validate_items

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
_CALLS: Counter = Counter()


def _fake(name: str, messages) -> str:
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    q, a, _b = section(prompt, "Question"), section(prompt, "Answer A"), section(prompt, "Answer B")
    if name == "retest":  # FLIP items alternate A, B, A, ... from call to call; ALWAYS-B items say B
        _CALLS[prompt] += 1
        if "FLIP" in q:
            win = "A" if _CALLS[prompt] % 2 == 1 else "B"
        else:
            win = "B" if "ALWAYS-B" in q else "A"
    elif name == "gpt-self":  # recognises its own family's style and always picks it
        win = "A" if "GPTSTYLE" in a else "B"
    elif name == "claude-neutral":  # right unless the item is HARD, then takes the first answer
        win = "A" if "HARD" in q else ("A" if "CORRECT" in a else "B")
    else:
        raise LookupError(name)
    return json.dumps({"rationale": "fake", "winner": win})


register_offline_provider("fake", _fake)


def _items(rows) -> pl.DataFrame:
    df = pl.DataFrame(rows)
    return validate_items(df.drop("question", "response_a", "response_b")).join(
        df.select("benchmark", "item_id", "question", "response_a", "response_b"), on=["benchmark", "item_id"])


def test_flip_rate_and_alpha_match_a_hand_computation(tmp_path):
    # 4 items, 2 repeats, order AB: (A,A) (A,A) (A,B) (B,B)
    rows = [{"benchmark": "rt", "item_id": f"i{k}", "gold": "A", "question": q, "response_a": "one", "response_b": "two"}
            for k, q in enumerate(["plain one", "plain two", "FLIP this", "ALWAYS-B here"])]
    spec = RunSpec(judges=["fake/retest"], orders=("AB",), repeats=2, temperature=0.7, concurrency=1)
    run_judging(_items(rows), spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "run")
    ds = load_dataset(tmp_path / "run")
    reps = pl.read_parquet(tmp_path / "run" / "repeats.parquet")
    assert reps.height == 8 and sorted(reps["repeat"].unique()) == [0, 1]
    out = retest(ds, reps, n_resamples=300, seed=0).filter(pl.col("condition") == "overall").row(0, named=True)
    assert out["repeats"] == 2 and out["n_units"] == 4
    assert out["flip_rate"] == pytest.approx(25.0)  # one unit of four changed its verdict
    # coincidences: o_AA = 2 + 2, o_BB = 2, o_AB = o_BA = 1; n_A = 5, n_B = 3, n = 8
    # alpha = 1 - (n - 1) * 2 / (2 * n_A * n_B) = 1 - 14 / 30
    assert out["alpha"] == pytest.approx(1 - 14 / 30)
    assert out["alpha_low"] <= out["alpha"] <= out["alpha_high"]
    assert out["flip_low"] <= 25.0 <= out["flip_high"]


def test_repeat_index_is_in_the_cache_key(tmp_path):
    rows = [{"benchmark": "rt", "item_id": "i0", "gold": "A", "question": "FLIP q", "response_a": "x",
             "response_b": "y"}]
    spec = RunSpec(judges=["fake/retest"], orders=("AB",), repeats=3, temperature=0.7, concurrency=1)
    res = run_judging(_items(rows), spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "r1")
    assert res.stats["requests"] == 3 and len(set(res.calls["key"])) == 3
    again = run_judging(_items(rows), spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "r2")
    assert again.stats["requests"] == 0 and again.stats["cache_hits"] == 3


def test_repeats_at_temperature_zero_are_refused():
    with pytest.raises(CAPInputError, match="temperature"):
        RunSpec(judges=["local/first"], repeats=3, temperature=0.0).validate()


def test_weighted_alpha_equals_the_package_on_resampled_units():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(30, 3))
    codes[rng.random((30, 3)) < 0.1] = -1
    w = rng.integers(0, 3, size=30)
    dup = np.repeat(codes, w, axis=0)
    data = np.where(dup >= 0, dup, np.nan).T.astype(float)
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal", value_domain=[0, 1, 2, 3])
    got = alpha_nominal(w @ _coincidences(codes, 4), 4)
    assert float(got) == pytest.approx(want)


def _selfpref_items(n=40):
    rows, authors = [], []
    for i in range(n):
        gpt_is_a = i % 2 == 0
        gold = "A" if (i // 2) % 2 == 0 else "B"
        hard = i % 5 == 0
        texts = {}
        for side in ("A", "B"):
            mark = "GPTSTYLE" if (side == "A") == gpt_is_a else "plainstyle"
            texts[side] = f"{mark} answer {i}{' CORRECT' if side == gold else ''}"
        rows.append({"benchmark": "sp", "item_id": f"s{i}", "gold": gold,
                     "question": f"question {i}{' HARD' if hard else ''}", "response_a": texts["A"],
                     "response_b": texts["B"]})
        authors.append({"benchmark": "sp", "item_id": f"s{i}", "author_a": "gpt-4o" if gpt_is_a else "claude-3-opus",
                        "author_b": "claude-3-opus" if gpt_is_a else "gpt-4o"})
    return _items(rows), pl.DataFrame(authors)


def _by_hand(items: pl.DataFrame, authors: pl.DataFrame, family_marker: str, verdicts) -> tuple[float, float]:
    """(own_rate, other_rate) in percent, counting position-averaged picks by plain loops."""
    own_num = own_den = oth_num = oth_den = 0.0
    au = {r["item_id"]: r for r in authors.iter_rows(named=True)}
    for r in items.iter_rows(named=True):
        own = "A" if family_marker in au[r["item_id"]]["author_a"] else "B"
        for order in ("AB", "BA"):
            v = verdicts(r, order)
            if r["gold"] != own:
                own_den += 1
                own_num += v == own
            else:
                oth_den += 1
                oth_num += v != own
    return 100 * own_num / own_den, 100 * oth_num / oth_den


def test_planted_self_preference_is_detected_and_a_neutral_judge_is_not(tmp_path):
    items, authors = _selfpref_items()
    spec = RunSpec(judges=["fake/gpt-self", "fake/claude-neutral"], concurrency=2)
    run_judging(items, spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "run")
    ds = load_dataset(tmp_path / "run")
    sp = self_preference(ds, authors, families=load_families(), n_resamples=500, seed=0)
    me = sp.filter(pl.col("judge") == "fake/gpt-self").row(0, named=True)
    assert me["family"] == "OpenAI" and me["n_items"] == 40
    assert (me["own_rate"], me["other_rate"]) == pytest.approx(
        _by_hand(items, authors, "gpt", lambda r, o: "A" if "GPTSTYLE" in r["response_a"] else "B"))
    assert me["gap"] == pytest.approx(100.0) and me["detected"]

    def neutral(r, order):
        if "HARD" in r["question"]:
            return "A" if order == "AB" else "B"  # the first PRESENTED answer, in original letters
        return r["gold"]

    nt = sp.filter(pl.col("judge") == "fake/claude-neutral").row(0, named=True)
    assert nt["family"] == "Anthropic"
    assert (nt["own_rate"], nt["other_rate"]) == pytest.approx(_by_hand(items, authors, "claude", neutral))
    assert not nt["detected"] and nt["gap_low"] <= 0 <= nt["gap_high"]


def test_family_table_errors_name_row_and_column(tmp_path):
    f = tmp_path / "fam.csv"
    f.write_text("family,pattern\nOpenAI,gpt(\n")
    with pytest.raises(CAPInputError) as e:
        load_families(f)
    assert e.value.row == 1 and e.value.column == "pattern"
    f.write_text("name,pattern\nOpenAI,gpt\n")
    with pytest.raises(CAPInputError, match="family"):
        load_families(f)


def test_user_family_table_overrides_the_shipped_one(tmp_path):
    f = tmp_path / "fam.csv"
    f.write_text("family,pattern\nMine,gpt-self\n")
    items, authors = _selfpref_items(8)
    assert load_families(f) == {"Mine": ("gpt-self",)}
    assert re.search(load_families()["OpenAI"][0], "gpt-4o")
