"""One resumable run: plan the missing games, play them on an executor, append their records.

Used by `chancespiel match`, `tournament` and `tune`. See match.py for the record format and
the resume rules, parallel.py for the executors.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import tqdm

from chancespiel.evaluation.luck import (
    ValueFunction,
    fitted_beta,
    record_correction,
    value_function,
)
from chancespiel.evaluation.match import (
    DEFAULT_MOVE_TIMEOUT_S,
    DEFAULT_OVERRUN_MS,
    GAME_FAULT,
    MISSING,
    Agent,
    GameKey,
    GameTask,
    Record,
    RecordFileError,
    RecordWriter,
    RunIdentity,
    a_score,
    canonical_game,
    game_key,
    is_lost,
    plan_tasks,
    unique_records,
)
from chancespiel.evaluation.parallel import Executor, default_workers, make_executor
from chancespiel.evaluation.report import Tally
from chancespiel.evaluation.sprt import CorrectedSprt, Sprt, SprtParams, SprtResult
from chancespiel.games.learned import ModelError

tqdm.tqdm.monitor_interval = 0  # no monitor thread: workers may be forked after the bar starts

MIN_BETA_MATCHES = 8  # matches before a fitted coefficient is used in the SPRT (0 until then)

ExecutorFactory = Callable[[str, "int | None", "str | None"], Executor]


class RunStoppedError(Exception):
    """A worker cannot play the run's games (a plugin it lacks): nothing more is played."""


@dataclass
class RunConfig:
    """What to play and how."""

    game: str
    pairs: Sequence[tuple[str, str]]
    matches: int
    seed: int = 0
    workers: int | None = None
    backend: str = "local"
    address: str | None = None
    out: str | None = None  # None: keep the records in memory only
    overrun_ms: float = DEFAULT_OVERRUN_MS
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S
    sprt: SprtParams | None = None  # one pair only
    luck: bool = False  # the SPRT tests luck-corrected match scores (evaluation.luck)
    value: str | None = None  # value function of the correction (default: the game's best)
    file_pairs: Sequence[tuple[str, str]] | None = None  # pairs the file may hold (default: pairs)
    progress: bool | None = None  # None: when stderr is a terminal
    keep_records: bool = True  # False: only the tally (memory bounded by the workers)
    label: str = "games"
    stop_at: float | None = None  # time.monotonic() after which no new game starts (resumable)
    # Called once the file is read and found to be this run's, before any game: a command's
    # header printed here is not followed by a refusal of the file.
    on_ready: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        if self.seed < 0:  # random.Random(-n) is random.Random(n): another run's dice
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if self.matches < 0:
            raise ValueError(f"matches must be >= 0, got {self.matches}")


@dataclass
class RunResult:
    """The records of a run (the file's and the new ones, matches < config.matches; empty
    unless config.keep_records) and their tally (always)."""

    records: list[Record]
    resumed: int  # games found already played
    played: int  # games played by this call
    seconds: float
    executor: str
    sprt: SprtResult | None = None
    extra: list[Record] = field(default_factory=list)  # file records of matches >= matches
    tally: Tally = field(default_factory=Tally)
    unstarted: int = 0  # games of the plan left unplayed because config.stop_at had passed

    @property
    def matches_per_second(self) -> float:
        """Whole matches (two games) played per second by this call."""
        return self.played / 2 / self.seconds if self.seconds > 0 else 0.0


def match_points(first: Record, second: Record) -> float | None:
    """A's points (0..2) in a match from its two records, None if one is unscored."""
    first_score, second_score = a_score(first), a_score(second)
    if first_score is None or second_score is None:
        return None
    return first_score + second_score


class _SprtTracker:
    """Feeds the SPRT matches in index order, so its decision does not depend on timing.

    With a value function, each match enters as its luck-corrected score x - beta c, where
    beta is fitted on the matches before it only: given the past, c has mean zero, so every
    corrected score keeps the raw expectation whatever beta is (a predictable coefficient).
    A match with a forfeit enters raw (c = 0).
    """

    def __init__(self, params: SprtParams, game: str = "", value: str | None = None):
        self.test: Sprt | CorrectedSprt = Sprt(params)
        self.value: ValueFunction | None = None
        if value is not None:
            self.test = CorrectedSprt(params)
            self.value = value_function(canonical_game(game), value or None)[1]
        self.raw: list[float] = []
        self.corrections: list[float] = []
        self.games: dict[int, dict[int, Record]] = {}
        self.next_match = 0

    def add(self, record: Record) -> None:
        self.games.setdefault(record["match"], {})[record["game_index"]] = record
        while len(self.games.get(self.next_match, {})) == 2 and self.test.decision is None:
            pair = self.games.pop(self.next_match)
            points = match_points(pair[0], pair[1])
            if points is not None:
                if self.value is None:
                    self.test.add(points)
                else:
                    self.test.add(self._corrected(pair[0], pair[1], points / 2.0))
            self.next_match += 1

    def _corrected(self, first: Record, second: Record, raw: float) -> float:
        assert self.value is not None
        if first["error"] is not None or second["error"] is not None:
            return raw
        c = (record_correction(first, self.value) + record_correction(second, self.value)) / 2
        beta = 0.0
        if len(self.raw) >= MIN_BETA_MATCHES:
            beta = fitted_beta(self.raw, self.corrections)
        self.raw.append(raw)
        self.corrections.append(c)
        return raw - beta * c


