"""CLI commands that play or read many games: match, tournament, tune, report, plot."""

from __future__ import annotations

import argparse
import dataclasses
import json

from chancespiel.agents import parse_spec
from chancespiel.evaluation.cli.common import (
    UsageError,
    add_running_options,
    checked_specs,
    out_or_fresh,
    read_all,
    run_config,
    run_games,
    speed_line,
    two_player_game,
)


def cmd_match(args: argparse.Namespace) -> None:
    """Plays N seat-swapped matches of A against B, appending one JSON line per game."""
    from chancespiel.evaluation.report import (
        agent_stats,
        format_agent_stats,
        format_pair,
        pair_summaries,
    )
    from chancespiel.evaluation.sprt import SprtParams

    game = two_player_game(args.game)
    checked_specs(game, [args.spec_a, args.spec_b])
    sprt = None
    if args.sprt is not None:
        try:
            sprt = SprtParams.parse(args.sprt)
        except ValueError as e:
            raise UsageError(f"--sprt: {e}") from None
    out_or_fresh(args, "match")
    config = run_config(args, args.game, [(args.spec_a, args.spec_b)], sprt=sprt, label="match")
    result = run_games(config)
    print(
        f"{args.game}: {args.spec_a} (A) vs {args.spec_b} (B), seed {args.seed}, "
        f"{args.matches} matches of two games, seats swapped, same dice; records in {args.out}"
    )
    print(speed_line(result))
    (summary,) = pair_summaries(result.records) or [None]
    if summary is not None:
        print("  " + format_pair(summary))
    if result.sprt is not None:
        print("  " + result.sprt.describe())
    print("  per-move time and nodes:")
    print(format_agent_stats(agent_stats(result.records)))
    if result.extra:
        print(
            f"  ({len(result.extra)} games of matches beyond {args.matches} in the file "
            "are not counted)"
        )


def cmd_tournament(args: argparse.Namespace) -> None:
    """Round robin: N matches of every pair of agents, a table of score rates, Elo ratings."""
    from chancespiel.evaluation.report import (
        agent_stats,
        fit_ratings,
        format_agent_stats,
        format_ratings,
        format_table,
        pair_summaries,
    )

    game = two_player_game(args.game)
    if len(args.specs) < 2 or len(set(args.specs)) != len(args.specs):
        raise UsageError("a tournament needs at least two distinct agent specs")
    checked_specs(game, args.specs)
    pairs = [(a, b) for i, a in enumerate(args.specs) for b in args.specs[i + 1 :]]
    out_or_fresh(args, "tournament")
    result = run_games(run_config(args, args.game, pairs, label="tournament"))
    print(
        f"{args.game}: round robin of {len(args.specs)} agents, {args.matches} matches "
        f"(two games, seats swapped, same dice) per pair, seed {args.seed}; records in {args.out}"
    )
    print(speed_line(result))
    summaries = pair_summaries(result.records)
    print(format_table(summaries, args.specs))
    ratings = fit_ratings(summaries, args.specs)
    if ratings is not None:
        print(format_ratings(ratings))
    print("  per-move time and nodes:")
    print(format_agent_stats(agent_stats(result.records)))


def cmd_report(args: argparse.Namespace) -> None:
    """Summarizes record files: score rates, tables, ratings, times, failures."""
    from chancespiel.evaluation.luck import LuckError
    from chancespiel.evaluation.report import format_report, summarize

    if args.value is not None and not args.luck:
        raise UsageError("--value needs --luck")
    records = read_all(args.files)
    try:
        if args.json:
            print(json.dumps(summarize(records, args.luck, args.value)))
        else:
            print(format_report(records, args.luck, args.value))
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None


def cmd_plot(args: argparse.Namespace) -> None:
    """Bar chart of pairwise score rates with 95% intervals (MCMS paper, Figure 2)."""
    from chancespiel.evaluation.plot import plot_pairs

    records = read_all(args.files)
    try:
        plot_pairs(records, args.out, title=args.title)
    except ValueError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror}") from None
    print(f"wrote {args.out}")


