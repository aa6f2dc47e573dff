"""python_einstein_wurfelt_nicht: OpenSpiel's unit-test positions, a differential test against
the C++ game, OpenSpiel's conformance checks, the golden playthrough and the heuristic."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pyspiel
import pytest
from golden import PLAYTHROUGHS, replay

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.games.einstein import EinsteinGame
from chancespiel.games.einstein_core import (
    CHANCE,
    TERMINAL,
    EinsteinCore,
    EinsteinRules,
    einstein_heuristic,
)
from chancespiel.games.registry import evaluation_for

NAME = "python_einstein_wurfelt_nicht"
RULES = EinsteinRules()


def _sample(outcomes, rng: random.Random) -> int:
    """A chance outcome drawn by its probability."""
    r = rng.random()
    for action, prob in outcomes:
        r -= prob
        if r < 0:
            return action
    return outcomes[-1][0]


def _random_core(rng: random.Random, rules: EinsteinRules = RULES) -> EinsteinCore:
    """A random game played to the end on the core, for property checks."""
    core = rules.initial_core()
    while not core.is_terminal():
        if core.current_player() == CHANCE:
            core.apply(_sample(core.chance_outcomes(), rng))
        else:
            core.apply(rng.choice(core.legal_actions()))
    return core


def _visited(games: int, seed: int, rules: EinsteinRules = RULES) -> list[EinsteinCore]:
    """Every state of `games` random games, in order."""
    rng = random.Random(seed)
    states = []
    for _ in range(games):
        core = rules.initial_core()
        states.append(core.clone())
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                core.apply(_sample(core.chance_outcomes(), rng))
            else:
                core.apply(rng.choice(core.legal_actions()))
            states.append(core.clone())
    return states


# --- game facts ------------------------------------------------------------------------------


def test_game_facts_match_cpp():
    ours = pyspiel.load_game(NAME)
    cpp = pyspiel.load_game("einstein_wurfelt_nicht")
    for method in (
        "num_distinct_actions",
        "max_chance_outcomes",
        "max_game_length",
        "num_players",
        "min_utility",
        "max_utility",
        "utility_sum",
    ):
        assert getattr(ours, method)() == getattr(cpp, method)(), method
    assert ours.num_distinct_actions() == 300
    assert ours.max_chance_outcomes() == 720
    assert ours.max_game_length() == 112
    assert ours.observation_tensor_size() == 300 + 6 + 2


def test_free_setup_facts():
    game = pyspiel.load_game(f"{NAME}(setup=free)")
    assert game.num_distinct_actions() == 306
    assert game.max_chance_outcomes() == 6
    assert game.max_game_length() == 124


def test_unknown_or_bad_parameter_raises():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):  # pyspiel checks first
        pyspiel.load_game(f"{NAME}(seed=3)")
    with pytest.raises(ValueError, match="unknown parameter"):
        EinsteinGame({"seed": 3})
    with pytest.raises(ValueError, match="setup"):
        pyspiel.load_game(f"{NAME}(setup=chosen)")


# --- setup and turn order --------------------------------------------------------------------


def test_setup_permutations_and_first_mover():
    state = pyspiel.load_game(NAME).new_initial_state()
    assert state.current_player() == CHANCE
    assert len(state.chance_outcomes()) == 720
    state.apply_action(0)
    assert state.core.board_string() == (
        "|b1||b2||b3||__||__|\n"
        "|b4||b5||__||__||__|\n"
        "|b6||__||__||__||__|\n"
        "|__||__||__||__||__|\n"
        "|__||__||__||__||__|\n"
    )
    assert len(state.chance_outcomes()) == 720
    state.apply_action(0)
    assert state.core.board_string().endswith(
        "|b6||__||__||__||w1|\n|__||__||__||w2||w3|\n|__||__||w4||w5||w6|\n"
    )
    assert state.chance_outcomes() == [(x, 1 / 6) for x in range(6)]
    state.apply_action(1)
    assert state.current_player() == 1  # White moves first
    assert str(state).endswith("White to move, die 2\n")


def test_setup_matches_cpp_playthrough():
    # docs/games/einstein.md: Black 120 gives b2 b1 b3 / b4 b5 / b6; White 638: w6 w2 w4 w3 w1 w5.
    core = RULES.initial_core()
    core.apply(120)
    core.apply(638)
    assert core.board_string() == (
        "|b2||b1||b3||__||__|\n"
        "|b4||b5||__||__||__|\n"
        "|b6||__||__||__||w6|\n"
        "|__||__||__||w2||w4|\n"
        "|__||__||w3||w1||w5|\n"
    )


def test_players_alternate_between_rolls():
    rng = random.Random(5)
    for _ in range(50):
        core = RULES.initial_core()
        core.apply(rng.randrange(720))
        core.apply(rng.randrange(720))
        expected = 1
        while not core.is_terminal():
            core.apply(rng.randrange(6))
            assert core.current_player() == expected
            core.apply(rng.choice(core.legal_actions()))
            expected = 1 - expected


# --- OpenSpiel's unit-test positions (docs/games/einstein.md) -------------------------------

_BLACK = {5: (1, 3), 6: (2, 0), 3: (3, 4)}
_BOARD = (
    "|__||w2||__||__||__|\n"
    "|__||__||__||b5||__|\n"
    "|b6||__||__||__||__|\n"
    "|__||w3||__||__||b3|\n"
    "|__||__||__||__||__|\n"
)


def test_black_corner_win():
    core = RULES.position(_BLACK, {2: (0, 1), 3: (3, 1)}, to_move=0, die=2)
    assert core.board_string() == _BOARD
    assert core.current_player() == 0 and not core.is_terminal()
    assert core.legal_actions() == (230,)
    assert core.action_to_string(0, 230) == "B3-down"
    core.apply(230)
    assert core.board_string().endswith("|__||w3||__||__||__|\n|__||__||__||__||b3|\n")
    assert core.is_terminal() and core.current_player() == TERMINAL
    assert core.returns() == (1.0, -1.0)


def test_white_corner_win():
    core = RULES.position(_BLACK, {2: (0, 1), 3: (3, 1)}, to_move=1, die=2)
    assert core.board_string() == _BOARD
    assert core.legal_actions() == (22,)
    assert core.action_to_string(1, 22) == "W2-left"
    core.apply(22)
    assert core.board_string().startswith("|w2||__||__||__||__|\n")
    assert core.is_terminal()
    assert core.returns() == (-1.0, 1.0)


def test_capture_all_win():
    core = RULES.position(_BLACK, {3: (3, 1)}, to_move=0, die=6)
    legal = core.legal_actions()
    assert len(legal) == 3 and legal[0] == 121
    assert core.action_to_string(0, 121) == "B6-diag*"
    core.apply(121)
    assert core.board_string() == (
        "|__||__||__||__||__|\n"
        "|__||__||__||b5||__|\n"
        "|__||__||__||__||__|\n"
        "|__||b6||__||__||b3|\n"
        "|__||__||__||__||__|\n"
    )
    assert core.is_terminal()
    assert core.returns() == (1.0, -1.0)


def test_missing_cube_offers_both_neighbours():
    # Publisher's example: holding {1, 4, 6} and rolling 3, cube 1 or cube 4 may move.
    core = RULES.position({1: (0, 0), 4: (1, 1), 6: (2, 2)}, {1: (4, 4)}, to_move=0, die=3)
    movers = {core.action_to_string(0, a)[:2] for a in core.legal_actions()}
    assert movers == {"B1", "B4"}
    # Only higher cubes remain: the nearest must move.
    core = RULES.position({4: (1, 1), 6: (2, 2)}, {1: (4, 4)}, to_move=0, die=1)
    assert {core.action_to_string(0, a)[:2] for a in core.legal_actions()} == {"B4"}


def test_own_cube_can_be_captured():
    core = RULES.position({1: (0, 0), 2: (0, 1)}, {1: (4, 4)}, to_move=0, die=1)
    right = core.legal_actions()[2]  # diag, down, right
    assert core.action_to_string(0, right) == "B1-right*"
    core.apply(right)
    assert core.masks == (0b1, 0b1)  # Black's cube 2 is gone
    assert not core.is_terminal()


def test_mobility_table():
    # docs/games/einstein.md, mobility: cubes {1, 4, 6} move on 3, 4 and 2 faces.
    mask = 0b101001
    assert [RULES.mobility[mask][v] for v in (1, 4, 6)] == [3, 4, 2]
    assert all(RULES.mobility[63][v] == 1 for v in range(1, 7))


# --- differential test against the C++ game --------------------------------------------------


def test_matches_cpp_game_on_random_games():
    ours_game = pyspiel.load_game(NAME)
    cpp_game = pyspiel.load_game("einstein_wurfelt_nicht")
    observer = ours_game.make_py_observer()
    rng = random.Random(2024)
    moves = 0
    for game_index in range(1000):
        ours = ours_game.new_initial_state()
        cpp = cpp_game.new_initial_state()
        check_tensors = game_index < 100  # building tensors is slow; a tenth of games suffices
        while True:
            player = cpp.current_player()
            assert ours.current_player() == player
            assert ours.is_terminal() == cpp.is_terminal()
            assert ours.returns() == cpp.returns()
            assert ours.core.board_string() == str(cpp)
            if check_tensors:
                observer.set_from(ours, 0)
                assert np.array_equal(observer.dict["cubes"].ravel(), cpp.observation_tensor(0))
            if cpp.is_terminal():
                break
            if player == CHANCE:
                outcomes = cpp.chance_outcomes()
                assert ours.chance_outcomes() == outcomes
                action = _sample(outcomes, rng)
            else:
                legal = cpp.legal_actions()
                assert ours.legal_actions() == legal
                assert [ours.action_to_string(player, a) for a in legal] == [
                    cpp.action_to_string(player, a) for a in legal
                ]
                action = rng.choice(legal)
                moves += 1
            assert ours.action_to_string(player, action) == cpp.action_to_string(player, action)
            ours.apply_action(action)
            cpp.apply_action(action)
        assert ours.history() == cpp.history()
        assert ours.returns() in ([1.0, -1.0], [-1.0, 1.0])
    assert moves > 10_000  # the games were real games


# --- OpenSpiel conformance, golden playthrough, observations -----------------------------------


def test_random_sim_with_serialization_free_setup():
    pyspiel.random_sim_test(
        pyspiel.load_game(f"{NAME}(setup=free)"), num_sims=20, serialize=True, verbose=False
    )


@pytest.mark.parametrize("name", [f"{NAME}.txt", f"{NAME}_free.txt"])
def test_golden_playthrough(name):
    recorded, replayed = replay(PLAYTHROUGHS / name)
    assert replayed == recorded


def test_observation_string_and_tensor_identify_the_state():
    game = pyspiel.load_game(NAME)
    observer = game.make_py_observer()
    by_string: dict[str, tuple] = {}
    by_tensor: dict[bytes, tuple] = {}
    state = game.new_initial_state()
    for core in _visited(100, seed=11):
        state.core = core
        full = core.__getstate__()  # every slot
        assert by_string.setdefault(observer.string_from(state, 0), full) == full
        observer.set_from(state, 1)
        assert by_tensor.setdefault(observer.tensor.tobytes(), full) == full
    assert len(by_string) > 3000


def test_observation_shows_die_and_mover():
    before = RULES.position(_BLACK, {2: (0, 1), 3: (3, 1)}, to_move=1)
    assert str(before).endswith("Chance: roll for White\n")
    texts = set()
    for face in range(6):
        child = before.clone()
        child.apply(face)
        texts.add(str(child))
        assert str(child).endswith(f"White to move, die {face + 1}\n")
    assert len(texts) == 6
    black = RULES.position(_BLACK, {2: (0, 1), 3: (3, 1)}, to_move=0, die=2)
    assert str(black).endswith("Black to move, die 2\n")


# --- adapter behaviour -----------------------------------------------------------------------


def test_illegal_action_raises_and_leaves_state_unchanged():
    state = pyspiel.load_game(NAME).new_initial_state()
    with pytest.raises(ValueError):
        state.apply_action(720)
    state.apply_action(5)
    state.apply_action(7)
    state.apply_action(3)
    before = (str(state), state.history(), state.core.__getstate__())
    with pytest.raises(ValueError, match="illegal"):
        state.apply_action(0)  # a legal id shape, but not a move of White's cube 4
    with pytest.raises(ValueError):
        state.chance_outcomes()
    assert (str(state), state.history(), state.core.__getstate__()) == before


def test_clone_deepcopy_pickle():
    core = _visited(1, seed=3)[10]
    twin = core.clone()
    assert twin.__getstate__() == core.__getstate__()
    twin.apply(twin.legal_actions()[0] if twin.current_player() >= 0 else 0)
    assert twin.__getstate__() != core.__getstate__()  # the copy is independent
    assert copy.deepcopy(core).__getstate__() == core.__getstate__()
    assert copy.deepcopy(RULES) is RULES
    restored = pickle.loads(pickle.dumps(core))
    assert str(restored) == str(core)
    assert restored.rules.params() == RULES.params()


def test_a_core_never_writes_a_board_another_core_holds():
    """A core copies its board before its first write and writes in place after that (a
    random game copies once), but never into a board that a clone of it, or the core it was
    cloned from, still holds: every clone taken along a game, and the game itself, stay as
    they were while the others play on."""
    rng = random.Random(5)
    for _ in range(30):
        core = RULES.initial_core()
        held: list[tuple[EinsteinCore, str]] = []
        while not core.is_terminal():
            if rng.random() < 0.3:
                twin = core.clone()
                held.append((twin, str(twin)))
            if core.current_player() == CHANCE:
                core.apply(_sample(core.chance_outcomes(), rng))
            else:
                core.apply(rng.choice(core.legal_actions()))
        final = str(core)
        for twin, text in held:
            assert str(twin) == text
        for twin, _ in held:  # each plays one step on: the others and the game unchanged
            if not twin.is_terminal():
                if twin.current_player() == CHANCE:
                    twin.apply(twin.chance_outcomes()[0][0])
                else:
                    twin.apply(twin.legal_actions()[-1])
        assert str(core) == final
        others = [(twin, str(twin)) for twin, _ in held]
        for twin, _ in held[::2]:
            if not twin.is_terminal() and twin.current_player() >= 0:
                twin.apply(twin.legal_actions()[0])
        for twin, text in others[1::2]:
            assert str(twin) == text


def test_free_setup_places_cubes_in_order():
    game = pyspiel.load_game(f"{NAME}(setup=free)")
    state = game.new_initial_state()
    assert state.current_player() == 0
    assert state.legal_actions() == list(range(300, 306))
    assert state.action_to_string(0, 305) == "place B1 (2,0)"
    for slot in (5, 4, 3, 2, 1, 0):  # cubes 1..6 onto the slots in reverse
        state.apply_action(300 + slot)
    assert state.current_player() == 1
    assert state.core.board_string().startswith("|b6||b5||b4||__||__|\n|b3||b2||__||__||__|\n|b1|")
    for slot in range(6):
        assert state.legal_actions() == list(range(300 + slot, 306))
        state.apply_action(300 + slot)
    assert state.core.board_string().endswith("|__||__||w4||w5||w6|\n")
    assert state.current_player() == CHANCE
    state.apply_action(0)
    assert state.current_player() == 1  # White still moves first
    core = _random_core(random.Random(1), EinsteinRules("free"))
    assert core.returns() in ((1.0, -1.0), (-1.0, 1.0))


# --- heuristic -------------------------------------------------------------------------------


def test_heuristic_bounds_and_terminals():
    assert evaluation_for(pyspiel.load_game(NAME)) is einstein_heuristic  # agents: no wrapper
    for core in _visited(100, seed=7):
        for player in (0, 1):
            value = einstein_heuristic(core, player)
            assert -1.0 <= value <= 1.0
            if core.is_terminal():
                assert value == core.returns()[player]
            if core.stage < 2:
                assert value == 0.0
        if core.stage == 2:
            assert einstein_heuristic(core, 0) == pytest.approx(-einstein_heuristic(core, 1))


def _greedy_action(core: EinsteinCore) -> int:
    """The move whose resulting state (a chance node, or the end) the heuristic likes best."""
    player = core.current_player()
    best_action, best_value = -1, -2.0
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        value = einstein_heuristic(child, player)
        if value > best_value:
            best_action, best_value = action, value
    return best_action


def test_heuristic_predicts_self_play_results():
    # At chance nodes of greedy self-play, h of the next mover against the mover's result.
    rng = random.Random(5)
    values, results = [], []
    for _ in range(300):
        core = RULES.initial_core()
        seen = []
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                if core.stage == 2:
                    mover = core.next_mover()
                    seen.append((einstein_heuristic(core, mover), mover))
                core.apply(_sample(core.chance_outcomes(), rng))
            else:
                core.apply(_greedy_action(core))
        values += [value for value, _ in seen]
        results += [core.returns()[mover] for _, mover in seen]
    values, results = np.array(values), np.array(results)
    assert np.corrcoef(values, results)[0, 1] > 0.15
    # Calibrated, not just ordered: about +0.4 measured where h is in [0.2, 0.6).
    assert 0.2 < results[(values >= 0.2) & (values < 0.6)].mean() < 0.6
    assert -0.6 < results[(values <= -0.2) & (values > -0.6)].mean() < -0.2


def test_greedy_heuristic_beats_random():
    rng = random.Random(99)
    wins = 0
    games = 200
    for game_index in range(games):
        greedy_seat = game_index % 2  # 100 games in each seat
        core = RULES.initial_core()
        while not core.is_terminal():
            player = core.current_player()
            if player == CHANCE:
                action = _sample(core.chance_outcomes(), rng)
            elif player == greedy_seat:
                action = _greedy_action(core)
            else:
                action = rng.choice(core.legal_actions())
            core.apply(action)
        wins += core.returns()[greedy_seat] > 0
    assert wins / games >= 0.80
