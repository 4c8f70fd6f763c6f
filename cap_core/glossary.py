"""One-line definitions of every metric name the dashboard and the CLI show.

One place for the words: the pages take their ``help=`` texts and table column tooltips
from :data:`GLOSSARY` (through :func:`help_text` and :func:`column_help`), the Glossary page
lists it, and nothing else defines a metric in prose. Each entry names its source (paper
and section; the papers are cited as in :mod:`cap_core`: "CAP", "Validity", "Jev").

Entries are keyed by the short name a user sees (``"pa"``, ``"strict"``, ``"S"`` ...);
:data:`COLUMN_TERMS` maps table column names (``"p_best"``, ``"rho"``, ``"mean_delta"`` ...)
to those keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

__all__ = ["Term", "GLOSSARY", "COLUMN_TERMS", "help_text", "column_help", "glossary_rows"]


@dataclass(frozen=True)
class Term:
    """A metric: the name shown, a one-line definition (units included) and its source."""

    name: str
    text: str
    source: str

    @property
    def help(self) -> str:
        """The definition followed by its source, for a tooltip."""
        return f"{self.text} ({self.source})"


_T = Term
#: Every metric name shown on a page, keyed by its short name. Order = order on the Glossary page.
GLOSSARY: dict[str, Term] = {
    # CAP: the profile
    "CAP_c": _T("CAP value", "Accuracy of a judge on one condition's item subset, in percent: the mean of the "
                "condition's 0/1 correctness indicator over its items", "CAP §3.1 eq. 1"),
    "pa": _T("pa (position-averaged accuracy)", "Share of verdicts that pick the better response, averaged over "
             "both presentation orders (A/B and B/A) when both were run; primary metric of C1–C4", "CAP §3.1, Table 1"),
    "strict": _T("strict (both correct)", "Share of units judged correctly in both presentations (both orders for "
                 "C7; both variants for C5/C6); a stable wrong verdict does not count; primary metric of C5–C7",
                 "CAP §3.1, Table 1"),
    "consistency": _T("pure consistency", "Share of units given the same verdict in both presentations, correct "
                      "or not (tie/tie counts as consistent, unparsed never)", "CAP App. H, Table 15"),
    "stable_but_wrong": _T("stable-but-wrong", "Pure consistency − strict, in points: the mass of verdicts that "
                           "are the same in both presentations and wrong", "CAP App. H, Table 15"),
    "supported": _T("supported (C8)", "Share of correct verdicts whose rationale an independent evaluator judges "
                    "as supporting the verdict; primary metric of C8", "CAP §3.1, Table 1"),
    "supported_correct": _T("unconditional C8", "Overall accuracy × supported: the share of all items judged "
                            "correctly with a supporting rationale", "CAP §4.1"),
    "natural_pa": _T("natural pa", "pa on LLMBar's Natural (reference) subset, beside C5's pa on the adversarial "
                     "subsets", "CAP §3.2, Table 2"),
    "surface_gap": _T("surface gap", "natural pa − adversarial pa, in points", "CAP §3.2, Table 2"),
    "overall": _T("overall", "pa over every item of the benchmark (all variants)", "CAP §3.1"),
    "ci": _T("95% interval", "Percentile bootstrap interval over base items (1,000 resamples; the same resamples "
             "for every judge and condition of a benchmark); published rows carry the printed interval",
             "CAP §3.1, §3.3"),
    "n_items": _T("n_items", "Units in the denominator of a value (items, item pairs or base items, by condition)",
                  "CAP App. L, Table 20"),
    "n_excluded": _T("n_excluded", "Units kept in the denominator but forced to 'not correct' by a tie, unparsed "
                     "or missing verdict (C8: correct items whose rationale was not evaluated, left out); under "
                     "'failures: exclude', the units whose unparsed or missing verdict took them out of n",
                     "CAP App. L"),
    "n_not_received": _T("n_not_received", "Units the judge has no judgment on at all (it never received the "
                         "item): outside its denominator, so a partial run is scored on what it judged",
                         "CAP Studio's denominator rule after CAP eq. 1"),
    "ties": _T("ties / unparsed", "Verdicts that name no response (tie) or could not be read (unparsed): never "
               "correct; the unit stays in the denominator unless failures are excluded (unparsed and missing "
               "verdicts then lower n; ties stay)", "CAP §3.1 eq. 1; CAP App. L"),
    "base_items": _T("base items", "The bootstrap units: an item with all its variants and both orders is resampled "
                     "as one", "CAP §3.1, §3.3"),
    "status": _T("coverage status", "How a benchmark measures a condition: direct (annotated), approximate (a "
                 "proxy subset), augmented (constructed variants) or unavailable", "CAP §3.2, Table 2"),
    "score": _T("weighted score", "Σ w_c·CAP_c / Σ w_c over the conditions measured for the judge, in percent; "
                "weights of unmeasured conditions are dropped and the rest renormalised",
                "CAP Studio's rule after CAP §5, judge choice conditional on deployment"),
    "p_best": _T("P(best)", "Share of bootstrap resamples in which the judge has the highest weighted score "
                 "(published judges: normal approximation from their printed intervals)",
                 "CAP Studio's rule on the CAP §3.1 bootstrap"),
    "rho": _T("ρ (Spearman)", "Rank correlation of the judges' values between two benchmarks or two conditions; "
              "1 = same order, −1 = reversed", "CAP §4.2, App. M eq. 2"),
    "delta": _T("δ (stress)", "CAP(base) − CAP(stressed) per judge and condition, in points; positive = worse "
                "under stress", "CAP §4.3, App. M eq. 3"),
    "dominant": _T("dominant channel", "The condition with a judge's largest δ", "CAP §4.3, Table 6"),
    "L1": _T("L1 distance", "Σ_c |CAP_c(j1) − CAP_c(j2)| over the conditions both judges have, in points",
             "CAP App. J, Table 17"),
    "qc_change": _T("QC change", "Change of a value, in points, when items flagged (e.g. low_quality) and their "
                    "variants are left out; positive = rises", "CAP App. A.6, Table 10"),
    "paired_diff": _T("paired difference", "A − B on the items both judges scored, in points, with a paired "
                      "bootstrap over base items; separated = the 95% interval excludes 0, parity = the 90% "
                      "interval lies within ±5 points", "Jev §3.5"),
    # Validity: S, R
    "S": _T("S (invariance)", "Share of construct-preserving edits (controls, T_I) that leave the verdict "
            "unchanged; 1 = never moved by a surface edit", "Validity Definition 2, §3"),
    "R": _T("R (construct sensitivity)", "Share of minimal construct-changing edits (T_C) that move the verdict; "
            "R_scope and R_strength split it by edit axis", "Validity Definition 2, §3"),
    "matched_S": _T("matched invariance", "The operating point with the highest R among thresholds whose S is at "
                    "least the floor (0.90 by default)", "Validity §5, Table 5"),
    "flip_rate": _T("control flip rate", "Share of controls (T_I) that move the verdict: 1 − S for one edit type",
                    "Validity Table 6"),
    "tau": _T("τ (threshold)", "Frontiers: a grade above τ is a 'yes' verdict. Cascades: the cheap judge's verdict "
              "is kept when its confidence is at least τ, else the fallback judges", "Validity §5; Jev §6"),
    "a_imp": _T("a_imp", "Chance-corrected agreement (per-item κ) of a construct-blind predictor with a label "
                "set's labels", "Validity Definition 6, Table 7"),
    "paired_accuracy": _T("paired accuracy", "Share of response pairs in which a construct-blind predictor picks "
                          "the labelled better response, in percent; chance 50", "Validity Definition 6, Table 7"),
    "p_value": _T("permutation p", "Share of refits on permuted labels that score at least as high as the real "
                  "fit; a row clears its null at p ≤ 0.05", "Validity Table 7"),
    # Jev: cascades, agreement
    "kappa": _T("κ (Cohen)", "Agreement of two raters beyond chance: (observed − expected) / (1 − expected); "
                "0 = chance, 1 = always agree", "Jev §3.5"),
    "auroc": _T("AUROC", "Probability that a judge's confidence is lower on a random wrong verdict than on a "
                "random right one; 0.5 = confidence does not rank errors", "Jev §6.1"),
    "deferral": _T("deferred", "Share of items the cascade sends to the fallback judge(s) at this τ, in percent",
                   "Jev §6.3"),
    "gain": _T("cascade gain", "Cascade accuracy − the best single judge's accuracy on the same items, in points",
               "Jev §6.3"),
    "repeat_rate": _T("repeated errors", "Share of the cheap judge's wrong verdicts that another judge also gets "
                      "wrong, beside the share expected if errors were independent given the label", "Jev §6.2"),
    "usd_per_1000": _T("$ per 1,000 items", "Estimated cost of judging 1,000 items, each in every order the judge "
                       "ran (both orders: two calls per item): recorded dollars, else tokens or response lengths × "
                       "list prices", "Jev §4.2"),
}

#: Table column name → glossary key (columns named like a key need no entry).
COLUMN_TERMS: dict[str, str] = {
    "value": "CAP_c", "ci_low": "ci", "ci_high": "ci", "metric": "CAP_c", "p_best": "p_best", "P(best)": "p_best",
    "rho": "rho", "mean_rho": "rho", "delta": "delta", "mean_delta": "delta", "dominant_condition": "dominant",
    "dominant_delta": "dominant", "base_value": "CAP_c", "stressed_value": "CAP_c", "l1": "L1",
    "strict %": "strict", "consistency %": "consistency", "stable_but_wrong %": "stable_but_wrong",
    "conditional": "supported", "unconditional": "supported_correct", "S": "S", "R": "R", "R_scope": "R",
    "R_strength": "R", "tau": "tau", "accuracy %": "paired_accuracy", "kappa": "kappa", "p_value": "p_value",
    "agreement": "kappa", "auroc": "auroc", "deferral_pct": "deferral", "gain": "gain",
    "usd_per_1000": "usd_per_1000", "difference": "paired_diff", "diff": "paired_diff", "change": "qc_change",
    "published δ": "delta", "δ": "delta", "ties": "ties", "unparsed": "ties", "base_items": "base_items",
}


def help_text(key: str) -> str:
    """The tooltip of glossary entry ``key`` (definition and source).

    Raises
    ------
    KeyError
        ``key`` is not in :data:`GLOSSARY` (a programming error, never user input).
    """
    return GLOSSARY[key].help


def column_help(columns: Iterable[str]) -> dict[str, str]:
    """Tooltip per column name, for the columns that name a metric (others are left out)."""
    out: dict[str, str] = {}
    for col in columns:
        key = col if col in GLOSSARY else COLUMN_TERMS.get(col)
        if key is not None:
            out[col] = GLOSSARY[key].help
    return out


def glossary_rows() -> list[dict[str, str]]:
    """The glossary as rows ``{"term", "definition", "source"}`` in :data:`GLOSSARY` order."""
    return [{"term": t.name, "definition": t.text, "source": t.source} for t in GLOSSARY.values()]
