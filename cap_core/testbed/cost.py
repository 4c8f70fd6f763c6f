"""The estimate of a testbed build, printed before any call (calls, tokens, dollars).

Per stage and model: the fewest calls (every job right at its first attempt) and the most
(every attempt used: expansion 3, flawing and its scoring ``1 + regenerations``, variants 3
per rewrite), prompt tokens as characters / 4 of the rendered prompts (the answer standing
in for an expansion not made yet), completion tokens from the length of what each stage
writes, priced with litellm's local cost map
(:func:`cap_core.judging.estimate.model_price`). ``cached`` counts the first-round requests
(expansions, and flawing of answers needing none) already in the judging cache: a resumed
build sends none of them. The offline rules cost nothing and make no call; a model without
a price makes the dollar figures ``None`` (unknown) and is named.
"""

from __future__ import annotations

from cap_core.judging.estimate import model_price
from cap_core.judging.templates import load_template

__all__ = ["estimate_build", "estimate_line"]


def _tok(text: str) -> int:
    return max(1, len(text) // 4)


def estimate_build(jobs: list[dict], spec, n_hard: int, cache_dir=None) -> dict:
    """Calls, tokens and dollars of a build (module doc).

    Parameters
    ----------
    jobs : list of dict
        One per question: ``question``, ``answer``, ``context``, ``error_type``, ``expand``
        (the answer will be expanded by a model generator).
    spec : BuildSpec
        Generators, subtlety judge, regenerations, rewriter, api_base, seed.
    n_hard : int
        Pairs the hardening pass will take.
    cache_dir : path, optional
        Judging cache to count cached first-round requests in.

    Returns
    -------
    dict
        ``stages`` (list of dicts: stage, model, calls_min, calls_max, prompt_tokens,
        completion_tokens, usd_min, usd_max), ``calls_min``, ``calls_max``, ``cached``,
        ``prompt_tokens``, ``completion_tokens``, ``usd_min`` / ``usd_max`` (None when a
        price is unknown), ``unknown_price`` (models).
    """
    from cap_core.judging.request import JudgeRequest, cache_keys
    from cap_core.testbed.prompts import _MAX_TOKENS, TEMPERATURES, flaw_template

    retry = 1 + spec.regenerations
    stages: list[dict] = []
    first: list = []

    def add(stage, model, n_min, n_max, prompt_tok, completion_tok):
        if model is None or model == "rules" or n_max == 0:
            return
        stages.append({"stage": stage, "model": model, "calls_min": n_min, "calls_max": n_max,
                       "prompt_tokens": prompt_tok, "completion_tokens": completion_tok})

    n = len(jobs)
    body = sum(_tok(j["question"]) + _tok(j["answer"]) + _tok(j.get("context") or "") for j in jobs)
    answers = sum(_tok(j["answer"]) for j in jobs)
    for k, gen in enumerate(spec.generators):
        if gen == "rules":
            continue
        seed = 100 * spec.seed + 1
        if k == 0:
            exp = [j for j in jobs if j["expand"]]
            tpl = load_template("testbed_expand")
            exp_prompts = [tpl.render(question=j["question"], context=(j.get("context") or "(none)"),
                                      answer=j["answer"]) for j in exp]
            first += [JudgeRequest(gen, (("user", p),), TEMPERATURES["expand"], None, _MAX_TOKENS["expand"], seed,
                                   None, tpl.version, spec.api_base) for p in exp_prompts]
            add("expand", gen, len(exp), 3 * len(exp), 3 * sum(_tok(p) for p in exp_prompts), 3 * 150 * len(exp))
        flaw_tok = 0
        for j in jobs:
            tpl = load_template(flaw_template(j["error_type"]))
            prompt = tpl.render(question=j["question"], context=(j.get("context") or "(none)"), answer=j["answer"])
            flaw_tok += _tok(prompt)
            if not j["expand"]:
                first.append(JudgeRequest(gen, (("user", prompt),), TEMPERATURES["flaw"], None, _MAX_TOKENS["flaw"],
                                          seed, None, tpl.version, spec.api_base))
        add("flaw", gen, n, retry * n, retry * flaw_tok, retry * (answers + 40 * n))
        if k == 0:
            add("harden", gen, n_hard, n_hard, n_hard * 2 * (body // max(n, 1) + 150),
                n_hard * 2 * (answers // max(n, 1) + 60))
    if spec.subtlety_judge:
        per = 2 * answers + 250 * n
        for gen in spec.generators:
            tries = retry if gen != "rules" else 1
            add("subtlety", spec.subtlety_judge, n, tries * n, tries * per, tries * 40 * n)
        add("subtlety (hard)", spec.subtlety_judge, n_hard, n_hard, n_hard * (per // max(n, 1) + 60), 40 * n_hard)
    rewriter = spec.rewriter_model()
    if rewriter:
        add("variants", rewriter, 3 * n, 9 * n, 9 * (answers + 60 * n), 9 * 2 * answers)
    cached = 0
    if first and cache_dir is not None:
        from cap_core.judging.cache import JudgeCache

        cache = JudgeCache(cache_dir)
        try:
            keys = cache_keys(first)
            cached = len(cache.get_many(keys))
        finally:
            cache.close()
    unknown = []
    for s in stages:
        price = model_price(s["model"])
        if price is None:
            unknown.append(s["model"])
            s["usd_min"] = s["usd_max"] = None
            continue
        ratio = s["calls_min"] / max(s["calls_max"], 1)
        s["usd_max"] = s["prompt_tokens"] * price[0] + s["completion_tokens"] * price[1]
        s["usd_min"] = s["usd_max"] * ratio
    known = not unknown
    return {"stages": stages, "calls_min": sum(s["calls_min"] for s in stages),
            "calls_max": sum(s["calls_max"] for s in stages), "cached": cached,
            "prompt_tokens": sum(s["prompt_tokens"] for s in stages),
            "completion_tokens": sum(s["completion_tokens"] for s in stages),
            "usd_min": sum(s["usd_min"] for s in stages) if known else None,
            "usd_max": sum(s["usd_max"] for s in stages) if known else None,
            "unknown_price": sorted(set(unknown))}


def estimate_line(est: dict) -> str:
    """One line: calls (fewest-most), cached first-round calls, tokens and dollars."""
    if est["calls_max"] == 0:
        return "estimate: 0 calls, $0 (offline rules only)"
    usd = ("unknown (no price for " + ", ".join(est["unknown_price"]) + ")" if est["usd_min"] is None
           else f"${est['usd_min']:.4f}-${est['usd_max']:.4f}")
    return (f"estimate: {est['calls_min']}-{est['calls_max']} calls ({est['cached']} of the first round cached), "
            f"at most ~{est['prompt_tokens']:,} prompt and ~{est['completion_tokens']:,} completion tokens, {usd}")
