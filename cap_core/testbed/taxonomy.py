"""The four planted error types and how a testbed spreads them (CAP App. A.2, Tables 1 and 8).

Each base item carries exactly one planted error type, one of :data:`ERROR_TYPES` (the
``failure_type`` values of :data:`cap_core.schema.CONTENT_FAILURE_TYPES`, C1-C4):

* **factual fabrication** (C1): one plausible but false specific (a number, unit, name);
* **logical reversal** (C2): one relation flipped (cause and effect, a comparison, a trend);
* **scope-overclaim** (C3): a hedge or qualifier turned absolute;
* **scope-omission** (C4): one essential limiting condition left out.

CAP balances the four types overall and within each domain (Table 8);
:func:`assign_types` does the same for any set of questions, given which types each
question can carry. The gold (the correct answer) sits in position A for half the items
of every type and in B for the other half (:func:`balanced_gold`), so a judge that always
answers by position scores exactly 50% on every content condition.
"""

from __future__ import annotations

from collections import Counter

from cap_core.errors import CAPInputError
from cap_core.schema import CONTENT_FAILURE_TYPES

__all__ = ["ERROR_TYPES", "TYPE_LABELS", "CONDITION_OF", "assign_types", "balanced_gold", "stratified_pick"]

#: The planted error types in condition order (C1, C2, C3, C4).
ERROR_TYPES: tuple[str, ...] = tuple(CONTENT_FAILURE_TYPES.values())
#: How the types read in prompts, notes and tables.
TYPE_LABELS: dict[str, str] = {
    "factual_fabrication": "factual fabrication",
    "logical_reversal": "logical reversal",
    "overclaim": "scope-overclaim",
    "omission": "scope-omission",
}
#: failure_type -> condition id.
CONDITION_OF: dict[str, str] = {t: c for c, t in CONTENT_FAILURE_TYPES.items()}
assert set(TYPE_LABELS) == set(ERROR_TYPES)


def assign_types(domains: list[str], feasible: list[set[str]]) -> list[str | None]:
    """One planted error type per question, balanced across types and within domains.

    Parameters
    ----------
    domains : list of str
        The domain of each question (input order).
    feasible : list of set of str
        The types each question can carry (a subset of :data:`ERROR_TYPES`; empty when
        none fits).

    Returns
    -------
    list of str or None
        The type of each question, ``None`` where no type is feasible.

    Notes
    -----
    Deterministic greedy: questions are taken most constrained first (fewest feasible
    types; input order among equals) and each gets the feasible type with the fewest
    questions so far in its domain, then overall, then in condition order. With every
    type feasible this deals the types round-robin inside each domain: counts per domain
    and type differ by at most one. Then, within each domain, a question moves to another of
    its feasible types (or two questions move along a chain a -> b -> c) while that makes the
    domain's counts more even (their sum of squares falls), so a greedy choice that blocked a
    rarer type is undone; the first such move in input order is taken each time.

    Raises
    ------
    CAPInputError
        ``domains`` and ``feasible`` of different lengths, or a type outside
        :data:`ERROR_TYPES` (argument ``feasible``).
    """
    if len(domains) != len(feasible):
        raise CAPInputError("one domain and one feasible set per question", argument="feasible",
                            expected=f"{len(domains)} sets", got=len(feasible))
    unknown = sorted({t for f in feasible for t in f} - set(ERROR_TYPES))
    if unknown:
        raise CAPInputError("unknown error type", argument="feasible", expected="one of " + ", ".join(ERROR_TYPES),
                            got=unknown[0])
    rank = {t: i for i, t in enumerate(ERROR_TYPES)}
    per_domain: Counter = Counter()
    total: Counter = Counter()
    out: list[str | None] = [None] * len(domains)
    for i in sorted(range(len(domains)), key=lambda k: (len(feasible[k]) or 99, k)):
        if not feasible[i]:
            continue
        pick = min(feasible[i], key=lambda t: (per_domain[domains[i], t], total[t], rank[t]))
        out[i] = pick
        per_domain[domains[i], pick] += 1
        total[pick] += 1
    for d in dict.fromkeys(domains):
        _even_out([i for i, x in enumerate(domains) if x == d and out[i] is not None], feasible, out)
    return out


def _even_out(members: list[int], feasible: list[set[str]], out: list[str | None]) -> None:
    """Move questions of one domain between their feasible types while the counts get more even."""
    count = Counter(out[i] for i in members)
    while True:
        move = None
        for i in members:  # one question a -> b, when b has at least two fewer
            a = out[i]
            b = min((t for t in feasible[i] if count[t] + 1 < count[a]), key=lambda t: (count[t], ERROR_TYPES.index(t)),
                    default=None)
            if b is not None:
                move = [(i, b)]
                break
        if move is None:  # a chain: i a -> b, j b -> c, when c has at least two fewer than a
            best: dict[str, tuple] = {}  # b -> the emptiest type c some question of type b can move to
            for j in members:
                b = out[j]
                for c in feasible[j] - {b}:
                    key = (count[c], ERROR_TYPES.index(c), j)
                    if b not in best or key < best[b][0]:
                        best[b] = (key, j, c)
            for i in members:
                a = out[i]
                b = next((b for b in sorted(feasible[i] - {a}, key=ERROR_TYPES.index)
                          if b in best and best[b][0][0] + 1 < count[a]), None)
                if b is not None:
                    move = [(i, b), (best[b][1], best[b][2])]
                    break
        if move is None:
            return
        for k, t in move:
            count[out[k]] -= 1
            count[t] += 1
            out[k] = t


def balanced_gold(types: list[str]) -> list[str]:
    """Gold position of each item: per type, alternately ``A`` and ``B`` in the given order.

    The first item of every type gets ``A``, its second ``B``, and so on, so each type has
    ``ceil(n/2)`` items with gold A and ``floor(n/2)`` with gold B.
    """
    seen: Counter = Counter()
    out = []
    for t in types:
        out.append("A" if seen[t] % 2 == 0 else "B")
        seen[t] += 1
    return out


def stratified_pick(types: list[str], domains: list[str], n: int) -> list[int]:
    """Positions of ``n`` items spread over types and domains (a judge-independent sample).

    Items are dealt round-robin over the types (condition order); each type gives the item of
    the domain picked least so far (domains in order of first appearance, then input order).
    The first ``n`` dealt are returned in input order; ``n`` above the number of items takes all.
    """
    from collections import deque

    rank = {d: k for k, d in enumerate(dict.fromkeys(domains))}
    # per type, per domain: the items left in input order (a pick looks at the domains, not every item)
    queues: dict[str, dict[str, deque]] = {t: {} for t in ERROR_TYPES}
    for i, (t, d) in enumerate(zip(types, domains)):
        if t in queues:
            queues[t].setdefault(d, deque()).append(i)
    picked: Counter = Counter()
    dealt: list[int] = []
    while len(dealt) < n and any(queues[t] for t in ERROR_TYPES):
        for t in ERROR_TYPES:
            q = queues[t]
            if not q or len(dealt) >= n:
                continue
            d = min(q, key=lambda d: (picked[d], rank[d]))
            best = q[d].popleft()
            if not q[d]:
                del q[d]
            dealt.append(best)
            picked[d] += 1
    return sorted(dealt)
