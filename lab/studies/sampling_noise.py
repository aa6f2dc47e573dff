"""How large is the error of one sampled chance node against the decisions, game by game?

Explains the MCMS paper's Figure 2 ("Monte Carlo *-Minimax Search", Lanctot et al. 2013,
section 4) from its game's chance nodes: on two-dice Pig, where the exact solver settles it,
one sampled chance node of the paper's width estimates the value of rolling with an error as
large as the typical gap between rolling and stopping, which predicts most of the sampled
searches' regret (lab/results/pig_regret/). This experiment measures the same two quantities in
every game of the paper, against a classic search instead of a solver:

- the gap: the value of the best root move minus that of the second best, each move valued by
  averaging, over the outcomes of the chance node right after it, a Star2 search of the
  outcome to `depth - 1` plies (a move not followed by a chance node: the search of its
  child);
- the noise: the standard deviation of those outcome values, over sqrt(c) for the paper's
  sample widths c (the standard error of a chance node of width c, with c draws with
  replacement), for the best and the second best move together.

A search that knew every value below the first chance node exactly but sampled that node once
would choose the second best move with probability Phi(-gap / noise) (a normal
approximation); sampling deeper nodes only adds to that. Values are on the game's [-1, 1]
scale, for the player to move.

    chancespiel experiment sampling-noise --positions 40 --out results/sampling_noise/RUN
"""

from __future__ import annotations

import argparse
import csv
import datetime
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

from chancespiel.agents import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.match import RecordFileError, package_version
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.evaluation.usage import (
    UsageError,
    choices,
    command_text,
    output_dir,
    positions_arg,
    seed_arg,
    write_text,
)
from chancespiel.files import open_output
from chancespiel.games.registry import evaluation_for
from chancespiel.studies import Experiment, mcms_setup
from chancespiel.studies.figure2.plan import load_records
from chancespiel.studies.search_depth import sample_positions, states_after

# Plies of the reference search per game: as deep as a few minutes allow for 40 positions.
DEPTHS = {"pig": 4, "ewn": 4, "cant_stop": 3, "ra": 3}


@dataclass
class MoveValue:
    """A root move's value and the spread of its first chance node's outcomes."""

    action: int
    value: float
    spread: float  # standard deviation of the outcome values (0: no chance node right after)
    outcomes: int


def _value(state: Any, game: pyspiel.Game, mover: int, depth: int, h: Any) -> float:
    """The value for `mover` of a search state: averaged over chance, searched by Star2 to
    `depth` plies at a decision node, the heuristic at depth 0."""
    if state.is_terminal():
        return float(state.returns()[mover])
    player = state.current_player()
    if player < 0:
        return sum(
            p * _value(state.child(o), game, mover, depth, h) for o, p in state.chance_outcomes()
        )
    if depth == 0:
        return float(h(state, mover))
    result = search(state.clone(), game, "star2", max_depth=depth, iterative=False)
    return result.value if player == mover else -result.value


def move_values(state: Any, game: pyspiel.Game, depth: int) -> list[MoveValue]:
    """Every root move's value and first-chance-node spread (module docstring)."""
    h = evaluation_for(game)
    mover = state.current_player()
    values = []
    for action in state.legal_actions():
        child = state.child(action)
        if child.current_player() == pyspiel.PlayerId.CHANCE and not child.is_terminal():
            outcomes = child.chance_outcomes()
            each = [_value(child.child(o), game, mover, depth - 1, h) for o, _ in outcomes]
            mean = sum(p * v for (_, p), v in zip(outcomes, each, strict=True))
            spread = math.sqrt(
                sum(p * (v - mean) ** 2 for (_, p), v in zip(outcomes, each, strict=True))
            )
            values.append(MoveValue(action, mean, spread, len(outcomes)))
        else:
            values.append(MoveValue(action, _value(child, game, mover, depth - 1, h), 0.0, 0))
    return values


def wrong_probability(values: Sequence[MoveValue], width: int) -> tuple[float, float, float]:
    """(gap, noise, probability that sampling the first chance nodes at `width` ranks the
    second best move above the best)."""
    best, second = sorted(values, key=lambda m: -m.value)[:2]
    gap = best.value - second.value
    noise = math.sqrt(best.spread**2 + second.spread**2) / math.sqrt(width)
    wrong = 0.5 * math.erfc(gap / noise / math.sqrt(2.0)) if noise > 0.0 else 0.0
    return gap, noise, wrong


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", help="comma-separated: pig, ewn, cant_stop, ra (default: all)")
    parser.add_argument("--positions", type=positions_arg, default=40, help="positions per game")
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the positions")
    parser.add_argument(
        "--records",
        help="directory of figure2 record files: positions met in those games (the paper's "
        "S_obs) instead of random play",
    )
    parser.add_argument(
        "--out", help="directory for positions.csv and README.md (default: a new one)"
    )


