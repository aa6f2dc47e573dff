"""The search protocol (games.core.Core), and an adapter that gives it to any pyspiel.State.

Our game cores implement the protocol natively; `PyspielAdapter` wraps any other state
(OpenSpiel's C++ `pig`, `einstein_wurfelt_nicht`, `backgammon`, or a foreign Python game) so
every agent runs on every OpenSpiel game with chance. `search_state` picks the right one.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from chancespiel.games.contract import Contract, moves_made
from chancespiel.games.core import CHANCE, TERMINAL, Core
from chancespiel.games.registry import has_trusted_core, read_core


class PyspielAdapter(Core):
    """The search protocol over a pyspiel.State (each call crosses into C++), checked against
    the game's contract (games.contract) at every node: a foreign game's fault is a
    GameContractError naming it, never a search that returns nonsense or does not end."""

    __slots__ = ("chances", "contract", "decisions", "state")

    def __init__(
        self,
        state: pyspiel.State,
        contract: Contract | None = None,
        moves: tuple[int, int] | None = None,
    ):
        """`contract` and `moves` (decision and chance moves so far) are the parent's for a
        child; a root reads them from its game and history."""
        self.state = state
        self.contract = Contract.of(state.get_game()) if contract is None else contract
        self.decisions, self.chances = moves_made(state) if moves is None else moves

    def current_player(self) -> int:
        """As pyspiel: player id, CHANCE or TERMINAL."""
        try:
            player = self.state.current_player()
        except Exception as e:
            raise self.contract.raised(e, "current_player", self.state) from None
        if not (0 <= player < self.contract.players or player in (CHANCE, TERMINAL)):
            self.contract.player(player, player == TERMINAL, self.state)  # raises
        return player

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move (at least one)."""
        try:
            actions = self.state.legal_actions()
        except Exception as e:
            raise self.contract.raised(e, "legal_actions", self.state) from None
        if not actions and self.current_player() >= 0:
            self.contract.actions(actions, self.state, distinct=False)  # raises
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node."""
        try:
            outcomes = self.state.chance_outcomes()
        except Exception as e:
            raise self.contract.raised(e, "chance_outcomes", self.state) from None
        self.contract.outcomes(outcomes, self.state)
        return outcomes

    def _counted(self) -> tuple[int, int]:
        """The moves made after one more move here, checked against the game's bounds."""
        if self.current_player() == CHANCE:
            moves = (self.decisions, self.chances + 1)
        else:
            moves = (self.decisions + 1, self.chances)
        self.contract.length(moves[0], moves[1], self.state)
        return moves

    def apply(self, action: int) -> None:
        """Applies `action` in place."""
        moves = self._counted()
        try:
            self.state.apply_action(action)
        except Exception as e:
            raise self.contract.raised(e, "apply_action", self.state) from None
        self.decisions, self.chances = moves

    def has_state_key(self) -> bool:
        """False: the wrapped pyspiel state is the only field, and its hash is its identity."""
        return False

    def clone(self) -> PyspielAdapter:
        """An independent copy."""
        try:
            state = self.state.clone()
        except Exception as e:
            raise self.contract.raised(e, "clone", self.state) from None
        return PyspielAdapter(state, self.contract, (self.decisions, self.chances))

    def child(self, action: int) -> PyspielAdapter:
        """A copy with `action` applied."""
        moves = self._counted()
        try:
            state = self.state.child(action)
        except Exception as e:
            raise self.contract.raised(e, "child", self.state) from None
        return PyspielAdapter(state, self.contract, moves)

    def is_terminal(self) -> bool:
        """True at the end of the game."""
        return self.current_player() == TERMINAL

    def returns(self) -> list[float]:
        """Utilities of both players."""
        try:
            values = self.state.returns()
        except Exception as e:
            raise self.contract.raised(e, "returns", self.state) from None
        if self.current_player() == TERMINAL:
            return self.contract.final_returns(values, self.state)
        return self.contract.returns(values, self.state)

    def action_to_string(self, player: int, action: int) -> str:
        """Readable action name."""
        return self.state.action_to_string(player, action)

    def __str__(self) -> str:
        return str(self.state)


def is_ours(core: Any) -> bool:
    """True for a core of chancespiel's own games, tested against oracles and searched
    unchecked; a plugin's core is searched through the checked adapter instead, unless its
    game declares it trusted (GameSpec.trusted_core)."""
    return type(core).__module__.startswith("chancespiel.games.")


def search_state(state: Any) -> Core:
    """A private copy of `state` to search on: the native core of one of our games, or one of
    our cores read from a foreign state whose game equals ours (OpenSpiel's
    einstein_wurfelt_nicht), else the adapter, which checks the game at every node."""
    core = getattr(state, "core", None)
    if core is not None and (
        is_ours(core)
        or not isinstance(state, pyspiel.State)
        or has_trusted_core(state.get_game().get_type().short_name)
    ):
        return core.clone()
    if isinstance(state, pyspiel.State):
        core = read_core(state)
        return PyspielAdapter(state.clone()) if core is None else core
    return state.clone()  # already a search state
