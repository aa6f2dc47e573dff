"""Agent registry, spec parsing, the protocol adapter and the first bots."""

from __future__ import annotations

import re

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from chancespiel.agents import AGENTS, PyspielAdapter, make_bot, parse_spec, search_state
from chancespiel.agents.pig_policies import HoldBot
from chancespiel.games.pig_core import ROLL, STOP
from chancespiel.games.registry import register_heuristic


def test_parse_spec_types():
    name, params = parse_spec("star2(samples=15,time_ms=200.5,flag=true,kind=abc)")
    assert name == "star2"
    assert params == {"samples": 15, "time_ms": 200.5, "flag": True, "kind": "abc"}
    assert parse_spec(" random ") == ("random", {})


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty"),
        ("hold(n=3", "malformed"),
        ("nosuch", "unknown agent 'nosuch'"),
        ("hold(m=3)", "unknown parameter"),
        ("hold(n=1.5)", "must be of type int"),
        ("hold(n=0)", r"n must be in \[1, "),
        ("random(seed=abc)", "seed must be of type int"),
        ("hold(n=none)", "cannot be none"),
    ],
)
def test_bad_specs_raise_clear_errors(spec, message):
    game = pyspiel.load_game("python_pig")
    with pytest.raises(ValueError, match=message):
        make_bot(spec, game, 0)


def test_game_specific_agents_refuse_other_games():
    for name in ("hold", "pig_optimal"):
        with pytest.raises(ValueError, match="plays only python_pig, pig"):
            make_bot(name, pyspiel.load_game("python_cant_stop"), 0)
        with pytest.raises(ValueError, match="2 players, no piglet"):
            make_bot(name, pyspiel.load_game("pig(piglet=true)"), 0)


def test_bad_player_raises():
    with pytest.raises(ValueError, match="player"):
        make_bot("random", pyspiel.load_game("python_pig"), 2)


def test_every_agent_has_seed_and_help():
    for info in AGENTS.values():
        assert "seed" in info.params and info.help
        assert all(p.help for p in info.params.values())


def test_search_state_uses_core_or_adapter():
    ours = pyspiel.load_game("python_pig").new_initial_state()
    copy = search_state(ours)
    copy.apply(ROLL)
    assert ours.current_player() == 0, "the search copy must be independent"
    # a foreign game without a reader into one of our cores (OpenSpiel's pig with the
    # piglet rule) is searched through the adapter
    theirs = pyspiel.load_game("pig(piglet=true)").new_initial_state()
    adapted = search_state(theirs)
    assert isinstance(adapted, PyspielAdapter)
    adapted.apply(ROLL)
    assert adapted.current_player() == pyspiel.PlayerId.CHANCE
    assert theirs.current_player() == 0
    assert [a for a, _ in adapted.chance_outcomes()] == [0, 1]  # piglet: pig out or not
    assert adapted.clone().chance_outcomes() == adapted.chance_outcomes()


def test_random_bot_is_reproducible_and_plays_openspiel_games():
    game = pyspiel.load_game("backgammon")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    picks = {make_bot("random(seed=4)", game, state.current_player()).step(state) for _ in range(3)}
    assert len(picks) == 1 and picks <= set(state.legal_actions())


def test_hold_bot_decisions():
    game = pyspiel.load_game("python_pig(winscore=50)")
    bot = make_bot("hold(n=20)", game, 0)
    assert isinstance(bot, HoldBot)
    state = game.new_initial_state()
    core = state.core
    core.turn_total = 19
    assert bot.step(state) == ROLL
    core.turn_total = 20
    assert bot.step(state) == STOP
    core.turn_total, core.scores = 8, (42, 0)
    assert bot.step(state) == STOP  # stopping wins
    with pytest.raises(ValueError, match="turn"):
        make_bot("hold", game, 1).step(state)


def test_pig_optimal_reads_the_solver():
    game = pyspiel.load_game("python_pig(dice=1)")
    bot = make_bot("pig_optimal", game, 0)
    state = game.new_initial_state()
    state.core.scores = (41, 49)
    for k, expected in ((21, ROLL), (22, STOP), (26, STOP), (27, ROLL)):
        state.core.turn_total = k
        assert bot.step(state) == expected


