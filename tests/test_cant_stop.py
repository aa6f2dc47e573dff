"""Tests of python_cant_stop and the rule_of_28 agent against docs/games/cant_stop.md."""

from __future__ import annotations

import copy
import itertools
import pickle
import random

import golden
import pyspiel
import pytest

import chancespiel.agents  # noqa: F401  (registers the agents)
from chancespiel.agents import make_bot
from chancespiel.agents.cant_stop_policies import (
    choice_value,
    rule_of_28_progress,
    turn_advances,
    wants_to_roll,
)
from chancespiel.games import heuristic_for
from chancespiel.games.cant_stop import CantStopGame, CantStopState
from chancespiel.games.cant_stop_core import (
    CHOOSING,
    DECIDING,
    PASS,
    PASSING,
    ROLL,
    ROLLING,
    STOP,
    CantStopCore,
    CantStopRules,
    bust_probability,
    player_progress,
)
from chancespiel.games.core import CHANCE, TERMINAL, fields_of
from chancespiel.games.registry import evaluation_for

GAME = pyspiel.load_game("python_cant_stop")
RULES: CantStopRules = GAME.rules
# Small enough for exhaustive search (see the module docstring).
TINY = "python_cant_stop(sides=2,shortest=1,height_step=1,columns_to_win=2,horizon=8)"
SMALL = "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)"


def legal_names(core: CantStopCore) -> set[str]:
    return {core.action_to_string(core.player, a) for a in core.legal_actions()}


def after_roll(core: CantStopCore, dice: tuple[int, ...]) -> CantStopCore:
    core = core.clone()
    core.apply(core.rules.roll_id(dice))
    return core


def random_cores(rules: CantStopRules, games: int, seed: int) -> list[CantStopCore]:
    """Every state of `games` random games, in order."""
    rng = random.Random(seed)
    ids = [o for o, _ in rules.outcomes]
    weights = [p for _, p in rules.outcomes]
    states = []
    for _ in range(games):
        core = rules.initial_core()
        states.append(core.clone())
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                core.apply(rng.choices(ids, weights)[0])
            else:
                core.apply(rng.choice(core.legal_actions()))
            states.append(core.clone())
    return states


# --- Board, chance and action tables -------------------------------------------------------


def test_game_facts():
    assert RULES.heights == (3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3)
    assert sum(RULES.heights) == 83
    assert GAME.num_distinct_actions() == 3 + 11 + 66
    assert GAME.max_chance_outcomes() == 126
    assert GAME.max_game_length() == 1000
    assert (GAME.min_utility(), GAME.max_utility(), GAME.utility_sum()) == (-1.0, 1.0, 0.0)
    assert GAME.get_parameters() == {
        "sides": 6,
        "shortest": 3,
        "height_step": 2,
        "columns_to_win": 3,
        "horizon": 1000,
        "ordered_dice": False,
    }


def test_variant_heights_follow_parameters():
    rules = CantStopRules(sides=3, shortest=2, height_step=1)
    assert rules.heights == (2, 3, 4, 3, 2)  # columns 2..6
    assert CantStopRules(sides=4, shortest=1, height_step=0).heights == (1,) * 7


def test_roll_outcomes_are_multisets_with_exact_probabilities():
    outcomes = RULES.outcomes
    assert [o for o, _ in outcomes] == list(range(126))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    assert RULES.rolls[0] == (1, 1, 1, 1) and RULES.rolls[-1] == (6, 6, 6, 6)
    assert RULES.rolls == tuple(sorted(RULES.rolls))
    counts = {}
    for dice in itertools.product(range(1, 7), repeat=4):
        r = RULES.roll_id(dice)
        counts[r] = counts.get(r, 0) + 1
    for r, p in outcomes:
        assert p == pytest.approx(counts[r] / 1296, abs=1e-15)
    assert RULES.action_names[0:3] == ("roll", "stop", "pass")
    assert RULES.roll_names[RULES.roll_id((6, 4, 5, 1))] == "Roll 1-4-5-6"


