"""The `chancespiel` command: games, agents, play, match, tournament, report, plot, tune, solve.

chancespiel games
chancespiel agents
chancespiel play python_pig pig_optimal "hold(n=20)" --seed 3
chancespiel match python_pig pig_optimal "hold(n=20)" --matches 500 --out pig.jsonl
chancespiel tournament python_pig pig_optimal "hold(n=20)" "hold(n=25)" --matches 200
chancespiel report pig.jsonl
chancespiel plot pig.jsonl --out pig.png
chancespiel tune python_pig "expss(max_depth=2)" --param samples=5,10,20 --matches 50
chancespiel solve pig --dice 2 --winscore 100 --json
chancespiel experiment bab-nodes --trees 40 --out docs/bab
chancespiel experiment uct-convergence --out docs/uct
chancespiel experiment figure2 --games cant_stop --matches 20 --out docs/figure2
chancespiel demo
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any

import pyspiel

from chancespiel.agents import AGENTS, check_spec, make_bot, parse_spec
from chancespiel.evaluation.match import (
    DEFAULT_MOVE_TIMEOUT_S,
    DEFAULT_OVERRUN_MS,
    RecordFileError,
    read_records,
    unique_records,
)
from chancespiel.evaluation.parallel import BACKENDS, BackendError, check_reachable
from chancespiel.evaluation.play import CHANCE, play_game, play_match, score_of
from chancespiel.evaluation.runner import RunConfig, RunResult, run
from chancespiel.evaluation.stats import wilson_interval
from chancespiel.games import GAMES, has_heuristic
from chancespiel.games.registry import evaluation_for, heuristic_names


class UsageError(Exception):
    """A bad command line: printed without a traceback, exit status 2."""

    status = 2


class RunInterruptedError(UsageError):
    """Ctrl-C during a run: exit status 130, as a shell reports SIGINT."""

    status = 130


def load_game(game_string: str) -> pyspiel.Game:
    """pyspiel.load_game with a clear error for unknown names or bad parameters."""
    try:
        return pyspiel.load_game(game_string)
    except (pyspiel.SpielError, ValueError, RuntimeError) as e:
        raise UsageError(f"cannot load game {game_string!r}: {e}") from None


def _checked_specs(game: pyspiel.Game, specs: Sequence[str]) -> None:
    for spec in specs:
        try:
            check_spec(spec, game)
        except ValueError as e:
            raise UsageError(str(e)) from None


def cmd_games(args: argparse.Namespace) -> None:
    """Lists chancespiel's games with their parameters."""
    del args
    for entry in GAMES.values():
        params = pyspiel.load_game(entry.short_name).get_parameters()
        shown = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
        names = heuristic_names(pyspiel.load_game(entry.short_name))
        if not has_heuristic(entry.short_name):
            names[0] += " (none registered: 0)"
        print(f"{entry.short_name}  [{entry.status}]")
        print(f"    {entry.description}")
        print(f"    parameters: {shown}")
        print(f"    chance: {entry.chance}")
        print(f"    heuristics (agents' heuristic=): {', '.join(names)}")


def cmd_agents(args: argparse.Namespace) -> None:
    """Lists the agents and their parameters."""
    del args
    for info in sorted(AGENTS.values(), key=lambda i: i.name):
        print(f"{info.name}: {info.help}")
        for name, param in info.params.items():
            print(f"    {name}={param.default!r}  {param.help}")


def cmd_play(args: argparse.Namespace) -> None:
    """Plays one game between two agents, printing it as it goes."""
    game = load_game(args.game)
    _checked_specs(game, [args.agent0, args.agent1])
    bots = [make_bot(args.agent0, game, 0, args.seed), make_bot(args.agent1, game, 1, args.seed)]
    names = [args.agent0, args.agent1]

    def show(state: pyspiel.State, player: int, action: int) -> None:
        if args.quiet:
            return
        text = state.action_to_string(player, action)
        if player == CHANCE:
            print(f"  chance: {text}")
        else:
            print(str(state).rstrip())
            print(f"  player {player} ({names[player]}): {text}")

    record = play_game(game, bots, args.seed, show)
    final = game.new_initial_state()
    for action in record.history:
        final.apply_action(action)
    print(str(final).rstrip())
    print(f"returns: {record.returns}  ({record.moves} decision moves)")
    for player, value in enumerate(record.returns):
        if value > 0:
            print(f"winner: player {player} ({names[player]})")
            break
    else:
        print("draw")


