"""The paired difference between two value functions' luck corrections on the same records.

Explains how much more one value function corrects than another: the difference between two
bars of the luck-values Figure (matches needed for +-3 points), with its own interval. Two
finished `luck-values` runs on the same record files (or one run and two of its values), each
named by its directory and a value: per game, each value's pooled variance ratio with its own
bootstrap interval, and the second's ratio minus the first's with a paired one (the same
matches resampled within each pairing for both). Two corrections of the same matches move
together, so their difference is far better determined than the two intervals side by side
suggest. Each value's corrected scores are cross-fitted per pairing from the terms its run kept
(`terms.jsonl`), exactly as `luck-values` reports them.

The runs may use different learned models (`--import` in one of them): the terms are what each
run computed, and the record files are read from the paths the first run names, from where the
command is run, and refused if they are not the files the runs were made on.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chancespiel.evaluation.resumable import RUN, Row, read_settings
from chancespiel.evaluation.usage import UsageError, seed_arg
from chancespiel.studies import Experiment
from chancespiel.studies.luck_values import (
    BOOTSTRAP,
    TERMS,
    Matches,
    measured_matches,
    pairing_scores,
    percentile_interval,
    pooled_variances,
    ratio_text,
    read_pairings,
    read_terms,
    variance_ratio,
)

LABELS = ("first", "second")


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    for label in LABELS:
        parser.add_argument(
            f"--{label}",
            nargs=2,
            required=True,
            metavar=("RUN", "VALUE"),
            help=f"the {label} value: a luck-values output directory and one of its values",
        )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the bootstrap")


def _settings(run: Path) -> dict[str, Any]:
    """A luck-values run's settings (its run.json).

    Raises:
      UsageError: if `run` holds none.
    """
    settings = read_settings(run)
    lists = [settings.get(key) for key in ("records", "sha256", "values")]
    if not all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in lists):
        raise UsageError(f"{run / RUN} is not a run file of luck-values")
    return settings


def _terms_of(
    run: Path,
    value: str,
    matches: Matches,
    index: dict[int, tuple[int, int]],
    label: str,
) -> dict[tuple[int, str], Row]:
    """The run's term of every record of `matches` under `value`, by (id of the record,
    `label`); a game whose records have no term under it (the value does not apply there)
    has none.

    Raises:
      UsageError: if the run has some of a game's terms but not all (it has not finished).
    """
    rows = read_terms(run / TERMS)
    found: dict[tuple[int, str], Row] = {}
    for game in {game for game, _ in matches}:
        records = [r for (g, _), ms in matches.items() if g == game for m in ms for r in m]
        have = [(*index[id(r)], value) in rows for r in records]
        if any(have) and not all(have):
            raise UsageError(
                f"{run} has {sum(have)} of the {len(have)} terms of {value} for {game}: "
                "finish that run first"
            )
        for record in records if all(have) else ():
            found[id(record), label] = rows[(*index[id(record)], value)]
    return found


def compare(matches: Matches, terms: dict[tuple[int, str], Row], seed: int) -> list[dict[str, Any]]:
    """Per game where both values have terms: the matches, pairings, each value's pooled
    variance ratio and the second's minus the first's, each with a 95% bootstrap interval from
    the same resamples of the matches (each value's interval is the one luck-values gives)."""
    found = []
    for game in dict.fromkeys(game for game, _ in matches):
        blocks = []
        for (g, _), ms in matches.items():
            if g != game or any((id(ms[0][0]), label) not in terms for label in LABELS):
                continue
            raw, corrected, _ = pairing_scores(ms, LABELS, terms)
            blocks.append((raw, *(corrected[label] for label in LABELS)))
        if not blocks:
            continue
        rng = np.random.default_rng(seed)
        draws = [_ratios(pooled_variances(blocks, rng)) for _ in range(BOOTSTRAP)]
        ratios = _ratios(pooled_variances(blocks))
        entry: dict[str, Any] = {
            "game": game,
            "pairings": len(blocks),
            "matches": sum(len(b[0]) for b in blocks),
            "difference": ratios[1] - ratios[0],
            "interval": percentile_interval(second - first for first, second in draws),
        }
        for k, label in enumerate(LABELS):
            entry[label] = ratios[k]
            entry[f"{label}_interval"] = percentile_interval(draw[k] for draw in draws)
        found.append(entry)
    return found


def _ratios(variances: Sequence[float]) -> tuple[float, float]:
    """The two values' variance ratios from the pooled (raw, first, second) variances."""
    raw, first, second = variances
    return variance_ratio(raw, first), variance_ratio(raw, second)


def _run(args: argparse.Namespace) -> None:
    runs = [(Path(run), value) for run, value in (args.first, args.second)]
    settings = [_settings(run) for run, _ in runs]
    for (run, value), found in zip(runs, settings, strict=True):
        if value not in found["values"]:
            raise UsageError(f"{run} has no value {value!r}; its values: {found['values']}")
    if settings[0]["sha256"] != settings[1]["sha256"]:
        raise UsageError(f"{runs[0][0]} and {runs[1][0]} were not run on the same record files")
    by_game, index, digests = read_pairings(settings[0]["records"], refuse_training=False)
    if digests != settings[0]["sha256"]:
        raise UsageError(
            f"the record files {settings[0]['records']} are not those the runs were made on"
        )
    matches = measured_matches(by_game)
    terms: dict[tuple[int, str], Row] = {}
    for (run, value), label in zip(runs, LABELS, strict=True):
        terms |= _terms_of(run, value, matches, index, label)
    table = compare(matches, terms, args.seed)
    if not table:
        raise UsageError("the two values have no game in common")
    names = [f"{value} ({run})" for run, value in runs]
    print(f"first: {names[0]}\nsecond: {names[1]}")
    if settings[0].get("models") != settings[1].get("models"):  # e.g. one run with --import
        print("the runs' learned models differ (the models in each run.json)")
    print("| game | pairings | matches | first | second | second - first (95%, paired) |")
    print("|---|---:|---:|---|---|---|")
    for row in table:
        low, high = row["interval"]
        print(
            f"| {row['game']} | {row['pairings']} | {row['matches']} | "
            + " | ".join(ratio_text(row[label], row[f"{label}_interval"]) for label in LABELS)
            + f" | {row['difference']:+.2f} ({low:+.2f} to {high:+.2f}) |"
        )


EXPERIMENT = Experiment.listed(
    "luck-compare",
    _add_arguments,
    _run,
)
