"""Every registered chancespiel game keeps OpenSpiel's API contract and the search protocol.

The cases come from the registry (`listed_games()`, what `chancespiel games` lists) at
collection time, so a game declared later gets the same checks without editing this file. A
game with a `horizon` parameter is also checked with a short horizon, so that random playouts
end there (a draw, possibly at a chance node) and the length bounds are met at their limit.
Game-specific facts (oracles against OpenSpiel's C++ games, golden playthroughs and values)
stay in each game's own test file.
"""

from __future__ import annotations

import copy
import functools
import math
import pickle
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyspiel
import pytest

from chancespiel.games import listed_games

SHORT_HORIZON = 20  # decision moves: random games of every game with a horizon reach it
PLAYOUTS = 8  # random games per check
LENGTH_PLAYOUTS = 30  # for the length bounds, which only the longest games test
SIMS = 5  # games of pyspiel.random_sim_test
SERIALIZED = 12  # states per game sent through a string (a deserialization loads the game)
ACTIONS_TRIED = 4  # actions or outcomes tried on copies of each state
TOLERANCE = 1e-9


def _game_strings() -> list[str]:
    """Each registered game with its defaults, and with a short horizon if it has one."""
    strings = []
    for name in sorted(spec.short_name for spec in listed_games()):
        strings.append(name)
        horizon = pyspiel.load_game(name).get_parameters().get("horizon")
        if isinstance(horizon, int) and horizon > SHORT_HORIZON:
            strings.append(f"{name}(horizon={SHORT_HORIZON})")
    return strings


GAME_STRINGS = _game_strings()
each_game = pytest.mark.parametrize("game_string", GAME_STRINGS)


@functools.cache
def _load(game_string: str) -> pyspiel.Game:
    return pyspiel.load_game(game_string)


def _moves(state: pyspiel.State) -> list[int]:
    """The legal actions, or the outcome ids at a chance node."""
    if state.is_chance_node():
        return [outcome for outcome, _ in state.chance_outcomes()]
    return state.legal_actions()


def _walk(game: pyspiel.Game, seed: int, playouts: int = PLAYOUTS) -> Iterator[pyspiel.State]:
    """The states of `playouts` random games in order, each ending with its terminal state
    (outcomes drawn by their probabilities). The one state object moves on after it is
    yielded: callers clone what they keep and apply actions only to clones."""
    rng = random.Random(seed)
    for _ in range(playouts):
        state = game.new_initial_state()
        yield state
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probabilities)[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            yield state


def _tried(moves: Sequence[int], rng: random.Random) -> list[int]:
    """A few of `moves` (all of a short list): chance nodes may have hundreds of outcomes."""
    return list(moves) if len(moves) <= ACTIONS_TRIED else rng.sample(list(moves), ACTIONS_TRIED)


def _snapshot(state: pyspiel.State) -> tuple[Any, ...]:
    """What acting on a copy of `state` must leave unchanged."""
    return (str(state), state.history(), state.current_player(), _moves(state), state.returns())


@each_game
def test_random_sim_with_serialization(game_string: str) -> None:
    pyspiel.random_sim_test(_load(game_string), num_sims=SIMS, serialize=True, verbose=False)


@each_game
def test_serialization_round_trips_at_random_states(game_string: str) -> None:
    game = _load(game_string)
    rng = random.Random(2)
    # A uniform sample of the visited states (reservoir sampling), serialized when chosen.
    sample: list[tuple[str, tuple[Any, ...]]] = []
    for seen, state in enumerate(_walk(game, seed=2), start=1):
        if len(sample) < SERIALIZED:
            sample.append((pyspiel.serialize_game_and_state(game, state), _snapshot(state)))
        elif (slot := rng.randrange(seen)) < SERIALIZED:
            sample[slot] = (pyspiel.serialize_game_and_state(game, state), _snapshot(state))
    assert len(sample) == SERIALIZED
    for text, snapshot in sample:
        restored_game, restored = pyspiel.deserialize_game_and_state(text)
        assert str(restored_game) == str(game)
        assert _snapshot(restored) == snapshot, text


@each_game
def test_chance_outcomes_are_sorted_positive_and_sum_to_one(game_string: str) -> None:
    game = _load(game_string)
    chance_nodes = 0
    for state in _walk(game, seed=3):
        if not state.is_chance_node():
            continue
        chance_nodes += 1
        outcomes = state.chance_outcomes()
        ids = [outcome for outcome, _ in outcomes]
        assert ids and ids == sorted(set(ids)), (outcomes, str(state))
        assert all(0 <= i < game.max_chance_outcomes() for i in ids), (ids, str(state))
        assert all(p > 0 for _, p in outcomes), (outcomes, str(state))
        assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=TOLERANCE)
        assert state.legal_actions() == ids  # OpenSpiel's convention at chance nodes
    if game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC:
        assert chance_nodes == 0 and game.max_chance_outcomes() == 0
    else:
        assert chance_nodes > 0, "no chance node in the playouts: the check tested nothing"


