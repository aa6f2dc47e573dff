"""CLI commands for a plugin's author: check (the conformance checks on any registered game)
and compile (a typed rules core, with mypyc, against the compiled engine)."""

from __future__ import annotations

import argparse

from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.conformance import CHECK_NAMES, CHECKS, run_checks
from chancespiel.evaluation.usage import UsageError, load_game, seed_arg
from chancespiel.plugin_build import CompileError, compile_plugin


def cmd_check(args: argparse.Namespace) -> None:
    """Runs the conformance checks on a game, one line each; exit status 1 if any fails."""
    game = load_game(args.game)
    names = args.only or CHECK_NAMES
    helps = {check.name: check.help for check in CHECKS}
    width = max(len(name) for name in names)
    print(f"checks of {game} (seed {args.seed}):", flush=True)
    failed = []
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for outcome in run_checks(game, args.seed, names):
        counts[outcome.status] += 1
        reason = outcome.reason or helps[outcome.check]
        shown = "FAIL" if outcome.status == "fail" else outcome.status
        print(f"  {shown:4s}  {outcome.check:<{width}}  {reason}", flush=True)
        if outcome.status == "fail":
            failed.append(outcome.check)
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    if failed:
        raise UsageError(f"{game} failed {len(failed)} check(s): {', '.join(failed)}", status=1)


def cmd_compile(args: argparse.Namespace) -> None:
    """Compiles a plugin's rules core (chancespiel.plugin_build)."""
    try:
        print(compile_plugin(args.files))
    except CompileError as e:
        raise UsageError(str(e)) from None


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds this module's commands to the `chancespiel` parser."""
    check = add_parser(sub, "check")
    check.add_argument("game", help="game string (a plugin's: with --import before `check`)")
    check.add_argument("--seed", type=seed_arg, default=0, help="seed of the random games")
    check.add_argument(
        "--only",
        action="append",
        choices=CHECK_NAMES,
        metavar="CHECK",
        help=f"run only this check (repeatable): {', '.join(CHECK_NAMES)}",
    )
    check.set_defaults(func=cmd_check)
    compile_ = add_parser(sub, "compile")
    compile_.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="the .py files of a plugin's typed rules cores (top-level modules of one folder)",
    )
    compile_.set_defaults(func=cmd_compile)