def _run(args: argparse.Namespace) -> None:
    keys = choices("--games", args.games, list(mcms_setup.SETUPS))
    out = output_dir(args.out, "sampling_noise")
    records: dict[str, list[Any]] = {}
    if args.records is not None:
        try:
            records = load_records(args.records)
        except RecordFileError as e:
            raise UsageError(str(e)) from None
        if missing := [k for k in keys if k not in records]:
            raise UsageError(f"no record file in {args.records} for: {', '.join(missing)}")
    rows = []
    for key in keys:
        setup = mcms_setup.SETUPS[key]
        game = pyspiel.load_game(setup.game)
        positions = [
            s for s in _positions(game, records.get(key), 3 * args.positions, args.seed)
            if len(s.legal_actions()) > 1
        ][: args.positions]  # fmt: skip
        for index, state in enumerate(positions):
            values = move_values(search_state(state), game, DEPTHS[key])
            row = {"game": key, "position": index, "moves": len(values)}
            for name, width in zip(("expss", "star1ss", "star2ss"), setup.samples, strict=True):
                gap, noise, wrong = wrong_probability(values, width)
                row |= {"gap": gap, f"noise_{name}": noise, f"wrong_{name}": wrong}
            rows.append(row)
        print(f"{key}: {len(positions)} positions", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    with open_output(out / "positions.csv", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_text(out / "README.md", _readme(rows, keys, args))
    print("\n".join(_table(rows, keys)))
    print(f"written to {out}: positions.csv, README.md")


def _positions(
    game: pyspiel.Game, records: list[Any] | None, count: int, seed: int
) -> list[pyspiel.State]:
    """Decision states met in `records`, or reached by random play without them."""
    if records is None:
        return random_decision_positions(game, count, seed)
    try:
        return states_after(game, sample_positions(game, records, count, seed))
    except ValueError as e:
        raise UsageError(str(e)) from None


def _readme(rows: Sequence[dict[str, Any]], keys: Sequence[str], args: argparse.Namespace) -> str:
    where = "random play" if args.records is None else f"decisions met in {args.records}"
    lines = [
        "# The error of one sampled chance node against the decisions, per game",
        "",
        f"Made by `{command_text(args.command_line)}` (chancespiel "
        f"{package_version()}, {datetime.date.today().isoformat()}); the experiment is "
        "`lab/studies/sampling_noise.py`, whose docstring defines every term. "
        f"Medians over the positions ({where}, seeded), values on the [-1, 1] scale; "
        "'wrong' is the mean predicted probability of choosing the second best move from "
        "the sampling of the first chance node alone, at each sampled algorithm's paper width.",
        "",
        *_table(rows, keys),
    ]
    return "\n".join(lines) + "\n"


def _table(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> list[str]:
    """The main table: each game's median gap, and each sampled algorithm's noise and error."""
    lines = [
        "| game | reference depth | positions | median gap | expss: width, median noise, "
        "wrong | star1ss | star2ss | positions where noise > gap (star2ss) |",
        "|---|---:|---:|---:|---|---|---|---:|",
    ]
    for key in keys:
        mine = [r for r in rows if r["game"] == key]
        widths = mcms_setup.SETUPS[key].samples
        cells = []
        for name, width in zip(("expss", "star1ss", "star2ss"), widths, strict=True):
            noise = statistics.median(r[f"noise_{name}"] for r in mine)
            wrong = statistics.fmean(r[f"wrong_{name}"] for r in mine)
            cells.append(f"c={width}, {noise:.3f}, {wrong:.1%}")
        over = sum(r["noise_star2ss"] > r["gap"] for r in mine)
        lines.append(
            f"| {key} | {DEPTHS[key]} | {len(mine)} | "
            f"{statistics.median(r['gap'] for r in mine):.3f} | {' | '.join(cells)} | "
            f"{over} of {len(mine)} |"
        )
    return lines


EXPERIMENT = Experiment.listed(
    "sampling-noise",
    _add_arguments,
    _run,
)
