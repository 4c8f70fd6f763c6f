"""Probe sets: base claims, the rule-based probe generator and the probe verifier.

A base item is one claim with the evidence that licenses it (Validity Fig. 7, right).
The generator applies every rule of :mod:`cap_core.validity.probes.rules` to every base claim
(deterministic: the same bases give byte-identical probes). The verifier compares the
construct markers of base and probe and rejects, with a recorded reason:

* any probe whose text did not change ("moved nothing: text unchanged");
* a T_C probe that moved no axis, moved both axes (Validity Fig. 4: it cannot separate
  them), or moved the other axis than its slot declares;
* a T_I control that moved an axis;
* optionally, a probe whose length changed more than ``max_length_change`` (a fraction;
  the ``length`` control is exempt).
"""

from __future__ import annotations

import numbers

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.validity.probes.rules import RULES, SLOTS, markers

__all__ = ["BASES_SCHEMA", "PROBES_SCHEMA", "SLOTS", "validate_bases", "validate_probes", "generate_probes",
           "verify_probes", "rejection_summary"]

BASES_SCHEMA: dict[str, pl.DataType] = {
    "base_item_id": pl.Utf8, "domain": pl.Utf8, "claim": pl.Utf8, "evidence": pl.Utf8,
    "population_span": pl.Utf8, "wider_population": pl.Utf8, "domain_span": pl.Utf8, "adjacent_domain": pl.Utf8,
}
PROBES_SCHEMA: dict[str, pl.DataType] = {
    "probe_id": pl.Utf8, "base_item_id": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8, "slot": pl.Utf8,
    "text": pl.Utf8, "delta_length_pct": pl.Float64,
}
_REQUIRED_BASE = ("base_item_id", "domain", "claim", "evidence")
_SPANS = ("population_span", "wider_population", "domain_span", "adjacent_domain")


def _first(mask: pl.Series) -> int:
    return int(mask.arg_true()[0]) + 1


def validate_bases(df: object, *, file: str | None = None) -> pl.DataFrame:
    """Check base claims: required columns, non-empty id/domain/claim/evidence, unique ids.

    Optional span columns (``population_span`` ... ``adjacent_domain``) default to "".
    Returns the table cast to :data:`BASES_SCHEMA`. Raises :class:`CAPInputError`.
    """
    if not isinstance(df, pl.DataFrame) or df.height == 0:
        raise CAPInputError("the base claims table is empty or not a table", file=file,
                            expected="rows with " + ", ".join(_REQUIRED_BASE))
    missing = [c for c in _REQUIRED_BASE if c not in df.columns]
    if missing:
        raise CAPInputError("the base claims table lacks a column", file=file, column=missing[0],
                            expected=", ".join(BASES_SCHEMA), got=df.columns)
    df = df.with_columns([pl.lit("").alias(c) for c in _SPANS if c not in df.columns])
    out = df.select([pl.col(c).cast(pl.Utf8).fill_null("") for c in BASES_SCHEMA])
    for c in _REQUIRED_BASE:
        bad = out[c].str.strip_chars() == ""
        if bad.any():
            raise CAPInputError(f"an empty {c}", file=file, row=_first(bad), column=c, expected="non-empty text",
                                fix="every base item needs an id, a domain, a claim and its evidence")
    dup = out["base_item_id"].is_duplicated()
    if dup.any():
        raise CAPInputError("a duplicated base_item_id", file=file, row=_first(dup), column="base_item_id",
                            got=out["base_item_id"][_first(dup) - 1], expected="unique ids")
    return out


def validate_probes(probes: object, bases: pl.DataFrame, *, file: str | None = None) -> pl.DataFrame:
    """Check a probe table against its bases; a probe whose base is unknown is refused.

    Raises
    ------
    CAPInputError
        Missing columns, unknown slot, class/axis not matching the slot's taxonomy,
        empty text, duplicated probe_id, or a ``base_item_id`` absent from ``bases``
        ("probe without base").
    """
    if not isinstance(probes, pl.DataFrame) or probes.height == 0:
        raise CAPInputError("the probe table is empty or not a table", file=file, expected=", ".join(PROBES_SCHEMA))
    missing = [c for c in PROBES_SCHEMA if c not in probes.columns and c != "delta_length_pct"]
    if missing:
        raise CAPInputError("the probe table lacks a column", file=file, column=missing[0],
                            expected=", ".join(PROBES_SCHEMA), got=probes.columns)
    if "delta_length_pct" not in probes.columns:
        probes = probes.with_columns(delta_length_pct=pl.lit(None, pl.Float64))
    out = probes.select([pl.col(c).cast(t) for c, t in PROBES_SCHEMA.items()])
    orphan = ~out["base_item_id"].is_in(bases["base_item_id"].to_list()) | out["base_item_id"].is_null()
    if orphan.any():
        r = _first(orphan)
        raise CAPInputError("a probe without base", file=file, row=r, column="base_item_id",
                            expected="an id present in the base claims table", got=out["base_item_id"][r - 1],
                            fix="add the base claim, or drop probes whose base item is missing")
    bad = ~out["slot"].is_in(list(SLOTS))
    if bad.any():
        r = _first(bad)
        raise CAPInputError("unknown probe slot", file=file, row=r, column="slot", expected=", ".join(SLOTS),
                            got=out["slot"][r - 1])
    want = pl.DataFrame({"slot": list(SLOTS), "_c": [v[0] for v in SLOTS.values()],
                         "_a": [v[1] for v in SLOTS.values()]})
    j = out.join(want, on="slot", how="left", maintain_order="left")
    bad = (j["class"] != j["_c"]) | (j["axis"] != j["_a"])
    if bad.fill_null(True).any():
        r = _first(bad.fill_null(True))
        slot = j["slot"][r - 1]
        raise CAPInputError("class/axis do not match the slot", file=file, row=r, column="class",
                            expected=f"{SLOTS[slot][0]} / {SLOTS[slot][1]} for {slot}",
                            got=f"{j['class'][r - 1]} / {j['axis'][r - 1]}")
    bad = out["text"].is_null() | (out["text"].str.strip_chars() == "")
    if bad.any():
        raise CAPInputError("a probe with empty text", file=file, row=_first(bad), column="text")
    dup = out["probe_id"].is_duplicated()
    if dup.any():
        raise CAPInputError("a duplicated probe_id", file=file, row=_first(dup), column="probe_id")
    return out


