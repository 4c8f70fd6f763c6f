"""Style polish and length padding of pairwise items (CAP §3.3, App. B.2-B.3).

``polished`` rewrites BOTH responses in a more formal register (length within
``polish_band``, default +-20%); ``length_padded`` expands only the WORSE response to
about ``pad_factor`` (default 1.5x) its length, inside ``pad_band``. A generator model
(any litellm string) does the rewriting through the cache and budget; without one, the
deterministic rules :func:`polish_rule` and :func:`pad_rule` are used (offline).

Every rewrite is checked before use: the length band (regenerated up to ``attempts``
times, with a new seed, when outside it) and label preservation -- the numbers,
negations and hedges of the original must all survive (the planted errors of C1-C4
live in exactly those words), and an optional ``verifier`` judge must still prefer the
gold response in both orders. A variant whose rewrites changed nothing (the plain item
again: a short answer the rules cannot polish, a padding too small to add a sentence) is no
variant. A variant that fails is dropped and its reason kept; when
no base item keeps a variant, the condition is declared ``unavailable``.
"""

from __future__ import annotations

import re
from collections import Counter

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["polish_rule", "pad_rule", "invariants_kept", "augment_items", "KEPT_WORDS"]

_FORMAL = [
    (r"\bdon't\b", "do not"), (r"\bdoesn't\b", "does not"), (r"\bcan't\b", "cannot"), (r"\bisn't\b", "is not"),
    (r"\baren't\b", "are not"), (r"\bwon't\b", "will not"), (r"\bit's\b", "it is"), (r"\bthat's\b", "that is"),
    (r"\ba lot of\b", "a great deal of"), (r"\blots of\b", "a great many"), (r"\bbig\b", "substantial"),
    (r"\bget\b", "obtain"), (r"\bgets\b", "obtains"), (r"\bshow\b", "demonstrate"), (r"\bshows\b", "demonstrates"),
    (r"\bhelp\b", "assist"), (r"\bhelps\b", "assists"), (r"\buse\b", "employ"), (r"\buses\b", "employs"),
    # "need" as a verb only: not the noun of "without need", "no need", "the need", "a need", "in need"
    (r"(?<!\bwithout )(?<!\bno )(?<!\bthe )(?<!\ba )(?<!\bin )(?<!\bany )\bneed\b", "require"),
    (r"(?<!\bthe )(?<!\bfluid )(?<!\bwater )(?<!\bdaily )(?<!\bbasic )(?<!\btheir )(?<!\byour )\bneeds\b",
     "requires"), (r"\bbut\b", "however,"), (r"\balso\b", "additionally"),
    (r"\bso\b", "consequently"), (r"\bstart\b", "commence"), (r"\bend\b", "conclude"), (r"\bbuy\b", "purchase"),
]
_OPENERS = ("To state it precisely:", "Put formally:", "Precisely:")
_KEEP = re.compile(r"\b(?:\d[\d.,/%]*|not|no|never|none|nor|cannot|without|only|all|every|always|may|might|"
                   r"can|could|some|often|usually|sometimes|rarely|most|many|few|unless|except|if)\b", re.I)
#: The words label preservation protects (numbers, negations, hedges): the planted errors live in them.
KEPT_WORDS = _KEEP
_RESTATE = ("To put the same point another way: {s}", "In other words, {s}", "Restating this for clarity: {s}",
            "That is to say, {s}", "Once more, to be explicit: {s}")
_FILLERS = ("This point is worth keeping in mind.", "The point bears repeating.", "This is the central idea here.",
            "That is the essence of the answer.", "This summarises the matter.")


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", text.strip()) if p.strip()]
    return parts or [text.strip()]


def polish_rule(text: str) -> str:
    """Deterministic formal rewrite: contractions expanded, plain words swapped for formal ones."""
    out = text
    for pat, rep in _FORMAL:
        out = re.sub(pat, lambda m, r=rep: r.capitalize() if m.group(0)[0].isupper() else r, out, flags=re.I)
    out = re.sub(r"\s+", " ", out.replace("however,,", "however,")).strip()
    for opener in _OPENERS:  # an authoritative opener, when it keeps the length within 20%
        if len(opener) + 1 + len(out) <= 1.18 * len(text):
            return f"{opener} {out}"
    return out


def pad_rule(text: str, factor: float = 1.5) -> str:
    """Deterministic padding to about ``factor`` x the length by restating the text's own sentences."""
    base = text.strip()
    target = len(base) * factor
    sents, out, k = _sentences(base), base, 0
    while len(out) < target * 0.97 and k < 60:
        s = sents[k % len(sents)]
        s = s[0].lower() + s[1:] if s[:2] != s[:2].upper() else s
        add = _RESTATE[k % len(_RESTATE)].format(s=s)
        if len(out) + len(add) > target * 1.08:
            add = min(_FILLERS, key=lambda f: abs(len(out) + len(f) + 1 - target))
            if abs(len(out) + len(add) + 1 - target) >= abs(len(out) - target):
                break
        out += " " + add
        k += 1
    return out


def invariants_kept(original: str, rewritten: str) -> bool:
    """True when every number, negation and hedge of ``original`` appears as often in ``rewritten``."""
    need = Counter(w.lower() for w in _KEEP.findall(original))
    have = Counter(w.lower() for w in _KEEP.findall(rewritten))
    return all(have[w] >= n for w, n in need.items())


def _generate(client, template, model, text, seed, api_base=None, **fields):
    from cap_core.judging.request import JudgeRequest

    req = JudgeRequest(model, (("user", template.render(text=text, **fields)),), temperature=0.3,
                       max_tokens=2048, seed=seed, template_version=template.version, api_base=api_base)
    rec = client.call(req)
    return rec.completion.strip() if rec.status == "ok" and rec.completion else None


