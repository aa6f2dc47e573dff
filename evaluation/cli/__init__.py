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
import errno
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import IO, Any, NoReturn

__all__ = ["UsageError", "build_parser", "main"]

# Imported when the command runs, not with this module: Ctrl-C while pyspiel loads must reach
# `main`'s handler (one line), not Python's traceback.


def __getattr__(name: str) -> Any:
    if name == "UsageError":
        from chancespiel.evaluation.usage import UsageError

        return UsageError
    raise AttributeError(name)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's range (a `Bounded` number) and its default, except where there is
    none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        from chancespiel.evaluation.usage import Bounded

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


def _add_experiments(sub: argparse._SubParsersAction, study: str | None) -> None:
    """`experiment` with every study listed, and the options of `study` (imported now)."""
    from chancespiel import studies
    from chancespiel.evaluation.cli.commands import COMMANDS

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
    import chancespiel
    from chancespiel import engine
    from chancespiel.evaluation.cli.commands import COMMANDS

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
        "--debug",
        action="store_true",
        help="show the full traceback of any failure (a plugin's error, a forfeit, a game's "
        "fault), here and in every worker",
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
    since they may register experiments (subcommands) as well as games and agents. --debug is
    read now too (and kept in the arguments), for what fails while plugins load."""
    # No abbreviations: '--i' is the command's to refuse (or a game's name), not '--import'.
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    pre.add_argument("--import", dest="imports", action="append", default=[])
    pre.add_argument("--debug", action="store_true")
    try:
        known, rest = pre.parse_known_args(argv)
    except argparse.ArgumentError as e:  # one line, as the command's own usage errors
        print(f"chancespiel: error: {e} (see chancespiel --help)", file=sys.stderr)
        raise SystemExit(2) from None
    if known.debug:
        from chancespiel.plugins import DEBUG_ENV

        os.environ[DEBUG_ENV] = "1"  # workers inherit it
        rest = ["--debug", *rest]
    return known.imports, rest


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `chancespiel` console script: the command's exit status. Whatever
    goes wrong is one line on stderr (Ctrl-C, an output that cannot be written, a broken
    plugin); what reaches the terminal from records (names, game strings) has its control
    characters escaped."""
    stdout = sys.stdout
    try:
        if not _standard_streams():
            return 2
        sys.stdout = _Escaped(sys.stdout)
        try:
            try:
                status = _main(argv)
            except SystemExit:  # argparse's --help, --version and usage errors
                sys.stdout.flush()  # their text out now, or one line saying why not
                raise
            sys.stdout.flush()
        finally:
            sys.stdout = stdout
        return status
    except KeyboardInterrupt:  # commands that write records say what they kept themselves
        print("chancespiel: interrupted", file=sys.stderr)
        return 130  # 128 + SIGINT, as a shell reports it
    except ImportError as e:
        # Ctrl-C inside an extension module's initialisation (pyspiel's) surfaces as
        # "ImportError: initialization failed" caused by the KeyboardInterrupt.
        if not isinstance(e.__cause__ or e.__context__, KeyboardInterrupt):
            raise
        print("chancespiel: interrupted", file=sys.stderr)
        return 130
    except OutputError as e:
        _mute_stdout()
        if e.errno == errno.EPIPE:  # output piped into `head` and the like: stop quietly
            return 141  # 128 + SIGPIPE, as a shell reports it
        _error(f"cannot write the output: {e.strerror}")
        return 1
    except OSError as e:  # a file the command reads or writes, past its own checks
        _traceback(e)
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}")
        return 1
    finally:
        usage = sys.modules.get("chancespiel.evaluation.usage")
        if usage is not None:  # (not imported: nothing claimed)
            usage.release_outputs()


def _main(argv: Sequence[str] | None) -> int:
    from chancespiel.evaluation.usage import UsageError
    from chancespiel.games.contract import GameContractError
    from chancespiel.plugins import PluginError, load_plugins, print_traceback

    given = list(sys.argv[1:] if argv is None else argv)
    imports, rest = _split_imports(given)
    try:
        load_plugins(imports)
    except PluginError as e:
        print_traceback(e, "loading the plugin")
        if not {"--version", "-h", "--help"} & set(rest):
            _error(str(e))
            return 2
        _warn(str(e))  # the version and the help need no plugin
    args = build_parser(rest).parse_args(rest)
    args.command_line = given  # for results' records
    if args.command == "experiment" and getattr(args, "time_ms", None) is not None:
        from chancespiel import engine

        engine.warn_timed(f"experiment {args.experiment}")  # (match and the like: run_config)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args.func(args)
        except UsageError as e:
            sys.stdout.flush()  # what the command printed before, then the error
            print_traceback(e, "the error")
            _error(str(e))
            return e.status
        except GameContractError as e:  # a game broke its contract where it was played
            sys.stdout.flush()
            print_traceback(e, "the game's fault")
            _error(str(e))
            return UsageError.status
    return 0


class OutputError(OSError):
    """Writing the command's output (stdout) failed: a closed pipe, a full device."""


# Control characters (C0 but tab and newline, DEL, C1) as \xNN: a record's agent name or game
# string could otherwise move the cursor, retitle the terminal or hide the lines above.
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)] if c not in (9, 10)}


def escaped(text: str) -> str:
    """`text` with its control characters (but tabs and newlines) shown as \\xNN."""
    return text.translate(_CONTROLS)


class _Escaped:
    """sys.stdout for a command: control characters escaped (`escaped`), and a failed write
    raised as OutputError."""

    def __init__(self, stream: IO[str]):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(escaped(text))
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            raise OutputError(e.errno, e.strerror) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _standard_streams() -> bool:
    """Puts /dev/null in place of a closed stdin or stderr (else the first file the command
    opens would take its descriptor, and be written by whatever writes there); False, after
    saying so, if stdout is closed: the command's output would go nowhere."""
    for fd in (0, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: fd itself
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            if fd == 2:
                sys.stderr = open(fd, "w", closefd=False)  # noqa: SIM115
    try:
        os.fstat(1)
    except OSError:
        _error("standard output is closed: give the command somewhere to write (> FILE)")
        return False
    return sys.stdout is not None


def _mute_stdout() -> None:
    """Points stdout at /dev/null, so that the interpreter's final flush cannot fail again."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)


def _traceback(error: BaseException) -> None:
    """Under --debug, the traceback of an error that ends the command."""
    from chancespiel.plugins import print_traceback

    print_traceback(error, "the error")


def _error(message: str) -> None:
    print(f"chancespiel: error: {escaped(message)}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"chancespiel: warning: {escaped(message)}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    _warn(str(message))
