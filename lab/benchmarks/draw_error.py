"""How wrong a sampled chance node's mean is, by the way its outcomes are drawn.

    .venv/bin/python lab/benchmarks/draw_error.py GAME WIDTH [--positions 40] [--keys 400]

For `--positions` chance nodes right after a move of seeded random play (the first legal move
that leads to one, at nodes with more outcomes than WIDTH), each outcome's value is the game's
heuristic for the mover one ply on (the best of the next mover's moves, the mover's or the
opponent's, or the heuristic itself at a chance node or the end), and the node's exact value
their mean by probability. For each way to draw WIDTH outcomes (independent draws, the
paper's; systematic; stratified: agents/search_core.py), the root-mean-square error of the
sampled mean over `--keys` sample keys, per node. Prints per way the median and mean of those
errors, their ratio to the independent draws' per node, and the mean number of distinct
outcomes drawn. A one-ply value is a proxy: what a search at a sampled node averages is its
children's searched values, of the same outcomes.
"""

from __future__ import annotations

import argparse
import math
import statistics

import pyspiel
from common import decision_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.search_core import INDEPENDENT, STRATIFIED, SYSTEMATIC, draw_outcomes
from chancespiel.games.registry import heuristic_for

MODES = {"independent": INDEPENDENT, "systematic": SYSTEMATIC, "stratified": STRATIFIED}


def chance_after_a_move(state: pyspiel.State) -> pyspiel.State | None:
    """The chance node after the first legal move of `state` that leads to one, or None."""
    for action in state.legal_actions():
        child = state.child(action)
        if child.is_chance_node():
            return child
    return None


def one_ply_values(game: pyspiel.Game, node: pyspiel.State, mover: int) -> dict[int, float]:
    """Each outcome's value for `mover`: the heuristic one ply on (module docstring)."""
    heuristic = heuristic_for(game)
    values = {}
    for outcome, _ in node.chance_outcomes():
        child = node.child(outcome)
        if child.is_terminal():
            values[outcome] = child.returns()[mover]
        elif child.is_chance_node():
            values[outcome] = heuristic(child.core, mover)
        else:
            after = [heuristic(child.child(a).core, mover) for a in child.legal_actions()]
            values[outcome] = max(after) if child.current_player() == mover else min(after)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("width", type=int)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--keys", type=int, default=400)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    errors: dict[str, list[float]] = {name: [] for name in MODES}
    distinct: dict[str, list[float]] = {name: [] for name in MODES}
    for state in decision_positions(game, 4 * args.positions, seed=3):
        node = chance_after_a_move(state)
        if node is None or len(node.chance_outcomes()) <= args.width:
            continue
        outcomes = node.chance_outcomes()
        values = one_ply_values(game, node, state.current_player())
        exact = sum(p * values[o] for o, p in outcomes)
        for name, mode in MODES.items():
            squares, counts = [], []
            for key in range(args.keys):
                sample = draw_outcomes(outcomes, args.width, key * 7919 + 13, None, mode)
                squares.append((sum(w * values[o] for o, w in sample) - exact) ** 2)
                counts.append(len(sample))
            errors[name].append(math.sqrt(statistics.mean(squares)))
            distinct[name].append(statistics.mean(counts))
        if len(errors["independent"]) == args.positions:
            break
    base = errors["independent"]
    print(f"{args.game}, width {args.width}, {len(base)} chance nodes, {args.keys} keys each")
    print(f"{'draws':12} {'median':>8} {'mean':>8} {'ratio median':>13} {'ratio max':>10} distinct")
    for name, values in errors.items():
        ratios = [a / b for a, b in zip(values, base, strict=True) if b > 0]
        print(
            f"{name:12} {statistics.median(values):8.4f} {statistics.mean(values):8.4f} "
            f"{statistics.median(ratios):13.2f} {max(ratios):10.2f} "
            f"{statistics.mean(distinct[name]):8.2f}"
        )


if __name__ == "__main__":
    main()
