"""Games are checked where they enter (chancespiel.games.contract), and every search ends.

A game that breaks its contract (tests/faulty_games.py: chance probabilities that do not sum to
1, NaN returns, returns outside its utilities, no end, ...) is named in one line by `match`
(which records nothing for it), `analyse` and every search; a plugin's heuristic or move
ordering is checked the same way. Searches end on trees smaller than their budgets and read
the clock while sampling, and every numeric parameter has an upper bound.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time

import pyspiel
import pytest
from faulty_games import FAULTS, MOVES, NAME

from chancespiel.agents import AGENTS, make_bot, search_state
from chancespiel.agents.mcts import mcts_search
from chancespiel.evaluation import cli
from chancespiel.evaluation.cli.common import apply_history
from chancespiel.evaluation.match import read_records
from chancespiel.evaluation.play import play_game
from chancespiel.evaluation.usage import Bounded, BoundedList
from chancespiel.games.contract import GameContractError
from chancespiel.games.core import MAX_INT_PARAM
from chancespiel.games.registry import _SPECS, GameSpec, register_game, register_heuristic

# Faults a search meets from the position after AT moves (a decision of player 1, one
# choice and its coin before the end).
AT = 2 * (MOVES - 1)
HISTORY = " ".join(["0"] * AT)
SEARCHES = (
    "expectimax(max_depth=3)",
    "star1(max_depth=3)",
    "star2(max_depth=3)",
    "star2ss(max_depth=3,samples=4)",
    "bab(max_depth=3)",
    "mcts(max_simulations=300)",
    "dpw(max_simulations=300)",
    "mc(max_simulations=100)",
)


def _game(fault: str, at: int = AT) -> pyspiel.Game:
    return pyspiel.load_game(f"{NAME}(fault={fault},at={at})")


def _errors(text: str) -> list[str]:
    assert "Traceback" not in text, text
    return [line for line in text.splitlines() if line.startswith("chancespiel: error")]


# Match -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("agent", ["random", "expectimax(max_depth=2)"])
def test_a_faulty_game_stops_the_match_in_one_line_and_nothing_is_written(
    fault, agent, tmp_path, capsys
):
    """Whether the referee of the match or a search meets the fault first, the run stops with
    the game's error, and neither a forfeit nor a broken record is written."""
    out = tmp_path / "m.jsonl"
    code = cli.main([
        "match", f"{NAME}(fault={fault},at=4)", agent, "random", "--matches", "2",
        "--workers", "1", "--no-progress", "--out", str(out), "--overrun-ms", "1000",
    ])  # fmt: skip
    errors = _errors(capsys.readouterr().err)
    assert code == 1
    assert len(errors) == 1 and "breaks its contract" in errors[0] and NAME in errors[0]
    assert not out.exists() or read_records(out) == []


def test_play_names_the_fault_in_one_line(capsys):
    code = cli.main(["play", f"{NAME}(fault=nan_returns,at=4)", "random", "random", "--quiet"])
    errors = _errors(capsys.readouterr().err)
    assert code == 2 and len(errors) == 1 and "returns [nan, nan]" in errors[0]


def test_the_referee_checks_every_move_of_a_game_not_only_its_end():
    """The fault is named where it happens, with the history that reproduces it."""
    game = _game("half", at=4)
    bots = [make_bot("random", game, p, 1) for p in (0, 1)]
    with pytest.raises(GameContractError, match=r"sum to 0.5, not 1 after history \[\d \d \d \d"):
        play_game(game, bots, 0, catch_errors=True)


def test_the_random_positions_of_an_experiment_are_played_by_the_contract(tmp_path, capsys):
    """An experiment's positions come from random games: an endless chain of chance nodes
    is named there too, where the loop over chance nodes would never end."""
    out = tmp_path / "counts.md"
    code = cli.main(["experiment", "node-counts", "--game", f"{NAME}(fault=endless_chance,at=1)",
                     "--depths", "1", "--positions", "5", "--out", str(out)])  # fmt: skip
    errors = _errors(capsys.readouterr().err)
    assert code == 2 and len(errors) == 1 and "chance moves" in errors[0]
    assert not out.exists()


