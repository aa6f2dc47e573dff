"""Every game's GameInfo bounds what happens in its games, and bad ids are refused."""

from __future__ import annotations

import random

import pyspiel
import pytest

import chancespiel.games  # noqa: F401  (registers the games)

# Every registered game, with the non-default parameter sets the test suite plays.
GAME_STRINGS = [
    "python_pig",
    "python_pig(dice=1)",
    "python_pig(winscore=25,horizon=30)",
    "python_einstein_wurfelt_nicht",
    "python_einstein_wurfelt_nicht(setup=free)",
    "python_cant_stop",
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)",
    "python_ra",
    "python_ra(epochs=1)",
    "python_chance_tree",
    "python_chance_tree(seed=3,depth=6,branching=4,outcomes=4,chance_prob=0.9)",
    "python_pgame",
    "python_pgame(branching=4,depth=8,scoring=margin)",
    "python_implanted_tree",
]


@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_game_info_bounds_random_games(game_string):
    game = pyspiel.load_game(game_string)
    rng = random.Random(0)
    for _ in range(60):
        state = game.new_initial_state()
        moves = chances = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert all(0 <= o < game.max_chance_outcomes() for o, _ in outcomes)
                action = rng.choices(*zip(*outcomes, strict=True))[0]
                chances += 1
            else:
                legal = state.legal_actions()
                assert all(0 <= a < game.num_distinct_actions() for a in legal)
                action = rng.choice(legal)
                moves += 1
            state.apply_action(action)
        assert moves <= game.max_game_length()
        assert chances <= game.max_chance_nodes_in_history()
        assert len(state.history()) <= game.max_history_length()
        assert game.min_utility() <= min(state.returns())
        assert max(state.returns()) <= game.max_utility()


@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_action_to_string_refuses_ids_outside_the_game(game_string):
    game = pyspiel.load_game(game_string)
    state = game.new_initial_state()
    for player, bound in ((0, game.num_distinct_actions()), (-1, game.max_chance_outcomes())):
        for action in (-5, -1, bound, 10**6):
            with pytest.raises(ValueError, match="is not an id of"):
                state.action_to_string(player, action)
    assert state.action_to_string(0, game.num_distinct_actions() - 1)
