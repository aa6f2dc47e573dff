"""CLI commands about single games and positions: games, agents, play, analyse, solve, demo."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pyspiel

from chancespiel.agents import AGENTS, make_bot, parse_spec
from chancespiel.agents.bot import NotSearchingError, PolicyBot
from chancespiel.agents.human import HUMAN, InputEndedError
from chancespiel.agents.registry import bound_text, resolve_spec
from chancespiel.agents.result import SearchResult
from chancespiel.agents.search_common import search_problems
from chancespiel.agents.star_trace import (
    DEFAULT_CHILDREN,
    DEFAULT_LEVELS,
    MAX_CHILDREN,
    MAX_LEVELS,
    SearchTrace,
)
from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.cli.common import apply_history
from chancespiel.evaluation.match import DEFAULT_MOVE_TIMEOUT_S
from chancespiel.evaluation.parallel import play_game_watched
from chancespiel.evaluation.play import play_game, play_match, score_of
from chancespiel.evaluation.run_options import MOVE_TIMEOUT_S
from chancespiel.evaluation.stats import wilson_interval
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    checked_specs,
    load_game,
    matches_arg,
    new_output,
    seed_arg,
)
from chancespiel.games import has_heuristic, listed_games
from chancespiel.games.contract import Referee
from chancespiel.games.core import CHANCE
from chancespiel.games.pig_core import PIG_BOUNDS
from chancespiel.games.registry import (
    heuristic_names,
    heuristic_variants,
    is_declared,
    move_note,
    plugin_games,
    plugin_module,
    spiel_errors_quiet,
)
from chancespiel.plugins import error_line

if TYPE_CHECKING:
    from chancespiel.evaluation.browser_play import Table
    from chancespiel.evaluation.search_page import TreeLimits


def searchable_games() -> list[pyspiel.GameType]:
    """Every registered game our search agents can play: sequential, two players (a game
    whose player count is a parameter counts if 2 is allowed), zero-sum, perfect
    information, with or without chance."""
    found = []
    for game_type in pyspiel.registered_games():
        if (
            game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
            and game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
            and game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
            and game_type.min_num_players <= 2 <= game_type.max_num_players
        ):
            found.append(game_type)
    return sorted(found, key=lambda t: t.short_name)


def _chance_word(game_type: pyspiel.GameType) -> str:
    return {
        pyspiel.GameType.ChanceMode.DETERMINISTIC: "none",
        pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC: "explicit chance nodes",
        pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC: "sampled (no chance_outcomes)",
    }[game_type.chance_mode]


def _heuristics(name: str) -> list[str]:
    """The heuristic= names a game accepts (those of factories, `learned`, where they fit its
    default parameters); the default marked where none is registered."""
    names = ["default", "zero", *heuristic_variants(name)]
    if is_declared(name):  # factories make heuristics from what a game declares
        try:
            with spiel_errors_quiet():
                names = heuristic_names(pyspiel.load_game(name))
        except Exception:  # a game that needs parameters: the names every game has
            pass
    if not has_heuristic(name):
        names[0] += " (none registered: 0)"
    return names


def cmd_games(args: argparse.Namespace) -> None:
    """Lists chancespiel's games and the plugins' (with their modules) and their parameters
    (--all: every registered game the search agents can play, ours, the plugins' and
    OpenSpiel's, with the heuristics each accepts)."""
    entries = [s for s in listed_games() if plugin_module(s) is None] + plugin_games()
    if args.all:
        print("games the search agents can play (2 players, sequential, zero-sum, perfect "
              "information); heuristic= names each one accepts:")  # fmt: skip
        origins = {spec.short_name: plugin_module(spec) for spec in entries}
        for game_type in searchable_games():
            name = game_type.short_name
            origin = origins.get(name, False)
            ours = "" if origin is False else f" [plugin: {origin}]" if origin else " [chancespiel]"
            heuristics = ", ".join(_heuristics(name))
            print(f"  {name}{ours}: chance {_chance_word(game_type)}; {heuristics}")
        return
    for entry in entries:
        origin = plugin_module(entry)
        try:
            with spiel_errors_quiet():
                game = pyspiel.load_game(entry.short_name)
        except Exception as e:  # a plugin's game may not load with its defaults
            print(f"{entry.short_name}  [plugin: {origin}]")
            print(f"    does not load with its default parameters: {error_line(e)}")
            continue
        bounds = getattr(game, "bounds", {})
        shown = ", ".join(
            f"{k}={v}"
            + (f" [{bound_text(bounds[k][0])}..{bound_text(bounds[k][1])}]" if k in bounds else "")
            for k, v in sorted(game.get_parameters().items())
        )
        status = f"plugin: {origin}" if origin else entry.status
        print(f"{entry.short_name}  [{status}]")
        print(f"    {entry.description or game.get_type().long_name}")
        print(f"    parameters (range): {shown or 'none'}")
        print(f"    chance: {entry.chance or _chance_word(game.get_type())}")
        print(f"    heuristics (agents' heuristic=): {', '.join(_heuristics(entry.short_name))}")


def cmd_agents(args: argparse.Namespace) -> None:
    """Lists the agents (or the one named) with their parameters: default, description, range."""
    if args.agent is None:
        shown = sorted(AGENTS.values(), key=lambda i: i.name)
    else:
        try:  # a spec names its agent too
            shown = [resolve_spec(parse_spec(args.agent)[0])[0]]
        except ValueError as e:
            raise UsageError(str(e)) from None
    for info in shown:
        print(f"{info.name}: {info.help}")
        for name, param in info.params.items():
            bound = f" ({param.range_text()})" if param.range_text() else ""
            print(f"    {name}={param.default!r}  {param.help}{bound}")


def cmd_play(args: argparse.Namespace) -> None:
    """Plays one game between two agents, printing it as it goes; with --browser, the human
    seats play on a page (evaluation.browser_play)."""
    game = load_game(args.game)
    checked_specs(game, [args.agent0, args.agent1])
    names = [args.agent0, args.agent1]
    # A person may think as long as they like, and their end of input is no forfeit; with
    # agents only, a move past the limit (or a bot's error) forfeits the game, as in `match`.
    person = any(parse_spec(spec)[0] == HUMAN for spec in names)
    limit = None if person or args.move_timeout_s == 0 else args.move_timeout_s
    if args.browser and not person:
        raise UsageError("--browser is for a person: make one of the agents human")
    if args.open and not args.browser:
        raise UsageError("--open opens the page of --browser: give --browser too")
    bots = [make_bot(spec, game, player, args.seed) for player, spec in enumerate(names)]
    if args.browser:
        from chancespiel.evaluation.browser_play import BrowserSeat, Server, Table

        table = Table(f"{game}: player 0 {names[0]} against player 1 {names[1]}", names)
        for player, spec in enumerate(names):
            if parse_spec(spec)[0] == HUMAN:
                bots[player] = BrowserSeat(player, table)
        server = Server(table)
        try:
            server.start()
        except OSError as e:
            raise UsageError(f"cannot serve the page: {e}", status=1) from None
        try:
            print(f"play in your browser: {server.url}", flush=True)
            if args.open:
                import webbrowser

                webbrowser.open(server.url)
            _play_and_print(args, game, bots, names, person, None, table)
        finally:
            server.stop()
        return
    _play_and_print(args, game, bots, names, person, limit, None)


def _play_and_print(
    args: argparse.Namespace,
    game: pyspiel.Game,
    bots: list[pyspiel.Bot],
    names: list[str],
    person: bool,
    limit: float | None,
    table: Table | None,
) -> None:
    """Plays the game of `play` and prints it (and, with a `table`, shows it on its page);
    `person`: a seat is human (its errors are not forfeits), `limit`: an agent's move limit."""

    def show(state: pyspiel.State, player: int, action: int) -> None:
        if args.quiet:
            return
        text = state.action_to_string(player, action)
        note = move_note(state, player, action)
        text += f" ({note})" if note else ""
        if player == CHANCE:
            print(f"  chance: {text}")
            return
        if table is not None or parse_spec(names[player])[0] != HUMAN:  # (the menu shows it)
            print(str(state).rstrip())
        forced = " (forced: the only legal move)" if len(state.legal_actions()) == 1 else ""
        print(f"  player {player} ({names[player]}): {text}{forced}")

    def observe(state: pyspiel.State, player: int, action: int) -> None:
        show(state, player, action)
        if table is not None:
            table.show(state, player, action)

    try:
        if limit is None:
            record = play_game(game, bots, args.seed, observe, catch_errors=not person)
        else:  # in a process apart, so that even a move in native code can be stopped
            record = play_game_watched(game, bots, args.seed, show, limit)
    except InputEndedError as e:
        raise UsageError(f"{e}: the game is abandoned", status=1) from None
    final = game.new_initial_state()
    for action in record.history:
        final.apply_action(action)
    print(str(final).rstrip())
    if record.failure is not None:
        failed = record.failure.player
        print(
            f"player {failed} ({names[failed]}) forfeits: "
            f"{record.failure.kind}: {record.failure.message}"
        )
    print(f"returns: {record.returns}  ({record.moves} decision moves)")
    winners = [player for player, value in enumerate(record.returns) if value > 0]
    ending = f"winner: player {winners[0]} ({names[winners[0]]})" if winners else "draw"
    print(ending)
    if table is not None:
        sys.stdout.flush()  # the result in the terminal before the page's last wait
        forfeit = f"player {failed} forfeits; " if record.failure is not None else ""
        table.finish(final, f"{forfeit}{ending}; returns {record.returns}")


def cmd_analyse(args: argparse.Namespace) -> None:
    """Searches one position with one agent and prints what it found."""
    game = load_game(args.game)
    if problems := search_problems(game):  # before the history: its first node may be chance
        raise UsageError(
            f"{args.game}: {'; '.join(problems)}: analyse searches sequential two-player "
            "zero-sum games of perfect information"
        )
    state = apply_history(game, args.history)
    player = Referee(game, state).player()  # (a foreign game's search is checked throughout)
    if player < 0:
        kind = "terminal" if state.is_terminal() else "a chance node"
        raise UsageError(f"the position after the history is {kind}, not a decision")
    checked_specs(game, [args.agent])
    drawn = _tree_page_options(args)  # (the page and its limits, checked before searching)
    bot = make_bot(args.agent, game, player, args.seed)
    searchers = "analyse needs a search agent, e.g. star2, mcts, bab or greedy"
    if not isinstance(bot, PolicyBot):
        raise UsageError(f"agent {args.agent!r} has no search to show: {searchers}")
    trace = None
    try:
        if drawn is not None:
            result, trace = _drawable_search(bot, state, args.agent, drawn[1])
        else:
            result = bot.analyse(state)
    except NotSearchingError as e:
        raise UsageError(f"agent {args.agent!r} has no search to show ({e}): {searchers}") from None
    report = {
        "game": str(game),
        "history": list(state.history()),  # as ids, however they were given
        "player": player,
        "agent": args.agent,
        "action_string": state.action_to_string(player, result.action),
        **result.report(),
    }
    if drawn is not None:
        from chancespiel.evaluation.search_page import search_page
        from chancespiel.evaluation.usage import write_text

        html, limits = drawn
        write_text(html, search_page(game, state, args.agent, result, limits, trace))
        print(f"wrote {html}", file=sys.stderr)  # stdout stays the analysis (--json)
    if args.json:
        try:
            print(json.dumps(report, allow_nan=False))  # strict JSON: no NaN or Infinity
        except ValueError:
            raise UsageError(
                f"{args.agent} found no finite value here (value {result.value}): there is "
                "nothing to print as JSON"
            ) from None
        return
    print(str(state).rstrip())
    print(
        f"{args.agent} for player {player}: {report['action_string']} ({result.action}), "
        f"value {result.value:+.4f}, depth {result.depth}, {result.nodes} nodes, "
        f"{result.time_s:.3f} s"
    )
    for it in result.iterations:
        print(
            f"  depth {it.depth}{' sampled' if it.sampled else ''}: "
            f"{state.action_to_string(player, it.action)} ({it.action}), "
            f"value {it.value:+.4f}, {it.nodes} nodes"
        )
    bounds = report.get("action_bounds")  # interval searches (bab)
    if bounds is not None:
        print(f"  interval [{report['lower']:+.4f}, {report['upper']:+.4f}]; children's intervals:")
        for action, (low, up) in sorted(bounds.items(), key=lambda kv: -kv[1][0]):
            name = state.action_to_string(player, int(action))
            print(f"  {name:>24s} ({action}): [{low:+.4f}, {up:+.4f}]")
        return
    kinds = report.get("action_value_kinds", {})  # exact values or bounds (*-Minimax)
    marks = {"exact": "  ", "upper": "<=", "lower": ">="}  # an upper bound: value <= shown
    for action, value in sorted(result.action_values.items(), key=lambda kv: -kv[1]):
        mark = marks[kinds.get(str(action), "exact")]
        print(f"  {state.action_to_string(player, action):>24s} ({action}): {mark}{value:+.4f}")


def _tree_page_options(args: argparse.Namespace) -> tuple[Path, TreeLimits] | None:
    """The page `analyse --html` writes (checked: a new .html file) and its tree's limits."""
    given = {"--tree-levels": args.tree_levels, "--tree-children": args.tree_children}
    if args.html is None:
        named = [option for option, value in given.items() if value is not None]
        if named:
            raise UsageError(f"{named[0]} limits the tree of --html: give --html FILE too")
        return None
    html = new_output(args.html, "analyse", ".html", "--html")  # a page is a result: kept
    if html.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"--html must name an .html file, got {args.html!r}")
    from chancespiel.evaluation.search_page import TreeLimits

    limits = TreeLimits(
        DEFAULT_LEVELS if args.tree_levels is None else args.tree_levels,
        DEFAULT_CHILDREN if args.tree_children is None else args.tree_children,
    )
    return html, limits


