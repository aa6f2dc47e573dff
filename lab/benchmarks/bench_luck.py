"""Games per core-hour at 200 ms per move, and matches needed for a +-3-point interval with and
without the luck correction, for one realistic pairing per game (Star2 against Star2 with
sampling, the MCMS paper's settings), measured on the committed 200 ms match records.

Each game of those records ran on one worker core at 200 ms per move, so a game's wall time
(`seconds`) is its core time: games per core-hour = 3600 / mean seconds. The matches needed
for a 95% interval of +-3 points are (1.96 sd / 0.03)^2 with sd the standard deviation of a
match's score (raw, or luck-corrected with the game's default value function).

    .venv/bin/python lab/benchmarks/bench_luck.py [--records lab/results/figure2/paper_200ms]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.evaluation.luck import luck_summary
from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.stats import Z95

HALF_WIDTH = 0.03
FILES = ("pig", "ewn", "cant_stop", "ra")


def needed(variance: float) -> int:
    """Matches for a 95% interval of +-HALF_WIDTH given one match's score variance."""
    return math.ceil((Z95 / HALF_WIDTH) ** 2 * variance)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", default="lab/results/figure2/paper_200ms")
    args = parser.parse_args()
    print(
        f"{'game':<10} {'pairing':<48} {'games/core-h':>12} {'matches':>7} "
        f"{'var raw':>8} {'var corr':>8} {'ratio':>6} {'need raw':>8} {'need corr':>9} value"
    )
    for name in FILES:
        path = Path(args.records) / f"{name}.jsonl"
        records = read_records(path)
        pair = next((r["a"], r["b"]) for r in records if r["a"].startswith("star2ss"))
        ours = [r for r in records if (r["a"], r["b"]) == pair]
        seconds = [r["seconds"] for r in ours if r["error"] is None]
        per_hour = 3600 / (sum(seconds) / len(seconds))
        luck = luck_summary(ours)
        print(
            f"{name:<10} {pair[0][:23] + ' v ' + pair[1][:22]:<48} {per_hour:>12.0f} "
            f"{luck.matches:>7} {luck.raw.variance:>8.4f} {luck.corrected.variance:>8.4f} "
            f"{luck.variance_ratio:>6.2f} {needed(luck.raw.variance):>8} "
            f"{needed(luck.corrected.variance):>9} {luck.value}"
        )


if __name__ == "__main__":
    main()
