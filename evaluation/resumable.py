"""Runs that append one JSON line per finished task and resume where they stopped.

An experiment that takes hours (searching positions, replaying records with a deep value)
runs as tasks whose results are appended to a file as each finishes, fsynced, so a run cut
short by `--max-minutes`, a kill or the end of a session loses at most the tasks in flight.
The same command resumes: it reads the lines already there (a line torn by a kill is dropped
and its task run again), checks that the directory holds a run with the same settings
(`run.json`), and runs only the tasks not yet done. `commands.txt` keeps each chunk's command
beside the data. The directory is held for the run (`run_directory`): a second command on it is
refused, and a killed run's lock and workers go with it.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any, TextIO, TypeVar

import tqdm

from chancespiel.evaluation.match import package_version
from chancespiel.evaluation.parallel import stop_pool, worker_pool
from chancespiel.evaluation.usage import UsageError, command_text, output_dir, write_text
from chancespiel.files import JsonError, claim_name, loads, open_text, read_json, stored

T = TypeVar("T")
Row = dict[str, Any]

MAX_LINE = 100_000  # characters: longer than any row an experiment writes
RUN = "run.json"  # the settings of the run in a directory
COMMANDS = "commands.txt"  # one line per chunk that ran tasks: date, version, commit, command


def read_rows(path: Path) -> list[Row]:
    """The rows of a JSON-lines file written by `run_tasks` (none if it does not exist; a
    partly written last line is dropped, so its task runs again).

    Raises:
      UsageError: naming the file and line, if a line is not one of ours.
    """
    rows: list[Row] = []
    path = Path(stored(path))  # committed runs keep their rows compressed
    if not path.exists():
        return rows
    try:
        with open_text(path) as f:
            # at most MAX_LINE + 1 characters at a time: a file that is not ours may have
            # no newline at all
            for number, line in enumerate(iter(lambda: f.readline(MAX_LINE + 1), ""), 1):
                if len(line) > MAX_LINE:
                    raise UsageError(f"{path}:{number}: a line this long is not ours")
                if not line.endswith("\n") and _torn_row(line):
                    break  # cut short by a kill
                try:
                    row = loads(line)
                except JsonError:
                    row = None
                if not isinstance(row, dict):
                    raise UsageError(f"{path}:{number}: not a JSON line of this experiment")
                rows.append(row)
    except EOFError:  # a compressed file cut short: its whole rows are kept above
        pass
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    return rows


def _torn_row(tail: str | bytes) -> bool:
    """Whether the text after a rows file's last newline can be a row cut short by a kill
    (`_append` writes JSON objects): only such a tail is dropped, never another's text."""
    return tail.startswith(b"{") if isinstance(tail, bytes) else tail.startswith("{")


TAIL_BLOCK = 1 << 16  # bytes read at a time, back from the end, to find the last newline


