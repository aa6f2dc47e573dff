"""The paper studies: one module per experiment, each reproducing a table or figure of a paper.

`STUDIES` lists them (name, module, one line of help): `chancespiel experiment --help` reads
the table, and `chancespiel experiment NAME` imports that one module, whose `EXPERIMENT` adds
its options and runs it. A new study is one module and one row; a plugin's module elsewhere
calls `register_experiment`. A large study is a package (`figure2`); modules without
`EXPERIMENT` (`mcms_setup`) are shared setup. The studies use the toolkit
(`chancespiel.evaluation`, `.agents`, `.games`); the toolkit never imports them.

Each run writes to a fresh `results/<experiment>/run-<timestamp>/` under the working directory
unless `--out` names a directory, so a documented command never writes over a committed result;
committed results live in the repository's `lab/results/`, each with a README giving the
command, the machine and the date.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

# name: (module in this package, help). The order is the one `--help` shows.
STUDIES: dict[str, tuple[str, str]] = {
    "bab-nodes": (
        "bab_nodes",
        "nodes of bounded alpha-beta against epsilon, vs alpha-beta and Star1",
    ),
    "chance-probcut": (
        "chance_probcut",
        "fit and store ChanceProbCut's regression for a game; measure its pruning",
    ),
    "chance-tree-regret": (
        "chance_tree_regret",
        "regret of classic, sampled and hybrid *-Minimax at equal nodes on random chance trees",
    ),
    "figure2": (
        "figure2",
        "Figure 2 of the MCMS paper: *-Minimax, MCMS and MCTS pairings in four games",
    ),
    "luck-compare": (
        "luck_compare",
        "the paired difference of two value functions' variance ratios on the same records",
    ),
    "luck-values": (
        "luck_values",
        "matches needed for +-3 points, raw and luck-corrected with each value function",
    ),
    "node-counts": ("node_counts", "nodes searched by expectimax, star1, star2 at fixed depths"),
    "pig-estimators": (
        "pig_estimators",
        "Table 1 of the MCMS paper: estimator MSE, variance, bias, regret",
    ),
    "pig-regret": (
        "pig_regret",
        "regret of classic and sampled *-Minimax at equal node budgets on Pig (exact solver)",
    ),
    "sampling-noise": (
        "sampling_noise",
        "the error of one sampled chance node against the gap between the best moves, per game",
    ),
    "search-depth": (
        "search_depth",
        "completed depth and regret of the MCMS paper's players at a time budget",
    ),
    "uct-convergence": (
        "uct_convergence",
        "UCT vs MC vs alpha-beta on P-games; UCT convergence on implanted strategies",
    ),
}


@dataclass(frozen=True)
class Experiment:
    """A subcommand of `chancespiel experiment`."""

    name: str  # the subcommand, e.g. "figure2"
    help: str  # one line for `chancespiel experiment --help`
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], None]  # raises evaluation.usage.UsageError on bad input

    @classmethod
    def listed(
        cls,
        name: str,
        add_arguments: Callable[[argparse.ArgumentParser], None],
        run: Callable[[argparse.Namespace], None],
    ) -> Experiment:
        """The experiment `name` of `STUDIES`, with its help from the table (written once)."""
        return cls(name, STUDIES[name][1], add_arguments, run)


_PLUGGED: dict[str, Experiment] = {}  # experiments of plugins (chancespiel.plugins)


def register_experiment(experiment: Experiment) -> None:
    """Adds a plugin's experiment to `chancespiel experiment` (from a module loaded with
    `chancespiel --import`, which runs before the command line is parsed).

    Raises:
      ValueError: if an experiment of that name exists.
    """
    if experiment.name in _PLUGGED or experiment.name in STUDIES:
        raise ValueError(f"an experiment is already called {experiment.name!r}")
    _PLUGGED[experiment.name] = experiment


def helps() -> dict[str, str]:
    """The one-line help of every experiment (ours and plugins'), by name, importing none."""
    found = {name: help for name, (_, help) in STUDIES.items()}
    found.update((name, e.help) for name, e in _PLUGGED.items())
    return dict(sorted(found.items()))


def experiment(name: str) -> Experiment:
    """The experiment `name`, importing its module only now.

    Raises:
      KeyError: if there is none.
    """
    if name in _PLUGGED:
        return _PLUGGED[name]
    module = importlib.import_module(f"{__name__}.{STUDIES[name][0]}")
    found: Experiment = module.EXPERIMENT
    return found


def experiments() -> dict[str, Experiment]:
    """Every experiment, by name, in name order (imports every study: for tests and tools)."""
    return {name: experiment(name) for name in helps()}