@each_game
def test_acting_on_a_clone_leaves_the_original_unchanged(game_string: str) -> None:
    game = _load(game_string)
    rng = random.Random(4)
    kept: tuple[pyspiel.State, tuple[Any, ...]] | None = None
    for state in _walk(game, seed=4):
        if kept is not None:  # the original moved on: the clone taken before is as it was
            clone, snapshot = kept
            assert _snapshot(clone) == snapshot
        if state.is_terminal():
            kept = None
            continue
        before = _snapshot(state)
        for action in _tried(_moves(state), rng):
            child = state.clone()
            child.apply_action(action)
            assert _snapshot(state) == before, action
            assert child.history() == [*state.history(), action]
        kept = (state.clone(), before)


@each_game
def test_observation_tensors_have_the_declared_size_and_finite_values(game_string: str) -> None:
    game = _load(game_string)
    game_type = game.get_type()
    if not game_type.provides_observation_tensor:
        pytest.skip("the game declares no observation tensor")
    size = game.observation_tensor_size()
    assert math.prod(game.observation_tensor_shape()) == size
    observer = game.make_py_observer()  # reused, as agents do: set_from must overwrite it all
    for state in _walk(game, seed=5, playouts=3):
        for player in range(game.num_players()):
            observer.set_from(state, player)
            tensor = np.asarray(observer.tensor)
            assert tensor.size == size and np.isfinite(tensor).all(), str(state)
            fresh = game.make_py_observer()
            fresh.set_from(state, player)
            assert np.array_equal(tensor, fresh.tensor), (player, str(state))
            api_tensor = np.asarray(state.observation_tensor(player))
            assert api_tensor.shape == (size,) and np.array_equal(api_tensor, tensor.ravel())
            if game_type.provides_observation_string:
                assert observer.string_from(state, player) == state.observation_string(player)


@each_game
def test_returns_are_zero_sum_and_within_the_utility_range(game_string: str) -> None:
    game = _load(game_string)
    game_type = game.get_type()
    assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    terminal_reward = game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    terminals = 0
    for state in _walk(game, seed=6):
        returns = state.returns()
        assert len(returns) == game.num_players()
        if not state.is_terminal():
            if terminal_reward:
                assert returns == [0.0] * game.num_players(), str(state)
            continue
        terminals += 1
        assert math.fsum(returns) == pytest.approx(0.0, abs=TOLERANCE), str(state)
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns), returns
    assert terminals == PLAYOUTS


@each_game
def test_legal_actions_are_sorted_unique_and_in_range(game_string: str) -> None:
    game = _load(game_string)
    players = range(game.num_players())
    for state in _walk(game, seed=7):
        if state.is_chance_node():
            continue  # outcome ids: test_chance_outcomes_are_sorted_positive_and_sum_to_one
        legal = state.legal_actions()
        if state.is_terminal():
            assert legal == [] and all(state.legal_actions(p) == [] for p in players)
            continue
        assert legal and legal == sorted(set(legal)), (legal, str(state))
        assert all(0 <= a < game.num_distinct_actions() for a in legal), (legal, str(state))
        mover = state.current_player()
        assert all(state.legal_actions(p) == (legal if p == mover else []) for p in players)


@each_game
def test_random_games_respect_the_length_bounds(game_string: str) -> None:
    """OpenSpiel's max_game_length counts decision moves only; chance nodes have their own
    bound (for a Python game pyspiel takes it from max_game_length) and a history both."""
    game = _load(game_string)
    decisions = chances = 0
    for state in _walk(game, seed=8, playouts=LENGTH_PLAYOUTS):
        if not state.is_terminal():
            chances += state.is_chance_node()
            decisions += not state.is_chance_node()
            continue
        assert decisions <= game.max_game_length()
        assert chances <= game.max_chance_nodes_in_history()
        assert len(state.history()) == decisions + chances <= game.max_history_length()
        decisions = chances = 0


def _fields(core: Any) -> dict[str, Any]:
    """A core's state: its fields but the shared rules."""
    return {name: value for name, value in core.__getstate__().items() if name != "rules"}


@each_game
def test_core_clone_child_and_state_key(game_string: str) -> None:
    game = _load(game_string)
    if getattr(game.new_initial_state(), "core", None) is None:
        pytest.skip("the game's states hold no search-protocol core")
    rng = random.Random(9)
    keys: dict[bytes, int] = {}  # every state seen (its pickled fields) -> its state_key
    for state in _walk(game, seed=9):
        core = state.core
        before = copy.deepcopy(_fields(core))
        clone = core.clone()
        assert clone is not core and _fields(clone) == before and str(clone) == str(core)
        assert clone.state_key() == core.state_key()
        if rng.random() < 0.1:  # unpickling rebuilds the rules: costly for some games
            restored = pickle.loads(pickle.dumps(core))  # equal, sharing nothing with `core`
            assert restored.state_key() == core.state_key()
        key = keys.setdefault(pickle.dumps(sorted(before.items())), core.state_key())
        assert key == core.state_key(), f"equal states with different keys:\n{core}"
        if core.is_terminal():
            continue
        for action in _tried(_moves(state), rng):
            expected = core.clone()
            expected.apply(action)
            child = core.child(action)
            assert _fields(child) == _fields(expected), (action, str(core))
            assert child.state_key() == expected.state_key(), (action, str(core))
            assert _fields(core) == before, (action, str(core))
