"""python_pig: OpenSpiel conformance, equality with the C++ `pig`, rules, bad input."""

from __future__ import annotations

import math
import pickle
import random

import numpy as np
import pyspiel
import pytest
from golden import PLAYTHROUGHS, replay

import chancespiel.games  # noqa: F401
from chancespiel.games import heuristic_for
from chancespiel.games.pig_core import ROLL, STOP, PigCore
from chancespiel.games.pig_solver import solve_pig
from chancespiel.games.registry import evaluation_for

CHANCE = pyspiel.PlayerId.CHANCE


@pytest.mark.parametrize(
    "game_string",
    [
        "python_pig(dice=1)",
        "python_pig(dice=2,winscore=20,diceoutcomes=3)",
        "python_pig(dice=1,winscore=10,horizon=15)",
    ],
)
def test_random_sim_with_serialization(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ["python_pig.txt", "python_pig_dice1.txt"])
def test_golden_playthrough(name):
    original, replayed = replay(PLAYTHROUGHS / name)
    assert original == replayed


def _lockstep(ours: pyspiel.State, theirs: pyspiel.State, rng: random.Random) -> int:
    """Plays one random game on both states, asserting equality at every step."""
    steps = 0
    while True:
        assert ours.current_player() == theirs.current_player()
        assert ours.is_terminal() == theirs.is_terminal()
        assert str(ours) == str(theirs)
        assert ours.returns() == theirs.returns()
        if ours.is_terminal():
            return steps
        if ours.is_chance_node():
            assert ours.chance_outcomes() == theirs.chance_outcomes()
            actions = [a for a, _ in ours.chance_outcomes()]
        else:
            assert ours.legal_actions() == theirs.legal_actions()
            actions = ours.legal_actions()
            player = ours.current_player()
            for a in actions:
                assert ours.action_to_string(player, a) == theirs.action_to_string(player, a)
            # The first 3 * (winscore + 1) entries are the C++ tensor.
            ours_tensor = ours.observation_tensor(player)
            theirs_tensor = theirs.observation_tensor(player)
            assert ours_tensor[: len(theirs_tensor)] == theirs_tensor
        action = rng.choice(actions)
        if ours.is_chance_node():
            player = CHANCE
            assert ours.action_to_string(player, action) == theirs.action_to_string(player, action)
        ours.apply_action(action)
        theirs.apply_action(action)
        steps += 1


@pytest.mark.parametrize(
    "params",
    [
        "winscore=100",
        "winscore=30,diceoutcomes=4",
        "winscore=20,horizon=25",  # some games end at the horizon, sometimes at a chance node
        "winscore=7,diceoutcomes=2",
    ],
)
def test_one_die_equals_openspiel_pig_move_for_move(params):
    ours_game = pyspiel.load_game(f"python_pig(dice=1,{params})")
    theirs_game = pyspiel.load_game(f"pig({params})")
    assert ours_game.max_game_length() == theirs_game.max_game_length()
    assert ours_game.max_chance_outcomes() == theirs_game.max_chance_outcomes()
    assert ours_game.num_distinct_actions() == theirs_game.num_distinct_actions()
    rng = random.Random(params)
    draws = 0
    for _ in range(60):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        _lockstep(ours, theirs, rng)
        draws += ours.returns() == [0.0, 0.0]
    if "horizon" in params:
        assert draws > 0, "the horizon case must actually be exercised"


def _play(core: PigCore, actions: list[int]) -> PigCore:
    for a in actions:
        core.apply(a)
    return core


def _outcome(game: pyspiel.Game, text: str) -> int:
    state = game.new_initial_state()
    state.apply_action(ROLL)
    for outcome, _ in state.chance_outcomes():
        if state.action_to_string(CHANCE, outcome) == text:
            return outcome
    raise AssertionError(text)


def test_two_dice_chance_table():
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    state.apply_action(ROLL)
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(21))
    assert math.isclose(sum(p for _, p in outcomes), 1.0)
    names = [state.action_to_string(CHANCE, a) for a, _ in outcomes]
    assert names[:3] == ["Roll 1+1", "Roll 1+2", "Roll 1+3"] and names[-1] == "Roll 6+6"
    probs = dict(zip(names, (p for _, p in outcomes), strict=True))
    assert probs["Roll 3+3"] == pytest.approx(1 / 36)
    assert probs["Roll 2+5"] == pytest.approx(2 / 36)
    assert game.max_chance_outcomes() == 21


def test_two_dice_rules():
    game = pyspiel.load_game("python_pig")
    double_one, one_four, two_five = (
        _outcome(game, t) for t in ("Roll 1+1", "Roll 1+4", "Roll 2+5")
    )
    core = game.new_initial_state().core
    _play(core, [ROLL, two_five, ROLL, two_five, STOP])  # player 0 banks 14
    assert core.scores == (14, 0) and core.turn_player == 1
    _play(core, [ROLL, two_five, ROLL, one_four])  # a single 1: player 1 loses the turn total
    assert core.scores == (14, 0) and core.turn_total == 0 and core.turn_player == 0
    _play(core, [ROLL, two_five, ROLL, double_one])  # double 1s: player 0's 14 are gone too
    assert core.scores == (0, 0) and core.turn_total == 0 and core.turn_player == 1


