"""Runs that append a line per task: torn lines, foreign files and settings, the deadline."""

from __future__ import annotations

import json
import re
import time

import pytest

from chancespiel.evaluation.resumable import (
    check_run,
    drop_torn_line,
    read_rows,
    run_tasks,
)
from chancespiel.evaluation.usage import UsageError


def squares(n: int) -> list[dict[str, int]]:
    return [{"n": n, "square": n * n}]


@pytest.mark.parametrize("workers", [1, 2])
def test_tasks_append_rows_and_a_torn_line_is_run_again(tmp_path, workers):
    path = tmp_path / "rows.jsonl"
    assert run_tasks(squares, range(5), path, workers, None, False)
    path.write_text(path.read_text() + '{"n": 5, "squ')  # a kill mid-write
    assert sorted(r["n"] for r in read_rows(path)) == list(range(5))  # in finishing order
    done = {r["n"] for r in read_rows(path)}
    assert run_tasks(squares, [n for n in range(7) if n not in done], path, workers, None, False)
    rows = read_rows(path)
    assert sorted(r["n"] for r in rows) == list(range(7))
    assert path.read_text().endswith("\n") and len(path.read_text().splitlines()) == 7


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        (b'{"n": 1}\n{"n": 2}\n', b'{"n": 1}\n{"n": 2}\n'),  # nothing torn: unchanged
        (b'{"n": 1}\n{"n": 2}\n{"n": 3, "sq', b'{"n": 1}\n{"n": 2}\n'),
        (b'{"n": 1}\n{"n": "' + b"x" * 50, b'{"n": 1}\n'),  # a torn line longer than a block
        (b'{"n": 1, "sq', b""),  # no complete line at all
        (b"", b""),
    ],
)
def test_a_torn_line_is_cut_in_place(tmp_path, content, kept):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(content)
    drop_torn_line(path, block=4)  # blocks of 4 bytes: every torn line spans several
    assert path.read_bytes() == kept
    drop_torn_line(tmp_path / "missing.jsonl")  # nothing to cut, nothing made
    assert not (tmp_path / "missing.jsonl").exists()


def test_a_passed_deadline_stops_after_the_tasks_in_flight(tmp_path):
    path = tmp_path / "rows.jsonl"
    assert not run_tasks(squares, range(100), path, 1, time.monotonic() - 1, False)
    assert len(read_rows(path)) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [("[1, 2]", "not a run file"), ("{", "not a run file"), ('{"seed": 1}', "(seed)")],
)
def test_a_run_file_of_another_run_is_refused(tmp_path, content, message):
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(UsageError, match=re.escape(message)):
        check_run(tmp_path, {"seed": 2}, "--seed")
    check_run(tmp_path / "new", {"seed": 2}, "--seed")  # a new directory gets its run file
    assert json.loads((tmp_path / "new" / "run.json").read_text()) == {"seed": 2}


def test_lines_that_are_not_rows_are_one_line_errors(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"n": 1}\n[1]\n')
    with pytest.raises(UsageError, match=r"rows\.jsonl:2: not a JSON line"):
        read_rows(path)


def fails_at_three(n: int) -> list[dict[str, int]]:
    if n == 3:
        raise ValueError("task 3 failed")
    return squares(n)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_task_stops_the_run_and_keeps_the_others(tmp_path, workers):
    path = tmp_path / "rows.jsonl"
    with pytest.raises(ValueError, match="task 3 failed"):
        run_tasks(fails_at_three, range(8), path, workers, None, False)
    kept = sorted(r["n"] for r in read_rows(path))
    assert {0, 1, 2} <= set(kept) and 3 not in kept and len(kept) < 8


@pytest.mark.parametrize("tail", [b"x" * 50, b"my notes", b"[1, 2"])
def test_a_last_line_that_is_not_a_row_is_never_cut(tmp_path, tail):
    """Only a row cut short by a kill is dropped: another's text after the last newline means
    the file is not ours, and it is left as it was."""
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"n": 1}\n' + tail)
    with pytest.raises(UsageError, match="not a row of this experiment"):
        drop_torn_line(path, block=4)
    with pytest.raises(UsageError, match="not a JSON line"):
        read_rows(path)
    assert path.read_bytes() == b'{"n": 1}\n' + tail
