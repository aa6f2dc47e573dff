"""Random games on the python_pig core vs OpenSpiel's C++ pig driven from Python.

Both loops are the same code over the two APIs, measured in the same run; the ratio is what
matters (absolute speeds drift on shared machines).

    .venv/bin/python lab/benchmarks/bench_pig.py [--seconds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse

import pyspiel
from common import best_of, random_steps_per_second

import chancespiel.games  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    cpp = pyspiel.load_game("pig")
    ours_one = pyspiel.load_game("python_pig(dice=1)")
    ours_two = pyspiel.load_game("python_pig")
    t = args.seconds
    rows = {
        "C++ pig via pyspiel": lambda s: random_steps_per_second(
            cpp.new_initial_state, t, s, apply="apply_action"
        ),
        "python_pig(dice=1) core": lambda s: random_steps_per_second(
            ours_one.rules.initial_core, t, s
        ),
        "python_pig(dice=2) core": lambda s: random_steps_per_second(
            ours_two.rules.initial_core, t, s
        ),
        "python_pig(dice=1) via pyspiel": lambda s: random_steps_per_second(
            ours_one.new_initial_state, t, s, apply="apply_action"
        ),
    }
    best = best_of(rows, args.repeats)
    base = best["C++ pig via pyspiel"]
    print(f"random games, steps per second (best of {args.repeats} x {args.seconds:g} s)")
    for name, rate in best.items():
        print(f"  {name:32s} {rate:12,.0f}   {rate / base:5.2f}x C++ pig")
    print(f"ratio python_pig(dice=1) core / C++ pig: {best['python_pig(dice=1) core'] / base:.2f}")


if __name__ == "__main__":
    main()
