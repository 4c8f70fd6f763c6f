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
  variants of one base item when (a) their normalised texts are equal; (b) they are
  equal once presentation-variant words (:data:`VARIANT_WORDS`, e.g. ``q7-plain`` /
  ``q7-polished``) are dropped and a plural ``s`` is set aside (``cost`` / ``costs``); or
  (c) both have at least :data:`MIN_TOKENS` tokens and one text's words are the other's
  with at most :data:`MAX_ADDED` words added and none replaced ("Write a poem about X" /
  "Write a poem about really X"). A word *replaced* never makes a variant: templated
  prompts that differ in one entity ("... Adobe's procedure ..." / "... Google's
  procedure ...") are different questions. (The former rule, a token-set overlap of
  0.8, flagged 1,517 pairs of RewardBench's 2,733 prompts, nearly all templated; this rule
  flags a few dozen, each a real near-copy.) Candidates for (c) share the shorter text's
  rarest word (words held by more than :data:`MAX_BUCKET` groups are not used), so the
  check stays near-linear on large sets; it is a warning heuristic, not a proof.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from itertools import combinations

from cap_core.schema import VARIANTS

__all__ = ["normalise_prompt", "variant_group_pairs", "variant_group_notice", "VARIANT_WORDS", "MAX_ADDED",
           "MIN_TOKENS", "MAX_BUCKET", "EXAMPLES"]

#: Words that name a presentation, not a question (the schema's variants and common style names).
VARIANT_WORDS: frozenset[str] = frozenset(
    {w for v in VARIANTS for w in v.split("_")}
    | {"concise", "detailed", "markdown", "swap", "swapped", "rewrite", "rewritten", "paraphrase", "paraphrased"})
#: Most words one text may add to the other for the two to look like variants (rule c).
MAX_ADDED = 2
#: Examples named in the notice.
EXAMPLES = 3
#: Fewest tokens a group text needs for the added-words rule.
MIN_TOKENS = 5
#: Tokens shared by more groups than this are too common to pair candidates on.
MAX_BUCKET = 50
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise_prompt(text: str) -> str:
    """The normalised form of a prompt (rule in the module docstring); ``""`` for None."""
    if text is None:
        return ""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", str(text)).casefold()).strip()


def _plain(token: str) -> str:
    """A token with a plural ``s`` set aside (``costs`` -> ``cost``; ``class``, ``is`` kept)."""
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


def variant_group_pairs(groups) -> list[tuple[str, str, float]]:
    """Pairs of distinct groups that look like variants of one base item (rules a-c of the module docstring).

    Parameters
    ----------
    groups : iterable of str
        Group labels (ids or prompt texts); duplicates are read once.

    Returns
    -------
    list of (str, str, float)
        ``(group_1, group_2, similarity)`` with ``group_1 < group_2``, sorted;
        similarity is 1.0 for rules (a) and (b), for rule (c) the share of the longer
        text's distinct words that the shorter holds.
    """
    uniq = sorted({str(g) for g in groups if g is not None})
    norm = {g: normalise_prompt(g) for g in uniq}
    found: dict[tuple[str, str], float] = {}
    for key_of in (lambda g: norm[g],
                   lambda g: " ".join(_plain(t) for t in norm[g].split() if t not in VARIANT_WORDS)):
        by_key = defaultdict(list)
        for g in uniq:
            by_key[key_of(g)].append(g)
        for key, members in by_key.items():
            if key and len(members) > 1:
                for a, b in combinations(members, 2):
                    found[(a, b)] = 1.0
    toks = {g: frozenset(_plain(t) for t in norm[g].split() if t not in VARIANT_WORDS) for g in uniq}
    long = [g for g in uniq if len(toks[g]) >= MIN_TOKENS]
    holders = defaultdict(list)
    for g in long:
        for t in toks[g]:
            holders[t].append(g)
    for g in long:
        usable = [t for t in toks[g] if len(holders[t]) <= MAX_BUCKET]
        if not usable:
            continue
        rarest = min(usable, key=lambda t: (len(holders[t]), t))
        for other in holders[rarest]:
            if other == g or len(toks[other]) < len(toks[g]):
                continue
            added = len(toks[other]) - len(toks[g])
            if added <= MAX_ADDED and toks[g] <= toks[other]:
                a, b = sorted((g, other))
                found.setdefault((a, b), len(toks[g]) / len(toks[other]))
    return sorted((a, b, s) for (a, b), s in found.items())


def variant_group_notice(name: str, groups) -> str | None:
    """A one-paragraph notice when some groups of ``name`` look like variants of each other, else None.

    Gives the number of look-alike pairs and up to :data:`EXAMPLES` of them, most alike first.
    """
    pairs = variant_group_pairs(groups)
    if not pairs:
        return None
    short = lambda g: " ".join(g.split()) if len(g) <= 60 else " ".join(g.split())[:57] + "..."  # noqa: E731
    n = len(pairs)
    shown = sorted(pairs, key=lambda p: (-p[2], p[0], p[1]))[:EXAMPLES]
    examples = "; ".join(f"{short(a)!r} / {short(b)!r}" for a, b, _ in shown)
    return (f"{name}: {n} pair{'s' if n != 1 else ''} of groups look like variants of one base item (the same "
            f"text once case, punctuation, presentation words and plurals are set aside, or one text with at most "
            f"{MAX_ADDED} words added), e.g. {examples}; their rows may fall in different folds and the audit may "
            "overstate what surface features explain. Give a base_item_id (or group) column shared by every "
            "variant of one item.")
