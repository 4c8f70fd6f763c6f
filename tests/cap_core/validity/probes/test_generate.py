"""Probe generator, verifier and the built-in probe set."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.validity.probes.generate import (
    SLOTS,
    generate_probes,
    rejection_summary,
    verify_probes,
)

REPO = Path(__file__).resolve().parents[4]
BASES = REPO / "data" / "validity" / "probe_bases.csv"
BUILTIN = REPO / "data" / "validity" / "probes_builtin.csv"

ONE = pl.DataFrame({
    "base_item_id": ["x1"], "domain": ["test"],
    "claim": ["In the 2020 trial, the spray probably reduced rust slightly on some wheat plots, when it was dry."],
    "evidence": ["A trial found less rust on some dry plots."],
    "population_span": ["wheat plots"], "wider_population": ["cereal plots"],
    "domain_span": ["rust"], "adjacent_domain": ["rust and mildew"],
})


def test_every_slot_on_one_claim_by_hand():
    probes, skipped = generate_probes(ONE)
    assert skipped.height == 0 and probes.height == len(SLOTS)
    text = dict(zip(probes["slot"], probes["text"]))
    c = ONE["claim"][0]
    assert text["quantifier_strengthening"] == c.replace("some", "all")
    assert text["population_widening"] == c.replace("wheat plots", "cereal plots")
    assert text["domain_extension"] == c.replace("rust", "rust and mildew")
    assert text["tense_modality_shift"] == c.replace("reduced", "reduces")  # the condition clause is left alone
    assert text["condition_removal"] == "In the 2020 trial, the spray probably reduced rust slightly on some wheat plots."
    assert text["hedging_removal"] == c.replace("probably ", "")
    assert text["intensifier_addition"] == c.replace("slightly", "dramatically")
    assert text["clause_order"] == "When it was dry, in the 2020 trial, the spray probably reduced rust slightly on some wheat plots."
    assert text["formatting"] == "**Claim:** " + c
    assert text["length"].startswith(c + " ") and text["register"] == "Put simply: " + c
    assert text["restatement"] == c.replace("trial", "experiment")
    v = verify_probes(ONE, probes)
    assert v["status"].to_list() == ["kept"] * len(SLOTS)
    moved = dict(zip(v["slot"], v["axes_moved"]))
    assert moved["quantifier_strengthening"] == "scope" and moved["hedging_removal"] == "strength"
    assert moved["clause_order"] == "none"


def test_verifier_rejects_and_records_why():
    c = ONE["claim"][0]
    rows = [  # (slot, text, expected reason)
        ("quantifier_strengthening", c, "moved nothing: text unchanged"),
        ("hedging_removal", c.replace("some", "all").replace("probably ", ""), "moved both axes"),
        ("population_widening", c.replace("rust slightly", "rust"), "moved the strength axis, not the declared scope"),
        ("domain_extension", c.replace("In the 2020 trial", "In the 2020 experiment"),
         "moved nothing: no construct marker changed"),
        ("formatting", "**Claim:** " + c.replace("some", "many"), "control moved the scope axis"),
        ("register", "Put simply: " + c.replace("probably ", ""), "control moved the strength axis"),
    ]
    probes = pl.DataFrame({"probe_id": [f"p{i}" for i in range(len(rows))], "base_item_id": "x1",
                           "class": [SLOTS[s][0] for s, _, _ in rows], "axis": [SLOTS[s][1] for s, _, _ in rows],
                           "slot": [s for s, _, _ in rows], "text": [t for _, t, _ in rows]})
    v = verify_probes(ONE, probes)
    assert v["reason"].to_list() == [r for _, _, r in rows]
    assert (v["status"] == "rejected").all()
    summary = rejection_summary(v)
    assert summary["rejected"].sum() == len(rows)
    assert summary.filter(pl.col("slot") == "hedging_removal")["reasons"].item() == "moved both axes (1)"
    long = probes.head(1).with_columns(text=pl.lit(c.replace("some", "all") + " " + "x" * 100))
    assert verify_probes(ONE, long, max_length_change=0.5)["reason"][0].startswith("length changed")
    for bad in (float("nan"), float("inf"), 0.0, -0.5):  # nan once passed: every length change "within" nan
        with pytest.raises(CAPInputError, match="max_length_change must be a positive fraction"):
            verify_probes(ONE, long, max_length_change=bad)


def test_probe_without_base_is_refused():
    probes, _ = generate_probes(ONE)
    with pytest.raises(CAPInputError, match="probe without base") as e:
        verify_probes(ONE, probes.with_columns(base_item_id=pl.lit("ghost")))
    assert e.value.column == "base_item_id" and e.value.row == 1
    with pytest.raises(CAPInputError, match="class/axis do not match"):
        verify_probes(ONE, probes.with_columns(axis=pl.lit("scope")))


def test_generator_is_deterministic_and_builtin_set_is_current():
    bases = pl.read_csv(BASES)
    a, _ = generate_probes(bases)
    shuffled = bases.sample(fraction=1.0, shuffle=True, seed=1)
    assert shuffled["base_item_id"].to_list() != bases["base_item_id"].to_list()  # the input order really differs
    b, _ = generate_probes(shuffled)
    again, _ = generate_probes(bases)
    assert a.equals(again)  # same input, same table, row order included
    assert a.sort("probe_id").equals(b.sort("probe_id"))  # input order changes no probe
    fresh = verify_probes(bases, a)
    assert fresh.write_csv() == BUILTIN.read_text(encoding="utf-8")  # rebuild: see data/README.md


def test_builtin_set_covers_the_design():
    bases = pl.read_csv(BASES)
    shipped = pl.read_csv(BUILTIN)
    assert bases.height >= 40 and bases["domain"].n_unique() >= 4
    kept = shipped.filter(pl.col("status") == "kept")
    assert set(kept["slot"]) == set(SLOTS)  # every slot populated with verified probes
    per_domain = kept.join(bases.select("base_item_id", "domain"), on="base_item_id").group_by("domain").agg(
        pl.col("slot").n_unique())
    assert per_domain["slot"].min() == len(SLOTS)


def test_cli_generate_and_verify(tmp_path, capsys):
    out, ver = tmp_path / "p.csv", tmp_path / "v.csv"
    assert main(["probes", "generate", "--bases", str(BASES), "--out", str(out)]) == 0
    assert pl.read_csv(out).height == pl.read_csv(BUILTIN).height
    assert main(["probes", "verify", "--bases", str(BASES), "--probes", str(out), "--out", str(ver)]) == 0
    assert "kept" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    pl.read_csv(out).with_columns(base_item_id=pl.lit("nope")).write_csv(bad)
    assert main(["probes", "verify", "--bases", str(BASES), "--probes", str(bad), "--out", str(ver)]) == 2
    assert "probe without base" in capsys.readouterr().err
