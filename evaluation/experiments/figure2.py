"""The MCMS paper's Figure 2: playing strength of *-Minimax, MCMS and MCTS in four games.

Reproduces "Monte Carlo *-Minimax Search" (Lanctot et al., 2013), section 4.4, Figure 2.

Seven pairings (ExpSS-Exp, Star1SS-Star1, Star2SS-Star2, Star1SS-ExpSS, Star2SS-Star1SS,
Star1-MCTS, Star1SS-MCTS) with the paper's tuned parameters (`mcms_setup`), each a run of N
seat-swapped matches with shared dice (`chancespiel.evaluation.runner`): parallel, and resumable
from one record file per game, OUT/<game>.jsonl. "MCTS" is the variant the paper found better in
that game (classic MCTS in Pig and EWN, DPW in Can't Stop and Ra) unless `--mcts` says
otherwise; the label then names the variant played (e.g. Star1-DPW). `--samples ewn=3,3,3`
replaces the paper's sample widths in a game (for widths re-tuned to our evaluation); such a run
is another setup and needs its own output directory.

The table (table.md, table.csv) and the chart (figure2.png) summarise every game in the record
files, whatever this invocation played, so a run can be extended a few matches at a time:

    chancespiel experiment figure2 --games cant_stop,ra --pairings Star2SS-Star2 \
        --matches 20 --out results/figure2/paper_200ms

Rates are the left agent's score (wins + draws / 2) over scored games, with Wilson 95%
intervals over games (the two games of a match share their dice, which makes the interval
slightly conservative for the pairing's difference in strength).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from chancespiel.agents.registry import parse_spec
from chancespiel.agents.search_common import CLOCKS
from chancespiel.evaluation.cli import common
from chancespiel.evaluation.experiments import Experiment, mcms_setup
from chancespiel.evaluation.luck import LuckSummary, ValueFunction, luck_summary, record_correction
from chancespiel.evaluation.match import Record, RecordFileError, read_records
from chancespiel.evaluation.report import agent_stats, format_agent_stats, pair_summaries
from chancespiel.evaluation.runner import RunConfig
from chancespiel.evaluation.sequential import Decision, SequentialRule, decide, verdict
from chancespiel.evaluation.stats import MatchInterval, wilson_interval

MCTS = "MCTS"  # stands for the game's chosen MCTS variant in PAIRINGS

# (label, left agent, right agent) with the names of mcms_setup.AGENT_NAMES.
PAIRINGS: tuple[tuple[str, str, str], ...] = (
    ("ExpSS-Exp", "expss", "exp"),
    ("Star1SS-Star1", "star1ss", "star1"),
    ("Star2SS-Star2", "star2ss", "star2"),
    ("Star1SS-ExpSS", "star1ss", "expss"),
    ("Star2SS-Star1SS", "star2ss", "star1ss"),
    ("Star1-MCTS", "star1", MCTS),
    ("Star1SS-MCTS", "star1ss", MCTS),
)
PAIRING_LABELS = tuple(label for label, _, _ in PAIRINGS)
MCTS_CHOICES = ("paper", "mcts", "dpw")


@dataclass(frozen=True)
class Pairing:
    """One pairing in one game: its label and the two agent specs."""

    label: str
    a: str
    b: str


def _variant(setup: mcms_setup.GameSetup, mcts: str) -> str:
    if mcts not in MCTS_CHOICES:
        raise ValueError(f"--mcts: one of {', '.join(MCTS_CHOICES)}, not {mcts!r}")
    return setup.best_mcts if mcts == "paper" else mcts


def pairings(
    setup: mcms_setup.GameSetup,
    labels: Sequence[str] = PAIRING_LABELS,
    time_ms: float = mcms_setup.TIME_MS,
    mcts: str = "paper",
    heuristic: str = "default",
    clock: str = "wall",
    max_nodes: int | None = None,
) -> list[Pairing]:
    """The pairings `labels` in `setup`'s game, in the paper's order (the budgets as in
    mcms_setup.paper_specs).

    Raises:
      ValueError: for an unknown label or `mcts` choice.
    """
    unknown = [label for label in labels if label not in PAIRING_LABELS]
    if unknown:
        raise ValueError(f"unknown pairing(s) {unknown}; known: {', '.join(PAIRING_LABELS)}")
    variant = _variant(setup, mcts)
    specs = mcms_setup.paper_specs(setup, time_ms, heuristic, clock, max_nodes)
    chosen = []
    for label, a, b in PAIRINGS:
        if label not in labels:
            continue
        if b == MCTS:
            b, label = variant, label.replace(MCTS, variant.upper())
        chosen.append(Pairing(label, specs[a], specs[b]))
    return chosen


def file_pairings(
    setup: mcms_setup.GameSetup,
    time_ms: float,
    heuristic: str = "default",
    clock: str = "wall",
    max_nodes: int | None = None,
) -> list[Pairing]:
    """Every pairing a game's record file may hold: all seven, against MCTS and DPW alike."""
    both = [
        p
        for mcts in ("mcts", "dpw")
        for p in pairings(setup, PAIRING_LABELS, time_ms, mcts, heuristic, clock, max_nodes)
    ]
    return list({(p.a, p.b): p for p in both}.values())


