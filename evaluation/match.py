"""Game records, record files, and resumable runs of matches.

A run plays matches between pairs of agent specs (A, B). Match i of every pair uses the match
seed `seed + i`: the dice of both its games come from `random.Random(seed + i)` and the bots
are seeded with `bot_seed(seed + i, 'a' / 'b')`. Game 0 of a match seats A as player 0, game 1
seats A as player 1. A game is therefore a pure function of (game, A, B, seed, match, game
index) whenever the agents' budgets are deterministic (max_depth, max_nodes; not time_ms), and
results do not depend on the worker count, the backend or the order games finish in.

Record files are JSON Lines, one game per line (compact; spaced here), appended in completion
order as games finish:

    {"v": 5, "game": "python_pig(winscore=20)", "a": "pig_optimal", "b": "hold(n=25)",
     "seed": 0, "match": 3, "game_index": 1, "seats": ["hold(n=25)", "pig_optimal"],
     "key": {"game": "python_pig(dice=2,...,winscore=20)", "a": "pig_optimal",
             "b": "hold(n=25)", "models": [null, null], "dice": 3, "game_index": 1},
     "returns": [-1.0, 1.0], "moves": 14, "history": [...],
     "move_ms": [[0.01, ...], [0.02, ...]], "nodes": [null, null],
     "evaluations": [null, null], "depths": [null, null], "limit_ms": [null, null],
     "overrun_ms": 50.0, "overruns": [0, 0], "clocks": ["wall", "wall"], "error": null,
     "seconds": 0.002, "engine": "compiled", "load": 1.92}

`key` names the game (`GameKey`): the loaded game's string, A's and B's canonical specs
(`canonical_agent`: 'hold' and 'hold(n=20)' are one agent), the SHA-256 of the value model
each searches with (`heuristic=learned`; null for none), the dice (seed + match) and the game
index. Two records of one key are one game, whatever file they are read from; in self-play
(A and B the same agent) the game index alone tells a match's two games apart. Records before
format 4 have no `key`: theirs is made from their fields, with no model named.

`move_ms`, `nodes`, `evaluations` (heuristic calls) and `depths` (the deepest completed
iteration; MCTS: the deepest decision ply of its tree) hold one list per seat (null when the
agent reports none; records written before a field was counted lack it),
`limit_ms` each seat's per-move budget (the spec's `time_ms`, or null), `overruns` the number
of moves longer than limit_ms + overrun_ms, `clocks` the clock each seat's `move_ms` were
measured by: "cpu" for an agent whose budget is CPU time (`clock=cpu`), so that its moves are
judged on the clock it spends, otherwise "wall" (records written before the field: "wall").
`error` is null, or {"seat", "spec", "kind", "message"} when a bot raised (kind: the
exception's class; 'BuildError' if the bot could not even be built) or exceeded the hard move
limit ('MoveTimeoutError'; the record of a worker killed for it has no moves or history): the
game is then a forfeit, with returns -1 for the failing seat and +1 for the other. When the
worker process died ('Crash'), "seat" and returns are null: the game is counted but not scored.
`seconds` is the game's wall time, `engine` the engine that played it ('compiled' or 'pure
Python') and `load` the machine's one-minute load average when it started (what a millisecond
of search bought depends on both).

Resume: the unit is the game, not the match (the two games of a match depend only on the match
seed, so either can be replayed alone, and games are also the unit of parallel work). A run
reads the file, checks that every record belongs to it (same game and seed, one of its pairs
by canonical spec and value model: a file of games played with another model is refused,
naming both digests), and plays exactly the games whose keys are missing, so a match
whose first game was written before a kill gets only its second game replayed. Each record
is written with one `write` of the whole line and fsynced at least once a second; a line torn
by a kill (the file does not end with a newline) is dropped with a warning and its game
replayed (a whole record short of its newline only is kept), while an unreadable complete line
is an error naming it. Only the parent process
writes, under an exclusive lock, so two runs cannot append to one file at once.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import re
import stat
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import pyspiel

from chancespiel import engine, files
from chancespiel.agents import make_bot
from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.registry import canonical_spec, parse_spec, resolve_spec
from chancespiel.agents.search_common import CLOCKS
from chancespiel.evaluation.play import (
    MoveWatch,
    bot_seed,
    forfeit_returns,
    move_clock,
    play_game,
    score_of,
)
from chancespiel.files import is_gzip, open_regular, read_chunks, shown
from chancespiel.games.contract import GameContractError
from chancespiel.games.learned import LEARNED_HEURISTIC, ModelError, game_model
from chancespiel.games.registry import parse_parameters
from chancespiel.plugins import PluginError, load_plugins, loaded, located, print_traceback

# 2 adds "version" and "rules"; 3 adds "depths", "engine" and "load"; 4 adds "key"; 5 adds
# "clocks" (move times on the CPU clock for agents whose budget is CPU time). Older records
# read the same otherwise.
FORMAT_VERSION = 5
KEYED_VERSION = 4  # the first format whose records carry their key
MODEL_SHOWN = 12  # hex digits of a model's digest in names people read
DEFAULT_OVERRUN_MS = 50.0
DEFAULT_MOVE_TIMEOUT_S = 60.0
FSYNC_EVERY_S = 1.0
LOAD_CHUNK = 1 << 20
MAX_LINE_BYTES = 64 << 20  # far above any game's record; a longer line is not ours

Record = dict[str, Any]


class RecordFileError(Exception):
    """A record file that cannot be used: corrupt, or holding another run's games."""


