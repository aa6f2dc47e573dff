"""Node counts of Star1 and Star2 to a fixed depth with the best-move table keyed by path or by
state (a transposition table), classic and sampled.

The table only orders moves, so both keys give the same best value and move (the golden
searches check it); what changes is how soon a cut comes. Same positions (seeded random play,
`evaluation/positions.py`), node counts summed over them, with iterative deepening (what the
players do: each depth orders the next) and without (one search at the depth: the table only
carries the best moves of transpositions met earlier in the same search).

    .venv/bin/python lab/benchmarks/table_nodes.py [--positions 30] [--seed 0]
"""

from __future__ import annotations

import argparse

import pyspiel

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions

# (game, depth, samples): classic search, and sampled at the paper's star2ss width where the
# sampled tree is small enough for the depth.
CASES = (
    ("python_pig", 4, None),
    ("python_pig", 5, 18),
    ("python_pig(ordered_dice=true)", 4, None),
    ("python_einstein_wurfelt_nicht", 4, None),
    ("python_einstein_wurfelt_nicht", 5, 2),
    ("python_cant_stop", 3, None),
    ("python_cant_stop", 3, 15),
    ("python_ra", 3, None),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| game | depth | samples | algorithm | deepening | path | state | state / path |")
    print("|---|---:|---:|---|---|---:|---:|---:|")
    for game_string, depth, samples in CASES:
        game = pyspiel.load_game(game_string)
        positions = random_decision_positions(game, args.positions, seed=args.seed)
        for algorithm in ("star1", "star2"):
            for iterative in (True, False):
                nodes = {}
                for table in ("path", "state"):
                    nodes[table] = sum(
                        search(
                            search_state(state), game, algorithm, max_depth=depth,
                            samples=samples, seed=index, iterative=iterative, table=table,
                        ).nodes
                        for index, state in enumerate(positions)
                    )  # fmt: skip
                print(
                    f"| `{game_string}` | {depth} | {samples or '-'} | {algorithm} | "
                    f"{'iterative' if iterative else 'one depth'} | {nodes['path']:,} | "
                    f"{nodes['state']:,} | {nodes['state'] / nodes['path']:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