def record_path(out: str | os.PathLike[str], setup: mcms_setup.GameSetup) -> Path:
    """The record file of `setup`'s game in the output directory."""
    return Path(out) / f"{setup.key}.jsonl"


@dataclass
class Row:
    """One bar of the figure: the left agent's results in one pairing and game."""

    game: str  # the paper's name of the game
    game_string: str
    pairing: str
    a: str
    b: str
    matches: int
    games: int
    wins: int
    draws: int
    losses: int
    unscored: int
    rate: float
    low: float
    high: float


def load_records(
    out: str | os.PathLike[str], setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS
) -> dict[str, list[Record]]:
    """The records of each game with a file in `out`, keyed by setup key, in the paper's order.

    Raises:
      RecordFileError: if a file is corrupt.
    """
    found = {}
    for key, setup in setups.items():
        path = record_path(out, setup)
        if path.exists():
            found[key] = read_records(path)
    return found


# The paper's names of our agents, for pairing labels read off the specs in the records.
PAPER_NAMES = {
    "expectimax": "Exp",
    "star1": "Star1",
    "star2": "Star2",
    "expss": "ExpSS",
    "star1ss": "Star1SS",
    "star2ss": "Star2SS",
    "mcts": "MCTS",
    "dpw": "DPW",
}


def pairing_label(a: str, b: str) -> str:
    """The paper's label of a pairing of two specs (e.g. 'Star2SS-Star2'); the specs themselves
    if an agent has no name in the paper. Sample widths and times do not change the label."""
    names = [PAPER_NAMES.get(parse_spec(spec)[0]) for spec in (a, b)]
    return f"{names[0]}-{names[1]}" if None not in names else f"{a}-{b}"


def summarise(
    records_by_game: Mapping[str, Sequence[Record]],
    setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS,
) -> list[Row]:
    """One row per (game, pairing) found in the records, in the paper's order of both."""
    order = {label: i for i, label in enumerate(PAIRING_LABELS)}
    for label in PAIRING_LABELS:  # the DPW names sort with their MCTS twins
        order[label.replace(MCTS, "DPW")] = order[label]
    rows = []
    for key, records in records_by_game.items():
        title = setups[key].title
        game_rows = []
        for s in pair_summaries(records):
            label = pairing_label(s.a, s.b)
            counts = (s.matches, s.games, s.wins, s.draws, s.losses, s.unscored)
            game_rows.append(Row(title, s.game, label, s.a, s.b, *counts, s.rate, *s.interval))
        rows.extend(sorted(game_rows, key=lambda r: order.get(r.pairing, len(order))))
    return rows


# The pairings of an MCMS variant against its own classic algorithm, pooled by `pooled`.
COUNTERPARTS = ("ExpSS-Exp", "Star1SS-Star1", "Star2SS-Star2")
POOLED_LABEL = "MCMS-classic (pooled)"


