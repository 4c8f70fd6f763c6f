"""One colour per judge: a function of the name alone, the same in every process and selection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from components.colors import KNOWN_GROUPS, PALETTE, judge_colour, judge_key
from components.radar import radar_figure

REPO = Path(__file__).resolve().parents[2]


def _rows(judges: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"label": [j for j in judges for _ in range(2)], "condition": ["C1", "C7"] * len(judges),
                         "value": [50.0, 60.0] * len(judges), "ci_low": [40.0, 55.0] * len(judges),
                         "ci_high": [58.0, 66.0] * len(judges), "primary": [True, True] * len(judges)})


def test_a_judge_keeps_its_colour_whatever_else_is_drawn():
    one = {t.name: t.line.color for t in radar_figure(_rows(["GPT-4o", "Qwen3-8B (rubric)"])).data}
    two = {t.name: t.line.color for t in radar_figure(_rows(["Gemini 2.5 Pro", "user/judge-x", "Qwen3-8B (rubric)"])).data}
    assert one["Qwen3-8B (rubric)"] == two["Qwen3-8B (rubric)"] == judge_colour("Qwen3-8B (rubric)")
    # entries of one judge from several sources share it; markers tell them apart
    assert judge_colour("GPT-4o · CAP Table 3 · all") == judge_colour("GPT-4o") == judge_colour("gpt-4o [math]")
    assert judge_key("GPT-4o · CAP Table 15 · full") == "gpt-4o"


def test_judges_shown_together_never_share_a_colour():
    for group in KNOWN_GROUPS:
        assert len({judge_colour(j) for j in group}) == len(group) <= len(PALETTE)


def test_the_colour_does_not_depend_on_the_process_hash_seed():
    code = "from components.colors import judge_colour; print(judge_colour('my-own/judge'), judge_colour('GPT-4o'))"
    outs = {subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1 and outs.pop().split() == [judge_colour("my-own/judge"), judge_colour("GPT-4o")]


def test_radar_hover_shows_the_interval():
    tr = radar_figure(_rows(["A"])).data[0]
    assert "%{text}" in tr.hovertemplate
    assert tr.text[0] == " [40.0, 58.0] (95% CI)" and tr.text[6] == " [55.0, 66.0] (95% CI)"
    assert tr.text[1] == ""  # C2 not measured: no point, no text
