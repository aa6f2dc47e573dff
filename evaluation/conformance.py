"""The conformance checks every game is held to, ours and a plugin's: `chancespiel check GAME`
runs them on any registered game, and tests/test_conformance.py on each of chancespiel's own.

Each check plays seeded random games (chance by its probabilities) and tests one promise:
OpenSpiel's API (its own `random_sim_test`, serialization, copies, chance outcomes, returns,
legal actions, length bounds, observations), the contract agents rely on (games.contract), the
search protocol (games.core.Core: a core's clone, child and state_key; a short search from
random positions), and determinism under a seed. A check passes, fails with a one-line reason
naming the state (its history, which `chancespiel analyse GAME --history` takes back), or is
skipped where the game declares nothing to test (no observation tensor, no core).
"""

from __future__ import annotations

import copy
import math
import pickle
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games.contract import GameContractError, Referee, where
from chancespiel.games.core import CHANCE
from chancespiel.games.registry import (
    DEFAULT_HEURISTIC,
    evaluation_for,
    has_heuristic,
    spiel_errors_quiet,
)
from chancespiel.plugins import error_line, print_traceback, where_raised

PLAYOUTS = 8  # random games per check
LENGTH_PLAYOUTS = 30  # for the length bounds, which only the longest games test
SIMS = 5  # games of pyspiel.random_sim_test
SERIALIZED = 12  # states per game sent through a string (a deserialization loads the game)
ACTIONS_TRIED = 4  # actions or outcomes tried on copies of each state
SEARCHES = 3  # positions searched by the search check
TOLERANCE = 1e-9


class CheckFailedError(Exception):
    """A game failed a check: the one-line reason."""


class NothingToCheckError(Exception):
    """A check has nothing to test in this game: why."""


def _require(condition: bool, reason: str, state: Any = None) -> None:
    if not condition:
        raise CheckFailedError(reason if state is None else f"{reason} {where(state)}")


@dataclass(frozen=True)
class Check:
    """One conformance check: `run(game, seed)` raises CheckFailedError or NothingToCheckError."""

    name: str
    help: str
    run: Callable[[pyspiel.Game, int], None]


@dataclass(frozen=True)
class Outcome:
    """What one check found: status is "pass", "fail" or "skip"; reason one line."""

    check: str
    status: str
    reason: str = ""


def moves(state: pyspiel.State) -> list[int]:
    """The legal actions, or the outcome ids at a chance node."""
    if state.is_chance_node():
        return [outcome for outcome, _ in state.chance_outcomes()]
    return state.legal_actions()


def walk(game: pyspiel.Game, seed: int, playouts: int = PLAYOUTS) -> Iterator[pyspiel.State]:
    """The states of `playouts` random games in order, each ending with its terminal state
    (outcomes drawn by their probabilities). The one state object moves on after it is
    yielded: callers clone what they keep and apply actions only to clones. A game longer
    than it declares (max_game_length) fails here, rather than running forever."""
    rng = random.Random(seed)
    limit = game.max_history_length()
    for _ in range(playouts):
        state = game.new_initial_state()
        yield state
        while not state.is_terminal():
            _require(
                len(state.history()) < limit,
                f"a random game is longer than max_history_length = {limit}",
                state,
            )
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(outcomes, probabilities)[0]
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            yield state


def _tried(items: Sequence[int], rng: random.Random) -> list[int]:
    """A few of `items` (all of a short list): chance nodes may have hundreds of outcomes."""
    return list(items) if len(items) <= ACTIONS_TRIED else rng.sample(list(items), ACTIONS_TRIED)


def _snapshot(state: pyspiel.State) -> tuple[Any, ...]:
    """What acting on a copy of `state` must leave unchanged."""
    return (str(state), state.history(), state.current_player(), moves(state), state.returns())


def _random_sim(game: pyspiel.Game, seed: int) -> None:
    del seed  # OpenSpiel's test draws its own
    try:
        with spiel_errors_quiet():  # (OpenSpiel prints its error, which the reason says)
            pyspiel.random_sim_test(game, num_sims=SIMS, serialize=True, verbose=False)
    except pyspiel.SpielError as e:
        text = " / ".join(line.strip() for line in str(e).splitlines() if line.strip())
        raise CheckFailedError(f"pyspiel.random_sim_test: {text}") from None


