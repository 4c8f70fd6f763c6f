"""Several judges compared at once: bootstrap p-values and the Holm correction of 'separated' (by hand)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core.analyses.judge_comparison import (
    adjust_separated,
    bootstrap_p,
    compare_judges,
    compare_many,
)
from cap_core.cli.main import main
from cap_core.dataset import save_dataset
from cap_core.errors import CAPInputError
from tests.cap_core.analyses.test_judge_comparison import toy_dataset


def test_bootstrap_p_by_hand():
    # 1 of 4 replicates <= 0, 3 of 4 >= 0: min(1, 3) -> 2 * (1 + 1) / (4 + 1) = 0.8
    assert bootstrap_p(np.array([1.0, 2.0, 3.0, -1.0])) == pytest.approx(0.8)
    # all 999 replicates equal and > 0: past the count floor 2 / 1000 there is no spread at all: p = 0
    assert bootstrap_p(np.full(999, 5.0)) == 0.0
    assert np.isnan(bootstrap_p(np.array([np.nan])))


def _rows(p):
    n = len(p)
    return pl.DataFrame({"condition": [f"C{k + 1}" for k in range(n)], "ci95_low": [1.0] * n, "ci95_high": [9.0] * n,
                         "ci90_low": [2.0] * n, "ci90_high": [8.0] * n, "p_value": p})


def test_holm_by_hand():
    # sorted p 0.01, 0.03, 0.04 -> 3 * 0.01 = 0.03, 2 * 0.03 = 0.06, max(0.06, 1 * 0.04) = 0.06
    out = adjust_separated(_rows([0.01, 0.04, 0.03]), "holm")
    assert out["p_adjusted"].to_list() == pytest.approx([0.03, 0.06, 0.06])
    assert out["verdict"].to_list() == ["separated", "inconclusive", "inconclusive"]
    assert out["correction"].unique().to_list() == ["holm (3 tests)"]
    none = adjust_separated(_rows([0.01, 0.04, 0.03]), "none")
    assert none["verdict"].to_list() == ["separated"] * 3 and none["correction"][0] == "none"
    with pytest.raises(CAPInputError, match="unknown multiple-comparison correction"):
        adjust_separated(_rows([0.01]), "bonferroni")


def test_uncorrected_pair_is_unchanged_and_carries_p():
    out = compare_judges(toy_dataset(), "oracle", "first", "toy", n_resamples=200)
    assert out["p_value"].is_not_null().all()
    again = adjust_separated(out, "none")
    assert again["verdict"].to_list() == out["verdict"].to_list()


def test_compare_many_corrects_across_pairs_and_cli_says_which(tmp_path, capsys):
    ds = toy_dataset()
    out = compare_many(ds, ["oracle", "first"], "toy", n_resamples=200)
    assert out["correction"][0].startswith("holm (")
    overall = out.filter(pl.col("condition") == "overall").row(0, named=True)
    # every replicate gives +50: no spread past the count floor 2 / 201, so p = 0 (bootstrap_p)
    assert overall["p_value"] == 0.0 and overall["verdict"] == "separated"
    save_dataset(ds, tmp_path / "d")
    args = ["compare", "--data", str(tmp_path / "d"), "--benchmark", "toy", "--bootstrap", "200"]
    assert main(args + ["--judge", "oracle", "--judge", "first", "--out", str(tmp_path / "m.csv")]) == 0
    assert "(correction: holm (" in capsys.readouterr().out
    assert main(args + ["--judge-a", "oracle", "--judge-b", "first", "--out", str(tmp_path / "p.csv")]) == 0
    assert "(correction: none)" in capsys.readouterr().out
    assert main(args + ["--judge-a", "oracle", "--judge", "first", "--out", str(tmp_path / "x.csv")]) == 2
    assert "one pair" in capsys.readouterr().err
