"""Startup of each everyday command, as seconds over `import pyspiel, chancespiel.games` measured
in the same run (the machine is shared: rounds are interleaved and the best of each is kept).

    .venv/bin/python lab/benchmarks/bench_startup.py [--repeats 7]

Each command does the least real work it can (`--help`, or a tiny game), so what is measured
is what it imports.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"
BARE = [sys.executable, "-c", "import pyspiel, chancespiel.games"]
CLI = [sys.executable, "-m", "chancespiel"]
COMMANDS = {
    "--help": ["--help"],
    "games": ["games"],
    "agents": ["agents"],
    "play": ["play", "python_pig(winscore=10)", "random", "random", "--seed", "1"],
    "analyse": ["analyse", "python_pig(winscore=10)", "--agent", "star2(max_depth=1)"],
    "match": ["match", "python_pig(winscore=5)", "random", "hold", "--matches", "1", "--out"],
    "report": ["report", str(RECORDS)],
    "experiment --help": ["experiment", "--help"],
}


def seconds(argv: list[str]) -> float:
    """Wall-clock seconds of one run of `argv` (its output discarded)."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    best = {name: float("inf") for name in ["bare", *COMMANDS]}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.repeats):
            best["bare"] = min(best["bare"], seconds(BARE))
            for name, words in COMMANDS.items():
                if name == "match":  # a new record file each round: match resumes otherwise
                    words = [*words, str(Path(scratch) / f"m{time.monotonic_ns()}.jsonl")]
                best[name] = min(best[name], seconds(CLI + words))
    load = os.getloadavg()[0]
    print(f"import pyspiel, chancespiel.games: {best['bare']:.3f} s (load {load:.1f})")
    for name in COMMANDS:
        print(f"  chancespiel {name:<18} +{best[name] - best['bare']:.3f} s")


if __name__ == "__main__":
    main()
