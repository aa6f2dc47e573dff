"""The paper studies: one module per experiment, each reproducing a table or figure of a paper.

Every module here that defines `EXPERIMENT` (an `Experiment`) is a subcommand of
`chancespiel experiment`; `experiments()` finds them, so a new experiment is one new module
(a plugin's module elsewhere calls `register_experiment`). A large one is a package whose
`__init__` defines it (`figure2`).
Modules without it (`mcms_setup`) are shared setup. The studies use the toolkit
(`chancespiel.evaluation`, `.agents`, `.games`); the toolkit never imports them.

Each run writes to a fresh `results/<experiment>/run-<timestamp>/` unless `--out` names a
directory, so a documented command never writes over a committed result; committed results
live under `results/` with a README giving the command, the machine and the date.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Experiment:
    """A subcommand of `chancespiel experiment`."""

    name: str  # the subcommand, e.g. "figure2"
    help: str  # one line for `chancespiel experiment --help`
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], None]  # raises evaluation.usage.UsageError on bad input


_PLUGGED: dict[str, Experiment] = {}  # experiments of plugins (chancespiel.plugins)


def register_experiment(experiment: Experiment) -> None:
    """Adds a plugin's experiment to `chancespiel experiment` (from a module loaded with
    `chancespiel --import`, which runs before the command line is parsed).

    Raises:
      ValueError: if an experiment of that name exists.
    """
    if experiment.name in _PLUGGED or experiment.name in experiments():
        raise ValueError(f"an experiment is already called {experiment.name!r}")
    _PLUGGED[experiment.name] = experiment


def experiments() -> dict[str, Experiment]:
    """Every experiment of this package and of loaded plugins, by name, in name order."""
    found: dict[str, Experiment] = dict(_PLUGGED)
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        experiment = getattr(module, "EXPERIMENT", None)
        if isinstance(experiment, Experiment):
            if experiment.name in found:
                raise RuntimeError(f"two experiments are called {experiment.name!r}")
            found[experiment.name] = experiment
    return dict(sorted(found.items()))