class Agent(NamedTuple):  # a tuple, not a dataclass: reports make one per record and side
    """Who plays one side: the agent's canonical spec (`canonical_agent`) and the SHA-256 of
    the value model it searches with (None: it uses none, or its record, older than format 4,
    does not say)."""

    spec: str
    model: str | None = None

    def label(self, spelling: str) -> str:
        """`spelling` (as a record or a command wrote the spec) with the agent's model, to
        tell it from the same spec with another model."""
        model = "none recorded" if self.model is None else self.model[:MODEL_SHOWN]
        return f"{spelling} [model {model}]"


PairKey = tuple[str, Agent, Agent]  # the canonical game, A, B


class GameKey(NamedTuple):
    """What names one game, in any run or file: the canonical game, agents A and B, the dice
    (seed + match) and the game index (0: A is player 0). A game is a pure function of these
    when the agents' budgets are deterministic, so two records of one key are one game."""

    game: str
    a: Agent
    b: Agent
    dice: int
    game_index: int

    @property
    def pair(self) -> PairKey:
        """The game and its agents A and B: the records of one pairing share it."""
        return (self.game, self.a, self.b)

    @property
    def seats(self) -> tuple[Agent, Agent]:
        """The agents of player 0 and player 1."""
        return (self.a, self.b) if self.game_index == 0 else (self.b, self.a)

    def as_json(self) -> dict[str, Any]:
        """The record's "key" field."""
        return {
            "game": self.game,
            "a": self.a.spec,
            "b": self.b.spec,
            "models": [self.a.model, self.b.model],
            "dice": self.dice,
            "game_index": self.game_index,
        }


_CANONICAL: dict[str, str] = {}  # spec -> canonical spec, for agents this process knows


def canonical_agent(spec: str) -> str:
    """One spelling per agent (`agents.registry.canonical_spec`: the name and, sorted, the
    parameters that differ from their defaults), so that two spellings of one agent compare
    equal wherever specs are compared; an agent this process does not know (a plugin's, not
    imported) keeps its own spelling."""
    found = _known_canonical(spec)
    return spec.strip() if found is None else found


def _known_canonical(spec: str) -> str | None:
    """canonical_spec(spec), or None for an agent this process does not know."""
    found = _CANONICAL.get(spec)
    if found is None:
        try:
            found = canonical_spec(spec)
        except ValueError:  # not cached: a plugin may register the agent later
            return None
        if len(_CANONICAL) >= 4096:
            _CANONICAL.clear()
        _CANONICAL[spec] = found
    return found


def model_of(game_string: str, spec: str) -> str | None:
    """The SHA-256 of the value model agent `spec` searches with in the game: the game's
    learned value (games.learned: shipped, or swapped by a plugin) when the spec's heuristic
    is `learned`; None for an agent that uses none, or one this process does not know.

    Raises:
      ModelError: if the game has no model that fits it.
    """
    try:
        params = resolve_spec(spec)[1]
    except ValueError:
        return None
    if params.get("heuristic") != LEARNED_HEURISTIC:
        return None
    return game_model(load_game_cached(game_string)).sha256


def model_name(model: str | None) -> str:
    """A model's digest for messages ('none recorded' for None)."""
    return "none recorded" if model is None else f"sha256:{model}"


def run_agent(game_string: str, spec: str) -> Agent:
    """The Agent that `spec` plays in the game in this process (its model as loaded here).

    Raises:
      ModelError: as model_of.
    """
    return Agent(canonical_agent(spec), model_of(game_string, spec))


