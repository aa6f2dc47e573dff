"""Chance sampling inside star2ss: the cost of one sampled chance node and its share of a search.

The search runs `search_core.sample_outcomes` (bisection in cached cumulative tables, compiled
with the engine); the linear scan it replaced (`search_common.sample_outcomes_linear`, which
draws the same outcomes) is timed per call beside it. The share of the search is
(sampled chance nodes x time per call) / search time.

    .venv/bin/python lab/benchmarks/bench_sampling.py [--positions 100] [--depth 3] [--samples 25]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import pyspiel

import chancespiel.agents  # noqa: F401
from chancespiel.agents import search_state
from chancespiel.agents.search_common import sample_outcomes_linear
from chancespiel.agents.search_core import sample_outcomes
from chancespiel.agents.star_core import StarSearch
from chancespiel.agents.star_minimax import search
from chancespiel.engine import describe
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.games.core import Core

SAMPLERS: dict[str, Callable] = {
    "linear scan": sample_outcomes_linear,
    "bisection": sample_outcomes,
}


class _CountingSearch(StarSearch):
    """Counts the chance nodes a search samples (run apart from the timed searches)."""

    sampled = 0

    def outcomes(self, state: Core, depth: int, ckey: int) -> Sequence[tuple[int, float]]:
        _CountingSearch.sampled += 1
        return super().outcomes(state, depth, ckey)


def searches(game: pyspiel.Game, states: list, depth: int, samples: int, **options) -> tuple:
    """(seconds, nodes) of star2ss from every state."""
    nodes = 0
    start = time.perf_counter()
    for seed, state in enumerate(states):
        result = search(
            search_state(state), game, "star2", max_depth=depth, samples=samples, seed=seed,
            **options,
        )  # fmt: skip
        nodes += result.nodes
    return time.perf_counter() - start, nodes


def calls_per_second(outcomes, samples: int, sampler: str, seconds: float = 0.5) -> float:
    """Calls of one sampler per second on one distribution (c draws per call)."""
    draw = SAMPLERS[sampler]
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for key in range(calls, calls + 200):
            draw(outcomes, samples, key)
        calls += 200
    return calls / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_cant_stop")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    states = random_decision_positions(game, args.positions, seed=1)
    seconds, nodes = min(
        searches(game, states, args.depth, args.samples) for _ in range(args.repeats)
    )
    searches(game, states, args.depth, args.samples, search_class=_CountingSearch)
    sampled = _CountingSearch.sampled
    roll = next(s for s in (search_state(p) for p in states) if s.current_player() >= 0).clone()
    while roll.current_player() != pyspiel.PlayerId.CHANCE:
        roll.apply(roll.legal_actions()[0])
    outcomes = roll.chance_outcomes()
    print(
        f"{args.game}: star2ss(samples={args.samples}) depth {args.depth}, {describe()}, "
        f"{args.positions} positions, {nodes:,} nodes of which {sampled:,} sampled chance "
        f"nodes, {nodes / seconds:,.0f} nodes/s (best of {args.repeats})"
    )
    for sampler in SAMPLERS:
        calls = calls_per_second(outcomes, args.samples, sampler)
        share = sampled / calls / seconds
        print(
            f"  {sampler:12s} {1e6 / calls:6.1f} us per sampled chance node "
            f"({len(outcomes)} outcomes): {100 * share:4.1f}% of the search"
        )


if __name__ == "__main__":
    main()
