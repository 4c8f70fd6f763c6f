"""The model probe generator offline (``localgen/rules``), answer parsing and bad input."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.validity.probes.generate import generate_probes, verify_probes
from cap_core.validity.probes.generate_llm import (
    SLOT_INSTRUCTIONS,
    attempt_summary,
    generate_probes_llm,
    parse_edit,
    render,
)

BASES = Path(__file__).resolve().parents[4] / "data" / "validity" / "probe_bases.csv"


def test_offline_generator_matches_the_rule_path_and_rejects_no_ops(tmp_path):
    bases = pl.read_csv(BASES).head(6)
    probes, attempts, _ = generate_probes_llm(bases, cache_dir=tmp_path / "c", max_attempts=2)
    # independent path: the rule-based generator followed by the verifier
    rule = verify_probes(bases, generate_probes(bases)[0])
    kept = probes.filter(pl.col("status") == "kept")
    ref = rule.filter(pl.col("status") == "kept")
    assert sorted(zip(kept["probe_id"], kept["text"])) == sorted(zip(ref["probe_id"], ref["text"]))
    assert kept.columns == rule.columns
    # a rule that does not apply makes the local generator return the claim: rejected twice
    skipped = generate_probes(bases)[1]
    assert skipped.height > 0
    for b, s in zip(skipped["base_item_id"], skipped["slot"]):
        a = attempts.filter((pl.col("base_item_id") == b) & (pl.col("slot") == s))
        assert a["reason"].to_list() == ["moved nothing: text unchanged"] * 2
    summ = attempt_summary(attempts)
    assert summ["attempts"].sum() == attempts.height
    assert summ["kept"].sum() == kept.height


def test_prompt_carries_instruction_and_spans():
    base = pl.read_csv(BASES).row(0, named=True)
    p = render(base, "population_widening")
    assert SLOT_INSTRUCTIONS["population_widening"] in p and base["claim"] in p
    assert f'Population: replace "{base["population_span"]}" with "{base["wider_population"]}"' in p


@pytest.mark.parametrize("text,want", [
    ('{"claim": "All cats purr."}', "All cats purr."),
    ('Sure.\n```json\n{"claim": " All cats purr. "}\n```', "All cats purr."),
    ('"All cats purr."', "All cats purr."),
    ('{"claim": ""}', None), ('{"other": "x"}', None), ("", None), (None, None),
])
def test_parse_edit(text, want):
    assert parse_edit(text) == want


def test_bad_arguments(tmp_path):
    bases = pl.read_csv(BASES).head(1)
    with pytest.raises(CAPInputError, match="unknown probe slot"):
        generate_probes_llm(bases, cache_dir=tmp_path, slots=["sarcasm"])
    with pytest.raises(CAPInputError, match="max_attempts"):
        generate_probes_llm(bases, cache_dir=tmp_path, max_attempts=0)
    with pytest.raises(CAPInputError, match="no generator"):
        generate_probes_llm(bases, "", cache_dir=tmp_path)
    with pytest.raises(CAPInputError, match="empty claim"):
        generate_probes_llm(bases.with_columns(claim=pl.lit(" ")), cache_dir=tmp_path)


def test_cli_bad_slot_and_offline_run(tmp_path, capsys):
    from cap_core.cli.main import main

    bases = tmp_path / "b.csv"
    pl.read_csv(BASES).head(2).write_csv(bases)
    assert main(["probes", "generate", "--bases", str(bases), "--generator", "localgen/rules", "--slot", "sarcasm",
                 "--out", str(tmp_path / "p.csv")]) == 2
    assert "unknown probe slot" in capsys.readouterr().err
    assert main(["probes", "generate", "--bases", str(bases), "--generator", "localgen/rules", "--slot", "register",
                 "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "p.csv")]) == 0
    out = pl.read_csv(tmp_path / "p.csv")
    assert out["probe_id"].to_list() == ["med01:register", "med02:register"] and set(out["status"]) == {"kept"}
