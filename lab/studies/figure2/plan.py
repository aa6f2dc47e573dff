"""What Figure 2 plays: the paper's pairings, their agent specs in each game, the record files,
and each game's run configuration."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from chancespiel.agents.registry import parse_spec
from chancespiel.evaluation.match import Record, read_records
from chancespiel.evaluation.run_options import run_config
from chancespiel.evaluation.runner import RunConfig
from chancespiel.evaluation.usage import check_heuristic, checked_specs, load_game
from chancespiel.files import stored
from chancespiel.studies import mcms_setup

MCTS = "MCTS"  # stands for the game's chosen MCTS variant in PAIRINGS

# (label, left agent, right agent) with the names of mcms_setup.AGENT_NAMES.
PAIRINGS: tuple[tuple[str, str, str], ...] = (
    ("ExpSS-Exp", "expss", "exp"),
    ("Star1SS-Star1", "star1ss", "star1"),
    ("Star2SS-Star2", "star2ss", "star2"),
    ("Star1SS-ExpSS", "star1ss", "expss"),
    ("Star2SS-Star1SS", "star2ss", "star1ss"),
    ("Star1-MCTS", "star1", MCTS),
    ("Star1SS-MCTS", "star1ss", MCTS),
)
PAIRING_LABELS = tuple(label for label, _, _ in PAIRINGS)
# Beyond the paper: the hybrid sampled search against its classic counterpart and against the
# paper's sampled search of the same base (chosen with --pairings; not in the default set).
HYBRID_PAIRINGS: tuple[tuple[str, str, str], ...] = (
    ("ExpHS-Exp", "exphs", "exp"),
    ("Star1HS-Star1", "star1hs", "star1"),
    ("Star2HS-Star2", "star2hs", "star2"),
    ("ExpHS-ExpSS", "exphs", "expss"),
    ("Star1HS-Star1SS", "star1hs", "star1ss"),
    ("Star2HS-Star2SS", "star2hs", "star2ss"),
)
ALL_PAIRINGS = PAIRINGS + HYBRID_PAIRINGS
ALL_LABELS = tuple(label for label, _, _ in ALL_PAIRINGS)
MCTS_CHOICES = ("paper", "mcts", "dpw")


@dataclass(frozen=True)
class Pairing:
    """One pairing in one game: its label and the two agent specs."""

    label: str
    a: str
    b: str


def _variant(setup: mcms_setup.GameSetup, mcts: str) -> str:
    if mcts not in MCTS_CHOICES:
        raise ValueError(f"--mcts: one of {', '.join(MCTS_CHOICES)}, not {mcts!r}")
    return setup.best_mcts if mcts == "paper" else mcts


def pairing_names(
    setup: mcms_setup.GameSetup, labels: Sequence[str] = PAIRING_LABELS, mcts: str = "paper"
) -> list[tuple[str, str, str]]:
    """(label, left, right) of the pairings `labels` in `setup`'s game, in the paper's order,
    with the names of mcms_setup.AGENT_NAMES; MCTS is resolved to the game's variant (in the
    label too: 'Star1-DPW').

    Raises:
      ValueError: for an unknown label or `mcts` choice.
    """
    unknown = [label for label in labels if label not in ALL_LABELS]
    if unknown:
        raise ValueError(f"unknown pairing(s) {unknown}; known: {', '.join(ALL_LABELS)}")
    variant = _variant(setup, mcts)
    return [
        (label.replace(MCTS, variant.upper()), a, variant if b == MCTS else b)
        for label, a, b in ALL_PAIRINGS
        if label in labels
    ]


def pairings(
    setup: mcms_setup.GameSetup,
    labels: Sequence[str] = PAIRING_LABELS,
    time_ms: float = mcms_setup.TIME_MS,
    mcts: str = "paper",
    heuristic: str = "default",
    clock: str = "wall",
    max_nodes: int | None = None,
) -> list[Pairing]:
    """The pairings `labels` in `setup`'s game, in the paper's order (the budgets as in
    mcms_setup.paper_specs).

    Raises:
      ValueError: for an unknown label or `mcts` choice.
    """
    names = pairing_names(setup, labels, mcts)
    specs = mcms_setup.paper_specs(setup, time_ms, heuristic, clock, max_nodes)
    return [Pairing(label, specs[a], specs[b]) for label, a, b in names]


def file_pairings(
    setup: mcms_setup.GameSetup,
    time_ms: float,
    heuristic: str = "default",
    clock: str = "wall",
    max_nodes: int | None = None,
) -> list[Pairing]:
    """Every pairing a game's record file may hold: the paper's seven against MCTS and DPW
    alike, and the hybrid ones."""
    both = [
        p
        for mcts in ("mcts", "dpw")
        for p in pairings(setup, ALL_LABELS, time_ms, mcts, heuristic, clock, max_nodes)
    ]
    return list({(p.a, p.b): p for p in both}.values())


def record_path(out: str | os.PathLike[str], setup: mcms_setup.GameSetup) -> Path:
    """The record file of `setup`'s game in the output directory."""
    return Path(out) / f"{setup.key}.jsonl"