def pooled(rows: Sequence[Row]) -> list[Row]:
    """Per game, the games of its COUNTERPARTS rows added up: the paper's claim that each MCMS
    variant beats its classic counterpart, tested with three times the games of one pairing."""
    rows_by_game: dict[str, list[Row]] = {}
    for r in rows:
        if r.pairing in COUNTERPARTS:
            rows_by_game.setdefault(r.game, []).append(r)
    result = []
    for title, game_rows in rows_by_game.items():
        games = sum(r.games for r in game_rows)
        if not games:
            continue
        wins, draws, losses, unscored, matches = (
            sum(getattr(r, field) for r in game_rows)
            for field in ("wins", "draws", "losses", "unscored", "matches")
        )
        score = wins + draws / 2
        a, b = ("+".join(getattr(r, side) for r in game_rows) for side in ("a", "b"))
        counts = (matches, games, wins, draws, losses, unscored)
        low, high = wilson_interval(score, games)
        result.append(
            Row(
                title,
                game_rows[0].game_string,
                POOLED_LABEL,
                a,
                b,
                *counts,
                score / games,
                low,
                high,
            )
        )
    return result


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
) -> list[Row]:
    """table.md (rates and per-agent statistics), table.csv and figure2.png in `out`.

    Raises:
      ValueError: if there are no scored games.
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
    (out / "table.md").write_text("\n".join(text) + "\n", encoding="utf-8")
    with open(out / "table.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(list(Row.__dataclass_fields__))
        for row in rows:
            writer.writerow(list(vars(row).values()))
    all_records = [r for records in records_by_game.values() for r in records]
    labels = {(r.a, r.b): r.pairing for r in rows}
    titles = {setups[key].game: setups[key].title for key in records_by_game}
    plot_pairs(
        all_records,
        out / "figure2.png",
        title="MCMS paper, Figure 2: score rate of the left agent",
        labels=labels,
        titles=titles,
        order=[(r.game_string, r.a, r.b) for r in rows],
        columns=2,
    )
    return rows


# Sequential, luck-corrected answers ------------------------------------------------------

# The rates section 4.4 states: "an 85.0% win rate for star2SS vs Star2 in Can't Stop", and
# "roughly 60% wins against its classic *-Minimax counterparts" in Ra. Of the other pairings
# the paper claims only that the MCMS variant wins ("in every case").
PAPER_RATES: dict[tuple[str, str], float] = {
    ("cant_stop", "Star2SS-Star2"): 0.85,
    **{("ra", label): 0.60 for label in COUNTERPARTS},
}


def paper_rate(key: str, label: str) -> float | None:
    """The rate the paper states for a pairing in the game `key`, None if it states none."""
    return PAPER_RATES.get((key, label))


class CachedCorrections:
    """Luck corrections of records, each computed once: replaying a game with a lookahead
    value costs up to a second, and every look of the sequential rule needs them again."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, str, str, int, int], float] = {}

    def __call__(self, record: Record, value: ValueFunction) -> float:
        key = (record["game"], record["a"], record["b"], record["match"], record["game_index"])
        if key not in self.cache:
            self.cache[key] = record_correction(record, value)
        return self.cache[key]


@dataclass
class Answer:
    """One pairing's luck-corrected answer to the paper under the sequential rule."""

    key: str  # setup key of the game
    game: str  # the paper's name of the game
    game_string: str
    pairing: str
    a: str
    b: str
    paper: float | None  # the rate the paper states, None: it claims only > 50%
    decision: Decision
    summary: LuckSummary | None  # raw and corrected, over the decision's matches

    @property
    def verdict(self) -> str:
        return verdict(self.decision.sequential, self.paper)


def _pair_records(records: Sequence[Record], pairing: Pairing) -> list[Record]:
    return [r for r in records if r["a"] == pairing.a and r["b"] == pairing.b]