def game_key(record: Record) -> GameKey:
    """The key of a record: its "key" field, or for a record before format 4 one made from its
    game, a, b, seed, match and game_index (no model named). Specs and the game are
    canonicalised again as this process knows them, so keys of all formats compare."""
    stored = record.get("key")
    if stored is None:
        return GameKey(
            canonical_game(record["game"]),
            Agent(canonical_agent(record["a"])),
            Agent(canonical_agent(record["b"])),
            match_dice(record),
            record["game_index"],
        )
    model_a, model_b = stored["models"]
    return GameKey(
        canonical_game(stored["game"]),
        Agent(canonical_agent(stored["a"]), model_a),
        Agent(canonical_agent(stored["b"]), model_b),
        stored["dice"],
        stored["game_index"],
    )


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
    agents: tuple[Agent, Agent] | None = None  # A and B as the run found them (None: here)

    def identities(self) -> tuple[Agent, Agent]:
        """A's and B's Agent: as the run planned them, or as this process finds them.

        Raises:
          ModelError: as model_of.
        """
        return self.agents or (run_agent(self.game, self.a), run_agent(self.game, self.b))

    def key(self) -> GameKey:
        """The game's key (what its record's "key" field holds).

        Raises:
          ModelError: as model_of.
        """
        a, b = self.identities()
        return GameKey(canonical_game(self.game), a, b, self.seed + self.match, self.game_index)

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


def move_timing(spec: str, bot: pyspiel.Bot) -> tuple[float | None, str]:
    """A bot's per-move time budget and the clock its moves are timed by: its limits' `time_ms`
    (its own default included) and its budget's clock (`move_clock`), or for a bot that keeps
    none (a plugin's, a pyspiel bot), the `time_ms` and `clock` its spec names."""
    if isinstance(bot, PolicyBot) and bot.limits is not None:
        return bot.limits.time_ms, move_clock(bot)
    params = resolve_spec(spec)[1]
    limit, clock = params.get("time_ms"), params.get("clock")
    return (None if limit is None else float(limit)), (clock if clock in CLOCKS else "wall")


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


def _base_record(task: GameTask, key: GameKey | None = None) -> Record:
    if key is None:
        try:
            key = task.key()
        except ModelError:  # a task made by hand whose model this process lacks: none named
            a, b = Agent(canonical_agent(task.a)), Agent(canonical_agent(task.b))
            key = dataclasses.replace(task, agents=(a, b)).key()
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
        "key": key.as_json(),
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
        key = dataclasses.replace(task, agents=None).key()  # as this process finds them
    except (PluginError, pyspiel.SpielError, ValueError) as e:  # ModelError too
        # this worker lacks what the run's process has: not a result of the game
        message = f"the worker cannot set up the game: {error_line(e)}"
        return crash_record(task, message, kind=MISSING)
    planned_agents = task.agents or (key.a, key.b)
    for found, planned in zip((key.a, key.b), planned_agents, strict=True):
        if found != planned:  # a plugin or its environment differs here: the record would lie
            message = (
                f"the worker reads agent {found.spec} where the run reads {planned.spec}"
                if found.spec != planned.spec
                else f"the worker's value model of {found.spec} is {model_name(found.model)}, "
                f"the run's is {model_name(planned.model)}"
            )
            return crash_record(task, message, kind=MISSING)
    match_seed = task.seed + task.match
    sides = ("a", "b") if task.game_index == 0 else ("b", "a")
    bots: list[pyspiel.Bot] = []
    for player, (spec, side) in enumerate(zip(task.seats, sides, strict=True)):
        try:
            bots.append(make_bot(spec, game, player, bot_seed(match_seed, side)))
        except Exception as e:
            print_traceback(e, f"building the bot {spec}")
            message = f"building the bot failed: {type(e).__name__}: {located(e)}"
            return crash_record(task, message, player)
    timing = [move_timing(spec, bot) for spec, bot in zip(task.seats, bots, strict=True)]
    limits = [limit for limit, _ in timing]
    try:
        played = play_game(
            game,
            bots,
            match_seed,
            catch_errors=True,
            move_timeout_s=task.move_timeout_s,
            watch=watch,
            clocks=[clock for _, clock in timing],
        )
    except GameContractError as e:  # no result of the agents: the run stops, nothing written
        print_traceback(e, f"game {task.game}")
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
        **_base_record(task, key),
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
        "clocks": played.clocks,
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


def _is_real(value: Any) -> bool:
    """A number, NaN and infinities included (record_problem says what they may be)."""
    return type(value) in (int, float)


