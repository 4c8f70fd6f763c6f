"""Plain loops over the raw public files giving S and R at one threshold (no cap_core code).

Shared by the validity tests and the Frontiers page test, so both compare the product with
the same independent recomputation.
"""

from __future__ import annotations

import json
from pathlib import Path

LLMBAR_SUBSETS = ("Natural", "Adversarial/GPTInst", "Adversarial/GPTOut", "Adversarial/Manual",
                  "Adversarial/Neighbor")


def raw_rubric(shared_dir: Path, model: str = "Qwen-Qwen3-8B") -> list[dict]:
    """Records of one rubric judge's JudgeBench fork output file."""
    f = next((shared_dir / "data" / "judgebench_fork_stellalisy" / "outputs").glob(f"*judge_model={model}.jsonl"))
    return [json.loads(line) for line in f.read_text().splitlines() if line.strip()]


def rubric_s_r(records: list[dict], tau: float) -> tuple[float, float]:
    """S and R of a rubric judge at ``tau`` (verdict = grade > tau); a grade < 0 is a parse failure.

    S: per pair, the share of its two responses whose verdict is the same in both orders;
    R: per pair, the share of orders in which the correct and the incorrect response get
    different verdicts; each pair weighs the same.
    """
    s_items, r_items = [], []
    for rec in records:
        ab, ba = (e["judgment"] for e in rec["judgments"])
        a = {"AB": ab["score_A"], "BA": ba["score_B"]}  # original response A in each order
        b = {"AB": ab["score_B"], "BA": ba["score_A"]}
        good, bad = (a, b) if rec["label"] == "A>B" else (b, a)
        ctrl = [(x["AB"] > tau) == (x["BA"] > tau) for x in (a, b) if x["AB"] >= 0 and x["BA"] >= 0]
        cons = [(good[o] > tau) != (bad[o] > tau) for o in ("AB", "BA") if good[o] >= 0 and bad[o] >= 0]
        if ctrl:
            s_items.append(sum(ctrl) / len(ctrl))
        if cons:
            r_items.append(sum(cons) / len(cons))
    return sum(s_items) / len(s_items), sum(r_items) / len(r_items)


def llmbar_rating_r(shared_dir: Path, evaluator: str, tau: float) -> float:
    """R of an LLMBar Rating evaluator at ``tau``: share of items (both scores readable) whose two
    outputs fall on different sides of ``tau``. One presentation only, so no S."""
    root = shared_dir / "data" / "llmbar" / "Dataset" / "LLMBar"
    flips = []
    for subset in LLMBAR_SUBSETS:
        for item in json.loads((root / subset / "evaluators" / evaluator / "Rating" / "result.json").read_text()):
            raw = [str(item["results"][-1][f"score_{k}"][0]).strip() for k in (1, 2)]
            if all(r.replace(".", "", 1).isdigit() for r in raw):
                g1, g2 = float(raw[0]), float(raw[1])
                flips.append((g1 > tau) != (g2 > tau))
    return sum(flips) / len(flips)
