"""Chance sampling inside star2ss: the cost of one sampled chance node and its share of a search.

The search runs `search_core.sample_outcomes` (bisection in cached cumulative tables, compiled
with the engine); the linear scan it replaced (`search_common.sample_outcomes_linear`, which
draws the same outcomes) is timed per call beside it. The share of the search is
(sampled chance nodes x time per call) / search time.

    .venv/bin/python lab/benchmarks/bench_sampling.py [--positions 100] [--depth 3] [--samples 25]

With `--agents`, instead: the node rate per CPU second of each agent spec (e.g.
`expss(samples=1)`), each searching `--positions` positions at `--max-nodes` nodes with
seed 1, as the agents run in a match (their own defaults):

    .venv/bin/python lab/benchmarks/bench_sampling.py --game python_einstein_wurfelt_nicht \
        --positions 6 --agents 'expss(samples=1)' 'exphs(samples=2)'
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import pyspiel

from chancespiel.agents import search_state
from chancespiel.agents.registry import build_bot, parse_spec, resolve
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


def agent_rate(game: pyspiel.Game, states: list, spec: str, max_nodes: int) -> float:
    """Nodes per CPU second of the agent `spec` searching every state at `max_nodes` nodes."""
    name, given = parse_spec(spec)
    info, params = resolve(name, {**given, "max_nodes": max_nodes, "seed": 1})
    nodes = 0
    seconds = 0.0
    for state in states:
        bot = build_bot(info, params, game, state.current_player(), None)
        start = time.thread_time()
        nodes += bot.analyse(state).nodes
        seconds += time.thread_time() - start
    return nodes / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_cant_stop")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--agents", nargs="+", help="node rates of these agent specs instead")
    parser.add_argument("--max-nodes", type=int, default=300_000)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    states = random_decision_positions(game, args.positions, seed=1)
    if args.agents:
        print(f"{args.game}: {args.positions} positions at {args.max_nodes:,} nodes, {describe()}")
        for spec in args.agents:
            rate = agent_rate(game, states, spec, args.max_nodes)
            print(f"  {spec:22s} {rate:12,.0f} nodes per CPU second")
        return
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
