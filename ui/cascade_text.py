"""Sentences for the Cascades page (plain functions, no streamlit; tested directly)."""

from __future__ import annotations

__all__ = ["versus", "current_caption", "money"]


def versus(gain: float, judge: str, *, digits: int = 1) -> str:
    """``"beats J by 4.7 points"``, ``"trails J by 4.7 points"`` or ``"matches J"`` for a gain in points.

    The sign is read after rounding to ``digits`` decimals, so the number shown is never
    negative and never "beats ... by 0.0".
    """
    g = round(float(gain), digits)
    if g > 0:
        return f"beats {judge} by {g:.{digits}f} points"
    if g < 0:
        return f"trails {judge} by {-g:.{digits}f} points"
    return f"matches {judge}"


def current_caption(tau: float, n: int, g: dict, fallback: str, orc: dict, cf_mean: float, cf_sd: float,
                    n_halves: int) -> str:
    """Caption under the metrics: the gain over the best single judge (the judge the metric
    names), then the decomposition against the fallback (Jev paper App. K)."""
    return (
        f"Unit: the item ({n} shared); a judge with both orders is position-averaged. At τ = {tau:.2f} the "
        f"cascade {versus(g['gain'], g['best_single'])}, the best single judge (the metric above). Against "
        f"the fallback it {versus(g['gain_over_fallback'], fallback)}; that lead is never more than the cheap "
        f"judge's lead on kept items ({g['bound']:.1f}: {g['cheap_only_kept']:g} items only it gets right vs "
        f"{g['fallback_only_kept']:g} only the fallback gets right). Oracle τ = {orc['tau']:.2f} via "
        f"{orc['fallback']}: {orc['accuracy']:.1f}% (optimistic: chosen and scored on the same items). "
        f"Cross-fitted (chosen on one half, scored on the other, {n_halves} halves): gain over the best single "
        f"judge {cf_mean:+.2f} ± {cf_sd:.2f} points.")


def money(usd: float | None) -> str:
    """Dollars per 1,000 items as shown in the metric: ``"$1.23"``, ``"$0.0042"`` below a dollar,
    ``"n/a"`` without a price."""
    if usd is None:
        return "n/a"
    return f"${usd:.2f}" if usd >= 1 else f"${usd:.4f}"