def test_pairings_of_the_rulebook_roll_and_109_distinct_pairing_sets():
    # docs/games/cant_stop.md, rule 2: 1-5-4-6 gives (6,10), (5,11) or (9,7).
    pairs = RULES.roll_pairings[RULES.roll_id((1, 5, 4, 6))]
    assert {(i + 2, j + 2) for i, j in pairs} == {(6, 10), (5, 11), (7, 9)}
    assert len(set(RULES.roll_pairings)) == 109


def test_action_encoding_round_trips():
    assert RULES.move_id(2) == 3 and RULES.move_id(12) == 13
    assert RULES.move_id(2, 2) == 14 and RULES.move_id(12, 12) == 79
    assert RULES.move_id(9, 5) == RULES.move_id(5, 9)
    assert RULES.action_names[RULES.move_id(5, 9)] == "use 5 and 9"
    assert RULES.action_names[RULES.move_id(7)] == "use 7"
    for a in range(3, RULES.num_actions):
        sums = [i + 2 for i in RULES.action_columns[a]]
        assert RULES.move_id(*sums) == a
    with pytest.raises(ValueError, match="no column 13"):
        RULES.move_id(13)


@pytest.mark.parametrize("column", range(2, 13))
def test_single_column_makeable_counts(column):
    """docs/games/cant_stop.md: 171/302/461/580/727/834 of 1296 rolls make a column (2..7).

    Derived from the game itself: every other column is won (5 by each player, so the variant
    needs 6 columns to win), and a turn-start roll is legal exactly when it makes `column`.
    """
    rules = CantStopRules(columns_to_win=6)
    others = [c for c in range(2, 13) if c != column]
    squares = [{c: rules.height(c) for c in others[:5]}, {c: rules.height(c) for c in others[5:]}]
    core = rules.position(squares=squares)
    makeable = 0.0
    for outcome, prob in core.chance_outcomes():
        child = core.clone()
        child.apply(outcome)
        assert child.phase in (CHOOSING, PASSING)
        if child.phase == CHOOSING:
            assert legal_names(child) <= {f"use {column}", f"use {column} and {column}"}
            makeable += prob
    expected = {2: 171, 3: 302, 4: 461, 5: 580, 6: 727, 7: 834}[min(column, 14 - column)]
    assert round(makeable * 1296) == expected
    assert makeable * 1296 == pytest.approx(expected, abs=1e-9)


def test_bust_probability_with_runners_on_6_7_8():
    # The well-known "92% to roll again safely" on 6-7-8.
    core = RULES.position(runners={6: 1, 7: 1, 8: 1})
    assert bust_probability(core) == pytest.approx(104 / 1296)


# --- Rulebook examples ---------------------------------------------------------------------


def test_rulebook_roll_2435_with_runners_on_6_and_10():
    """docs/games/cant_stop.md, rule 3: 5 and 9 can't both be used with one runner left."""
    core = after_roll(RULES.position(runners={6: 1, 10: 1}), (2, 4, 3, 5))
    assert core.current_player() == 0 and core.phase == CHOOSING
    # (6,8) and (7,7) are usable in full, so neither offers a single sum.
    assert legal_names(core) == {"use 6 and 8", "use 7 and 7", "use 5", "use 9"}
    assert list(core.legal_actions()) == sorted(core.legal_actions())
    core.apply(RULES.move_id(9))
    assert turn_advances(core) == {6: 1, 9: 1, 10: 1}
    assert core.phase == DECIDING and core.legal_actions() == (ROLL, STOP)


def test_double_seven_moves_two_cells():
    """docs/games/cant_stop.md, rule 3: 7 and 7 in a new column puts the runner two cells up."""
    core = after_roll(RULES.position(runners={6: 1, 10: 1}), (2, 4, 3, 5))
    core.apply(RULES.move_id(7, 7))
    assert core.runners[7 - 2] == 2 and core.nrun == 3
    # Above the player's own square, and one cell at a time once the runner is out.
    core = after_roll(RULES.position(squares=[{7: 4}, {}]), (3, 4, 3, 4))
    core.apply(RULES.move_id(7, 7))
    assert core.runners[7 - 2] == 6
    core.apply(ROLL)
    core.apply(RULES.roll_id((1, 6, 2, 5)))  # (7,7), (3,11), (6,8)
    assert "use 7 and 7" in legal_names(core)


