"""Synthetic CAP data at paper scale (CAP §3.2, Appendix L compute totals).

judgerEva-like benchmark: 2,092 base items (523 per planted failure type) x 3
variants (plain / polished / length_padded) x 2 orders x 7 judges ~ 88k verdicts, and
five external-sized benchmarks (JudgeBench 350, JudgeBench-Pro 1,178, RewardBench 500,
MT-Bench 500, LLMBar 419 pairs) x 2 orders x 7 judges ~ 41k verdicts. Verdict accuracy
varies by judge, condition, variant and order; a few ties, unparsed verdicts and missing
judgments are planted; evaluated rationales on a sample of items.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.dataset import Dataset

JUDGES = ["GPT-4o", "GPT-4o-mini", "Claude Sonnet 4.5", "Claude Haiku 4.5", "Gemini 2.5 Flash",
          "Gemini 2.5 Pro", "Llama-3.3-70B"]
FAILURES = ["factual_fabrication", "logical_reversal", "overclaim", "omission"]
EXTERNAL = {  # name -> (n items, subsets)
    "judgebench": (350, ["knowledge", "reasoning", "math", "coding"]),
    "judgebench_pro": (1178, ["knowledge", "reason", "math", "coding"]),
    "rewardbench": (500, ["chat-hard", "reasoning", "chat", "safety"]),
    "mtbench": (500, ["stem", "humanities", "reasoning", "math", "writing"]),
    "llmbar": (419, ["Natural", "GPTInst", "GPTOut", "Manual", "Neighbor"]),
}


def _items(rng) -> pl.DataFrame:
    n = 2092
    base = [f"je{i:05d}" for i in range(n)]
    ft = [FAILURES[i % 4] for i in range(n)]
    gold = rng.choice(["A", "B"], size=n)
    frames = [pl.DataFrame({
        "benchmark": "judgereva", "item_id": [f"{b}_{v}" for b in base], "base_item_id": base,
        "subset": "all", "failure_type": ft, "variant": v, "gold": gold,
    }) for v in ("plain", "polished", "length_padded")]
    for name, (m, subsets) in EXTERNAL.items():
        frames.append(pl.DataFrame({
            "benchmark": name, "item_id": [f"{name}{i:05d}" for i in range(m)],
            "base_item_id": [f"{name}{i:05d}" for i in range(m)], "subset": rng.choice(subsets, size=m),
            "failure_type": pl.Series([None] * m, dtype=pl.String), "variant": "original",
            "gold": rng.choice(["A", "B"], size=m),
        }))
    return pl.concat(frames, how="vertical")


def _judgments(items: pl.DataFrame, rng) -> pl.DataFrame:
    n = items.height
    gold = items.get_column("gold").to_numpy()
    hard = np.where(items.get_column("variant").to_numpy() == "length_padded", 0.15, 0.0)
    hard += np.where(items.get_column("failure_type").to_numpy() == "omission", 0.1, 0.0)
    out = []
    for j, judge in enumerate(JUDGES):
        skill = 0.62 + 0.045 * j
        for order, bias in (("AB", 0.0), ("BA", 0.06 * (j % 3))):
            p = np.clip(skill - hard - bias, 0.05, 0.99)
            correct = rng.random(n) < p
            verdict = np.where(correct, gold, np.where(gold == "A", "B", "A")).astype(object)
            odd = rng.random(n)
            verdict[odd < 0.01] = "tie"
            verdict[(odd >= 0.01) & (odd < 0.015)] = "unparsed"
            keep = odd < 0.997  # ~0.3% missing judgments
            rs = np.where(rng.random(n) < 0.85, 1, 0).astype(float)
            evaluated = (order == "AB") & correct & (rng.random(n) < 0.4)
            rs[~evaluated] = np.nan
            out.append(pl.DataFrame({
                "judge": judge, "benchmark": items.get_column("benchmark"), "item_id": items.get_column("item_id"),
                "order": order, "verdict": pl.Series(verdict.tolist(), dtype=pl.String),
                "rationale_supported": pl.Series(rs, nan_to_null=True).cast(pl.Int8),
            }).filter(pl.Series(keep)))
    return pl.concat(out, how="vertical")


def _declarations() -> pl.DataFrame:
    rows = []

    def add(b, c, st, sel, vals=None, ref=None):
        rows.append({"benchmark": b, "condition": c, "status": st, "operator": None, "selector": sel,
                     "values": vals, "reference": ref})

    for b, (k, r) in {"judgebench": ("knowledge", "reasoning"), "judgebench_pro": ("knowledge", "reason"),
                      "rewardbench": ("chat-hard", "reasoning"), "mtbench": ("stem", "reasoning")}.items():
        add(b, "C1", "approximate", "subset", [k])
        add(b, "C2", "approximate", "subset", [r])
    add("llmbar", "C5", "direct", "subset", ["GPTInst", "GPTOut", "Manual", "Neighbor"], ["Natural"])
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "condition": pl.String, "status": pl.String,
                                      "operator": pl.String, "selector": pl.String, "values": pl.List(pl.String),
                                      "reference": pl.List(pl.String)})


def make_dataset(seed: int = 7) -> Dataset:
    """Build the synthetic paper-scale :class:`Dataset` (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    items = _items(rng)
    return Dataset.build(items, _judgments(items, rng), _declarations())
