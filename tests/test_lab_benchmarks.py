"""The lab's benchmark tools: bad arguments are one-line errors, and a small run reports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TRIALS = Path(__file__).parent.parent / "lab" / "benchmarks" / "classic_trials.py"


def _trials(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TRIALS), *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--positions", "0"], "--positions: must be >= 1"),
        (["--nodes", "-5"], "--nodes: must be >= 1"),
        (["--samples", "1"], "--samples: must be >= 2"),
        (["--on", "max_depth"], "--on max_depth: not an option of star1hs that is off by default"),
        (["--on", "bogus"], "--on bogus: not an option"),
        (["--on", "first_cap_two_back"], "not an option of star1hs that is off by default"),
        (["--off", "max_depth"], "--off max_depth: not an option of star1hs that is on by"),
        (["--off", "classic_within_ply"], "set first_cap_two_back=false too"),
        (["--algorithm", "expectimax", "--on", "first_cap_two_back"], "needs classic_within_ply"),
        (["--game", "nosuch"], "unknown game 'nosuch'"),
    ],
)
def test_classic_trials_refuses_bad_arguments_in_one_line(args, message):
    done = _trials(*args)
    error = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and message in error, done.stderr
    assert "Traceback" not in done.stderr and not done.stdout


def test_classic_trials_reports_the_given_up_share_and_depths():
    done = _trials("--positions", "2", "--nodes", "20000", "--off", "first_cap_two_back")
    assert done.returncode == 0, done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("star1 -first_cap_two_back on python_cant_stop(ordered_dice=true)")
    assert "2 positions at 20,000 nodes: mean depth hybrid " in summary
    assert summary.endswith("of the nodes")
