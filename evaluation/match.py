"""Game records, record files, and resumable runs of matches.

A run plays matches between pairs of agent specs (A, B). Match i of every pair uses the match
seed `seed + i`: the dice of both its games come from `random.Random(seed + i)` and the bots
are seeded with `bot_seed(seed + i, 'a' / 'b')`. Game 0 of a match seats A as player 0, game 1
seats A as player 1. A game is therefore a pure function of (game, A, B, seed, match, game
index) whenever the agents' budgets are deterministic (max_depth, max_nodes; not time_ms), and
results do not depend on the worker count, the backend or the order games finish in.

Record files are JSON Lines, one game per line (compact; spaced here), appended in completion
order as games finish:

    {"v": 1, "game": "python_pig(winscore=20)", "a": "pig_optimal", "b": "hold(n=20)",
     "seed": 0, "match": 3, "game_index": 1, "seats": ["hold(n=20)", "pig_optimal"],
     "returns": [-1.0, 1.0], "moves": 14, "history": [...],
     "move_ms": [[0.01, ...], [0.02, ...]], "nodes": [null, null],
     "evaluations": [null, null], "depths": [null, null], "limit_ms": [null, null],
     "overrun_ms": 50.0, "overruns": [0, 0], "error": null, "seconds": 0.002,
     "engine": "compiled", "load": 1.92}

`move_ms`, `nodes`, `evaluations` (heuristic calls) and `depths` (the deepest completed
iteration; MCTS: the deepest decision ply of its tree) hold one list per seat (null when the
agent reports none; records written before a field was counted lack it),
`limit_ms` each seat's per-move budget (the spec's `time_ms`, or null), `overruns` the number
of moves longer than limit_ms + overrun_ms. `error` is null, or {"seat", "spec", "kind",
"message"} when a bot raised (kind: the exception's class; 'BuildError' if the bot could not
even be built) or exceeded the hard move limit ('MoveTimeoutError'; the record of a worker
killed for it has no moves or history): the game is then a forfeit, with returns -1 for the
failing seat and +1 for the other. When the worker process died ('Crash'), "seat" and returns
are null: the game is counted but not scored. `seconds` is the game's wall time, `engine` the
engine that played it ('compiled' or 'pure Python') and `load` the machine's one-minute load
average when it started (what a millisecond of search bought depends on both).

Resume: the unit is the game, not the match (the two games of a match depend only on the match
seed, so either can be replayed alone, and games are also the unit of parallel work). A run
reads the file, checks that every record belongs to it (same game string and seed, one of its
pairs), and plays exactly the (pair, match, game index) triples that are missing, so a match
whose first game was written before a kill gets only its second game replayed. Each record
is written with one `write` of the whole line and fsynced at least once a second; a line torn
by a kill (the file does not end with a newline) is dropped with a warning and its game
replayed, while an unreadable complete line is an error naming it. Only the parent process
writes, under an exclusive lock, so two runs cannot append to one file at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import stat
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

from chancespiel import engine
from chancespiel.agents import make_bot
from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.registry import parse_spec, resolve_spec
from chancespiel.evaluation.play import (
    MoveWatch,
    bot_seed,
    forfeit_returns,
    play_game,
    score_of,
)
from chancespiel.files import open_regular
from chancespiel.games.contract import GameContractError
from chancespiel.games.registry import parse_parameters
from chancespiel.plugins import PluginError, load_plugins, loaded

# 2 adds "version" and "rules"; 3 adds "depths", "engine" and "load". Older records read the
# same otherwise.
FORMAT_VERSION = 3
DEFAULT_OVERRUN_MS = 50.0
DEFAULT_MOVE_TIMEOUT_S = 60.0
FSYNC_EVERY_S = 1.0
LOAD_CHUNK = 1 << 20
MAX_LINE_BYTES = 64 << 20  # far above any game's record; a longer line is not ours

Record = dict[str, Any]


class RecordFileError(Exception):
    """A record file that cannot be used: corrupt, or holding another run's games."""


