"""Pieces every command of the `chancespiel` CLI shares: errors, checked loading, run options.

Commands raise `UsageError` for anything the user can fix; `main` prints it as one line and
exits with its status. Checks happen before any game is played or any file is written.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import functools
import importlib.util
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyspiel

from chancespiel.agents import check_spec, parse_spec
from chancespiel.agents.human import HUMAN
from chancespiel.agents.registry import canonical_spec
from chancespiel.evaluation.match import (
    DEFAULT_MOVE_TIMEOUT_S,
    DEFAULT_OVERRUN_MS,
    RecordFileError,
    RecordWriteError,
    error_line,
    is_known_game,
    read_records,
    unique_records,
)
from chancespiel.evaluation.parallel import BACKENDS, BackendError, check_reachable
from chancespiel.evaluation.runner import RunConfig, RunResult, RunStoppedError, run
from chancespiel.games.registry import evaluation_for, parse_parameters

MAX_OVERRUN_MS = 3_600_000.0  # an hour: anything larger is a typo, not a tolerance
MAX_MOVE_TIMEOUT_S = 86_400.0  # a day per move (0 turns the limit off)
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
    registered ones) or bad parameters."""
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
        return pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as e:
        raise UsageError(f"cannot load game {game_string!r}: {error_line(e)}") from None


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


def two_player_game(game_string: str) -> pyspiel.Game:
    game = load_game(game_string)
    if game.num_players() != 2:
        raise UsageError(f"{game_string}: matches need a two-player game")
    return game


def apply_history(game: pyspiel.Game, history: str) -> pyspiel.State:
    """The state after `history` (chance outcomes included): action ids or moves as the game
    prints them ("roll", "Roll 3+4", case and spaces aside), separated by spaces, or by
    semicolons when a printed move has spaces of its own."""
    state = game.new_initial_state()
    tokens = history.split(";") if ";" in history else history.split()
    for number, token in enumerate((t.strip() for t in tokens), start=1):
        if state.is_terminal():
            raise UsageError(f"history item {number} ({token}): the game is already over")
        legal = state.legal_actions()
        action = _history_action(state, legal, token)
        if action is None:  # checked here: OpenSpiel's message prints the whole state
            shown = ", ".join(
                f"{a} ({state.action_to_string(state.current_player(), a)})" for a in legal[:12]
            ) + (", ..." if len(legal) > 12 else "")
            raise UsageError(f"history item {number} ({token}) is not legal here; legal: {shown}")
        try:
            state.apply_action(action)
        except (ValueError, pyspiel.SpielError) as e:
            message = f"history item {number} ({action}) cannot be applied: {error_line(e)}"
            raise UsageError(message) from None
    return state


def _history_action(state: pyspiel.State, legal: Sequence[int], token: str) -> int | None:
    """The legal action `token` names (its id or its printed name), or None."""
    try:
        action = int(token)
    except ValueError:
        wanted = " ".join(token.split()).casefold()
        player = state.current_player()
        named = [a for a in legal if state.action_to_string(player, a).strip().casefold() == wanted]
        return named[0] if len(named) == 1 else None
    return action if action in legal else None


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


def check_move_timeout(seconds: float) -> None:
    """UsageError unless --move-timeout-s is in [0, MAX_MOVE_TIMEOUT_S] (NaN is not)."""
    if not 0 <= seconds <= MAX_MOVE_TIMEOUT_S:
        raise UsageError(
            f"--move-timeout-s must be in [0, {MAX_MOVE_TIMEOUT_S:g}] (0: no limit), "
            f"got {seconds:g}"
        )


def run_config(
    args: argparse.Namespace,
    game: str,
    pairs: list[tuple[str, str]],
    *,
    records: bool = True,
    **extra: Any,
) -> RunConfig:
    """A RunConfig from the options every playing command shares, checked before any game;
    its record file is `args.out` (checked here), or none with `records=False` (for commands
    whose `--out` is a directory of record files the caller names)."""
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise UsageError("the ray backend needs ray: pip install 'chancespiel[ray]'")
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address is for --backend ray")
    if args.address is not None:
        try:
            check_reachable(args.address)
        except BackendError as e:
            raise UsageError(str(e)) from None
    if not 0 <= args.overrun_ms <= MAX_OVERRUN_MS:
        raise UsageError(
            f"--overrun-ms must be in [0, {MAX_OVERRUN_MS:g}], got {args.overrun_ms:g}"
        )
    check_move_timeout(args.move_timeout_s)
    out = getattr(args, "out", None) if records else None
    if out is not None:
        check_record_path(out)
    return RunConfig(
        game=game,
        pairs=pairs,
        matches=args.matches,
        seed=args.seed,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        out=out,
        overrun_ms=args.overrun_ms,
        move_timeout_s=args.move_timeout_s or None,
        progress=False if args.no_progress else None,
        **extra,
    )


