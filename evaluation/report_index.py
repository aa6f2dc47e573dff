"""The page of a report directory: `report --out DIR` writes `index.html` beside its files,
linking the report's files, each pairing's own plot of its running score rate (as
score.png draws all of them), and the annotation pages (evaluation.page) of the first games of
each pairing, judged by annotate's default reference (docs/analysis.md)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from chancespiel import files
from chancespiel.evaluation.annotate import AnnotateError, Reference, annotate_record, reference_for
from chancespiel.evaluation.match import Record, record_seats
from chancespiel.evaluation.page import page
from chancespiel.evaluation.report import (
    Correction,
    pair_summaries,
    records_by_game,
    records_by_pair,
    write_score_plot,
)

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; color: #222; margin: 16px 20px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 18px 0 6px; }
.sub { color: #777; margin: 0 0 10px; }
table { border-collapse: collapse; } th, td { padding: 3px 10px; text-align: left;
border-bottom: 1px solid #eee; vertical-align: top; } td.num { text-align: right; }
"""


def _outcome(record: Record) -> str:
    """Who won a recorded game, in a few words."""
    returns = record.get("returns")
    seats = record_seats(record)
    if returns is None:
        return "no result"
    if returns[0] == returns[1]:
        return "draw"
    winner = 0 if returns[0] > returns[1] else 1
    return f"{seats[winner]} won"


def _annotated(
    records: Sequence[Record],
    number: int,
    pages: int,
    out: Path,
    references: dict[str, Reference | AnnotateError],
) -> tuple[list[str], list[str]]:
    """The annotation pages of the first `pages` games of pairing `number` (by match, then
    game): the links to them (or why one could not be made) and the names written."""
    links, written = [], []
    first = sorted(records, key=lambda r: (r["match"], r["game_index"]))[:pages]
    for index, record in enumerate(first, start=1):
        what = f"match {record['match']}, game {record['game_index']}: {_outcome(record)}"
        game = str(record["game"])
        if game not in references:
            try:
                references[game] = reference_for(game)
            except AnnotateError as e:
                references[game] = e
        reference = references[game]
        try:
            if isinstance(reference, AnnotateError):
                raise reference
            html = page(record, annotate_record(record, reference), reference)
        except AnnotateError as e:
            links.append(f"{escape(what)} (not annotated: {escape(str(e))})")
            continue
        name = f"pair-{number}-game-{index}.html"
        files.write_output(out / name, html)
        written.append(name)
        links.append(f'<a href="{name}">{escape(what)}</a>')
    return links, written


def write_index(
    records: Sequence[Record],
    out: Path,
    written: Sequence[str],
    pages: int = 2,
    luck: bool = False,
    value: str | None = None,
    corrections: Correction | None = None,
    made: dict[str, Any] | None = None,
) -> list[str]:
    """Writes index.html into `out` (beside the report's `written` files), with each
    pairing's plot `pair-N.png` and the annotation pages `pair-N-game-M.html` of its first
    `pages` games; returns the names written, index.html last."""
    summaries = {s.key: s for s in pair_summaries(records)}
    names: list[str] = []
    references: dict[str, Reference | AnnotateError] = {}
    body = [
        "<h1>Report</h1>",
        f'<p class="sub">{escape(made["command"]) if made else ""} '
        f"{escape(made['date']) if made else ''}</p>",
        "<p>Files: "
        + ", ".join(f'<a href="{escape(name)}">{escape(name)}</a>' for name in written)
        + ".</p>",
        f"<p>Each pairing's running score rate is drawn alone in its plot (score.png draws "
        f"them all); the first {pages} games of each pairing (by match, then game) are "
        "annotated with annotate's default reference: the exact solver on Pig, elsewhere "
        "Star2 two plies deep on the learned value (docs/analysis.md).</p>",
    ]
    number = 0
    for game, game_records in records_by_game(records).items():
        body.append(f"<h2>{escape(game)}</h2>")
        rows = []
        for key, pair_records in records_by_pair(game_records).items():
            number += 1
            summary = summaries[key]
            plot = f"pair-{number}.png"
            write_score_plot([((summary.a, summary.b), pair_records)], out / plot, luck, value,
                             corrections)  # fmt: skip
            names.append(plot)
            links, pages_written = _annotated(pair_records, number, pages, out, references)
            names += pages_written
            if summary.games:
                low, high = summary.interval
                rate = f"{summary.rate:.3f} [{low:.3f}, {high:.3f}]"
            else:
                rate = "no scored game"
            rows.append(
                f"<tr><td>{escape(summary.a)} vs {escape(summary.b)}</td>"
                f'<td class="num">{summary.games}</td><td class="num">{rate}</td>'
                f'<td><a href="{plot}">{plot}</a></td><td>{"<br>".join(links)}</td></tr>'
            )
        body.append(
            "<table><tr><th>pairing (A vs B)</th><th>games</th><th>A's score rate [95% "
            "Wilson]</th><th>plot</th><th>annotated games</th></tr>" + "".join(rows) + "</table>"
        )
    html = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Report</title>'
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
    files.write_output(out / "index.html", html)
    return [*names, "index.html"]
