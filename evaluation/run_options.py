"""The options of every command that plays matches, checked into a `RunConfig`, and the run
itself with its errors as `UsageError` (for the CLI's match, tournament and tune and for the
experiments that play).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chancespiel import engine
from chancespiel.agents import make_bot
from chancespiel.evaluation.match import (
    DEFAULT_MOVE_TIMEOUT_S,
    DEFAULT_OVERRUN_MS,
    RecordFileError,
    RecordWriteError,
    move_timing,
)
from chancespiel.evaluation.parallel import BACKENDS, BackendError, check_reachable
from chancespiel.evaluation.runner import RunConfig, RunResult, RunStoppedError, run
from chancespiel.evaluation.usage import (
    RESULTS_DIR,
    Bounded,
    RunInterruptedError,
    UsageError,
    load_game,
    matches_arg,
    seed_arg,
    workers_arg,
)

MAX_OVERRUN_MS = 3_600_000.0  # an hour: anything larger is a typo, not a tolerance
MAX_MOVE_TIMEOUT_S = 86_400.0  # a day per move (0 turns the limit off)
OVERRUN_MS = Bounded(float, 0.0, MAX_OVERRUN_MS)
MOVE_TIMEOUT_S = Bounded(float, 0.0, MAX_MOVE_TIMEOUT_S)


def add_running_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that plays matches (match, tournament, tune, figure2)."""
    parser.add_argument(
        "--matches", type=matches_arg, required=True, help="matches (seat-swapped pairs of games)"
    )
    parser.add_argument(
        "--seed", type=seed_arg, default=0, help="match i uses the dice and bot seeds of seed + i"
    )
    parser.add_argument(
        "--workers", type=workers_arg, help="games at once (default: one per core / Ray CPU)"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="where games run")
    parser.add_argument("--address", help="address of an existing Ray cluster (--backend ray)")
    parser.add_argument(
        "--overrun-ms",
        type=OVERRUN_MS,
        default=DEFAULT_OVERRUN_MS,
        help="a move longer than the agent's time_ms plus this is counted as an overrun",
    )
    parser.add_argument(
        "--move-timeout-s",
        type=MOVE_TIMEOUT_S,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help="a move longer than this is stopped and the game forfeited (0: no limit)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


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
    out = getattr(args, "out", None) if records else None
    if out is not None:
        check_record_path(out)
    if engine.stale() and timed(game, [spec for pair in pairs for spec in pair]):
        engine.warn_timed(f"this {extra.get('label', 'run')}")
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


def timed(game: str, specs: Sequence[str]) -> bool:
    """True if an agent of `specs` searches under a time budget (its default one included),
    as the records' `limit_ms` says: what it finds depends on the engine's speed."""
    loaded = load_game(game)
    for spec in dict.fromkeys(specs):
        try:
            if move_timing(spec, make_bot(spec, loaded, 0))[0] is not None:
                return True
        except ValueError:  # refused later, with its message
            continue
    return False


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
    """What a run played, how fast, and what it left for the next run."""
    left = (
        f"; {result.unstarted} games left at the time limit (the same command resumes)"
        if result.unstarted
        else ""
    )
    if not result.played:
        if result.unstarted:
            return f"  played nothing{left}"
        return f"  nothing to play: all {result.resumed} games were in the file"
    found = f"; {result.resumed} games were already in the file" if result.resumed else ""
    return (
        f"  played {result.played} games in {result.seconds:.1f} s on {result.executor} "
        f"({result.matches_per_second:.2f} matches/s){found}{left}"
    )