def apply_history(game: pyspiel.Game, history: str) -> pyspiel.State:
    """The state after the space-separated action ids of `history` (chance outcomes included)."""
    state = game.new_initial_state()
    for number, token in enumerate(history.split(), start=1):
        try:
            action = int(token)
        except ValueError:
            raise UsageError(f"history item {number} ({token!r}) is not an action id") from None
        try:
            state.apply_action(action)
        except (ValueError, pyspiel.SpielError) as e:
            raise UsageError(f"history item {number} ({action}) cannot be applied: {e}") from None
    return state


def cmd_analyse(args: argparse.Namespace) -> None:
    """Searches one position with one agent and prints what it found."""
    game = load_game(args.game)
    state = apply_history(game, args.history)
    player = state.current_player()
    if player < 0:
        kind = "terminal" if state.is_terminal() else "a chance node"
        raise UsageError(f"the position after the history is {kind}, not a decision")
    _checked_specs(game, [args.agent])
    bot = make_bot(args.agent, game, player, args.seed)
    if not hasattr(bot, "analyse"):
        raise UsageError(f"agent {args.agent!r} does not search; it cannot analyse a position")
    result = bot.analyse(state)
    report = {
        "game": str(game),
        "history": [int(a) for a in args.history.split()],
        "player": player,
        "agent": args.agent,
        "value": result.value,
        "action": result.action,
        "action_string": state.action_to_string(player, result.action),
        "action_values": {str(a): v for a, v in result.action_values.items()},
        "nodes": result.nodes,
        "depth": result.depth,
        "time_s": result.time_s,
    }
    bounds = getattr(result, "action_bounds", None)  # interval searches (bab)
    if bounds is not None:
        report["lower"], report["upper"] = result.lower, result.upper
        report["action_bounds"] = {str(a): list(lu) for a, lu in bounds.items()}
    if args.json:
        print(json.dumps(report))
        return
    print(str(state).rstrip())
    print(
        f"{args.agent} for player {player}: {report['action_string']} ({result.action}), "
        f"value {result.value:+.4f}, depth {result.depth}, {result.nodes} nodes, "
        f"{result.time_s:.3f} s"
    )
    if bounds is not None:
        print(f"  interval [{result.lower:+.4f}, {result.upper:+.4f}]; children's intervals:")
        for action, (low, up) in sorted(bounds.items(), key=lambda kv: -kv[1][0]):
            name = state.action_to_string(player, action)
            print(f"  {name:>24s} ({action}): [{low:+.4f}, {up:+.4f}]")
        return
    for action, value in sorted(result.action_values.items(), key=lambda kv: -kv[1]):
        print(f"  {state.action_to_string(player, action):>24s} ({action}): {value:+.4f}")


def cmd_node_counts(args: argparse.Namespace) -> None:
    """Mean nodes of expectimax / star1 / star2 at fixed depths, as a Markdown table."""
    from chancespiel.evaluation.node_counts import markdown_table, node_counts

    try:
        depths = [int(d) for d in args.depths.split(",")]
    except ValueError:
        raise UsageError(f"--depths: comma-separated integers, not {args.depths!r}") from None
    rows = []
    for game_string in args.game:
        load_game(game_string)
        rows.extend(node_counts(game_string, depths, args.positions, args.seed))
        print(markdown_table(rows[-len(depths) :]), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(markdown_table(rows) + "\n")


def _check_heuristic(game_string: str, name: str) -> None:
    """UsageError unless `name` is a heuristic of the game (listing the known ones)."""
    try:
        evaluation_for(load_game(game_string), name)
    except ValueError as e:
        raise UsageError(f"--heuristic: {e}") from None


def cmd_pig_estimators(args: argparse.Namespace) -> None:
    """The MCMS paper's Table 1 on two-dice Pig (see evaluation/pig_estimators.py)."""
    from pathlib import Path

    from chancespiel.evaluation import pig_estimators as pe

    if args.summarise_only:
        try:
            estimates = pe.read_raw(Path(args.out) / "raw.csv")
        except ValueError as e:
            raise UsageError(str(e)) from None
        names = list(dict.fromkeys(e.estimator for e in estimates))
        rows = pe.summarise(estimates, names)
        pe.write_outputs(Path(args.out), estimates, rows, raw=False)
        print(pe.tables(estimates, rows))
        print(f"written to {args.out}/table.md, table.csv (from {args.out}/raw.csv)")
        return
    _check_heuristic(pe.GAME, args.heuristic)
    specs = pe.paper_specs(args.time_ms, args.heuristic)
    if args.estimators:
        names = args.estimators.split(",")
        unknown = sorted(set(names) - set(specs))
        if unknown:
            raise UsageError(f"unknown estimator(s) {unknown}; known: {', '.join(specs)}")
        specs = {name: specs[name] for name in names}
    collect = pe.paper_specs(args.collect_time_ms, args.heuristic)
    collect = {name: collect[name] for name in specs}
    print(f"collecting states from games between {', '.join(specs)} ...", flush=True)
    states = pe.collect_states(collect, args.collect_games, args.states, args.seed)
    print(
        f"{len(states)} distinct states; {args.runs} runs of each estimator per state", flush=True
    )

    def progress(done: int, total: int) -> None:
        print(f"\r  states done: {done}/{total}", end="", file=sys.stderr, flush=True)

    estimates = pe.run_estimates(states, specs, args.runs, args.seed, args.workers, progress)
    print(file=sys.stderr)
    rows = pe.summarise(estimates, list(specs))
    pe.write_outputs(Path(args.out), estimates, rows)
    print(pe.tables(estimates, rows))
    print(f"written to {args.out}/table.md, table.csv, raw.csv")


def _choices(option: str, text: str | None, known: Sequence[str]) -> list[str]:
    """'a,b' -> ['a', 'b'] in the order of `known` (None: all of `known`), unknown ones refused."""
    if text is None:
        return list(known)
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in known]
    if unknown or not chosen:
        raise UsageError(f"{option}: unknown {unknown or text!r}; known: {', '.join(known)}")
    return [item for item in known if item in chosen]


