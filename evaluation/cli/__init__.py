"""The `chancespiel` command: one module per group of subcommands, each parsing and printing.

    chancespiel games | agents | play | analyse | solve | demo        (cli/basics.py)
    chancespiel match | tournament | tune | report | plot             (cli/runs.py)
    chancespiel value train | show                                    (cli/values.py)
    chancespiel experiment NAME ...   (one per module of chancespiel.evaluation.experiments)

The work is done in the module of each command's subject (evaluation.runner, .report, .tune,
agents, games); `cli/common.py` holds what only the commands share, `evaluation.usage` and
`evaluation.run_options` what the experiments share with them. `UsageError` ends a command
with a one-line message and exit status 2, before any game is played or file written.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, NoReturn
from collections.abc import Sequence

import chancespiel
from chancespiel import engine
from chancespiel.evaluation.cli import basics, runs, values
from chancespiel.evaluation.usage import Bounded, UsageError
from chancespiel.games.contract import GameContractError
from chancespiel.plugins import PluginError, load_plugins

__all__ = ["UsageError", "build_parser", "main"]


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's range (a `Bounded` number) and its default, except where there is
    none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        bounded = getattr(action.type, "bounded", action.type)  # a list's numbers are bounded
        if isinstance(bounded, Bounded) and text is not None:
            text += f" (range {bounded.range_text()})"
        no_default = action.default is None or action.default is False  # (0 is a default)
        if no_default or action.default == argparse.SUPPRESS or action.required:
            return text
        if text is not None and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose --help shows defaults; subcommands' parsers are of this class."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line, as every other bad input gets (argparse would print the usage first)."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_experiments(sub: argparse._SubParsersAction) -> None:
    from chancespiel.evaluation.experiments import experiments

    parser = sub.add_parser("experiment", help="run a study of a paper (see --help)")
    experiment_parsers = parser.add_subparsers(dest="experiment", required=True)
    for experiment in experiments().values():
        command = experiment_parsers.add_parser(experiment.name, help=experiment.help)
        experiment.add_arguments(command)
        command.set_defaults(func=experiment.run)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `chancespiel` command."""
    parser = _Parser(
        prog="chancespiel", description="Dice games, search agents and evaluation on OpenSpiel."
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        metavar="MODULE",
        help="load a module that registers games, agents, heuristics or experiments (a "
        "module name or a .py path; repeatable; also CHANCESPIEL_IMPORT=a,b and the entry "
        "points of group chancespiel.plugins), here and in every worker",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"chancespiel {chancespiel.__version__}, {engine.describe()}",
        help="show the version and which engine runs (compiled or pure Python), then exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    basics.add_commands(sub)
    runs.add_commands(sub)
    values.add_commands(sub)
    _add_experiments(sub)
    return parser


def _split_imports(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(--import values, the other arguments): plugins are loaded before the parser is built,
    since they may register experiments (subcommands) as well as games and agents."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--import", dest="imports", action="append", default=[])
    known, rest = pre.parse_known_args(argv)
    return known.imports, rest


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `chancespiel` console script."""
    given = list(sys.argv[1:] if argv is None else argv)
    imports, rest = _split_imports(given)
    try:
        load_plugins(imports)
    except PluginError as e:
        print(f"chancespiel: error: {e}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(rest)
    args.command_line = given  # for results' records
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args.func(args)
        except UsageError as e:
            print(f"chancespiel: error: {e}", file=sys.stderr)
            return e.status
        except GameContractError as e:  # a game broke its contract where it was played
            print(f"chancespiel: error: {e}", file=sys.stderr)
            return UsageError.status
        except KeyboardInterrupt:  # commands that write records say what they kept themselves
            print("chancespiel: interrupted", file=sys.stderr)
            return 130  # 128 + SIGINT, as a shell reports it
        except BrokenPipeError:  # output piped into `head` and the like: stop quietly
            # Point stdout at devnull so the interpreter's final flush cannot fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141  # 128 + SIGPIPE, as a shell reports it
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"chancespiel: warning: {message}", file=sys.stderr)