def test_unusable_declarations_are_refused_where_the_game_is_loaded(tmp_path, capsys):
    game = f"{NAME}(bad_info=true)"
    for command in (
        ["analyse", game, "--agent", "expectimax(max_depth=1)"],
        ["match", game, "random", "random", "--matches", "1", "--out", str(tmp_path / "m")],
    ):
        assert cli.main(command) == 2
        errors = _errors(capsys.readouterr().err)
        assert len(errors) == 1 and "utilities [nan, 1.0] are not a finite interval" in errors[0]
    assert not (tmp_path / "m").exists()


# Analyse and the searches ----------------------------------------------------------------


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("agent", ["expectimax(max_depth=3)", "mcts(max_simulations=300)"])
def test_analyse_names_the_fault_in_one_line_and_prints_no_json(fault, agent, capsys):
    code = cli.main(["analyse", f"{NAME}(fault={fault},at={AT})", "--history", HISTORY,
                     "--agent", agent, "--json"])  # fmt: skip
    captured = capsys.readouterr()
    errors = _errors(captured.err)
    assert code == 2 and captured.out == ""
    assert len(errors) == 1 and "breaks its contract" in errors[0], errors


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("agent", SEARCHES)
def test_every_search_meets_the_fault(fault, agent):
    game = _game(fault)
    try:
        state = apply_history(game, HISTORY)
    except GameContractError:
        pytest.fail("the history itself is correct")
    bot = make_bot(agent, game, 1, seed=3)  # (bad_player and no_actions fault the root)
    with pytest.raises(GameContractError, match=f"game {NAME}.* breaks its contract: "):
        bot.analyse(state)


@pytest.mark.parametrize("fault", sorted(set(FAULTS) - {"bad_player", "no_actions"}))
@pytest.mark.parametrize(
    "agent", ["openspiel_mcts(max_simulations=200)", "openspiel_mcts_cpp(max_simulations=200)"]
)
def test_openspiels_own_bots_search_a_plugins_game_through_its_contract(fault, agent):
    """OpenSpiel's bots search pyspiel states, not our protocol: a plugin's game reaches them
    checked, so that its fault is named, not charged to the bot as a forfeit (faults of the
    root itself are the referee's to find, before any bot moves)."""
    game = _game(fault)
    state = apply_history(game, HISTORY)
    with pytest.raises(GameContractError, match=f"game {NAME}.* breaks its contract: "):
        make_bot(agent, game, state.current_player(), seed=3).step(state)


@pytest.fixture
def plugin_hooks():
    """Registers faulty hooks of a plugin (restored after the test)."""
    saved = dict(_SPECS)
    yield
    _SPECS.clear()
    _SPECS.update(saved)


def _nan_heuristic(state, player):
    return math.nan


def _too_big(state, player):
    return 2.0


@pytest.mark.parametrize("hook", [_nan_heuristic, _too_big])
@pytest.mark.parametrize("game_string", [f"{NAME}(fault=none)", "python_pig(winscore=20)"])
def test_a_plugins_heuristic_is_checked_on_its_game_and_on_ours(plugin_hooks, hook, game_string):
    """On a plugin's game or one of ours, a heuristic outside the utilities (NaN included:
    every comparison of a search would be false) is named instead of searched with."""
    game = pyspiel.load_game(game_string)
    register_heuristic(game.get_type().short_name, hook, name="faulty")
    specs = (
        "expectimax(max_depth=2,heuristic=faulty)",
        "mcts(max_simulations=50,heuristic=faulty,rollout_depth=0)",
        "bab(max_depth=2,heuristic=faulty)",
    )
    for spec in specs:
        bot = make_bot(spec, game, 0, seed=1)
        with pytest.raises(GameContractError, match=rf"heuristic {hook.__name__} of \S+ returned"):
            bot.analyse(game.new_initial_state())