def run(config: RunConfig, executor_factory: ExecutorFactory = make_executor) -> RunResult:
    """Plays the games of `config` that its file does not hold yet and returns all records.

    Raises:
      RecordFileError: if the file is corrupt or belongs to another run.
      BackendError: if the backend cannot be used.
      KeyboardInterrupt: after closing the workers and syncing the file.
    """
    if config.sprt is not None and len(config.pairs) != 1:
        raise ValueError("SPRT tests one pair of agents")
    identity = RunIdentity(config.game, config.seed, tuple(config.file_pairs or config.pairs))
    try:
        agents = identity.agents
    except ModelError as e:
        raise RecordFileError(f"cannot name the agents' value model: {e}") from None
    ours_pairs = {(agents[a], agents[b]) for a, b in config.pairs}
    # without kept records or an SPRT, the file is counted as it is read (bounded memory)
    counted = (
        _Counted(identity, config, ours_pairs)
        if not config.keep_records and not config.sprt
        else None
    )
    writer = None
    if config.out:
        writer = RecordWriter(config.out, counted.add if counted is not None else None)
    try:
        if counted is not None:
            ours: list[Record] = []
            done: Iterable[GameKey] = counted.done
            repeats, resumed, extra, tally = (
                counted.repeats,
                counted.resumed,
                counted.extra,
                counted.tally,
            )
        else:
            existing = writer.records if writer is not None else []
            identity.check(existing, config.out or "")
            existing, repeats = unique_records(existing)
            # games the infrastructure lost are played again (their records are superseded)
            existing = [r for r in existing if _pair(r) in ours_pairs and not is_lost(r)]
            ours = [r for r in existing if r["match"] < config.matches]
            resumed = len(ours)
            extra = [r for r in existing if r["match"] >= config.matches]
            done = {game_key(r) for r in existing}
            tally = Tally(_names(config, agents))
            for record in ours:
                tally.add(record)
            del existing
        if config.on_ready is not None:
            config.on_ready()
        if repeats:
            warnings.warn(
                f"{config.out}: {repeats} game(s) appear more than once; each is counted once",
                stacklevel=2,
            )
        records = list(ours) if config.keep_records else []
        tracker = None
        if config.sprt is not None:
            value = (config.value or "") if config.luck else None
            tracker = _SprtTracker(config.sprt, config.game, value)
        for record in sorted(ours, key=lambda r: (r["match"], r["game_index"])):
            if tracker is not None:
                tracker.add(record)
        source = _TaskSource(
            plan_tasks(
                config.game,
                config.pairs,
                config.matches,
                config.seed,
                done,
                config.overrun_ms,
                config.move_timeout_s,
                agents,
            ),
            2 * config.matches * len(ours_pairs) - resumed,
            tracker,
            {r["match"] for r in ours} if tracker is not None else set(),
            config.stop_at,
        )
        del ours, done  # the file's records are in `records` if kept, else counted only
        start = time.perf_counter()
        description = "nothing to play"
        played = 0
        if not source.stopped() and source.left():  # past the stop: no workers are started
            # games run in worker processes even with one worker, never in this process: only
            # a process apart can stop a move stuck in native code, and a crash kills a worker,
            # not the run
            workers = config.workers
            if config.backend == "local":  # no idle processes for a short resume
                cores = default_workers()
                if workers is not None and workers > cores:
                    warnings.warn(
                        f"{workers} workers asked for, {cores} cores here: using {cores} (a "
                        "worker per core; more would only share the cores, and timed agents "
                        "would think less)",
                        stacklevel=2,
                    )
                workers = min(workers or cores, cores, source.left())
            executor = executor_factory(config.backend, workers, config.address)
            description = executor.description
            try:
                played = _play(source, executor, writer, records, tally, tracker, config)
            finally:
                executor.close()
        seconds = time.perf_counter() - start
    finally:
        if writer is not None:
            writer.close()
    return RunResult(
        records,
        resumed=resumed,
        played=played,
        seconds=seconds,
        executor=description,
        sprt=tracker.test.result() if tracker is not None else None,
        extra=extra,
        tally=tally,
        unstarted=source.unstarted,
    )


def _pair(record: Record) -> tuple[Agent, Agent]:
    key = game_key(record)
    return key.a, key.b


