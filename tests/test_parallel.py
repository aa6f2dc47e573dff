"""Executors: the local pool directly, and the Ray backend against the local one."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import faulty_agents  # noqa: F401  (registers the test_* agents that fail on purpose)
import pytest

from chancespiel.evaluation.match import GameTask, play_task, read_records
from chancespiel.evaluation.parallel import (
    KILL_GRACE_S,
    BackendError,
    LocalPool,
    check_reachable,
    make_executor,
)
from chancespiel.evaluation.runner import RunConfig, run

GAME = "python_pig(winscore=20)"
SEARCHER = "expectimax(max_depth=2)"
SAME = ("a", "b", "match", "game_index", "seats", "returns", "history", "nodes", "error")


def _comparable(records: list[dict]) -> list[dict]:
    rows = [{k: r[k] for k in SAME} for r in records]
    return sorted(rows, key=lambda r: (r["match"], r["game_index"]))


def test_local_pool_returns_what_play_task_returns():
    tasks = [GameTask(GAME, SEARCHER, "random", 9, m, g) for m in range(3) for g in (0, 1)]
    with LocalPool(2) as pool:
        assert pool.capacity == 2 and pool.in_flight == 0
        records = []
        pending = list(tasks)
        while pending or pool.in_flight:
            while pending and pool.in_flight < pool.capacity:
                pool.submit(pending.pop())
            records.append(pool.next_result())
        with pytest.raises(RuntimeError, match="no game in flight"):
            pool.next_result()
    assert _comparable(records) == _comparable([play_task(t) for t in tasks])


def test_a_worker_stuck_past_the_hard_limit_is_replaced_and_the_others_play_on():
    # game index 1: the stuck agent plays player 1
    stuck = GameTask(GAME, "test_stuck(on_move=2)", "random", 9, 0, 1, move_timeout_s=0.2)
    tasks = [GameTask(GAME, SEARCHER, "random", 9, m, g) for m in range(3) for g in (0, 1)]
    with LocalPool(2) as pool:
        pool.submit(stuck)
        records = []
        pending = list(tasks)
        while pending or pool.in_flight:
            while pending and pool.in_flight < pool.capacity:
                pool.submit(pending.pop())
            records.append(pool.next_result())
        assert all(w.process.is_alive() for w in pool.workers)
    killed = [r for r in records if r["a"] == stuck.a]
    assert len(killed) == 1 and killed[0]["returns"] == [1.0, -1.0]
    assert killed[0]["error"]["seat"] == 1 and killed[0]["error"]["kind"] == "MoveTimeoutError"
    assert f"killed after {0.2 + KILL_GRACE_S:g} s" in killed[0]["error"]["message"]
    others = [r for r in records if r["a"] != stuck.a]
    assert _comparable(others) == _comparable([play_task(t) for t in tasks])


def test_unknown_backend_and_misplaced_address():
    with pytest.raises(BackendError, match="unknown backend"):
        make_executor("slurm", 1)
    with pytest.raises(BackendError, match="--address is for the ray backend"):
        make_executor("local", 1, "127.0.0.1:6379")


def test_an_unreachable_ray_address_fails_at_once():
    with socket.socket() as probe:  # a free loopback port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(BackendError, match=r"cannot reach a Ray cluster at '127\.0\.0\.1:"):
        check_reachable(f"127.0.0.1:{port}")
    check_reachable("auto")  # no port: left to Ray


def test_ray_backend_gives_the_local_results(tmp_path):
    pytest.importorskip("ray")
    files = {}
    for backend in ("local", "ray"):
        files[backend] = tmp_path / f"{backend}.jsonl"
        args = ["match", GAME, SEARCHER, "hold(n=20)", "--matches", "6", "--workers", "2"]
        args += ["--backend", backend, "--out", str(files[backend]), "--no-progress"]
        # a subprocess: Ray's threads must not stay in the test process, which forks workers
        command = [sys.executable, "-m", "chancespiel.evaluation.cli", *args]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert "played 12 games" in result.stdout
        if backend == "ray":
            assert "on Ray (" in result.stdout
    local, ray = (_comparable(read_records(files[b])) for b in ("local", "ray"))
    assert len(ray) == 12 and ray == local


def test_no_game_starts_after_stop_at_and_the_same_run_resumes(tmp_path):
    out = tmp_path / "games.jsonl"
    pairs = [("random", "random")]
    late = RunConfig("python_pig(winscore=10)", pairs, 3, workers=1, out=str(out),
                     stop_at=time.monotonic() - 1)  # fmt: skip
    assert run(late).played == 0
    result = run(RunConfig("python_pig(winscore=10)", pairs, 3, workers=1, out=str(out)))
    assert (result.played, result.resumed) == (6, 0)
