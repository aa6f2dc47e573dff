"""Agent registry, spec parsing, the protocol adapter and the first bots."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from chancespiel.agents import AGENTS, PyspielAdapter, make_bot, parse_spec, search_state
from chancespiel.agents.pig_policies import HoldBot
from chancespiel.games.pig import ROLL, STOP


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
        ("hold(n=0)", "n must be >= 1"),
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
        with pytest.raises(ValueError, match="plays only python_pig"):
            make_bot(name, pyspiel.load_game("pig"), 0)


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
    theirs = pyspiel.load_game("pig").new_initial_state()
    adapted = search_state(theirs)
    assert isinstance(adapted, PyspielAdapter)
    adapted.apply(ROLL)
    assert adapted.current_player() == pyspiel.PlayerId.CHANCE
    assert theirs.current_player() == 0
    assert [a for a, _ in adapted.chance_outcomes()] == list(range(6))
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