def answer(
    setup: mcms_setup.GameSetup,
    pairing: Pairing,
    records: Sequence[Record],
    rule: SequentialRule,
    corrections: CachedCorrections,
) -> Answer:
    """Where `pairing` stands under `rule`, from the records of its game."""
    mine = _pair_records(records, pairing)
    played = {(r["match"], r["game_index"]) for r in mine}
    summaries: dict[int, LuckSummary] = {}

    def interval_at(n: int) -> MatchInterval | None:
        if any((m, i) not in played for m in range(n) for i in (0, 1)):
            return None
        summaries[n] = luck_summary([r for r in mine if r["match"] < n], correction=corrections)
        return summaries[n].corrected

    paper = paper_rate(setup.key, pairing.label)
    decision = decide(rule, interval_at, [0.5] if paper is None else [0.5, paper])
    summary = summaries.get(decision.matches) or (summaries[max(summaries)] if summaries else None)
    return Answer(
        setup.key,
        setup.title,
        setup.game,
        pairing.label,
        pairing.a,
        pairing.b,
        paper,
        decision,
        summary,
    )


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
            if a.paper is None:
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
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _run_sequential(
    plans: Sequence[tuple[mcms_setup.GameSetup, list[Pairing], RunConfig]],
    rule: SequentialRule,
    max_minutes: float | None,
    corrections: CachedCorrections,
) -> bool:
    """Plays each game's open pairings look by look until the rule stops them all; False if
    `max_minutes` ran out first: no game starts after it, and the same command resumes."""
    start = time.monotonic()
    for setup, chosen, config in plans:
        assert config.out is not None
        while True:
            records = read_records(config.out) if Path(config.out).exists() else []
            open_ = [
                (p, d)
                for p in chosen
                if (d := answer(setup, p, records, rule, corrections).decision).reason is None
            ]
            if not open_:
                break
            if max_minutes is not None and time.monotonic() - start > 60 * max_minutes:
                print(f"stopped after {max_minutes:g} minutes; the same command resumes")
                return False
            n = min(d.matches for _, d in open_)
            group = [p for p, d in open_ if d.matches == n]
            print(
                f"{setup.title}: {', '.join(p.label for p in group)} up to {n} matches",
                flush=True,
            )
            stop_at = None if max_minutes is None else start + 60 * max_minutes
            pairs = [(p.a, p.b) for p in group]
            run = dataclasses.replace(config, pairs=pairs, matches=n, stop_at=stop_at)
            print(common.speed_line(common.run_games(run)), flush=True)
    return True


def write_answers(
    out: Path,
    plans: Sequence[tuple[mcms_setup.GameSetup, list[Pairing], RunConfig]],
    rule: SequentialRule,
    corrections: CachedCorrections,
) -> list[Answer]:
    """answers.md, answers.csv and answers.png in `out` for the pairings of `plans`."""
    answers = []
    for setup, chosen, config in plans:
        assert config.out is not None
        records = read_records(config.out) if Path(config.out).exists() else []
        answers += [answer(setup, p, records, rule, corrections) for p in chosen]
    (out / "answers.md").write_text(answers_markdown(answers, rule), encoding="utf-8")
    with open(out / "answers.csv", "w", newline="", encoding="utf-8") as f:
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
    return answers


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    common.add_running_options(parser)
    parser.add_argument(
        "--games", help="comma-separated subset of pig,ewn,cant_stop,ra (default all)"
    )
    parser.add_argument(
        "--pairings", help="comma-separated subset, e.g. Star2SS-Star2,Star1SS-MCTS (default all)"
    )
    parser.add_argument("--time-ms", type=float, default=200.0, help="search time per move")
    parser.add_argument(
        "--mcts",
        choices=MCTS_CHOICES,
        default="paper",
        help="MCTS variant of the MCTS pairings (paper: MCTS in Pig, EWN; DPW in Can't Stop, Ra)",
    )
    parser.add_argument(
        "--heuristic",
        default="default",
        help="heuristic of every agent (default; zero; or a game's variant, see chancespiel games)",
    )
    parser.add_argument(
        "--samples",
        action="append",
        metavar="GAME=W1,W2,W3",
        help="sample widths of expss, star1ss, star2ss in one game instead of the paper's, e.g. "
        "ewn=3,3,3 (repeatable; use another --out: a record file holds one setup)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="what every agent's time_ms measures (cpu: the same search on a loaded machine)",
    )
    parser.add_argument(
        "--max-nodes",
        type=common.positive,
        help="search this many nodes per move instead of --time-ms, in the *-Minimax pairings "
        "(equal node budgets: the answer without the speed of Python; use another --out)",
    )
    parser.add_argument(
        "--ordered-dice",
        action="store_true",
        help="Pig and Can't Stop with ordered dice (36 and 1296 rolls; use another --out)",
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="play each pairing in looks of --batch matches until its luck-corrected interval "
        "is within --target-points or excludes 50%% and the paper's rate (evaluation.sequential);"
        " --matches is then the cap. Writes answers.md, answers.csv, answers.png",
    )
    parser.add_argument("--batch", type=common.positive, default=10, help="matches per look")
    parser.add_argument(
        "--min-matches", type=common.positive, default=20, help="matches before the first look"
    )
    parser.add_argument(
        "--target-points",
        type=float,
        default=5.0,
        help="half-width of the 95%% corrected interval that is precise enough, in points",
    )
    parser.add_argument(
        "--max-minutes",
        type=float,
        help="start no new game after this many minutes (the same command resumes)",
    )
    parser.add_argument(
        "--summarise-only",
        action="store_true",
        help="play nothing: only write the tables and figures from the records in --out",
    )
    parser.add_argument(
        "--out",
        help="directory of the record files and the table; an existing one is resumed and "
        "extended (default: a new directory in results/figure2/)",
    )


