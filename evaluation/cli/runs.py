"""CLI commands that play or read many games: match, tournament, tune, report, plot."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

from chancespiel import files
from chancespiel.agents import parse_spec
from chancespiel.agents.registry import canonical_spec
from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.cli.common import out_or_fresh, read_all, records_of, two_player_game
from chancespiel.evaluation.match import record_seats
from chancespiel.evaluation.run_options import (
    add_running_options,
    run_config,
    run_games,
    speed_line,
)
from chancespiel.evaluation.sprt import SprtParams
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    check_output_dir,
    checked_specs,
    load_game,
    made_by,
    new_output,
    output_dir,
)

# Games of each pairing `report --out` annotates for its index.html: each annotation searches
# every position of its game (seconds outside Pig), so few by default and at most MAX_PAGES.
DEFAULT_PAGES = 2
MAX_PAGES = 20
MAX_LINES = 1_000_000_000  # a record file's lines: far more than any run writes


def cmd_match(args: argparse.Namespace) -> None:
    """Plays N seat-swapped matches of A against B, appending one JSON line per game."""
    from chancespiel.evaluation.api import MatchResult, match_header, match_luck

    game = two_player_game(args.game)
    checked_specs(game, [args.spec_a, args.spec_b], unattended=True)
    sprt = _sprt_option(args)
    luck = _luck_options(args, game)
    out_or_fresh(args, "match")
    config = run_config(args, args.game, [(args.spec_a, args.spec_b)], sprt=sprt, label="match")
    # the tally is enough here: memory stays bounded by the workers however many matches
    header = match_header(args.game, args.spec_a, args.spec_b, args.seed, args.matches, args.out)
    config = dataclasses.replace(
        config, luck=luck, value=args.value, keep_records=False, on_ready=_printer(header)
    )
    run = run_games(config)
    result = MatchResult(
        args.game, args.spec_a, args.spec_b, args.seed, args.matches, args.out, run
    )
    if luck and result.summary is not None:  # the corrected rate over the run, as report's
        records = [r for r in read_all([args.out]) if r["match"] < args.matches]
        result.luck = match_luck(records, result.summary, args.value)
    print(result.body())


def cmd_replay(args: argparse.Namespace) -> None:
    """Prints the game of one record move by move: each decision with its mover's agent, the
    time it took and the nodes it searched (where recorded), each chance outcome, the end."""
    from chancespiel.evaluation.match import is_known_game

    record = records_of(args.file, args.line)[0]  # (without --line, the first)
    if not is_known_game(record["game"]):
        raise UsageError(
            f"game {record['game']!r} is not loaded: replaying needs its code "
            "(chancespiel --import MODULE)"
        )
    game = load_game(record["game"])
    seats = record_seats(record)
    per_seat = {"move_ms": record.get("move_ms"), "nodes": record.get("nodes")}
    made = [0, 0]  # decisions of each seat so far: the index into its per-move lists
    state = game.new_initial_state()
    print(
        f"{record['game']}, match {record['match']} game {record['game_index']} (seed "
        f"{record['seed']}): player 0 {seats[0]}, player 1 {seats[1]}"
    )
    for action in record["history"]:
        player = state.current_player()
        text = state.action_to_string(player, action)
        if player < 0:
            print(f"  chance: {text}")
        else:
            print(str(state).rstrip())
            details = []
            for key, unit in (("move_ms", "ms"), ("nodes", "nodes")):
                values = per_seat[key]
                seat_values = values[player] if values else None
                if seat_values and made[player] < len(seat_values):
                    value = seat_values[made[player]]
                    if value is not None:
                        details.append(
                            f"{value:,.1f} {unit}" if unit == "ms" else f"{value:,} {unit}"
                        )
            made[player] += 1
            shown = f"  ({', '.join(details)})" if details else ""
            print(f"  player {player} ({seats[player]}): {text}{shown}")
        state.apply_action(action)
    print(str(state).rstrip())
    error = record.get("error")
    if error:
        print(f"  ended by {error.get('kind')}: {error.get('message')}")
    print(f"returns: {record['returns']}")


def _printer(header: str) -> Callable[[], None]:
    """What prints a run's header once its file is found to be the run's (a refused file
    gets its one-line error alone)."""
    return lambda: print(header, flush=True)


def _sprt_option(args: argparse.Namespace) -> SprtParams | None:
    """The parsed --sprt, checked before any game is played."""
    if args.sprt is None:
        return None
    try:
        return SprtParams.parse(args.sprt)
    except ValueError as e:
        raise UsageError(f"--sprt: {e}") from None


def _luck_options(args: argparse.Namespace, game: object) -> bool:
    """Checks --luck and --value (before any game is played); True if --luck was given."""
    from chancespiel.evaluation.luck import LuckError, value_function

    if args.value is not None and not args.luck:
        raise UsageError("--value needs --luck")
    if args.luck:
        try:
            value_function(str(game), args.value)
        except LuckError as e:
            raise UsageError(f"--luck: {e}") from None
    return bool(args.luck)


def _add_luck_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--luck",
        action="store_true",
        help=f"{what} luck-corrected scores (control variates over the chance nodes)",
    )
    parser.add_argument(
        "--value",
        metavar="NAME",
        help="value function of --luck: exact (Pig's solver), lookahead, heuristic, learned, "
        "learned_lookahead, learned_lookahead2, zero, or search(depth=D) / "
        "search(max_nodes=N), optionally with heuristic=NAME (Star2's value on the heuristic) "
        "and samples=K (a chance node's mean from K sampled outcomes; default: exact on Pig, "
        "else learned_lookahead where the game has a learned value, else lookahead)",
    )


def cmd_tournament(args: argparse.Namespace) -> None:
    """Round robin: N matches of every pair of agents, a table of score rates, Elo ratings;
    with --luck each pairing's luck-corrected rate, as `report --luck` gives it."""
    from chancespiel.evaluation.api import TournamentResult, tournament_header, tournament_luck

    game = two_player_game(args.game)
    if len(args.specs) < 2:
        raise UsageError("a tournament needs at least two distinct agent specs")
    checked_specs(game, args.specs, unattended=True)
    luck = _luck_options(args, game)
    agents = [canonical_spec(spec) for spec in args.specs]
    for i, agent in enumerate(agents):
        if (first := agents.index(agent)) != i:
            raise UsageError(
                f"a tournament needs at least two distinct agent specs: {args.specs[first]} "
                f"and {args.specs[i]} are the same agent"
            )
    pairs = [(a, b) for i, a in enumerate(args.specs) for b in args.specs[i + 1 :]]
    out_or_fresh(args, "tournament")
    config = run_config(args, args.game, pairs, label="tournament")
    header = tournament_header(args.game, len(args.specs), args.seed, args.matches, args.out)
    config = dataclasses.replace(config, keep_records=False, on_ready=_printer(header))
    run = run_games(config)
    result = TournamentResult(args.game, args.specs, args.seed, args.matches, args.out, run)
    if luck and result.pairs:  # this run's matches, as report --luck reads them
        records = [r for r in read_all([args.out]) if r["match"] < args.matches]
        result.luck = tournament_luck(records, result.pairs, args.value)
    print(result.body())