def cmd_figure2(args: argparse.Namespace) -> None:
    """The MCMS paper's Figure 2: the seven pairings in the four games (evaluation/figure2.py)."""
    from pathlib import Path

    from chancespiel.evaluation import figure2
    from chancespiel.evaluation.mcms_setup import SETUPS, with_samples

    keys = _choices("--games", args.games, list(SETUPS))
    labels = _choices("--pairings", args.pairings, figure2.PAIRING_LABELS)
    try:
        setups = with_samples(SETUPS, args.samples or [])
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.time_ms <= 0:
        raise UsageError(f"--time-ms must be > 0, got {args.time_ms:g}")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create {out}: {e.strerror}") from None
    plans = []
    for key in keys:
        setup = setups[key]
        _check_heuristic(setup.game, args.heuristic)
        chosen = figure2.pairings(setup, labels, args.time_ms, args.mcts, args.heuristic)
        _checked_specs(load_game(setup.game), [s for p in chosen for s in (p.a, p.b)])
        allowed = [(p.a, p.b) for p in figure2.file_pairings(setup, args.time_ms, args.heuristic)]
        config = _run_config(
            args,
            setup.game,
            [(p.a, p.b) for p in chosen],
            file_pairs=allowed,
            label=f"figure2 {key}",
        )
        plans.append(
            (setup, chosen, dataclasses.replace(config, out=str(figure2.record_path(out, setup))))
        )
    for setup, chosen, config in plans:
        print(f"{setup.title} ({setup.game}): {', '.join(p.label for p in chosen)}", flush=True)
        print(_speed_line(_run(config)), flush=True)
    try:
        records = figure2.load_records(out)
    except RecordFileError as e:
        raise UsageError(str(e)) from None
    rows = figure2.write_outputs(out, records)
    print(figure2.markdown(rows))
    print(f"written to {out}/table.md, table.csv, figure2.png (records: {out}/<game>.jsonl)")


def cmd_search_depth(args: argparse.Namespace) -> None:
    """Completed depth and nodes of the paper's *-Minimax players at a time budget."""
    from pathlib import Path

    from chancespiel.evaluation import figure2, search_depth
    from chancespiel.evaluation.mcms_setup import SETUPS

    keys = _choices("--games", args.games, list(SETUPS))
    if args.time_ms <= 0:
        raise UsageError(f"--time-ms must be > 0, got {args.time_ms:g}")
    if args.positions < 1:
        raise UsageError(f"--positions must be >= 1, got {args.positions}")
    try:
        records = figure2.load_records(args.records)
    except RecordFileError as e:
        raise UsageError(str(e)) from None
    missing = [k for k in keys if k not in records]
    if missing and args.games:
        raise UsageError(f"no record file in {args.records} for: {', '.join(missing)}")
    rows = []
    for key in keys:
        if key not in records:
            continue
        setup = SETUPS[key]
        try:
            histories = search_depth.sample_positions(
                load_game(setup.game), records[key], args.positions, args.seed
            )
        except ValueError as e:
            raise UsageError(str(e)) from None
        rows += search_depth.measure(setup, histories, args.time_ms, args.seed)
        print(f"{setup.title}: {len(histories)} positions", flush=True)
    if not rows:
        raise UsageError(f"no Figure 2 record files in {args.records}")
    table = search_depth.markdown(rows, args.time_ms)
    print(table, end="")
    if args.out:
        Path(args.out).write_text(table)