def check_record_path(out: str) -> None:
    """UsageError unless `out` can be a record file (a folder under results/ is made later), so
    that a bad path is refused before anything is printed or played."""
    if not str(out).strip():
        raise UsageError("--out must name a file, got an empty string")
    path = Path(out)
    if path.is_dir():
        raise UsageError(f"cannot open {out}: Is a directory")
    if path.exists() and not path.is_file():
        raise UsageError(f"{out} is not a regular file; give a file to write")
    if path.resolve().is_relative_to(RESULTS_DIR.resolve()):
        return
    if not path.parent.is_dir():
        raise UsageError(f"cannot open {out}: No such file or directory")
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        raise UsageError(f"cannot open {out}: Permission denied")


def run_games(config: RunConfig) -> RunResult:
    """runner.run with its errors as UsageError; Ctrl-C leaves a resumable file."""
    if config.out and Path(config.out).resolve().is_relative_to(RESULTS_DIR.resolve()):
        try:  # folders under results/ are made as needed; elsewhere a missing one is an error
            Path(config.out).parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create the folder of {config.out}: {e.strerror}") from None
    try:
        return run(config)
    except RecordWriteError as e:
        raise UsageError(str(e), status=1) from None
    except (RecordFileError, BackendError) as e:
        raise UsageError(str(e)) from None
    except RunStoppedError as e:
        raise UsageError(str(e), status=1) from None
    except KeyboardInterrupt:
        where = (
            f" {config.out} keeps every finished game; run the same command to resume."
            if config.out
            else ""
        )
        raise RunInterruptedError(f"interrupted.{where}") from None


def speed_line(result: RunResult) -> str:
    if not result.played:
        return f"  nothing to play: all {result.resumed} games were in the file"
    found = f"; {result.resumed} games were already in the file" if result.resumed else ""
    return (
        f"  played {result.played} games in {result.seconds:.1f} s on {result.executor} "
        f"({result.matches_per_second:.2f} matches/s){found}"
    )


@functools.lru_cache(maxsize=1024)
def _canonical_spec(spec: str) -> str:
    try:
        return canonical_spec(spec)
    except ValueError:  # an agent this process does not know (a plugin's): its own spelling
        return spec


def read_all(paths: Sequence[str]) -> list[dict]:
    records: list[dict] = []
    for path in paths:
        try:
            records.extend(read_records(path))
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        except RecordFileError as e:
            raise UsageError(str(e)) from None
    if not records:
        raise UsageError(f"no game records in {', '.join(paths)}")
    unknown = {game for game in {str(r["game"]) for r in records} if not is_known_game(game)}
    for game in sorted(unknown):
        warnings.warn(
            f"game {game!r} is not loaded here: its records are read as written, without "
            "replaying them (chancespiel --import MODULE loads it and checks them)",
            stacklevel=2,
        )
    spelling: dict[str, str] = {}  # one entrant per agent, under its first spelling
    for record in records:
        for side in ("a", "b"):
            record[side] = spelling.setdefault(_canonical_spec(record[side]), record[side])
        if isinstance(record.get("seats"), list):
            record["seats"] = [spelling[_canonical_spec(str(s))] for s in record["seats"]]
    try:
        records, repeats = unique_records(records)
    except RecordFileError as e:
        raise UsageError(f"{', '.join(map(str, paths))}: {e}") from None
    if repeats:
        warnings.warn(
            f"{repeats} game(s) appear more than once (the same agents in the same seats on "
            "the same dice: seed + match); each is counted once",
            stacklevel=2,
        )
    return records


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


def add_running_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that plays matches (match, tournament, tune, figure2)."""
    parser.add_argument(
        "--matches", type=positive, required=True, help="matches (seat-swapped pairs of games)"
    )
    parser.add_argument(
        "--seed", type=seed_arg, default=0, help="match i uses the dice and bot seeds of seed + i"
    )
    parser.add_argument(
        "--workers", type=positive, help="games at once (default: one per core / Ray CPU)"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="where games run")
    parser.add_argument("--address", help="address of an existing Ray cluster (--backend ray)")
    parser.add_argument(
        "--overrun-ms",
        type=float,
        default=DEFAULT_OVERRUN_MS,
        help="a move longer than the agent's time_ms plus this is counted as an overrun",
    )
    parser.add_argument(
        "--move-timeout-s",
        type=float,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help="a move longer than this is stopped and the game forfeited (0: no limit)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def out_or_fresh(args: argparse.Namespace, kind: str) -> None:
    """Sets `args.out` to a fresh `results/<kind>/run-<timestamp>.jsonl` when it is not given."""
    if args.out is None:
        args.out = str(fresh_output(kind, ".jsonl"))  # its folder is made by run_games


def write_text(path: str | Path, text: str) -> None:
    """Writes `text` to `path` (parent folders made), or a UsageError naming the path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror}") from None
