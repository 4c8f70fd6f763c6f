"""One judging cache: cap_core.config.cache_dir() ($CAP_CACHE_DIR) by default, for every verb and page."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core import config
from cap_core.cli.main import main
from cap_core.judging.cache import JudgeCache

REPO = Path(__file__).resolve().parents[3]
PROBES = REPO / "data" / "validity"


def _answers(path: Path) -> int:
    cache = JudgeCache(path)
    try:
        return len(cache)
    finally:
        cache.close()


def test_every_verb_and_page_uses_the_one_cache(tmp_path, monkeypatch):
    shared = tmp_path / "cache"
    monkeypatch.setenv("CAP_CACHE_DIR", str(shared))
    monkeypatch.setenv("CAP_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.chdir(tmp_path)  # a relative default would land here
    assert config.cache_dir() == shared

    assert main(["judge", "--items", "testbed", "--model", "local/longer", "--limit", "1", "--orders", "AB",
                 "--out", str(tmp_path / "o")]) == 0
    n_judge = _answers(shared)
    assert n_judge == 3  # one base item in three variants, one order

    bases = pl.read_csv(PROBES / "probe_bases.csv").head(1)
    probes = pl.read_csv(PROBES / "probes_builtin.csv")
    probes = probes.filter(pl.col("base_item_id").is_in(bases["base_item_id"].implode()))
    bases.write_csv(tmp_path / "b.csv")
    probes.write_csv(tmp_path / "p.csv")
    assert main(["probes", "grade", "--bases", str(tmp_path / "b.csv"), "--probes", str(tmp_path / "p.csv"),
                 "--judge", "localgrade/overlap", "--out", str(tmp_path / "g.csv")]) == 0
    assert main(["probes", "generate", "--generator", "localgen/rules", "--bases", str(tmp_path / "b.csv"),
                 "--slot", "hedging_removal", "--out", str(tmp_path / "gen.csv")]) == 0
    assert _answers(shared) > n_judge  # grading and generation answers sit in the same cache
    assert not (tmp_path / ".cap_cache").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "b.csv", "cache", "g.csv", "gen.csv", "o", "p.csv"]

    import importlib

    import ui.cache.live_run as live_run

    assert importlib.reload(live_run).cache_dir() == shared


def test_with_only_the_runs_folder_set_nothing_is_written_inside_the_repo(tmp_path, monkeypatch):
    monkeypatch.delenv("CAP_CACHE_DIR", raising=False)
    monkeypatch.setenv("CAP_RUNS_DIR", str(tmp_path / "runs"))
    assert config.cache_dir() == tmp_path / "runs" / "cache"
    monkeypatch.delenv("CAP_RUNS_DIR")
    assert config.cache_dir() == config.REPO_ROOT / ".cache" / "judging"