def cmd_tune(args: argparse.Namespace) -> None:
    """Elimination tournament over parameter values (MCMS paper, section 4.2)."""
    from chancespiel.evaluation.tune import Bout, candidate_specs, eliminate, parse_param

    game = two_player_game(args.game)
    try:
        params = [parse_param(p) for p in args.param]
        candidates = candidate_specs(args.agent, params)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if len(candidates) < 2:
        raise UsageError("tuning needs at least two candidates: give --param name=v1,v2,...")
    checked_specs(game, candidates)
    all_pairs = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
    out_or_fresh(args, "tune")
    base = run_config(args, args.game, all_pairs, label="tune")
    print(
        f"{args.game}: elimination tournament of {len(candidates)} candidates of {args.agent}, "
        f"{args.matches} matches (two games, seats swapped, same dice) per pairing, "
        f"seed {args.seed}; records in {args.out}"
    )

    rounds = 0

    def play_round(pairs: list[tuple[str, str]]) -> list[dict]:
        nonlocal rounds
        rounds += 1
        print(f"round {rounds}: {len(pairs)} pairing(s)", flush=True)
        config = dataclasses.replace(base, pairs=pairs, file_pairs=all_pairs)
        result = run_games(dataclasses.replace(config, label=f"round {rounds}"))
        print(speed_line(result))
        return result.records

    def show_round(number: int, bouts: list[Bout], bye: str | None) -> None:
        for bout in bouts:
            low, high = bout.summary.interval
            print(
                f"  {bout.a} vs {bout.b}: {100 * bout.summary.rate:.1f}% "
                f"[{100 * low:.1f}%, {100 * high:.1f}%] of {bout.summary.games} games "
                f"-> {bout.winner}"
            )
        if bye is not None:
            print(f"  {bye}: bye")

    outcome = eliminate(candidates, play_round, show_round)
    _, champion_params = parse_spec(outcome.champion)
    tuned = ", ".join(f"{name}={champion_params[name]}" for name, _ in params)
    print(f"champion: {tuned}  ({outcome.champion})")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds this module's commands to the `chancespiel` parser."""
    out_help = "JSON Lines file of the games (appended; resumes; default: a new file in results/)"

    match = sub.add_parser("match", help="N seat-swapped matches of A against B")
    match.add_argument("game", help="game string")
    match.add_argument("spec_a", help="agent A")
    match.add_argument("spec_b", help="agent B")
    add_running_options(match)
    match.add_argument("--out", help=out_help)
    match.add_argument(
        "--sprt",
        metavar="ELO0,ELO1,ALPHA,BETA",
        help="stop when a pentanomial SPRT of H0: elo=ELO0 vs H1: elo=ELO1 decides",
    )
    match.set_defaults(func=cmd_match)

    tournament = sub.add_parser("tournament", help="round robin: every pair of agents, Elo ratings")
    tournament.add_argument("game", help="game string")
    tournament.add_argument("specs", nargs="+", help="agent specs (the first is the Elo anchor)")
    add_running_options(tournament)
    tournament.add_argument("--out", help=out_help)
    tournament.set_defaults(func=cmd_tournament)

    tune = sub.add_parser("tune", help="elimination tournament over parameter values")
    tune.add_argument("game", help="game string")
    tune.add_argument("agent", help="agent name, optionally with fixed parameters")
    tune.add_argument(
        "--param",
        action="append",
        required=True,
        metavar="NAME=V1,V2,...",
        help="values of one parameter (repeatable: every combination is a candidate)",
    )
    add_running_options(tune)
    tune.add_argument("--out", help=out_help)
    tune.set_defaults(func=cmd_tune)

    report = sub.add_parser("report", help="summarize game record files")
    report.add_argument("files", nargs="+", help="JSON Lines files of games")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument(
        "--luck",
        action="store_true",
        help="also luck-corrected score rates (control variates over the chance nodes)",
    )
    report.add_argument(
        "--value",
        metavar="NAME",
        help="value function of --luck: exact (Pig's solver), lookahead, heuristic, zero "
        "(default: exact on Pig, else lookahead)",
    )
    report.set_defaults(func=cmd_report)

    plot = sub.add_parser("plot", help="bar chart of pairwise score rates (PNG)")
    plot.add_argument("files", nargs="+", help="JSON Lines files of games")
    plot.add_argument("--out", required=True, help="PNG file to write")
    plot.add_argument("--title", default="", help="title of the figure")
    plot.set_defaults(func=cmd_plot)
