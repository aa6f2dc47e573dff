"""A researcher's experiment as a plugin: `chancespiel experiment example-hold-sweep`.

    chancespiel --import examples/dice_race.py --import examples/dice_race_study.py \\
        experiment example-hold-sweep --games 200 --out sweep.md

For each threshold n, the dice race's `example_hold(n=...)` plays seat-swapped games against
`random` on shared dice; the table gives its score with a 95% Wilson interval. The module
only registers the experiment; the game and the agent come from examples/dice_race.py.
"""

from __future__ import annotations

import argparse

import pyspiel

from chancespiel.evaluation.play import play_match, score_of
from chancespiel.evaluation.stats import wilson_interval
from chancespiel.evaluation.usage import Bounded, UsageError, made_by, new_output, write_text
from chancespiel.studies import Experiment, register_experiment

GAME = "example_dice_race"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    # Bounded numbers: refused in one line outside their range, which --help shows.
    parser.add_argument(
        "--thresholds", type=Bounded(int, 1, 1000).each, default="2,4,6,8", help="n to try"
    )
    parser.add_argument(
        "--games", type=Bounded(int, 1, 100_000), default=100, help="matches per threshold"
    )
    parser.add_argument("--out", help="Markdown file for the table (a new one)")


def _run(args: argparse.Namespace) -> None:
    if GAME not in pyspiel.registered_names():
        raise UsageError(f"{GAME} is not loaded: add --import examples/dice_race.py")
    thresholds = args.thresholds
    out = new_output(args.out, "example_hold_sweep", ".md")  # refused before the games
    game = pyspiel.load_game(GAME)
    lines = ["| n | matches | score | 95% interval |", "|---:|---:|---:|---|"]
    for n in thresholds:
        points = 0.0
        for match in range(args.games):
            first, second = play_match(game, f"example_hold(n={n})", "random", seed=match)
            points += score_of(first.returns, 0) + score_of(second.returns, 1)
        low, high = wilson_interval(points, 2 * args.games)
        lines.append(
            f"| {n} | {args.games} | {points / (2 * args.games):.1%} | {low:.1%} to {high:.1%} |"
        )
    made = made_by(args.command_line)
    lines += ["", f"`{made['command']}`: chancespiel {made['chancespiel']}, {made['date']}."]
    write_text(out, "\n".join(lines) + "\n")
    print("\n".join(lines))


register_experiment(
    Experiment(
        "example-hold-sweep", "example plugin: example_hold(n) against random", _add_arguments, _run
    )
)