def _rewrite(kind, text, generator, client, factor, band, attempts, api_base=None):
    """One checked rewrite; returns (text or None, reason)."""
    from cap_core.judging.templates import load_template

    lo, hi = band
    reason = "no attempt"
    for attempt in range(attempts if generator else 1):
        if generator:
            tpl = load_template("polish" if kind == "polished" else "pad")
            extra = {} if kind == "polished" else {"factor": f"{factor:g}"}
            new = _generate(client, tpl, generator, text, attempt, api_base, **extra)
            if new is None:
                reason = "generator call failed"
                continue
        else:
            new = polish_rule(text) if kind == "polished" else pad_rule(text, factor)
        ratio = len(new) / max(1, len(text))
        if not lo <= ratio <= hi:
            reason = f"length ratio {ratio:.2f} outside [{lo:g}, {hi:g}]"
            continue
        if not invariants_kept(text, new):
            reason = "a number, negation or hedge of the original was lost"
            continue
        return new, ""
    return None, reason


def augment_items(items: pl.DataFrame, *, generator: str | None = None, client=None, pad_factor: float = 1.5,
                  polish_band: float = 0.2, pad_band: tuple[float, float] | None = None, attempts: int = 3,
                  verifier=None, api_base: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Add ``polished`` and ``length_padded`` variants of each ``plain``/``original`` item.

    Parameters
    ----------
    items : polars.DataFrame
        Run items (ITEMS columns plus ``question``, ``response_a``, ``response_b``).
    generator : str, optional
        litellm model string; ``None`` uses the deterministic rules.
    client : JudgeClient, optional
        Required with ``generator`` (cache, retries, budget).
    pad_factor, polish_band, pad_band
        Target padding factor (1.5 = +50%), allowed polish deviation (fraction),
        allowed padded/original length ratio (default: half to one and a half times the
        padding asked for, ``1 + (pad_factor - 1) * [0.5, 1.5]``: 1.25-1.75 at 1.5, 2.5-5.5 at 4).
    verifier : callable, optional
        ``verifier(row) -> bool``: True when the gold still wins on the variant row.
    api_base : str, optional
        Endpoint of an OpenAI-compatible server for the generator.

    Returns
    -------
    (items, dropped)
        Items with the new variants appended (``item_id`` = ``<base>::polished`` ...,
        ``base_item_id`` = the original item id) and a table of dropped variants with
        ``item_id``, ``variant``, ``reason``.

    Raises
    ------
    CAPInputError
        Missing text columns (argument ``items``), a generator without a ``client``, a
        bad ``pad_factor``, ``polish_band`` or ``pad_band``.
    """
    need = {"item_id", "gold", "question", "response_a", "response_b"}
    if not need <= set(items.columns):
        raise CAPInputError("augmentation needs item texts", column=sorted(need - set(items.columns))[0],
                            argument="items", expected=", ".join(sorted(need)),
                            fix="load items with question/response_a/response_b")
    if generator and client is None:
        raise CAPInputError("a generator model needs a JudgeClient", argument="client", expected="a JudgeClient",
                            got=None, fix="pass client=JudgeClient(...)")
    for name, value, ok, want in (("pad_factor", pad_factor, lambda v: 1.0 < v <= 4.0, "1 < pad_factor <= 4"),
                                  ("polish_band", polish_band, lambda v: 0 < v < 1, "0 < polish_band < 1")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not ok(value):
            raise CAPInputError(f"{name} out of range", argument=name, expected=want, got=value)
    if pad_band is not None and (len(pad_band) != 2 or not 1.0 < pad_band[0] < pad_band[1]):
        raise CAPInputError("pad_band out of range", argument="pad_band", expected="(low, high) with 1 < low < high",
                            got=pad_band)
    pad_band = pad_band or (1 + 0.5 * (pad_factor - 1), 1 + 1.5 * (pad_factor - 1))
    plain = items.filter(pl.col("variant").is_in(["plain", "original"])) if "variant" in items.columns else items
    new_rows, dropped = [], []
    for row in plain.iter_rows(named=True):
        worse = "response_b" if row["gold"] == "A" else "response_a"
        for kind in ("polished", "length_padded"):
            out = dict(row, item_id=f"{row['item_id']}::{kind}", variant=kind,
                       base_item_id=row.get("base_item_id") or row["item_id"])
            fields = ("response_a", "response_b") if kind == "polished" else (worse,)
            band = (1 - polish_band, 1 + polish_band) if kind == "polished" else pad_band
            reason = ""
            for f in fields:
                new, reason = _rewrite(kind, row[f], generator, client, pad_factor, band, attempts, api_base)
                if new is None:
                    break
                out[f] = new
            if not reason and all(out[f].strip() == row[f].strip() for f in fields):
                reason = "the variant is its plain item unchanged (the rewrite changed nothing)"
            if not reason and verifier is not None and not verifier(out):
                reason = "label not preserved: the verifier no longer prefers the gold response"
            if reason:
                dropped.append({"item_id": out["item_id"], "variant": kind, "reason": reason})
                continue
            for col, f in (("len_a", "response_a"), ("len_b", "response_b")):
                if col in out:
                    out[col] = len(out[f])
            new_rows.append(out)
    added = pl.DataFrame(new_rows, schema=items.schema) if new_rows else items.clear()
    drop_schema = {"item_id": pl.String, "variant": pl.String, "reason": pl.String}
    return pl.concat([items, added], how="vertical"), pl.DataFrame(dropped, schema=drop_schema)