def test_double_one_cell_below_the_top_moves_once():
    core = after_roll(RULES.position(runners={7: 12}), (3, 4, 3, 4))  # (7,7), (6,8)
    assert legal_names(core) == {"use 7", "use 6 and 8"}


def test_bust_with_free_runners_when_makeable_sums_are_won():
    """docs/games/cant_stop.md, rule 5: 6, 8, 10 won, roll 2-4-4-6 busts with runners free."""
    squares = [{6: 11, 8: 11, 5: 3}, {10: 7}]
    core = RULES.position(squares=squares, runners={5: 5})
    assert core.nrun == 1
    core.apply(RULES.roll_id((2, 4, 4, 6)))
    # Resolved inside the chance step: runners removed, turn passed, squares unchanged.
    assert core.current_player() == CHANCE and core.player == 1 and core.nrun == 0
    assert core.runners == RULES.no_runners and core.squares[0][5 - 2] == 3
    assert core.moves == 0


def test_bust_on_the_first_roll_leaves_a_single_pass():
    core = RULES.position(squares=[{6: 11, 8: 11}, {10: 7}])
    core.apply(RULES.roll_id((2, 4, 4, 6)))
    assert core.current_player() == 0 and core.phase == PASSING
    assert core.legal_actions() == (PASS,)
    assert core.action_to_string(0, PASS) == "pass"
    core.apply(PASS)
    assert core.current_player() == CHANCE and core.player == 1 and core.moves == 1


def test_won_columns_are_blocked_even_for_their_winner():
    core = RULES.position(squares=[{7: 13}, {}])
    core = after_roll(core, (3, 4, 3, 4))  # (7,7), (6,8)
    assert legal_names(core) == {"use 6 and 8"}
    core = after_roll(RULES.position(squares=[{}, {7: 13}]), (3, 4, 2, 5))  # (7,7), (5,9), (6,8)
    assert legal_names(core) == {"use 5 and 9", "use 6 and 8"}


def test_no_fourth_runner_and_no_runner_past_the_top():
    core = after_roll(RULES.position(runners={2: 1, 3: 1, 12: 3}), (1, 1, 5, 6))
    # Pairings (2,11), (6,7): 11, 6 and 7 need a fourth runner; 12 is at its top.
    assert core.nrun == 3
    assert legal_names(core) == {"use 2"}
    core = after_roll(RULES.position(runners={2: 3, 3: 1, 4: 1}), (1, 1, 1, 1))
    assert core.phase == ROLLING and core.player == 1  # bust: 2 is at its top


def test_runner_starts_above_the_players_square():
    core = after_roll(RULES.position(squares=[{9: 4}, {9: 8}]), (4, 5, 4, 5))  # (9,9), (8,10)
    core.apply(RULES.move_id(8, 10))
    assert turn_advances(core) == {8: 1, 10: 1}
    core = after_roll(RULES.position(squares=[{9: 4}, {9: 8}]), (4, 5, 4, 5))
    core.apply(RULES.move_id(9, 9))
    assert core.runners[9 - 2] == 6


# --- Stopping, winning, the horizon ---------------------------------------------------------


def test_stop_banks_runners_and_wins_columns_removing_the_opponents_squares():
    core = RULES.position(squares=[{2: 1, 5: 3}, {2: 2, 4: 6}], runners={2: 2, 5: 5}, player=0)
    core = after_roll(core, (1, 1, 2, 2))  # (2,4), (3,3)
    assert legal_names(core) == {"use 2 and 4", "use 3 and 3"}
    core.apply(RULES.move_id(2, 4))
    assert core.legal_actions() == (ROLL, STOP)  # one column topped, three needed
    core.apply(STOP)
    assert core.squares[0][:4] == (3, 0, 1, 5)
    assert core.squares[1][:4] == (0, 0, 6, 0)  # p1's square left column 2
    assert core.won == (1, 0) and core.blocked == 1
    assert core.current_player() == CHANCE and core.player == 1 and core.nrun == 0
    assert "\nwon by    0  .  ." in str(core)