@dataclass(frozen=True)
class GameTask:
    """One game of a run: everything a worker needs to play it (specs cross processes)."""

    game: str
    a: str
    b: str
    seed: int  # the run's base seed; this match's seed is seed + match
    match: int
    game_index: int  # 0: A is player 0; 1: A is player 1
    overrun_ms: float = DEFAULT_OVERRUN_MS
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S
    plugins: tuple[str, ...] = ()  # modules the worker loads first (chancespiel.plugins)

    @property
    def key(self) -> tuple[str, str, int, int]:
        """What identifies the game within a run's file."""
        return (self.a, self.b, self.match, self.game_index)

    @property
    def seats(self) -> tuple[str, str]:
        """The specs of player 0 and player 1."""
        return seats_of(self.a, self.b, self.game_index)


def seats_of(a: str, b: str, game_index: int) -> tuple[str, str]:
    """The specs of player 0 and player 1 in game `game_index` of a match of A against B: game
    0 seats A first, game 1 B first."""
    return (a, b) if game_index == 0 else (b, a)


def record_seats(record: Record) -> tuple[str, str]:
    """The specs of player 0 and player 1 of a record (its `seats`, or from a, b and the game
    index where a record omits them)."""
    seats = record.get("seats")
    if seats:
        return seats[0], seats[1]
    return seats_of(record["a"], record["b"], record["game_index"])


def error_line(error: BaseException) -> str:
    """The first line of an exception's message (its class without one): OpenSpiel's errors
    can run on for pages."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def a_score(record: Record) -> float | None:
    """A's score in a game (1, 0.5 or 0; forfeits included), None if the game is unscored."""
    if record["returns"] is None:
        return None
    return score_of(record["returns"], record["game_index"])  # A sits in the seat of that index


def match_dice(record: Record) -> int:
    """The dice a record's match is played on: match m of a run with seed s plays on the dice
    (and bot seeds) of s + m, so this, not the match number, tells a pairing's matches apart
    when records of runs with other seeds are read together."""
    return int(record["seed"]) + int(record["match"])


def record_key(record: Record) -> tuple[str, str, int, int]:
    """GameTask.key of a record."""
    return (record["a"], record["b"], record["match"], record["game_index"])


@functools.lru_cache(maxsize=64)
def load_game_cached(game_string: str) -> pyspiel.Game:
    """pyspiel.load_game, cached per game string."""
    return pyspiel.load_game(game_string)


def is_known_game(game_string: str) -> bool:
    """True if the game's name is registered in this process (a plugin's game is not until its
    module is imported); asked before loading, since OpenSpiel prints every game it knows on
    stderr when a load fails. Not cached: a plugin may register the game later."""
    try:
        return parse_parameters(game_string)["name"] in pyspiel.registered_names()
    except (ValueError, KeyError):
        return False


@functools.lru_cache(maxsize=256)
def canonical_game(game_string: str) -> str:
    """The loaded game's own string, which names equivalent game strings alike
    (`python_pig` and `python_pig(dice=2)`); the string itself if it does not load."""
    if not is_known_game(game_string):
        return game_string
    try:
        return str(load_game_cached(game_string))
    except pyspiel.SpielError:
        return game_string


def move_limit_ms(spec: str, bot: pyspiel.Bot) -> float | None:
    """The per-move time budget of a bot: the `time_ms` of its limits (its own default
    included), or for a bot that keeps none (a plugin's, a pyspiel bot), its spec's."""
    if isinstance(bot, PolicyBot) and bot.limits is not None:
        return bot.limits.time_ms
    limit = resolve_spec(spec)[1].get("time_ms")
    return None if limit is None else float(limit)


@functools.lru_cache(maxsize=1)
def package_version() -> str:
    """The installed chancespiel version ('unknown' when run from a source tree)."""
    try:
        return importlib.metadata.version("chancespiel")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=64)
def rules_digest(game_string: str) -> str:
    """A short digest of what a replay depends on: the loaded game's string (every parameter,
    defaults included) and its sizes (actions, chance outcomes, length, utilities), so that a
    record replayed under other rules or parameters can be told apart."""
    game = load_game_cached(game_string)
    info = [
        str(game),
        game.num_distinct_actions(),
        game.max_chance_outcomes(),
        game.max_game_length(),
        game.min_utility(),
        game.max_utility(),
    ]
    return hashlib.sha256(json.dumps(info).encode()).hexdigest()[:16]


