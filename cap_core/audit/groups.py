"""Groups of the label audit: the base item across its variants, and look-alike groups.

The surface audit (:mod:`cap_core.audit.surface`) keeps every unit of one *group* in one
cross-validation fold and permutes labels within groups. A group must therefore be the
base item across all its presentations (CAP §3.3 resamples base items for the same
reason): if two variants of one question land in different groups, a predictor can learn
the question in training and meet its variant in test, and the audit overstates what
surface features explain.

Rules (one place, used by the user-set reader and the audit):

* :func:`normalise_prompt`: Unicode NFKC, case-folded, every run of characters that are
  not letters or digits replaced by one space, trimmed. Two prompts that differ only in
  case, spacing, punctuation or character width are one base item.
* Default group of a user's row (:mod:`cap_core.audit.user_sets`): its ``group``, else
  its ``base_item_id``, else its normalised prompt -- never the raw prompt text.
* Look-alike groups (:func:`variant_group_pairs`): two different groups look like
  variants of one base item when (a) their normalised texts are equal, (b) they are
  equal once presentation-variant words are removed (:data:`VARIANT_WORDS`, e.g.
  ``q7-plain`` / ``q7-polished``), or (c) both have at least
  :data:`MIN_TOKENS` tokens and the Jaccard overlap of their token sets is at least
  :data:`JACCARD`. Candidates for (c) share one of each group's two rarest tokens
  (tokens held by more than :data:`MAX_BUCKET` groups are not used), so the check stays
  near-linear on large sets; it is a warning heuristic, not a proof.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from itertools import combinations

from cap_core.schema import VARIANTS

__all__ = ["normalise_prompt", "variant_group_pairs", "variant_group_notice", "VARIANT_WORDS", "JACCARD",
           "MIN_TOKENS", "MAX_BUCKET"]

#: Words that name a presentation, not a question (the schema's variants and common style names).
VARIANT_WORDS: frozenset[str] = frozenset(
    {w for v in VARIANTS for w in v.split("_")}
    | {"concise", "detailed", "markdown", "swap", "swapped", "rewrite", "rewritten", "paraphrase", "paraphrased"})
#: Token-set Jaccard overlap from which two long groups look like variants.
JACCARD = 0.8
#: Fewest tokens a group text needs for the overlap rule.
MIN_TOKENS = 5
#: Tokens shared by more groups than this are too common to pair candidates on.
MAX_BUCKET = 50
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise_prompt(text: str) -> str:
    """The normalised form of a prompt (rule in the module docstring); ``""`` for None."""
    if text is None:
        return ""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def variant_group_pairs(groups) -> list[tuple[str, str, float]]:
    """Pairs of distinct groups that look like variants of one base item.

    Parameters
    ----------
    groups : iterable of str
        Group labels (ids or prompt texts); duplicates are read once.

    Returns
    -------
    list of (str, str, float)
        ``(group_1, group_2, similarity)`` with ``group_1 < group_2``, sorted;
        similarity is 1.0 for rules (a) and (b), the Jaccard overlap for rule (c).
    """
    uniq = sorted({str(g) for g in groups if g is not None})
    norm = {g: normalise_prompt(g) for g in uniq}
    found: dict[tuple[str, str], float] = {}
    for key_of in (lambda g: norm[g],
                   lambda g: " ".join(t for t in norm[g].split() if t not in VARIANT_WORDS)):
        by_key = defaultdict(list)
        for g in uniq:
            by_key[key_of(g)].append(g)
        for key, members in by_key.items():
            if key and len(members) > 1:
                for a, b in combinations(members, 2):
                    found[(a, b)] = 1.0
    toks = {g: frozenset(norm[g].split()) for g in uniq}
    long = [g for g in uniq if len(toks[g]) >= MIN_TOKENS]
    df = defaultdict(int)
    for g in long:
        for t in toks[g]:
            df[t] += 1
    buckets = defaultdict(list)
    for g in long:
        for t in sorted(toks[g], key=lambda t: (df[t], t))[:2]:
            if df[t] <= MAX_BUCKET:
                buckets[t].append(g)
    for members in buckets.values():
        for a, b in combinations(members, 2):
            if (a, b) in found:
                continue
            sim = len(toks[a] & toks[b]) / len(toks[a] | toks[b])
            if sim >= JACCARD:
                found[(a, b)] = sim
    return sorted((a, b, s) for (a, b), s in found.items())


def variant_group_notice(name: str, groups) -> str | None:
    """A one-paragraph notice when some groups of ``name`` look like variants of each other, else None."""
    pairs = variant_group_pairs(groups)
    if not pairs:
        return None
    a, b, sim = pairs[0]
    short = lambda g: g if len(g) <= 60 else g[:57] + "..."  # noqa: E731
    n = len(pairs)
    return (f"{name}: {n} pair{'s' if n != 1 else ''} of groups look like variants of one base item "
            f"(e.g. {short(a)!r} and {short(b)!r}, overlap {sim:.2f}); their rows may fall in different folds "
            "and the audit may overstate what surface features explain. Give a base_item_id (or group) "
            "column shared by every variant of one item.")
