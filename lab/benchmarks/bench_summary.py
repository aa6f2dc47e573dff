"""Search speed of every game, as ratios to OpenSpiel's C++ pig random play in the same run.

    make bench                                                   # about 3 minutes
    .venv/bin/python lab/benchmarks/bench_summary.py [--time-ms 1000] [--positions 2] [--repeats 3]
    .venv/bin/python lab/benchmarks/bench_summary.py --games python_cant_stop --no-peers

Per game (python_pig, python_einstein_wurfelt_nicht, python_cant_stop, python_ra):

- star2: nodes per second of classic Star2 (samples=None), iterative deepening for `--time-ms`
  per search (the last iteration is cut off by the clock, as in play);
- mcts(rd=10) and mcts(end): simulations per second of our MCTS with rollout_depth=10 and with
  random rollouts to the end (uct_c=1, the default), `--time-ms` per search;
- random: steps (every applied action, chance outcomes included) per second of uniformly
  random games on the game core.

Each rate is summed over `--positions` decision positions of seeded random play, and the best
of `--repeats` interleaved rounds is kept; every round also measures the yardstick, random
games of OpenSpiel's C++ `pig` through pyspiel (lab/benchmarks/common.random_steps_per_second), and
every rate is printed divided by the yardstick's best rate. Rates are per CPU second of this
process (time.process_time), and searches stop on their thread's CPU time (clock=cpu): on a
shared machine the wall clock also counts the time other processes hold the core. Absolute rates
drift; the ratios are what to compare across runs.

Then, unless `--no-peers`, the ratios to OpenSpiel's own algorithms (smaller budgets than the
dedicated scripts bench_mcts.py, bench_expectimax.py, bench_einstein.py): our MCTS against
OpenSpiel's Python MCTSBot (python_pig, python_einstein_wurfelt_nicht) and C++ MCTSBot (C++ pig
against python_pig(dice=1)), our expectimax against OpenSpiel's expectiminimax, and random play
on our EWN core against the C++ einstein_wurfelt_nicht.
"""

from __future__ import annotations

import argparse
import inspect
import time
from collections.abc import Callable
from typing import Any

import pyspiel
from common import best_of, decision_positions, random_steps_per_second

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.star_minimax import search

# Searches stop on the CPU time of their thread, so that the work a budget buys does not depend
# on the machine's load; a library from before the `clock` parameter stops on the wall clock.
CPU_CLOCK = {"clock": "cpu"} if "clock" in inspect.signature(search).parameters else {}

GAMES = ("python_pig", "python_einstein_wurfelt_nicht", "python_cant_stop", "python_ra")
YARDSTICK = "C++ pig random"
AGENTS = ("star2", "mcts(rd=10)", "mcts(end)", "random")


def star2_rate(game: pyspiel.Game, positions: list[Any], time_ms: float) -> Callable[[int], float]:
    """Nodes per second of classic Star2 over `positions`, `time_ms` per search."""

    def run(repeat: int) -> float:
        nodes, seconds = 0, 0.0
        for core in positions:
            start = time.process_time()
            result = search(core.clone(), game, "star2", time_ms=time_ms, **CPU_CLOCK)
            seconds += time.process_time() - start
            nodes += result.nodes
        return nodes / seconds

    return run


def mcts_rate(
    game: pyspiel.Game, positions: list[Any], time_ms: float, rollout_depth: int | None
) -> Callable[[int], float]:
    """Simulations per second of our MCTS over `positions`, `time_ms` per search."""

    def run(repeat: int) -> float:
        simulations, seconds = 0, 0.0
        for index, core in enumerate(positions):
            start = time.process_time()
            result = mcts_search(
                core.clone(),
                game,
                rollout_depth=rollout_depth,
                time_ms=time_ms,
                seed=1000 * repeat + index,
                keep_tree=False,  # as a bot's move: the tree freed before the collector resumes
                **CPU_CLOCK,
            )
            seconds += time.process_time() - start
            simulations += result.simulations
        return simulations / seconds

    return run


def summary(games: list[str], time_ms: float, positions: int, repeats: int, seconds: float):
    """Prints the per-game table of rates and their ratios to the yardstick."""
    cpp_pig = pyspiel.load_game("pig")
    rows: dict[str, Callable[[int], float]] = {
        YARDSTICK: lambda s: random_steps_per_second(
            cpp_pig.new_initial_state, seconds, s, apply="apply_action", clock=time.process_time
        )
    }
    for name in games:
        game = pyspiel.load_game(name)
        states = [s.core for s in decision_positions(game, positions, seed=1, choice=True)]
        rows[f"{name} star2"] = star2_rate(game, states, time_ms)
        rows[f"{name} mcts(rd=10)"] = mcts_rate(game, states, time_ms, 10)
        rows[f"{name} mcts(end)"] = mcts_rate(game, states, time_ms, None)
        rows[f"{name} random"] = lambda s, g=game: random_steps_per_second(
            g.rules.initial_core, seconds, s, clock=time.process_time
        )
    start = time.perf_counter()
    best = best_of(rows, repeats)
    base = best[YARDSTICK]
    print(
        f"Search speed per game as a ratio to C++ pig random play ({base:,.0f} steps per CPU s), "
        f"best of "
        f"{repeats} interleaved rounds, {positions} positions x {time_ms:g} ms per search "
        f"({time.perf_counter() - start:.0f} s)"
    )
    print(f"  {'game':32s}" + "".join(f"{agent:>13s}" for agent in AGENTS))
    for name in games:
        ratios = "".join(f"{best[f'{name} {agent}'] / base:13.4f}" for agent in AGENTS)
        print(f"  {name:32s}{ratios}")
    print("  rates per CPU second (star2: nodes, mcts: simulations, random: steps)")
    for name in games:
        rates = "".join(f"{best[f'{name} {agent}']:13,.0f}" for agent in AGENTS)
        print(f"  {name:32s}{rates}")


def peers(repeats: int) -> None:
    """The ratios to OpenSpiel's own algorithms, from the dedicated scripts, smaller budgets."""
    import bench_einstein
    import bench_expectimax
    import bench_mcts

    print("\nAgainst OpenSpiel's own algorithms:")
    bench_mcts.compare(positions=3, simulations=300, cpp_simulations=2000, repeats=repeats)
    bench_expectimax.compare("python_pig", 8, 3)
    bench_expectimax.compare("python_pig(dice=1)", 8, 4)
    bench_einstein.compare(seconds=0.5, repeats=repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), help="game strings")
    parser.add_argument("--time-ms", type=float, default=1000.0, help="per search")
    parser.add_argument("--positions", type=int, default=2, help="searches per row and round")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (best kept)")
    parser.add_argument("--seconds", type=float, default=1.0, help="per random-play row")
    parser.add_argument("--no-peers", action="store_true", help="skip the OpenSpiel comparisons")
    args = parser.parse_args()
    summary(args.games, args.time_ms, args.positions, args.repeats, args.seconds)
    if not args.no_peers:
        peers(args.repeats)


if __name__ == "__main__":
    main()