def _floats(option: str, text: str) -> list[float]:
    """'0,0.05,0.1' -> [0.0, 0.05, 0.1]; '' -> []."""
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{option}: comma-separated numbers, not {text!r}") from None


def cmd_bab_nodes(args: argparse.Namespace) -> None:
    """Nodes of BAB against epsilon, alpha-beta / Star1 and expectimax on seeded trees."""
    from pathlib import Path

    from chancespiel.evaluation.bab_nodes import DEFAULT_GAMES, run

    games = args.game or list(DEFAULT_GAMES)
    for game_string in games:
        load_game(game_string)
    rows = run(
        games,
        args.trees,
        _floats("--epsilons", args.epsilons),
        _floats("--gammas", args.gammas),
        Path(args.out),
    )
    print(f"wrote {args.out}/bab_nodes.md, bab_nodes.csv, bab_nodes.png ({len(rows)} rows)")


def cmd_uct_convergence(args: argparse.Namespace) -> None:
    """UCT against MC and alpha-beta on P-games; UCT convergence on implanted strategies."""
    from pathlib import Path

    from chancespiel.evaluation.uct_convergence import UCB1_C, Scale, run

    scale = Scale(
        pgame_trees=args.pgame_trees,
        pgame_runs=args.pgame_runs,
        pgame_iterations=args.pgame_iterations,
        implanted_depth=args.implanted_depth,
        implanted_runs=args.implanted_runs,
        implanted_iterations=args.implanted_iterations,
        trap_depth=args.trap_depth,
        trap_runs=args.trap_runs,
        trap_iterations=args.trap_iterations,
        uct_c=UCB1_C if args.uct_c is None else args.uct_c,
        workers=args.workers,
    )
    studies = args.studies.split(",")
    unknown = sorted(set(studies) - {"pgame", "implanted"})
    if unknown:
        raise UsageError(f"--studies: unknown {unknown}; known: pgame, implanted")
    run(scale, Path(args.out), studies)
    print(f"wrote the tables (uct_*.md), CSV files and plots into {args.out}")


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {number}")
    return number


def _run_config(
    args: argparse.Namespace, game: str, pairs: list[tuple[str, str]], **extra: Any
) -> RunConfig:
    """A RunConfig from the options every playing command shares, checked before any game."""
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise UsageError("the ray backend needs ray: pip install 'chancespiel[ray]'")
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address is for --backend ray")
    if args.address is not None:
        try:
            check_reachable(args.address)
        except BackendError as e:
            raise UsageError(str(e)) from None
    if args.overrun_ms < 0:
        raise UsageError(f"--overrun-ms must be >= 0, got {args.overrun_ms:g}")
    if args.move_timeout_s < 0:
        raise UsageError(f"--move-timeout-s must be >= 0, got {args.move_timeout_s:g}")
    return RunConfig(
        game=game,
        pairs=pairs,
        matches=args.matches,
        seed=args.seed,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        out=getattr(args, "out", None),
        overrun_ms=args.overrun_ms,
        move_timeout_s=args.move_timeout_s or None,
        progress=False if args.no_progress else None,
        **extra,
    )


def _two_player_game(game_string: str) -> pyspiel.Game:
    game = load_game(game_string)
    if game.num_players() != 2:
        raise UsageError(f"{game_string}: matches need a two-player game")
    return game


def _run(config: RunConfig) -> RunResult:
    """runner.run with its errors as UsageError; Ctrl-C leaves a resumable file."""
    try:
        return run(config)
    except (RecordFileError, BackendError) as e:
        raise UsageError(str(e)) from None
    except KeyboardInterrupt:
        where = (
            f" {config.out} keeps every finished game; run the same command to resume."
            if config.out
            else ""
        )
        raise RunInterruptedError(f"interrupted.{where}") from None


