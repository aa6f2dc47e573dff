"""What a command takes from its user and gives back, checked: the CLI's commands and the
experiments alike.

Commands raise `UsageError` for anything the user can fix; `chancespiel` prints it as one line
and exits with its status. Checks happen before any game is played or any file is written.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

from chancespiel import files
from chancespiel.agents import check_spec, parse_spec
from chancespiel.agents.human import HUMAN
from chancespiel.agents.registry import bound_text
from chancespiel.agents.search_common import MAX_TIME_MS
from chancespiel.evaluation.match import error_line
from chancespiel.games.contract import Contract, GameContractError
from chancespiel.games.registry import evaluation_for, parse_parameters, spiel_errors_quiet

RESULTS_DIR = Path("results")  # fresh outputs go to results/<kind>/run-<timestamp>


def _printable(char: str) -> str:
    """`char`, or its escape (\\n, \\x1e) where it is not printable (a space is)."""
    return char if char.isprintable() else repr(char)[1:-1]


class UsageError(Exception):
    """A bad command line (exit status 2) or another error the user can act on: printed as one
    line without a traceback."""

    status = 2

    def __init__(self, message: str, status: int | None = None):
        # one line even where the message quotes the user's input, which may hold newlines
        # or other characters that end a line (\x1e, \u2028, ...): each is shown escaped
        super().__init__("".join(_printable(char) for char in message.strip()))
        if status is not None:
            self.status = status


class RunInterruptedError(UsageError):
    """Ctrl-C during a run: exit status 130, as a shell reports SIGINT."""

    status = 130


_KINDS = {
    bool: "true or false",
    int: "an integer",
    float: "a number with a decimal point",
    str: "text",
}


def load_game(game_string: str) -> pyspiel.Game:
    """pyspiel.load_game with a one-line error for unknown names (suggesting the closest
    registered ones), bad parameters, or declarations no game can be played by
    (games.contract)."""
    # Names and parameter names are checked here: OpenSpiel's own errors list all its games
    # and print a second copy of the message on stderr.
    try:
        params = parse_parameters(game_string)
        name = params.pop("name")
    except ValueError as e:
        raise UsageError(f"cannot parse game string {e}") from None
    except KeyError:
        raise UsageError(f"cannot parse game string {game_string!r}") from None
    types = {t.short_name: t for t in pyspiel.registered_games()}
    if name not in types:
        close = difflib.get_close_matches(name, list(types), n=4, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"unknown game {name!r}{hint} (chancespiel games lists ours)")
    allowed = types[name].parameter_specification
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise UsageError(
            f"unknown parameter(s) {', '.join(unknown)} of game {name}; "
            f"its parameters: {', '.join(sorted(allowed)) or 'none'}"
        )
    for key, value in params.items():  # OpenSpiel takes a value only of its default's type
        kind = type(allowed[key])
        if kind in (bool, int, float, str) and type(value) is not kind:
            raise UsageError(
                f"parameter {key} of game {name} must be {_KINDS[kind]}, got {value!r}"
            )
    try:
        with spiel_errors_quiet():
            game = pyspiel.load_game(game_string)
    except Exception as e:  # a plugin's game may raise anything while it is made
        raise UsageError(f"cannot load game {game_string!r}: {error_line(e)}") from None
    try:
        Contract.of(game)  # declarations a game is played by (its moves are checked in play)
    except GameContractError as e:
        raise UsageError(str(e)) from None
    return game


def checked_specs(game: pyspiel.Game, specs: Sequence[str], unattended: bool = False) -> None:
    """UsageError unless every spec makes a bot for `game`; `unattended` (games in worker
    processes, nobody at the keyboard) also refuses the human seat."""
    for spec in specs:
        try:
            check_spec(spec, game)
            if unattended and parse_spec(spec)[0] == HUMAN:
                raise ValueError(f"{spec}: the human seat plays only in `chancespiel play`")
        except ValueError as e:
            raise UsageError(str(e)) from None


def check_heuristic(game_string: str, name: str) -> None:
    """UsageError unless `name` is a heuristic of the game (listing the known ones)."""
    try:
        evaluation_for(load_game(game_string), name)
    except ValueError as e:
        raise UsageError(f"--heuristic: {e}") from None


def choices(option: str, text: str | None, known: Sequence[str]) -> list[str]:
    """'a,b' -> ['a', 'b'] in the order of `known` (None: all of `known`), unknown ones refused."""
    if text is None:
        return list(known)
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in known]
    if unknown or not chosen:
        raise UsageError(f"{option}: unknown {unknown or text!r}; known: {', '.join(known)}")
    return [item for item in known if item in chosen]


@dataclass(frozen=True)
class Bounded:
    """An argparse type: a number (`kind`, int or float) within [low, high] (with `open_low`,
    above low), refused in one line outside; `--help` shows the range. Every numeric option
    of the commands and experiments is one, its `high` keeping one run bounded in time and
    memory; `each` takes a comma-separated list of such numbers."""

    kind: type
    low: float
    high: float
    open_low: bool = False

    def range_text(self) -> str:
        """'[1, 100]', or '(0, 3600000]' with an open low end."""
        low, high = bound_text(self.low), bound_text(self.high)
        return f"{'(' if self.open_low else '['}{low}, {high}]"

    def __call__(self, text: str) -> Any:
        try:
            value = self.kind(text)
        except (TypeError, ValueError):
            kind = "an integer" if self.kind is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text!r}") from None
        if value != value:  # NaN
            raise argparse.ArgumentTypeError(f"must be in {self.range_text()}, got {text}")
        if value < self.low or (self.open_low and value == self.low):
            low = f"{'>' if self.open_low else '>='} {bound_text(self.low)}"
            raise argparse.ArgumentTypeError(f"must be {low}, got {text}")
        if value > self.high:
            raise argparse.ArgumentTypeError(f"must be at most {bound_text(self.high)}, got {text}")
        return value

    @property
    def each(self) -> BoundedList:
        """The argparse type of a comma-separated list of these numbers."""
        return BoundedList(self)


@dataclass(frozen=True)
class BoundedList:
    """An argparse type: comma-separated numbers, each `Bounded` by `bounded` (at least one
    unless `empty`, at most MAX_LIST_ITEMS)."""

    bounded: Bounded
    empty: bool = False

    def __call__(self, text: str) -> list[Any]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if len(items) < (0 if self.empty else 1) or len(items) > MAX_LIST_ITEMS:
            raise argparse.ArgumentTypeError(
                f"must be up to {MAX_LIST_ITEMS} comma-separated numbers, got {text!r}"
            )
        try:
            return [self.bounded(item) for item in items]
        except argparse.ArgumentTypeError as e:
            raise argparse.ArgumentTypeError(f"each item {e}") from None


MAX_LIST_ITEMS = 1000
MAX_RUN_SEED = 2**63 - 1  # runs' seeds (bot seeds are 63-bit hashes of them)
MAX_MATCHES = 1_000_000  # matches of a pair in one run
MAX_WORKERS = 1024
MAX_POSITIONS = 100_000  # positions, states, trees or runs an experiment searches
MAX_MINUTES = 10_080.0  # a week
# Depths an experiment searches whole, without a budget (node counts, regressions): a real
# game's tree at depth 12 is already beyond any run.
MAX_FIXED_DEPTH = 12

# A seed: an integer >= 0 (random.Random(-n) draws the same numbers as random.Random(n), so a
# negative seed would silently repeat another run's dice).
seed_arg = Bounded(int, 0, MAX_RUN_SEED)
matches_arg = Bounded(int, 1, MAX_MATCHES)
workers_arg = Bounded(int, 1, MAX_WORKERS)
positions_arg = Bounded(int, 1, MAX_POSITIONS)
time_ms_arg = Bounded(float, 0.0, MAX_TIME_MS, open_low=True)
minutes_arg = Bounded(float, 0.0, MAX_MINUTES, open_low=True)


def command_text(command_line: Sequence[str]) -> str:
    """The command that made a result, as a shell would take it back ('chancespiel ...')."""
    return f"chancespiel {shlex.join(command_line)}"


def made_by(command_line: Sequence[str]) -> dict[str, str]:
    """What made a result, to store beside it: the command, chancespiel's version, the engine
    (compiled or pure Python) and the date."""
    import chancespiel
    from chancespiel import engine

    return {
        "command": command_text(command_line),
        "chancespiel": chancespiel.__version__,
        "engine": engine.describe(),
        "date": datetime.date.today().isoformat(),
    }


def fresh_output(kind: str, suffix: str = "") -> Path:
    """A new path `results/<kind>/run-<UTC timestamp><suffix>` that does not exist yet.

    Commands write here when no `--out` is given, so rerunning a documented command never
    writes over a committed result (`.gitignore` keeps these runs out of git until renamed).
    """
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = RESULTS_DIR / kind
    path = base / f"run-{stamp}{suffix}"
    number = 2
    while path.exists():
        path = base / f"run-{stamp}-{number}{suffix}"
        number += 1
    return path


def new_output(
    given: str | Path | None, kind: str, suffix: str = "", option: str = "--out"
) -> Path:
    """Where a result that is not resumed goes: `given` if nothing is there yet (or an empty
    directory) and its folder can be written, else a UsageError naming `option`; without
    `given`, a fresh path (`fresh_output`). So a rerun of a documented command never writes
    over the result it made, and a path that cannot be written is refused before the work."""
    if given is None:
        return fresh_output(kind, suffix)
    path = _given_path(given, option)
    if path.is_dir():
        if _contents(path):
            raise UsageError(f"{option} {path} is not empty: a result is not written over")
    elif path.exists() or path.is_symlink():
        raise UsageError(f"{option} {path} exists: a result is not written over")
    _check_writable(path if path.is_dir() else path.parent)
    return path


def _given_path(given: str | Path, option: str = "--out") -> Path:
    """`option`'s path; an empty one is refused (it would be the current directory)."""
    if not str(given).strip():
        raise UsageError(f"{option} must name a path, got an empty string")
    path = Path(given)
    try:
        os.lstat(path)
    except FileNotFoundError:
        pass
    except OSError as e:  # a name too long, a loop of links, a file where a folder should be
        raise UsageError(f"{option} {given}: {e.strerror}") from None
    return path


