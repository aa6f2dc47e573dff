"""Random games on the python_einstein_wurfelt_nicht core vs OpenSpiel's C++ game from Python.

Both loops are the same code over the two APIs (`common.random_steps_per_second`), measured in
the same run in interleaved rounds; the ratio is what matters. Every applied action counts as a
step, chance outcomes included.

Two measurements. Whole games is the headline. In the play phase, the two 720-way setup
outcomes are applied before timing starts for each game's moves (with a random permutation, not
by listing chance_outcomes()); listing 720 (id, probability) pairs through pybind is a large
part of the C++ game's cost per game, so this second ratio isolates the move loop.

    .venv/bin/python lab/benchmarks/bench_einstein.py [--seconds 1] [--repeats 2]   # about 10 s
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

import pyspiel
from common import best_of, random_steps_per_second

import chancespiel.games  # noqa: F401


def _set_up(make: Callable[[], object], apply: str, seed: int) -> Callable[[], object]:
    """`make` followed by two random setup outcomes (the play phase starts at a roll)."""
    rng = random.Random(seed)

    def made() -> object:
        state = make()
        do = getattr(state, apply)
        do(rng.randrange(720))
        do(rng.randrange(720))
        return state

    return made


def compare(seconds: float, repeats: int) -> None:
    """Prints random-play steps per second of our core and the C++ game, and their ratio."""
    cpp = pyspiel.load_game("einstein_wurfelt_nicht")
    ours = pyspiel.load_game("python_einstein_wurfelt_nicht")
    t = seconds
    cpp_whole, ours_whole = "C++ via pyspiel, whole games", "core, whole games"
    cpp_play, ours_play = "C++ via pyspiel, play phase", "core, play phase"
    rows = {
        cpp_whole: lambda s: random_steps_per_second(
            cpp.new_initial_state, t, s, apply="apply_action"
        ),
        ours_whole: lambda s: random_steps_per_second(ours.rules.initial_core, t, s),
        "core via pyspiel, whole games": lambda s: random_steps_per_second(
            ours.new_initial_state, t, s, apply="apply_action"
        ),
        cpp_play: lambda s: random_steps_per_second(
            _set_up(cpp.new_initial_state, "apply_action", s), t, s, apply="apply_action"
        ),
        ours_play: lambda s: random_steps_per_second(
            _set_up(ours.rules.initial_core, "apply", s), t, s
        ),
    }
    best = best_of(rows, repeats)
    print(f"random games, steps per second (best of {repeats} x {seconds:g} s)")
    for name, rate in best.items():
        base = best[cpp_play if "play" in name else cpp_whole]
        print(f"  {name:32s} {rate:12,.0f}   {rate / base:5.2f}x C++")
    print(
        f"ratio python_einstein_wurfelt_nicht core / C++: {best[ours_whole] / best[cpp_whole]:.2f}"
        f" whole games, {best[ours_play] / best[cpp_play]:.2f} play phase"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    compare(args.seconds, args.repeats)


if __name__ == "__main__":
    main()