def test_a_column_is_won_only_on_stopping():
    core = after_roll(RULES.position(runners={2: 2}), (1, 1, 1, 1))
    core.apply(RULES.move_id(2))
    assert core.runners[0] == 3 and not core.blocked
    core.apply(ROLL)
    core.apply(RULES.roll_id((2, 2, 2, 2)))  # (4,4)
    core.apply(RULES.move_id(4, 4))
    core.apply(ROLL)
    core.apply(RULES.roll_id((6, 6, 6, 6)))  # (12,12)
    core.apply(RULES.move_id(12, 12))
    core.apply(ROLL)
    core.apply(RULES.roll_id((1, 1, 1, 2)))  # (2,3): 2 is topped, no runner for 3: bust
    assert core.player == 1 and core.blocked == 0 and core.won == (0, 0)
    assert core.squares[0] == RULES.no_squares


def test_stop_is_the_only_action_when_it_wins_and_stopping_ends_the_game():
    core = RULES.position(squares=[{2: 3, 12: 3, 7: 10}, {}], runners={7: 12})
    core = after_roll(core, (3, 4, 3, 4))
    core.apply(RULES.move_id(7))
    assert core.legal_actions() == (STOP,)
    assert core.returns() == (0.0, 0.0) and not core.is_terminal()
    core.apply(STOP)
    assert core.is_terminal() and core.current_player() == TERMINAL
    assert core.returns() == (1.0, -1.0) and core.won == (3, 0)
    assert core.legal_actions() == ()
    assert "Player 0 won" in str(core)


def test_horizon_ends_the_game_in_a_draw():
    rules = CantStopRules(horizon=10)
    core = after_roll(rules.position(moves=8), (1, 2, 3, 4))
    core.apply(core.legal_actions()[0])
    assert not core.is_terminal()
    core.apply(ROLL)  # the 10th decision move: the game ends before the roll
    assert core.is_terminal() and core.returns() == (0.0, 0.0)
    assert "Draw at the horizon" in str(core)


def test_random_games_end_well_before_the_horizon():
    lengths = [c.moves for c in random_cores(RULES, 40, seed=3) if c.is_terminal()]
    assert len(lengths) == 40 and max(lengths) < 400


# --- Independent check of move generation ---------------------------------------------------


def _reference_moves(core: CantStopCore, roll: int) -> set[tuple[int, ...]]:
    """docs/games/cant_stop.md, rule 4, written out directly: the multisets of sums to use."""
    rules = core.rules
    start = {i + 2: h for i, h in enumerate(core.runners) if h}
    squares = core.squares[core.player]

    def apply(sums: tuple[int, ...]) -> dict[int, int] | None:
        marks = dict(start)
        for s in sums:
            i = s - 2
            if core.blocked >> i & 1:
                return None
            marks[s] = marks.get(s, squares[i]) + 1
            if marks[s] > rules.heights[i]:
                return None
        return marks if len(marks) <= 3 else None

    moves = set()
    for dice_pairs in ((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2)):
        d = rules.rolls[roll]
        a, b = sorted((d[dice_pairs[0]] + d[dice_pairs[1]], d[dice_pairs[2]] + d[dice_pairs[3]]))
        if apply((a, b)) is not None:
            moves.add((a, b))
        else:
            moves.update((s,) for s in (a, b) if apply((s,)) is not None)
    return moves


@pytest.mark.parametrize(
    ("game_string", "games"),
    [("python_cant_stop", 6), (SMALL, 6), ("python_cant_stop(sides=7)", 2)],  # 7: 52-bit rows
)
def test_move_generation_matches_a_direct_reading_of_the_rules(game_string, games):
    rules = pyspiel.load_game(game_string).rules
    states = [c for c in random_cores(rules, games, seed=11) if c.phase == ROLLING]
    assert len(states) > 50
    for core in states:
        for roll in range(len(rules.rolls)):
            got = {tuple(i + 2 for i in rules.action_columns[a]) for a in core.moves_for_roll(roll)}
            assert got == _reference_moves(core, roll), (str(core), rules.roll_names[roll])