def _contents(folder: Path) -> list[str]:
    """The names in `folder` besides chancespiel's mark and files it was writing when killed
    (none if it does not exist)."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise UsageError(f"cannot read {folder}: {e.strerror}") from None
    return sorted(n for n in names if n != files.MARK and not files.is_temporary(n))


MIN_FREE_BYTES = 1 << 20  # below this a device is full for any result


def _check_writable(path: Path) -> None:
    """UsageError unless `path`, or the nearest folder above it that exists, is a folder this
    process can write in on a device with space left."""
    folder = path.absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {path}: {folder} is not writable")
    try:
        free = os.statvfs(folder)
    except (AttributeError, OSError):  # not a POSIX system: found out when written
        return
    if free.f_flag & getattr(os, "ST_RDONLY", 0):
        raise UsageError(f"cannot write {path}: {folder} is on a read-only file system")
    # (a file system without blocks, /proc or /sys, has no space to count: found out later)
    if free.f_blocks and free.f_bavail * free.f_frsize < MIN_FREE_BYTES:
        raise UsageError(f"cannot write {path}: no space left on the device of {folder}")


_CLAIMED: dict[str, int] = {}  # output directories this process holds: path -> its mark's fd


def output_dir(
    given: str | Path | None,
    kind: str,
    resume: Callable[[Path], bool] | None = None,
    outputs: Sequence[str] = (),
) -> Path:
    """The directory a command writes its results to, claimed for this process: created (or
    an empty one), marked as chancespiel's (files.MARK: only the files listed there are ever
    written over) and locked until the command ends (`release_outputs`) or the process dies.
    Without `given`, a fresh `results/<kind>/run-<timestamp>`.

    With `resume` (a test of whether a directory holds this command's run, to resume or
    summarise), a directory passing it is taken as it is; one written before directories
    were marked is marked then, with those of `outputs` (the names the command writes) that
    are there.

    Raises:
      UsageError: for a path that is not a directory, a directory holding something else,
        one another process is writing (naming its pid), or one that cannot be written.
    """
    path = fresh_output(kind) if given is None else _given_path(given)
    key = str(path.resolve())
    if key in _CLAIMED:  # this process holds it already
        return path
    resuming = check_output_dir(path, resume, outputs)
    try:
        path.mkdir(parents=True, exist_ok=True)
        legacy = resuming and files.marked_names(path) is None
        adopted = tuple(name for name in outputs if legacy and (path / name).is_file())
        fd = files.hold_folder(path, adopted)
    except files.LockedError as e:
        who = "another process" if e.holder is None else f"process {e.holder}"
        raise UsageError(
            f"--out {path} is being written by {who}: wait for it to end, or use another --out"
        ) from None
    except OSError as e:
        raise UsageError(f"cannot write in {path}: {e.strerror}") from None
    try:  # again under the lock: another command may have written there meanwhile
        _refuse_others(path, resuming, resume is not None)
    except UsageError:
        files.unlock(fd)
        raise
    _CLAIMED[key] = fd
    return path


def check_output_dir(
    given: str | Path, resume: Callable[[Path], bool] | None = None, outputs: Sequence[str] = ()
) -> bool:
    """The checks of `output_dir`, without making or claiming anything (a command that reads
    its input first refuses a bad --out before); True if `given` holds a run to resume.

    Raises:
      UsageError: as output_dir.
    """
    path = _given_path(given)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {path} exists and is not a directory")
    found = _contents(path)
    resuming = bool(found) and resume is not None and (resume(path) or _ours(path, outputs))
    _refuse_others(path, resuming, resume is not None)
    _check_writable(path)
    return resuming


def _ours(path: Path, outputs: Sequence[str]) -> bool:
    """Whether everything in `path` was written by chancespiel, some of it by this command
    (one of its `outputs`): a run stopped before it wrote the data `resume` looks for."""
    try:
        names = files.marked_names(path)
    except OSError:
        return False
    found = set(_contents(path))
    return names is not None and found <= names and bool(found & set(outputs))


def _refuse_others(path: Path, resuming: bool, resumable: bool) -> None:
    """UsageError if `path` holds anything and is not a run being resumed (`resumable`: the
    command resumes runs)."""
    found = _contents(path)
    if not found or resuming:
        return
    shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
    what = " and holds no run of this command" if resumable else ""
    raise UsageError(
        f"--out {path} is not empty ({shown}){what}: what is there is not written over; name "
        "a new or empty directory"
    )


def release_outputs() -> None:
    """Unlocks the output directories this process claimed (the command has ended)."""
    for fd in _CLAIMED.values():
        files.unlock(fd)
    _CLAIMED.clear()


def write_text(path: str | Path, text: str) -> None:
    """Writes `text` to `path` whole (parent folders made): a new file, or one chancespiel
    wrote in a directory it marked; else a UsageError naming the path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_output(path, text)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
