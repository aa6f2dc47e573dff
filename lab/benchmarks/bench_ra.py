"""Random games of python_ra: on the core, through the pyspiel API, and a C++ yardstick.

All rows run the same loop (`common.random_steps_per_second`: uniformly random decisions, tile
draws by their probabilities) in interleaved rounds; the best round of each row is kept. A step
is any applied action, chance outcomes included. OpenSpiel has no Ra, so the ratios that matter
are the core against the same rules through pyspiel.State, and each row against OpenSpiel's C++
`pig` driven from Python (a fixed yardstick that absorbs the drift of shared machines).

    .venv/bin/python lab/benchmarks/bench_ra.py [--seconds 1] [--repeats 2] [--game python_ra]
"""

from __future__ import annotations

import argparse

import pyspiel
from common import best_of, random_steps_per_second

import chancespiel.games  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_ra", help="game string")
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    ours = pyspiel.load_game(args.game)
    yardstick = pyspiel.load_game("pig")
    t = args.seconds
    totals: dict[str, list[float]] = {}  # games and steps over all rounds, per row

    def run(name: str, make: object, apply: str, seed: int) -> float:
        counts: dict[str, float] = {}
        rate = random_steps_per_second(make, t, seed, apply=apply, counts=counts)
        games, steps = totals.setdefault(name, [0, 0])
        totals[name] = [games + counts["games"], steps + counts["steps"]]
        return rate

    core, api, cpp = "python_ra core", "python_ra via pyspiel", "C++ pig via pyspiel"
    rows = {
        core: lambda s: run(core, ours.rules.initial_core, "apply", s),
        api: lambda s: run(api, ours.new_initial_state, "apply_action", s),
        cpp: lambda s: run(cpp, yardstick.new_initial_state, "apply_action", s),
    }
    best = best_of(rows, args.repeats)
    print(f"{args.game}: random games (best of {args.repeats} x {args.seconds:g} s)")
    for name, rate in best.items():
        games, steps = totals[name]
        per_game = steps / games if games else float("nan")
        print(
            f"  {name:24s} {rate:11,.0f} steps/s {rate / per_game:9,.1f} games/s"
            f"  ({per_game:.0f} steps/game)   {rate / best[cpp]:5.2f}x C++ pig steps/s"
        )
    print(f"ratio core / pyspiel API (steps per second): {best[core] / best[api]:.2f}")


if __name__ == "__main__":
    main()
