"""Can't Stop: the columns with each player's markers and the turn's runners, the four dice and
the pairing chosen."""

from __future__ import annotations

import itertools
import re

from chancespiel.evaluation.boards.frame import Frame
from chancespiel.evaluation.boards.svg import (
    FAINT,
    INK,
    PLAYER_COLOURS,
    boxes,
    circle,
    die,
    document,
    rect,
    text,
)
from chancespiel.games.cant_stop_core import CHOOSING, DECIDING, PASSING, CantStopCore

COLUMN, CELL = 34, 20
LEFT, TOP = 20, 40
PAIR_COLOURS = ("#e0a100", "#7a3db8")  # the edges of the two pairs of dice


def board(frame: Frame) -> str:
    """The position of `frame` (a CantStopCore)."""
    core = frame.state
    assert isinstance(core, CantStopCore)
    rules = core.rules
    heights = rules.heights
    squares, runners = core.squares, core.runners
    tall = max(heights)
    width = LEFT * 2 + COLUMN * len(heights)
    base = TOP + tall * CELL  # the bottom of every column
    height = base + 150
    mover = core.player
    body = [rect(0, 0, width, height, "#f4f1ea", stroke="#ccc")]
    won = core.won
    body.append(
        text(
            width / 2,
            24,
            f"Can't Stop: columns won {won[0]} to {won[1]} (first to {rules.columns_to_win})",
            14,
            font_weight="bold",
        )
    )
    cells: dict[int | None, list[tuple[float, float, float, float]]] = {}  # by owner
    for i, h in enumerate(heights):
        x = LEFT + COLUMN * i
        owner = next((p for p in (0, 1) if squares[p][i] >= h), None)
        cells.setdefault(owner, []).extend(
            (x + 3, base - k * CELL, COLUMN - 6, CELL - 2) for k in range(1, h + 1)
        )
    # one path per colour: a page holds a board per position, and a rect per cell triples it
    for owner, boxes_of in cells.items():
        fill = "#fff" if owner is None else PLAYER_COLOURS[owner]
        body.append(boxes(boxes_of, fill, stroke="#bbb", fill_opacity=1 if owner is None else 0.45))
    for i, h in enumerate(heights):
        x = LEFT + COLUMN * i
        owner = next((p for p in (0, 1) if squares[p][i] >= h), None)
        body.append(text(x + COLUMN / 2, base + 16, i + 2, 13, font_weight="bold"))
        for p in (0, 1):
            if squares[p][i] and owner is None:
                centre = base - squares[p][i] * CELL + CELL / 2 - 1
                body.append(circle(x + COLUMN / 2 + (p * 2 - 1) * 7, centre, 6, PLAYER_COLOURS[p]))
        if runners[i]:
            y = base - runners[i] * CELL
            body.append(
                f'<polygon points="{x + COLUMN / 2:g},{y + 1:g} {x + 7:g},{y + CELL - 3:g} '
                f'{x + COLUMN - 7:g},{y + CELL - 3:g}" fill="#fff" '
                f'stroke="{PLAYER_COLOURS[mover]}" stroke-width="2.5"/>'
            )
    body += _dice(frame, base + 32)
    phase = ("to roll", "to choose a pairing", "to roll again or stop", "bust: passes")
    status = (
        f"player {core.winner} wins"
        if core.winner >= 0
        else f"player {mover} {phase[core.phase]} ({core.nrun} of 3 runners out)"
    )
    body.append(text(LEFT, height - 14, status, 13, "start", PLAYER_COLOURS[mover]))
    return document(width, height, body, f"Can't Stop: {status}")


def _dice(frame: Frame, y: float) -> list[str]:
    """The roll being used (with the chosen pairing's pairs edged in colour), dice in the air
    at a chance node, nothing while the player decides to roll again or stop."""
    core = frame.state
    assert isinstance(core, CantStopCore)
    rules = core.rules
    if core.winner >= 0:
        return []
    if core.phase == DECIDING:
        return [text(LEFT, y + 28, "roll again or stop?", 13, "start", FAINT)]
    if core.roll < 0:  # a chance node
        out = [part for k in range(4) for part in die(LEFT + 46 * k, y, 38, None)]
        return [*out, text(LEFT + 190, y + 24, "rolling", 13, "start", FAINT)]
    faces = [int(d) for d in re.findall(r"\d+", rules.roll_names[core.roll])]
    edges = [INK] * len(faces)
    caption = "bust: no sum can be used" if core.phase == PASSING else ""
    if core.phase == CHOOSING and frame.move is not None:
        sums = [c + 2 for c in rules.action_columns[frame.move]]
        pairing = _pairing(faces, sums)
        for colour, pair in zip(PAIR_COLOURS, pairing, strict=False):
            for k in pair:
                edges[k] = colour
        caption = frame.move_text
    out = [
        part for k, face in enumerate(faces) for part in die(LEFT + 46 * k, y, 38, face, edges[k])
    ]
    return [*out, text(LEFT + 190, y + 24, caption, 13, "start")]


def _pairing(faces: list[int], sums: list[int]) -> list[tuple[int, ...]]:
    """The pairs of dice (indices) whose sums the move uses: both pairs for two sums, the pair
    used for one sum (its partner pair's sum could not be used)."""
    for first in itertools.combinations(range(len(faces)), 2):
        second = tuple(k for k in range(len(faces)) if k not in first)
        pair_sums = [sum(faces[k] for k in first), sum(faces[k] for k in second)]
        if len(sums) == 2 and sorted(pair_sums) == sorted(sums):
            return [first, second] if pair_sums[0] == sums[0] else [second, first]
        if len(sums) == 1 and pair_sums[0] == sums[0]:
            return [first]
    return []
