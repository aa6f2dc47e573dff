"""Figure 2's outputs: the Markdown tables, the CSV files and the charts of the rates and of
the answers to the paper."""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.match import Record
from chancespiel.evaluation.report import agent_stats, format_agent_stats
from chancespiel.evaluation.sequential import SequentialRule
from chancespiel.files import open_output, write_output
from chancespiel.studies import mcms_setup
from chancespiel.studies.figure2.stats import Answer, Row, pooled, summarise


def markdown(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table (rates in percent)."""
    lines = [
        "| game | pairing | matches | games | W-D-L | left agent's score | 95% Wilson |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.game} | {r.pairing} | {r.matches} | {r.games} | {r.wins}-{r.draws}-{r.losses}"
            f" | {100 * r.rate:.1f}% | {100 * r.low:.1f}% - {100 * r.high:.1f}% |"
        )
    return "\n".join(lines)


def agent_table(
    records_by_game: Mapping[str, Sequence[Record]],
    setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS,
) -> str:
    """Per game, each agent's moves, time per move, overruns and nodes per move."""
    parts = []
    for key, records in records_by_game.items():
        parts.append(f"{setups[key].title}:")
        parts.append(format_agent_stats(agent_stats(records)))
    return "\n".join(parts)


def write_outputs(
    out: str | os.PathLike[str],
    records_by_game: Mapping[str, Sequence[Record]],
    setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS,
    luck: bool = False,
) -> list[Row]:
    """table.md (rates and per-agent statistics), table.csv and figure2.png in `out`; with
    `luck`, also figure2_luck.png, each bar with its pairing's luck-corrected rate (the
    game's default value function).

    Raises:
      ValueError: if there are no scored games.
      LuckError: with `luck`, if a game's records cannot be corrected.
    """
    from chancespiel.evaluation.plot import plot_pairs

    rows = summarise(records_by_game, setups)
    if not any(r.games for r in rows):
        raise ValueError("no scored games to summarise")
    out = Path(out)
    text = [markdown(rows)]
    if pooled_rows := pooled(rows):
        text += ["", "Each MCMS variant against its classic counterpart, pooled:", ""]
        text.append(markdown(pooled_rows))
    text += [
        "",
        "Per-move time and nodes:",
        "",
        "```",
        agent_table(records_by_game, setups),
        "```",
    ]
    write_output(out / "table.md", "\n".join(text) + "\n")
    with open_output(out / "table.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(Row.__dataclass_fields__))
        for row in rows:
            writer.writerow(list(vars(row).values()))
    all_records = [r for records in records_by_game.values() for r in records]
    labels = {(r.a, r.b): r.pairing for r in rows}
    titles = {setups[key].game: setups[key].title for key in records_by_game}
    figures = {"figure2.png": False} | ({"figure2_luck.png": True} if luck else {})
    for name, corrected in figures.items():
        plot_pairs(
            all_records,
            out / name,
            title="MCMS paper, Figure 2: score rate of the left agent",
            labels=labels,
            titles=titles,
            order=[(r.game_string, r.a, r.b) for r in rows],
            columns=2,
            luck=corrected,
        )
    return rows


def _percent(low: float, high: float) -> str:
    return "-" if math.isnan(low) else f"{100 * low:.1f}-{100 * high:.1f}"


def answers_markdown(answers: Sequence[Answer], rule: SequentialRule) -> str:
    """Per game, each pairing's paper figure, our raw and corrected rates and the verdict."""
    lines = []
    for key in dict.fromkeys(a.key for a in answers):
        mine = [a for a in answers if a.key == key]
        lines += [
            f"### {mine[0].game} ({mine[0].game_string})",
            "",
            "| pairing | paper | ours raw (95%) | ours corrected (95%) | corrected, sequential "
            f"(z = {rule.z:.2f}) | matches | stopped | verdict |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for a in mine:
            s = a.summary
            paper = "> 50%" if a.paper is None else f"{100 * a.paper:.0f}%"
            paper = paper if a.in_paper else "-"
            raw = f"{100 * s.raw.mean:.1f}% ({_percent(s.raw.low, s.raw.high)})" if s else "-"
            fixed = (
                f"{100 * s.corrected.mean:.1f}% ({_percent(s.corrected.low, s.corrected.high)})"
                if s
                else "-"
            )
            if s and not s.used:  # the correction would not have narrowed the interval
                fixed += " = raw"
            matches = s.matches if s else 0
            stopped = a.decision.reason or f"open (next look at {a.decision.matches})"
            lines.append(
                f"| {a.pairing} | {paper} | {raw} | {fixed} | {_percent(*a.decision.sequential)} "
                f"| {matches} | {stopped} | {a.verdict} |"
            )
        lines.append("")
    if any(a.summary and not a.summary.used for a in answers):
        lines += [
            '"= raw": the luck correction would not have lowered the variance of the match '
            "scores, so the raw interval stands.",
            "",
        ]
    return "\n".join(lines)


def plot_answers(answers: Sequence[Answer], path: Path) -> None:
    """One panel per game: per pairing our raw and luck-corrected rates with their 95%
    intervals, the sequential interval the rule decides on, and the paper's figure (its stated
    rate as a line, or an arrow where it claims only that the MCMS variant wins)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(dict.fromkeys(a.key for a in answers))
    fig, axes = plt.subplots(1, len(keys), figsize=(3.2 * len(keys) + 1, 3.8), squeeze=False)
    labelled: set[str] = set()

    def once(name: str) -> str | None:  # one legend entry per kind of mark
        if name in labelled:
            return None
        labelled.add(name)
        return name

    for ax, key in zip(axes[0], keys, strict=True):
        mine = [a for a in answers if a.key == key]
        for i, a in enumerate(mine):
            if not a.in_paper:
                pass  # beyond the paper: nothing to mark
            elif a.paper is None:
                ax.annotate(
                    "", (i, 0.62), (i, 0.5), arrowprops={"arrowstyle": "->", "color": "tab:red"}
                )
                ax.plot([], [], color="tab:red", marker="^", ls="", label=once("paper: > 50%"))
            else:
                ax.plot([i - 0.3, i + 0.3], [a.paper] * 2, color="tab:red", label=once("paper"))
            if a.summary is None:
                ax.text(i, 0.2, "not played", ha="center", fontsize=7, rotation=90)
                continue
            low, high = a.decision.sequential
            if not math.isnan(low):
                ax.vlines(i + 0.15, low, high, color="tab:blue", alpha=0.25, linewidth=7,
                          label=once("sequential"))  # fmt: skip
            for offset, interval, colour, name in (
                (-0.15, a.summary.raw, "0.6", "raw"),
                (0.15, a.summary.corrected, "tab:blue", "luck-corrected"),
            ):
                err = [[interval.mean - interval.low], [interval.high - interval.mean]]
                ax.errorbar(
                    i + offset, interval.mean, yerr=err, fmt="o", color=colour, capsize=3,
                    label=once(name),
                )  # fmt: skip
        ax.axhline(0.5, color="k", linestyle=":", linewidth=1)
        ax.set_xticks(range(len(mine)), [a.pairing for a in mine], rotation=30, ha="right")
        ax.set_xlim(-0.6, len(mine) - 0.4)
        ax.set_ylim(0, 1)
        ax.set_title(mine[0].game)
    axes[0][0].set_ylabel("left agent's score rate")
    fig.legend(loc="lower center", ncol=5, fontsize=7, frameon=False)
    # One or two panels are narrower than the title: it takes two lines there.
    gap = " " if len(keys) > 2 else "\n"
    fig.suptitle(f"MCMS against classic *-Minimax:{gap}ours (95% intervals) and the paper's figure")
    save_figure(fig, path, dpi=120, rect=(0, 0.06, 1, 1))


def write_answers(out: Path, answers: Sequence[Answer], rule: SequentialRule) -> None:
    """answers.md, answers.csv and answers.png (if anything was played) in `out`."""
    write_output(out / "answers.md", answers_markdown(answers, rule))
    with open_output(out / "answers.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            [
                "game",
                "game_string",
                "pairing",
                "a",
                "b",
                "paper",
                "matches",
                "stopped",
                "raw",
                "raw_low",
                "raw_high",
                "corrected",
                "corrected_low",
                "corrected_high",
                "sequential_low",
                "sequential_high",
                "z",
                "variance_ratio",
                "verdict",
            ]
        )
        for a in answers:
            s = a.summary
            rates = (
                [
                    s.raw.mean,
                    s.raw.low,
                    s.raw.high,
                    s.corrected.mean,
                    s.corrected.low,
                    s.corrected.high,
                ]
                if s
                else [math.nan] * 6
            )
            writer.writerow(
                [
                    a.game,
                    a.game_string,
                    a.pairing,
                    a.a,
                    a.b,
                    a.paper,
                    s.matches if s else 0,
                    a.decision.reason or "open",
                    *rates,
                    *a.decision.sequential,
                    a.decision.z,
                    s.variance_ratio if s else math.nan,
                    a.verdict,
                ]
            )
    if any(a.summary is not None for a in answers):
        plot_answers(answers, out / "answers.png")
