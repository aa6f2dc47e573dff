"""Where games run: local worker processes (the default) or a Ray cluster.

Both executors take `GameTask`s and give back records in completion order; workers build their
bots from the task's spec strings (bots do not pickle) and play with `play_task`, so a game's
result depends only on its task, never on the executor or the worker that played it.

Local workers are long-lived processes, each with its own pipe, started with `fork` where the
platform has it (the parent has already loaded the game and checked the specs, so caches such
as the Pig solver's are inherited) and `spawn` elsewhere. The parent watches every busy worker:
a worker that dies mid-game (a crash in native code, the OOM killer) is replaced, and its game
is recorded as unscored with an error instead of hanging or failing the run. Every worker dies
with its parent (`become_worker`), mid-game too: a killed run leaves no process behind.

The hard move limit (`GameTask.move_timeout_s`) is enforced twice. In the worker, SIGALRM
interrupts a move written in Python. A bot stuck in native code (OpenSpiel's C++ MCTS, say)
runs on, since a signal handler runs only when control returns to Python; so each worker also
shows the parent, in shared memory, which seat is on move and since when, and the parent kills
a worker whose move outlives the limit by KILL_GRACE_S, starts another, and records the game
as that seat's forfeit. On Ray only the alarm applies: a task stuck in native code holds its
worker until the run ends (Ray could cancel it with force=True, but it does not know the seat
on move, and a forfeit needs it).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import socket
import threading
import time
import traceback
from abc import ABC, abstractmethod
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection, wait
from typing import Any

from chancespiel.evaluation.match import LOST, GameTask, Record, crash_record, play_task
from chancespiel.evaluation.play import (
    BotFailure,
    GameRecord,
    MoveObserver,
    MoveTimeoutError,
    MoveWatch,
    forfeit_returns,
    play_game,
)
from chancespiel.games.contract import GameContractError

BACKENDS = ("local", "ray")
RAY_RETRIES = 3


class BackendError(Exception):
    """A backend that cannot be used (ray not installed, no cluster at the address)."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies (Linux)


def become_worker(parent: int) -> None:
    """Makes this process a worker of `parent`: it dies with the parent, and leaves Ctrl-C to
    it. A run killed with SIGKILL cannot stop its workers itself; they would play on, holding
    the CPU and files, and a resumed run would find its work done twice. On Linux the kernel
    kills the worker when the parent dies (PR_SET_PDEATHSIG); elsewhere a thread watches the
    parent's pid. A parent gone already (before this ran) ends the worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run and the workers
    if not _kill_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


def _kill_with_parent() -> bool:
    """Asks the kernel for SIGKILL when the parent dies; False where it cannot (not Linux)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    return bool(prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A ProcessPoolExecutor whose workers die with this process (`become_worker`)."""
    return ProcessPoolExecutor(
        max_workers=workers, initializer=become_worker, initargs=(os.getpid(),)
    )


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Ends a pool's workers now, tasks in flight included (Ctrl-C, a failure): shutdown alone
    would wait for every running task to finish."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()


def safe_play_task(task: GameTask, watch: MoveWatch | None = None) -> Record:
    """play_task, with an unexpected error turned into an unscored record."""
    try:
        return play_task(task, watch)
    except Exception as e:
        return crash_record(task, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


class Executor(ABC):
    """Runs up to `capacity` games at once."""

    capacity: int
    description: str

    @property
    @abstractmethod
    def in_flight(self) -> int:
        """Games submitted and not yet returned."""

    @abstractmethod
    def submit(self, task: GameTask) -> None:
        """Starts a game; requires in_flight < capacity."""

    @abstractmethod
    def next_result(self) -> Record:
        """Waits for a game to finish and returns its record."""

    @abstractmethod
    def close(self) -> None:
        """Stops the workers (games in flight are abandoned)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


PARENT_CHECK_S = 1.0
KILL_GRACE_S = 2.0  # past the hard limit, before the parent kills a worker the alarm did not stop


class _MoveBoard:
    """The seat on move in a worker's game and since when, in memory shared with the parent.

    Times are `time.monotonic()`, one clock for every process of the machine on the platforms
    that fork (Linux, macOS). No lock: a worker killed while holding one would leave it held.
    """

    def __init__(self, context: Any):
        self.values = context.RawArray("d", 2)  # seat on move (-1: none), start of the move
        self.values[0] = -1.0

    def started(self, player: int) -> None:
        # the start before the seat: whoever reads a seat then reads its start or a later one,
        # never an earlier move's
        self.values[1] = time.monotonic()
        self.values[0] = float(player)

    def ended(self) -> None:
        self.values[0] = -1.0

    def deadline(self, move_timeout_s: float) -> tuple[float, int | None]:
        """(when, seat): the move of `seat` in progress is stopped from outside at `when`
        (monotonic), KILL_GRACE_S past the hard limit the in-process alarm enforces; with no
        move in progress, seat is None and `when` the earliest time a move could be."""
        move = self.on_move()
        seat, start = (None, time.monotonic()) if move is None else move
        return start + move_timeout_s + KILL_GRACE_S, seat

    def on_move(self) -> tuple[int, float] | None:
        """(seat, start) of the move in progress, or None."""
        seat = int(self.values[0])
        return None if seat < 0 else (seat, self.values[1])


def _worker_main(
    conn: Connection, inherited: list[Connection], board: _MoveBoard, parent: int
) -> None:
    # A forked worker holds copies of the parent's ends of every pipe made so far, its own
    # included: close them, or no worker would ever read end-of-file when the parent dies.
    for other in inherited:
        other.close()
    become_worker(parent)
    while True:
        try:
            while not conn.poll(PARENT_CHECK_S):
                if os.getppid() != parent:
                    return  # orphaned: the parent was killed
            task = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if task is None:
            return
        record = safe_play_task(task, board)
        try:
            conn.send(record)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, context: Any, others: list[_Worker]):
        self.conn, child = context.Pipe()
        inherited = []
        if context.get_start_method() == "fork":
            inherited = [self.conn] + [w.conn for w in others]
        self.board = _MoveBoard(context)
        self.process = context.Process(
            target=_worker_main, args=(child, inherited, self.board, os.getpid()), daemon=True
        )
        self.process.start()
        child.close()
        self.task: GameTask | None = None
        self.submitted = 0.0  # time.monotonic() when the task was sent

    def deadline(self) -> tuple[float, int | None] | None:
        """(when, seat): the worker is killed at `when` (monotonic) unless the move of `seat`
        ends first; with no move in progress, seat is None and `when` is the earliest time a
        move could be killed. None without a task or a hard limit."""
        if self.task is None or self.task.move_timeout_s is None:
            return None
        return self.board.deadline(self.task.move_timeout_s)


