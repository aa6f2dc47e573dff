"""The MCMS paper's Table 1: statistical properties of search estimators on two-dice Pig.

Section 4.3 of the paper: at each decision state s an agent estimates the minimax value V(s)
and picks an action a. With the exact solver as ground truth, over R runs per state:

    MSE = mean (V^ - V)^2,  Variance = var(V^),  Bias = mean(V^) - V,
    Regret = V(s) - V(s, a)   (a = the agent's move; V(s, a) its exact value)

each averaged over the states (|Bias| averaged in absolute value). Values are for the player to
move in [-1, 1]; the table reports them on the paper's [-100, 100] scale (MSE and variance in
squared points), with a 95% interval over states for each mean.

States are those seen in games between the estimating agents (all pairs, both seats, a short
time per move), duplicates removed, then a seeded sample of `states`.

    chancespiel experiment pig-estimators --states 100 --runs 10 --time-ms 50

Reproduces "Monte Carlo *-Minimax Search" (Lanctot et al., 2013), section 4.3, Table 1.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import math
import os
import random
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pyspiel

from chancespiel.agents import make_bot
from chancespiel.evaluation.match import (
    Agent,
    Record,
    RecordFileError,
    game_key,
    load_game_cached,
    read_records,
    unique_records,
)
from chancespiel.evaluation.parallel import worker_pool
from chancespiel.evaluation.play import play_game
from chancespiel.evaluation.stats import Z95
from chancespiel.evaluation.usage import (
    UsageError,
    check_heuristic,
    new_output,
    output_dir,
    positions_arg,
    seed_arg,
    time_ms_arg,
    workers_arg,
    write_text,
)
from chancespiel.files import open_output, open_text, write_output
from chancespiel.games.pig_core import CHANCE, PigCore
from chancespiel.games.pig_solver import solve_pig
from chancespiel.studies import Experiment, mcms_setup

WINSCORE = 100
GAME = f"python_pig(dice=2,winscore={WINSCORE})"
SCALE = mcms_setup.PAPER_SCALE


def paper_specs(time_ms: float, heuristic: str = "default") -> dict[str, str]:
    """The estimators of Table 1 with the paper's Pig settings (evaluation/mcms_setup.py),
    evaluating with the Pig heuristic `heuristic` ('lead' for a plain one)."""
    return mcms_setup.paper_specs(mcms_setup.SETUPS["pig"], time_ms, heuristic)


PAPER_TABLE_1 = {  # MSE, Variance, |Bias|, Regret over 2470 states (the paper's Table 1)
    "mcts": (78.7, 0.71, 8.83, 0.41),
    "dpw": (79.4, 5.3, 8.61, 0.96),
    "exp": (91.4, 0.037, 9.56, 0.56),
    "star1": (91.0, 0.064, 9.54, 0.55),
    "star2": (87.9, 0.008, 9.38, 0.58),
    "expss": (95.3, 13.0, 9.07, 0.52),
    "star1ss": (99.8, 11.0, 9.43, 0.55),
    "star2ss": (97.5, 14.8, 9.09, 0.56),
}


def state_key(core: PigCore) -> tuple[int, int, int, int]:
    """(mover's score, opponent's score, turn total, mover) of a decision state."""
    mover = core.turn_player
    return (core.scores[mover], core.scores[1 - mover], core.turn_total, mover)


def collect_states(
    specs: Mapping[str, str], games_per_pairing: int, count: int, seed: int
) -> list[tuple[int, ...]]:
    """Decision states met in games between every pair of agents (both seats; self-play if
    there is one agent), deduplicated, then `count` of them sampled with `seed` (all of them if
    fewer)."""
    game = pyspiel.load_game(GAME)
    seen: set[tuple[int, ...]] = set()

    def observe(state: pyspiel.State, player: int, action: int) -> None:
        if player != CHANCE and state.legal_actions() != [1]:  # skip forced stops
            seen.add(state_key(state.core))

    pairs = list(itertools.permutations(specs.values(), 2)) or [(s, s) for s in specs.values()]
    for index, (first, second) in enumerate(pairs):
        for g in range(games_per_pairing):
            game_seed = seed * 1_000_003 + index * 1009 + g
            bots = [make_bot(first, game, 0, game_seed), make_bot(second, game, 1, game_seed + 1)]
            play_game(game, bots, game_seed, observe)
    states = sorted(seen)
    random.Random(seed).shuffle(states)
    return sorted(states[:count])


def core_of(key: tuple[int, ...]) -> PigCore:
    """A python_pig core in the decision state `key`."""
    mine, theirs, turn_total, mover = key
    core = pyspiel.load_game(GAME).new_initial_state().core
    core.scores = (mine, theirs) if mover == 0 else (theirs, mine)
    core.turn_total = turn_total
    core.turn_player = mover
    return core


def exact_values(key: tuple[int, ...]) -> tuple[float, dict[int, float]]:
    """V(s) and V(s, a) for every legal a, for the mover, in [-1, 1]."""
    solution = solve_pig(dice=2, winscore=WINSCORE)
    core = core_of(key)
    mover = core.turn_player
    values = {}
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        values[action] = 2.0 * solution.state_win_probability(child, mover) - 1.0
    return 2.0 * solution.state_win_probability(core, mover) - 1.0, values


@dataclass
class AgentRegret:
    """The exact regret of one agent's decisions in recorded games, in the paper's points."""

    agent: str
    decisions: int
    mean: float  # mean regret per decision
    half: float  # half-width of its 95% interval
    suboptimal: float  # fraction of decisions with a regret above 1e-9


def decision_regrets(records: Sequence[Record]) -> list[AgentRegret]:
    """Per agent, V(s) - V(s, a) of every decision it made in `records` of two-dice Pig to
    100, under either dice encoding (forced moves left out): how much win probability its moves
    gave away, measured by the exact solver in the games actually played.

    Raises:
      ValueError: for a record of another game.
      RecordFileError: for two different results of one game (unique_records).
    """
    reference = pyspiel.load_game(GAME).get_parameters()
    regrets: dict[str, list[float]] = {}
    names: dict[Agent, str] = {}  # an agent by its canonical spec and model, first spelling
    records, _ = unique_records(records)  # each game once, by its key
    for record in records:
        seats = game_key(record).seats
        game = load_game_cached(record["game"])
        params = {k: v for k, v in game.get_parameters().items() if k != "ordered_dice"}
        if game.get_type().short_name != "python_pig" or params != {
            k: v for k, v in reference.items() if k != "ordered_dice"
        }:
            raise ValueError(f"decision regrets need {GAME} (either dice encoding), not {game}")
        state = game.new_initial_state()
        for action in record["history"]:
            player = state.current_player()
            if player != CHANCE and state.legal_actions() != [1]:
                best, values = exact_values(state_key(state.core))
                regret = SCALE * (best - values[action])
                agent = seats[player]
                name = names.setdefault(agent, record["seats"][player])
                if agent.model is not None:
                    name = agent.label(name)
                regrets.setdefault(name, []).append(regret)
            state.apply_action(action)
    rows = []
    for name, agent_regrets in regrets.items():
        mean, half = _mean_ci(agent_regrets)
        bad = sum(v > 1e-9 for v in agent_regrets) / len(agent_regrets)
        rows.append(AgentRegret(name, len(agent_regrets), mean, half, bad))
    return rows


def markdown_regrets(rows: Sequence[AgentRegret]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| agent | decisions | mean regret per decision (points, 95%) | suboptimal moves |",
        "|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.agent} | {r.decisions} | {r.mean:.3f} +- {r.half:.3f} | "
            f"{100 * r.suboptimal:.1f}% |"
        )
    return "\n".join(lines)


@dataclass
class Estimate:
    """One run of one estimator on one state."""

    state: tuple[int, ...]
    estimator: str
    run: int
    value: float
    action: int


def _estimate_state(task: tuple[tuple[int, ...], Mapping[str, str], int, int]) -> list[Estimate]:
    key, specs, runs, seed = task
    game = pyspiel.load_game(GAME)
    state = game.new_initial_state()
    state.core = core_of(key)
    estimates = []
    for name, spec in specs.items():
        for run in range(runs):
            bot = make_bot(spec, game, state.current_player(), seed + run)
            result = bot.analyse(state)
            estimates.append(Estimate(key, name, run, result.value, result.action))
    return estimates


def run_estimates(
    states: Sequence[tuple[int, ...]],
    specs: Mapping[str, str],
    runs: int,
    seed: int,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Estimate]:
    """Every estimator `runs` times on every state, states spread over worker processes."""
    tasks = [(key, dict(specs), runs, seed + 7919 * i) for i, key in enumerate(states)]
    estimates: list[Estimate] = []
    with worker_pool(workers or os.cpu_count() or 1) as pool:
        for done, batch in enumerate(pool.map(_estimate_state, tasks), start=1):
            estimates.extend(batch)
            if progress is not None:
                progress(done, len(tasks))
    return estimates


@dataclass
class Row:
    """Table 1 row of one estimator: means over states and 95% half-widths (paper scale)."""

    estimator: str
    states: int
    mse: float
    variance: float
    abs_bias: float
    regret: float
    mse_ci: float
    variance_ci: float
    abs_bias_ci: float
    regret_ci: float


def _mean_ci(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, Z95 * statistics.stdev(values) / math.sqrt(len(values))


class StateStats(NamedTuple):
    """One estimator's statistics on one state, on the paper's scale."""

    mse: float
    variance: float
    abs_bias: float
    regret: float


def state_stats(estimates: Sequence[Estimate]) -> dict[tuple[str, tuple[int, ...]], StateStats]:
    """The statistics of every (estimator, state) with estimates, in order of first appearance."""
    by_cell: dict[tuple[str, tuple[int, ...]], list[Estimate]] = {}
    for e in estimates:
        by_cell.setdefault((e.estimator, e.state), []).append(e)
    truths = {key: exact_values(key) for key in {e.state for e in estimates}}
    stats = {}
    for (name, key), cell in by_cell.items():
        truth, action_values = truths[key]
        values = [SCALE * e.value for e in cell]
        target = SCALE * truth
        stats[name, key] = StateStats(
            mse=statistics.fmean((v - target) ** 2 for v in values),
            variance=statistics.pvariance(values),
            abs_bias=abs(statistics.fmean(values) - target),
            regret=statistics.fmean(SCALE * (truth - action_values[e.action]) for e in cell),
        )
    return stats


def summarise(estimates: Sequence[Estimate], names: Sequence[str]) -> list[Row]:
    """Table 1 rows from raw estimates (per-state statistics, then means over states)."""
    stats = state_stats(estimates)
    rows = []
    for name in names:
        cells = [cell for (estimator, _), cell in stats.items() if estimator == name]
        if not cells:
            continue
        (m, mc), (v, vc), (b, bc), (r, rc) = (
            _mean_ci(column) for column in zip(*cells, strict=True)
        )
        rows.append(Row(name, len(cells), m, v, b, r, mc, vc, bc, rc))
    return rows


# Each MCMS estimator and the classic one it samples, and each MCMS estimator with shared
# samples and without; `paired` compares them state by state.
MCMS_ESTIMATORS = ("expss", "star1ss", "star2ss")
SHARED = "_shared"  # suffix of an MCMS estimator with shared_samples=true
COUNTERPARTS = (
    ("expss", "exp"),
    ("star1ss", "star1"),
    ("star2ss", "star2"),
    *((name + SHARED, name) for name in MCMS_ESTIMATORS),
)


def with_shared_samples(specs: Mapping[str, str], mode: str) -> dict[str, str]:
    """`specs` with the MCMS estimators' shared samples 'off' (as given), 'on' (replaced by
    NAME_shared) or 'both' (NAME_shared added after NAME)."""
    if mode == "off":
        return dict(specs)
    changed: dict[str, str] = {}
    for name, spec in specs.items():
        if mode == "both" or name not in MCMS_ESTIMATORS:
            changed[name] = spec
        if name in MCMS_ESTIMATORS:
            changed[name + SHARED] = spec[:-1] + ",shared_samples=true)"
    return changed


@dataclass
class PairedRow:
    """An MCMS estimator minus its classic counterpart, per state, then averaged over states
    (paper scale): negative means the sampling estimator has less of it."""

    sampled: str
    classic: str
    states: int
    abs_bias: float
    regret: float
    mse: float
    abs_bias_ci: float
    regret_ci: float
    mse_ci: float


def paired(estimates: Sequence[Estimate]) -> list[PairedRow]:
    """Each pair of COUNTERPARTS with estimates on common states: the mean per-state difference
    of |bias|, regret and MSE with 95% intervals. The states are shared, so these intervals are
    far tighter than the difference of two Table 1 rows would suggest."""
    stats = state_stats(estimates)
    rows = []
    for sampled, classic in COUNTERPARTS:
        keys = [k for name, k in stats if name == sampled and (classic, k) in stats]
        if not keys:
            continue
        (b, bc), (r, rc), (m, mc) = (
            _mean_ci([getattr(stats[sampled, k], f) - getattr(stats[classic, k], f) for k in keys])
            for f in ("abs_bias", "regret", "mse")
        )
        rows.append(PairedRow(sampled, classic, len(keys), b, r, m, bc, rc, mc))
    return rows


def markdown_paired(rows: Sequence[PairedRow]) -> str:
    """The paired differences as a Markdown table."""
    lines = [
        "| sampled - classic | states | abs(Bias) | Regret | MSE |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.sampled} - {r.classic} | {r.states} | {r.abs_bias:+.2f} ± {r.abs_bias_ci:.2f}"
            f" | {r.regret:+.2f} ± {r.regret_ci:.2f} | {r.mse:+.1f} ± {r.mse_ci:.1f} |"
        )
    return "\n".join(lines)


def markdown(rows: Sequence[Row]) -> str:
    """Our rows beside the paper's Table 1."""
    lines = [
        "| estimator | states | MSE | Variance | abs(Bias) | Regret | paper MSE | paper Var "
        "| paper abs(Bias) | paper Regret |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        paper = PAPER_TABLE_1.get(row.estimator, (math.nan,) * 4)
        lines.append(
            f"| {row.estimator} | {row.states} | {row.mse:.1f} ± {row.mse_ci:.1f} | "
            f"{row.variance:.3g} ± {row.variance_ci:.2g} | {row.abs_bias:.2f} ± "
            f"{row.abs_bias_ci:.2f} | {row.regret:.2f} ± {row.regret_ci:.2f} | "
            f"{paper[0]} | {paper[1]} | {paper[2]} | {paper[3]} |"
        )
    return "\n".join(lines)


RAW_HEADER = ["mover_score", "opponent_score", "turn_total", "mover", "estimator", "run",
              "value", "action"]  # fmt: skip


def tables(estimates: Sequence[Estimate], rows: Sequence[Row]) -> str:
    """table.md: the Table 1 rows, then the paired differences if there are counterparts."""
    text = markdown(rows)
    if paired_rows := paired(estimates):
        text += "\n\nEach MCMS estimator minus its classic counterpart, state by state:\n\n"
        text += markdown_paired(paired_rows)
    return text


def write_outputs(
    out: Path, estimates: Sequence[Estimate], rows: Sequence[Row], raw: bool = True
) -> None:
    """table.md, table.csv and, if `raw`, the raw estimates (raw.csv) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    write_output(out / "table.md", tables(estimates, rows) + "\n")
    with open_output(out / "table.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(Row.__dataclass_fields__))
        for row in rows:
            writer.writerow(list(vars(row).values()))
    if not raw:
        return
    with open_output(out / "raw.csv", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(RAW_HEADER)
        for e in estimates:
            writer.writerow([*e.state, e.estimator, e.run, e.value, e.action])


def read_raw(path: Path) -> list[Estimate]:
    """The estimates of a raw.csv written by `write_outputs`.

    Raises:
      ValueError: for a missing file, another header or a malformed line (named by number).
    """
    try:
        with open_text(path, newline="") as f:
            lines = list(csv.reader(f))
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error):
        lines = []  # refused below
    if not lines or lines[0] != RAW_HEADER:
        raise ValueError(f"{path}: not a raw.csv of pig-estimators (header {RAW_HEADER})")
    estimates = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            *state, name, run, value, action = line
            if len(state) != 4 or not name:
                raise ValueError
            key = tuple(int(x) for x in state)
            estimate = Estimate(key, name, int(run), float(value), int(action))
            mine, theirs, _, mover = key
            if min(key) < 0 or max(mine, theirs) >= WINSCORE or mover not in (0, 1):
                raise ValueError
        except ValueError:
            raise ValueError(f"{path}, line {number}: malformed estimate {line}") from None
        if not math.isfinite(estimate.value):
            raise ValueError(f"{path}, line {number}: value {value} is not finite")
        estimates.append(estimate)
    if not estimates:
        raise ValueError(f"{path}: no estimates")
    return estimates


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--states", type=positions_arg, default=100, help="distinct states to sample"
    )
    parser.add_argument(
        "--runs", type=positions_arg, default=50, help="runs of each estimator per state"
    )
    parser.add_argument(
        "--time-ms", type=time_ms_arg, default=200.0, help="search time per estimate"
    )
    parser.add_argument(
        "--collect-games", type=positions_arg, default=2, help="games per ordered pair"
    )
    parser.add_argument(
        "--collect-time-ms", type=time_ms_arg, default=20.0, help="time per move there"
    )
    parser.add_argument("--estimators", help="comma-separated subset, e.g. exp,star2ss")
    parser.add_argument(
        "--shared-samples",
        choices=("off", "on", "both"),
        default="off",
        help="MCMS estimators with shared samples (common random numbers between sibling "
        "subtrees): off, on (NAME_shared instead of NAME) or both",
    )
    parser.add_argument(
        "--heuristic",
        default="default",
        help="Pig heuristic of every estimator (default, lead, zero)",
    )
    parser.add_argument(
        "--workers", type=workers_arg, default=None, help="processes (default: cores)"
    )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the states and searches")
    parser.add_argument(
        "--out", help="output directory (default: a new one in results/pig_estimators/)"
    )
    parser.add_argument(
        "--summarise-only",
        action="store_true",
        help="only rewrite table.md and table.csv from OUT/raw.csv (nothing is run; needs --out)",
    )
    parser.add_argument(
        "--regret-of",
        metavar="RECORDS",
        help="instead: the exact regret per decision of each agent in the games of a record "
        "file of python_pig (--out: a Markdown file to write it to)",
    )


def _holds_raw(out: Path) -> bool:
    """Whether `out` holds a run's raw estimates."""
    return (out / "raw.csv").is_file()


def _run(args: argparse.Namespace) -> None:
    if args.regret_of:
        if args.out:
            new_output(args.out, "pig_estimators", ".md")  # refused before the work
        try:
            records = read_records(args.regret_of)
            if not records:
                raise UsageError(f"no game records in {args.regret_of}")
            text = markdown_regrets(decision_regrets(records))
        except (RecordFileError, ValueError) as e:
            raise UsageError(str(e)) from None
        print(text)
        if args.out:
            write_text(args.out, text + "\n")
            print(f"written to {args.out}")
        return
    if args.summarise_only:
        if args.out is None:
            raise UsageError("--summarise-only needs --out: the directory holding raw.csv")
        try:
            estimates = read_raw(Path(args.out) / "raw.csv")
        except ValueError as e:
            raise UsageError(str(e)) from None
        names = list(dict.fromkeys(e.estimator for e in estimates))
        rows = summarise(estimates, names)
        held = output_dir(args.out, "pig_estimators", _holds_raw, ("table.md", "table.csv"))
        write_outputs(held, estimates, rows, raw=False)
        print(tables(estimates, rows))
        print(f"written to {args.out}/table.md, table.csv (from {args.out}/raw.csv)")
        return
    check_heuristic(GAME, args.heuristic)
    specs = paper_specs(args.time_ms, args.heuristic)
    if args.estimators:
        names = args.estimators.split(",")
        unknown = sorted(set(names) - set(specs))
        if unknown:
            raise UsageError(f"unknown estimator(s) {unknown}; known: {', '.join(specs)}")
        specs = {name: specs[name] for name in names}
    collect = paper_specs(args.collect_time_ms, args.heuristic)
    collect = {name: collect[name] for name in specs}  # shared samples or not: the same games
    specs = with_shared_samples(specs, args.shared_samples)
    out = output_dir(args.out, "pig_estimators")
    print(f"collecting states from games between {', '.join(collect)} ...", flush=True)
    states = collect_states(collect, args.collect_games, args.states, args.seed)
    print(
        f"{len(states)} distinct states; {args.runs} runs of each estimator per state", flush=True
    )

    def progress(done: int, total: int) -> None:
        print(f"\r  states done: {done}/{total}", end="", file=sys.stderr, flush=True)

    estimates = run_estimates(states, specs, args.runs, args.seed, args.workers, progress)
    print(file=sys.stderr)
    rows = summarise(estimates, list(specs))
    try:
        write_outputs(out, estimates, rows)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror}") from None
    print(tables(estimates, rows))
    print(f"written to {out}/table.md, table.csv, raw.csv")


EXPERIMENT = Experiment.listed(
    "pig-estimators",
    _add_arguments,
    _run,
)
