"""Human direction annotation of probes (Validity §4.2, Protocol 1, Table 3).

Annotators label each probe ``changed`` (the edit changes whether the evidence licenses
the claim) or ``unchanged``. The intended direction is ``changed`` for T_C probes and
``unchanged`` for T_I controls. A probe is **usable** when the strict majority of its
annotators gives the intended label. A slot whose **mean pairwise agreement** (over its
probes, the share of annotator pairs giving the same label) is below ``min_agreement``
(0.75 by default) is excluded whole, and the exclusion is reported, never silent.
"""

from __future__ import annotations

import numbers
from itertools import combinations

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["LABELS", "DEFAULT_MIN_AGREEMENT", "validate_annotations", "apply_annotations"]

LABELS = ("changed", "unchanged")
DEFAULT_MIN_AGREEMENT = 0.75
_INTENDED = {"T_C": "changed", "T_I": "unchanged"}


def validate_annotations(df: object, probes: pl.DataFrame, *, file: str | None = None) -> pl.DataFrame:
    """Check an annotation table: columns probe_id, annotator, label.

    Returns the table (Utf8 columns, labels lower-cased). Raises :class:`CAPInputError`
    for a missing column, a label outside :data:`LABELS`, a probe id absent from
    ``probes``, or one annotator labelling the same probe twice.
    """
    need = ("probe_id", "annotator", "label")
    if not isinstance(df, pl.DataFrame) or df.height == 0:
        raise CAPInputError("the annotation table is empty or not a table", file=file, expected=", ".join(need))
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise CAPInputError("the annotation table lacks a column", file=file, column=missing[0],
                            expected=", ".join(need), got=df.columns)
    out = df.select([pl.col(c).cast(pl.Utf8) for c in need]).with_columns(
        pl.col("label").str.strip_chars().str.to_lowercase())
    bad = ~out["label"].is_in(list(LABELS)) | out["label"].is_null()
    if bad.any():
        r = int(bad.arg_true()[0]) + 1
        raise CAPInputError("unknown annotation label", file=file, row=r, column="label",
                            expected=" or ".join(LABELS), got=out["label"][r - 1],
                            fix="label each probe 'changed' or 'unchanged'")
    bad = ~out["probe_id"].is_in(probes["probe_id"].to_list())
    if bad.any():
        r = int(bad.arg_true()[0]) + 1
        raise CAPInputError("an annotation for an unknown probe", file=file, row=r, column="probe_id",
                            expected="a probe_id of the probe table", got=out["probe_id"][r - 1])
    dup = out.select("probe_id", "annotator").is_duplicated()
    if dup.any():
        raise CAPInputError("an annotator labelled a probe twice", file=file, row=int(dup.arg_true()[0]) + 1,
                            column="annotator", expected="one label per annotator and probe")
    return out


def apply_annotations(probes: pl.DataFrame, annotations: pl.DataFrame, *,
                      min_agreement: float = DEFAULT_MIN_AGREEMENT) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Keep probes whose majority label matches the intended direction, in slots that agree enough.

    Parameters
    ----------
    probes : polars.DataFrame
        Columns probe_id, class, slot, axis (e.g. the verified probe table).
    annotations : polars.DataFrame
        Columns probe_id, annotator, label (validated here).
    min_agreement : float
        Slot agreement bar as a proportion; default 0.75.

    Returns
    -------
    kept : polars.DataFrame
        The probes that enter the arms (annotated, usable, slot not excluded).
    report : polars.DataFrame
        One row per annotated slot: slot, class, axis (Utf8), n (Int64 probes annotated),
        agree (Float64 mean pairwise agreement, NaN if no probe has two annotators),
        usable (Int64 majority = intended), no_majority (Int64), human_dir_pct (Float64,
        usable / n in percent), excluded (Boolean), reason (Utf8).
    """
    if isinstance(min_agreement, bool) or not isinstance(min_agreement, numbers.Real) or not 0 <= min_agreement <= 1:
        raise CAPInputError("min_agreement must be a proportion", argument="min_agreement", got=min_agreement,
                            expected="a number in [0, 1], e.g. 0.75")
    ann = validate_annotations(annotations, probes)
    per_probe = []
    for pid, grp in ann.group_by("probe_id", maintain_order=True):
        labels = grp["label"].to_list()
        pairs = list(combinations(labels, 2))
        agree = sum(a == b for a, b in pairs) / len(pairs) if pairs else None
        top = max(LABELS, key=labels.count)
        majority = top if 2 * labels.count(top) > len(labels) else None
        per_probe.append((pid[0], majority, agree))
    pp = pl.DataFrame(per_probe, orient="row", schema={"probe_id": pl.Utf8, "majority": pl.Utf8,
                                                       "agree": pl.Float64})
    joined = probes.join(pp, on="probe_id", how="inner").with_columns(
        usable=pl.col("majority") == pl.col("class").replace_strict(_INTENDED, default=None))
    rows = []
    for slot in joined["slot"].unique(maintain_order=True).to_list():
        s = joined.filter(pl.col("slot") == slot)
        agree = s["agree"].drop_nulls().mean()
        agree = float("nan") if agree is None else float(agree)
        excluded = not agree >= min_agreement
        usable = int(s["usable"].fill_null(False).sum())
        reason = (f"mean pairwise agreement {agree:.3f} below the bar {min_agreement:.2f}" if excluded and agree == agree
                  else "no probe with two annotators" if excluded else "")
        rows.append((slot, s["class"][0], s["axis"][0], s.height, agree, usable, int(s["majority"].is_null().sum()),
                     100.0 * usable / s.height, excluded, reason))
    report = pl.DataFrame(rows, orient="row", schema={
        "slot": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8, "n": pl.Int64, "agree": pl.Float64, "usable": pl.Int64,
        "no_majority": pl.Int64, "human_dir_pct": pl.Float64, "excluded": pl.Boolean, "reason": pl.Utf8})
    bad_slots = report.filter(pl.col("excluded"))["slot"].to_list()
    kept = joined.filter(pl.col("usable").fill_null(False) & ~pl.col("slot").is_in(bad_slots))
    return kept.select(probes.columns), report