def test_only_stop_once_it_wins_and_stop_wins():
    game = pyspiel.load_game("python_pig(winscore=10)")
    six_six = _outcome(game, "Roll 6+6")
    state = game.new_initial_state()
    for a in (ROLL, six_six):
        state.apply_action(a)
    assert state.legal_actions() == [STOP]
    state.apply_action(STOP)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_illegal_actions_raise_and_change_nothing():
    game = pyspiel.load_game("python_pig(winscore=10)")
    state = game.new_initial_state()
    for bad in (2, 99):
        with pytest.raises(ValueError, match="illegal"):
            state.apply_action(bad)
    with pytest.raises(pyspiel.SpielError):  # pyspiel itself rejects kInvalidAction
        state.apply_action(-1)
    assert state.history() == [] and str(state) == str(game.new_initial_state())
    state.apply_action(ROLL)
    before = str(state)
    with pytest.raises(ValueError, match="illegal chance outcome"):
        state.apply_action(21)
    assert str(state) == before and state.history() == [ROLL]
    state.apply_action(_outcome(game, "Roll 6+6"))
    with pytest.raises(ValueError, match="illegal"):
        state.apply_action(ROLL)  # 12 >= 10: only stop is legal
    state.apply_action(STOP)
    with pytest.raises(ValueError, match="terminal"):
        state.apply_action(STOP)


@pytest.mark.parametrize(
    "game_string, message",
    [
        ("python_pig(dice=3)", "dice must be in \\[1, 2\\]"),
        ("python_pig(winscore=0)", r"winscore must be in \[1, 1000\]"),
        ("python_pig(horizon=0)", r"horizon must be in \[1, 100000\]"),
        ("python_pig(diceoutcomes=1)", r"diceoutcomes must be in \[2, 20\]"),
        ("python_pig(winscore=1.5)", "parameter winscore"),
        ("python_pig(players=3)", "players"),
        ("python_pig(dice=2", "bracket"),
    ],
)
def test_bad_parameters_raise(game_string, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game(game_string)


def test_core_clone_is_independent_and_pickles():
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    _play(core, [ROLL, _outcome(game, "Roll 3+4")])
    copy = core.clone()
    copy.apply(ROLL)
    assert core.current_player() == 0 and copy.current_player() == CHANCE
    restored = pickle.loads(pickle.dumps(core))
    assert str(restored) == str(core) and restored.rules.params() == core.rules.params()


def test_observation_identifies_turn_player():
    game = pyspiel.load_game("python_pig(winscore=20)")
    state = game.new_initial_state()
    state.apply_action(STOP)  # player 0 passes with nothing: only the turn changes
    a = np.array(game.new_initial_state().observation_tensor(0))
    b = np.array(state.observation_tensor(0))
    assert a.shape == b.shape == (3 * 21 + 2,)
    assert not np.array_equal(a, b)
    assert "Current player: 1" in state.observation_string(0)


def test_heuristic_bounds_terminal_values_and_meaning():
    """h is in [-1, 1], exact at the end, and agrees in sign with the exact solution."""
    game = pyspiel.load_game("python_pig(winscore=30)")
    h = heuristic_for(game)
    solution = solve_pig(dice=2, winscore=30)
    rng = random.Random(5)
    agree = total = 0
    for _ in range(200):
        core = game.new_initial_state().core
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                outcomes = core.chance_outcomes()
                core.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            for player in (0, 1):
                value = h(core, player)
                assert -1.0 < value < 1.0
                assert value == pytest.approx(-h(core, 1 - player))
            exact = 2 * solution.state_win_probability(core, 0) - 1
            if abs(exact) > 0.2:  # clear positions: the heuristic should see who leads
                total += 1
                agree += (h(core, 0) > 0) == (exact > 0)
            core.apply(rng.choice(core.legal_actions()))
        assert h(core, 0) == core.returns()[0] and h(core, 1) == core.returns()[1]
    assert total > 500
    assert agree / total > 0.9


@pytest.mark.parametrize("name, low, high", [("default", 60, 100), ("lead", 400, 600)])
def test_heuristic_error_against_the_exact_solution(name, low, high):
    """Each Pig heuristic's squared error over two-dice states, on the paper's scale."""
    game = pyspiel.load_game("python_pig")
    h = evaluation_for(game, name)
    solution = solve_pig(dice=2, winscore=100)
    core = game.new_initial_state().core
    errors = []
    for mine in range(0, 100, 3):
        for theirs in range(0, 100, 3):
            for turn_total in range(0, 100 - mine, 3):
                core.scores, core.turn_total = (mine, theirs), turn_total
                exact = 2 * solution.win_probability(mine, theirs, turn_total) - 1
                errors.append((100 * (h(core, 0) - exact)) ** 2)
    assert low < np.mean(errors) < high


def test_openspiel_pig_heuristic_equals_ours_move_for_move():
    ours_game = pyspiel.load_game("python_pig(dice=1,winscore=50)")
    theirs_game = pyspiel.load_game("pig(winscore=50)")
    ours_h, theirs_h = heuristic_for(ours_game), heuristic_for(theirs_game)
    rng = random.Random(8)
    checked = 0
    for _ in range(30):
        ours, theirs = ours_game.new_initial_state(), theirs_game.new_initial_state()
        while True:
            for player in (0, 1):
                assert theirs_h(theirs, player) == pytest.approx(ours_h(ours.core, player))
            checked += 1
            if ours.is_terminal():
                break
            if ours.is_chance_node():
                action = rng.choice([a for a, _ in ours.chance_outcomes()])
            else:
                action = rng.choice(ours.legal_actions())
            ours.apply_action(action)
            theirs.apply_action(action)
    assert checked > 300
