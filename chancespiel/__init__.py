"""chancespiel: search in two-player zero-sum games with chance, as an OpenSpiel plugin.

The layout (imports point one way: games <- agents <- evaluation <- evaluation.experiments):

    games/                   chancespiel.games: rules engines behind thin OpenSpiel adapters,
                             heuristics, exact solvers. A new game is one module here.
    agents/                  chancespiel.agents: search algorithms as OpenSpiel bots, one module
                             per family, and the agent registry. A new agent is one module here.
    evaluation/              chancespiel.evaluation: the toolkit (matches, runner, parallel and
                             Ray backends, statistics, ratings, SPRT, tuning, reports, plots).
    evaluation/cli/          the `chancespiel` command: parsing and printing, one module per
                             group of subcommands.
    evaluation/experiments/  the paper studies, one module per table or figure. A new experiment
                             is one module defining EXPERIMENT.
    results/  docs/          committed results (with command, machine, date); guides.
"""

from pathlib import Path

from chancespiel import engine as _engine

__version__ = "0.2.0"

# Before any game or agent module is imported: compiled engine or pure Python.
_engine.install(Path(__file__).resolve().parent.parent)