def _speed_line(result: RunResult) -> str:
    if not result.played:
        return f"  nothing to play: all {result.resumed} games were in the file"
    found = f"; {result.resumed} games were already in the file" if result.resumed else ""
    return (
        f"  played {result.played} games in {result.seconds:.1f} s on {result.executor} "
        f"({result.matches_per_second:.2f} matches/s){found}"
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

    game = _two_player_game(args.game)
    _checked_specs(game, [args.spec_a, args.spec_b])
    sprt = None
    if args.sprt is not None:
        try:
            sprt = SprtParams.parse(args.sprt)
        except ValueError as e:
            raise UsageError(f"--sprt: {e}") from None
    config = _run_config(args, args.game, [(args.spec_a, args.spec_b)], sprt=sprt, label="match")
    result = _run(config)
    print(
        f"{args.game}: {args.spec_a} (A) vs {args.spec_b} (B), seed {args.seed}, "
        f"{args.matches} matches of two games, seats swapped, same dice; records in {args.out}"
    )
    print(_speed_line(result))
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

    game = _two_player_game(args.game)
    if len(args.specs) < 2 or len(set(args.specs)) != len(args.specs):
        raise UsageError("a tournament needs at least two distinct agent specs")
    _checked_specs(game, args.specs)
    pairs = [(a, b) for i, a in enumerate(args.specs) for b in args.specs[i + 1 :]]
    result = _run(_run_config(args, args.game, pairs, label="tournament"))
    print(
        f"{args.game}: round robin of {len(args.specs)} agents, {args.matches} matches "
        f"(two games, seats swapped, same dice) per pair, seed {args.seed}"
    )
    print(_speed_line(result))
    summaries = pair_summaries(result.records)
    print(format_table(summaries, args.specs))
    ratings = fit_ratings(summaries, args.specs)
    if ratings is not None:
        print(format_ratings(ratings))
    print("  per-move time and nodes:")
    print(format_agent_stats(agent_stats(result.records)))


def _read_all(paths: Sequence[str]) -> list[dict]:
    records: list[dict] = []
    for path in paths:
        try:
            records.extend(read_records(path))
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        except RecordFileError as e:
            raise UsageError(str(e)) from None
    if not records:
        raise UsageError(f"no game records in {', '.join(paths)}")
    records, repeats = unique_records(records)
    if repeats:
        warnings.warn(
            f"{repeats} game(s) appear more than once (same game, agents, seed and match); "
            "each is counted once",
            stacklevel=2,
        )
    return records


def cmd_report(args: argparse.Namespace) -> None:
    """Summarizes record files: score rates, tables, ratings, times, failures."""
    from chancespiel.evaluation.report import format_report, summarize

    records = _read_all(args.files)
    if args.json:
        print(json.dumps(summarize(records)))
    else:
        print(format_report(records))


def cmd_plot(args: argparse.Namespace) -> None:
    """Bar chart of pairwise score rates with 95% intervals (MCMS paper, Figure 2)."""
    from chancespiel.evaluation.plot import plot_pairs

    records = _read_all(args.files)
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

    game = _two_player_game(args.game)
    try:
        params = [parse_param(p) for p in args.param]
        candidates = candidate_specs(args.agent, params)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if len(candidates) < 2:
        raise UsageError("tuning needs at least two candidates: give --param name=v1,v2,...")
    _checked_specs(game, candidates)
    all_pairs = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
    base = _run_config(args, args.game, all_pairs, label="tune")
    print(
        f"{args.game}: elimination tournament of {len(candidates)} candidates of {args.agent}, "
        f"{args.matches} matches (two games, seats swapped, same dice) per pairing, "
        f"seed {args.seed}"
    )

    rounds = 0

    def play_round(pairs: list[tuple[str, str]]) -> list[dict]:
        nonlocal rounds
        rounds += 1
        print(f"round {rounds}: {len(pairs)} pairing(s)", flush=True)
        config = dataclasses.replace(base, pairs=pairs, file_pairs=all_pairs)
        result = _run(dataclasses.replace(config, label=f"round {rounds}"))
        print(_speed_line(result))
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


def cmd_solve(args: argparse.Namespace) -> None:
    """Solves Pig exactly and prints the first player's optimal win probability."""
    from chancespiel.games.pig_solver import solve_pig

    start = time.perf_counter()
    try:
        solution = solve_pig(dice=args.dice, winscore=args.winscore, sides=args.sides)
    except ValueError as e:
        raise UsageError(str(e)) from None
    seconds = time.perf_counter() - start
    result = {
        "game": f"python_pig(dice={args.dice},diceoutcomes={args.sides},winscore={args.winscore})",
        "first_player_win_probability": solution.first_player_win_probability,
        "iterations": solution.iterations,
        "seconds": round(seconds, 3),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['game']}: the first player wins with probability "
            f"{solution.first_player_win_probability:.6f} under optimal play "
            f"({solution.iterations} iterations, {seconds:.1f} s)"
        )