@pytest.mark.parametrize("game_string", ["python_cant_stop", "python_cant_stop(sides=7)"])
def test_packed_rows_agree_with_the_board_read_back(game_string):
    # Every roll of random games set up again from the readable board (`position` packs it
    # anew and derives the masks): the rows kept up by moves and stops, in every bit of the
    # 44-bit and 52-bit rows, are the ones the board gives.
    rules = pyspiel.load_game(game_string).rules
    rolls = [c for c in random_cores(rules, 4, seed=5) if c.phase == ROLLING]
    assert len(rolls) > 100
    for core in rolls:
        squares = [{i + 2: h for i, h in enumerate(row) if h} for row in core.squares]
        runners = {i + 2: h for i, h in enumerate(core.runners) if h}
        again = rules.position(squares, runners, core.player, core.moves)
        fields = ("squares0", "squares1", "marks", "blocked", "start0", "start1", "usable")
        assert [getattr(again, f) for f in fields] == [getattr(core, f) for f in fields]
        assert again.won == core.won and again.two_steps == core.two_steps


def test_rows_of_63_bits_in_the_widest_variant():
    rules = CantStopRules(sides=5, shortest=99, height_step=7)  # heights 99..127: 7 bits
    assert rules.num_columns * rules.cell_bits == 63 and rules.height(10) == 99
    # Column 10 is bits 56..62: player 0 climbs from 97 to its top and wins it, and player
    # 1's square there leaves.
    core = rules.position(squares=[{10: 97, 9: 100}, {10: 50, 2: 3}], runners={9: 101})
    core.apply(rules.roll_id((5, 5, 5, 5)))
    assert [rules.action_names[a] for a in core.legal_actions()] == ["use 10 and 10"]
    core.apply(core.legal_actions()[0])
    assert core.runners == (0,) * 7 + (101, 99)
    core.apply(STOP)
    assert core.squares == ((0,) * 7 + (101, 99), (3,) + (0,) * 8)
    assert core.won == (1, 0) and core.blocked == 1 << 8 and core.player == 1
    assert core.squares0 == 101 << 49 | 99 << 56 and core.squares0 < 1 << 63


# --- OpenSpiel API, bad input, copies, serialization ----------------------------------------