def cmd_report(args: argparse.Namespace) -> None:
    """Summarizes record files: score rates, tables, ratings, times, failures."""
    from chancespiel.evaluation.luck import CachedCorrections, LuckError
    from chancespiel.evaluation.report import format_report, summarize, write_report_files

    if args.value is not None and not args.luck:
        raise UsageError("--value needs --luck")
    if args.pages is not None and args.out is None:
        raise UsageError("--pages annotates games for the index of --out DIR: give --out too")
    if args.out is not None:
        check_output_dir(args.out)  # refused before the records are read
    records = read_all(args.files)
    out = None if args.out is None else output_dir(args.out, "report")
    corrections = CachedCorrections()  # the text and the files: each game replayed once
    try:
        if args.json:
            print(files.dumps(summarize(records, args.luck, args.value, corrections)))
        else:
            print(format_report(records, args.luck, args.value, corrections))
        if out is not None:
            from chancespiel.evaluation.report_index import write_index

            made = made_by(args.command_line)
            written = write_report_files(records, out, args.luck, args.value, made, corrections)
            pages = DEFAULT_PAGES if args.pages is None else args.pages
            written += write_index(
                records, out, written, pages, args.luck, args.value, corrections, made
            )
            print(f"written to {args.out}: {', '.join(written)}", file=sys.stderr)
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None


