"""Pig: both banked scores as bars toward the goal, the turn total on the mover's bar, and the
dice of the last roll."""

from __future__ import annotations

import re

from chancespiel.evaluation.boards.frame import Frame
from chancespiel.evaluation.boards.svg import FAINT, PLAYER_COLOURS, die, document, rect, text
from chancespiel.games.pig_core import PigCore

WIDTH, HEIGHT = 440, 230
BAR_X, BAR_W = 90, 280


def board(frame: Frame) -> str:
    """The position of `frame` (a PigCore)."""
    core = frame.state
    assert isinstance(core, PigCore)
    goal = int(core.rules.winscore)  # (the rules keep an i64, which has no true division)
    mover = core.turn_player
    body = [rect(0, 0, WIDTH, HEIGHT, "#f7f5ee", stroke="#ccc")]
    body.append(text(WIDTH / 2, 22, f"Pig to {goal}", 14, font_weight="bold"))
    for p in (0, 1):
        y = 44 + 48 * p
        colour = PLAYER_COLOURS[p]
        playing = p == mover and not core.over
        body.append(text(BAR_X - 10, y + 17, f"player {p}", 13, "end", colour, font_weight="bold"))
        if playing:
            body.append(text(14, y + 17, "\u25b6", 14, "middle", colour))  # whose turn
        body.append(rect(BAR_X, y, BAR_W, 24, "#fff", stroke="#bbb"))
        banked = min(core.scores[p], goal)
        body.append(rect(BAR_X, y, BAR_W * banked / goal, 24, colour))
        label = str(core.scores[p])
        if playing and core.turn_total:
            pending = min(core.turn_total, goal - banked)
            body.append(
                rect(
                    BAR_X + BAR_W * banked / goal,
                    y,
                    BAR_W * pending / goal,
                    24,
                    colour,
                    opacity=0.35,
                )
            )
            label += f" + {core.turn_total}"
        body.append(text(BAR_X + BAR_W + 8, y + 17, label, 13, "start"))
    dice_y = 148
    if core.rolling:  # a chance node: the dice are in the air
        faces: list[int | None] = [None] * core.rules.dice
        caption = f"player {mover} rolls"
    elif frame.last_text.startswith("Roll"):
        faces = [int(d) for d in re.findall(r"\d+", frame.last_text)]
        caption = f"rolled {'+'.join(map(str, faces))}"
    else:
        faces, caption = [], ""
    for i, face in enumerate(faces):
        body += die(20 + 52 * i, dice_y, 42, face)
    body.append(text(30 + 52 * max(len(faces), 1), dice_y + 26, caption, 13, "start", FAINT))
    if core.over:
        winner = 0 if core.scores[0] >= goal else 1
        status = f"player {winner} wins"
    elif core.rolling:
        status = f"turn total {core.turn_total}"
    else:
        status = f"player {mover} to move: roll or stop (turn total {core.turn_total})"
    body.append(text(WIDTH / 2, HEIGHT - 16, status, 14, fill=PLAYER_COLOURS[mover]))
    return document(WIDTH, HEIGHT, body, f"Pig: {core.scores[0]} to {core.scores[1]}")
