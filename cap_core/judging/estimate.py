"""Cost estimate of a judging run before it starts.

Counts the requests a run would send (items x judges x orders, minus those already in
the cache) and prices them with litellm's local cost map: prompt tokens estimated as
characters / 4, completion tokens as ``completion_tokens`` (default 200) per call (at most
the request's ``max_tokens``: one for a choice-probability judge).
Local models cost $0; a model missing from the cost map makes the dollar estimate
``None`` (unknown). The rationale evaluator adds at most one call per AB verdict.
"""

from __future__ import annotations

import polars as pl

from cap_core.judging.cache import JudgeCache
from cap_core.judging.request import cache_keys

__all__ = ["estimate_run", "model_price"]

_FREE = ("local/", "smollm/")


def _price(model: str) -> tuple[float, float] | None:
    if model.startswith(_FREE):
        return 0.0, 0.0
    from cap_core.judging.client import import_litellm

    litellm = import_litellm()
    for name in (model, model.split("/", 1)[-1]):
        info = litellm.model_cost.get(name)
        if info and "input_cost_per_token" in info:
            return float(info["input_cost_per_token"]), float(info.get("output_cost_per_token", 0.0))
    return None


def model_price(model: str) -> tuple[float, float] | None:
    """Dollars per prompt token and per completion token of ``model`` from litellm's local cost map
    (``(0, 0)`` for the offline ``local/`` and ``smollm/`` models; None when the map has no price)."""
    return _price(model)


def estimate_run(items: pl.DataFrame, spec, cache_dir=None, completion_tokens: int = 200) -> dict:
    """Requests and dollars a run would need.

    Returns
    -------
    dict
        ``calls`` (judging requests), ``cached`` (of those already in the cache),
        ``to_send`` (= calls - cached), ``evaluator_calls`` (upper bound),
        ``usd`` (float, or None when a model's price is unknown), ``unknown_price``
        (list of models), ``prompt_tokens`` (estimated, to send).
    """
    from cap_core.judging.run import build_requests

    if spec.variants is not None and "variant" in items.columns:
        items = items.filter(pl.col("variant").is_in(list(spec.variants)))
    jobs = build_requests(items, spec)
    cache = JudgeCache(cache_dir) if cache_dir is not None else None
    usd, unknown, cached, tokens = 0.0, [], 0, 0
    from cap_core.judging.choice import model_of

    prices = {m: _price(model_of(m)) for m in dict.fromkeys([*spec.judges, *([spec.evaluator] if spec.evaluator
                                                                                else [])])}
    try:
        keys = cache_keys([j[3] for j in jobs]) if cache is not None else [None] * len(jobs)
        hits = cache.get_many(keys) if cache is not None else {}
        for (_row, judge, _order, req), key in zip(jobs, keys):
            if key in hits:
                cached += 1
                continue
            t_in = sum(len(c) for _, c in req.messages) // 4
            tokens += t_in
            p = prices[judge]
            if p is not None:
                usd += t_in * p[0] + min(completion_tokens, req.max_tokens or completion_tokens) * p[1]
    finally:
        if cache is not None:
            cache.close()
    n_eval = items.height * len(spec.judges) if spec.evaluator and "AB" in spec.orders else 0
    if spec.evaluator and prices[spec.evaluator] is not None and n_eval:
        per = (len(jobs[0][3].messages[0][1]) // 4 + 150) * prices[spec.evaluator][0]
        usd += n_eval * (per + 50 * prices[spec.evaluator][1])
    unknown = [m for m, p in prices.items() if p is None]
    return {"calls": len(jobs), "cached": cached, "to_send": len(jobs) - cached, "evaluator_calls": n_eval,
            "usd": None if unknown else usd, "unknown_price": unknown, "prompt_tokens": tokens}
