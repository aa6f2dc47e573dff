"""Boards of the games drawn as SVG, for the annotation's page: one small module a game, each
with a `board(frame) -> str`, chosen by the class of the position's state; any other game
shows OpenSpiel's state string."""

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


def _boards() -> list[tuple[type, Board]]:
    from chancespiel.evaluation.boards import cant_stop, einstein, pig, ra
    from chancespiel.games.cant_stop_core import CantStopCore
    from chancespiel.games.einstein_core import EinsteinCore
    from chancespiel.games.pig_core import PigCore
    from chancespiel.games.ra_core import RaCore

    return [
        (PigCore, pig.board),
        (EinsteinCore, einstein.board),
        (CantStopCore, cant_stop.board),
        (RaCore, ra.board),
    ]


def draw(frame: Frame) -> str:
    """The SVG picture of a position: its game's board, or its state string."""
    from chancespiel.evaluation.boards.svg import text_picture

    for kind, board in _boards():
        if isinstance(frame.state, kind):
            return board(frame)
    return text_picture(str(frame.state), "the state")
