"""The MCMS paper's Figure 2: playing strength of *-Minimax, MCMS and MCTS in four games.

Reproduces "Monte Carlo *-Minimax Search" (Lanctot et al., 2013), section 4.4, Figure 2.

Seven pairings (ExpSS-Exp, Star1SS-Star1, Star2SS-Star2, Star1SS-ExpSS, Star2SS-Star1SS,
Star1-MCTS, Star1SS-MCTS) with the paper's tuned parameters (`mcms_setup`), each a run of N
seat-swapped matches with shared dice (`chancespiel.evaluation.runner`): parallel, and resumable
from one record file per game, OUT/<game>.jsonl. "MCTS" is the variant the paper found better in
that game (classic MCTS in Pig and EWN, DPW in Can't Stop and Ra) unless `--mcts` says
otherwise; the label then names the variant played (e.g. Star1-DPW). `--samples ewn=3,3,3`
replaces the paper's sample widths in a game (for widths re-tuned to our evaluation); such a run
is another setup and needs its own output directory.

The table (table.md, table.csv) and the chart (figure2.png) summarise every game in the record
files, whatever this invocation played, so a run can be extended a few matches at a time:

    chancespiel experiment figure2 --games cant_stop,ra --pairings Star2SS-Star2 \
        --matches 20 --out results/figure2/paper_200ms

Rates are the left agent's score (wins + draws / 2) over scored games, with Wilson 95%
intervals over games (the two games of a match share their dice, which makes the interval
slightly conservative for the pairing's difference in strength).

The modules: `plan` (pairings, specs, record files, each game's run), `stats` (rates, intervals,
pooling, luck-corrected sequential answers), `render` (tables, CSV, charts) and `running`
(playing the plans, resumable); this one is the command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from chancespiel.agents.search_common import CLOCKS, MAX_NODES
from chancespiel.studies import Experiment, mcms_setup
from chancespiel.studies.figure2.plan import (
    MCTS,
    MCTS_CHOICES,
    ALL_LABELS,
    PAIRING_LABELS,
    game_plans,
    load_records,
    record_path,
)
from chancespiel.studies.figure2.render import (
    answers_markdown,
    markdown,
    write_answers,
    write_outputs,
)
from chancespiel.studies.figure2.running import play_all, play_sequential
from chancespiel.studies.figure2.stats import answers_for
from chancespiel.evaluation.luck import CachedCorrections, LuckError
from chancespiel.evaluation.match import RecordFileError, a_score
from chancespiel.evaluation.run_options import add_running_options
from chancespiel.evaluation.sequential import SequentialRule
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    choices,
    matches_arg,
    minutes_arg,
    output_dir,
    time_ms_arg,
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_running_options(parser)
    parser.add_argument(
        "--games", help="comma-separated subset of pig,ewn,cant_stop,ra (default all)"
    )
    parser.add_argument(
        "--pairings",
        help="comma-separated pairings, e.g. Star2SS-Star2,Star1SS-MCTS (default: the paper's "
        "seven); beyond the paper, the hybrid searches: ExpHS-Exp, Star1HS-Star1, Star2HS-Star2, "
        "ExpHS-ExpSS, Star1HS-Star1SS, Star2HS-Star2SS",
    )
    parser.add_argument("--time-ms", type=time_ms_arg, default=200.0, help="search time per move")
    parser.add_argument(
        "--mcts",
        choices=MCTS_CHOICES,
        default="paper",
        help="MCTS variant of the MCTS pairings (paper: MCTS in Pig, EWN; DPW in Can't Stop, Ra)",
    )
    parser.add_argument(
        "--heuristic",
        default="default",
        help="heuristic of every agent (default; zero; or a game's variant, see chancespiel games)",
    )
    parser.add_argument(
        "--samples",
        action="append",
        metavar="GAME=W1,W2,W3",
        help="sample widths of expss, star1ss, star2ss in one game instead of the paper's, e.g. "
        "ewn=3,3,3 (repeatable; use another --out: a record file holds one setup)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="wall",
        help="what every agent's time_ms measures (cpu: the same search on a loaded machine)",
    )
    parser.add_argument(
        "--max-nodes",
        type=Bounded(int, 1, MAX_NODES),
        help="search this many nodes per move instead of --time-ms, in the *-Minimax pairings "
        "(equal node budgets: the answer without the speed of Python; use another --out)",
    )
    parser.add_argument(
        "--ordered-dice",
        action="store_true",
        help="Pig and Can't Stop with ordered dice (36 and 1296 rolls; use another --out)",
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="play each pairing in looks of --batch matches until its luck-corrected interval "
        "is within --target-points or excludes 50%% and the paper's rate (evaluation.sequential);"
        " --matches is then the cap. Writes answers.md, answers.csv, answers.png",
    )
    parser.add_argument("--batch", type=matches_arg, default=10, help="matches per look")
    parser.add_argument(
        "--min-matches", type=matches_arg, default=20, help="matches before the first look"
    )
    parser.add_argument(
        "--target-points",
        type=Bounded(float, 0.0, 100.0, open_low=True),
        default=5.0,
        help="half-width of the 95%% corrected interval that is precise enough, in points",
    )
    parser.add_argument(
        "--max-minutes",
        type=minutes_arg,
        help="start no new game after this many minutes (the same command resumes)",
    )
    parser.add_argument(
        "--luck-figure",
        action="store_true",
        help="also write figure2_luck.png: each bar with its pairing's luck-corrected rate "
        "and interval (replays every game: minutes for Can't Stop and Ra)",
    )
    parser.add_argument(
        "--summarise-only",
        action="store_true",
        help="play nothing: only write the tables and figures from the records in --out",
    )
    parser.add_argument(
        "--out",
        help="directory of the record files and the table; an existing one is resumed and "
        "extended (default: a new directory in results/figure2/)",
    )


# What a run writes over: the tables and figures made from its records.
OUTPUTS = (
    "table.md",
    "table.csv",
    "figure2.png",
    "figure2_luck.png",
    "answers.md",
    "answers.csv",
    "answers.png",
)


def _holds_records(out: Path) -> bool:
    """Whether `out` holds a figure2 run: a record file of one of its games."""
    return any(record_path(out, setup).is_file() for setup in mcms_setup.SETUPS.values())


def _run(args: argparse.Namespace) -> None:
    keys = choices("--games", args.games, list(mcms_setup.SETUPS))
    labels = (
        PAIRING_LABELS
        if args.pairings is None
        else choices("--pairings", args.pairings, ALL_LABELS)
    )
    timed = [label for label in labels if label.endswith(MCTS)]
    if args.max_nodes is not None and timed:
        raise UsageError(
            f"--max-nodes budgets the *-Minimax players only; {', '.join(timed)} would mix a "
            "node budget with MCTS's time: choose --pairings without them"
        )
    try:
        setups = mcms_setup.with_samples(mcms_setup.SETUPS, args.samples or [])
        if args.ordered_dice:
            setups = mcms_setup.with_ordered_dice(setups, keys)
        rule = None
        if args.sequential:
            rule = SequentialRule(
                args.batch,
                args.matches,
                min(args.min_matches, args.matches),
                args.target_points / 100.0,
            )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.summarise_only and not args.out:
        raise UsageError("--summarise-only needs --out: the directory of the records")
    if args.summarise_only and not _holds_records(Path(args.out)):
        raise UsageError(f"--summarise-only: --out {args.out} holds no record files of figure2")
    out = output_dir(args.out, "figure2", resume=_holds_records, outputs=OUTPUTS)
    plans = game_plans(args, setups, keys, labels, out)
    try:
        if rule is not None:
            corrections = CachedCorrections()
            if not args.summarise_only:
                play_sequential(plans, rule, args.max_minutes, corrections)
            answers = answers_for(plans, rule, corrections)
            write_answers(out, answers, rule)
            print(answers_markdown(answers, rule))
        elif not args.summarise_only:
            play_all(plans, args.max_minutes)
        records = load_records(out, setups)
    except RecordFileError as e:
        raise UsageError(str(e)) from None
    if not any(a_score(r) is not None for game_records in records.values() for r in game_records):
        print(f"{out}: no scored games to summarise yet; the same command plays them")
        return
    try:
        rows = write_outputs(out, records, setups, luck=args.luck_figure)
    except LuckError as e:
        raise UsageError(f"--luck-figure: {e}") from None
    print(markdown(rows))
    figures = "figure2.png, figure2_luck.png" if args.luck_figure else "figure2.png"
    print(f"written to {out}/table.md, table.csv, {figures} (records: {out}/<game>.jsonl)")


EXPERIMENT = Experiment.listed(
    "figure2",
    _add_arguments,
    _run,
)