def test_a_plugins_move_ordering_is_checked(plugin_hooks):
    game = _game("none")
    register_game(GameSpec(NAME, ordering=lambda state, actions: []))
    with pytest.raises(GameContractError, match=r"move ordering \S+ of \S+ turned"):
        make_bot("star2(max_depth=2)", game, 0, seed=1).analyse(game.new_initial_state())


def test_analyse_json_is_strict_json(capsys, monkeypatch):
    """No NaN or Infinity in what `analyse --json` prints: a value that is not finite is one
    line on stderr, not a token that JSON readers refuse."""
    assert cli.main(["analyse", "python_pig(winscore=20)", "--agent", "star2(max_depth=2)",
                     "--json"]) == 0  # fmt: skip
    json.loads(capsys.readouterr().out, parse_constant=pytest.fail)
    from chancespiel.agents.star_minimax import StarMinimaxBot

    analyse = StarMinimaxBot.analyse

    def infinite(self, state):
        result = analyse(self, state)
        result.value = -math.inf
        return result

    monkeypatch.setattr(StarMinimaxBot, "analyse", infinite)
    code = cli.main(["analyse", "python_pig(winscore=20)", "--agent", "star2(max_depth=2)",
                     "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and len(_errors(captured.err)) == 1


# Every search ends --------------------------------------------------------------------------

TINY = "python_chance_tree(seed=1,depth=1,branching=2,outcomes=2)"
SMALL = "python_chance_tree(seed=3,depth=3,branching=3,outcomes=3)"


@pytest.mark.parametrize("game_string", [TINY, SMALL])
@pytest.mark.parametrize("budget", [{"max_nodes": 10**7}, {"time_ms": 600_000.0}])
@pytest.mark.parametrize("widening", [{}, {"pw_c": 2.0}], ids=["mcts", "dpw"])
def test_mcts_ends_on_a_tree_smaller_than_its_budget(game_string, budget, widening):
    game = pyspiel.load_game(game_string)
    start = time.perf_counter()
    result = mcts_search(search_state(game.new_initial_state()), game, seed=1, **budget,
                         **widening)  # fmt: skip
    assert time.perf_counter() - start < 30
    assert result.nodes < 1000 and result.simulations < 10_000


def test_analyse_with_a_node_budget_on_a_tiny_tree_returns(capsys):
    for agent in ("mcts(max_nodes=1000)", "dpw(max_nodes=1000)"):
        assert cli.main(["analyse", TINY, "--agent", agent, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["action"] == 0


@pytest.mark.parametrize(
    "agent", ["star2ss(samples=1000000,time_ms=100,clock=cpu)",
              "expss(samples=10000000,time_ms=100,clock=cpu)",
              "star1ss(samples=10000000,time_ms=100,clock=cpu,max_depth=5)"],
)  # fmt: skip
def test_sampling_reads_the_clock(agent):
    """A chance node of ten million draws ends within a few times the limit, not after them
    all (the clock is read every few thousand draws)."""
    game = pyspiel.load_game("python_pig")
    bot = make_bot(agent, game, 0, seed=1)
    start = time.thread_time()
    result = bot.analyse(game.new_initial_state())
    assert time.thread_time() - start < 0.5
    assert not result.completed or result.depth >= 1


# Bounds ---------------------------------------------------------------------------------------


def _numeric(info_params):
    return [(name, p) for name, p in info_params.items() if p.numeric]


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_numeric_agent_parameter_has_bounds_that_are_enforced(name):
    info = AGENTS[name]
    for key, param in _numeric(info.params):
        if not info.factory.__module__.startswith("chancespiel."):
            continue  # a plugin's (tests') agent
        assert param.high is not None, f"{name}.{key} has no upper bound"
        kind = param.type or type(param.default)
        above = param.high + 1 if kind is int else param.high * 2 + 1
        text = str(int(above)) if kind is int else repr(float(above))
        bound = re.escape(f"parameter {key} must be {param.range_text()}")
        if kind is int and above > MAX_INT_PARAM:  # what the spec's parser itself refuses
            bound = re.escape(f"parameter '{key}' = {text} is outside OpenSpiel's integers")
        with pytest.raises(ValueError, match=bound) as e:
            make_bot(f"{name}({key}={text})", pyspiel.load_game("python_pig"), 0)
        assert "\n" not in str(e.value)
        # and a lower one, shown with the upper (`chancespiel agents NAME`) and enforced alike
        assert param.low is not None, f"{name}.{key} has no lower bound"
        below = param.low if param.open_low else param.low - 1
        text = str(int(below)) if kind is int else repr(float(below))
        with pytest.raises(ValueError, match=re.escape(f"must be {param.range_text()}, got")):
            make_bot(f"{name}({key}={text})", pyspiel.load_game("python_pig"), 0)


def test_the_bounds_are_listed(capsys):
    assert cli.main(["agents"]) == 0
    listing = capsys.readouterr().out
    assert "time_ms=None  time budget per move in ms" in listing
    for info in AGENTS.values():
        for key, param in _numeric(info.params):
            if param.high is not None:
                assert f"{key}={param.default!r}" in listing and param.range_text() in listing


def test_a_huge_integer_in_a_spec_is_one_line(capfd):
    """OpenSpiel's parser holds 32-bit integers; a larger one is named before it is asked
    (its own error names nothing and prints a second line)."""
    code = cli.main(["analyse", "python_pig", "--agent", "mcts(max_simulations=99999999999)"])
    err = capfd.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "max_simulations" in err and "outside OpenSpiel's integers" in err


def test_every_numeric_game_parameter_has_a_listed_bound_that_is_enforced(capsys):
    from chancespiel.evaluation.usage import UsageError, load_game
    from chancespiel.games import listed_games

    assert cli.main(["games"]) == 0
    listing = capsys.readouterr().out
    for short_name in (spec.short_name for spec in listed_games()):
        game = pyspiel.load_game(short_name)
        for key, default in game.get_parameters().items():
            if isinstance(default, bool) or not isinstance(default, (int, float)):
                continue
            high = game.bounds[key][1]
            assert f"{key}={default} [" in listing
            above = high + 1 if isinstance(default, int) else high + 0.5
            with pytest.raises(UsageError, match=f"{key}") as e:
                load_game(f"{short_name}({key}={above})")
            assert "\n" not in str(e.value)


def _actions(parser: argparse.ArgumentParser):
    """(command, action) for every option and argument of `parser` and its subcommands."""
    for action in parser._actions:
        yield parser.prog, action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def _every_command_parser():
    """The parser built for each command and each study (the parser is complete only for the
    command it is built for)."""
    from chancespiel.evaluation.cli.commands import COMMANDS
    from chancespiel.studies import STUDIES

    for name in COMMANDS:
        if name != "experiment":
            yield cli.build_parser([name])
    for study in STUDIES:
        yield cli.build_parser(["experiment", study])


def test_every_numeric_option_of_every_command_has_a_bound_shown_in_its_help():
    numbers = re.compile(r"[-+0-9.,\s]+")
    checked = 0
    seen = set()
    for command, action in (
        found for parser in _every_command_parser() for found in _actions(parser)
    ):
        if (command, action.dest) in seen:
            continue
        seen.add((command, action.dest))
        default = action.default
        numeric = action.type in (int, float) or (
            isinstance(default, (int, float)) and not isinstance(default, bool)
        )
        listed = isinstance(default, str) and default.strip() and numbers.fullmatch(default)
        if isinstance(action.type, (Bounded, BoundedList)):
            checked += 1
            bounded = getattr(action.type, "bounded", action.type)
            assert bounded.high < math.inf
            help_text = cli.build_parser()._get_formatter()._get_help_string(action) or ""
            # the formatter of the command's own parser shows the range
            assert bounded.range_text() in help_text, (command, action.dest)
        else:
            assert not numeric and not listed, f"{command} {action.dest}: no bound"
    assert checked > 40


def test_an_option_above_its_bound_is_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["experiment", "node-counts", "--game", "python_pig", "--depths", "1000"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "--depths: each item must be at most 12, got 1000" in err
