"""Nodes searched by expectimax, Star1 and Star2 at fixed depths.

Reproduces the comparison behind "Monte Carlo *-Minimax Search" (Lanctot et al., 2013),
section 3.1: how much Star1 and Star2 prune relative to expectimax at equal depth and value.

    chancespiel experiment node-counts --game "python_pig" --depths 1,2,3,4 --positions 100
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import pyspiel

from chancespiel.agents import search_state
from chancespiel.agents.star_minimax import ALGORITHMS, TABLES, search
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.evaluation.usage import (
    MAX_FIXED_DEPTH,
    Bounded,
    check_heuristic,
    checked_specs,
    load_game,
    new_output,
    positions_arg,
    seed_arg,
    write_text,
)
from chancespiel.games.registry import evaluation_for
from chancespiel.studies import Experiment


@dataclass
class NodeCountRow:
    """Mean nodes of each algorithm at one depth over the same positions."""

    game: str
    depth: int
    positions: int
    mean_nodes: dict[str, float]
    seconds: dict[str, float]


def node_counts(
    game_string: str,
    depths: Sequence[int],
    positions: int,
    seed: int = 0,
    heuristic: str = "default",
    table: str = "state",
) -> list[NodeCountRow]:
    """Searches every position at every depth with each algorithm (no iterative deepening),
    evaluating with the game's heuristic `heuristic` and keying the best-move table by `table`.

    Raises:
      AssertionError: if the algorithms disagree on a value, which would be a bug.
    """
    game = pyspiel.load_game(game_string)
    evaluation = evaluation_for(game, heuristic)
    states = random_decision_positions(game, positions, seed)
    rows = []
    for depth in depths:
        nodes: dict[str, list[int]] = {a: [] for a in ALGORITHMS}
        seconds = dict.fromkeys(ALGORITHMS, 0.0)
        for state in states:
            values = {}
            for algorithm in ALGORITHMS:
                start = time.perf_counter()
                result = search(
                    search_state(state), game, algorithm, max_depth=depth, iterative=False,
                    evaluation=evaluation, table=table,
                )  # fmt: skip
                seconds[algorithm] += time.perf_counter() - start
                nodes[algorithm].append(result.nodes)
                values[algorithm] = result.value
            spread = max(values.values()) - min(values.values())
            assert spread < 1e-9, f"algorithms disagree at depth {depth}: {values} in\n{state}"
        rows.append(
            NodeCountRow(
                str(game),
                depth,
                len(states),
                {a: statistics.fmean(n) for a, n in nodes.items()},
                seconds,
            )
        )
    return rows


def markdown_table(rows: Sequence[NodeCountRow]) -> str:
    """The rows as a Markdown table with nodes relative to expectimax."""
    lines = [
        "| game | depth | positions | expectimax | star1 | star2 | star1 / exp | star2 / exp "
        "| seconds exp / star1 / star2 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        exp = row.mean_nodes["expectimax"]
        s1 = row.mean_nodes["star1"]
        s2 = row.mean_nodes["star2"]
        secs = " / ".join(f"{row.seconds[a]:.1f}" for a in ALGORITHMS)
        lines.append(
            f"| `{row.game}` | {row.depth} | {row.positions} | {exp:,.0f} | {s1:,.0f} | "
            f"{s2:,.0f} | {s1 / exp:.2f} | {s2 / exp:.2f} | {secs} |"
        )
    return "\n".join(lines)


# Command line -------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", action="append", required=True, help="game string (repeatable)")
    parser.add_argument(
        "--depths",
        type=Bounded(int, 1, MAX_FIXED_DEPTH).each,
        default="1,2,3",
        help="comma-separated depths (each searched whole, without a budget)",
    )
    parser.add_argument(
        "--positions", type=positions_arg, default=100, help="random positions per game"
    )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the positions")
    parser.add_argument("--heuristic", default="default", help="the games' heuristic to use")
    parser.add_argument(
        "--table", choices=TABLES, default="state", help="key of the best-move table"
    )
    parser.add_argument(
        "--out", help="Markdown file for the table (default: a new file in results/node_counts/)"
    )


def _run(args: argparse.Namespace) -> None:
    depths = args.depths
    for game_string in args.game:
        checked_specs(load_game(game_string), ALGORITHMS)
        check_heuristic(game_string, args.heuristic)
    out = str(new_output(args.out, "node_counts", ".md"))
    rows = []
    for game_string in args.game:
        rows.extend(
            node_counts(game_string, depths, args.positions, args.seed, args.heuristic, args.table)
        )
        print(markdown_table(rows[-len(depths) :]), flush=True)
    write_text(out, markdown_table(rows) + "\n")
    print(f"written to {out}")


EXPERIMENT = Experiment.listed(
    "node-counts",
    _add_arguments,
    _run,
)