def _serialization(game: pyspiel.Game, seed: int) -> None:
    rng = random.Random(seed)
    # A uniform sample of the visited states (reservoir sampling), serialized when chosen.
    sample: list[tuple[str, tuple[Any, ...]]] = []
    for seen, state in enumerate(walk(game, seed), start=1):
        if len(sample) < SERIALIZED:
            sample.append((pyspiel.serialize_game_and_state(game, state), _snapshot(state)))
        elif (slot := rng.randrange(seen)) < SERIALIZED:
            sample[slot] = (pyspiel.serialize_game_and_state(game, state), _snapshot(state))
    for text, snapshot in sample:
        restored_game, restored = pyspiel.deserialize_game_and_state(text)
        _require(str(restored_game) == str(game), f"the game comes back as {restored_game}")
        _require(
            _snapshot(restored) == snapshot,
            f"a state comes back from serialize_game_and_state as {str(restored)!r}, "
            f"not {snapshot[0]!r}",
            restored,
        )


def _chance_outcomes(game: pyspiel.Game, seed: int) -> None:
    chance_nodes = 0
    for state in walk(game, seed):
        if not state.is_chance_node():
            continue
        chance_nodes += 1
        outcomes = state.chance_outcomes()
        ids = [outcome for outcome, _ in outcomes]
        _require(bool(ids) and ids == sorted(set(ids)), f"outcomes {ids} not sorted", state)
        bound = game.max_chance_outcomes()
        _require(all(0 <= i < bound for i in ids), f"outcomes {ids} not in 0..{bound - 1}", state)
        probabilities = [p for _, p in outcomes]
        _require(all(p > 0 for p in probabilities), f"probabilities {probabilities} not > 0", state)
        total = math.fsum(probabilities)
        _require(abs(total - 1.0) <= TOLERANCE, f"chance probabilities sum to {total!r}", state)
        _require(
            state.legal_actions() == ids,
            f"legal_actions() {state.legal_actions()} are not the outcome ids {ids}",
            state,
        )
    if game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC:
        _require(chance_nodes == 0, "a deterministic game has chance nodes")
        _require(game.max_chance_outcomes() == 0, "a deterministic game has chance outcomes")
    else:
        _require(chance_nodes > 0, "no chance node in the random games: nothing tested")


def _clones(game: pyspiel.Game, seed: int) -> None:
    rng = random.Random(seed)
    kept: tuple[pyspiel.State, tuple[Any, ...]] | None = None
    for state in walk(game, seed):
        if kept is not None:  # the original moved on: the clone taken before is as it was
            clone, snapshot = kept
            _require(
                _snapshot(clone) == snapshot, "acting on the original changed its clone", clone
            )
        if state.is_terminal():
            kept = None
            continue
        before = _snapshot(state)
        for action in _tried(moves(state), rng):
            child = state.clone()
            child.apply_action(action)
            _require(
                _snapshot(state) == before, f"applying {action} to a clone changed the original",
                state,
            )  # fmt: skip
            _require(
                child.history() == [*state.history(), action],
                f"a clone's history after {action} is {child.history()}",
                state,
            )
        kept = (state.clone(), before)


def _observations(game: pyspiel.Game, seed: int) -> None:
    game_type = game.get_type()
    if not game_type.provides_observation_tensor:
        raise NothingToCheckError("the game declares no observation tensor")
    size = game.observation_tensor_size()
    shape = game.observation_tensor_shape()
    _require(math.prod(shape) == size, f"the tensor's shape {shape} does not hold {size} values")
    observer = game.make_py_observer()  # reused, as agents do: set_from must overwrite it all
    for state in walk(game, seed, playouts=3):
        for player in range(game.num_players()):
            observer.set_from(state, player)
            tensor = np.asarray(observer.tensor)
            _require(tensor.size == size, f"an observation has {tensor.size} values", state)
            _require(bool(np.isfinite(tensor).all()), "an observation is not finite", state)
            fresh = game.make_py_observer()
            fresh.set_from(state, player)
            _require(
                np.array_equal(tensor, fresh.tensor),
                f"a reused observer's tensor for player {player} differs from a fresh one's",
                state,
            )
            api_tensor = np.asarray(state.observation_tensor(player))
            _require(
                api_tensor.shape == (size,) and np.array_equal(api_tensor, tensor.ravel()),
                "observation_tensor() differs from the observer's",
                state,
            )
            if game_type.provides_observation_string:
                _require(
                    observer.string_from(state, player) == state.observation_string(player),
                    "observation_string() differs from the observer's",
                    state,
                )


def _returns(game: pyspiel.Game, seed: int) -> None:
    game_type = game.get_type()
    _require(game_type.utility == pyspiel.GameType.Utility.ZERO_SUM, "the game is not zero-sum")
    terminal_reward = game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    low, high = game.min_utility(), game.max_utility()
    for state in walk(game, seed):
        returns = state.returns()
        _require(len(returns) == game.num_players(), f"returns {returns}: not one per player")
        if not state.is_terminal():
            _require(
                not terminal_reward or returns == [0.0] * game.num_players(),
                f"returns {returns} before the end of a game of terminal rewards",
                state,
            )
            continue
        total = math.fsum(returns)
        _require(abs(total) <= TOLERANCE, f"returns {returns} sum to {total:g}, not 0", state)
        _require(
            all(low <= r <= high for r in returns),
            f"returns {returns} outside the utilities [{low:g}, {high:g}]",
            state,
        )


