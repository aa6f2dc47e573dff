"""Small SVG builders shared by the boards: each returns one element as text, escaped."""

from __future__ import annotations

from html import escape

# The players' colours on every board and in the chart (the page's CSS uses the same).
PLAYER_COLOURS = ("#1f6fb4", "#c8402a")
INK = "#222"
FAINT = "#999"
PIPS: dict[int, tuple[tuple[float, float], ...]] = {  # on a unit die
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)),
}


def _attrs(attrs: dict[str, object]) -> str:
    return "".join(
        f' {k.rstrip("_").replace("_", "-")}="{escape(str(v))}"'
        for k, v in attrs.items()
        if v is not None
    )


def document(width: float, height: float, body: list[str], label: str) -> str:
    """A whole SVG picture of `width` x `height` user units, described by `label`."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
        f'width="{width:g}" height="{height:g}" role="img" aria-label="{escape(label)}" '
        'font-family="sans-serif">' + "".join(body) + "</svg>"
    )


def rect(x: float, y: float, w: float, h: float, fill: str, **attrs: object) -> str:
    """A rectangle (attrs: stroke, rx, opacity, ... with _ for -)."""
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}"{_attrs(attrs)}/>'


def boxes(rects: list[tuple[float, float, float, float]], fill: str, **attrs: object) -> str:
    """Rectangles (x, y, width, height) of one style as a single path: a fraction of the text
    of as many rect elements."""
    d = "".join(f"M{x:g} {y:g}h{w:g}v{h:g}h{-w:g}z" for x, y, w, h in rects)
    return f'<path d="{d}" fill="{fill}"{_attrs(attrs)}/>'


def circle(cx: float, cy: float, r: float, fill: str, **attrs: object) -> str:
    """A circle."""
    return f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{fill}"{_attrs(attrs)}/>'


def line(x1: float, y1: float, x2: float, y2: float, stroke: str, **attrs: object) -> str:
    """A line."""
    return (
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}"{_attrs(attrs)}/>'
    )


def text(
    x: float,
    y: float,
    content: object,
    size: float = 12,
    anchor: str = "middle",
    fill: str = INK,
    **attrs: object,
) -> str:
    """Text whose baseline starts, centres or ends (`anchor`) at (x, y)."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" '
        f'fill="{fill}"{_attrs(attrs)}>{escape(str(content))}</text>'
    )


def die(x: float, y: float, size: float, face: int | None, edge: str = INK) -> list[str]:
    """A die at (x, y): pips for faces 1 to 6, the number for others, '?' for None (about to
    be rolled)."""
    out = [rect(x, y, size, size, "#fff", stroke=edge, stroke_width=2, rx=size / 6)]
    if face in PIPS:
        out += [circle(x + u * size, y + v * size, size / 11, INK) for u, v in PIPS[face]]
    else:
        label = "?" if face is None else face
        out.append(text(x + size / 2, y + size * 0.68, label, size * 0.55, fill=edge))
    return out


def text_picture(content: str, label: str) -> str:
    """A state that has no board of its own, as its text in a fixed-width font."""
    lines = content.rstrip("\n").split("\n") or [""]
    width = 16 + 7.3 * max(len(s) for s in lines)
    body = [rect(0, 0, width, 16 + 16 * len(lines), "#fbfbf8", stroke="#ccc")]
    body += [
        text(
            8, 20 + 16 * i, s, 12, anchor="start", font_family="monospace", style="white-space:pre"
        )
        for i, s in enumerate(lines)
    ]
    return document(width, 16 + 16 * len(lines), body, label)
