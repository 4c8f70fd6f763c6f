"""One colour per judge on every page, in every selection and for every dataset.

A judge's colour is a function of its name alone, never of which other judges are drawn:
adding, removing or reordering judges never recolours the others, and a judge drawn on
Profiles, Stress, Frontiers or Cascades has the same colour everywhere.

* The judges CAP Studio ships (the published CAP judges, the default data's JudgeBench and
  LLMBar judges, the Validity judges and the local judges) have a fixed colour each,
  :data:`KNOWN_COLOURS`, assigned once so that judges shown together (the groups of
  :data:`KNOWN_GROUPS`) never share one.
* Any other name gets the entry of :data:`PALETTE` picked by a stable hash (SHA-256, not
  Python's salted ``hash``) of the name; two such judges can meet on one colour. Entries of one judge from several
sources (``"GPT-4o · CAP Table 3 · all"``, ``"GPT-4o [math]"``) share its colour: the name
is read with :func:`judge_key`; markers (:data:`components.radar.MARKER_SYMBOLS`) and
legends tell such entries apart, as they do for two judges whose hashes meet.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

__all__ = ["PALETTE", "KNOWN_GROUPS", "KNOWN_COLOURS", "judge_key", "judge_colour", "judge_colours"]

#: 24 distinguishable colours, dark enough for lines and white text (plotly's Dark24 order).
PALETTE: tuple[str, ...] = (
    "#2E91E5", "#E15F99", "#1CA71C", "#FB0D0D", "#DA16FF", "#222A2A", "#B68100", "#750D86",
    "#EB663B", "#511CFB", "#00A08B", "#FB00D1", "#FC0080", "#B2828D", "#6C7C32", "#778AAE",
    "#862A16", "#A777F1", "#620042", "#1616A7", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038",
)

#: Judges drawn together on some page; within a group no two share a colour. Order fixes the colours.
KNOWN_GROUPS: tuple[tuple[str, ...], ...] = (
    # published CAP judges (CAP Tables 3-6) with the default data's JudgeBench judges (one Profiles view)
    ("GPT-4o", "GPT-4o-mini", "Claude Sonnet 4.5", "Claude Haiku 4.5", "Gemini 2.5 Pro", "Gemini 2.5 Flash",
     "Llama-3.3-70B", "peer_mean_non_gpt", "o1-mini (arena_hard)", "GRM-Gemma-2B-rewardmodel-ft (RM)",
     "Skywork-Reward-Gemma-2-27B (RM)", "Skywork-Reward-Llama-3.1-8B (RM)", "internlm2-20b-reward (RM)",
     "internlm2-7b-reward (RM)", "Qwen3-8B (rubric)", "Llama-3.1-8B-Instruct (rubric)",
     "claude-3-haiku (arena_hard)"),
    # LLMBar's evaluators (default data)
    ("ChatGPT/Vanilla_NoRules", "GPT-4/Vanilla_NoRules", "LLaMA2/Vanilla_NoRules", "PaLM2/Vanilla_NoRules",
     "ChatGPT/CoT", "GPT-4/CoT", "LLaMA2/CoT", "PaLM2/CoT", "ChatGPT-0301/Vanilla_NoRules", "ChatGPT-0301/CoT",
     "Falcon/Vanilla_NoRules", "Falcon/CoT", "ChatGPT/Rating", "GPT-4/Rating"),
    # Frontiers: public graded judges, the Validity Table 5 judges, the offline graders and local judges
    ("ChatGPT/Rating", "GPT-4/Rating", "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct",
     "anthropic/claude-haiku-4.5", "nvidia/nemotron-3-nano-30b-a3b", "google/gemini-2.5-flash-lite",
     "mistralai/mistral-small-3.2-24b-instruct", "deepseek/deepseek-v4-flash", "z-ai/glm-4.7-flash",
     "localgrade/overlap", "local/longer", "local/first", "local/keyword-overlap"),
)


def _assign(groups: tuple[tuple[str, ...], ...]) -> dict[str, str]:
    """Greedy colouring: each judge, in group order, takes the first palette entry that no judge
    already coloured in any of its groups has."""
    keys = [[g.strip().casefold() for g in group] for group in groups]
    member: dict[str, list[int]] = {}
    for i, group in enumerate(keys):
        for k in group:
            member.setdefault(k, []).append(i)
    out: dict[str, str] = {}
    for group in keys:
        for k in group:
            if k in out:
                continue
            taken = {out[o] for i in member[k] for o in keys[i] if o in out}
            out[k] = next(c for c in PALETTE if c not in taken)
    return out


#: Fixed colour of each shipped judge (keys as :func:`judge_key` reads them).
KNOWN_COLOURS: dict[str, str] = _assign(KNOWN_GROUPS)


def judge_key(label: str) -> str:
    """The judge name inside an entry label: text before `` · `` (published entries) or before a
    trailing ``[subset]``, stripped and case-folded.

    >>> judge_key("GPT-4o · CAP Table 3 · all"), judge_key("gpt-4o [math]")
    ('gpt-4o', 'gpt-4o')
    """
    name = str(label).split(" · ", 1)[0]
    if name.endswith("]") and " [" in name:
        name = name[: name.rindex(" [")]
    return name.strip().casefold()


def judge_colour(label: str) -> str:
    """Hex colour of the judge named in ``label`` (see :func:`judge_key`): its fixed colour when
    it is a shipped judge, else the palette entry picked by a hash of its name."""
    key = judge_key(label)
    if key in KNOWN_COLOURS:
        return KNOWN_COLOURS[key]
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return PALETTE[int.from_bytes(digest[:8], "big") % len(PALETTE)]


def judge_colours(labels: Iterable[str]) -> dict[str, str]:
    """``{label: colour}`` for each distinct label."""
    return {label: judge_colour(label) for label in labels}