def _legal_actions(game: pyspiel.Game, seed: int) -> None:
    players = range(game.num_players())
    for state in walk(game, seed):
        if state.is_chance_node():
            continue  # outcome ids: the chance_outcomes check
        legal = state.legal_actions()
        if state.is_terminal():
            _require(
                legal == [] and all(state.legal_actions(p) == [] for p in players),
                f"legal actions {legal} at a terminal state",
                state,
            )
            continue
        _require(bool(legal), "a decision node has no legal action", state)
        _require(legal == sorted(set(legal)), f"legal actions {legal} not sorted, unique", state)
        bound = game.num_distinct_actions()
        _require(
            all(0 <= a < bound for a in legal), f"legal actions {legal} not in 0..{bound - 1}",
            state,
        )  # fmt: skip
        mover = state.current_player()
        _require(
            all(state.legal_actions(p) == (legal if p == mover else []) for p in players),
            "legal_actions(player) of a player not to move is not empty",
            state,
        )


def _length(game: pyspiel.Game, seed: int) -> None:
    """OpenSpiel's max_game_length counts decision moves only; chance nodes have their own
    bound (for a Python game pyspiel takes it from max_game_length) and a history both."""
    decisions = chances = 0
    for state in walk(game, seed, playouts=LENGTH_PLAYOUTS):
        if not state.is_terminal():
            chances += state.is_chance_node()
            decisions += not state.is_chance_node()
            _require(
                decisions <= game.max_game_length(),
                f"more than max_game_length = {game.max_game_length()} decision moves",
                state,
            )
            continue
        _require(
            chances <= game.max_chance_nodes_in_history(),
            f"{chances} chance moves, more than max_chance_nodes_in_history",
            state,
        )
        decisions = chances = 0


def _contract(game: pyspiel.Game, seed: int) -> None:
    """Random games played as `match` plays them: every move checked by the referee."""
    rng = random.Random(seed)
    for _ in range(PLAYOUTS):
        state = game.new_initial_state()
        referee = Referee(game, state)
        while (player := referee.player()) != pyspiel.PlayerId.TERMINAL:
            if player == CHANCE:
                outcomes, probabilities = zip(*referee.outcomes(), strict=True)
                action = rng.choices(outcomes, probabilities)[0]
            else:
                action = rng.choice(referee.legal)
            referee.apply(player, action)
        referee.returns()


def _fields(core: Any) -> dict[str, Any]:
    """A core's state: its fields but the shared rules."""
    return {name: value for name, value in core.__getstate__().items() if name != "rules"}


def _core(game: pyspiel.Game, seed: int) -> None:
    """A core's clone, child and state_key, as the searches use them (games.core.Core)."""
    if getattr(game.new_initial_state(), "core", None) is None:
        raise NothingToCheckError("the game's states hold no search-protocol core")
    rng = random.Random(seed)
    keys: dict[bytes, int] = {}  # every state seen (its pickled fields) -> its state_key
    for state in walk(game, seed):
        core = state.core
        before = copy.deepcopy(_fields(core))
        clone = core.clone()
        _require(
            clone is not core and _fields(clone) == before and str(clone) == str(core),
            "clone() is not an equal copy",
            state,
        )
        _require(clone.state_key() == core.state_key(), "a clone has another state_key", state)
        if rng.random() < 0.1:  # unpickling rebuilds the rules: costly for some games
            restored = pickle.loads(pickle.dumps(core))  # equal, sharing nothing with `core`
            _require(
                restored.state_key() == core.state_key(), "unpickled, the core's key differs",
                state,
            )  # fmt: skip
        key = keys.setdefault(pickle.dumps(sorted(before.items())), core.state_key())
        _require(key == core.state_key(), "equal states have different state_keys", state)
        if core.is_terminal():
            continue
        _require(
            state.is_chance_node()
            or (
                list(core.legal_actions()) == state.legal_actions()
                and core.current_player() == state.current_player()
            ),
            "the core and its pyspiel state disagree on the mover or the legal actions",
            state,
        )
        for action in _tried(moves(state), rng):
            expected = core.clone()
            expected.apply(action)
            child = core.child(action)
            _require(
                _fields(child) == _fields(expected),
                f"child({action}) differs from clone() then apply({action})",
                state,
            )
            _require(
                child.state_key() == expected.state_key(),
                f"child({action}) has another state_key than clone() then apply({action})",
                state,
            )
            _require(_fields(core) == before, f"child({action}) changed its parent", state)


