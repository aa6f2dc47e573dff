"""Ra: the Ra track, the auction track's tiles, the centre sun, and each player's suns, tiles
and fame."""

from __future__ import annotations

from chancespiel.evaluation.boards.frame import Frame
from chancespiel.evaluation.boards.svg import FAINT, PLAYER_COLOURS, circle, document, rect, text
from chancespiel.games.ra_core import (
    ART,
    ASTRONOMY,
    DROUGHT,
    EARTHQUAKE,
    FORTRESS,
    FUNERAL,
    KIND_NAMES,
    NUM_KINDS,
    OVER,
    RA,
    RA_PER_EPOCH,
    SPHINX,
    TRACK_SIZE,
    UNREST,
    RaCore,
)

WIDTH = 680  # the auction track: 8 tiles
CHIP_W, CHIP_H = 68, 22
SHORT = {"Step Pyramid": "Step Pyr.", "Earthquake": "Quake", "Agriculture": "Agricult."}


def _colour(kind: int) -> str:
    """A tile's colour by its family: Ra, god, gold, pharaoh, Nile and flood, civilizations,
    monuments, disasters."""
    if kind == RA:
        return "#e4572e"
    if ASTRONOMY <= kind <= ART:
        return "#8fc16b"
    if FORTRESS <= kind <= SPHINX:
        return "#c9a27e"
    if kind in (FUNERAL, DROUGHT, UNREST, EARTHQUAKE):
        return "#8a8a8a"
    return ("#f2c94c", "#ffd95a", "#b18cd9", "#6fa8dc", "#9fc5e8")[kind - 1]


def _chip(x: float, y: float, kind: int, count: int = 1) -> list[str]:
    name = SHORT.get(KIND_NAMES[kind], KIND_NAMES[kind])
    label = name if count == 1 else f"{name} \u00d7{count}"
    return [
        rect(x, y, CHIP_W, CHIP_H, _colour(kind), stroke="#666", rx=3),
        text(x + CHIP_W / 2, y + 15, label, 10),
    ]


def _sun(x: float, y: float, value: int, up: bool, highlight: bool = False) -> list[str]:
    fill = "#ffcf33" if up else "#d8d8d8"
    edge = "#c8402a" if highlight else "#a07800" if up else "#999"
    return [
        circle(x, y, 13, fill, stroke=edge, stroke_width=3 if highlight else 1.5),
        text(x, y + 5, value, 13, fill="#222" if up else "#777", font_weight="bold"),
    ]


def board(frame: Frame) -> str:
    """The position of `frame` (a RaCore)."""
    core = frame.state
    assert isinstance(core, RaCore)
    body: list[str] = []
    body.append(
        text(
            20,
            24,
            f"Ra: epoch {core.epoch} of {core.rules.epochs}, {core.bag_size} tiles in the bag",
            14,
            "start",
            font_weight="bold",
        )
    )
    body.append(text(20, 52, "Ra track", 12, "start", FAINT))
    for k in range(RA_PER_EPOCH):
        filled = k < core.ra_count
        body.append(
            rect(90 + 30 * k, 38, 26, 20, _colour(RA) if filled else "#fff", stroke="#999", rx=3)
        )
    body.append(text(300, 52, "centre sun", 12, "start", FAINT))
    body += _sun(390, 47, core.centre, True)
    body.append(text(20, 86, "auction", 12, "start", FAINT))
    for k in range(TRACK_SIZE):
        x = 90 + (CHIP_W + 4) * k
        if k < len(core.track):
            body += _chip(x, 72, core.track[k])
        else:
            body.append(rect(x, 72, CHIP_W, CHIP_H, "#fff", stroke="#ccc", rx=3))
    y = 110
    for p in (0, 1):
        colour = PLAYER_COLOURS[p]
        moving = p == core.to_move and core.phase != OVER
        body.append(
            rect(
                10, y, WIDTH - 20, 128, "#fff", stroke=colour, stroke_width=3 if moving else 1, rx=6
            )
        )
        body.append(text(22, y + 22, f"player {p}", 14, "start", colour, font_weight="bold"))
        body.append(text(110, y + 22, f"fame {core.fame[p]}", 14, "start", font_weight="bold"))
        x = 210
        for value in core.up[p]:
            bid = core.high_bidder == p and core.high_bid == value
            body += _sun(x, y + 17, value, True, bid)
            x += 30
        for value in core.down[p]:
            body += _sun(x, y + 17, value, False)
            x += 30
        held = [(k, core.tiles[p][k]) for k in range(NUM_KINDS) if core.tiles[p][k]]
        for n, (kind, count) in enumerate(held):
            row, column = divmod(n, 8)
            body += _chip(22 + (CHIP_W + 2) * column, y + 38 + (CHIP_H + 4) * row, kind, count)
        y += 138
    # the core's own lines on the auction, a disaster or the result, and who moves
    for n, status in enumerate(str(core).rstrip("\n").split("\n")[5:]):
        body.append(text(20, y + 14 + 18 * n, status, 13, "start"))
    height = y + 50
    body.insert(0, rect(0, 0, WIDTH, height, "#f5efe2", stroke="#ccc"))
    return document(WIDTH, height, body, f"Ra: fame {core.fame[0]} to {core.fame[1]}")
