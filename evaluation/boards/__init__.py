"""Boards of the games drawn as SVG, for the annotation's page: one small module a game, each
with a `board(frame) -> str`, chosen by the class of the position's state; any other game
shows OpenSpiel's state string."""

from __future__ import annotations

from chancespiel.evaluation.boards.frame import Board, Frame

__all__ = ["Board", "Frame", "draw"]


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
