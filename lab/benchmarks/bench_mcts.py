"""Simulations per second: our `mcts` against OpenSpiel's Python and C++ MCTS, same run.

All three search with random rollouts to the end (ours: rollout_depth=none; OpenSpiel's:
RandomRolloutEvaluator with one rollout), uct_c = 2 (OpenSpiel's default), the same number of
simulations from the same positions (decision nodes of random games), solve off. Rates are
per CPU second of this process. Each row is the best rate over interleaved rounds
(lab/benchmarks/common.best_of), so drift on a shared machine hits every row alike.

- python_pig and python_einstein_wurfelt_nicht: ours on the game cores against OpenSpiel's
  Python `MCTSBot` on the same pyspiel states.
- pig and einstein_wurfelt_nicht: OpenSpiel's C++ `MCTSBot` (through `mcts_search`) on its
  C++ game against ours on the game that equals it move for move (python_pig(dice=1),
  python_einstein_wurfelt_nicht), from the same positions.

    .venv/bin/python lab/benchmarks/bench_mcts.py [--positions 6] [--simulations 400] [--repeats 3]
    .venv/bin/python lab/benchmarks/bench_mcts.py --cpp-only   # only the rows against C++
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
# CPU seconds of this process: on a shared machine the wall clock also counts the time other
# processes hold the core.
CLOCK = time.process_time


def per_cpu_second(
    states: list[pyspiel.State], prepare: Callable[[int, pyspiel.State], Callable[[], int]]
) -> Callable[[int], float]:
    """A round of `best_of`: simulations per CPU second over `states`, where
    `prepare(seed, state)` builds a bot (not timed) and returns its search, which returns the
    simulations it ran (timed)."""

    def run(repeat: int) -> float:
        total_sims, total_s = 0, 0.0
        for index, state in enumerate(states):
            search = prepare(1000 * repeat + index, state)
            start = CLOCK()
            total_sims += search()
            total_s += CLOCK() - start
        return total_sims / total_s

    return run


def ours(game: pyspiel.Game, states: list[pyspiel.State], simulations: int) -> Callable:
    """Our mcts: simulations per second over `states`."""

    def prepare(seed: int, state: pyspiel.State) -> Callable[[], int]:
        core = search_state(state)
        return lambda: (
            mcts_search(core, game, uct_c=UCT_C, max_simulations=simulations, seed=seed).simulations
        )

    return per_cpu_second(states, prepare)


def openspiel_python(game: pyspiel.Game, states: list[pyspiel.State], simulations: int):
    """OpenSpiel's Python MCTSBot: simulations per second over `states`."""

    def prepare(seed: int, state: pyspiel.State) -> Callable[[], int]:
        bot = open_spiel_mcts.MCTSBot(
            game,
            UCT_C,
            simulations,
            open_spiel_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
            solve=False,
            random_state=np.random.RandomState(seed + 1),
        )
        return lambda: bot.mcts_search(state).explore_count

    return per_cpu_second(states, prepare)


def openspiel_cpp(game: pyspiel.Game, states: list[pyspiel.State], simulations: int):
    """OpenSpiel's C++ MCTSBot through mcts_search: simulations per second over `states`."""

    def prepare(seed: int, state: pyspiel.State) -> Callable[[], int]:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, 1000, False, seed, False)
        return lambda: bot.mcts_search(state).explore_count

    return per_cpu_second(states, prepare)


# OpenSpiel's C++ games and ours that equal them move for move
CPP_PAIRS = (
    ("pig", "python_pig(dice=1)"),
    ("einstein_wurfelt_nicht", "python_einstein_wurfelt_nicht"),
)


def same_positions(cpp_game: pyspiel.Game, game: pyspiel.Game, positions: int) -> tuple[list, list]:
    """Decision nodes of random games of `cpp_game`, and the same nodes of `game` (the C++
    histories replayed)."""
    cpp_states = decision_positions(cpp_game, positions, seed=1)
    states = []
    for state in cpp_states:
        mirror = game.new_initial_state()
        for action in state.history():
            mirror.apply_action(action)
        assert mirror.legal_actions() == state.legal_actions()
        states.append(mirror)
    return cpp_states, states


def compare(
    positions: int, simulations: int, cpp_simulations: int, repeats: int, cpp_only: bool = False
) -> None:
    """Prints our simulations per second against OpenSpiel's Python and C++ MCTSBot."""
    rows: dict[str, Callable[[int], float]] = {}
    python_games = () if cpp_only else ("python_pig", "python_einstein_wurfelt_nicht")
    for name in python_games:
        game = pyspiel.load_game(name)
        states = decision_positions(game, positions, seed=1)
        rows[f"{name}: ours"] = ours(game, states, simulations)
        rows[f"{name}: OpenSpiel Python"] = openspiel_python(game, states, simulations)
    for cpp_name, name in CPP_PAIRS:
        cpp_game, game = pyspiel.load_game(cpp_name), pyspiel.load_game(name)
        cpp_states, states = same_positions(cpp_game, game, positions)
        rows[f"{cpp_name}: OpenSpiel C++"] = openspiel_cpp(cpp_game, cpp_states, cpp_simulations)
        rows[f"{cpp_name}: ours"] = ours(game, states, cpp_simulations)

    best = best_of(rows, repeats)
    print(
        f"MCTS simulations per second (rollouts to the end, uct_c={UCT_C:g}, "
        f"{positions} positions, best of {repeats} interleaved rounds; "
        f"{simulations} simulations per search against Python, "
        f"{cpp_simulations} against C++)"
    )
    for name in python_games:
        us, them = best[f"{name}: ours"], best[f"{name}: OpenSpiel Python"]
        print(
            f"  {name}: ours {us:,.0f}/s, OpenSpiel Python MCTSBot {them:,.0f}/s, "
            f"ratio {us / them:.1f}x"
        )
    for cpp_name, name in CPP_PAIRS:
        us, them = best[f"{cpp_name}: ours"], best[f"{cpp_name}: OpenSpiel C++"]
        print(
            f"  {cpp_name}: ours on {name} {us:,.0f}/s, OpenSpiel C++ MCTSBot on C++ {cpp_name} "
            f"{them:,.0f}/s, ratio {us / them:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--cpp-simulations", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--cpp-only", action="store_true", help="only the rows against OpenSpiel's C++ MCTSBot"
    )
    args = parser.parse_args()
    compare(args.positions, args.simulations, args.cpp_simulations, args.repeats, args.cpp_only)


if __name__ == "__main__":
    main()
