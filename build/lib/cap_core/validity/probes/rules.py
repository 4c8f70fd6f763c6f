"""Deterministic text edits behind the probe generator, and the marker lexicons the verifier reads.

Each rule takes a base claim (and, for scope edits that need a wider referent, the
base item's declared spans) and returns the edited text, or ``None`` when the rule has
nothing to act on. The taxonomy (Validity Table 8, plus the five controls of Fig. 2):

========================  =====  ========  ==================================================
slot                      class  axis      rule
========================  =====  ========  ==================================================
domain_extension          T_C    scope     declared domain span -> the adjacent domain text
population_widening       T_C    scope     declared population span -> the wider population
quantifier_strengthening  T_C    scope     first weak quantifier -> universal (some -> all)
tense_modality_shift      T_C    scope     past observation verbs -> present (standing fact)
condition_removal         T_C    strength  drop the "when/if/while/unless ..." clause
hedging_removal           T_C    strength  drop a hedge (probably, possibly, ...)
intensifier_addition      T_C    strength  downtoner -> "dramatically", else add "substantially"
register                  T_I    control   formal words -> plain ones, else contractions
restatement               T_I    control   construct-neutral synonyms (study -> investigation)
clause_order              T_I    control   move the condition clause to the other end
length                    T_I    control   append a neutral sentence
formatting                T_I    control   markdown label and bold
========================  =====  ========  ==================================================
"""

from __future__ import annotations

import re
import zlib

__all__ = ["SLOTS", "RULES", "QUANTIFIERS", "TENSE", "HEDGES", "INTENSITY", "CONDITION_RE"]

SLOTS: dict[str, tuple[str, str]] = {
    "domain_extension": ("T_C", "scope"), "population_widening": ("T_C", "scope"),
    "quantifier_strengthening": ("T_C", "scope"), "tense_modality_shift": ("T_C", "scope"),
    "condition_removal": ("T_C", "strength"), "hedging_removal": ("T_C", "strength"),
    "intensifier_addition": ("T_C", "strength"),
    "register": ("T_I", "control"), "restatement": ("T_I", "control"), "clause_order": ("T_I", "control"),
    "length": ("T_I", "control"), "formatting": ("T_I", "control"),
}
assert all(cls in ("T_C", "T_I") and ax in ("scope", "strength", "control") for cls, ax in SLOTS.values())
assert all((cls == "T_I") == (ax == "control") for cls, ax in SLOTS.values())

#: weak quantifier -> universal one (scope).
QUANTIFIERS: dict[str, str] = {
    "some": "all", "many": "all", "most": "all", "several": "all", "a few": "all", "a minority of": "all",
    "often": "always", "sometimes": "always", "usually": "always", "occasionally": "always",
    "frequently": "always", "in part": "entirely",
}
_QUANT_MARKERS = set(QUANTIFIERS) | {"all", "always", "every", "each", "entirely", "never", "none"}
#: past observation verb -> present standing form (scope: one-time -> standing property).
TENSE: dict[str, str] = {
    "reduced": "reduces", "increased": "increases", "improved": "improves", "lowered": "lowers",
    "raised": "raises", "slowed": "slows", "shortened": "shortens", "predicted": "predicts",
    "doubled": "doubles", "halved": "halves", "protected": "protects", "outperformed": "outperforms",
    "was": "is", "were": "are", "had": "has", "showed": "shows", "delayed": "delays",
    "decreased": "decreases", "prevented": "prevents", "extended": "extends", "exceeded": "exceeds",
    "cut": "cuts", "lifted": "lifts", "attracted": "attracts", "retained": "retains", "boosted": "boosts",
}
_PLURAL = {v: ("have" if v == "has" else "are" if v == "is" else v[:-1]) for v in TENSE.values()}
_TENSE_MARKERS = set(TENSE) | set(TENSE.values()) | set(_PLURAL.values())
#: removable hedges, longest first (strength).
HEDGES: tuple[str, ...] = ("there is some evidence that", "it is plausible that", "it appears that",
                           "probably", "possibly", "likely", "perhaps", "apparently", "tentatively")
