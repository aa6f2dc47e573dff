"""What the synthetic trees share (python_chance_tree, python_pgame, python_implanted_tree): a
node named by the 64-bit key of its path (games.tree_hash), with the plies made and the player
to move, worth `value()` for player 0 at its leaves; and an observation of plies and mover.
"""

from __future__ import annotations

from typing import Any, Self

from chancespiel.games.core import TERMINAL, Core, SharedRules


class KeyedTreeRules(SharedRules):
    """Parameters every synthetic tree has: the root's key and the depth in decision plies."""

    root_key: int
    depth: int

    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Plies made and player to move."""
        return [("plies", (self.depth + 1,)), ("player", (2,))]

    def fill_observation(self, core: KeyedTreeCore, player: int, views: dict[str, Any]) -> None:
        """One-hot plies made and player to move."""
        views["plies"][core.plies] = 1.0
        if core.player >= 0:
            views["player"][core.player] = 1.0

    def observation_string(self, core: KeyedTreeCore, player: int) -> str:
        """The full state."""
        return str(core)


class KeyedTreeCore(Core):
    """A node: its path key, plies made and player to move (0, 1, CHANCE or TERMINAL).

    Subclasses add their own fields (in `__slots__`, copied by extending `clone`), decide the
    mover in `apply`, and define `value()`, player 0's return at a leaf.
    """

    __slots__ = ("key", "player", "plies", "rules")

    def __init__(self, rules: KeyedTreeRules):
        self.rules = rules
        self.key = rules.root_key
        self.plies = 0
        self.player = 0

    def clone(self) -> Self:
        """A copy of the shared fields; a subclass copies its own after calling this."""
        c = self.__class__.__new__(self.__class__)
        c.rules, c.key, c.plies, c.player = self.rules, self.key, self.plies, self.player
        return c

    def current_player(self) -> int:
        """The node's mover: 0, 1, CHANCE or TERMINAL."""
        return self.player

    def is_terminal(self) -> bool:
        """True at a leaf."""
        return self.player == TERMINAL

    def value(self) -> float:
        """Player 0's return at a leaf."""
        raise NotImplementedError

    def returns(self) -> tuple[float, float]:
        """(value, -value) at a leaf, zeros before."""
        if self.player != TERMINAL:
            return (0.0, 0.0)
        v = self.value()
        return (v, -v)