def machine_load() -> float | None:
    """The one-minute load average (None where the system has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _base_record(task: GameTask) -> Record:
    return {
        "v": FORMAT_VERSION,
        "version": package_version(),
        "rules": rules_digest(task.game),
        "game": task.game,
        "a": task.a,
        "b": task.b,
        "seed": task.seed,
        "match": task.match,
        "game_index": task.game_index,
        "seats": list(task.seats),
    }


def play_task(task: GameTask, watch: MoveWatch | None = None) -> Record:
    """Plays one game of a run and returns its record; bot failures are recorded, not raised.

    `watch` is told when each bot move starts and ends (see play_game).
    """
    start = time.perf_counter()
    load = machine_load()
    try:
        load_plugins(task.plugins)
        game = load_game_cached(task.game)
        for spec in task.seats:
            resolve_spec(spec)
    except (PluginError, pyspiel.SpielError, ValueError) as e:
        # this worker lacks what the run's process has: not a result of the game
        message = f"the worker cannot set up the game: {error_line(e)}"
        return crash_record(task, message, kind=MISSING)
    match_seed = task.seed + task.match
    sides = ("a", "b") if task.game_index == 0 else ("b", "a")
    bots: list[pyspiel.Bot] = []
    for player, (spec, side) in enumerate(zip(task.seats, sides, strict=True)):
        try:
            bots.append(make_bot(spec, game, player, bot_seed(match_seed, side)))
        except Exception as e:
            return crash_record(task, f"building the bot failed: {type(e).__name__}: {e}", player)
    limits = [move_limit_ms(spec, bot) for spec, bot in zip(task.seats, bots, strict=True)]
    try:
        played = play_game(
            game,
            bots,
            match_seed,
            catch_errors=True,
            move_timeout_s=task.move_timeout_s,
            watch=watch,
        )
    except GameContractError as e:  # no result of the agents: the run stops, nothing written
        return crash_record(task, str(e), kind=GAME_FAULT)
    move_ms: list[list[float]] = [[], []]
    nodes: list[list[int | None]] = [[], []]
    evaluations: list[list[int | None]] = [[], []]
    depths: list[list[int | None]] = [[], []]
    for player, seconds, count, calls, depth in zip(
        played.move_players,
        played.move_seconds,
        played.move_nodes,
        played.move_evaluations,
        played.move_depths,
        strict=True,
    ):
        move_ms[player].append(round(seconds * 1000.0, 3))
        nodes[player].append(count)
        evaluations[player].append(calls)
        depths[player].append(depth)
    overruns = [
        0 if limit is None else sum(ms > limit + task.overrun_ms for ms in times)
        for limit, times in zip(limits, move_ms, strict=True)
    ]
    error = None
    if played.failure is not None:
        error = {
            "seat": played.failure.player,
            "spec": task.seats[played.failure.player],
            "kind": played.failure.kind,
            "message": played.failure.message,
        }
    return {
        **_base_record(task),
        "returns": played.returns,
        "moves": played.moves,
        "history": played.history,
        "move_ms": move_ms,
        "nodes": [None if all(n is None for n in seat) else seat for seat in nodes],
        "evaluations": [None if all(n is None for n in seat) else seat for seat in evaluations],
        "depths": [None if all(d is None for d in seat) else seat for seat in depths],
        "limit_ms": limits,
        "overrun_ms": task.overrun_ms,
        "overruns": overruns,
        "error": error,
        "seconds": round(time.perf_counter() - start, 4),
        "engine": engine.name(),
        "load": load,
    }


LOST = "Lost"  # error kind of a game the infrastructure lost (a worker or cluster node died)
MISSING = "Missing"  # a worker without a plugin the run needs: the run stops, nothing written
GAME_FAULT = "GameFault"  # the game broke its contract (games.contract): likewise


def is_lost(record: Record) -> bool:
    """True for the record of a game lost by the infrastructure, not by an agent: a resumed
    run plays it again, and a record of the same game played later supersedes it."""
    error = record.get("error")
    return error is not None and error.get("kind") == LOST


def crash_record(
    task: GameTask, message: str, seat: int | None = None, kind: str | None = None
) -> Record:
    """The record of a game that could not be played or finished: an unexpected error outside
    the bots ('Crash'), a bot could not be built ('BuildError'), its worker process or
    cluster node died under it (LOST: played again on resume), or its worker was killed for a
    move past the hard limit ('MoveTimeoutError').

    With a seat, the game is that seat's forfeit; without one it is not scored. The kind
    defaults to 'Crash' without a seat and 'BuildError' with one.
    """
    returns = None
    if seat is not None:
        returns = forfeit_returns(seat)
    return {
        **_base_record(task),
        "returns": returns,
        "moves": 0,
        "history": [],
        "move_ms": [[], []],
        "nodes": [None, None],
        "evaluations": [None, None],
        "depths": [None, None],
        "limit_ms": [None, None],
        "overrun_ms": task.overrun_ms,
        "overruns": [0, 0],
        "error": {
            "seat": seat,
            "spec": None if seat is None else task.seats[seat],
            "kind": kind or ("Crash" if seat is None else "BuildError"),
            "message": message,
        },
        "seconds": 0.0,
        "engine": engine.name(),
        "load": machine_load(),
    }


_REQUIRED = ("game", "a", "b", "seed", "match", "game_index", "returns")


def _parse_line(line: bytes, number: int, path: str) -> Record | None:
    """The record of one complete line (None for a blank one)."""
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordFileError(f"{path}: line {number} is not valid JSON ({e})") from None
    if not isinstance(record, dict) or any(k not in record for k in _REQUIRED):
        raise RecordFileError(f"{path}: line {number} is not a chancespiel game record")
    problem = record_problem(record)
    if problem is not None:
        raise RecordFileError(f"{path}: line {number}: {problem}")
    return record


@functools.lru_cache(maxsize=256)
def _game_problem(game_string: str) -> tuple[str | None, float, float]:
    """(problem, min utility, max utility) of a record's game string; a game this process
    does not know (a plugin's, not imported) has no problem and unbounded utilities: records
    are data, read without the game's code, and checked against what is loaded."""
    try:
        name = parse_parameters(game_string)["name"]
    except (ValueError, KeyError) as e:
        return f"game {game_string!r} does not parse ({e})", 0.0, 0.0
    if name not in pyspiel.registered_names():  # a game this process does not know
        return None, -math.inf, math.inf
    try:
        game = load_game_cached(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as e:
        return f"game {game_string!r} does not load ({error_line(e)})", 0.0, 0.0
    return None, game.min_utility(), game.max_utility()


@functools.lru_cache(maxsize=1024)
def _spec_problem(spec: str) -> str | None:
    # syntax only: records are data, readable without the agents' code (a plugin's agents)
    try:
        parse_spec(spec)
    except ValueError as e:
        return f"agent spec {spec!r} does not parse ({e})"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def record_problem(record: Record) -> str | None:
    """What is wrong with a game record's fields (None if nothing): reports count what records
    say, so a record that cannot be right is refused rather than miscounted."""
    game = record["game"]
    if not isinstance(game, str) or not game:
        return f"game must be a game string, got {game!r}"
    for side in ("a", "b"):
        spec = record[side]
        if not isinstance(spec, str) or not spec:
            return f"{side} must be an agent spec, got {spec!r}"
        if (problem := _spec_problem(spec)) is not None:
            return problem
    if not _is_int(record["seed"]):
        return f"seed must be an integer, got {record['seed']!r}"
    if not _is_int(record["match"]) or record["match"] < 0:
        return f"match must be an integer >= 0, got {record['match']!r}"
    if record["game_index"] not in (0, 1) or isinstance(record["game_index"], bool):
        return f"game_index must be 0 or 1, got {record['game_index']!r}"
    problem, low, high = _game_problem(game)
    if problem is not None:
        return problem
    returns = record["returns"]
    if returns is None:  # an unscored game (its worker died): it must say why
        return None if record.get("error") else "returns missing without an error"
    if not isinstance(returns, list) or len(returns) != 2:
        return f"returns must be a list of two numbers, got {returns!r}"
    for value in returns:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"returns must be numbers, got {returns!r}"
        if not (low - 1e-9 <= value <= high + 1e-9 and math.isfinite(value)):  # NaN too
            return f"returns {returns!r} outside the game's utilities [{low:g}, {high:g}]"
    seats = record.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or sorted(map(str, seats)) != sorted([record["a"], record["b"]])
    ):
        return f"seats {seats!r} are not the record's agents a and b"
    if (problem := _times_problem(record.get("move_ms"))) is not None:
        return problem
    if record.get("history") is not None and math.isfinite(low):  # a game this process knows
        return _history_problem(game, record["history"], returns, not record.get("error"))
    return None


def _times_problem(times: Any) -> str | None:
    """What is wrong with a record's move_ms (None if nothing)."""
    if times is None:
        return None
    if (
        not isinstance(times, list)
        or len(times) != 2
        or not all(isinstance(t, list) for t in times)
    ):
        return "move_ms must be two lists of move times"
    for value in (v for seat in times for v in seat):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"move_ms must hold numbers, got {value!r}"
        if not 0.0 <= value < math.inf:  # NaN fails this too
            return f"move_ms must be finite and >= 0, got {value!r}"
    return None


def _history_problem(game: str, history: Any, returns: list[Any], finished: bool) -> str | None:
    """What is wrong with a record's history (None if nothing): each action legal where it was
    played and, for a game that ended normally (`finished`), the end reached with `returns`."""
    if not isinstance(history, list) or not all(_is_int(a) for a in history):
        return "history must be a list of action ids"
    state = load_game_cached(game).new_initial_state()
    for number, action in enumerate(history, start=1):
        if state.is_terminal():
            return f"history goes on after the end of the game (move {number})"
        if action not in state.legal_actions():
            return f"history move {number} ({action}) is not legal there"
        state.apply_action(action)
    if not finished:
        return None  # a forfeit stops the game where the failure happened
    if not state.is_terminal():
        return "history ends before the game does, without an error"
    if any(
        abs(mine - theirs) > 1e-9 for mine, theirs in zip(state.returns(), returns, strict=True)
    ):
        return f"returns {returns!r} are not the history's {state.returns()!r}"
    return None


def parse_lines(data: bytes, path: str) -> tuple[list[Record], int | None]:
    """The records in the bytes of a record file, and where a torn last line starts (or None).

    Raises:
      RecordFileError: for a complete line that is not a game record, naming its line number.
    """
    records: list[Record] = []
    end = data.rfind(b"\n") + 1  # bytes after the last newline are a torn line
    torn_at = end if end < len(data) else None
    for number, line in enumerate(data[:end].split(b"\n")[:-1], start=1):
        record = _parse_line(line, number, path)
        if record is not None:
            records.append(record)
    return records, torn_at


_RECORD_START = b'{"v":'  # every record line begins so (json.dumps keeps key order)


def _starts_a_record(data: bytes) -> bool:
    """Whether `data` can be the start of a record line cut short by an interrupted write."""
    return data.startswith(_RECORD_START) or _RECORD_START.startswith(data)


def _file_lines(fd: int, path: str) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line, complete) of the file open at `fd`, read in chunks from its start;
    the last item is incomplete when the file does not end with a newline.

    Raises:
      RecordFileError: for a line longer than MAX_LINE_BYTES (no record is that long, so the
        file is not a record file: /dev/zero would otherwise fill the memory).
    """
    offset, number, partial = 0, 0, bytearray()  # partial: the line not yet ended
    while chunk := os.pread(fd, LOAD_CHUNK, offset):
        offset += len(chunk)
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            number += 1
            if partial:
                partial += chunk[start:end]
                yield number, bytes(partial), True
                partial.clear()
            else:
                yield number, chunk[start:end], True
            start = end + 1
        partial += chunk[start:]
        if len(partial) > MAX_LINE_BYTES:
            raise RecordFileError(
                f"{path}: line {number + 1} is longer than {MAX_LINE_BYTES >> 20} MiB: "
                "not a chancespiel record file"
            )
    if partial:
        yield number + 1, bytes(partial), False


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """All records of a file; a torn last line is skipped with a warning (the file is kept).

    Raises:
      RecordFileError: for what is not a record file (naming the first bad line).
    """
    name = str(path)
    try:
        fd = open_regular(name)
    except OSError as e:
        raise RecordFileError(f"cannot read {name}: {e.strerror}") from None
    records = []
    try:
        for number, line, complete in _file_lines(fd, name):
            # a torn write of a record of any format begins a JSON object; anything else is
            # not a record file (the writer, which appends, holds to the current format)
            if not complete and not line.startswith(b"{"):
                raise RecordFileError(f"{name}: line {number} is not a chancespiel game record")
            if not complete:
                warnings.warn(
                    f"{name}: the last line is incomplete (torn by an interrupted write); ignored",
                    stacklevel=2,
                )
            elif (record := _parse_line(line, number, name)) is not None:
                records.append(record)
    finally:
        os.close(fd)
    return records


def _outcome(record: Record) -> tuple[Any, ...]:
    """What two copies of one game must agree on (times and node counts may differ)."""
    return (record["returns"], record.get("history"), record.get("error") is None)


def _how_different(first: Record, second: Record) -> str:
    if first["returns"] != second["returns"]:
        return ""
    return "; the moves differ" if first.get("history") != second.get("history") else ""


def unique_records(records: Iterable[Record]) -> tuple[list[Record], int]:
    """The records without repeats of a game, and the number of repeats dropped.

    A game is its game string, who sits in which seat, and its dice: match m of a run with
    seed s plays on the dice (and bot seeds) of s + m, so match 5 of a run with seed 0 and
    match 0 of a run with seed 5 are the same game, as is the same game read from two files:
    each counts once. Two different results of one game (timed agents can differ on the
    same dice) are refused, since overlapping seed ranges are not independent evidence. A
    game lost by the infrastructure (is_lost) and played again later counts as the later game.

    Raises:
      RecordFileError: for two different results of one game.
    """
    records = list(records)

    def key_of(record: Record) -> tuple[Any, ...]:
        seats = seats_of(record["a"], record["b"], record["game_index"])
        return (canonical_game(record["game"]), match_dice(record), seats)

    played = {key_of(r) for r in records if not is_lost(r)}
    seen: dict[tuple[Any, ...], Record] = {}
    unique = []
    repeats = 0
    for record in records:
        key = key_of(record)
        if is_lost(record) and key in played:
            continue  # superseded by the game played again
        if key in seen:
            first = seen[key]
            if _outcome(first) != _outcome(record):
                raise RecordFileError(
                    f"{key[2][0]} vs {key[2][1]} on the dice of seed {key[1]} (seed + match) "
                    f"is two different games (returns {first['returns']} and "
                    f"{record['returns']}{_how_different(first, record)}): runs whose seed "
                    "ranges overlap share their dice and are not independent evidence; "
                    "report them separately"
                )
            repeats += 1
        else:
            seen[key] = record
            unique.append(record)
    return unique, repeats


# The first version whose `samples=c` agents run the MCMS paper's sampled search; records of
# earlier versions under the same spec strings played another search, so a run never mixes
# them (they stay readable as what they were).
PAPER_MCMS_VERSION = (0, 2)
_SAMPLED_AGENTS = ("expss", "star1ss", "star2ss")


def _former_sampled_search(record: Record) -> bool:
    """True if `record` was played by a sampled *-Minimax agent before PAPER_MCMS_VERSION."""
    version = record.get("version")  # absent in records of format 1, all of them earlier
    if version is not None:
        try:
            numbers = tuple(int(part) for part in str(version).split(".")[:2])
        except ValueError:
            return False  # 'unknown': a source tree, no claim either way
        if numbers >= PAPER_MCMS_VERSION:
            return False
    return any(
        spec.split("(")[0].strip() in _SAMPLED_AGENTS or "samples=" in spec
        for spec in (record["a"], record["b"])
    )


@dataclass(frozen=True)
class RunIdentity:
    """What the records of one run's file share: the game string, the seed and the pairs."""

    game: str
    seed: int
    pairs: tuple[tuple[str, str], ...]

    def check(self, records: Iterable[Record], path: str) -> None:
        """Raises RecordFileError if a record belongs to another run."""
        for number, record in enumerate(records, start=1):
            self.check_one(record, number, path)

    def check_one(self, record: Record, number: int, path: str) -> None:
        """Raises RecordFileError if the `number`-th record belongs to another run."""
        pairs = set(self.pairs)
        game = canonical_game(self.game)
        problem = None
        if canonical_game(record["game"]) != game:
            problem = f"game {record['game']!r}, not {self.game!r}"
        elif record["seed"] != self.seed:
            problem = f"seed {record['seed']}, not {self.seed}"
        elif (record["a"], record["b"]) not in pairs:
            problem = f"the pair {record['a']!r} vs {record['b']!r}, which this run does not play"
        elif _former_sampled_search(record):
            problem = (
                f"version {record.get('version', '< 0.2')}, whose sampled search (samples=c) "
                "was not today's (docs/mcms.md: the former default is resample, "
                "full_root_window, distrust_decided, solve_exhausted and table=path)"
            )
        if problem is not None:
            raise RecordFileError(
                f"{path} holds games of another run (record {number} has {problem}); "
                "resume with the same game, specs (in the same order) and seed, "
                "or write to another file"
            )


