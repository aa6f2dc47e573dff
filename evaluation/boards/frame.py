"""What a board draws: one position of an annotated game (its own module, so that the boards
and the package that chooses among them import it without importing each other)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chancespiel.games.core import Core


@dataclass(frozen=True)
class Frame:
    """A position to draw: the state (our core where the game has one, else the search
    protocol's adapter around OpenSpiel's state), the move played from it and the action
    that led to it (None and "" where there is none)."""

    state: Core
    move: int | None = None
    move_text: str = ""
    last: int | None = None
    last_text: str = ""


Board = Callable[[Frame], str]
