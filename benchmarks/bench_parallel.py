"""Parallel efficiency of `chancespiel match`: matches per second with K workers vs 1.

The same matches (same seeds) are played by each worker count in interleaved rounds, and the
best rate of each is kept, so machine drift hits both alike. The pairing is CPU-bound
(expectimax at depth 3 against hold at 20, two-dice Pig to 100), as the issue asks. The
equivalent command lines (K = 1, then 2):

    chancespiel match python_pig "expectimax(max_depth=3)" hold --matches 40 --workers K --out f

    .venv/bin/python benchmarks/bench_parallel.py [--matches 40] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse

from common import best_of

from chancespiel.evaluation.runner import RunConfig, run


def matches_per_second(game: str, a: str, b: str, matches: int, workers: int) -> float:
    """Matches per second of one run (records kept in memory; the pool's start included)."""
    config = RunConfig(game, [(a, b)], matches, workers=workers, progress=False)
    result = run(config)
    assert result.played == 2 * matches
    return result.matches_per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_pig")
    parser.add_argument("--a", default="expectimax(max_depth=3)")
    parser.add_argument("--b", default="hold")
    parser.add_argument("--matches", type=int, default=40, help="matches per measurement")
    parser.add_argument("--workers", type=int, default=2, help="compared with 1 worker")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    rows = {
        f"{k} worker{'s' if k > 1 else ''}": (
            lambda _, k=k: matches_per_second(args.game, args.a, args.b, args.matches, k)
        )
        for k in (1, args.workers)
    }
    best = best_of(rows, args.repeats)
    print(f"{args.game}: {args.a} vs {args.b}, {args.matches} matches, best of {args.repeats}")
    for name, rate in best.items():
        print(f"  {name:>10}: {rate:6.2f} matches/s")
    one, many = best.values()
    print(f"  parallel speed-up with {args.workers} workers: {many / one:.2f}x")


if __name__ == "__main__":
    main()