_WRITER_FDS: set[int] = set()


def _close_inherited_writers() -> None:
    """In a forked child: close the parent's record files, so that only the parent holds their
    locks (a flock belongs to the open file, which a forked child shares) and writes them."""
    for fd in _WRITER_FDS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _WRITER_FDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_inherited_writers)


class RecordWriteError(RecordFileError):
    """Writing a record failed (a full disk, say): the run stops, keeping what was written."""


class RecordWriter:
    """Appends records to a file, one whole line per write, under an exclusive lock.

    `records` holds the records the file had when opened (written ones are not kept, so a
    long run's memory does not grow with its games). Opening repairs a torn last line
    (truncating it, with a warning) so that the next record
    starts on a line of its own. Data is fsynced at least every FSYNC_EVERY_S and on close.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        on_record: Callable[[Record], None] | None = None,
    ):
        """Opens (creating) and locks `path`; with `on_record`, the file's records are passed
        to it one at a time as they are read instead of being kept in `records`."""
        self.path = str(path)
        self.on_record = on_record
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:
            raise RecordFileError(f"cannot open {self.path}: {e.strerror}") from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):  # /dev/full, a FIFO, a directory...
            os.close(self.fd)
            raise RecordFileError(f"{self.path} is not a regular file; give a file to write")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise RecordFileError(
                f"{self.path} is being written by another running command"
            ) from None
        _WRITER_FDS.add(self.fd)
        self.last_sync = time.monotonic()
        self.records: list[Record] = []
        try:
            self._load()
        except BaseException:
            self.close()
            raise

    def _load(self) -> None:
        size = os.fstat(self.fd).st_size
        for number, line, complete in _file_lines(self.fd, self.path):
            if complete:
                record = _parse_line(line, number, self.path)
                if record is None:
                    continue
                if self.on_record is not None:
                    self.on_record(record)
                else:
                    self.records.append(record)
            elif not _starts_a_record(line):  # not our torn write: not our file
                raise RecordFileError(
                    f"{self.path}: line {number} is not a chancespiel game record; the file "
                    "is left as it was: give a new file or a record file to resume"
                )
            else:  # bytes after the last newline: a torn line
                warnings.warn(
                    f"{self.path}: line {number} is incomplete (torn by an interrupted write): "
                    f"dropped ({len(line)} bytes); its game will be played again",
                    stacklevel=3,
                )
                os.ftruncate(self.fd, size - len(line))
                os.fsync(self.fd)

    def write(self, record: Record) -> None:
        """Appends one record as one line."""
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        view = memoryview(line)
        try:
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
            now = time.monotonic()
            if now - self.last_sync >= FSYNC_EVERY_S:
                os.fsync(self.fd)
                self.last_sync = now
        except OSError as e:  # a full disk, a file size limit, an I/O error
            raise RecordWriteError(
                f"cannot write {self.path}: {e.strerror}; the games written before are kept "
                "(a partly written last line is dropped on resume): free space, then run "
                "the same command to resume"
            ) from None

    def close(self) -> None:
        """Syncs and closes (releasing the lock)."""
        if self.fd >= 0:
            _WRITER_FDS.discard(self.fd)
            try:
                os.fsync(self.fd)
            except OSError as e:
                raise RecordWriteError(f"cannot sync {self.path}: {e.strerror}") from None
            finally:
                os.close(self.fd)
                self.fd = -1

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def plan_tasks(
    game: str,
    pairs: Sequence[tuple[str, str]],
    matches: int,
    seed: int,
    done: Iterable[tuple[str, str, int, int]] = (),
    overrun_ms: float = DEFAULT_OVERRUN_MS,
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S,
) -> Iterator[GameTask]:
    """The games of `matches` matches of every pair that are not `done`, match-major, made
    one at a time (a run of a million games does not hold a million tasks).

    Match-major order (match 0 of every pair, then match 1, ...) keeps an interrupted run
    balanced across pairs and lets sequential tests see whole matches early.
    """
    finished = set(done)
    plugins = tuple(loaded())  # what this process imported, for workers that did not inherit it
    for match in range(matches):
        for a, b in pairs:
            for game_index in (0, 1):
                if (a, b, match, game_index) not in finished:
                    yield GameTask(
                        game, a, b, seed, match, game_index, overrun_ms, move_timeout_s, plugins
                    )
