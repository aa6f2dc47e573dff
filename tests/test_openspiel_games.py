"""Our evaluations on pyspiel states, and OpenSpiel's own chance games searched with knowledge."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from chancespiel.agents import make_bot, search_state
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.games import has_heuristic, heuristic_for, listed_games, registry
from chancespiel.games.einstein_core import EinsteinCore
from chancespiel.games.openspiel_games import backgammon_heuristic
from chancespiel.games.pig_core import PigCore


@pytest.mark.parametrize(
    "short_name", sorted(s.short_name for s in listed_games() if has_heuristic(s.short_name))
)
def test_heuristics_take_pyspiel_states_and_give_the_cores_value(short_name):
    game = pyspiel.load_game(short_name)
    h = heuristic_for(game)
    fast = registry.evaluation_for(game)  # what agents call on cores
    for state in random_decision_positions(game, 8, seed=3):
        for player in (0, 1):
            assert h(state, player) == fast(state.core, player)
            assert h(state.core, player) == fast(state.core, player)


def test_cpp_einstein_states_read_into_our_core_agree_move_for_move():
    game = pyspiel.load_game("einstein_wurfelt_nicht")
    rng = random.Random(5)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            core = search_state(state)
            assert isinstance(core, EinsteinCore)
            assert core.current_player() == state.current_player()
            if state.is_chance_node():
                assert list(core.chance_outcomes()) == state.chance_outcomes()
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probs)[0]
            else:
                assert list(core.legal_actions()) == state.legal_actions()
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
        assert list(search_state(state).returns()) == state.returns()


def _score_against_random(game_string: str, matches: int, spec: str) -> float:
    game = pyspiel.load_game(game_string)
    score = 0.0
    for match in range(matches):
        for seat in (0, 1):
            bots = [make_bot("random", game, p, seed=match) for p in (0, 1)]
            bots[seat] = make_bot(spec, game, seat, seed=match)
            dice = np.random.RandomState(2 * match + seat)
            returns = evaluate_bots(game.new_initial_state(), bots, dice)
            score += 1.0 if returns[seat] > 0 else 0.5 if returns[seat] == 0 else 0.0
    return score / (2 * matches)


def test_greedy_beats_random_on_openspiels_einstein_as_on_ours():
    # Without a heuristic (all leaves 0) one-ply greedy won about 57% here.
    assert _score_against_random("einstein_wurfelt_nicht", 15, "greedy") >= 0.8


def test_greedy_beats_random_on_backgammon():
    assert _score_against_random("backgammon", 3, "greedy") >= 5 / 6


def test_backgammon_heuristic_is_antisymmetric_and_level_at_the_start():
    game = pyspiel.load_game("backgammon")
    start = game.new_initial_state()
    start.apply_action(start.chance_outcomes()[0][0])
    assert backgammon_heuristic(start, 0) == 0.0  # 167 pips each, no blots
    rng = random.Random(1)
    for state in random_decision_positions(game, 10, seed=2, max_moves=40):
        state = state.clone()
        for _ in range(rng.randint(0, 3)):
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_chance_node() or state.is_terminal():
                break
        value = backgammon_heuristic(state, 0)
        assert -1.0 < value < 1.0 or state.is_terminal()
        assert backgammon_heuristic(state, 1) == pytest.approx(-value)


def test_a_game_without_heuristic_is_reported_once_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr(registry, "_WARNED", set())
    game = pyspiel.load_game("tic_tac_toe")
    for _ in range(3):
        make_bot("star2(max_depth=1)", game, 0)
    err = capsys.readouterr().err
    assert err.count("no heuristic for tic_tac_toe") == 1
    make_bot("star2(max_depth=1,heuristic=zero)", game, 0)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("params", ["", "(horizon=20,winscore=30)", "(diceoutcomes=4,winscore=20)"])
def test_openspiels_pig_is_read_into_our_core_move_for_move(params):
    """OpenSpiel's two-player `pig` is python_pig(dice=1) with the same sides, goal and
    horizon: the core read from its state agrees with it at every step of random games."""
    game = pyspiel.load_game(f"pig{params}")
    for seed in range(40):
        rng, state = random.Random(seed), game.new_initial_state()
        while not state.is_terminal():
            core = search_state(state)
            assert isinstance(core, PigCore)
            assert core.current_player() == state.current_player()
            if state.is_chance_node():
                assert list(core.chance_outcomes()) == [tuple(o) for o in state.chance_outcomes()]
                action = rng.choice([a for a, _ in state.chance_outcomes()])
            else:
                assert list(core.legal_actions()) == state.legal_actions()
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
        assert list(search_state(state).returns()) == state.returns()
    assert not isinstance(
        search_state(pyspiel.load_game("pig(piglet=true)").new_initial_state()), PigCore
    )


def test_pig_policies_play_openspiels_pig_as_ours():
    """The same dice give the same games: hold and pig_optimal on OpenSpiel's pig play exactly
    as on python_pig(dice=1)."""
    from chancespiel.evaluation.play import play_match

    theirs, ours = pyspiel.load_game("pig"), pyspiel.load_game("python_pig(dice=1)")
    for seed in range(6):
        on_theirs = play_match(theirs, "pig_optimal", "hold(n=20)", seed)
        on_ours = play_match(ours, "pig_optimal", "hold(n=20)", seed)
        assert [g.history for g in on_theirs] == [g.history for g in on_ours]
        assert [g.returns for g in on_theirs] == [g.returns for g in on_ours]
    with pytest.raises(ValueError, match="2 players, no piglet"):
        make_bot("hold", pyspiel.load_game("pig(piglet=true)"), 0)


def test_games_all_lists_every_game_the_agents_can_play(capsys):
    from chancespiel.evaluation import cli

    assert cli.main(["games", "--all"]) == 0
    listed = {line.split(":")[0].split()[0] for line in capsys.readouterr().out.splitlines()[1:]}
    assert {"pig", "backgammon", "einstein_wurfelt_nicht", "python_pig", "chess"} <= listed
    assert not listed & {"kuhn_poker", "goofspiel", "leduc_poker", "catch"}
