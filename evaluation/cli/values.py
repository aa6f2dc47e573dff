"""CLI commands of learned values: value train, value show."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from chancespiel import files
from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.cli.common import read_all
from chancespiel.evaluation.luck import SEARCH_SPEC
from chancespiel.evaluation.match import canonical_game
from chancespiel.evaluation.usage import Bounded, UsageError, command_text, made_by, seed_arg
from chancespiel.evaluation.values import TARGETS


def cmd_value_train(args: argparse.Namespace) -> None:
    """Trains a game's value model on the positions of match records and writes it."""
    from chancespiel.evaluation.values import (
        TrainingError,
        collect_positions,
        describe,
        read_targets,
        train_value,
        write_model,
        write_targets,
    )

    # Refused before the positions are labelled, which can take most of an hour.
    if args.save_targets and Path(args.save_targets).resolve() == Path(args.out).resolve():
        # the targets would be written first, and the model then refused beside them
        raise UsageError(f"--out and --save-targets name one file ({args.out}): name two")
    for path in (args.out, args.save_targets):
        if path is None:
            continue
        if Path(path).exists():
            raise UsageError(f"{path} exists: a trained model or saved targets are not overwritten")
        existing = Path(path).absolute().parent  # the folder that is there to write in
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir() or not os.access(existing, os.W_OK):
            raise UsageError(f"cannot write {path}: {existing} is not a writable folder")
    if (args.save_targets or args.targets_from) and args.target == "outcome":
        raise UsageError("--save-targets and --targets-from need a search --target")
    records = read_all(args.records)
    command = command_text(args.command_line)
    try:
        saved = None
        if args.targets_from:
            saved = read_targets(
                args.targets_from,
                canonical_game(records[0]["game"]),
                args.target,
                args.records,
                args.keep,
                args.seed,
            )
        positions = collect_positions(
            records, keep=args.keep, seed=args.seed, target=args.target, saved=saved
        )
        if args.save_targets:
            write_targets(
                args.save_targets,
                positions,
                args.records,
                args.keep,
                args.seed,
                made_by(args.command_line),
            )
            print(f"targets saved: {args.save_targets}")
        trained = train_value(positions, seed=args.seed, command=command, records=args.records)
        write_model(trained.data, args.out)
    except TrainingError as e:
        raise UsageError(str(e)) from None
    print(describe(trained))
    print(f"written: {args.out}")


def cmd_value_show(args: argparse.Namespace) -> None:
    """Prints what a model file was trained on and its held-out figures."""
    from chancespiel.games.learned import ModelError, read_model

    try:
        found = read_model(args.model)
    except ModelError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(files.dumps({"game": found.game, "features": found.features, **found.training}))
        return
    t = found.training
    print(f"{found.path}: {found.game}, {len(found.features)} features, model {t.get('model')}")
    for key in ("games", "held_out_games", "positions", "seed", "chancespiel", "date"):
        print(f"  {key}: {t.get(key)}")
    chosen = t.get("candidates", {}).get(t.get("model"), {})
    for key, value in sorted(chosen.items()):
        print(f"  {key}: {value:.4f}")
    print(f"  command: {t.get('command')}")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds `value train` and `value show`."""
    value = add_parser(sub, "value")
    actions = value.add_subparsers(dest="value_command", required=True)
    train = actions.add_parser(
        "train",
        help="train a game's value model on the positions of match records (the outcome or "
        "a search's value as target; models compared on 20%% of the games held out)",
    )
    train.add_argument("records", nargs="+", help="JSON Lines record files of one game")
    train.add_argument("--out", required=True, help="model file to write (never replaced)")
    train.add_argument("--seed", type=seed_arg, default=0, help="seed of the split and the fits")
    train.add_argument(
        "--keep",
        type=Bounded(float, 0.0, 1.0, open_low=True),
        default=1.0,
        help="share of the positions used (sampled)",
    )
    train.add_argument(
        "--target",
        default="outcome",
        metavar="|".join([*TARGETS, SEARCH_SPEC]),
        help="what the model learns: the game's outcome; the value of 1 or 2 plies of "
        "expectimax on the game's current value (its learned model, else its heuristic); or "
        "Star2's value to a depth or node bound (on the hand-written heuristic unless "
        "heuristic=learned), averaged over the outcomes at chance nodes",
    )
    train.add_argument(
        "--save-targets",
        metavar="FILE",
        help="also write the search targets (with the records' digests, keep, seed and "
        "target), so that other features or models can be trained on them without searching",
    )
    train.add_argument(
        "--targets-from",
        metavar="FILE",
        help="take the search targets from a file --save-targets wrote for the same records, "
        "keep, seed and target, instead of searching",
    )
    train.set_defaults(func=cmd_value_train)
    show = actions.add_parser("show", help="what a model file was trained on, and its metrics")
    show.add_argument("model", help="model file")
    show.add_argument("--json", action="store_true", help="as one JSON object")
    show.set_defaults(func=cmd_value_show)
