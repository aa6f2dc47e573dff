"""CLI commands for a plugin's author: compile (a typed rules core, with mypyc, against the
compiled engine)."""

from __future__ import annotations

import argparse

from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.usage import UsageError
from chancespiel.plugin_build import CompileError, compile_plugin


def cmd_compile(args: argparse.Namespace) -> None:
    """Compiles a plugin's rules core (chancespiel.plugin_build)."""
    try:
        print(compile_plugin(args.files))
    except CompileError as e:
        raise UsageError(str(e)) from None


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds this module's commands to the `chancespiel` parser."""
    compile_ = add_parser(sub, "compile")
    compile_.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="the .py files of a plugin's typed rules cores (top-level modules of one folder)",
    )
    compile_.set_defaults(func=cmd_compile)
