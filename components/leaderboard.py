"""The leaderboard of the Choose page: a display table and a bar chart of scores with intervals."""

from __future__ import annotations

import polars as pl

from components.labels import short_labels
from components.plotting import go

__all__ = ["leaderboard_table", "leaderboard_figure", "weights_caption", "sample_size_text"]


def rank_range(best: int | None, worst: int | None) -> str | None:
    """``"2"`` when a judge's rank is settled, ``"1–3"`` when it ranges over judges it cannot be told apart from."""
    if best is None or worst is None:
        return None
    return str(best) if best == worst else f"{best}–{worst}"


def leaderboard_table(board: pl.DataFrame, *, decimals: int = 1) -> pl.DataFrame:
    """Rank range (:func:`rank_range` of ``rank_best`` / ``rank_worst``: the ranks a judge can hold given
    the judges it cannot be told apart from), judge (entry label), score and interval (percent, ``decimals``),
    P(best) (3 decimals),
    separable from the leader (``"leader"``, ``"yes"``, ``"no"`` or ``"—"``), difference from the leader
    (points) with its interval, Holm p, n items, conditions used, cost per 1,000 items (dollars),
    median latency (seconds), published mark, note."""
    def sep(rank, s):
        if rank == 1:
            return "leader"
        return "—" if s is None else ("yes" if s else "no")

    return board.select(
        pl.struct("rank_best", "rank_worst").map_elements(lambda r: rank_range(r["rank_best"], r["rank_worst"]),
                                                          return_dtype=pl.String).alias("rank"),
        pl.col("label").alias("judge"),
        pl.col("score", "ci_low", "ci_high").round(decimals),
        pl.col("p_best").round(3).alias("P(best)"),
        pl.struct("rank", "separable").map_elements(lambda r: sep(r["rank"], r["separable"]),
                                                    return_dtype=pl.String).alias("separable from leader"),
        pl.col("diff_vs_leader").round(decimals).alias("diff"),
        pl.col("diff_ci_low").round(decimals).alias("diff_low"),
        pl.col("diff_ci_high").round(decimals).alias("diff_high"),
        pl.col("p_holm").round(3).alias("p (Holm)"),
        "n_items",
        pl.col("conditions_used").list.join(", "),
        pl.col("usd_per_1000").round(3).alias("$ / 1,000 items"),
        pl.col("median_latency_s").round(2).alias("median latency (s)"),
        pl.when(pl.col("published")).then(pl.lit("published (normal approx.)")).otherwise(pl.lit("computed"))
        .alias("source"),
        "note",
    )


def leaderboard_figure(board: pl.DataFrame) -> go.Figure:
    """:func:`cap_core.choice.figures.leaderboard_bars` (the HTML report draws the same) with the
    dashboard's short labels."""
    from cap_core.choice.figures import leaderboard_bars

    return leaderboard_bars(board, short_labels(board["label"].to_list()))


def weights_caption(weights: dict[str, float], measured: list[str], preset: str) -> str:
    """``"Preset balanced: C1 1 (33%), C2 1 (33%), C7 1 (33%)"``: the measured, positively weighted
    conditions, each with its requested weight and its share of the score
    (:func:`cap_core.profile.weights.weight_shares`)."""
    from cap_core.profile.weights import weight_shares

    shares = weight_shares(weights, measured)
    on = [c for c, s in shares.items() if s > 0]
    if not on:
        return f"Preset {preset}: no weighted condition is measured."
    parts = ", ".join(f"{c} {weights[c]:g} ({100 * shares[c]:.0f}%)" for c in on)
    return f"Preset {preset}: {parts}."


def sample_size_text(s: dict, runner_up: str, leader: str) -> str:
    """The "how much more data" sentence of :attr:`cap_core.choice.leaderboard.Choice.sample_size`: what
    separating the top two would take, and showing their parity, in words that fit each case (already
    enough items, not reachable, or about N more)."""
    inf = float("inf")
    paired = s.get("paired", True)
    on = f"on {s['n_items']} items" if paired else f"each on its own items ({s['n_items']} for {leader})"
    head = f"{leader} and {runner_up} differ by {s['diff']:.1f} points {on}"
    how = f" at {s['level']:.0%} (power {s['power']:.0%})"
    sep, par = s["more_to_separate"], s["more_for_parity"]
    if sep == inf:
        sep_text = "no number of items would separate them: the observed difference is zero"
    elif sep == 0:
        sep_text = f"these items are already enough to separate them{how} if the difference is real"
    else:
        sep_text = f"separating them{how} takes about {int(sep):,} more items of this kind if the difference is real"
    if par == inf:
        par_text = (f"parity within ±{s['margin']:g} points is not expected: the observed difference is beyond "
                    "the margin")
    elif par == 0:
        par_text = f"these items are already enough to show parity within ±{s['margin']:g} points"
    else:
        par_text = f"showing parity within ±{s['margin']:g} points takes about {int(par):,} more"
        if 0.8 * s["margin"] <= abs(s["diff"]) < s["margin"]:
            par_text += f" (the observed difference is close to the ±{s['margin']:g} margin)"
    basis = ("the paired bootstrap variance" if paired else
             "the bootstrap variance over each judge's own items: rough, since their items differ")
    text = f"{head}. {sep_text[:1].upper()}{sep_text[1:]}; {par_text} (normal approximation from {basis})."
    if s.get("small"):
        text += (f" With {s['n_items']} items the variance itself is poorly known, so these counts are rough "
                 "estimates.")
    return text
