"""The search protocol (the methods of `games.core.Core`), and an adapter that gives it to any
pyspiel.State.

Our game cores implement the protocol natively; `PyspielAdapter` wraps any other state
(OpenSpiel's C++ `pig`, `einstein_wurfelt_nicht`, `backgammon`, or a foreign Python game) so
every agent runs on every OpenSpiel game with chance. `search_state` picks the right one.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from chancespiel.games.core import Core
from chancespiel.games.registry import read_core


class PyspielAdapter(Core):
    """The search protocol over a pyspiel.State (each call crosses into C++): a `Core`, so
    that every search, compiled or not, takes it where it takes our cores."""

    __slots__ = ("state",)

    def __init__(self, state: pyspiel.State):
        self.state = state

    def current_player(self) -> int:
        """As pyspiel: player id, CHANCE or TERMINAL."""
        return self.state.current_player()

    def legal_actions(self) -> list[int]:
        """Legal actions of the player to move."""
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node."""
        return self.state.chance_outcomes()

    def apply(self, action: int) -> None:
        """Applies `action` in place."""
        self.state.apply_action(action)

    def has_state_key(self) -> bool:
        """False: the wrapped pyspiel state is the only field, and its hash is its identity."""
        return False

    def clone(self) -> PyspielAdapter:
        """An independent copy."""
        return PyspielAdapter(self.state.clone())

    def child(self, action: int) -> PyspielAdapter:
        """A copy with `action` applied."""
        return PyspielAdapter(self.state.child(action))

    def is_terminal(self) -> bool:
        """True at the end of the game."""
        return self.state.is_terminal()

    def returns(self) -> list[float]:
        """Utilities of both players."""
        return self.state.returns()

    def action_to_string(self, player: int, action: int) -> str:
        """Readable action name."""
        return self.state.action_to_string(player, action)

    def __str__(self) -> str:
        return str(self.state)


def search_state(state: Any) -> Core:
    """A private copy of `state` to search on: the native core when it has one, or one of our
    cores read from a foreign state whose game equals ours (OpenSpiel's einstein_wurfelt_nicht),
    else an adapter."""
    core = getattr(state, "core", None)
    if core is not None:
        return core.clone()
    if isinstance(state, pyspiel.State):
        core = read_core(state)
        return PyspielAdapter(state.clone()) if core is None else core
    return state.clone()  # already a search state
