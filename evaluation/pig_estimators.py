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

    chancespiel experiment pig-estimators --states 100 --runs 10 --time-ms 50 --out DIR
"""

from __future__ import annotations

import csv
import itertools
import math
import os
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyspiel

from chancespiel.agents import make_bot
from chancespiel.evaluation import mcms_setup
from chancespiel.evaluation.play import play_game
from chancespiel.evaluation.stats import Z95
from chancespiel.games.pig import CHANCE, PigCore
from chancespiel.games.pig_solver import solve_pig

GAME = "python_pig(dice=2,winscore=100)"
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
    solution = solve_pig(dice=2, winscore=100)
    core = core_of(key)
    mover = core.turn_player
    values = {}
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        values[action] = 2.0 * solution.state_win_probability(child, mover) - 1.0
    return 2.0 * solution.state_win_probability(core, mover) - 1.0, values


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
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
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


def summarise(estimates: Sequence[Estimate], names: Sequence[str]) -> list[Row]:
    """Table 1 rows from raw estimates (per-state statistics, then means over states)."""
    by_cell: dict[tuple[str, tuple[int, ...]], list[Estimate]] = {}
    for e in estimates:
        by_cell.setdefault((e.estimator, e.state), []).append(e)
    truths = {key: exact_values(key) for key in {e.state for e in estimates}}
    rows = []
    for name in names:
        mse, var, bias, regret = [], [], [], []
        for (estimator, key), cell in by_cell.items():
            if estimator != name:
                continue
            truth, action_values = truths[key]
            values = [SCALE * e.value for e in cell]
            target = SCALE * truth
            mse.append(statistics.fmean((v - target) ** 2 for v in values))
            var.append(statistics.pvariance(values))
            bias.append(abs(statistics.fmean(values) - target))
            regret.append(statistics.fmean(SCALE * (truth - action_values[e.action]) for e in cell))
        if not mse:
            continue
        (m, mc), (v, vc), (b, bc), (r, rc) = (_mean_ci(x) for x in (mse, var, bias, regret))
        rows.append(Row(name, len(mse), m, v, b, r, mc, vc, bc, rc))
    return rows


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


def write_outputs(out: Path, estimates: Sequence[Estimate], rows: Sequence[Row]) -> None:
    """table.md, table.csv and the raw estimates (raw.csv) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text(markdown(rows) + "\n", encoding="utf-8")
    with open(out / "table.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(list(Row.__dataclass_fields__))
        for row in rows:
            writer.writerow(list(vars(row).values()))
    with open(out / "raw.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["mover_score", "opponent_score", "turn_total", "mover", "estimator",
                         "run", "value", "action"])  # fmt: skip
        for e in estimates:
            writer.writerow([*e.state, e.estimator, e.run, e.value, e.action])
