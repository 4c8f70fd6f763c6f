"""One colour per judge on every page, in every selection and for every dataset.

A judge's colour is a function of its name alone, never of which other judges are drawn:
adding, removing or reordering judges never recolours the others, and a judge drawn on
Profiles, Stress, Frontiers or Cascades has the same colour everywhere, in the dashboard's
HTML report and in the one ``choose --html`` writes (the rule lives in the core so both use it).

* The judges CAP Studio ships (the published CAP judges, the default data's JudgeBench and
  LLMBar judges, the Validity judges and the local judges) have a fixed colour each,
  :data:`KNOWN_COLOURS`, assigned once so that judges shown together (the groups of
  :data:`KNOWN_GROUPS`) never share one.
* Any other name gets the entry of :data:`PALETTE` picked by a stable hash (SHA-256, not
  Python's salted ``hash``) of the name; two such judges can meet on one colour. Entries of one judge from several
sources (``"GPT-4o · CAP Table 3 · all"``, ``"GPT-4o [math]"``) share its colour: the name
is read with :func:`judge_key`; markers (the dashboard's radar symbols) and
legends tell such entries apart, as they do for two judges whose hashes meet.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

__all__ = ["PALETTE", "PROVIDER_PREFIXES", "KNOWN_GROUPS", "KNOWN_COLOURS", "judge_key", "judge_colour",
           "judge_colours"]

#: 21 colours no two of which look alike (CIEDE2000 difference of at least 15 between any two; Lab
#: lightness at most 72, so lines stand out on white): plotly's D3 ten, then Dark24 and Prism entries
#: picked greedily under that bound. The earlier Dark24 list held three pinks within 7-11 of each other.
PALETTE: tuple[str, ...] = (
    "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
    "#17BECF", "#222A2A", "#B68100", "#750D86", "#511CFB", "#00A08B", "#FC0080", "#B2828D",
    "#6C7C32", "#6C4516", "#0D2A63", "#565656", "#B00068",
)

#: Organisation prefixes of model ids (``anthropic/claude-haiku-4.5``, ``Qwen/Qwen3-8B``) that name who
#: serves or publishes a model, not the model: :func:`judge_key` drops them, so the same model drawn on
#: Frontiers (ids) and on Profiles (display names) has one colour. ``local/`` names our own judges and stays.
PROVIDER_PREFIXES = frozenset({
    "openai", "anthropic", "google", "gemini", "vertex_ai", "meta-llama", "meta", "qwen", "mistralai", "mistral",
    "deepseek", "deepseek-ai", "z-ai", "zai-org", "nvidia", "openrouter", "together_ai", "groq", "ollama",
    "huggingface", "microsoft", "allenai", "cohere", "x-ai", "xai", "bedrock", "azure",
})

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
    keys = [[judge_key(g) for g in group] for group in groups]
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




def judge_key(label: str) -> str:
    """The model a label names, normalised so that its display name and its id meet: the text before
    `` · `` (published entries) or a trailing ``[subset]``, without a trailing ``(role)`` such as
    ``(rubric)`` or ``(RM)`` and without an organisation prefix of :data:`PROVIDER_PREFIXES`, case-folded,
    with spaces and underscores read as ``-``.

    >>> judge_key("GPT-4o · CAP Table 3 · all"), judge_key("gpt-4o [math]")
    ('gpt-4o', 'gpt-4o')
    >>> judge_key("Claude Haiku 4.5"), judge_key("anthropic/claude-haiku-4.5"), judge_key("Qwen3-8B (rubric)")
    ('claude-haiku-4.5', 'claude-haiku-4.5', 'qwen3-8b')
    """
    name = str(label).split(" · ", 1)[0].strip()
    if name.endswith("]") and " [" in name:
        name = name[: name.rindex(" [")].strip()
    if name.endswith(")") and " (" in name:
        name = name[: name.rindex(" (")].strip()
    head, sep, rest = name.partition("/")
    if sep and head.casefold() in PROVIDER_PREFIXES and rest:
        name = rest
    return "-".join(name.casefold().replace("_", " ").split())


#: Fixed colour of each shipped judge (keys as :func:`judge_key` reads them).
KNOWN_COLOURS: dict[str, str] = _assign(KNOWN_GROUPS)


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
