"""Node counts of classic searches at a fixed depth under both chance encodings.

Classic *-Minimax pays for every outcome of a chance node and sampling does not, so the
encoding of the same dice (merged multisets, the default, or `ordered_dice=true`) changes the
cost of the classic algorithms only. Same positions (the ordered game replays the merged one's
moves with the dice in a random order), same depth, node counts summed over the positions; the
values agree (tests/test_ordered_dice.py).

    .venv/bin/python lab/benchmarks/ordered_dice_nodes.py [--positions 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import pyspiel

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.star_minimax import search

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from test_ordered_dice import twin_positions

CASES = (
    ("python_cant_stop", "python_cant_stop(ordered_dice=true)", 2),
    ("python_pig", "python_pig(ordered_dice=true)", 3),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)
    for merged_string, ordered_string, depth in CASES:
        merged, ordered = pyspiel.load_game(merged_string), pyspiel.load_game(ordered_string)
        pairs = twin_positions(merged, ordered, args.positions, seed=args.seed)
        for algorithm in ("expectimax", "star1", "star2"):
            nodes = [0, 0]
            for one, two in pairs:
                for side, (game, core) in enumerate(((merged, one), (ordered, two))):
                    result = search(core.clone(), game, algorithm, max_depth=depth, iterative=False)
                    nodes[side] += result.nodes
            print(
                f"{merged_string} {algorithm} depth {depth}, {args.positions} positions: "
                f"merged {nodes[0]:,} nodes, ordered {nodes[1]:,} nodes, "
                f"ratio {nodes[1] / nodes[0]:.2f}"
            )


if __name__ == "__main__":
    main()
