"""EinStein wurfelt nicht!: the 5x5 board with the numbered cubes, the die, and the move played
from the position as an arrow."""

from __future__ import annotations

from chancespiel.evaluation.boards.frame import Frame
from chancespiel.evaluation.boards.svg import (
    INK,
    PLAYER_COLOURS,
    die,
    document,
    line,
    rect,
    text,
)
from chancespiel.games.core import CHANCE
from chancespiel.games.einstein_core import _PLAY, SIZE, EinsteinCore

CELL = 56
TOP = 34
LEFT = 20
WIDTH, HEIGHT = LEFT + SIZE * CELL + 130, TOP + SIZE * CELL + 40
CUBE_FILL = ("#2b2b2b", "#fbfbfb")  # Black's cubes, White's
CUBE_TEXT = ("#fff", "#222")
NAMES = ("Black", "White")


def _centre(cell: int) -> tuple[float, float]:
    row, column = divmod(cell, SIZE)
    return LEFT + column * CELL + CELL / 2, TOP + row * CELL + CELL / 2


def board(frame: Frame) -> str:
    """The position of `frame` (an EinsteinCore); Black (player 0) starts top left."""
    core = frame.state
    assert isinstance(core, EinsteinCore)
    cells = core.board[: SIZE * SIZE]
    body = [rect(0, 0, WIDTH, HEIGHT, "#f3efe4", stroke="#ccc")]
    body.append(
        text(LEFT + SIZE * CELL / 2, 22, "EinStein w\u00fcrfelt nicht!", 14, font_weight="bold")
    )
    for cell in range(SIZE * SIZE):
        row, column = divmod(cell, SIZE)
        # each side's goal corner, tinted in its colour: Black aims bottom right, White top left
        tint = {SIZE * SIZE - 1: PLAYER_COLOURS[0], 0: PLAYER_COLOURS[1]}.get(cell)
        body.append(
            rect(
                LEFT + column * CELL,
                TOP + row * CELL,
                CELL,
                CELL,
                "#e9dfc8" if (row + column) % 2 else "#f6efdc",
                stroke="#b9a98a",
            )
        )
        if tint:
            body.append(
                rect(
                    LEFT + column * CELL + 3,
                    TOP + row * CELL + 3,
                    CELL - 6,
                    CELL - 6,
                    "none",
                    stroke=tint,
                    stroke_width=3,
                    stroke_dasharray="6 4",
                )
            )
    for cell, code in enumerate(cells):
        if code:
            side, number = divmod(code - 1, 6)
            x, y = _centre(cell)
            body.append(
                rect(
                    x - 20,
                    y - 20,
                    40,
                    40,
                    CUBE_FILL[side],
                    stroke=PLAYER_COLOURS[side],
                    stroke_width=3,
                    rx=6,
                )
            )
            body.append(text(x, y + 8, number + 1, 22, fill=CUBE_TEXT[side], font_weight="bold"))
    arrow = _move_arrow(frame)
    if arrow is not None:
        (x1, y1), (x2, y2) = arrow
        body.append(
            line(x1, y1, x2, y2, "#e0a100", stroke_width=5, stroke_linecap="round", opacity=0.85)
        )
        body.append(rect(x2 - 5, y2 - 5, 10, 10, "#e0a100"))
    side_x = LEFT + SIZE * CELL + 20
    status = core.status()
    if core.winner < 0 and core.die:
        body += die(side_x + 20, TOP + 20, 50, core.die)
        body.append(text(side_x + 45, TOP + 95, f"{NAMES[core.player]} moves", 12))
    elif core.winner < 0 and core.stage == _PLAY and core.current_player() == CHANCE:
        body += die(side_x + 20, TOP + 20, 50, None)
        body.append(text(side_x + 45, TOP + 95, f"{NAMES[1 - core.player]} rolls", 12))
    body.append(text(LEFT, HEIGHT - 14, status, 13, "start", INK))
    return document(WIDTH, HEIGHT, body, f"EinStein: {status}")


def _move_arrow(frame: Frame) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """From the cell the moved cube leaves to the cell it reaches, for a move of play."""
    core = frame.state
    assert isinstance(core, EinsteinCore)
    if frame.move is None or core.current_player() < 0 or core.stage != _PLAY:
        return None
    after = core.clone()
    after.apply(frame.move)
    before_cells, after_cells = core.board[: SIZE * SIZE], after.board[: SIZE * SIZE]
    left = [c for c in range(SIZE * SIZE) if before_cells[c] and not after_cells[c]]
    moved = [c for c in range(SIZE * SIZE) if after_cells[c] and after_cells[c] != before_cells[c]]
    if len(left) != 1 or len(moved) != 1:
        return None
    return _centre(left[0]), _centre(moved[0])