def generate_probes(bases: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Apply every rule to every base claim.

    Returns
    -------
    probes : polars.DataFrame
        :data:`PROBES_SCHEMA`; ``probe_id`` = ``"<base_item_id>:<slot>"``;
        ``delta_length_pct`` = 100 * |len(probe) - len(claim)| / len(claim) (percent).
    skipped : polars.DataFrame
        Columns base_item_id, slot, reason: rules that had nothing to act on.
    """
    bases = validate_bases(bases)
    rows, skipped = [], []
    for b in bases.iter_rows(named=True):
        spans = {k: b[k] for k in _SPANS}
        for slot, rule in RULES.items():
            text = rule(b["claim"], spans)
            if text is None:
                skipped.append((b["base_item_id"], slot, "rule did not apply"))
                continue
            delta = 100.0 * abs(len(text) - len(b["claim"])) / len(b["claim"])
            rows.append((f"{b['base_item_id']}:{slot}", b["base_item_id"], *SLOTS[slot], slot, text, delta))
    probes = pl.DataFrame(rows, schema=PROBES_SCHEMA, orient="row")
    return probes, pl.DataFrame(skipped, schema={"base_item_id": pl.Utf8, "slot": pl.Utf8, "reason": pl.Utf8},
                                orient="row")


def _reason(cls: str, axis: str, slot: str, base: str, text: str, spans: dict, delta: float,
            max_change: float | None) -> tuple[str, str]:
    if " ".join(base.split()) == " ".join(text.split()):
        return "", "moved nothing: text unchanged"
    a, b = markers(base, spans), markers(text, spans)
    moved = [ax for ax in ("scope", "strength") if a[ax] != b[ax]]
    tag = "+".join(moved) or "none"
    if max_change is not None and slot != "length" and delta > 100.0 * max_change:
        return tag, f"length changed {delta:.1f}% (tolerance {100 * max_change:.0f}%)"
    if cls == "T_I":
        return tag, (f"control moved the {tag} axis" if moved else "")
    if not moved:
        return tag, "moved nothing: no construct marker changed"
    if len(moved) == 2:
        return tag, "moved both axes"
    return tag, ("" if moved[0] == axis else f"moved the {moved[0]} axis, not the declared {axis}")


def verify_probes(bases: pl.DataFrame, probes: pl.DataFrame, *, max_length_change: float | None = None
                  ) -> pl.DataFrame:
    """Verify each probe against its base claim.

    Parameters
    ----------
    bases, probes : polars.DataFrame
        Base claims and probes (validated here).
    max_length_change : float, optional
        Largest allowed relative length change as a fraction (e.g. 0.5); None = no check.

    Returns
    -------
    polars.DataFrame
        The probes plus ``axes_moved`` ("scope", "strength", "scope+strength" or
        "none"), ``status`` ("kept" / "rejected") and ``reason`` ("" when kept).
    """
    if max_length_change is not None and (isinstance(max_length_change, bool) or not isinstance(
            max_length_change, numbers.Real) or not 0 < max_length_change < float("inf")):  # nan fails too
        raise CAPInputError("max_length_change must be a positive fraction", argument="max_length_change",
                            got=max_length_change, expected="e.g. 0.5 for 50%")
    bases = validate_bases(bases)
    probes = validate_probes(probes, bases)
    by_id = {b["base_item_id"]: b for b in bases.iter_rows(named=True)}
    moved, reasons = [], []
    for p in probes.iter_rows(named=True):
        b = by_id[p["base_item_id"]]
        delta = p["delta_length_pct"]
        if delta is None:
            delta = 100.0 * abs(len(p["text"]) - len(b["claim"])) / len(b["claim"])
        tag, why = _reason(p["class"], p["axis"], p["slot"], b["claim"], p["text"], {k: b[k] for k in _SPANS},
                           delta, max_length_change)
        moved.append(tag)
        reasons.append(why)
    return probes.with_columns(axes_moved=pl.Series(moved, dtype=pl.Utf8), reason=pl.Series(reasons, dtype=pl.Utf8)
                               ).with_columns(status=pl.when(pl.col("reason") == "").then(pl.lit("kept"))
                                              .otherwise(pl.lit("rejected")))


def rejection_summary(verified: pl.DataFrame) -> pl.DataFrame:
    """Counts per slot: n, kept, rejected, and the rejection reasons with their counts.

    Columns slot, class, axis (Utf8), n, kept, rejected (Int64), reasons (Utf8,
    "reason (count); ..."), in taxonomy order.
    """
    rows = []
    for slot, (cls, axis) in SLOTS.items():
        s = verified.filter(pl.col("slot") == slot)
        rej = s.filter(pl.col("status") == "rejected")
        why = rej.group_by("reason").len().sort(["len", "reason"], descending=[True, False])
        rows.append((slot, cls, axis, s.height, s.height - rej.height, rej.height,
                     "; ".join(f"{r} ({n})" for r, n in why.iter_rows())))
    return pl.DataFrame(rows, orient="row", schema={"slot": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8, "n": pl.Int64,
                                                    "kept": pl.Int64, "rejected": pl.Int64, "reasons": pl.Utf8})