_DOWNTONERS = ("a little", "slightly", "modestly", "somewhat", "marginally")
INTENSITY: tuple[str, ...] = _DOWNTONERS + ("dramatically", "substantially", "strongly", "greatly", "sharply")
_COND_WORDS = r"(?:only when|when|if|while|unless|provided that|as long as)"
#: a condition clause: trailing ", when ..." or leading "When ..., " (strength).
CONDITION_RE = re.compile(rf"(?:,\s*{_COND_WORDS}\b[^,.;]*)|(?:^{_COND_WORDS}\b[^,]*,\s*)", re.IGNORECASE)

_REGISTER = {"approximately": "roughly", "utilised": "used", "subsequently": "later", "however": "but",
             "therefore": "so", "in order to": "to", "obtained": "got", "purchase": "buy", "assist": "help",
             "sufficient": "enough", "additional": "extra", "prior to": "before", "regarding": "about",
             "the researchers": "the team", "commenced": "started", "residence": "home"}
_CONTRACT = {"did not": "didn't", "was not": "wasn't", "were not": "weren't", "does not": "doesn't",
             "is not": "isn't", "do not": "don't"}
_RESTATE = {"study": "investigation", "researchers": "investigators", "measured": "recorded",
            "results": "findings", "compared with": "relative to", "levels": "concentrations",
            "survey": "poll", "analysis": "examination", "records": "logs", "observed": "noted",
            "trial": "experiment", "audit": "review", "benchmark": "performance test", "greenhouse": "glasshouse"}
_PADS = ("Please judge this sentence against the evidence given.",
         "This sentence should be read together with the evidence above.",
         "Read the sentence in the light of the evidence shown.")


def _word(phrase: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(phrase)}\b", re.IGNORECASE)


def _case_like(src: str, new: str) -> str:
    return new[:1].upper() + new[1:] if src[:1].isupper() else new


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;])", r"\1", text)
    return text[:1].upper() + text[1:]


def _protected(text: str) -> list[tuple[int, int]]:
    """Character ranges of hedges and condition clauses (left alone by scope edits)."""
    spans = [(m.start(), m.end()) for m in CONDITION_RE.finditer(text)]
    return spans + [(m.start(), m.end()) for h in HEDGES for m in _word(h).finditer(text)]


def _free(text: str, pattern: re.Pattern, protect: bool) -> list[re.Match]:
    guard = _protected(text) if protect else []
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in guard)]


def _outside(text: str) -> str:
    """The text with hedges and condition clauses cut out."""
    out, last = [], 0
    for a, b in sorted(_protected(text)):
        if a >= last:
            out.append(text[last:a])
            last = b
    return " ".join(out + [text[last:]])


def _sub_first(text: str, table: dict[str, str], protect: bool = False) -> str | None:
    """Replace the earliest occurrence of any key (longest key first at equal position)."""
    hits = [(ms[0].start(), -len(k), ms[0], v) for k, v in table.items()
            for ms in [_free(text, _word(k), protect)] if ms]
    if not hits:
        return None
    _, _, m, v = min(hits, key=lambda h: (h[0], h[1]))
    return text[:m.start()] + _case_like(m.group(0), v) + text[m.end():]


def _sub_all(text: str, table: dict[str, str]) -> str | None:
    out = text
    for k, v in table.items():
        out = _word(k).sub(lambda m, v=v: _case_like(m.group(0), v), out)
    return out if out != text else None


def _plural_subject(text: str, at: int) -> bool:
    """Whether the word before position ``at`` (skipping adverbs) looks like a plural noun."""
    skip = set(HEDGES) | set(INTENSITY) | {"that"}
    words = re.findall(r"[A-Za-z-]+", text[:at])
    while words and words[-1].lower() in skip:
        words.pop()
    w = words[-1].lower() if words else ""
    return w.endswith("s") and not w.endswith(("ss", "us", "is"))


def _span(text: str, span: str, new: str) -> str | None:
    if not span or not new or span not in text:
        return None
    return text.replace(span, new, 1)


def domain_extension(text: str, spans: dict) -> str | None:
    return _span(text, spans.get("domain_span", ""), spans.get("adjacent_domain", ""))


