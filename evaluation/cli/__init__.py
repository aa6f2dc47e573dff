"""The `chancespiel` command: one module per group of subcommands, each parsing and printing.

    chancespiel games | agents | play | analyse | solve | demo        (cli/basics.py)
    chancespiel match | tournament | tune | report | plot             (cli/runs.py)
    chancespiel value train | show                                    (cli/values.py)
    chancespiel experiment NAME ...   (one per module of chancespiel.studies)

The work is done in the module of each command's subject (evaluation.runner, .report, .tune,
agents, games); `cli/common.py` holds what only the commands share, `evaluation.usage` and
`evaluation.run_options` what the experiments share with them. `UsageError` ends a command
with a one-line message and exit status 2, before any game is played or file written.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from typing import Any, NoReturn
from collections.abc import Sequence

import chancespiel
from chancespiel import engine
from chancespiel.evaluation.cli.commands import COMMANDS
from chancespiel.evaluation.usage import UsageError
from chancespiel.plugins import PluginError, load_plugins

__all__ = ["UsageError", "build_parser", "main"]


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        no_default = action.default is None or action.default is False  # (0 is a default)
        if no_default or action.default == argparse.SUPPRESS or action.required:
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose --help shows defaults; subcommands' parsers are of this class."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """One line, as every other bad input gets (argparse would print the usage first)."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_experiments(sub: argparse._SubParsersAction, study: str | None) -> None:
    """`experiment` with every study listed, and the options of `study` (imported now)."""
    from chancespiel import studies

    parser = sub.add_parser("experiment", help=COMMANDS["experiment"][1])
    experiment_parsers = parser.add_subparsers(dest="experiment", required=True)
    for name, help in studies.helps().items():
        command = experiment_parsers.add_parser(name, help=help)
        if name == study:
            experiment = studies.experiment(name)
            experiment.add_arguments(command)
            command.set_defaults(func=experiment.run)


def _positionals(argv: Sequence[str]) -> list[str]:
    """The first two words of `argv` that are not options: the command and, for `experiment`,
    the study (no option of the top level or of `experiment` takes a value)."""
    return [word for word in argv if not word.startswith("-")][:2]


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser of the `chancespiel` command, complete for the command named in
    `argv`; the other commands are listed by name and help only (their modules not imported)."""
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
    words = _positionals(argv)
    chosen = COMMANDS[words[0]][0] if words and words[0] in COMMANDS else None
    added: set[str] = set()
    for name, (module, help) in COMMANDS.items():
        if module != chosen:
            sub.add_parser(name, help=help)
        elif module == "experiment":
            _add_experiments(sub, words[1] if len(words) > 1 else None)
        elif module not in added:  # the chosen command's module adds its whole group
            added.add(module)
            importlib.import_module(f"{__name__}.{module}").add_commands(sub)
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
    args = build_parser(rest).parse_args(rest)
    args.command_line = given  # for results' records
    if args.command == "experiment" and getattr(args, "time_ms", None) is not None:
        engine.warn_timed(f"experiment {args.experiment}")  # (match and the like: run_config)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args.func(args)
        except UsageError as e:
            print(f"chancespiel: error: {e}", file=sys.stderr)
            return e.status
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
