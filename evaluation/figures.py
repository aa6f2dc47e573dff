"""Readable figures: every plot of the toolkit and the studies is saved through `save_figure`,
which lays the figure out so that no title, label or tick label is cut off by the figure's edge
or drawn over another, and `layout_problems` says what still is (the tests check every figure
with it, on the layout as drawn).

The layout is matplotlib's tight layout, then at most a few repairs, each followed by a new
tight layout: x tick labels that overlap are turned (30 degrees, then upright; then the figure
is widened, as it is made taller for crowded y tick labels), and a title wider than the room it
has is wrapped onto more lines.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

from chancespiel.files import written

REPAIRS = 5  # rounds of repairs before a figure is saved as it is
_SLACK = 1.0  # pixels: extents that touch are not a collision


def _extent(artist: Any, renderer: Any) -> Any:
    return artist.get_window_extent(renderer)


def _shown(text: Any) -> bool:
    return bool(text.get_visible() and text.get_text().strip())


def _tick_labels(axis: Any) -> list[Any]:
    """The tick labels `axis` draws: visible, not empty, at ticks inside its view."""
    low, high = sorted(axis.get_view_interval())
    span = (high - low) * 1e-9
    labels = []
    for tick in axis.get_major_ticks():
        if not (low - span <= tick.get_loc() <= high + span):
            continue
        labels += [t for t in (tick.label1, tick.label2) if _shown(t)]
    return labels


def _titles(ax: Any) -> list[Any]:
    """The centre, left and right titles of `ax` that are drawn."""
    found = [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)]
    return [t for t in found if t is not None and _shown(t)]


def _texts(fig: Any) -> list[tuple[str, Any, Any]]:
    """(what, owner, text) of every title, axis label and tick label `fig` draws."""
    texts = []
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and _shown(suptitle):
        texts.append(("the figure's title", None, suptitle))
    for index, ax in enumerate(a for a in fig.axes if a.get_visible()):
        name = f"panel {index + 1}"
        texts += [(f"{name}'s title", ax, t) for t in _titles(ax)]
        for axis, letter in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            if _shown(axis.label):
                texts.append((f"{name}'s {letter} label", ax, axis.label))
            texts += [(f"{name}'s {letter} tick label", axis, t) for t in _tick_labels(axis)]
    return texts


def _overlap(a: Any, b: Any) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > _SLACK and min(a.y1, b.y1) - max(a.y0, b.y0) > _SLACK


def layout_problems(fig: Any) -> list[str]:
    """What makes `fig`, as drawn, hard to read: a title, axis label or tick label that sticks
    out of the figure, or two of them drawn over each other (one line each; none: readable)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    edge = fig.bbox
    placed = [(what, owner, text, _extent(text, renderer)) for what, owner, text in _texts(fig)]
    problems = []
    for what, _, text, box in placed:
        if (
            box.x0 < edge.x0 - _SLACK
            or box.y0 < edge.y0 - _SLACK
            or box.x1 > edge.x1 + _SLACK
            or box.y1 > edge.y1 + _SLACK
        ):
            problems.append(f"{what} {text.get_text()!r} is cut off by the figure's edge")
    for i, (what, _, text, box) in enumerate(placed):
        for other, _, other_text, other_box in placed[i + 1 :]:
            if _overlap(box, other_box):
                problems.append(
                    f"{what} {text.get_text()!r} overlaps {other} {other_text.get_text()!r}"
                )
    return problems


def _crowded_axes(fig: Any, renderer: Any) -> list[Any]:
    """The axes whose tick labels overlap one another."""
    crowded = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            boxes = [_extent(t, renderer) for t in _tick_labels(axis)]
            if any(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]):
                crowded.append(axis)
    return crowded


def _wrap_wide_titles(fig: Any, renderer: Any) -> bool:
    """Wraps each title wider than its panel (the figure's title: than the figure) onto more
    lines; True if one was."""
    wrapped = False
    pairs = [(t, ax.get_window_extent(renderer).width) for ax in fig.axes for t in _titles(ax)]
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and _shown(suptitle):
        pairs.append((suptitle, fig.bbox.width * 0.95))
    for text, room in pairs:
        width = _extent(text, renderer).width
        if width <= room:
            continue
        flat = " ".join(text.get_text().split())
        characters = max(12, int(len(flat) * room / width))
        text.set_text(textwrap.fill(flat, characters))
        wrapped = True
    return wrapped


def fit_layout(fig: Any, rect: tuple[float, float, float, float] | None = None) -> None:
    """Lays `fig` out (tight layout within `rect`, as matplotlib's) and repairs what
    `layout_problems` would find: wraps wide titles, turns crowded tick labels, and widens a
    figure whose upright labels still overlap."""
    for _ in range(REPAIRS):
        fig.tight_layout(rect=rect)
        if not layout_problems(fig):
            return
        renderer = fig.canvas.get_renderer()
        changed = _wrap_wide_titles(fig, renderer)
        for axis in _crowded_axes(fig, renderer):
            labels = _tick_labels(axis)
            turned = labels[0].get_rotation() if labels else 90.0
            if axis.axis_name == "x" and turned < 90.0:  # level, then 30 degrees, then upright
                for label in labels:
                    label.set_rotation(30.0 if turned < 30.0 else 90.0)
                    label.set_horizontalalignment("right" if turned < 30.0 else "center")
                    label.set_rotation_mode("anchor" if turned < 30.0 else "default")
            else:  # upright already, or labels stacked on the y axis: give them more room
                width, height = fig.get_size_inches()
                if axis.axis_name == "x":
                    fig.set_size_inches(width * 1.3, height)
                else:
                    fig.set_size_inches(width, height * 1.3)
            changed = True
        if not changed:  # nothing left to repair here (e.g. text clipped by a fixed rect)
            break
    fig.tight_layout(rect=rect)


def save_figure(
    fig: Any,
    path: str | os.PathLike[str],
    dpi: int,
    rect: tuple[float, float, float, float] | None = None,
) -> None:
    """Lays `fig` out readably (`fit_layout`), writes it to `path` whole or not at all, and
    closes it."""
    import matplotlib.pyplot as plt

    fit_layout(fig, rect)
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # (a new folder for the figure)
        with written(path, overwrite=True) as tmp:
            fig.savefig(tmp, dpi=dpi)
    finally:
        plt.close(fig)
