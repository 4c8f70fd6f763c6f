"""The README's testbed worked example: its commands run as written (outputs under a temporary folder) and the
profile says what the README says it says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl

from cap_core.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def _commands() -> list[list[str]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Your own questions: a controlled testbed", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, re.S)[0]
    lines = [ln.split("#", 1)[0].strip() for ln in block.replace("\\\n", " ").splitlines()]
    return [shlex.split(ln) for ln in lines if ln]


def test_the_worked_example_runs_and_measures_every_condition(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    cmds = _commands()
    assert [c[1] for c in cmds] == ["testbed", "testbed", "judge", "profile", "hard"]
    for cmd in cmds:
        assert cmd[0] == ".venv/bin/cap"  # the installed command (the verbs of python -m cap_core)
        args = [str(tmp_path / a) if a.startswith("runs/") else a for a in cmd[1:]]
        assert main(args + (["--cache", str(tmp_path / "cache")] if cmd[1] == "judge" or args[:2] ==
                            ["testbed", "build"] else [])) == 0, cmd
    prof = pl.read_csv(tmp_path / "runs" / "tb-profile.csv").filter(
        (pl.col("benchmark") == "questions") & pl.col("primary") & (pl.col("subset") == "all"))
    cells = {(r["judge"], r["condition"]): r for r in prof.iter_rows(named=True)}
    for judge in ("local/first", "local/longer"):
        assert {cells[judge, f"C{k}"]["status"] for k in range(1, 9)} == {"direct"}
    for k in range(1, 5):
        assert cells["local/first", f"C{k}"]["value"] == 50.0 and cells["local/first", f"C{k}"]["n_items"] == 8
        assert cells["local/longer", f"C{k}"]["value"] == (100.0 if k == 4 else 0.0)
    assert cells["local/first", "C7"]["value"] == 0.0
    assert (tmp_path / "runs" / "tb-hard.csv").is_file()
