"""CPU time of a fixed amount of search work, for before/after comparisons on a loaded machine.

    .venv/bin/python lab/benchmarks/bench_fixed_work.py star2 [--game python_cant_stop]
    .venv/bin/python lab/benchmarks/bench_fixed_work.py mcts10 | mcts_end | playouts
    valgrind --tool=callgrind .venv/bin/python lab/benchmarks/bench_fixed_work.py star2 \
        --repeats 1 --amount 20000   # less work, for instruction counts

No clock cuts the searches short: star2 runs 150,000 nodes (or, with `--depth`, to that fixed
depth), mcts 15,000 simulations with rollout_depth=10 or 3,000 with random rollouts to the end,
on the `--positions` positions of bench_summary.py (2 by default), and `playouts` plays 200
random games from the initial state through the core (`agents.mcts_core.rollout`, the loop of
MCTS's rollouts). The fastest of `--repeats` runs is printed with the values and counts, which
two libraries that compute the same thing print alike. Run two libraries in alternating
processes (one of them through PYTHONPATH, as lab/results/speed/ shows) and compare the times; the
fastest of several runs is the one least disturbed by other processes. `--amount` sets the nodes,
simulations or games (for instruction counts under valgrind, which runs Python about 50x
slower). `--setup-only` does everything but the work (imports, game, positions): subtract its
instruction count from the measured run's.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy.random  # noqa: F401  (a compiled search's first Draws imports it: start-up, not work)
import pyspiel
from common import decision_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.draws import draws_from
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.mcts_core import TO_THE_END, rollout
from chancespiel.agents.star_minimax import search
from chancespiel.games.registry import evaluation_for

WORK = ("star2", "mcts10", "mcts_end", "playouts")
PLAYOUTS = 200  # random games of `playouts`


def run(
    work: str,
    game: pyspiel.Game,
    positions: list[Any],
    amount: int | None = None,
    depth: int | None = None,
) -> list[tuple[int, float]]:
    """(nodes or simulations, value) of each search of `work` from `positions`, or (games,
    total return) of the random games; `amount` replaces the default nodes, simulations or
    games, and `depth` makes star2 search to that depth instead of a node budget."""
    if work == "playouts":
        return [playouts(game, amount or PLAYOUTS)]
    out = []
    for index, core in enumerate(positions):
        if work == "star2":
            if depth is None:
                result = search(core.clone(), game, "star2", max_nodes=amount or 150_000)
            else:
                result = search(core.clone(), game, "star2", max_depth=depth)
            out.append((result.nodes, result.value))
        else:
            rollout_depth, simulations = (10, 15_000) if work == "mcts10" else (None, 3_000)
            simulations = amount or simulations
            found = mcts_search(
                core.clone(),
                game,
                rollout_depth=rollout_depth,
                max_simulations=simulations,
                seed=index,
                keep_tree=False,  # as a bot's move: the tree freed before the collector resumes
            )
            out.append((found.simulations, found.value))
    return out


def playouts(game: pyspiel.Game, count: int) -> tuple[int, float]:
    """(games, sum of player 0's returns) of `count` random games from the initial state, by
    the rollout of MCTS on the core (one generator, seeded 0, for all of them)."""
    rng = draws_from(random.Random(0))
    evaluate = evaluation_for(game)
    initial = game.new_initial_state().core
    total = 0.0
    for _ in range(count):
        total += rollout(initial.clone(), TO_THE_END, rng, evaluate)
    return count, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", choices=WORK)
    parser.add_argument("--game", default="python_cant_stop", help="game string")
    parser.add_argument("--repeats", type=int, default=3, help="runs (the fastest is kept)")
    parser.add_argument("--amount", type=int, help="nodes, simulations or games per run")
    parser.add_argument("--depth", type=int, help="star2: search to this depth")
    parser.add_argument("--positions", type=int, default=2, help="searched positions")
    parser.add_argument("--setup-only", action="store_true", help="all but the work")
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    positions = [s.core for s in decision_positions(game, args.positions, seed=1, choice=True)]
    if args.setup_only:
        evaluation_for(game)
        print(f"setup {args.game} {len(positions)} positions")
        return
    best = float("inf")
    facts: list[tuple[int, float]] = []
    for _ in range(args.repeats):
        start = time.process_time()
        facts = run(args.work, game, positions, args.amount, args.depth)
        best = min(best, time.process_time() - start)
    print(f"{args.work} {args.game} {best:.3f} CPU s {facts}")


if __name__ == "__main__":
    main()
