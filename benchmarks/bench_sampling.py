"""Chance sampling by bisection in cached cumulative tables vs a linear scan, inside star2ss.

Both samplers draw the same outcomes from the same uniform numbers (tests check it), so the
two searches visit the same nodes; the ratio of their node rates is the speed-up of the
sampling change on a whole search. Rounds alternate between the two (best of `--repeats`).

    .venv/bin/python benchmarks/bench_sampling.py [--positions 100] [--depth 3] [--samples 25]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import pyspiel

import chancespiel.agents  # noqa: F401
from chancespiel.agents import search_common, search_state, star_minimax
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions

SAMPLERS: dict[str, Callable] = {
    "linear scan": search_common.sample_outcomes_linear,
    "bisection": search_common.sample_outcomes,
}


def node_rate(game: pyspiel.Game, states: list, depth: int, samples: int, sampler: str) -> tuple:
    """(nodes per second, nodes) of star2ss on `states` with one sampler."""
    star_minimax.sample_outcomes = SAMPLERS[sampler]
    return _timed(game, states, depth, samples)


def chance_nodes(game: pyspiel.Game, states: list, depth: int, samples: int) -> int:
    """Chance nodes the searches sample (the same for both samplers)."""
    calls = 0
    draw = search_common.sample_outcomes

    def counting(outcomes, c, key):
        nonlocal calls
        calls += 1
        return draw(outcomes, c, key)

    star_minimax.sample_outcomes = counting
    _timed(game, states, depth, samples)
    return calls


def _timed(game: pyspiel.Game, states: list, depth: int, samples: int) -> tuple:
    try:
        nodes = 0
        start = time.perf_counter()
        for seed, state in enumerate(states):
            result = search(
                search_state(state), game, "star2", max_depth=depth, samples=samples, seed=seed
            )
            nodes += result.nodes
        elapsed = time.perf_counter() - start
    finally:
        star_minimax.sample_outcomes = search_common.sample_outcomes
    return nodes / elapsed, nodes


def draws_per_second(outcomes, samples: int, sampler: str, seconds: float = 0.5) -> float:
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
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    states = random_decision_positions(game, args.positions, seed=1)
    best = dict.fromkeys(SAMPLERS, 0.0)
    nodes = {}
    for _ in range(args.repeats):
        for sampler in SAMPLERS:
            rate, nodes[sampler] = node_rate(game, states, args.depth, args.samples, sampler)
            best[sampler] = max(best[sampler], rate)
    assert len(set(nodes.values())) == 1, nodes  # the same tree, node for node
    roll = next(s for s in (search_state(p) for p in states) if s.current_player() >= 0)
    roll = roll.clone()
    while roll.current_player() != pyspiel.PlayerId.CHANCE:
        actions = roll.legal_actions()
        roll.apply(actions[0])
    outcomes = roll.chance_outcomes()
    sampled = chance_nodes(game, states, args.depth, args.samples)
    print(
        f"{args.game}: star2ss(samples={args.samples}) depth {args.depth}, "
        f"{args.positions} positions, {nodes['bisection']:,} nodes of which {sampled:,} "
        f"sampled chance nodes, best of {args.repeats}"
    )
    for sampler in SAMPLERS:
        calls = draws_per_second(outcomes, args.samples, sampler)
        share = (sampled / calls) / (nodes[sampler] / best[sampler])
        print(
            f"  {sampler:12s} {best[sampler]:10,.0f} nodes/s   "
            f"{1e6 / calls:6.1f} us per sampled chance node ({len(outcomes)} outcomes), "
            f"{100 * share:4.1f}% of the search"
        )
    print(
        f"  node rate ratio bisection / linear scan: {best['bisection'] / best['linear scan']:.2f}"
    )


if __name__ == "__main__":
    main()