def _search(game: pyspiel.Game, seed: int) -> None:
    """A depth-limited Star2 and expectimax from random decision positions, through the
    search protocol as agents reach the game (its core, or the checked adapter): each
    returns a legal move and a value within the utilities."""
    from chancespiel.agents.protocol import search_state
    from chancespiel.agents.star_minimax import search

    # the declared heuristic (a plugin's is checked at every call), else 0 without a warning
    evaluation = evaluation_for(game, DEFAULT_HEURISTIC if has_heuristic(game) else "zero")
    rng = random.Random(seed)
    positions = [
        state.clone()
        for state in walk(game, seed, playouts=2)
        if not state.is_terminal() and not state.is_chance_node() and rng.random() < 0.5
    ][:SEARCHES] or [game.new_initial_state()]
    low, high = game.min_utility(), game.max_utility()
    for state in positions:
        if state.is_chance_node() or state.is_terminal():
            continue
        for algorithm in ("star2", "expectimax"):
            result = search(
                search_state(state), game, algorithm, max_depth=2, max_nodes=20_000,
                evaluation=evaluation,
            )  # fmt: skip
            _require(
                result.action in state.legal_actions(),
                f"{algorithm} chose {result.action}, not a legal action",
                state,
            )
            _require(
                low - TOLERANCE <= result.value <= high + TOLERANCE,
                f"{algorithm} values the position {result.value!r}",
                state,
            )


def _trace(game_string: str, seed: int) -> list[tuple[Any, ...]]:
    game = pyspiel.load_game(game_string)
    return [(*_snapshot(state), str(game)) for state in walk(game, seed, playouts=3)]


def _determinism(game: pyspiel.Game, seed: int) -> None:
    """The same seed twice, on the game loaded twice: the same random games, state by state
    (text, history, mover, moves, returns)."""
    first, second = _trace(str(game), seed), _trace(str(game), seed)
    for a, b in zip(first, second, strict=False):
        history = " ".join(map(str, a[1]))
        _require(
            a == b,
            f"the same seed gave two different games: after history [{history}] the state "
            f"was {a[0]!r} in one run, {b[0]!r} in the other",
        )
    _require(len(first) == len(second), "the same random games have different lengths")


CHECKS: tuple[Check, ...] = (
    Check("random_sim", "OpenSpiel's pyspiel.random_sim_test, serialization included", _random_sim),
    Check("serialization", "states come back from serialize_game_and_state equal", _serialization),
    Check("clones", "acting on a clone leaves the original unchanged", _clones),
    Check("chance", "chance outcomes sorted, in range, positive, summing to 1", _chance_outcomes),
    Check("returns", "returns zero-sum and within the utilities", _returns),
    Check("legal_actions", "legal actions sorted, unique, in range, the mover's", _legal_actions),
    Check("length", "random games within max_game_length and the chance bound", _length),
    Check("observations", "observation tensors: declared size, finite, consistent", _observations),
    Check("contract", "the contract agents rely on (games.contract), at every move", _contract),
    Check("core", "the search protocol of the core: clone, child, state_key", _core),
    Check("search", "Star2 and expectimax from random positions: legal moves, values", _search),
    Check("determinism", "the same seed gives the same games", _determinism),
)  # fmt: skip
CHECK_NAMES = tuple(check.name for check in CHECKS)


def _failure(error: BaseException) -> str:
    """An exception raised by the game while checked, in one line with where it was raised."""
    place = where_raised(error)
    text = f"{type(error).__name__}: {error_line(error)}"
    return text if place is None else f"{text} ({place})"


def run_check(check: Check, game: pyspiel.Game, seed: int = 0) -> Outcome:
    """Runs one check; whatever the game raises is its failure, in one line."""
    try:
        check.run(game, seed)
    except NothingToCheckError as e:
        return Outcome(check.name, "skip", str(e))
    except CheckFailedError as e:
        return Outcome(check.name, "fail", str(e))
    except Exception as e:  # the game's own error, or its contract's
        print_traceback(e, f"check {check.name}")
        reason = str(e) if isinstance(e, GameContractError) else _failure(e)
        return Outcome(check.name, "fail", reason)
    return Outcome(check.name, "pass")


def run_checks(
    game: pyspiel.Game, seed: int = 0, names: Sequence[str] = CHECK_NAMES
) -> Iterator[Outcome]:
    """The outcome of each check named (all by default), in the order of CHECKS."""
    for check in CHECKS:
        if check.name in names:
            yield run_check(check, game, seed)
