"""Model families and within-family L1 profile distance (CAP App. J, Table 17).

The L1 distance between two judges on one view is ``Σ_c |CAP_c(j1) − CAP_c(j2)|``
over the conditions both judges have (points, percent units; App. M). CAP compares
the within-family pairs (OpenAI: GPT-4o vs GPT-4o-mini; Anthropic: Claude Sonnet 4.5
vs Claude Haiku 4.5) with the average over all cross-family pairs. Conditions that
one judge lacks are listed in ``missing_conditions``; a pair is never compared on a
silently shortened profile.

Families come from an editable mapping of name patterns (:data:`DEFAULT_FAMILIES`,
case-insensitive regular expressions, first match wins) plus optional explicit
``overrides`` ``{judge: family}``. Judges matching nothing get family ``"unknown"``
and enter no family average.
"""

from __future__ import annotations

import itertools
import re

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.profile.selection import view_cells

__all__ = ["DEFAULT_FAMILIES", "family_of", "pairwise_l1", "family_l1_summary"]

#: family -> name patterns (regular expressions, case-insensitive).
DEFAULT_FAMILIES: dict[str, tuple[str, ...]] = {
    "OpenAI": (r"gpt", r"(^|[/_\- ])o[134](-|$|[/_ ])", r"chatgpt", r"davinci"),
    "Anthropic": (r"claude",),
    "Google": (r"gemini", r"palm", r"gemma", r"bison"),
    "Meta": (r"llama",),
    "Mistral": (r"mistral", r"mixtral"),
    "Alibaba": (r"qwen",),
    "DeepSeek": (r"deepseek",),
}


def family_of(judge: str, families: dict[str, tuple[str, ...]] | None = None,
              overrides: dict[str, str] | None = None) -> str:
    """The family of a judge name (``"unknown"`` when nothing matches).

    Raises
    ------
    CAPInputError
        ``judge`` not a string, or a pattern that is not a valid regular expression.
    """
    if not isinstance(judge, str):
        raise CAPInputError("a judge name must be a string", argument="judge", got=judge)
    if overrides and judge in overrides:
        return str(overrides[judge])
    for fam, patterns in (DEFAULT_FAMILIES if families is None else families).items():
        for pat in patterns:
            try:
                if re.search(pat, judge, flags=re.IGNORECASE):
                    return fam
            except re.error as exc:
                raise CAPInputError("invalid family pattern", argument=fam, got=pat, expected="a regular expression",
                                    fix=f"fix the pattern ({exc})") from None
    return "unknown"


def pairwise_l1(profile: pl.DataFrame, view: str, *, judges: list[str] | None = None,
                conditions: list[str] | None = None, sources: list[str] | None = None,
                families: dict[str, tuple[str, ...]] | None = None,
                overrides: dict[str, str] | None = None) -> pl.DataFrame:
    """L1 profile distance of every pair of judges on one view.

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, percent); primary metric per condition.
    view : str
        ``"benchmark:subset"``.
    judges : list of str, optional
        Judges to pair (default all on the view).
    conditions : list of str, optional
        Conditions to sum over (default every C1-C8 with a value on the view).
    sources, families, overrides
        Source filter and family mapping (see module notes).

    Returns
    -------
    polars.DataFrame
        ``view``, ``judge_a``, ``judge_b``, ``family_a``, ``family_b``,
        ``same_family`` (Boolean; False when either is unknown), ``l1`` (points),
        ``n_conditions`` (Int64), ``conditions_used`` and ``missing_conditions``
        (";"-joined; conditions of the view that either judge lacks).

    Raises
    ------
    CAPInputError
        Bad view, fewer than two judges, unknown judge names.
    """
    cells = view_cells(profile, view, sources=sources)
    have = sorted(cells.get_column("judge").unique().to_list())
    if judges is not None:
        unknown = [j for j in judges if j not in have]
        if unknown:
            raise CAPInputError(f"judge not on {view}", argument="judge", got=unknown[0],
                                expected="one of " + ", ".join(have))
        have = [j for j in have if j in set(judges)]
    if len(have) < 2:
        raise CAPInputError(f"distances on {view} need at least two judges", column="judge", got=have,
                            fix="pick a benchmark with two or more judges")
    conds = sorted(cells.get_column("condition").unique().to_list()) if conditions is None else list(conditions)
    vals = {(j, c): v for j, c, v in cells.select("judge", "condition", "value").iter_rows()}
    fam = {j: family_of(j, families, overrides) for j in have}
    rows = []
    for a, b in itertools.combinations(have, 2):
        used = [c for c in conds if (a, c) in vals and (b, c) in vals]
        rows.append({
            "view": view, "judge_a": a, "judge_b": b, "family_a": fam[a], "family_b": fam[b],
            "same_family": fam[a] == fam[b] and fam[a] != "unknown",
            "l1": sum(abs(vals[(a, c)] - vals[(b, c)]) for c in used) if used else None,
            "n_conditions": len(used), "conditions_used": ";".join(used),
            "missing_conditions": ";".join(c for c in conds if c not in used),
        })
    return pl.DataFrame(rows, schema={"view": pl.String, "judge_a": pl.String, "judge_b": pl.String,
                                      "family_a": pl.String, "family_b": pl.String, "same_family": pl.Boolean,
                                      "l1": pl.Float64, "n_conditions": pl.Int64, "conditions_used": pl.String,
                                      "missing_conditions": pl.String})


def family_l1_summary(pairs: pl.DataFrame) -> pl.DataFrame:
    """Within-family distances and the cross-family average per view (CAP Table 17).

    Parameters
    ----------
    pairs : polars.DataFrame
        Output of :func:`pairwise_l1` (one or several views stacked).

    Returns
    -------
    polars.DataFrame
        ``view``, ``pair`` (``"<Family> (WF)"`` or ``"Cross-Family avg."``),
        ``l1`` (points; mean over the pairs of the group), ``n_pairs`` (Int64),
        ``missing_conditions`` (";"-joined union over the group's pairs).
        Pairs with an unknown family are left out of both groups.

    Raises
    ------
    CAPInputError
        ``pairs`` lacks the columns of :func:`pairwise_l1`.
    """
    need = {"view", "family_a", "family_b", "same_family", "l1", "missing_conditions"}
    if not isinstance(pairs, pl.DataFrame) or not need <= set(pairs.columns):
        raise CAPInputError("family_l1_summary needs the output of pairwise_l1", expected=", ".join(sorted(need)),
                            got=getattr(pairs, "columns", type(pairs).__name__))
    known = pairs.filter((pl.col("family_a") != "unknown") & (pl.col("family_b") != "unknown"))
    grouped = known.with_columns(
        pl.when(pl.col("same_family")).then(pl.col("family_a") + pl.lit(" (WF)"))
        .otherwise(pl.lit("Cross-Family avg.")).alias("pair"))
    out = grouped.group_by("view", "pair").agg(
        pl.col("l1").mean(), pl.len().cast(pl.Int64).alias("n_pairs"),
        pl.col("missing_conditions").str.join(";").alias("missing_conditions"))
    tidy = [";".join(sorted({c for c in m.split(";") if c})) for m in out.get_column("missing_conditions")]
    out = out.with_columns(pl.Series("missing_conditions", tidy, dtype=pl.String))
    return out.sort("view", pl.col("pair") == "Cross-Family avg.", "pair")
