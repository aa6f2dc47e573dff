"""A match on a two-node Ray cluster on loopback whose worker node dies mid-match (slow).

The head and the worker node run on this machine, bound to 127.0.0.1, with their own temp
directory; the test kills the worker node's raylet once a few games are written, lets the run
finish (Ray retries the lost tasks on the head), resumes it, and checks that the file holds
every game exactly once and no game lost by the infrastructure. Every process it started is
ended by its id.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chancespiel.evaluation.match import is_lost, unique_records

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
PORT = 6391
GAME = "python_pig(winscore=50)"
A, B = "expectimax(max_depth=3)", "hold(n=20)"
MATCHES = 30


# a throwaway cluster on loopback: no token (Ray's token authentication is for real clusters)
ENV = {**os.environ, "RAY_ADDRESS": "", "RAY_AUTH_MODE": "disabled"}


def _ray(*args: str, temp: Path) -> None:
    subprocess.run(
        [str(BIN / "ray"), "start", *args, "--temp-dir", str(temp), "--disable-usage-stats"],
        check=True,
        capture_output=True,
        env=ENV,
    )


def _our_pids(temp: Path) -> dict[int, str]:
    """The processes whose command line names our temp directory, with their command lines."""
    pids = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if str(temp) in cmdline and int(entry.name) != os.getpid():
                pids[int(entry.name)] = cmdline
    return pids


def _match(out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            *(str(BIN / "chancespiel"), "match", GAME, A, B, "--matches", str(MATCHES)),
            *("--backend", "ray", "--address", f"127.0.0.1:{PORT}", "--out", str(out)),
            "--no-progress",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=ENV,
    )


def test_a_dead_worker_node_loses_no_game(tmp_path: Path) -> None:
    pytest.importorskip("ray")  # here, not at collection: importing ray changes the process
    temp = Path("/tmp") / f"cs_ray_{os.getpid()}"  # short: Ray's socket paths have a limit
    out = tmp_path / "m.jsonl"
    try:
        _ray(
            "--head",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(PORT),
            "--num-cpus",
            "1",
            "--include-dashboard",
            "false",
            temp=temp,
        )
        head_raylets = {p for p, c in _our_pids(temp).items() if "raylet" in c.split()[0]}
        _ray(
            "--address",
            f"127.0.0.1:{PORT}",
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "1",
            temp=temp,
        )
        worker_raylets = {
            p for p, c in _our_pids(temp).items() if "raylet" in c.split()[0]
        } - head_raylets
        assert len(worker_raylets) == 1
        run = _match(out)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if out.exists() and out.read_text().count("\n") >= 6:
                break
            time.sleep(0.2)
        for pid in worker_raylets:
            os.kill(pid, signal.SIGKILL)
        text, _ = run.communicate(timeout=600)
        assert run.returncode == 0, text
        again = _match(out)
        text2, _ = again.communicate(timeout=600)
        assert again.returncode == 0, text2
        records = [json.loads(line) for line in out.read_text().splitlines()]
        unique, repeats = unique_records(records)
        lost = sum(is_lost(r) for r in records)
        keys = {(r["match"], r["game_index"]) for r in unique}
        print(f"records {len(records)}, lost {lost}, repeats {repeats}, games {len(keys)}")
        assert len(unique) == len(keys) == 2 * MATCHES
        assert not any(is_lost(r) for r in unique)
        assert all(r["error"] is None for r in unique)
    finally:
        for pid in _our_pids(temp):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
