"""The annotation's page: one self-contained HTML file (inline SVG, CSS and script, nothing
fetched) to step through an annotated game: its board at every position (evaluation.boards),
the moves with their errors and the draws with their luck, and a chart of both.

The page is `page.html` with four parts filled in: the title, the header (players and their
sums), the chart (SVG) and the data the script reads (every position's board as SVG, and the
steps of the annotation)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from pathlib import Path

from chancespiel.agents.protocol import search_state
from chancespiel.evaluation.annotate import (
    FLAGS,
    Annotation,
    Reference,
    Step,
    describe_reference,
    fixed,
)
from chancespiel.evaluation.boards import Frame, draw
from chancespiel.evaluation.boards.svg import PLAYER_COLOURS, document, line, rect, text
from chancespiel.evaluation.match import Record, load_game_cached
from chancespiel.evaluation.usage import write_text

TEMPLATE = Path(__file__).with_name("page.html")
LUCK_COLOUR = "#e0a100"
FLAG_COLOURS = {"doubtful": "#b58900", "bad": "#d35400", "blunder": "#c0392b"}


def boards(game_string: str, history: Sequence[int]) -> list[str]:
    """The board of every position of a game as SVG: before each action, then the last."""
    game = load_game_cached(game_string)
    state = search_state(game.new_initial_state())
    pictures = []
    last: int | None = None
    last_text = ""
    for action in history:
        player = state.current_player()
        name = state.action_to_string(player, action)
        pictures.append(draw(Frame(state.clone(), action, name, last, last_text)))
        state.apply(action)
        last, last_text = action, name
    pictures.append(draw(Frame(state, None, "", last, last_text)))
    return pictures


def _for_player_0(step: Step) -> float:
    """What a step did to player 0's expected score, luck and errors apart."""
    if not step.decision:
        return step.luck
    return -step.error if step.player == 0 else step.error


def chart(annotation: Annotation) -> str:
    """Player 0's expected score along the game (the line), and each step's luck (gold) and
    errors (in the mover's colour) as bars: up is good for player 0. A column per position,
    clickable; the script moves the cursor."""
    steps = annotation.steps
    width, margin, top, band, gap = 900.0, 40.0, 14.0, 90.0, 26.0
    columns = len(steps) + 1
    dx = (width - 2 * margin) / columns
    axis = top + band + gap + band / 2
    bars = [_for_player_0(s) for s in steps]
    scale = max([0.05, *map(abs, bars)])
    body = [rect(0, 0, width, top + 2 * band + gap + 18, "#fff")]
    body.append(rect(margin, top, width - 2 * margin, band, "#f7f7f7"))
    body.append(rect(margin, top + band + gap, width - 2 * margin, band, "#f7f7f7"))
    body.append(
        line(margin, top + band / 2, width - margin, top + band / 2, "#bbb", stroke_dasharray="4 3")
    )
    body.append(line(margin, axis, width - margin, axis, "#999"))
    body.append(text(margin - 4, top + 8, "1", 10, "end"))
    body.append(text(margin - 4, top + band, "0", 10, "end"))
    body.append(text(margin + 4, top + 11, "player 0's expected score", 11, "start", "#555"))
    body.append(
        text(
            margin + 4,
            top + band + gap - 6,
            f"luck and errors (\u00b1{scale:.2f})",
            11,
            "start",
            "#555",
        )
    )
    for i, (step, value) in enumerate(zip(steps, bars, strict=True)):
        height = band / 2 * abs(value) / scale
        colour = LUCK_COLOUR if not step.decision else PLAYER_COLOURS[step.player]
        x = margin + i * dx + dx * 0.1
        y = axis - height if value > 0 else axis
        if height > 0:
            body.append(rect(x, y, dx * 0.8, max(height, 0.5), colour))
        if step.flag:
            tip = axis - height - 4 if value > 0 else axis + height + 4
            body.append(
                f'<circle cx="{x + dx * 0.4:g}" cy="{tip:g}" r="{max(2.0, min(4.0, dx / 2)):g}" '
                f'fill="{FLAG_COLOURS[step.flag]}"/>'
            )
    values = [s.value for s in steps] + [annotation.players[0].final]
    points = " ".join(
        f"{margin + (i + 0.5) * dx:.1f},{top + (1.0 - v) * band:.1f}" for i, v in enumerate(values)
    )
    body.append(
        f'<polyline points="{points}" fill="none" stroke="{PLAYER_COLOURS[0]}" stroke-width="1.8"/>'
    )
    height = top + 2 * band + gap + 18
    body.append(
        f'<rect id="cursor" x="{margin:g}" y="2" width="{dx:g}" height="{height - 4:g}" '
        f'fill="#000" fill-opacity="0.12" data-x0="{margin:g}" data-dx="{dx:g}"/>'
    )
    body += [
        f'<rect class="col" data-step="{i}" x="{margin + i * dx:g}" y="0" width="{dx:g}" '
        f'height="{height:g}" fill="#000" fill-opacity="0"/>'
        for i in range(columns)
    ]
    return document(width, height, body, "luck and errors along the game")