_REQUIRED = ("game", "a", "b", "seed", "match", "game_index", "returns")
# Fields every version wrote beside those (a record without them is not one of ours), and the
# kind of every field a reader uses: a record's field of another type is refused when read,
# never met later as a TypeError.
_WRITTEN = (
    "seats", "moves", "history", "move_ms", "nodes", "limit_ms", "overrun_ms", "overruns",
    "error", "seconds",
)  # fmt: skip
_PER_SEAT = files.list_of(files.maybe(files.list_of(files.maybe(files.NATURAL))), 2)
_CLOCK = files.Kind(f"one of {', '.join(CLOCKS)}", lambda v: type(v) is str and v in CLOCKS)
_ERROR_FIELDS = {
    "seat": files.maybe(files.NATURAL),
    "spec": files.maybe(files.TEXT),
    "kind": files.TEXT,
    "message": files.TEXT,
}
_ERROR = files.Kind(
    "null or an object with seat, spec, kind and message",
    lambda v: (
        v is None
        or (type(v) is dict and files.field_problem(v, _ERROR_FIELDS, ("kind", "message")) is None)
    ),
)
_FIELDS = {
    "v": files.NATURAL,
    "version": files.TEXT,
    "rules": files.TEXT,
    "game": files.TEXT,
    "a": files.TEXT,
    "b": files.TEXT,
    "seed": files.INT,
    "match": files.NATURAL,
    "game_index": files.NATURAL,
    "seats": files.list_of(files.TEXT, 2),
    "returns": files.maybe(files.list_of(files.Kind("a number", _is_real), 2)),
    "moves": files.NATURAL,
    "history": files.list_of(files.INT),
    "move_ms": files.list_of(files.list_of(files.Kind("a number", _is_real)), 2),
    "nodes": _PER_SEAT,
    "evaluations": _PER_SEAT,
    "depths": _PER_SEAT,
    "limit_ms": files.list_of(files.maybe(files.NUMBER), 2),
    "overrun_ms": files.NUMBER,
    "overruns": files.list_of(files.NATURAL, 2),
    "clocks": files.list_of(_CLOCK, 2),
    "error": _ERROR,
    "seconds": files.NUMBER,
    "engine": files.TEXT,
    "load": files.maybe(files.NUMBER),
}


def _parse_line(line: bytes, number: int, path: str) -> Record | None:
    """The record of one complete line (None for a blank one)."""
    if not line.strip():
        return None
    try:
        record = files.loads(line)
    except files.JsonError as e:
        raise RecordFileError(f"{path}: line {number} is not valid JSON ({e})") from None
    return checked_record(record, f"{path}: line {number}")


def checked_record(record: Any, where: str) -> Record:
    """`record` (a game record made or edited in memory) checked as a file's line is read.

    Raises:
      RecordFileError: naming `where` and what is wrong.
    """
    if not isinstance(record, dict) or any(k not in record for k in _REQUIRED):
        raise RecordFileError(f"{where} is not a chancespiel game record")
    problem = record_problem(record) or files.field_problem(record, _FIELDS, _WRITTEN)
    if problem is not None:
        raise RecordFileError(f"{where}: {problem}")
    return record