def cmd_demo(args: argparse.Namespace) -> None:
    """A short real match: optimal two-dice Pig against 'hold at 20', seats swapped."""
    game = load_game("python_pig")
    spec_a, spec_b = "pig_optimal", "hold(n=20)"
    print(f"Two-dice Pig to 100 (the MCMS paper's variant): {spec_a} vs {spec_b}")
    print(f"{args.matches} matches of two games, seats swapped, the same dice in both games.")
    start = time.perf_counter()
    score = 0.0
    for match in range(args.matches):
        first, second = play_match(game, spec_a, spec_b, seed=args.seed + match)
        score += score_of(first.returns, 0) + score_of(second.returns, 1)
    games = 2 * args.matches
    low, high = wilson_interval(score, games)
    print(
        f"{spec_a} scored {score:g} of {games} games: {score / games:.1%} "
        f"(95% Wilson interval {low:.1%} to {high:.1%}) in {time.perf_counter() - start:.1f} s"
    )
    print("Play one game move by move: chancespiel play python_pig pig_optimal 'hold(n=20)'")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `chancespiel` command."""
    parser = argparse.ArgumentParser(prog="chancespiel", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("games", help="list the games").set_defaults(func=cmd_games)
    sub.add_parser("agents", help="list the agents and parameters").set_defaults(func=cmd_agents)

    play = sub.add_parser("play", help="play one game between two agents")
    play.add_argument("game", help="game string, e.g. 'python_pig(dice=1)'")
    play.add_argument("agent0", help="spec of player 0, e.g. 'hold(n=25)'")
    play.add_argument("agent1", help="spec of player 1")
    play.add_argument("--seed", type=int, default=0, help="seed of the dice and the bots")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    play.set_defaults(func=cmd_play)

    analyse = sub.add_parser("analyse", help="search one position and show the agent's values")
    analyse.add_argument("game", help="game string")
    analyse.add_argument(
        "--history", default="", help="space-separated action ids from the start, chance included"
    )
    analyse.add_argument("--agent", default="star2(max_depth=3)", help="a searching agent spec")
    analyse.add_argument("--seed", type=int, default=0, help="seed of the agent")
    analyse.add_argument("--json", action="store_true", help="print one JSON object")
    analyse.set_defaults(func=cmd_analyse)

    running = argparse.ArgumentParser(add_help=False)
    running.add_argument(
        "--matches", type=_positive, required=True, help="matches (seat-swapped pairs of games)"
    )
    running.add_argument(
        "--seed", type=int, default=0, help="match i uses the dice and bot seeds of seed + i"
    )
    running.add_argument(
        "--workers", type=_positive, help="games at once (default: one per core / Ray CPU)"
    )
    running.add_argument("--backend", choices=BACKENDS, default="local", help="where games run")
    running.add_argument("--address", help="address of an existing Ray cluster (--backend ray)")
    running.add_argument(
        "--overrun-ms",
        type=float,
        default=DEFAULT_OVERRUN_MS,
        help="a move longer than the agent's time_ms plus this is counted as an overrun "
        f"(default {DEFAULT_OVERRUN_MS:g})",
    )
    running.add_argument(
        "--move-timeout-s",
        type=float,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help="a move longer than this is stopped and the game forfeited "
        f"(default {DEFAULT_MOVE_TIMEOUT_S:g}; 0: no limit)",
    )
    running.add_argument("--no-progress", action="store_true", help="no progress bar")

    match = sub.add_parser("match", parents=[running], help="N seat-swapped matches of A against B")
    match.add_argument("game", help="game string")
    match.add_argument("spec_a", help="agent A")
    match.add_argument("spec_b", help="agent B")
    match.add_argument(
        "--out", required=True, help="JSON Lines file of the games (appended; resumes)"
    )
    match.add_argument(
        "--sprt",
        metavar="ELO0,ELO1,ALPHA,BETA",
        help="stop when a pentanomial SPRT of H0: elo=ELO0 vs H1: elo=ELO1 decides",
    )
    match.set_defaults(func=cmd_match)

    tournament = sub.add_parser(
        "tournament", parents=[running], help="round robin: every pair of agents, Elo ratings"
    )
    tournament.add_argument("game", help="game string")
    tournament.add_argument("specs", nargs="+", help="agent specs (the first is the Elo anchor)")
    tournament.add_argument("--out", help="JSON Lines file of the games (appended; resumes)")
    tournament.set_defaults(func=cmd_tournament)

    report = sub.add_parser("report", help="summarize game record files")
    report.add_argument("files", nargs="+", help="JSON Lines files of games")
    report.add_argument("--json", action="store_true", help="print one JSON object")
    report.set_defaults(func=cmd_report)

    plot = sub.add_parser("plot", help="bar chart of pairwise score rates (PNG)")
    plot.add_argument("files", nargs="+", help="JSON Lines files of games")
    plot.add_argument("--out", required=True, help="PNG file to write")
    plot.add_argument("--title", default="", help="title of the figure")
    plot.set_defaults(func=cmd_plot)

    tune = sub.add_parser(
        "tune", parents=[running], help="elimination tournament over parameter values"
    )
    tune.add_argument("game", help="game string")
    tune.add_argument("agent", help="agent name, optionally with fixed parameters")
    tune.add_argument(
        "--param",
        action="append",
        required=True,
        metavar="NAME=V1,V2,...",
        help="values of one parameter (repeatable: every combination is a candidate)",
    )
    tune.add_argument("--out", help="JSON Lines file of the games (appended; resumes)")
    tune.set_defaults(func=cmd_tune)

    experiment = sub.add_parser("experiment", help="run an experiment")
    experiments = experiment.add_subparsers(dest="experiment", required=True)
    nodes = experiments.add_parser(
        "node-counts", help="nodes searched by expectimax, star1, star2 at fixed depths"
    )
    nodes.add_argument("--game", action="append", required=True, help="game string (repeatable)")
    nodes.add_argument("--depths", default="1,2,3", help="comma-separated depths")
    nodes.add_argument("--positions", type=int, default=100, help="random positions per game")
    nodes.add_argument("--seed", type=int, default=0, help="seed of the positions")
    nodes.add_argument("--out", help="also write the Markdown table to this file")
    nodes.set_defaults(func=cmd_node_counts)

    pig = experiments.add_parser(
        "pig-estimators", help="Table 1 of the MCMS paper: estimator MSE, variance, bias, regret"
    )
    pig.add_argument("--states", type=int, default=100, help="distinct states to sample")
    pig.add_argument("--runs", type=int, default=50, help="runs of each estimator per state")
    pig.add_argument("--time-ms", type=float, default=200.0, help="search time per estimate")
    pig.add_argument("--collect-games", type=int, default=2, help="games per ordered pair")
    pig.add_argument("--collect-time-ms", type=float, default=20.0, help="time per move there")
    pig.add_argument("--estimators", help="comma-separated subset, e.g. exp,star2ss")
    pig.add_argument(
        "--heuristic",
        default="default",
        help="Pig heuristic of every estimator (default, lead, zero)",
    )
    pig.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    pig.add_argument("--seed", type=int, default=0)
    pig.add_argument("--out", required=True, help="output directory")
    pig.add_argument(
        "--summarise-only",
        action="store_true",
        help="only rewrite table.md and table.csv from OUT/raw.csv (nothing is run)",
    )
    pig.set_defaults(func=cmd_pig_estimators)

    fig2 = experiments.add_parser(
        "figure2",
        parents=[running],
        help="Figure 2 of the MCMS paper: *-Minimax, MCMS and MCTS pairings in four games",
    )
    fig2.add_argument(
        "--games", help="comma-separated subset of pig,ewn,cant_stop,ra (default all)"
    )
    fig2.add_argument(
        "--pairings", help="comma-separated subset, e.g. Star2SS-Star2,Star1SS-MCTS (default all)"
    )
    fig2.add_argument("--time-ms", type=float, default=200.0, help="search time per move")
    fig2.add_argument(
        "--mcts",
        choices=("paper", "mcts", "dpw"),
        default="paper",
        help="MCTS variant of the MCTS pairings (paper: MCTS in Pig, EWN; DPW in Can't Stop, Ra)",
    )
    fig2.add_argument(
        "--heuristic",
        default="default",
        help="heuristic of every agent (default; zero; or a game's variant, see chancespiel games)",
    )
    fig2.add_argument(
        "--samples",
        action="append",
        metavar="GAME=W1,W2,W3",
        help="sample widths of expss, star1ss, star2ss in one game instead of the paper's, e.g. "
        "ewn=3,3,3 (repeatable; use another --out: a record file holds one setup)",
    )
    fig2.add_argument("--out", required=True, help="directory of the record files and the table")
    fig2.set_defaults(func=cmd_figure2)

    depth = experiments.add_parser(
        "search-depth",
        help="completed depth of the MCMS paper's *-Minimax players at a time budget",
    )
    depth.add_argument("--records", required=True, help="directory of figure2 record files")
    depth.add_argument("--games", help="comma-separated subset of pig,ewn,cant_stop,ra")
    depth.add_argument("--positions", type=int, default=30, help="positions per game")
    depth.add_argument("--time-ms", type=float, default=200.0, help="search time per position")
    depth.add_argument("--seed", type=int, default=0, help="seed of the positions and searches")
    depth.add_argument("--out", help="also write the Markdown table to this file")
    depth.set_defaults(func=cmd_search_depth)

    bab = experiments.add_parser(
        "bab-nodes", help="nodes of bounded alpha-beta against epsilon, vs alpha-beta and Star1"
    )
    bab.add_argument(
        "--game",
        action="append",
        help="tree family as a game string without seed (repeatable; default: P-games B=4 D=8 "
        "with sign and margin scoring, chance trees depth 6)",
    )
    bab.add_argument("--trees", type=int, default=40, help="trees per family (seeds 0..)")
    bab.add_argument("--epsilons", default="0,0.05,0.1,0.2,0.5", help="additive bounds")
    bab.add_argument("--gammas", default="0.1,0.5", help="multiplicative bounds ('' for none)")
    bab.add_argument("--out", default="docs/bab", help="directory for the table, CSV and plot")
    bab.set_defaults(func=cmd_bab_nodes)

    uct = experiments.add_parser(
        "uct-convergence",
        help="UCT vs MC vs alpha-beta on P-games; UCT convergence on implanted strategies",
    )
    uct.add_argument("--out", default="docs/uct", help="directory for tables, CSVs and plots")
    uct.add_argument("--studies", default="pgame,implanted", help="which studies to run")
    uct.add_argument("--pgame-trees", type=int, default=30, help="P-game trees per shape")
    uct.add_argument("--pgame-runs", type=int, default=2, help="UCT and MC runs per tree")
    uct.add_argument("--pgame-iterations", type=int, default=2**15, help="largest iteration count")
    uct.add_argument("--implanted-depth", type=int, default=14, help="tree depth (Figure 3)")
    uct.add_argument("--implanted-runs", type=int, default=12, help="trees (one run each)")
    uct.add_argument("--implanted-iterations", type=int, default=2**16, help="cap per run")
    uct.add_argument("--trap-depth", type=int, default=20, help="tree depth (Table 2)")
    uct.add_argument("--trap-runs", type=int, default=20, help="runs on the fixed tree")
    uct.add_argument("--trap-iterations", type=int, default=2**16, help="cap per run")
    uct.add_argument(
        "--uct-c", type=float, help="exploration constant on [-1, 1] returns (default 2 sqrt 2)"
    )
    uct.add_argument("--workers", type=int, default=2, help="processes")
    uct.set_defaults(func=cmd_uct_convergence)

    solve = sub.add_parser("solve", help="solve a game exactly")
    solve.add_argument("game", choices=["pig"], help="the game to solve")
    solve.add_argument("--dice", type=int, default=2, help="1 or 2 dice (default 2)")
    solve.add_argument("--winscore", type=int, default=100, help="goal (default 100)")
    solve.add_argument("--sides", type=int, default=6, help="faces per die (default 6)")
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.set_defaults(func=cmd_solve)

    demo = sub.add_parser("demo", help="a short match: optimal Pig vs hold at 20")
    demo.add_argument("--matches", type=int, default=200, help="seat-swapped pairs of games")
    demo.add_argument("--seed", type=int, default=1)
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `chancespiel` console script."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args.func(args)
        except UsageError as e:
            print(f"chancespiel: error: {e}", file=sys.stderr)
            return e.status
        except BrokenPipeError:  # output piped into `head` and the like: stop quietly
            # Point stdout at devnull so the interpreter's final flush cannot fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141  # 128 + SIGPIPE, as a shell reports it
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"chancespiel: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
