"""Our expectimax vs OpenSpiel's `expectiminimax`, same positions, depth and evaluation.

Both search the same tree (OpenSpiel's depth convention, which ours follows), so the node
count is the same; we count it on our side and check that the values agree.

    .venv/bin/python lab/benchmarks/bench_expectimax.py [--positions 20] [--depth 4]
"""

from __future__ import annotations

import argparse
import time

import pyspiel
from common import decision_positions
from open_spiel.python.algorithms.minimax import expectiminimax

import chancespiel.agents  # noqa: F401
from chancespiel.agents import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.games import heuristic_for


def compare(game_string: str, positions: int, depth: int) -> None:
    """Prints nodes per second of both searches and their ratio on one game."""
    game = pyspiel.load_game(game_string)
    h = heuristic_for(game)
    states = decision_positions(game, positions, seed=1)
    nodes = 0
    ours_s = theirs_s = 0.0
    for state in states:
        player = state.current_player()
        result = search(search_state(state), game, "expectimax", max_depth=depth, iterative=False)
        ours_s += result.time_s
        nodes += result.nodes
        start = time.perf_counter()
        value, _ = expectiminimax(state, depth, lambda s, p=player: h(s.core, p), player)
        theirs_s += time.perf_counter() - start
        assert abs(value - result.value) < 1e-9, (value, result.value)
    print(
        f"{game_string}, depth {depth}, {positions} positions, {nodes:,} nodes: "
        f"ours {nodes / ours_s:,.0f} nodes/s, OpenSpiel expectiminimax {nodes / theirs_s:,.0f} "
        f"nodes/s, ratio {theirs_s / ours_s:.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()
    compare("python_pig", args.positions, args.depth)
    compare("python_pig(dice=1)", args.positions, args.depth + 1)


if __name__ == "__main__":
    main()