def _run(args: argparse.Namespace) -> None:
    keys = common.choices("--games", args.games, list(mcms_setup.SETUPS))
    labels = common.choices("--pairings", args.pairings, PAIRING_LABELS)
    timed = [label for label in labels if label.endswith(MCTS)]
    if args.max_nodes is not None and timed:
        raise common.UsageError(
            f"--max-nodes budgets the *-Minimax players only; {', '.join(timed)} would mix a "
            "node budget with MCTS's time: choose --pairings without them"
        )
    try:
        setups = mcms_setup.with_samples(mcms_setup.SETUPS, args.samples or [])
        if args.ordered_dice:
            setups = mcms_setup.with_ordered_dice(setups, keys)
        rule = None
        if args.sequential:
            rule = SequentialRule(
                args.batch,
                args.matches,
                min(args.min_matches, args.matches),
                args.target_points / 100.0,
            )
    except ValueError as e:
        raise common.UsageError(str(e)) from None
    if not 0 < args.time_ms < float("inf"):
        raise common.UsageError(f"--time-ms must be a positive number of ms, got {args.time_ms:g}")
    if args.max_minutes is not None and not 0 < args.max_minutes < float("inf"):
        raise common.UsageError(f"--max-minutes must be a positive number, got {args.max_minutes}")
    if args.summarise_only and not args.out:
        raise common.UsageError("--summarise-only needs --out: the directory of the records")
    out = Path(args.out) if args.out else common.fresh_output("figure2")
    plans = []
    for key in keys:
        setup = setups[key]
        common.check_heuristic(setup.game, args.heuristic)
        chosen = pairings(
            setup, labels, args.time_ms, args.mcts, args.heuristic, args.clock, args.max_nodes
        )
        common.checked_specs(common.load_game(setup.game), [s for p in chosen for s in (p.a, p.b)])
        allowed = [
            (p.a, p.b)
            for p in file_pairings(setup, args.time_ms, args.heuristic, args.clock, args.max_nodes)
        ]
        config = common.run_config(
            args,
            setup.game,
            [(p.a, p.b) for p in chosen],
            records=False,
            file_pairs=allowed,
            label=f"figure2 {key}",
        )
        plans.append((setup, chosen, dataclasses.replace(config, out=str(record_path(out, setup)))))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise common.UsageError(f"cannot create {out}: {e.strerror}") from None
    try:
        if rule is not None:
            corrections = CachedCorrections()
            if not args.summarise_only:
                _run_sequential(plans, rule, args.max_minutes, corrections)
            print(answers_markdown(write_answers(out, plans, rule, corrections), rule))
        elif not args.summarise_only:
            for setup, chosen, config in plans:
                print(f"{setup.title} ({setup.game}): {', '.join(p.label for p in chosen)}")
                print(common.speed_line(common.run_games(config)), flush=True)
        records = load_records(out, setups)
    except RecordFileError as e:
        raise common.UsageError(str(e)) from None
    rows = write_outputs(out, records, setups)
    print(markdown(rows))
    print(f"written to {out}/table.md, table.csv, figure2.png (records: {out}/<game>.jsonl)")


EXPERIMENT = Experiment(
    "figure2",
    "Figure 2 of the MCMS paper: *-Minimax, MCMS and MCTS pairings in four games",
    _add_arguments,
    _run,
)