def test_bots_work_in_openspiel_evaluate_bots():
    game = pyspiel.load_game("python_pig(winscore=30)")
    bots = [make_bot("pig_optimal", game, 0), make_bot("random(seed=1)", game, 1)]
    rng = np.random.RandomState(3)
    results = [evaluate_bots(game.new_initial_state(), bots, rng) for _ in range(40)]
    wins = sum(r[0] > 0 for r in results)
    assert wins >= 30  # optimal play against random rolls/stops


SEARCHERS = [
    "expectimax(max_depth=2)",
    "star2(max_depth=2)",
    "star1ss(max_depth=2,samples=3)",
    "bab(max_depth=2)",
    "mcts(max_simulations=200,rollout_depth=0)",
    "dpw(max_simulations=200,rollout_depth=0)",
    "mc(max_simulations=200,rollout_depth=0)",
]


def with_heuristic(spec: str, name: str) -> str:
    return f"{spec[:-1]},heuristic={name})" if spec.endswith(")") else f"{spec}(heuristic={name})"


@pytest.mark.parametrize("spec", SEARCHERS)
def test_the_heuristic_parameter_reaches_the_search(spec):
    # Early in Pig no game ends within two plies, so with heuristic=zero every value the search
    # can return is exactly 0; with the game's heuristic (and its plain variant) it is not.
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    state.apply_action(ROLL)
    state.apply_action(max(state.legal_actions()))  # the highest roll: a turn total to keep
    assert state.current_player() == 0
    values = {}
    for name in ("default", "zero", "lead"):
        result = make_bot(with_heuristic(spec, name), game, 0, seed=1).analyse(state)
        values[name] = result.lower if spec.startswith("bab") else result.value
    assert values["zero"] == 0.0
    assert values["default"] != 0.0 and values["lead"] != 0.0
    assert values["default"] != values["lead"]


def test_unknown_heuristics_are_refused_with_the_known_names():
    game = pyspiel.load_game("python_pig")
    for spec in [*SEARCHERS, "greedy"]:
        with pytest.raises(ValueError, match="no heuristic 'nosuch' for python_pig; known: "
                                             "default, zero, learned, lead"):  # fmt: skip
            make_bot(with_heuristic(spec, "nosuch"), game, 0)
    with pytest.raises(ValueError, match=r"known: default, zero, learned, progress$"):
        make_bot("star2(heuristic=lead)", pyspiel.load_game("python_cant_stop"), 0)
    with pytest.raises(ValueError, match="reserved"):
        register_heuristic("python_pig", lambda state, player: 0.0, name="zero")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: make_bot("hold", "python_pgi", 0), "does not load: Unknown game 'python_pgi'"),
        (lambda: make_bot("hold", None, 0), "game must be a pyspiel.Game or a game string"),
        (lambda: make_bot(None, "python_pig", 0), "spec must be an agent spec string"),
        (lambda: make_bot("hold", "python_pig", "0"), "player must be an integer"),
        (lambda: make_bot("hold", "python_pig", 0, seed="x"), "seed must be an integer >= 0"),
        (lambda: make_bot("hold", "python_pig", 0, seed=-3), "seed must be an integer >= 0"),
    ],
)
def test_misuse_of_make_bot_is_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


@pytest.mark.parametrize(
    "spec, made_for, given",
    [
        ("pig_optimal", "python_pig(winscore=50)", "python_pig"),
        ("pig_optimal", "python_pig", "python_pig(dice=1)"),
        ("star2(max_depth=2)", "python_pig", "python_ra"),
        ("openspiel_mcts(max_simulations=10)", "python_pig", "python_ra"),
    ],
)
def test_a_bot_refuses_a_state_of_another_game_or_variant(spec, made_for, given):
    """A Pig policy solved for one goal would play another Pig's states silently wrong."""
    bot = make_bot(spec, made_for, 0)
    with pytest.raises(ValueError, match="was made for"):
        bot.step(pyspiel.load_game(given).new_initial_state())
    same = make_bot(spec, made_for, 0)
    assert same.step(pyspiel.load_game(made_for).new_initial_state()) in (ROLL, STOP)
