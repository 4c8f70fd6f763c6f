"""One colour per judge: a function of the name alone, the same in every process and selection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from cap_core.colours import KNOWN_GROUPS, PALETTE, judge_colour, judge_key
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
    code = "from cap_core.colours import judge_colour; print(judge_colour('my-own/judge'), judge_colour('GPT-4o'))"
    outs = {subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1 and outs.pop().split() == [judge_colour("my-own/judge"), judge_colour("GPT-4o")]


def test_radar_hover_shows_the_interval():
    tr = radar_figure(_rows(["A"])).data[0]
    assert "%{text}" in tr.hovertemplate
    assert tr.text[0] == " [40.0, 58.0] (95% CI)" and tr.text[6] == " [55.0, 66.0] (95% CI)"
    assert tr.text[1] == ""  # C2 not measured: no point, no text


def _lab(hex_colour: str) -> tuple[float, float, float]:
    """sRGB (D65) -> CIE L*a*b*, the standard formulas."""
    rgb = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _de2000(lab1, lab2) -> float:
    """CIEDE2000 (Sharma, Wu & Dalal 2005, eqs. 1-22)."""
    import math

    (L1, a1, b1), (L2, a2, b2) = lab1, lab2
    cb = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cb ** 7 / (cb ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else ((h2 - h1 + 180) % 360) - 180
    d_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    lb, cbp = (L1 + L2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        hb = h1 + h2
    elif abs(h1 - h2) <= 180:
        hb = (h1 + h2) / 2
    else:
        hb = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hb - 30)) + 0.24 * math.cos(math.radians(2 * hb))
         + 0.32 * math.cos(math.radians(3 * hb + 6)) - 0.20 * math.cos(math.radians(4 * hb - 63)))
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    rt = -math.sin(math.radians(2 * 30 * math.exp(-((hb - 275) / 25) ** 2))) * rc
    sl = 1 + 0.015 * (lb - 50) ** 2 / math.sqrt(20 + (lb - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    return math.sqrt(((L2 - L1) / sl) ** 2 + ((c2 - c1) / sc) ** 2 + (d_h / sh) ** 2
                     + rt * ((c2 - c1) / sc) * (d_h / sh))


def test_no_two_palette_colours_look_alike():
    import itertools

    import pytest

    # the formula against Sharma et al.'s published test pairs 1 and 7
    assert _de2000((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert _de2000((50.0, 0.0, 0.0), (50.0, -1.0, 2.0)) == pytest.approx(2.3669, abs=1e-4)
    closest = min(_de2000(_lab(a), _lab(b)) for a, b in itertools.combinations(PALETTE, 2))
    assert closest >= 15  # clearly different colours (the old Dark24 list had pinks 7.2 apart)
    assert all(_lab(c)[0] <= 72 for c in PALETTE)  # dark enough for a line on white


def test_a_model_has_one_colour_by_display_name_and_by_id():
    # Profiles shows display names, Frontiers model ids: the same model takes the same colour
    assert judge_colour("Claude Haiku 4.5") == judge_colour("anthropic/claude-haiku-4.5")
    assert judge_colour("Qwen3-8B (rubric)") == judge_colour("Qwen/Qwen3-8B")
    assert judge_colour("Llama-3.1-8B-Instruct (rubric)") == judge_colour("meta-llama/Llama-3.1-8B-Instruct")
    # a model/strategy name (LLMBar) and our local judges keep their first part
    assert judge_key("GPT-4/CoT") == "gpt-4/cot" and judge_key("local/first") == "local/first"