def _names(config: RunConfig, agents: dict[str, Agent]) -> dict[Agent, str]:
    """Each agent of the run under the spelling the run gives it (first spelling first)."""
    names: dict[Agent, str] = {}
    for pair in config.pairs:
        for spec in pair:
            names.setdefault(agents[spec], spec)
    return names


class _Counted:
    """The records of a file, checked and counted as they are read and then dropped: the games
    done, the repeats, the tally; a game lost by the infrastructure is not done (played
    again), and a repeat of a game counts once (as unique_records, but without refusing two
    results of one game: a run's own file holds one)."""

    def __init__(self, identity: RunIdentity, config: RunConfig, pairs: set[tuple[Agent, Agent]]):
        self.identity = identity
        self.path = config.out or ""
        self.pairs = pairs
        self.matches = config.matches
        self.number = 0
        self.done: set[GameKey] = set()
        self.repeats = 0
        self.resumed = 0
        self.extra: list[Record] = []
        self.tally = Tally(_names(config, identity.agents))

    def add(self, record: Record) -> None:
        self.number += 1
        self.identity.check_one(record, self.number, self.path)
        if is_lost(record):
            return
        key = game_key(record)
        if key in self.done:
            self.repeats += 1
            return
        self.done.add(key)
        if (key.a, key.b) not in self.pairs:
            return
        if record["match"] >= self.matches:
            self.extra.append(record)
            return
        self.tally.add(record)
        self.resumed += 1


class _TaskSource:
    """The games still to play, pulled one at a time from the plan; once the SPRT has decided,
    only the partner games of started matches are left (so the file holds whole matches)."""

    def __init__(
        self,
        tasks: Iterator[GameTask],
        count: int,
        tracker: _SprtTracker | None,
        started: set[int],
        stop_at: float | None = None,
    ):
        self.tasks = tasks
        self.count = count
        self.stop_at = stop_at
        self.started = started  # kept only for the SPRT
        self.tracking = tracker is not None
        self.partners: deque[GameTask] | None = None
        self.unstarted = 0  # games not started because stop_at had passed
        if tracker is not None and tracker.test.decision is not None:
            self.decided()

    def decided(self) -> None:
        """Keeps only the partner games of matches already started."""
        self.partners = deque(task for task in self.tasks if task.match in self.started)
        self.count = len(self.partners)

    def stopped(self) -> bool:
        """True once `stop_at` has passed: the games not started yet are left unplayed
        (counted in `unstarted`)."""
        if self.stop_at is None or time.monotonic() <= self.stop_at:
            return False
        self.unstarted += self.count
        self.count = 0
        return True

    def pop(self) -> GameTask | None:
        """The next game to play, or None (also once `stop_at` has passed)."""
        if self.stopped():
            return None
        if self.partners is not None:
            task = self.partners.popleft() if self.partners else None
        else:
            task = next(self.tasks, None)
        if task is None:
            self.count = 0
            return None
        self.count -= 1
        if self.tracking:
            self.started.add(task.match)
        return task

    def left(self) -> int:
        """Games left to play."""
        return self.count


def _play(
    source: _TaskSource,
    executor: Executor,
    writer: RecordWriter | None,
    records: list[Record],
    tally: Tally,
    tracker: _SprtTracker | None,
    config: RunConfig,
) -> int:
    """Plays the source's games; returns how many were played."""
    disable = None if config.progress is None else not config.progress
    played = 0
    with tqdm.tqdm(
        total=source.left(), unit="game", file=sys.stderr, disable=disable, desc=config.label
    ) as bar:
        points, scored = 0.0, 0
        while True:
            while executor.in_flight < executor.capacity:
                task = source.pop()
                if task is None:
                    break
                executor.submit(task)
            if executor.in_flight == 0:
                break
            record = executor.next_result()
            kind = (record.get("error") or {}).get("kind")
            if kind == MISSING:
                raise RunStoppedError(
                    f"{record['error']['message']}; the run stops (a game is never scored for "
                    "a reason outside it): load it with chancespiel --import MODULE, "
                    "CHANCESPIEL_IMPORT, or an installed entry point; the same command resumes"
                )
            if kind == GAME_FAULT:
                raise RunStoppedError(
                    f"{record['error']['message']}; the run stops and records nothing for "
                    "that game (its result would mean nothing)"
                )
            played += 1
            if writer is not None:
                writer.write(record)
            if config.keep_records:
                records.append(record)
            tally.add(record)
            score = a_score(record)
            if score is not None and len(config.pairs) == 1:
                points += score
                scored += 1
                bar.set_postfix_str(f"A scores {points / scored:.1%}", refresh=False)
            bar.update(1)
            if tracker is not None:
                decided = tracker.test.decision
                tracker.add(record)
                if decided is None and tracker.test.decision is not None:
                    source.decided()
                    bar.total = bar.n + source.left() + executor.in_flight
                    bar.refresh()
    return played
