"""Random-game speed of our EWN core against OpenSpiel's C++ game driven from Python.

Both loops are the same code over each API (current player, chance outcomes or legal actions,
apply), with the same sampler, and count every applied action, chance outcomes included. They
run in alternating rounds in one process so that machine load drifts hit both alike. For
reference it also times our game through the pyspiel.State API (the adapter).

Two measurements: whole games (the headline figure), and the play phase alone, where the two
720-way setup outcomes are drawn with randrange instead of listing chance_outcomes(). Listing
720 (id, probability) pairs through pybind is a large part of the C++ game's cost per game, so
the second ratio shows the speed of the move loop by itself.

    .venv/bin/python benchmarks/bench_einstein.py               # about 10 s
    .venv/bin/python benchmarks/bench_einstein.py --seconds 30
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

import pyspiel

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.games.einstein import CHANCE, EinsteinRules


def _sample(outcomes: Sequence[tuple[int, float]], rng: random.Random) -> int:
    """A chance outcome drawn by its probability (the same code for every contestant)."""
    r = rng.random()
    for action, prob in outcomes:
        r -= prob
        if r < 0:
            return action
    return outcomes[-1][0]


def play_core(rules: EinsteinRules, rng: random.Random, list_setup: bool = True) -> int:
    """One random game on our core; returns the number of actions applied."""
    core = rules.initial_core()
    steps = 0
    if not list_setup:
        core.apply(rng.randrange(720))
        core.apply(rng.randrange(720))
        steps = 2
    while not core.is_terminal():
        if core.current_player() == CHANCE:
            action = _sample(core.chance_outcomes(), rng)
        else:
            action = rng.choice(core.legal_actions())
        core.apply(action)
        steps += 1
    return steps


def play_pyspiel(game: pyspiel.Game, rng: random.Random, list_setup: bool = True) -> int:
    """One random game through the pyspiel.State API; returns the number of actions applied."""
    state = game.new_initial_state()
    steps = 0
    if not list_setup:
        state.apply_action(rng.randrange(720))
        state.apply_action(rng.randrange(720))
        steps = 2
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            action = _sample(state.chance_outcomes(), rng)
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        steps += 1
    return steps


def _timed(play: Callable[[random.Random], int], rng: random.Random, seconds: float) -> tuple:
    """(steps, games, elapsed) of whole games played for about `seconds`."""
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += play(rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, games, elapsed


def _compare(
    contestants: dict[str, Callable[[random.Random], int]],
    shares: dict[str, float],
    seconds: float,
    rounds: int,
    seed: int,
) -> dict[str, float]:
    """Steps/s of each contestant, timed in `rounds` alternations; prints a line for each."""
    totals = {name: [0, 0, 0.0] for name in contestants}
    rng = random.Random(seed)
    for _ in range(rounds):
        for name, play in contestants.items():
            steps, games, elapsed = _timed(play, rng, seconds * shares[name] / rounds)
            total = totals[name]
            total[0] += steps
            total[1] += games
            total[2] += elapsed
    rates = {}
    for name, (steps, games, elapsed) in totals.items():
        rates[name] = steps / elapsed
        print(
            f"  {name:28s} {rates[name]:9.0f} steps/s {games / elapsed:7.0f} games/s"
            f"  ({games} games, {steps / games:.1f} steps/game)"
        )
    return rates


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the benchmark and prints steps/s of each contestant and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="total time (default 10)")
    parser.add_argument("--rounds", type=int, default=5, help="alternations (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rules = EinsteinRules()
    cpp_game = pyspiel.load_game("einstein_wurfelt_nicht")
    ours_game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    ours, cpp, adapter = "ours (core)", "C++ einstein_wurfelt_nicht", "ours (pyspiel.State API)"

    print("whole random games:")
    rates = _compare(
        {
            ours: lambda rng: play_core(rules, rng),
            cpp: lambda rng: play_pyspiel(cpp_game, rng),
            adapter: lambda rng: play_pyspiel(ours_game, rng),
        },
        # The adapter gets a smaller share: it is for reference, not the comparison.
        {ours: 0.3, cpp: 0.3, adapter: 0.1},
        args.seconds,
        args.rounds,
        args.seed,
    )
    whole = rates[ours] / rates[cpp]
    print("play phase (setup outcomes drawn without listing them):")
    rates = _compare(
        {
            ours: lambda rng: play_core(rules, rng, list_setup=False),
            cpp: lambda rng: play_pyspiel(cpp_game, rng, list_setup=False),
        },
        {ours: 0.15, cpp: 0.15},
        args.seconds,
        args.rounds,
        args.seed,
    )
    play = rates[ours] / rates[cpp]
    print(f"ratio ours (core) / C++: {whole:.2f}x whole games, {play:.2f}x play phase")


if __name__ == "__main__":
    main()