def _drawable_search(
    bot: PolicyBot, state: pyspiel.State, agent: str, limits: TreeLimits
) -> tuple[SearchResult, SearchTrace | None]:
    """The bot's search of `state` with what its page draws: the trace of a *-Minimax
    search, or the tree MCTS keeps (then None)."""
    from chancespiel.agents.mcts import MCTSBot
    from chancespiel.agents.protocol import search_state
    from chancespiel.agents.star_minimax import StarMinimaxBot
    from chancespiel.agents.star_trace import UntraceableError, traced_search

    if isinstance(bot, MCTSBot):
        return bot.analyse(state), None
    if isinstance(bot, StarMinimaxBot):
        trace = SearchTrace(limits.levels, limits.children)
        try:
            return traced_search(bot, search_state(state), trace), trace
        except UntraceableError as e:
            raise UsageError(f"--html cannot draw the search of {agent}: {e}") from None
    raise UsageError(
        f"--html draws the searches of expectimax, star1, star2 (and their sampled forms) and "
        f"of mcts and dpw, not {agent}'s"
    )


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


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds this module's commands to the `chancespiel` parser."""
    games = add_parser(sub, "games")
    games.add_argument(
        "--all",
        action="store_true",
        help="every registered game the search agents can play, OpenSpiel's included",
    )
    games.set_defaults(func=cmd_games)
    agents = add_parser(sub, "agents")
    agents.add_argument("agent", nargs="?", help="show only this agent (a name or a spec)")
    agents.set_defaults(func=cmd_agents)

    play = add_parser(sub, "play")
    play.add_argument("game", help="game string, e.g. 'python_pig(dice=1)'")
    play.add_argument("agent0", help="spec of player 0, e.g. 'hold(n=25)'")
    play.add_argument("agent1", help="spec of player 1")
    play.add_argument("--seed", type=seed_arg, default=0, help="seed of the dice and the bots")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    play.add_argument(
        "--move-timeout-s",
        type=MOVE_TIMEOUT_S,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help="an agent's move longer than this is stopped and the game forfeited, even inside "
        "native code (0: no limit; with a human seat there is none)",
    )
    play.add_argument(
        "--browser",
        action="store_true",
        help="the human seat plays on a page served on 127.0.0.1 (its address is printed): "
        "click a legal move",
    )
    play.add_argument(
        "--open", action="store_true", help="with --browser, open the page in a web browser"
    )
    play.set_defaults(func=cmd_play)

    analyse = add_parser(sub, "analyse")
    analyse.add_argument("game", help="game string")
    analyse.add_argument(
        "--history",
        default="",
        help="the moves from the start, chance included: action ids or moves as the game "
        "prints them (roll, 'Roll 3+4' or 'Roll 4+3'), separated by spaces ('Roll 1-4-5-6 use "
        "5 and 11': a word that is no move is read with those after it) or by semicolons",
    )
    analyse.add_argument("--agent", default="star2(max_depth=3)", help="a searching agent spec")
    analyse.add_argument("--seed", type=seed_arg, default=0, help="seed of the agent")
    analyse.add_argument("--json", action="store_true", help="print one JSON object")
    analyse.add_argument(
        "--html",
        metavar="FILE",
        help="also write the search as a page: its tree, collapsible (star and mcts agents)",
    )
    analyse.add_argument(
        "--tree-levels",
        type=Bounded(int, 1, MAX_LEVELS),
        help=f"levels of the tree the page draws below the root (default {DEFAULT_LEVELS})",
    )
    analyse.add_argument(
        "--tree-children",
        type=Bounded(int, 1, MAX_CHILDREN),
        help="children drawn at each node, those that took the most nodes or visits "
        f"(default {DEFAULT_CHILDREN})",
    )
    analyse.set_defaults(func=cmd_analyse)

    solve = add_parser(sub, "solve")
    solve.add_argument("game", choices=["pig"], help="the game to solve")
    solve.add_argument("--dice", type=Bounded(int, *PIG_BOUNDS["dice"]), default=2, help="dice")
    solve.add_argument(
        "--winscore", type=Bounded(int, *PIG_BOUNDS["winscore"]), default=100, help="goal"
    )
    solve.add_argument(
        "--sides", type=Bounded(int, *PIG_BOUNDS["diceoutcomes"]), default=6, help="faces per die"
    )
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.set_defaults(func=cmd_solve)

    demo = add_parser(sub, "demo")
    demo.add_argument(
        "--matches", type=matches_arg, default=200, help="seat-swapped pairs of games"
    )
    demo.add_argument("--seed", type=seed_arg, default=1, help="seed of the first match")
    demo.set_defaults(func=cmd_demo)