def _ending(annotation: Annotation) -> tuple[str, str]:
    """How the game ended: in a sentence, and in a few words."""
    returns = annotation.returns
    if not annotation.ended:
        return f"The game did not end: {annotation.error or 'the record stops here'}.", "stopped"
    if returns is None or returns[0] == returns[1]:
        return "The game ends in a draw.", "draw"
    winner = 0 if returns[0] > returns[1] else 1
    return f"Player {winner} ({annotation.seats[winner]}) wins.", f"player {winner} wins"


def header(annotation: Annotation, reference: Reference) -> str:
    """The title, the reference and both players' sums, as HTML."""
    a = annotation
    rows = []
    for p in a.players:
        flags = " / ".join(str(p.flags[name]) for name in FLAGS)
        cells = [
            p.final,
            p.initial,
            p.luck,
            p.errors,
            p.opponent_errors,
            p.residual,
            p.adjusted,
        ]
        numbers = "".join(f"<td>{fixed(value)}</td>" for value in cells)
        rows.append(
            f'<tr class="p{p.player}"><td>player {p.player} ({escape(p.agent)})</td>{numbers}'
            f"<td>{p.decisions}</td><td>{flags}</td></tr>"
        )
    result = "result" if a.ended else "final value"
    return (
        f"<h1>{escape(a.game)}: player 0 {escape(a.seats[0])} against player 1 "
        f"{escape(a.seats[1])}</h1>\n"
        f'<p class="sub">match {a.match}, game {a.game_index} (seed {a.seed}). Reference: '
        f"{escape(describe_reference(reference))}. Values are expected scores (the win "
        "probability where there are no draws); an error is the best move's value minus the "
        "move played's, luck the value after a draw minus its mean over the outcomes.</p>\n"
        f'<table class="totals"><tr><th></th><th>{result}</th><th>= initial</th>'
        "<th>+ luck</th><th>\u2212 own errors</th><th>+ opponent's errors</th>"
        "<th>+ residual</th><th>luck-adjusted</th><th>decisions</th>"
        f"<th>{' / '.join(FLAGS)}</th></tr>\n" + "\n".join(rows) + "</table>"
    )


def page(record: Record, annotation: Annotation, reference: Reference) -> str:
    """The whole page of an annotated record."""
    data = {
        "frames": boards(record["game"], record["history"]),
        "steps": annotation.as_dict()["steps"],
        "seats": list(annotation.seats),
    }
    data["ending"], data["outcome"] = _ending(annotation)
    # "<" escaped inside the script: no "</script>" or "<!--" can end or confuse it
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    parts = {
        "<!--TITLE-->": escape(f"{annotation.game}: {' vs '.join(annotation.seats)}"),
        "<!--HEADER-->": header(annotation, reference),
        "<!--CHART-->": chart(annotation),
        "/*DATA*/": blob,
    }
    html = TEMPLATE.read_text(encoding="utf-8")
    for marker, content in parts.items():
        html = html.replace(marker, content, 1)
    return html


def write_page(
    path: str | Path, record: Record, annotation: Annotation, reference: Reference
) -> None:
    """Writes the page of an annotated record to `path` (a UsageError if it cannot)."""
    write_text(path, page(record, annotation, reference))
