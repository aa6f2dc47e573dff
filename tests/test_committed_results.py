"""Committed deterministic results reproduce: the cheap rows are searched again and compared
exactly with the committed files, so a change that moves them must regenerate them (and say
why in the result's README).

Covered: lab/results/node_counts/README.md, every row whose expectimax searches stay under
MAX_MEAN_NODES nodes per position (the others take minutes; the README's commands regenerate
them). Not covered: lab/results/bab_nodes (every row needs exhaustive expectimax on 40 trees, about
a minute), and every result of timed or parallel play (not deterministic).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chancespiel.studies.node_counts import node_counts

NODE_COUNTS = Path(__file__).parent.parent / "lab" / "results" / "node_counts" / "README.md"
MAX_MEAN_NODES = 2_000  # expectimax nodes per position of a row searched again here
ROW = re.compile(
    r"^\| `(?P<game>[^`]+)` \| (?P<depth>\d+) \| (?P<positions>\d+) \| "
    r"(?P<exp>[\d,]+) \| (?P<star1>[\d,]+) \| (?P<star2>[\d,]+) \|"
)


def _node_count_rows() -> list[tuple[str, int, int, tuple[int, int, int]]]:
    rows = []
    for line in NODE_COUNTS.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            counts = tuple(int(match[k].replace(",", "")) for k in ("exp", "star1", "star2"))
            rows.append((match["game"], int(match["depth"]), int(match["positions"]), counts))
    return rows


ROWS = _node_count_rows()
CHEAP = [row for row in ROWS if row[3][0] <= MAX_MEAN_NODES]


def test_the_node_count_table_is_read():
    assert len(ROWS) >= 20 and len(CHEAP) >= 12
    assert {game.split("(")[0] for game, *_ in CHEAP} >= {
        "python_pig", "python_einstein_wurfelt_nicht", "python_cant_stop", "python_ra",
        "python_chance_tree",
    }  # fmt: skip


@pytest.mark.parametrize(
    "game, depth, positions, counts", CHEAP, ids=[f"{g}|{d}" for g, d, *_ in CHEAP]
)
def test_committed_node_counts_reproduce(game, depth, positions, counts):
    """Mean nodes per position of expectimax, Star1 and Star2, as the table rounds them
    (seed 0, default heuristic, best-move table keyed by state: the README's commands)."""
    (row,) = node_counts(game, [depth], positions, seed=0)
    assert str(row.game) == game
    now = tuple(round(row.mean_nodes[a]) for a in ("expectimax", "star1", "star2"))
    assert now == counts, f"{game} depth {depth}: now {now}, committed {counts}"
