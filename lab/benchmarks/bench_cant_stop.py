"""Speed of python_cant_stop: uniformly random games on the core and through pyspiel.State.

    .venv/bin/python lab/benchmarks/bench_cant_stop.py                    # ~10 s
    .venv/bin/python lab/benchmarks/bench_cant_stop.py --seconds 10 \
        --game "python_cant_stop(sides=4)"

Both loops play the same kind of game (random legal actions, chance outcomes drawn by their
probabilities) for a fixed wall-clock budget and count finished games and steps (every applied
action or chance outcome). The pyspiel loop is the reference measured in the same run; the
ratio is what to compare across machines.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

import pyspiel

import chancespiel.games  # noqa: F401  (registers python_cant_stop)
from chancespiel.games._adapter import CHANCE


def core_games(game: pyspiel.Game, seconds: float, seed: int) -> tuple[int, int, float]:
    """(games, steps, elapsed) of random games on the core for about `seconds`."""
    rng = random.Random(seed)
    rules = game.rules
    ids = [o for o, _ in rules.outcomes]
    cum = list(itertools.accumulate(p for _, p in rules.outcomes))
    games = steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        core = rules.initial_core()
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                core.apply(rng.choices(ids, cum_weights=cum)[0])
            else:
                core.apply(rng.choice(core.legal_actions()))
            steps += 1
        games += 1
    return games, steps, time.perf_counter() - start


def pyspiel_games(game: pyspiel.Game, seconds: float, seed: int) -> tuple[int, int, float]:
    """(games, steps, elapsed) of the same loop through the pyspiel.State API."""
    rng = random.Random(seed)
    games = steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                ids = [o for o, _ in outcomes]
                state.apply_action(rng.choices(ids, [p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        games += 1
    return games, steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="python_cant_stop", help="game string")
    parser.add_argument("--seconds", type=float, default=4.5, help="budget per loop")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    results = {}
    for name, loop in (("core", core_games), ("pyspiel.State", pyspiel_games)):
        games, steps, elapsed = loop(game, args.seconds, args.seed)
        results[name] = (games / elapsed, steps / elapsed)
        print(
            f"{name:<14} {games / elapsed:9.1f} games/s {steps / elapsed:11.0f} steps/s "
            f"({games} games, {steps / games:.0f} steps/game, {elapsed:.1f} s)"
        )
    ratio = results["core"][1] / results["pyspiel.State"][1]
    print(f"core / pyspiel.State steps per second: {ratio:.1f}x  ({args.game})")


if __name__ == "__main__":
    main()
