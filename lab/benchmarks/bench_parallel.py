"""Parallel efficiency of `chancespiel match`: matches per second with K workers vs 1.

The same matches (same seeds) are played by each worker count in interleaved rounds, and the
best rate of each is kept, so machine drift hits both alike. The pairing is CPU-bound
(expectimax at depth 3 against hold at 20, two-dice Pig to 100), as the issue asks. Equivalent
command lines (K = 1, then 2):

    chancespiel match python_pig "expectimax(max_depth=3)" hold --matches 40 --workers K --out f

On a shared machine other processes take cores too, so each row also shows the cores its
workers got (their CPU time over the wall time) and the matches per CPU-second (1.0 between
the rows means no parallel overhead), and a peer measured in the same rounds: the speed-up of
K plain CPU-bound processes over one, the most this machine gave at the time.

    .venv/bin/python lab/benchmarks/bench_parallel.py [--matches 40] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time

from chancespiel.evaluation.runner import RunConfig, run


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def matches_per_second(
    game: str, a: str, b: str, matches: int, workers: int
) -> tuple[float, float]:
    """Matches per second of one run (the pool's start included), and the cores it used."""
    cpu = _children_cpu()
    config = RunConfig(game, [(a, b)], matches, workers=workers, progress=False)
    result = run(config)  # the pool's workers have exited and been waited for
    assert result.played == 2 * matches
    return result.matches_per_second, (_children_cpu() - cpu) / result.seconds


def _spin(n: int) -> None:
    x = 0
    for i in range(n):
        x += i


def spins_per_second(processes: int, n: int = 5_000_000) -> float:
    """Loops of `n` additions per second done by `processes` processes at once."""
    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    jobs = [context.Process(target=_spin, args=(n,)) for _ in range(processes)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join()
    return processes / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_pig")
    parser.add_argument("--a", default="expectimax(max_depth=3)")
    parser.add_argument("--b", default="hold")
    parser.add_argument("--matches", type=int, default=40, help="matches per measurement")
    parser.add_argument("--workers", type=int, default=2, help="compared with 1 worker")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    counts = (1, args.workers)
    best = {k: (0.0, 0.0) for k in counts}
    spin = dict.fromkeys(counts, 0.0)
    for _ in range(args.repeats):
        for k in counts:
            best[k] = max(best[k], matches_per_second(args.game, args.a, args.b, args.matches, k))
            spin[k] = max(spin[k], spins_per_second(k))
    print(f"{args.game}: {args.a} vs {args.b}, {args.matches} matches, best of {args.repeats}")
    for k, (rate, cores) in best.items():
        print(
            f"  {k} worker{'s' if k > 1 else ' '}: {rate:6.2f} matches/s, {cores:.2f} cores used, "
            f"{rate / cores:6.2f} matches per CPU-second"
        )
    ours = best[args.workers][0] / best[1][0]
    machine = spin[args.workers] / spin[1]
    print(f"  speed-up of {args.workers} workers over 1: {ours:.2f}x")
    print(f"  speed-up of {args.workers} plain CPU-bound processes over 1 (peer): {machine:.2f}x")
    print(f"  parallel efficiency relative to the peer: {ours / machine:.0%}")
    per_cpu = [rate / cores for rate, cores in best.values()]
    print(f"  matches per CPU-second, {args.workers} workers over 1: {per_cpu[1] / per_cpu[0]:.2f}")


if __name__ == "__main__":
    main()