def population_widening(text: str, spans: dict) -> str | None:
    return _span(text, spans.get("population_span", ""), spans.get("wider_population", ""))


def quantifier_strengthening(text: str, spans: dict) -> str | None:
    return _sub_first(text, QUANTIFIERS, protect=True)


def tense_modality_shift(text: str, spans: dict) -> str | None:
    """Every past observation verb outside hedges and conditions -> present, agreeing with its subject."""
    hits = sorted((m for v in TENSE for m in _free(text, _word(v), True)), key=lambda m: m.start())
    for m in reversed(hits):
        new = TENSE[m.group(0).lower()]
        new = _PLURAL[new] if m.group(0).lower() not in ("was", "were") and _plural_subject(text, m.start()) else new
        text = text[:m.start()] + _case_like(m.group(0), new) + text[m.end():]
    return text if hits else None


def condition_removal(text: str, spans: dict) -> str | None:
    m = CONDITION_RE.search(text)
    return _tidy(text[:m.start()] + text[m.end():]) if m else None


def hedging_removal(text: str, spans: dict) -> str | None:
    for h in HEDGES:
        m = _word(h).search(text)
        if m:
            return _tidy(text[:m.start()] + text[m.end():])
    return None


def intensifier_addition(text: str, spans: dict) -> str | None:
    out = _sub_first(text, {d: "dramatically" for d in _DOWNTONERS})
    if out is not None:
        return out
    verbs = [m for v in TENSE if v not in ("was", "were", "had") for m in [_word(v).search(text)] if m]
    if not verbs:
        return None
    m = min(verbs, key=lambda x: x.start())
    return text[:m.start()] + "substantially " + text[m.start():]


def register(text: str, spans: dict) -> str | None:
    return _sub_all(text, _REGISTER) or _sub_all(text, _CONTRACT) or "Put simply: " + text


def restatement(text: str, spans: dict) -> str | None:
    return _sub_first(text, _RESTATE)


def clause_order(text: str, spans: dict) -> str | None:
    m = CONDITION_RE.search(text)
    if not m:
        return None
    clause = m.group(0).strip(" ,")
    rest = (text[:m.start()] + text[m.end():]).strip()
    end = rest[-1] if rest[-1:] in ".!?" else ""
    rest = rest.rstrip(".!?")
    if m.start() == 0:  # leading clause -> trailing
        return _tidy(f"{rest[:1].lower() + rest[1:] if rest[1:2].islower() else rest}, "
                     f"{clause[:1].lower() + clause[1:]}{end}")
    return _tidy(f"{clause[:1].upper() + clause[1:]}, {rest[:1].lower() + rest[1:] if rest[1:2].islower() else rest}{end}")


def length(text: str, spans: dict) -> str | None:
    return f"{text} {_PADS[zlib.crc32(text.encode()) % len(_PADS)]}"


def formatting(text: str, spans: dict) -> str | None:
    return f"**Claim:** {text}"


RULES = {name: globals()[name] for name in SLOTS}


def markers(text: str, spans: dict) -> dict[str, tuple]:
    """Construct markers of a text, grouped by axis (what the verifier compares).

    Returns ``{"scope": (...), "strength": (...)}``: sorted tuples of quantifier and tense
    tokens plus whether the declared population / domain spans are present (scope);
    hedges, intensity words and condition clauses (strength). Case-insensitive.
    """
    low, free = text.lower(), _outside(text).lower()

    def found(words, where) -> tuple:
        return tuple(sorted(w for w in words for _ in _word(w).finditer(where)))

    def count(key) -> int:
        return text.count(spans[key]) if spans.get(key) else 0

    conds = tuple(sorted(m.group(0).strip(" ,").lower() for m in CONDITION_RE.finditer(text)))
    scope = (found(_QUANT_MARKERS, free), found(_TENSE_MARKERS, free),
             tuple(count(k) for k in ("population_span", "wider_population", "domain_span", "adjacent_domain")))
    return {"scope": scope, "strength": (found(HEDGES, low), found(INTENSITY, low), conds)}
