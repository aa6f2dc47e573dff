"""What chancespiel knows about each game: heuristics and a short description for listings.

Agents look heuristics up here by the game's short name, so a heuristic is available for every
game that registers one, ours or OpenSpiel's (through the search-protocol adapter).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

Heuristic = Callable[[Any, int], float]
"""h(state, player) -> value in [-1, 1] for `player`, exact (+1/-1/0) at terminal states."""


@dataclass(frozen=True)
class GameEntry:
    """A game chancespiel provides, for `chancespiel games` and the README table."""

    short_name: str
    description: str
    chance: str
    status: str


MoveOrdering = Callable[[Any, Sequence[int]], Sequence[int]]
"""ordering(state, legal_actions) -> the same actions, most promising first."""

_HEURISTICS: dict[str, Heuristic] = {}
_ORDERINGS: dict[str, MoveOrdering] = {}
GAMES: dict[str, GameEntry] = {}


def register_heuristic(short_name: str, heuristic: Heuristic) -> None:
    """Makes `heuristic` the evaluation agents use on the game `short_name`."""
    _HEURISTICS[short_name] = heuristic


def heuristic_for(game: pyspiel.Game | str) -> Heuristic:
    """The registered heuristic of `game` (a pyspiel.Game or a short name).

    Raises:
      KeyError: if no heuristic is registered for the game.
    """
    name = game if isinstance(game, str) else game.get_type().short_name
    try:
        return _HEURISTICS[name]
    except KeyError:
        raise KeyError(
            f"no heuristic registered for game {name!r}; known: {sorted(_HEURISTICS)}"
        ) from None


def has_heuristic(game: pyspiel.Game | str) -> bool:
    """True if a heuristic is registered for `game`."""
    name = game if isinstance(game, str) else game.get_type().short_name
    return name in _HEURISTICS


def _zero_heuristic(state: Any, player: int) -> float:
    """0 (the midpoint of a zero-sum game) everywhere but at terminal states."""
    return state.returns()[player] if state.is_terminal() else 0.0


def evaluation_for(game: pyspiel.Game) -> Heuristic:
    """The registered heuristic of `game`, or 0 at non-terminal states if it has none."""
    return _HEURISTICS.get(game.get_type().short_name, _zero_heuristic)


def register_move_ordering(short_name: str, ordering: MoveOrdering) -> None:
    """Makes `ordering` the static move ordering search agents use on `short_name`."""
    _ORDERINGS[short_name] = ordering


def move_ordering_for(game: pyspiel.Game) -> MoveOrdering | None:
    """The registered static move ordering of `game`, if any."""
    return _ORDERINGS.get(game.get_type().short_name)


def register_entry(entry: GameEntry) -> None:
    """Lists a game in `chancespiel games`."""
    GAMES[entry.short_name] = entry