def cmd_plot(args: argparse.Namespace) -> None:
    """Bar chart of pairwise score rates with 95% intervals (MCMS paper, Figure 2)."""
    from chancespiel.evaluation.luck import LuckError
    from chancespiel.evaluation.plot import plot_pairs

    out = Path(args.out)
    if out.is_dir() or not out.name or out.suffix.lower() != ".png":
        raise UsageError(f"--out must name a .png file, got {args.out!r}")
    new_output(out, "plot", ".png")  # a plot is a result: not drawn over
    if args.value is not None and not args.luck:
        raise UsageError("--value needs --luck")
    records = read_all(args.files)
    try:
        plot_pairs(records, args.out, title=args.title, luck=args.luck, value=args.value)
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror}") from None
    print(f"wrote {args.out}")


def cmd_tune(args: argparse.Namespace) -> None:
    """Elimination tournament over parameter values (MCMS paper, section 4.2)."""
    from chancespiel.evaluation.luck import LuckError, luck_summary
    from chancespiel.evaluation.report import PairSummary
    from chancespiel.evaluation.sprt import SprtResult
    from chancespiel.evaluation.stats import match_interval
    from chancespiel.evaluation.tune import (
        Bout,
        Verdict,
        candidate_specs,
        eliminate,
        parse_param,
    )

    game = two_player_game(args.game)
    try:
        params = [parse_param(p) for p in args.param]
        candidates = candidate_specs(args.agent, params)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if len(candidates) < 2:
        raise UsageError("tuning needs at least two candidates: give --param name=v1,v2,...")
    checked_specs(game, candidates, unattended=True)
    sprt = _sprt_option(args)
    luck = _luck_options(args, game)
    all_pairs = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
    out_or_fresh(args, "tune")
    base = run_config(args, args.game, all_pairs, label="tune")
    base = dataclasses.replace(base, luck=luck, value=args.value)
    print(
        f"{args.game}: elimination tournament of {len(candidates)} candidates of {args.agent}, "
        f"{'up to ' if sprt else ''}{args.matches} matches (two games, seats swapped, same "
        f"dice) per pairing, seed {args.seed}; records in {args.out}"
    )

    rounds = 0
    tests: dict[tuple[str, str], SprtResult] = {}

    def play_round(pairs: list[tuple[str, str]]) -> list[dict]:
        nonlocal rounds
        rounds += 1
        print(f"round {rounds}: {len(pairs)} pairing(s)", flush=True)
        config = dataclasses.replace(base, pairs=pairs, file_pairs=all_pairs)
        if sprt is None:
            result = run_games(dataclasses.replace(config, label=f"round {rounds}"))
            print(speed_line(result))
            return result.records
        records = []
        for pair in pairs:  # an SPRT tests one pair: one run per pairing
            single = dataclasses.replace(config, pairs=[pair], sprt=sprt, label=f"round {rounds}")
            result = run_games(single)
            print(speed_line(result))
            assert result.sprt is not None
            tests[pair] = result.sprt
            records += result.records
        return records

    def judge(a: str, b: str, records: list[dict], summary: PairSummary) -> Verdict:
        if luck:
            lucky = luck_summary(records, args.value)
            interval, method = lucky.corrected, f"luck-corrected ({lucky.value})"
        else:
            interval, method = match_interval(summary.match_scores), "whole matches"
        rate = interval.mean if luck else summary.rate
        if sprt is not None:
            test = tests[(a, b)]
            decided = test.decision is not None
            return Verdict(
                rate,
                interval.low,
                interval.high,
                decided,
                f"{method}; SPRT {test.decision or 'undecided'} after {test.pairs} matches",
                None if not decided else test.decision == "H1",
            )
        decided = interval.matches >= 2 and not interval.low <= 0.5 <= interval.high
        return Verdict(rate, interval.low, interval.high, decided, method)

    def show_round(number: int, bouts: list[Bout], bye: str | None) -> None:
        for bout in bouts:
            v = bout.verdict
            assert v is not None
            flag = "" if bout.decided else "  NOT SIGNIFICANT"
            print(
                f"  {bout.a} vs {bout.b}: {100 * v.rate:.1f}% "
                f"[{100 * v.low:.1f}%, {100 * v.high:.1f}%] ({v.method}) of "
                f"{bout.summary.games} games -> {bout.winner}{flag}"
            )
        if bye is not None:
            print(f"  {bye}: bye")

    try:
        outcome = eliminate(candidates, play_round, show_round, judge)
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None
    _, champion_params = parse_spec(outcome.champion)
    tuned = ", ".join(f"{name}={champion_params[name]}" for name, _ in params)
    if outcome.decided:
        print(f"champion: {tuned}  ({outcome.champion})")
    else:
        steps = "; ".join(f"{b.a} vs {b.b}" for b in outcome.undecided)
        hint = "more --matches" + ("" if sprt else ", --sprt or --luck")
        print(
            f"no champion: {len(outcome.undecided)} step(s) not significant ({steps}); "
            f"provisional winner {tuned}  ({outcome.champion}); try {hint}"
        )


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds this module's commands to the `chancespiel` parser."""
    out_help = "JSON Lines file of the games (appended; resumes; default: a new file in results/)"

    match = add_parser(sub, "match")
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
    _add_luck_options(match, "the SPRT tests")
    match.set_defaults(func=cmd_match)

    tournament = add_parser(sub, "tournament")
    tournament.add_argument("game", help="game string")
    tournament.add_argument("specs", nargs="+", help="agent specs (the first is the Elo anchor)")
    add_running_options(tournament)
    tournament.add_argument("--out", help=out_help)
    _add_luck_options(tournament, "also")
    tournament.set_defaults(func=cmd_tournament)

    tune = add_parser(sub, "tune")
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
    tune.add_argument(
        "--sprt",
        metavar="ELO0,ELO1,ALPHA,BETA",
        help="judge each step by an SPRT (H1: A advances, H0: B advances; e.g. -20,20), "
        "playing up to --matches until it decides",
    )
    _add_luck_options(tune, "judge steps by")
    tune.set_defaults(func=cmd_tune)

    report = add_parser(sub, "report")
    report.add_argument("files", nargs="+", help="JSON Lines files of games")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.add_argument(
        "--out",
        help="also write a directory: report.json (with the command, version, engine and "
        "date that made it), pairs.csv, agents.csv, score.png (running score rate with its "
        "interval, luck-corrected with --luck), elo.png (3+ agents), and index.html linking "
        "them, each pairing's plot pair-N.png and the annotated pages of its first games; a "
        "directory that holds a report already is refused",
    )
    report.add_argument(
        "--pages",
        type=Bounded(int, 0, MAX_PAGES),
        help="games of each pairing annotated for index.html, the first by match (default "
        f"{DEFAULT_PAGES}; each takes seconds outside Pig: annotate's default reference)",
    )
    _add_luck_options(report, "also")
    report.set_defaults(func=cmd_report)

    replay = add_parser(sub, "replay")
    replay.add_argument("file", help="JSON Lines file of games")
    replay.add_argument(
        "--line",
        type=Bounded(int, 1, MAX_LINES),
        help="the record's line number in the file (default: the first record)",
    )
    replay.set_defaults(func=cmd_replay)

    plot = add_parser(sub, "plot")
    plot.add_argument("files", nargs="+", help="JSON Lines files of games")
    plot.add_argument("--out", required=True, help="PNG file to write")
    plot.add_argument("--title", default="", help="title of the figure")
    _add_luck_options(plot, "also draw")
    plot.set_defaults(func=cmd_plot)