class LocalPool(Executor):
    """`workers` local processes, one game each at a time."""

    def __init__(self, workers: int | None = None, start_method: str | None = None):
        workers = workers or default_workers()
        if workers < 1:
            raise ValueError(f"need at least one worker, got {workers}")
        if start_method is None:
            methods = multiprocessing.get_all_start_methods()
            start_method = "fork" if "fork" in methods else "spawn"
        self.context = multiprocessing.get_context(start_method)
        self.capacity = workers
        self.description = f"{workers} local worker{'s' if workers > 1 else ''}"
        self.workers: list[_Worker] = []
        for _ in range(workers):
            self.workers.append(_Worker(self.context, self.workers))

    @property
    def in_flight(self) -> int:
        return sum(w.task is not None for w in self.workers)

    def submit(self, task: GameTask) -> None:
        for worker in self.workers:
            if worker.task is None:
                worker.conn.send(task)
                worker.task = task
                worker.submitted = time.monotonic()
                return
        raise RuntimeError("every worker is busy")

    def next_result(self) -> Record:
        busy = [w for w in self.workers if w.task is not None]
        if not busy:
            raise RuntimeError("no game in flight")
        while True:
            deadlines = [d[0] for w in busy if (d := w.deadline()) is not None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
            for worker in busy:
                task = worker.task
                assert task is not None
                if worker.conn in ready:
                    try:
                        record = worker.conn.recv()
                    except (EOFError, OSError):
                        return self._replace(worker, self._died(worker, task))
                    worker.task = None
                    return record
                if worker.process.sentinel in ready and not worker.conn.poll():
                    return self._replace(worker, self._died(worker, task))
            for worker in busy:
                deadline = worker.deadline()
                if deadline is not None:
                    when, seat = deadline
                    if seat is not None and time.monotonic() >= when:
                        return self._kill(worker, seat)

    def _kill(self, worker: _Worker, seat: int) -> Record:
        """Kills a worker whose move did not stop at the hard limit; `seat` forfeits."""
        task = worker.task
        assert task is not None and task.move_timeout_s is not None
        worker.process.kill()
        seconds = task.move_timeout_s + KILL_GRACE_S
        message = (
            f"the move took longer than the hard limit of {task.move_timeout_s:g} s and did not "
            f"stop: the worker process was killed after {seconds:g} s"
        )
        record = crash_record(task, message, seat, MoveTimeoutError.__name__)
        record["seconds"] = round(time.monotonic() - worker.submitted, 4)
        return self._replace(worker, record)

    @staticmethod
    def _died(worker: _Worker, task: GameTask) -> Record:
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        # not the game's result: like a task on a lost Ray node, a resumed run plays it again
        return crash_record(
            task, f"the worker process died (exit code {code}) during the game", kind=LOST
        )

    def _replace(self, worker: _Worker, record: Record) -> Record:
        """Starts a worker in place of `worker` (dead or killed) and returns `record`."""
        worker.process.join(timeout=5)
        worker.conn.close()
        others = [w for w in self.workers if w is not worker]
        self.workers[self.workers.index(worker)] = _Worker(self.context, others)
        return record

    def close(self) -> None:
        for worker in self.workers:
            if worker.task is None:
                with contextlib.suppress(BrokenPipeError, OSError):
                    worker.conn.send(None)
            else:
                worker.process.terminate()
        for worker in self.workers:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self.workers = []


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Raises BackendError unless a TCP connection to a 'host:port' Ray address opens.

    Ray itself retries an unreachable address for minutes; this fails at once instead.
    Addresses without a port ('auto', 'local') are left to Ray.
    """
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise BackendError(f"cannot reach a Ray cluster at {address!r}: {e}") from None


class RayPool(Executor):
    """Games as Ray tasks on the cluster at `address`, or on a local Ray started for the run."""

    def __init__(self, workers: int | None = None, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise BackendError(
                "the ray backend needs ray: pip install 'chancespiel[ray]'"
            ) from None
        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": "ERROR",
            }
            # RAY_ADDRESS joins a cluster as --address does: Ray refuses num_cpus then
            joining = address or os.environ.get("RAY_ADDRESS") or None
            if joining is None and workers:
                options["num_cpus"] = min(workers, default_workers())
            if address is not None:
                check_reachable(address)
            try:
                ray.init(address=address, **options)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = f"at {joining!r}" if joining else "locally"
                raise BackendError(f"cannot start or reach a Ray cluster {where}: {e}") from None
            self.started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.capacity = min(workers, max(1, cpus)) if workers else max(1, cpus)
        self.description = f"Ray ({cpus} CPUs, {self.capacity} games at a time)"
        # a task whose worker or node dies is retried by Ray (agent errors are records, so
        # they are never retried); one lost more often than that is recorded as LOST
        self.remote = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(safe_play_task)
        self.pending: dict[Any, GameTask] = {}

    @property
    def in_flight(self) -> int:
        return len(self.pending)

    def submit(self, task: GameTask) -> None:
        self.pending[self.remote.remote(task)] = task

    def next_result(self) -> Record:
        ready, _ = self.ray.wait(list(self.pending), num_returns=1)
        task = self.pending.pop(ready[0])
        try:
            return self.ray.get(ready[0])
        except self.ray.exceptions.RayError as e:
            # the game never reached an agent's verdict: a resumed run plays it again
            message = f"the Ray task was lost: {type(e).__name__}: {e}"
            return crash_record(task, message, kind=LOST)

    def close(self) -> None:
        for ref in self.pending:
            self.ray.cancel(ref, force=True)
        self.pending = {}
        if self.started:
            self.ray.shutdown()
            self.started = False


def make_executor(backend: str, workers: int | None, address: str | None = None) -> Executor:
    """The executor of `backend` ('local' or 'ray')."""
    if backend == "local":
        if address is not None:
            raise BackendError("--address is for the ray backend")
        return LocalPool(workers)
    if backend == "ray":
        return RayPool(workers, address)
    raise BackendError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")


def play_game_watched(
    game: Any,
    bots: list[Any],
    seed: int,
    observer: MoveObserver,
    move_timeout_s: float,
) -> GameRecord:
    """play_game with a hard limit on every move that holds inside native code too.

    The game is played in a forked child with the in-process alarm as play_game's
    `move_timeout_s`; the child reports each move and this process replays it on its own copy
    of the state for `observer` (so what is shown is this process's output), and watches the
    moves: one still running KILL_GRACE_S past the limit (an agent in native code, which the
    alarm cannot interrupt) ends the child, and the game is that seat's forfeit, as in a
    worker of `match`. Needs the fork start method (Linux, macOS).

    Raises:
      GameContractError: if the game broke its contract (games.contract).
      RuntimeError: if the child died for another reason.
    """
    context = multiprocessing.get_context("fork")
    board = _MoveBoard(context)
    ours, theirs = context.Pipe()

    parent = os.getpid()

    def child() -> None:
        become_worker(parent)
        ours.close()
        try:
            record = play_game(
                game, bots, seed, lambda _, player, action: theirs.send((player, action)),
                catch_errors=True, move_timeout_s=move_timeout_s, watch=board,
            )  # fmt: skip
        except GameContractError as e:  # the parent raises it (its message pickles)
            theirs.send(e)
            return
        theirs.send(record)

    process = context.Process(target=child, daemon=True)
    process.start()
    theirs.close()
    state = game.new_initial_state()
    decisions = 0
    try:
        while True:
            if ours.poll(0.05):
                try:
                    message = ours.recv()
                except EOFError:
                    message = None
                if isinstance(message, GameRecord):
                    process.join()
                    return message
                if isinstance(message, GameContractError):
                    process.join()
                    raise message
                if message is not None:
                    player, action = message
                    observer(state, player, action)
                    state.apply_action(action)
                    decisions += player >= 0
                    continue
            if not process.is_alive() and not ours.poll():
                raise RuntimeError(f"the game's process died (exit code {process.exitcode})")
            when, seat = board.deadline(move_timeout_s)
            if seat is not None and time.monotonic() >= when:
                process.kill()
                process.join()
                failure = BotFailure(
                    seat,
                    MoveTimeoutError.__name__,
                    f"the move took longer than the hard limit of {move_timeout_s:g} s "
                    "(stopped from outside: it did not return to Python)",
                )
                returns = forfeit_returns(seat, len(bots))
                return GameRecord(returns, decisions, state.history(), failure=failure)
    finally:
        if process.is_alive():
            process.kill()
            process.join()