@pytest.mark.parametrize("game_string", [SMALL, TINY, "python_cant_stop(sides=4,columns_to_win=2)"])
def test_random_sim_with_serialization(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_golden_playthrough():
    recorded, replayed = golden.replay(golden.PLAYTHROUGHS / "python_cant_stop.txt")
    assert replayed == recorded


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    state = GAME.new_initial_state()
    with pytest.raises(ValueError, match="illegal chance outcome"):
        state.apply_action(126)
    state.apply_action(RULES.roll_id((1, 2, 3, 4)))  # (3,7), (4,6), (5,5)
    before = (str(state), state.history(), state.legal_actions())
    for action in (ROLL, STOP, PASS, RULES.move_id(3), RULES.move_id(2, 2), 80):
        with pytest.raises(ValueError, match="illegal action for player 0"):
            state.apply_action(action)
        assert (str(state), state.history(), state.legal_actions()) == before
    assert state.legal_actions() == sorted(RULES.move_id(*p) for p in ((3, 7), (4, 6), (5, 5)))


@pytest.mark.parametrize(
    ("game_string", "message"),
    [
        ("python_cant_stop(sides=1)", "sides must be in"),
        ("python_cant_stop(sides=13)", "sides must be in"),
        ("python_cant_stop(shortest=0)", "shortest must be in"),
        ("python_cant_stop(height_step=-1)", "height_step must be in"),
        ("python_cant_stop(columns_to_win=7)", "columns_to_win must be in"),
        ("python_cant_stop(sides=2,columns_to_win=3)", "columns_to_win must be in"),
        ("python_cant_stop(horizon=0)", "horizon must be"),
        # Rows of heights pack into 63 bits: 15 columns of 5 bits, 11 of 7.
        ("python_cant_stop(sides=8)", "15 columns of heights up to 17 need 75 bits per row"),
        ("python_cant_stop(shortest=99)", "11 columns of heights up to 109 need 77 bits"),
    ],
)
def test_bad_parameters_raise(game_string, message):
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(game_string)


def test_unknown_or_mistyped_parameters_raise():
    # pyspiel checks names and types of a game string itself; the game checks a params dict.
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'dice'"):
        pyspiel.load_game("python_cant_stop(dice=3)")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['dice'\]"):
        CantStopGame({"dice": 3})
    with pytest.raises(ValueError, match="sides must be an integer"):
        CantStopGame({"sides": 6.0})


def test_impossible_positions_raise():
    with pytest.raises(ValueError, match="at most 3 runners"):
        RULES.position(runners={2: 1, 3: 1, 4: 1, 5: 1})
    with pytest.raises(ValueError, match="runner at 2 impossible"):
        RULES.position(squares=[{4: 3}, {}], runners={4: 2})
    with pytest.raises(ValueError, match="already won"):
        RULES.position(squares=[{2: 3, 3: 5, 4: 7}, {}])
    with pytest.raises(ValueError, match="not a roll"):
        RULES.roll_id((1, 2, 3, 7))


def test_clone_copy_and_pickle_are_independent_and_equal():
    core = after_roll(RULES.position(squares=[{5: 2}, {9: 3}], runners={6: 1}), (1, 2, 3, 4))

    def fields(c: CantStopCore) -> dict[str, object]:
        return {name: getattr(c, name) for name in fields_of(CantStopCore) if name != "rules"}

    for copied in (core.clone(), copy.deepcopy(core), pickle.loads(pickle.dumps(core))):
        assert fields(copied) == fields(core)
        assert copied.rules.params() == core.rules.params()
        copied.apply(copied.legal_actions()[0])
        assert fields(copied) != fields(core)
    assert core.clone().rules is core.rules and copy.deepcopy(core).rules is core.rules
    assert copy.deepcopy(RULES) is RULES
    rebuilt = pickle.loads(pickle.dumps(RULES))
    assert rebuilt.params() == RULES.params() and rebuilt.outcomes == RULES.outcomes
    state = CantStopState(GAME, core.clone())
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(state) == str(core) and str(clone) != str(state)


def test_observation_tensor_and_string():
    state = GAME.new_initial_state()
    state.apply_action(RULES.roll_id((1, 2, 3, 4)))
    state.apply_action(RULES.move_id(5, 5))
    observer = GAME.make_py_observer()
    observer.set_from(state, 0)
    view = observer.dict
    assert observer.tensor.shape == (2 * 11 * 14 + 11 * 14 + 2 * 11 + 2 + 4 + 126,)
    assert view["runners"][5 - 2, 2] == 1 and view["runners"].sum() == 11
    assert view["squares"][:, :, 0].sum() == 22
    assert list(view["phase"]) == [0, 0, 1, 0] and list(view["turn_player"]) == [1, 0]
    assert view["roll"].sum() == 0
    assert observer.string_from(state, 1) == str(state)
    assert state.observation_string(0) == str(state)


def test_readable_strings():
    state = GAME.new_initial_state()
    assert state.action_to_string(CHANCE, RULES.roll_id((1, 4, 5, 6))) == "Roll 1-4-5-6"
    state.apply_action(RULES.roll_id((1, 4, 5, 6)))
    text = str(state)
    assert text.splitlines()[0].split() == ["column"] + [str(c) for c in range(2, 13)]
    assert "Player 0 rolled 1-4-5-6, chooses a move" in text
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == [
        "use 5 and 11",
        "use 6 and 10",
        "use 7 and 9",
    ]


# --- Small variants are searchable ---------------------------------------------------------


def test_tiny_variant_is_solvable_by_exhaustive_expectimax():
    rules = pyspiel.load_game(TINY).rules
    nodes = 0

    def value(core: CantStopCore) -> float:
        nonlocal nodes
        nodes += 1
        if core.is_terminal():
            return core.returns()[0]
        player = core.current_player()
        if player == CHANCE:
            total = 0.0
            for outcome, prob in core.chance_outcomes():
                child = core.clone()
                child.apply(outcome)
                total += prob * value(child)
            return total
        values = []
        for action in core.legal_actions():
            child = core.clone()
            child.apply(action)
            values.append(value(child))
        return max(values) if player == 0 else min(values)

    v = value(rules.initial_core())
    # Regression values of this implementation (see the module docstring).
    assert nodes == 43281
    assert v == pytest.approx(0.921162, abs=1e-6)


# --- Heuristic ---------------------------------------------------------------------------------


def test_heuristic_is_bounded_antisymmetric_and_exact_at_the_end():
    h = heuristic_for("python_cant_stop")
    states = random_cores(RULES, 6, seed=5)
    for core in states:
        v0, v1 = h(core, 0), h(core, 1)
        assert -1.0 <= v0 <= 1.0 and v0 == pytest.approx(-v1)
        if core.is_terminal():
            assert (v0, v1) == core.returns()
    draw = CantStopRules(horizon=1).position()
    draw.apply(draw.rules.roll_id((1, 1, 1, 1)))
    draw.apply(draw.legal_actions()[0])
    assert draw.is_terminal() and h(draw, 0) == 0.0


def test_heuristic_weights_progress_by_column_length_and_runners_by_risk():
    h = heuristic_for("python_cant_stop")
    # Two cells of column 2 (of 3) are worth more than two of column 7 (of 13).
    assert h(RULES.position(squares=[{2: 2}, {7: 2}]), 0) > 0
    # Runners count fully when the player can stop, less before a risky roll.
    core = after_roll(RULES.position(runners={2: 2, 12: 2}), (1, 1, 6, 6))
    core.apply(RULES.move_id(2, 12))
    safe = h(core, 0)
    core.apply(ROLL)
    assert 0 < h(core, 0) < safe
    assert h(core, 0) == pytest.approx(safe * (1 - bust_probability(core)))
    # The plain variant counts them fully before the roll too, and agrees elsewhere.
    plain = evaluation_for(GAME, "progress")
    assert plain(core, 0) == pytest.approx(safe) and plain(core, 1) == pytest.approx(-safe)
    for other in random_cores(RULES, 6, seed=5):
        if other.phase != ROLLING:
            assert plain(other, 0) == h(other, 0)


@pytest.mark.parametrize("game_string", ["python_cant_stop", SMALL])
def test_progress_is_the_mean_of_the_best_column_fractions(game_string):
    # The definition, float for float: each column's fraction of its height (1 if the player
    # won it, 0 if the opponent did), the turn player's runners' columns at the runner's height
    # (weighted by not busting before a pending roll, with `risk`), the best columns_to_win
    # summed from the largest. Each state is asked twice: the second answer comes from caches.
    rules = pyspiel.load_game(game_string).rules
    w = rules.columns_to_win
    for core in random_cores(rules, 8, seed=23):
        if core.is_terminal():
            continue
        for player in (0, 1):
            squares = core.squares[player]
            for risk in (True, False):
                values = []
                for i, height in enumerate(rules.heights):
                    square, runner = squares[i], core.runners[i]
                    value = square / height
                    if core.blocked >> i & 1:
                        value = 1.0 if square == height else 0.0
                    elif player == core.player and runner:
                        rolling = risk and core.phase == ROLLING
                        keep = 1.0 - bust_probability(core) if rolling else 1.0
                        value = (square + keep * (runner - square)) / height
                    values.append(value)
                expected = sum(sorted(values, reverse=True)[:w]) / w
                assert player_progress(core, player, risk) == expected
                assert player_progress(core, player, risk) == expected


def test_progress_counts_a_column_the_opponent_won_as_nothing():
    # A square below the top of a column the opponent won (set up by hand: in play it leaves
    # the column) is worth 0 to its owner, the winner's square 1.
    core = RULES.position(squares=[{7: 13, 2: 1}, {7: 6, 3: 2}])
    w = RULES.columns_to_win
    assert player_progress(core, 0) == sum(sorted([1.0, 1 / 3] + [0.0] * 9, reverse=True)[:w]) / w
    assert player_progress(core, 1) == sum(sorted([2 / 5] + [0.0] * 10, reverse=True)[:w]) / w


# --- Rule of 28 -------------------------------------------------------------------------------


def test_rule_of_28_progress_worked_examples():
    """docs/games/cant_stop.md: columns 2 and 5 newly marked give 18; then 2 and 12: 36."""
    assert rule_of_28_progress({2: 1, 5: 1}) == 18
    assert rule_of_28_progress({2: 2, 5: 1, 12: 1}) == 36
    core = after_roll(RULES.position(), (1, 1, 2, 3))  # (2,5), (3,4)
    core.apply(RULES.move_id(2, 5))
    assert rule_of_28_progress(turn_advances(core)) == 18
    core.apply(ROLL)
    core.apply(RULES.roll_id((1, 1, 6, 6)))  # (2,12), (7,7)
    core.apply(RULES.move_id(2, 12))
    assert rule_of_28_progress(turn_advances(core)) == 36


def test_rule_of_28_column_set_adjustments():
    # Marked once each: 2 * weight; +2 all odd, -2 all even, +4 all <= 7, +4 all >= 7.
    assert rule_of_28_progress({3: 1, 5: 1, 7: 1}) == 2 * (5 + 3 + 1) + 2 + 4
    assert rule_of_28_progress({8: 1, 10: 1, 12: 1}) == 2 * (2 + 4 + 6) - 2 + 4
    assert rule_of_28_progress({6: 1, 7: 1, 8: 1}) == 2 * (2 + 1 + 2)
    assert rule_of_28_progress({4: 1, 6: 1, 7: 1}) == 2 * (4 + 2 + 1) + 4
    with pytest.raises(ValueError):
        rule_of_28_progress({4: 0})


def test_rule_of_28_choices_and_stopping():
    core = after_roll(RULES.position(runners={6: 1, 10: 1}), (2, 4, 3, 5))
    # 6+8: 5 + 5 - 6 = 4; 7+7: 6 + 6 - 6 = 6; single 5: 3 - 6; single 9: 3 - 6.
    assert choice_value(core, RULES.move_id(7, 7)) == 6
    assert choice_value(core, RULES.move_id(6, 8)) == 4
    bot = make_bot("rule_of_28", GAME, 0)
    assert bot.step(CantStopState(GAME, core.clone())) == RULES.move_id(7, 7)
    core.apply(RULES.move_id(6, 8))
    assert rule_of_28_progress(turn_advances(core)) == 2 * 3 + 2 * 2 + 4 * 2 - 2 < 28
    assert wants_to_roll(core, 28)
    assert not wants_to_roll(core, 14)
    # Fewer than three runners and an open column left: keep rolling whatever the count.
    core = after_roll(RULES.position(runners={2: 3}), (1, 1, 6, 6))  # (2,12), (7,7)
    assert legal_names(core) == {"use 12", "use 7 and 7"}
    core.apply(RULES.move_id(12))
    assert rule_of_28_progress(turn_advances(core)) >= 28 and wants_to_roll(core, 28)


def test_rule_of_28_spec_errors():
    with pytest.raises(ValueError, match="plays only python_cant_stop"):
        make_bot("rule_of_28", pyspiel.load_game("python_pig"), 0)
    with pytest.raises(ValueError, match=r"threshold must be in \[1, "):
        make_bot("rule_of_28(threshold=0)", GAME, 0)


def test_rule_of_28_beats_random():
    """50 seat-swapped games with seeded dice: Rule of 28 should win about 95%."""
    ids = [o for o, _ in RULES.outcomes]
    weights = [p for _, p in RULES.outcomes]
    score = 0.0
    for game in range(50):
        seat = game % 2
        bots = [None, None]
        bots[seat] = make_bot("rule_of_28", GAME, seat)
        bots[1 - seat] = make_bot(f"random(seed={game})", GAME, 1 - seat)
        rng = random.Random(game // 2)  # both seatings of a pair see the same dice stream
        state = GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choices(ids, weights)[0])
            else:
                state.apply_action(bots[state.current_player()].step(state))
        assert state.core.moves < GAME.max_game_length() // 2
        score += (state.returns()[seat] + 1) / 2
    assert score >= 40
