"""Bar charts of pairwise score rates with 95% Wilson intervals (the MCMS paper's Figure 2).

One panel per game; in each, one bar per pairing 'A-B' whose height is A's score rate in
percent (draws count half) and whose error bar is the Wilson 95% interval; a line marks 50%.
With `luck`, each bar also gets A's luck-corrected rate over whole matches, a point with its
95% interval beside the bar (`evaluation.luck`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.match import PairKey, Record, canonical_game
from chancespiel.evaluation.report import (
    PairSummary,
    pair_luck,
    pair_summaries,
    records_by_game,
)
from chancespiel.evaluation.stats import MatchInterval


def _wrap(text: str, width: int) -> str:
    """`text` in lines of at most about `width` characters, broken after commas."""
    lines = [""]
    for piece in text.replace(",", ",\0").split("\0"):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(lines)


def _spec_label(summary: PairSummary) -> str:
    return f"{_wrap(summary.a, 18)}\n-\n{_wrap(summary.b, 18)}"


def plot_pairs(
    records: Sequence[Record],
    out: str | os.PathLike[str],
    title: str = "",
    labels: Mapping[tuple[str, str], str] | None = None,
    titles: Mapping[str, str] | None = None,
    order: Sequence[tuple[str, str, str]] | None = None,
    columns: int | None = None,
    luck: bool = False,
    value: str | None = None,
) -> None:
    """Writes the bar chart of `records` to the PNG file `out`.

    `labels` names pairs (spec A, spec B) (default: the two specs), `titles` names games
    (default: the game string), `order` of
    (game, spec A, spec B) sorts the bars of each panel (others follow), and
    `columns` wraps the panels into a grid (default: one row). With `luck`, the corrected
    rate of each pair (value function `value`, default the game's) is drawn beside its bar.

    Raises:
      ValueError: if no record has a scored game.
      LuckError: with `luck`, if the value function does not apply or a game does not replay.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = labels or {}
    # summaries name games by the loaded game's string: key titles and order alike
    titles = {canonical_game(game): text for game, text in (titles or {}).items()}
    rank = {(canonical_game(game), a, b): i for i, (game, a, b) in enumerate(order or ())}

    def _label(summary: PairSummary) -> str:
        name = labels.get((summary.a, summary.b)) or _spec_label(summary)
        return f"{name}\n({summary.games} games)"

    games: dict[str, list[PairSummary]] = {}
    for summary in pair_summaries(records):
        if summary.games:
            games.setdefault(summary.game, []).append(summary)
    for pairs in games.values():
        pairs.sort(key=lambda p: rank.get((p.game, p.a, p.b), len(rank)))
    if not games:
        raise ValueError("no scored games to plot")
    corrected = _corrected(records, value) if luck else {}
    most = max(len(pairs) for pairs in games.values())  # bars in the fullest panel
    # room for each bar's label, level: about 0.07 inch a character at 8 points
    longest = max(len(line) for ps in games.values() for p in ps for line in _label(p).split("\n"))
    per_bar = max(1.3, 0.07 * longest + 0.2)
    widths = [max(2.5, per_bar * len(pairs) + 1.0) for pairs in games.values()]
    label_lines = max(_label(p).count("\n") + 1 for pairs in games.values() for p in pairs)
    height = 4.0 + 0.18 * label_lines
    if columns is None or columns >= len(games):  # one row, panels as wide as their bars
        fig, axes = plt.subplots(
            1,
            len(games),
            figsize=(sum(widths), height),
            gridspec_kw={"width_ratios": widths},
            sharey=True,
            squeeze=False,
        )
    else:  # a grid of equal panels
        rows = -(-len(games) // columns)
        widths = [max(widths)] * len(games)
        fig, axes = plt.subplots(
            rows, columns, figsize=(columns * widths[0], rows * height), sharey=True, squeeze=False
        )
        for ax in axes.flat[len(games) :]:
            ax.set_visible(False)
    for ax, width, (game, pairs) in zip(axes.flat, widths, games.items(), strict=False):
        rates = [100 * p.rate for p in pairs]
        lows = [100 * (p.rate - p.interval[0]) for p in pairs]
        highs = [100 * (p.interval[1] - p.rate) for p in pairs]
        positions = range(len(pairs))
        ax.bar(positions, rates, width=0.6, color="#4c72b0", edgecolor="black", linewidth=0.6)
        ax.errorbar(
            positions, rates, yerr=[lows, highs], fmt="none", ecolor="black", capsize=5, lw=1.2
        )
        for x, p in zip(positions, pairs, strict=True):
            found = corrected.get(p.key)
            if found is not None and math.isfinite(found.low + found.high):
                mean, low, high = (100 * v for v in (found.mean, found.low, found.high))
                ax.errorbar(
                    x + 0.38, mean, yerr=[[mean - low], [high - mean]], fmt="o",
                    color="#dd8452", markeredgecolor="black", capsize=4, lw=1.2,
                )  # fmt: skip
        ax.axhline(50, color="#c44e52", linestyle="--", linewidth=1)
        ax.set_xticks(list(positions))
        ax.set_xticklabels([_label(p) for p in pairs], fontsize=8)
        ax.set_xlim(-0.6, (len(pairs) if columns is None else most) - (0.1 if luck else 0.4))
        ax.set_title(_wrap(titles.get(game, game), int(9 * width)), fontsize=9)
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        if ax in axes[:, 0]:
            ax.set_ylabel(
                "score rate of the left agent (%)\n95% Wilson interval"
                + ("; points: luck-corrected, 95%" if luck else "")
            )
    if title:
        fig.suptitle(title)
    save_figure(fig, out, dpi=120)  # whole, or nothing


def _corrected(records: Sequence[Record], value: str | None) -> dict[PairKey, MatchInterval]:
    """A's luck-corrected rate of each pairing of `records`, with its 95% interval."""
    return {
        pair: luck.corrected
        for game_records in records_by_game(records).values()
        for pair, luck in pair_luck(game_records, value).items()
    }