def load_records(
    out: str | os.PathLike[str], setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS
) -> dict[str, list[Record]]:
    """The records of each game with a file in `out`, keyed by setup key, in the paper's order.

    Raises:
      RecordFileError: if a file is corrupt.
    """
    found = {}
    for key, setup in setups.items():
        path = Path(stored(record_path(out, setup)))  # committed records are compressed
        if path.exists():
            found[key] = read_records(path)
    return found


# The paper's names of our agents, for pairing labels read off the specs in the records.
PAPER_NAMES = {
    "expectimax": "Exp",
    "star1": "Star1",
    "star2": "Star2",
    "expss": "ExpSS",
    "star1ss": "Star1SS",
    "star2ss": "Star2SS",
    "exphs": "ExpHS",
    "star1hs": "Star1HS",
    "star2hs": "Star2HS",
    "mcts": "MCTS",
    "dpw": "DPW",
}


def pairing_label(a: str, b: str) -> str:
    """The paper's label of a pairing of two specs (e.g. 'Star2SS-Star2'); the specs themselves
    if an agent has no name in the paper. Sample widths and times do not change the label."""
    names = [PAPER_NAMES.get(parse_spec(spec)[0]) for spec in (a, b)]
    return f"{names[0]}-{names[1]}" if None not in names else f"{a}-{b}"


class GamePlan(NamedTuple):
    """One game's part of a run: its setup, the chosen pairings and the run of its record file."""

    setup: mcms_setup.GameSetup
    chosen: list[Pairing]
    config: RunConfig


def game_plans(
    args: argparse.Namespace,
    setups: Mapping[str, mcms_setup.GameSetup],
    keys: Sequence[str],
    labels: Sequence[str],
    out: Path,
) -> list[GamePlan]:
    """The plan of each game `keys` names, its heuristic, specs and running options checked
    before any game is played.

    Raises:
      UsageError: for a heuristic, spec or running option the game or machine cannot take.
    """
    plans = []
    for key in keys:
        setup = setups[key]
        check_heuristic(setup.game, args.heuristic)
        chosen = pairings(
            setup, labels, args.time_ms, args.mcts, args.heuristic, args.clock, args.max_nodes
        )
        checked_specs(load_game(setup.game), [s for p in chosen for s in (p.a, p.b)])
        allowed = [
            (p.a, p.b)
            for p in file_pairings(setup, args.time_ms, args.heuristic, args.clock, args.max_nodes)
        ]
        config = run_config(
            args,
            setup.game,
            [(p.a, p.b) for p in chosen],
            records=False,
            file_pairs=allowed,
            label=f"figure2 {key}",
        )
        config = dataclasses.replace(config, out=str(record_path(out, setup)))
        plans.append(GamePlan(setup, chosen, config))
    return plans


def plan_records(plan: GamePlan) -> list[Record]:
    """The records in the plan's file so far (none before its first game).

    Raises:
      RecordFileError: if the file is corrupt.
    """
    assert plan.config.out is not None
    return read_records(plan.config.out) if Path(plan.config.out).exists() else []