@functools.lru_cache(maxsize=256)
def _game_problem(game_string: str) -> tuple[str | None, float, float]:
    """(problem, min utility, max utility) of a record's game string; a game this process
    does not know (a plugin's, not imported) has no problem and unbounded utilities: records
    are data, read without the game's code, and checked against what is loaded."""
    try:
        name = parse_parameters(game_string)["name"]
    except (ValueError, KeyError) as e:
        return f"game {shown(game_string)} does not parse ({e})", 0.0, 0.0
    if name not in pyspiel.registered_names():  # a game this process does not know
        return None, -math.inf, math.inf
    try:
        game = load_game_cached(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as e:
        return f"game {shown(game_string)} does not load ({error_line(e)})", 0.0, 0.0
    return None, game.min_utility(), game.max_utility()


@functools.lru_cache(maxsize=1024)
def _spec_problem(spec: str) -> str | None:
    # syntax only: records are data, readable without the agents' code (a plugin's agents)
    try:
        parse_spec(spec)
    except ValueError as e:
        return f"agent spec {shown(spec)} does not parse ({e})"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def record_problem(record: Record) -> str | None:
    """What is wrong with a game record's fields (None if nothing): reports count what records
    say, so a record that cannot be right is refused rather than miscounted."""
    game = record["game"]
    if not isinstance(game, str) or not game:
        return f"game must be a game string, got {shown(game)}"
    for side in ("a", "b"):
        spec = record[side]
        if not isinstance(spec, str) or not spec:
            return f"{side} must be an agent spec, got {shown(spec)}"
        if (problem := _spec_problem(spec)) is not None:
            return problem
    if not _is_int(record["seed"]):
        return f"seed must be an integer, got {shown(record['seed'])}"
    if not _is_int(record["match"]) or record["match"] < 0:
        return f"match must be an integer >= 0, got {shown(record['match'])}"
    if record["game_index"] not in (0, 1) or isinstance(record["game_index"], bool):
        return f"game_index must be 0 or 1, got {shown(record['game_index'])}"
    problem, low, high = _game_problem(game)
    if problem is not None:
        return problem
    returns = record["returns"]
    if returns is None:  # an unscored game (its worker died): it must say why
        return None if record.get("error") else "returns missing without an error"
    if not isinstance(returns, list) or len(returns) != 2:
        return f"returns must be a list of two numbers, got {shown(returns)}"
    for value in returns:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"returns must be numbers, got {shown(returns)}"
        if not (low - 1e-9 <= value <= high + 1e-9 and math.isfinite(value)):  # NaN too
            return f"returns {shown(returns)} outside the game's utilities [{low:g}, {high:g}]"
    seats = record.get("seats")
    if seats is not None and (
        not isinstance(seats, list) or sorted(map(str, seats)) != sorted([record["a"], record["b"]])
    ):
        return f"seats {shown(seats)} are not the record's agents a and b"
    if (problem := _key_problem(record)) is not None:
        return problem
    if (problem := _times_problem(record.get("move_ms"))) is not None:
        return problem
    if record.get("history") is not None and math.isfinite(low):  # a game this process knows
        return _history_problem(game, record["history"], returns, not record.get("error"))
    return None


_KEY_FIELDS = ("game", "a", "b", "models", "dice", "game_index")


def _key_problem(record: Record) -> str | None:
    """What is wrong with a record's key (None if nothing): it must name the record's own game,
    agents, dice and game index, so that no reader counts the game as another."""
    key = record.get("key")
    if key is None:
        version = record.get("v")
        if isinstance(version, int) and version >= KEYED_VERSION:
            return f"a record of format {version} without its key"
        return None
    if not isinstance(key, dict) or sorted(key) != sorted(_KEY_FIELDS):
        return f"key must be an object of {', '.join(_KEY_FIELDS)}"
    if not _is_int(key["dice"]) or key["dice"] != record["seed"] + record["match"]:
        return f"key dice {key['dice']!r} are not the record's seed + match"
    if not _is_int(key["game_index"]) or key["game_index"] != record["game_index"]:
        return f"key game_index {key['game_index']!r} is not the record's"
    if not isinstance(key["game"], str) or (
        is_known_game(record["game"])
        and canonical_game(key["game"]) != canonical_game(record["game"])
    ):
        return f"key game {key['game']!r} is not the record's game"
    models = key["models"]
    if not (
        isinstance(models, list)
        and len(models) == 2
        and all(m is None or (isinstance(m, str) and _DIGEST.fullmatch(m)) for m in models)
    ):
        return "key models must be two SHA-256 digests (64 hex digits) or nulls"
    for side in ("a", "b"):
        spec = key[side]
        if not isinstance(spec, str) or not spec:
            return f"key {side} must be an agent spec, got {spec!r}"
        if (problem := _spec_problem(spec)) is not None:
            return f"key: {problem}"
        mine = _known_canonical(record[side])
        if mine is not None and mine != _known_canonical(spec):
            return f"key {side} {spec!r} is not the record's agent {record[side]!r}"
    return None


_DIGEST = re.compile("[0-9a-f]{64}")


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
            return f"move_ms must hold numbers, got {shown(value)}"
        if not 0.0 <= value < math.inf:  # NaN fails this too
            return f"move_ms must be finite and >= 0, got {shown(value)}"
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
        return f"returns {shown(returns)} are not the history's {shown(state.returns())}"
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


_RECORD_HEAD = re.compile(rb'\{"v":[0-9]+,"')  # how every record line begins (RecordWriter)
_RECORD_START = b'{"v":'


def _whole_record(tail: bytes) -> Record | None:
    """The record of `tail`, the bytes after a file's last newline, if they are a whole record
    short of its newline only (a write interrupted at its last byte, or a file edited by
    hand): kept, not played again."""
    if not _RECORD_HEAD.match(tail):
        return None
    try:
        return _parse_line(tail, 0, "")
    except RecordFileError:
        return None


def _torn_record(tail: bytes, has_records: bool) -> bool:
    """Whether `tail`, the bytes after a file's last newline, can be a record line cut short
    by an interrupted write, and so be dropped: it begins as RecordWriter begins a line
    (compact JSON, its version first) and is not a JSON value of something else, or, in a file
    holding records, it is a shorter start of a line. Anything else is another's text: a file
    ending so is not a record file, and is never "repaired"."""
    if _RECORD_HEAD.match(tail):
        try:
            files.loads(tail)
        except files.JsonError:
            return True  # cut short
        return False  # whole JSON, not a record (`_whole_record` keeps records): another's
    return has_records and _RECORD_START.startswith(tail)


def _file_lines(fd: int, path: str) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, line, complete) of the file open at `fd`, read in chunks from its start;
    the last item is incomplete when the file does not end with a newline.

    Raises:
      RecordFileError: for a line longer than MAX_LINE_BYTES (no record is that long, so the
        file is not a record file: /dev/zero would otherwise fill the memory).
    """
    number, partial = 0, bytearray()  # partial: the line not yet ended
    try:
        for chunk in read_chunks(fd, LOAD_CHUNK):  # inflated when the file is gzip
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
    except OSError as e:  # a gzip stream that is not one
        raise RecordFileError(f"cannot read {path}: {e.strerror}") from None
    if partial:
        yield number + 1, bytes(partial), False


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """All records of a file; a torn last line is skipped with a warning (the file is kept).

    Raises:
      RecordFileError: for what is not a record file (naming the first bad line).
    """
    return [record for _, record in numbered_records(path)]


def numbered_records(path: str | os.PathLike[str]) -> list[tuple[int, Record]]:
    """All records of a file with their line numbers (from 1; blank lines hold none), as
    `read_records` reads them.

    Raises:
      RecordFileError: as read_records.
    """
    name = str(path)
    try:
        fd = open_regular(name)
    except OSError as e:
        raise RecordFileError(f"cannot read {name}: {e.strerror}") from None
    records: list[tuple[int, Record]] = []
    try:
        for number, line, complete in _file_lines(fd, name):
            if not complete:
                # reading changes nothing: a last line that begins a JSON object is a whole
                # record short of its newline (kept), or taken for a torn record (any
                # format's) and skipped; RecordWriter, which cuts it, asks more
                if not line.startswith(b"{"):
                    raise RecordFileError(f"{name}: line {number} is not a chancespiel game record")
                if (record := _whole_record(line)) is not None:
                    records.append((number, record))
                else:
                    warnings.warn(
                        f"{name}: the last line is incomplete (torn by an interrupted write); "
                        "ignored",
                        stacklevel=2,
                    )
            elif (record := _parse_line(line, number, name)) is not None:
                records.append((number, record))
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

    A game is its key (`game_key`): match 5 of a run with seed 0 and match 0 of a run with
    seed 5 are the same game (both play on the dice and bot seeds of 5), as is one game read
    from two files or written under two spellings of its agents: each counts once. Two
    different results of one game (timed agents can differ on the same dice) are refused,
    since overlapping seed ranges are not independent evidence. A game lost by the
    infrastructure (is_lost) and played again later counts as the later game.

    Raises:
      RecordFileError: for two different results of one game.
    """
    records = list(records)
    keys = [game_key(r) for r in records]
    played = {key for key, r in zip(keys, records, strict=True) if not is_lost(r)}
    seen: dict[GameKey, Record] = {}
    unique = []
    repeats = 0
    for key, record in zip(keys, records, strict=True):
        if is_lost(record) and key in played:
            continue  # superseded by the game played again
        if key in seen:
            first = seen[key]
            if _outcome(first) != _outcome(record):
                raise RecordFileError(
                    f"game {key.game_index} of {record['a']} vs {record['b']} on the dice of "
                    f"seed {key.dice} (seed + match) is two different games (returns "
                    f"{first['returns']} and {record['returns']}{_how_different(first, record)}): "
                    "runs whose seed ranges overlap share their dice and are not independent "
                    "evidence; report them separately"
                )
            repeats += 1
        else:
            seen[key] = record
            unique.append(record)
    return unique, repeats


