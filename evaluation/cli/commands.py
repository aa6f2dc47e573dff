"""The table of the `chancespiel` command's subcommands: name, the module that adds and runs
it, and its one line of help. `chancespiel --help` is printed from this table alone, and a
command imports only its own module (a command's startup is that of what it uses)."""

from __future__ import annotations

import argparse

# name: (module of chancespiel.evaluation.cli, help), in the order `--help` shows them.
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("basics", "list the games"),
    "agents": ("basics", "list the agents and parameters"),
    "play": ("basics", "play one game between two agents"),
    "analyse": ("basics", "search one position and show the agent's values"),
    "solve": ("basics", "solve a game exactly"),
    "demo": ("basics", "a short match: optimal Pig vs hold at 20"),
    "check": ("plugins", "run the conformance checks on a game (a plugin's too)"),
    "compile": ("plugins", "compile a plugin's typed rules core with mypyc"),
    "match": ("runs", "N seat-swapped matches of A against B"),
    "tournament": ("runs", "round robin: every pair of agents, Elo ratings"),
    "tune": ("runs", "elimination tournament over parameter values"),
    "report": ("runs", "summarize game record files"),
    "replay": ("runs", "print a recorded game move by move"),
    "annotate": ("annotate", "analyse a recorded game: each move's error, each roll's luck"),
    "plot": ("runs", "bar chart of pairwise score rates (PNG)"),
    "value": ("values", "learned value functions: train, show"),
    "experiment": ("experiment", "run a study of a paper (see --help)"),
}


def add_parser(sub: argparse._SubParsersAction, name: str) -> argparse.ArgumentParser:
    """The parser of the command `name`, with the table's help."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=COMMANDS[name][1])
    return parser
