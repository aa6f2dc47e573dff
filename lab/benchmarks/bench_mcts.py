"""Simulations per second: our `mcts` against OpenSpiel's Python and C++ MCTS, same run.

All three search with random rollouts to the end (ours: rollout_depth=none; OpenSpiel's:
RandomRolloutEvaluator with one rollout), uct_c = 2 (OpenSpiel's default), the same number of
simulations from the same positions (decision nodes of random games), solve off. Each row is
the best rate over interleaved rounds (lab/benchmarks/common.best_of), so drift on a shared
machine hits every row alike.

- python_pig and python_einstein_wurfelt_nicht: ours on the game cores against OpenSpiel's
  Python `MCTSBot` on the same pyspiel states.
- pig: OpenSpiel's C++ `MCTSBot` (through `mcts_search`) on its C++ `pig` against ours on
  python_pig(dice=1), which equals C++ pig move for move, from the same positions.

    .venv/bin/python lab/benchmarks/bench_mcts.py [--positions 6] [--simulations 400] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from common import best_of, decision_positions
from open_spiel.python.algorithms import mcts as open_spiel_mcts

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents import search_state
from chancespiel.agents.mcts import mcts_search

UCT_C = 2.0


def ours(game: pyspiel.Game, states: list[pyspiel.State], simulations: int) -> Callable:
    """Our mcts: simulations per second over `states`."""

    def run(repeat: int) -> float:
        total_sims, total_s = 0, 0.0
        for index, state in enumerate(states):
            result = mcts_search(
                search_state(state),
                game,
                uct_c=UCT_C,
                max_simulations=simulations,
                seed=1000 * repeat + index,
            )
            total_sims += result.simulations
            total_s += result.time_s
        return total_sims / total_s

    return run


def openspiel_python(game: pyspiel.Game, states: list[pyspiel.State], simulations: int):
    """OpenSpiel's Python MCTSBot: simulations per second over `states`."""

    def run(repeat: int) -> float:
        total_sims, total_s = 0, 0.0
        for index, state in enumerate(states):
            seed = 1000 * repeat + index
            bot = open_spiel_mcts.MCTSBot(
                game,
                UCT_C,
                simulations,
                open_spiel_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                solve=False,
                random_state=np.random.RandomState(seed + 1),
            )
            start = time.perf_counter()
            root = bot.mcts_search(state)
            total_s += time.perf_counter() - start
            total_sims += root.explore_count
        return total_sims / total_s

    return run


def openspiel_cpp(game: pyspiel.Game, states: list[pyspiel.State], simulations: int):
    """OpenSpiel's C++ MCTSBot through mcts_search: simulations per second over `states`."""

    def run(repeat: int) -> float:
        total_sims, total_s = 0, 0.0
        for index, state in enumerate(states):
            seed = 1000 * repeat + index
            evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
            bot = pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, 1000, False, seed, False)
            start = time.perf_counter()
            root = bot.mcts_search(state)
            total_s += time.perf_counter() - start
            total_sims += root.explore_count
        return total_sims / total_s

    return run


def compare(positions: int, simulations: int, cpp_simulations: int, repeats: int) -> None:
    """Prints our simulations per second against OpenSpiel's Python and C++ MCTSBot."""
    rows: dict[str, Callable[[int], float]] = {}
    for name in ("python_pig", "python_einstein_wurfelt_nicht"):
        game = pyspiel.load_game(name)
        states = decision_positions(game, positions, seed=1)
        rows[f"{name}: ours"] = ours(game, states, simulations)
        rows[f"{name}: OpenSpiel Python"] = openspiel_python(game, states, simulations)
    cpp_game = pyspiel.load_game("pig")
    py_game = pyspiel.load_game("python_pig(dice=1)")
    cpp_states = decision_positions(cpp_game, positions, seed=1)
    py_states = []
    for state in cpp_states:
        mirror = py_game.new_initial_state()
        for action in state.history():
            mirror.apply_action(action)
        assert str(mirror) == str(state)
        py_states.append(mirror)
    rows["pig: OpenSpiel C++ on C++ pig"] = openspiel_cpp(cpp_game, cpp_states, cpp_simulations)
    rows["pig: ours on python_pig(dice=1)"] = ours(py_game, py_states, cpp_simulations)

    best = best_of(rows, repeats)
    print(
        f"MCTS simulations per second (rollouts to the end, uct_c={UCT_C:g}, "
        f"{positions} positions, best of {repeats} interleaved rounds; "
        f"{simulations} simulations per search against Python, "
        f"{cpp_simulations} against C++)"
    )
    for name in ("python_pig", "python_einstein_wurfelt_nicht"):
        us, them = best[f"{name}: ours"], best[f"{name}: OpenSpiel Python"]
        print(
            f"  {name}: ours {us:,.0f}/s, OpenSpiel Python MCTSBot {them:,.0f}/s, "
            f"ratio {us / them:.1f}x"
        )
    us, them = best["pig: ours on python_pig(dice=1)"], best["pig: OpenSpiel C++ on C++ pig"]
    print(
        f"  pig: ours on python_pig(dice=1) {us:,.0f}/s, OpenSpiel C++ MCTSBot on C++ pig "
        f"{them:,.0f}/s, ratio {us / them:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--cpp-simulations", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    compare(args.positions, args.simulations, args.cpp_simulations, args.repeats)


if __name__ == "__main__":
    main()