def shared_dice(records: Iterable[Record]) -> int:
    """How many of the records (each game once) share their seats and dice with a game of
    another pairing: B vs A played on the seeds of A vs B seats the same agents on the same
    dice as A vs B's second games. The bots' seeds follow their side, so these are other
    games, but they are not independent evidence (with deterministic agents, the same moves)."""
    boards: dict[tuple[Any, ...], set[PairKey]] = {}
    keys = [game_key(r) for r in records]
    for key in keys:
        boards.setdefault((key.game, key.seats, key.dice), set()).add(key.pair)
    return sum(len(boards[(key.game, key.seats, key.dice)]) > 1 for key in keys)


# A version as records name it: numbers and dots, then anything (0.3.0, 0.3.0.dev1, 1.0+local).
_VERSION = re.compile(r"(\d+(?:\.\d+)*)(\S*)")


def _version_numbers(version: str) -> tuple[int, ...] | None:
    """(0, 3, 0) of '0.3.0' and of '0.3.0.dev1'; None for text that is not a version."""
    found = _VERSION.fullmatch(version)
    return None if found is None else tuple(int(part) for part in found[1].split("."))


@dataclass(frozen=True)
class ChangedSearch:
    """Agents whose spec strings run another search from `version` on: records of earlier
    versions under the same specs played the former one, so a run never mixes the two (they
    stay readable as what they were)."""

    version: tuple[int, int]
    agents: tuple[str, ...]
    also: str  # a spec with this text is affected whatever its agent ('' for none)
    what: str  # the search, as an error names it
    former: str  # what the former one was

    def played_before(self, record: Record) -> bool:
        """True if an affected agent played `record` before `version`."""
        version = record.get("version")  # absent in records of format 1, all of them earlier
        if version is not None:
            numbers = _version_numbers(str(version))
            if numbers is None:
                return False  # 'unknown': a source tree, no claim either way
            if numbers[:2] >= self.version:
                return False
        return any(
            spec.split("(")[0].strip() in self.agents or (self.also and self.also in spec)
            for spec in (record["a"], record["b"])
        )