def drop_torn_line(path: Path, block: int = TAIL_BLOCK) -> None:
    """Cuts a partly written last line (a killed run) off `path` before lines are appended.

    The file is truncated in place after its last newline, found by reading back from the end
    a `block` at a time: the complete lines are neither read nor written again, so a kill
    while this runs cannot lose them (a rewrite of the whole file could).

    Raises:
      UsageError: if the text after the last newline is not a row's beginning (the file is
        not ours: it is left as it was).
    """
    if not path.exists():
        return
    with open(path, "r+b") as f:
        size = end = f.seek(0, os.SEEK_END)
        while end > 0:
            start = max(0, end - block)
            f.seek(start)
            chunk = f.read(end - start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
                break
            end = start
        if end < size:
            f.seek(end)
            if not _torn_row(f.read(1)):
                raise UsageError(f"{path}: its last line is not a row of this experiment")
            f.truncate(end)
            os.fsync(f.fileno())


def read_settings(out: Path) -> dict[str, Any]:
    """The settings of the run in `out` (its run.json).

    Raises:
      UsageError: if there is none, or it is not a run file.
    """
    path = out / RUN
    try:
        settings = read_json(path, MAX_LINE)
    except FileNotFoundError:
        raise UsageError(f"{out} holds no run (no {RUN})") from None
    except (OSError, ValueError):
        raise UsageError(f"{path} is not a run file of this experiment") from None
    if not isinstance(settings, dict):
        raise UsageError(f"{path} is not a run file of this experiment")
    return settings


def check_run(out: Path, settings: dict[str, Any], hint: str) -> None:
    """Writes `out/run.json`, or refuses a directory holding a run with other settings (`hint`
    says which options to repeat).

    Raises:
      UsageError: if run.json is not ours or holds other settings.
    """
    path = out / RUN
    if path.exists():
        old = read_settings(out)
        if old != settings:
            changed = ", ".join(k for k in settings if old.get(k) != settings[k]) or "others"
            raise UsageError(
                f"{out} holds a run with other settings ({changed}): resume with the same "
                f"{hint}, or use another --out"
            )
        return
    write_text(path, json.dumps(settings, indent=1) + "\n")


def run_directory(
    given: str | None,
    kind: str,
    settings: dict[str, Any],
    hint: str,
    outputs: Sequence[str],
    inputs: Sequence[str] = (),
) -> Path:
    """The directory of a resumable run, held by this process until the command ends: a new
    one (`results/<kind>/run-*` without `given`), an empty one, or one holding a run (its
    run.json, or one of `inputs`: files the run reads and checks, given beforehand) with these
    `settings` (`check_run`; `hint` says which options to repeat). `outputs` are the files the
    run writes over (its summaries).

    Raises:
      UsageError: for a directory holding something else, another run, or one that another
        process is writing (naming its pid).
    """

    def holds_run(path: Path) -> bool:  # (a run.json that is not a file is refused by its reader)
        return any((path / name).exists() for name in (RUN, *inputs))

    out = output_dir(given, kind, resume=holds_run, outputs=outputs)
    check_run(out, settings, hint)
    return out


def git_commit() -> str:
    """The library's commit (short), or "unknown" outside a git checkout."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def log_command(out: Path, command_line: Sequence[str]) -> None:
    """Appends this chunk's date, version, commit and command to `out/commands.txt`."""
    claim_name(out / COMMANDS)
    with open(out / COMMANDS, "a", encoding="utf-8") as log:
        log.write(
            f"{datetime.date.today().isoformat()} chancespiel {package_version()} "
            f"(commit {git_commit()}): {command_text(command_line)}\n"
        )


def logged_commands(out: Path) -> list[str]:
    """The lines of `out/commands.txt`, or ["(not recorded)"]."""
    try:
        return (out / COMMANDS).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return ["(not recorded)"]


def run_tasks(
    work: Callable[[T], list[Row]],
    tasks: Iterable[T],
    path: Path,
    workers: int,
    deadline: float | None,
    progress: bool,
    total: int | None = None,
) -> bool:
    """Runs `work(task)` for each task on `workers` processes, appending the rows each returns
    to `path` (fsynced) as it finishes; `work` and the tasks must pickle.

    Returns True if every task ran, False if the deadline (a `time.monotonic()` value)
    stopped it first: the tasks in flight then finish and are kept, no new one starts. A task
    that raises stops the run the same way, and its error is raised once the others in
    flight are kept.
    """
    if stored(path) != str(path):
        raise UsageError(f"{path}.gz is compressed: decompress it (gunzip) to add rows to its run")
    drop_torn_line(path)
    claim_name(path)
    pending: Iterator[T] = iter(tasks)
    bar = tqdm.tqdm(total=total, disable=not progress, file=sys.stderr, unit="task")
    with open(path, "a", encoding="utf-8") as f:
        if workers == 1:  # in this process: its caches stay warm, and a profiler sees the work
            for task in pending:
                _append(f, work(task))
                bar.update()
                if deadline is not None and time.monotonic() > deadline:
                    bar.close()
                    return next(pending, None) is None
            bar.close()
            return True
        finished = True
        failure: BaseException | None = None
        pool = worker_pool(workers)
        try:
            running: set[Future[list[Row]]] = set()

            def submit() -> None:
                task = next(pending, None)
                if task is not None:
                    running.add(pool.submit(work, task))

            for _ in range(2 * workers):  # two each, so no worker waits for the parent
                submit()
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    running.discard(future)
                    error = future.exception()
                    if error is not None:
                        failure = failure or error
                    else:
                        _append(f, future.result())
                        bar.update()
                    if failure is not None or (
                        deadline is not None and time.monotonic() > deadline
                    ):
                        finished = False
                    elif finished:
                        submit()
        except BaseException:  # Ctrl-C, a full disk: the tasks in flight are not waited for
            stop_pool(pool)
            raise
        pool.shutdown()
    bar.close()
    if failure is not None:
        raise failure
    return finished and next(pending, None) is None


def check_resumed(
    path: Path,
    work: Callable[[T], list[Row]],
    rows: Sequence[Row],
    to_go: Iterable[tuple[str, int]],
    task_of: Callable[[str, int], T],
) -> None:
    """Searches again, for each configuration with rows in `path` and (configuration,
    position) tasks still `to_go`, its last finished position (`task_of` makes the task), and
    refuses the run if today's rows differ from the stored ones.

    The rows of a configuration are compared with each other: a run resumed by a library that
    searches it otherwise (another version's defaults, another generator's draws) would mix
    two searches under one name. The searches are deterministic, so equal rows mean the same
    search; the cost is one task per configuration resumed.

    Raises:
      UsageError: naming the configuration and where the chunks' versions are listed.
    """
    last: dict[str, int] = {}
    for row in rows:
        last[row["config"]] = max(row["position"], last.get(row["config"], -1))
    for config in dict.fromkeys(name for name, _ in to_go):
        if config not in last:
            continue  # nothing stored: nothing to mix
        position = last[config]
        stored_rows = [r for r in rows if r["config"] == config and r["position"] == position]
        fresh = [loads(json.dumps(row)) for row in work(task_of(config, position))]
        if fresh != stored_rows:
            raise UsageError(
                f"{path.parent} holds rows of {config} that this chancespiel "
                f"({package_version()}) searches otherwise (position {position} searched "
                f"again differs; {COMMANDS} lists each chunk's version): resume it with the "
                "library that wrote it, or use another --out"
            )


def _append(f: TextIO, rows: Sequence[Row]) -> None:
    """Writes one task's rows in one write, so that a kill does not fall between them, and
    makes them durable before the next task counts as done."""
    f.write("".join(json.dumps(row) + "\n" for row in rows))
    f.flush()
    os.fsync(f.fileno())
