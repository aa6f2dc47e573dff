"""Runs own their processes: a killed run leaves no worker behind and no lock held, so the
same command resumes at once; two commands never write one output at the same time (the
second is refused in one line naming the first one's pid)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chancespiel import files
from chancespiel.evaluation.match import RecordFileError, RecordWriter
from chancespiel.evaluation.usage import UsageError, output_dir, release_outputs
from chancespiel.studies import pig_regret

ENV = {**os.environ, "CHANCESPIEL_PURE_PYTHON": "1"}
COMMAND = [sys.executable, "-m", "chancespiel"]
KEYS = ((0, 0, 8, 1), (40, 62, 14, 0), (85, 90, 6, 1), (10, 20, 5, 0))


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _regret_run(out: Path) -> list[str]:
    out.mkdir()
    with open(out / "positions.csv", "w", newline="") as f:  # no collecting: straight to work
        writer = csv.writer(f)
        writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
        for index, key in enumerate(KEYS):
            writer.writerow([index, *key, pig_regret.gap_of(key), 1])
    return [*COMMAND, "experiment", "pig-regret", "--positions", str(len(KEYS)),
            "--budgets", "3000", "--configs", "base", "--workers", "2", "--no-progress",
            "--out", str(out)]  # fmt: skip


def _match_run(out: Path) -> list[str]:
    out.mkdir()
    return [*COMMAND, "match", "python_pig", "star2(max_depth=4)", "random",
            "--matches", "200", "--workers", "2", "--no-progress",
            "--out", str(out / "records.jsonl")]  # fmt: skip


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("command", [_regret_run, _match_run], ids=["pig-regret", "match"])
def test_a_killed_run_leaves_no_worker_and_the_same_command_resumes(tmp_path, command):
    """SIGKILL to a run with two workers (a process pool, the match's worker pool): the
    workers die with it, and the resumed run is neither refused nor kept waiting."""
    out = tmp_path / "run"
    argv = command(out)
    run = subprocess.Popen(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert _wait_for(lambda: len(_children(run.pid)) >= 2, 60), "no workers started"
        workers = _children(run.pid)
        time.sleep(0.3)  # at work
        run.kill()
        run.wait()
        assert _wait_for(lambda: not any(map(_alive, workers)), 5), "a worker outlived its run"
    finally:
        run.kill()
        run.wait()
        if run.stderr is not None:
            run.stderr.close()
    # the same command, cut short: one task in this process (pig-regret), one match
    shorter = {"--workers": "1", "--matches": "1", "--configs": "base --max-minutes 1e-6"}
    for option, value in shorter.items():
        if option in argv:
            argv[argv.index(option) + 1 : argv.index(option) + 2] = value.split()
    resumed = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert "is being written" not in resumed.stderr


def _holder(path: Path) -> subprocess.Popen[str]:
    """Another process that claims `path` as its output directory and holds it."""
    code = (
        "import sys, time; from chancespiel.evaluation.usage import output_dir; "
        "output_dir(sys.argv[1], 'x'); print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], env=ENV, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_second_writer_of_a_directory_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "out"
    holder = _holder(out)
    try:
        with pytest.raises(UsageError, match=f"being written by process {holder.pid}"):
            output_dir(out, "report", resume=lambda _: True)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    # the kernel released the lock of the killed holder: no stale lock to clear by hand
    assert output_dir(out, "report", resume=lambda _: True) == out
    release_outputs()


def test_two_runs_on_one_directory_do_not_both_write_it(tmp_path):
    """The second pig-regret on the first one's --out is refused while the first runs (two
    runs used to append the same rows twice)."""
    out = tmp_path / "run"
    argv = _regret_run(out)
    first = subprocess.Popen(argv, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert first.stdout is not None
        assert b"to go" in first.stdout.readline()  # holding the directory, at work
        second = subprocess.run(argv, env=ENV, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.strip() == (
            f"chancespiel: error: --out {out} is being written by process {first.pid}: wait "
            "for it to end, or use another --out"
        )
    finally:
        first.kill()
        first.wait()
        for stream in (first.stdout, first.stderr):
            if stream is not None:
                stream.close()
    rows = [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()]
    assert len(rows) == len(
        {(r["config"], r["position"], r["algorithm"], r["budget"]) for r in rows}
    )


def test_a_record_file_names_the_process_writing_it(tmp_path):
    out = tmp_path / "r.jsonl"
    code = (
        "import sys, time; from chancespiel.evaluation.match import RecordWriter; "
        "w = RecordWriter(sys.argv[1]); print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(out)], env=ENV, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(RecordFileError, match=f"another command \\(pid {holder.pid}\\)"):
            RecordWriter(out)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    RecordWriter(out).close()  # released with its holder


def test_a_worker_does_not_hold_its_parents_lock(tmp_path):
    """A forked child closes the parent's lock descriptors: were it to outlive the parent, it
    would not keep the output locked."""
    out = tmp_path / "out"
    output_dir(out, "report")
    pid = os.fork()
    if pid == 0:  # the child: its copy of the lock is closed; the parent's is not released
        try:
            os._exit(0 if not _lock_held_here(out) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    try:
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        release_outputs()


def _lock_held_here(out: Path) -> bool:
    """Whether this process has a descriptor open on the mark of `out`."""
    mark = os.stat(out / files.MARK)
    for fd in os.listdir("/proc/self/fd"):
        try:
            info = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (mark.st_dev, mark.st_ino):
            return True
    return False