def newer_record(record: Record) -> str | None:
    """What makes `record` a record this chancespiel cannot extend (None if nothing): a newer
    record format, a newer version (whose searches may differ under the same specs), or a
    version that is not one. Records of a source tree ('unknown') make no claim."""
    form = record.get("v")
    if isinstance(form, int) and form > FORMAT_VERSION:
        return f"record format {form}, newer than this chancespiel's {FORMAT_VERSION}"
    version = record.get("version")
    if not isinstance(version, str) or version == "unknown":
        return None
    numbers = _version_numbers(version)
    if numbers is None:
        return f"version {version!r}, which is not a version number"
    ours = _version_numbers(package_version())
    if ours is not None and numbers > ours:
        return f"version {version}, newer than this chancespiel's {package_version()}"
    return None


CHANGED_SEARCHES: Final = (
    ChangedSearch(
        (0, 2),
        ("expss", "star1ss", "star2ss"),
        "samples=",
        "sampled search (samples=c)",
        "the former default is resample, full_root_window, distrust_decided, solve_exhausted "
        "and table=path",
    ),
    ChangedSearch(
        (0, 3),
        ("star1hs", "star2hs"),
        "",
        "hybrid sampled search",
        "the former default drew systematically, without fit_within_ply, classic_within_ply "
        "and growth_two_back",
    ),
    ChangedSearch(
        (0, 4),
        ("star1hs", "star2hs"),
        "",
        "hybrid sampled search",
        "the former default priced the first classic_within_ply cap from the last growth, "
        "without first_cap_two_back",
    ),
    ChangedSearch(
        (0, 5),
        ("star1hs", "star2hs"),
        "",
        "hybrid sampled search",
        "the former default sampled every chance node of more outcomes than the width "
        "(exact_up_to=the width)",
    ),
)


@dataclass(frozen=True)
class RunIdentity:
    """What the records of one run's file share: the game, the seed and the pairs, each agent
    by its canonical spec and value model (another spelling of a spec is the same agent;
    another model is not)."""

    game: str
    seed: int
    pairs: tuple[tuple[str, str], ...]

    @functools.cached_property
    def agents(self) -> dict[str, Agent]:
        """The Agent of each spec of the pairs, as this process plays it.

        Raises:
          ModelError: as model_of.
        """
        return {spec: run_agent(self.game, spec) for pair in self.pairs for spec in pair}

    @functools.cached_property
    def pair_agents(self) -> set[tuple[Agent, Agent]]:
        """A and B of each pair."""
        return {(self.agents[a], self.agents[b]) for a, b in self.pairs}

    def check(self, records: Iterable[Record], path: str) -> None:
        """Raises RecordFileError if a record belongs to another run."""
        for number, record in enumerate(records, start=1):
            self.check_one(record, number, path)

    def check_one(self, record: Record, number: int, path: str) -> None:
        """Raises RecordFileError if the `number`-th record belongs to another run."""
        key = game_key(record)
        problem = None
        changed = next((c for c in CHANGED_SEARCHES if c.played_before(record)), None)
        if key.game != canonical_game(self.game):
            problem = f"game {record['game']!r}, not {self.game!r}"
        elif record["seed"] != self.seed:
            problem = f"seed {record['seed']}, not {self.seed}"
        elif (newer := newer_record(record)) is not None:
            raise RecordFileError(
                f"{path} holds games this chancespiel cannot extend (record {number} has "
                f"{newer}): resume it with the version that wrote it, or write to another file"
            )
        elif changed is not None:  # (its key may name options that are now defaults)
            version = record.get("version", "< 0.2")
            raise RecordFileError(
                f"{path} holds games of another search (record {number} has version "
                f"{version}, whose {changed.what} was not today's; docs/agents.md: "
                f"{changed.former}): resume it with the version that wrote it, or write to "
                "another file"
            )
        elif (key.a, key.b) not in self.pair_agents:
            for a, b in self.pair_agents:
                if (a.spec, b.spec) == (key.a.spec, key.b.spec):  # the specs, not the models
                    side, theirs, mine = ("a", key.a, a) if key.a != a else ("b", key.b, b)
                    if theirs.model is None:  # a record older than format 4
                        raise RecordFileError(
                            f"{path} holds games that do not name their value model (record "
                            f"{number}, {record[side]}: written before records named models); "
                            f"this run's is {model_name(mine.model)}: write to another file"
                        )
                    raise RecordFileError(
                        f"{path} holds games of another value model (record {number}: "
                        f"{record[side]} searched with {model_name(theirs.model)}, this run's "
                        f"model is {model_name(mine.model)}): resume with the same model, or "
                        "write to another file"
                    )
            problem = f"the pair {record['a']!r} vs {record['b']!r}, which this run does not play"
        if problem is not None:
            raise RecordFileError(
                f"{path} holds games of another run (record {number} has {problem}); "
                "resume with the same game, specs (in the same order) and seed, "
                "or write to another file"
            )


