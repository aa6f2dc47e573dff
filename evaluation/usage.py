"""What a command takes from its user and gives back, checked: the CLI's commands and the
experiments alike.

Commands raise `UsageError` for anything the user can fix; `chancespiel` prints it as one line
and exits with its status. Checks happen before any game is played or any file is written.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import shlex
from collections.abc import Sequence
from pathlib import Path

import pyspiel

from chancespiel.agents import check_spec, parse_spec
from chancespiel.agents.human import HUMAN
from chancespiel.evaluation.match import error_line
from chancespiel.games.contract import Contract, GameContractError
from chancespiel.games.registry import evaluation_for, parse_parameters

RESULTS_DIR = Path("results")  # fresh outputs go to results/<kind>/run-<timestamp>


class UsageError(Exception):
    """A bad command line (exit status 2) or another error the user can act on: printed as one
    line without a traceback."""

    status = 2

    def __init__(self, message: str, status: int | None = None):
        # one line even where the message quotes the user's input, which may hold newlines
        super().__init__(message.strip().replace("\r", "\\r").replace("\n", "\\n"))
        if status is not None:
            self.status = status


class RunInterruptedError(UsageError):
    """Ctrl-C during a run: exit status 130, as a shell reports SIGINT."""

    status = 130


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
    try:
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


def floats(option: str, text: str) -> list[float]:
    """'0,0.05,0.1' -> [0.0, 0.05, 0.1]; '' -> []."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{option}: comma-separated numbers, not {text!r}") from None


def positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {number}")
    return number


def seed_arg(value: str) -> int:
    """A seed: an integer >= 0 (random.Random(-n) draws the same numbers as random.Random(n),
    so a negative seed would silently repeat another run's dice)."""
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {number}")
    return number


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


def new_output(given: str | Path | None, kind: str, suffix: str = "") -> Path:
    """Where a result that is not resumed goes: `given` if nothing is there yet (or an empty
    directory), else a UsageError; without `given`, a fresh path (`fresh_output`). So a rerun
    of a documented command never writes over the result it made."""
    if given is None:
        return fresh_output(kind, suffix)
    path = Path(given)
    if path.is_dir():
        if any(path.iterdir()):
            raise UsageError(f"--out {path} is not empty: a result is not written over")
    elif path.exists() or path.is_symlink():
        raise UsageError(f"--out {path} exists: a result is not written over")
    return path


def write_text(path: str | Path, text: str) -> None:
    """Writes `text` to `path` (parent folders made), or a UsageError naming the path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
