"""CPU time of a fixed amount of search work, for before/after comparisons on a loaded machine.

    .venv/bin/python benchmarks/bench_fixed_work.py star2 [--game python_cant_stop]
    .venv/bin/python benchmarks/bench_fixed_work.py mcts10 | mcts_end
    valgrind --tool=callgrind .venv/bin/python benchmarks/bench_fixed_work.py star2 \
        --repeats 1 --amount 20000   # less work, for instruction counts
    .venv/bin/python benchmarks/bench_fixed_work.py star2 --depth 3 --positions 3

No clock cuts the searches short: star2 runs 150,000 nodes, mcts 15,000 simulations with
rollout_depth=10 or 3,000 with random rollouts to the end, on the 2 positions of
bench_summary.py, and the fastest of `--repeats` runs is printed with the values and counts,
which two libraries that compute the same thing print alike. Run two libraries in alternating
processes (one of them through PYTHONPATH, as docs/speed.md shows) and compare the times; the
fastest of several runs is the one least disturbed by other processes. `--amount` sets the nodes
or simulations per position (for instruction counts under valgrind, which runs Python about
50x slower; subtract an `--amount 1` run for the start-up); `--depth` searches star2 to that
depth instead of to a node count; `--positions` takes more positions of the same sequence.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import pyspiel
from common import decision_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.star_minimax import search

WORK = ("star2", "mcts10", "mcts_end")


def run(
    work: str,
    game: pyspiel.Game,
    positions: list[Any],
    amount: int | None = None,
    depth: int | None = None,
) -> list[tuple[int, float]]:
    """(nodes or simulations, value) of each search of `work` from `positions`; `amount`
    replaces the default nodes or simulations per search, `depth` star2's node budget."""
    out = []
    for index, core in enumerate(positions):
        if work == "star2" and depth is not None:
            result = search(core.clone(), game, "star2", max_depth=depth)
            out.append((result.nodes, result.value))
        elif work == "star2":
            result = search(core.clone(), game, "star2", max_nodes=amount or 150_000)
            out.append((result.nodes, result.value))
        else:
            depth, simulations = (10, 15_000) if work == "mcts10" else (None, 3_000)
            simulations = amount or simulations
            found = mcts_search(
                core.clone(),
                game,
                rollout_depth=depth,
                max_simulations=simulations,
                seed=index,
            )
            out.append((found.simulations, found.value))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", choices=WORK)
    parser.add_argument("--game", default="python_cant_stop", help="game string")
    parser.add_argument("--repeats", type=int, default=3, help="runs (the fastest is kept)")
    parser.add_argument("--amount", type=int, help="nodes or simulations per search")
    parser.add_argument("--depth", type=int, help="star2: search to this depth, no node budget")
    parser.add_argument("--positions", type=int, default=2, help="positions searched")
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    positions = [s.core for s in decision_positions(game, args.positions, seed=1, choice=True)]
    best = float("inf")
    facts: list[tuple[int, float]] = []
    for _ in range(args.repeats):
        start = time.process_time()
        facts = run(args.work, game, positions, args.amount, args.depth)
        best = min(best, time.process_time() - start)
    print(f"{args.work} {args.game} {best:.3f} CPU s {facts}")


if __name__ == "__main__":
    main()
