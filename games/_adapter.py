"""The thin OpenSpiel layer shared by every chancespiel game (see docs/architecture.md).

A game module provides a `Rules` object (constants built once from the parameters) and a `Core`
(all mutable state, implementing the search protocol). The classes here turn them into a
`pyspiel.Game` / `pyspiel.State` pair without per-game boilerplate:

- `CoreState` forwards every OpenSpiel hook to `self.core` and checks actions for legality,
  because OpenSpiel does not check them for Python games.
- `CoreGame` validates parameters, holds the `Rules`, and makes observers.
- `CoreObserver` fills named tensor pieces through a function of the game module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games.core import CHANCE, TERMINAL

# The core's constants are pyspiel's player ids, written out so that the core needs no pyspiel.
assert int(pyspiel.PlayerId.CHANCE) == CHANCE and int(pyspiel.PlayerId.TERMINAL) == TERMINAL


def chance_game_type(
    short_name: str,
    long_name: str,
    parameters: Mapping[str, Any],
    chance_mode: pyspiel.GameType.ChanceMode = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
) -> pyspiel.GameType:
    """The GameType every chancespiel game shares: 2-player, sequential, explicit chance,
    perfect information, zero-sum, terminal rewards, observation string and tensor.

    Synthetic trees without chance nodes pass `chance_mode=DETERMINISTIC`, so that OpenSpiel's
    deterministic-only algorithms (e.g. `alpha_beta_search`) accept them.
    """
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(parameters),
    )


class CoreState(pyspiel.State):
    """A pyspiel.State that holds only `self.core` and forwards the OpenSpiel hooks to it."""

    def __init__(self, game: CoreGame, core: Any = None):
        super().__init__(game)
        self.core = game.rules.initial_core() if core is None else core

    def current_player(self) -> int:
        """Current player id, CHANCE (-1) or TERMINAL (-4)."""
        return self.core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        """Sorted legal actions of `player` (empty unless it is their move)."""
        if player != self.core.current_player():
            return []
        return list(self.core.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs of the chance node, sorted by outcome."""
        if self.core.current_player() != CHANCE:
            raise ValueError(f"chance_outcomes() called at a non-chance node:\n{self.core}")
        return list(self.core.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        """Checks `action` against the legal moves or chance outcomes, then applies it."""
        core = self.core
        player = core.current_player()
        if player == TERMINAL:
            raise ValueError(f"action {action} applied to a terminal state:\n{core}")
        if player == CHANCE:
            legal = [outcome for outcome, _ in core.chance_outcomes()]
        else:
            legal = core.legal_actions()
        if action not in legal:
            kind = "chance outcome" if player == CHANCE else f"action for player {player}"
            raise ValueError(f"illegal {kind}: {action}; legal are {list(legal)} in state:\n{core}")
        core.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        """Readable name of `action` taken by `player` (CHANCE for outcomes); an id outside the
        game's range raises ValueError, as applying it would."""
        game = self.get_game()
        if player == CHANCE:
            bound, kind = game.max_chance_outcomes(), "chance outcome"
        elif 0 <= player < game.num_players():
            bound, kind = game.num_distinct_actions(), "action"
        else:
            raise ValueError(f"no player {player} in {game}")
        if not 0 <= action < bound:
            ids = f"ids are 0..{bound - 1}" if bound else f"it has no {kind}s"
            raise ValueError(f"{kind} {action} is not an id of {game} ({ids})")
        return self.core.action_to_string(player, action)

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        """Final utilities (zeros before the end)."""
        return list(self.core.returns())

    def __str__(self) -> str:
        return str(self.core)


class CoreGame(pyspiel.Game):
    """A pyspiel.Game built from a `Rules` class; subclasses set the class attributes below."""

    game_type: pyspiel.GameType
    state_class: type[CoreState] = CoreState
    rules_class: Callable[..., Any]
    # The numeric parameters' ranges (games.core.ParamBounds): `chancespiel games` lists them.
    bounds: Mapping[str, tuple[float, float]] = {}

    def __init__(self, params: Mapping[str, Any] | None = None):
        spec = self.game_type.parameter_specification
        unknown = sorted(set(params or {}) - set(spec))
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {unknown} for {self.game_type.short_name}; "
                f"known are {sorted(spec)}"
            )
        full = {**spec, **(params or {})}
        self.rules = self.rules_class(**full)
        super().__init__(self.game_type, self.rules.game_info(), full)

    def new_initial_state(self) -> CoreState:
        """A fresh initial state."""
        return self.state_class(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CoreObserver:
        """An observer of the full (public) state; OpenSpiel sometimes passes params first."""
        if isinstance(iig_obs_type, Mapping):
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"observation parameters are not supported; got {dict(params)}")
        return CoreObserver(self.rules)


class CoreObserver:
    """Observer that asks the rules for named tensor pieces and a string.

    The rules object provides `observation_pieces() -> [(name, shape)]`,
    `fill_observation(core, player, views: dict[str, np.ndarray])` and
    `observation_string(core, player) -> str`.
    """

    def __init__(self, rules: Any):
        self.rules = rules
        pieces: Sequence[tuple[str, tuple[int, ...]]] = rules.observation_pieces()
        sizes = [int(np.prod(shape)) for _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for (name, shape), size in zip(pieces, sizes, strict=True):
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def set_from(self, state: CoreState, player: int) -> None:
        """Fills `tensor` (and its named views in `dict`) from `state` as seen by `player`."""
        self.tensor.fill(0.0)
        self.rules.fill_observation(state.core, player, self.dict)

    def string_from(self, state: CoreState, player: int) -> str:
        """The observation of `state` by `player` as a string."""
        return self.rules.observation_string(state.core, player)


def replayed_core(game: pyspiel.Game, foreign: pyspiel.State) -> Any:
    """The core of our `game` after the history of `foreign`, a state of another
    implementation of the same game (equal move for move: actions and chance outcomes): how
    agents search OpenSpiel's own version of one of our games at our core's speed."""
    core = game.new_initial_state().core
    for action in foreign.history():
        core.apply(action)
    return core