class RecordWriteError(RecordFileError):
    """Writing a record failed (a full disk, say): the run stops, keeping what was written."""


_COMPRESSED = (
    "{}: records are appended to plain files; to extend a compressed one, decompress it "
    "first (gunzip); compress a finished one with gzip"
)


class RecordWriter:
    """Appends records to a file, one whole line per write, under an exclusive lock.

    `records` holds the records the file had when opened (written ones are not kept, so a
    long run's memory does not grow with its games). Opening repairs a torn last line
    (truncating it, with a warning), and the next write ends a whole record that lacks only
    its newline, so that the next record starts on a line of its own. Data is fsynced at least
    every FSYNC_EVERY_S and on close.
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
        if self.path.endswith(".gz"):  # refused before anything is created
            raise RecordFileError(_COMPRESSED.format(self.path))
        try:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:
            raise RecordFileError(f"cannot open {self.path}: {e.strerror}") from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):  # /dev/full, a FIFO, a directory...
            os.close(self.fd)
            raise RecordFileError(f"{self.path} is not a regular file; give a file to write")
        if is_gzip(self.fd):
            os.close(self.fd)
            raise RecordFileError(_COMPRESSED.format(self.path))
        try:
            files.lock(self.fd, self.path)  # released if this process dies; no worker has it
        except files.LockedError as e:
            os.close(self.fd)
            who = "another command" if e.holder is None else f"another command (pid {e.holder})"
            raise RecordFileError(f"{self.path} is being written by {who}") from None
        self.last_sync = time.monotonic()
        self.records: list[Record] = []
        self.pending = b""  # bytes the next write puts before its record
        try:
            self._load()
            files.claim_name(self.path)  # in an output directory: a file of ours
        except OSError as e:
            self.close()
            raise RecordFileError(f"cannot write {self.path}: {e.strerror}") from None
        except BaseException:
            self.close()
            raise

    def _load(self) -> None:
        size = os.fstat(self.fd).st_size
        read = 0
        for number, line, complete in _file_lines(self.fd, self.path):
            if complete:
                record = _parse_line(line, number, self.path)
                if record is None:
                    continue
                read += 1
                if self.on_record is not None:
                    self.on_record(record)
                else:
                    self.records.append(record)
            elif (record := _whole_record(line)) is not None:
                if self.on_record is not None:
                    self.on_record(record)
                else:
                    self.records.append(record)
                warnings.warn(
                    f"{self.path}: line {number} lacks its newline: its game is kept",
                    stacklevel=3,
                )
                # Written before the next record, so that a run refused after opening the
                # file (another run's records) leaves it as it was.
                self.pending = b"\n"
            elif not _torn_record(line, read > 0):  # not our torn write: not our file
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
        line = self.pending + (json.dumps(record, separators=(",", ":")) + "\n").encode()
        view = memoryview(line)
        try:
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
            self.pending = b""
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
            try:
                os.fsync(self.fd)
            except OSError as e:
                raise RecordWriteError(f"cannot sync {self.path}: {e.strerror}") from None
            finally:
                files.unlock(self.fd)
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
    done: Iterable[GameKey] = (),
    overrun_ms: float = DEFAULT_OVERRUN_MS,
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S,
    agents: Mapping[str, Agent] | None = None,
) -> Iterator[GameTask]:
    """The games of `matches` matches of every pair whose keys are not `done`, match-major,
    made one at a time (a run of a million games does not hold a million tasks). `agents`:
    the Agent of each spec (RunIdentity.agents; found here if not given). A pair that is
    another spelling of an earlier one is the same games: planned once.

    Match-major order (match 0 of every pair, then match 1, ...) keeps an interrupted run
    balanced across pairs and lets sequential tests see whole matches early.

    Raises:
      ModelError: as model_of.
    """
    finished = set(done)
    plugins = tuple(loaded())  # what this process imported, for workers that did not inherit it
    found = dict(agents) if agents is not None else {}
    canonical = canonical_game(game)
    planned: list[tuple[str, str, tuple[Agent, Agent]]] = []
    for a, b in pairs:
        for spec in (a, b):
            if spec not in found:
                found[spec] = run_agent(game, spec)
        both = (found[a], found[b])
        if all(both != other for *_, other in planned):
            planned.append((a, b, both))
    for match in range(matches):
        for a, b, both in planned:
            for game_index in (0, 1):
                if GameKey(canonical, *both, seed + match, game_index) not in finished:
                    yield GameTask(
                        game,
                        a,
                        b,
                        seed,
                        match,
                        game_index,
                        overrun_ms,
                        move_timeout_s,
                        plugins,
                        both,
                    )
