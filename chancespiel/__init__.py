"""chancespiel: search in two-player zero-sum games with chance, as an OpenSpiel plugin.

The library (imports point one way: games <- agents <- evaluation):

    games/             chancespiel.games: rules engines behind thin OpenSpiel adapters,
                       heuristics, exact solvers. A new game is one module here.
    agents/            chancespiel.agents: search algorithms as OpenSpiel bots, one module per
                       family, and the agent registry. A new agent is one module here.
    evaluation/        chancespiel.evaluation: matches, runner, parallel and Ray backends,
                       statistics, ratings, SPRT, tuning, reports, plots; evaluation/cli/ is
                       the `chancespiel` command.

The lab, apart from it (the library never imports it):

    lab/studies/       chancespiel.studies: the paper studies, run by `chancespiel experiment`.
    lab/results/       committed results, each with its command, machine and date.
    lab/benchmarks/    speed as ratios to OpenSpiel measured in the same run.
    lab/plugins/       plugins that make a stored value model the learned value again.
"""

import importlib
from pathlib import Path
from typing import Any

from chancespiel import engine as _engine

__version__ = "0.5.0"

# Before any game or agent module is imported: compiled engine or pure Python.
_engine.install(Path(__file__).resolve().parent.parent)

# The Python API (chancespiel.evaluation.api, docs/python.md), loaded when first used: `import
# chancespiel` and the command's start-up import no game, agent or evaluation module.
_API = ("match", "tournament", "report", "named", "MatchResult", "TournamentResult", "ReportResult")


def __getattr__(name: str) -> Any:
    if name in _API:
        # By name, at first use: the package's modules import `chancespiel` itself (its
        # version), so an import statement here would close a cycle of the import graph
        # (tests/test_game_registry.py), although never one at run time.
        return getattr(importlib.import_module("chancespiel.evaluation.api"), name)
    raise AttributeError(f"module 'chancespiel' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])
