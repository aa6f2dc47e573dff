"""Exact values of small game trees by exhaustive search: the reference for tests and experiments.

These work on any core that implements the search protocol (`games.core.Core`). Values are for
`player`: a decision node is Max when `player` moves there and Min otherwise, so turns need
not alternate.

- `expectimax_value`: every action and every chance outcome, no pruning at all.
- `minimax_value`: alpha-beta with the full window [lo, hi] (the game's utility bounds) on a
  tree without chance nodes. Alpha-beta with the full window returns the exact minimax value;
  `ordering` (best moves first) and `known` (values a game can read off a node without search)
  only make it faster.

They are written independently of the agents (games never import agents), so tests can compare
the agents' pruning searches against them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chancespiel.games._adapter import CHANCE, TERMINAL
from chancespiel.games.core import Ordering

Known = Callable[[Any], "float | None"]
"""known(core) -> the node's exact value for player 0, or None if it must be searched."""


def expectimax_value(core: Any, player: int = 0) -> float:
    """Exact expectimax value of `core` for `player` (exhaustive: the whole tree is visited)."""
    mover = core.current_player()
    if mover == TERMINAL:
        return core.returns()[player]
    if mover == CHANCE:
        total = 0.0
        for outcome, prob in core.chance_outcomes():
            child = core.clone()
            child.apply(outcome)
            total += prob * expectimax_value(child, player)
        return total
    values = []
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        values.append(expectimax_value(child, player))
    return max(values) if mover == player else min(values)


def minimax_value(
    core: Any,
    player: int = 0,
    *,
    lo: float = -1.0,
    hi: float = 1.0,
    ordering: Ordering | None = None,
    known: Known | None = None,
    stats: dict[str, int] | None = None,
) -> float:
    """Exact minimax value of `core` for `player` by alpha-beta with the full window [lo, hi].

    Args:
      core: a node of a tree without chance nodes (not modified).
      player: the player whose value is returned (0 or 1; the game is zero-sum).
      lo, hi: the game's utility bounds; every leaf value must lie in [lo, hi].
      ordering: optional move ordering (affects speed only).
      known: optional shortcut for nodes whose value the game knows without search.
      stats: if given, counts "nodes" and "leaves" (terminal nodes) visited into it.

    Raises:
      ValueError: at a chance node.
    """
    sign = 1.0 if player == 0 else -1.0
    if stats is not None:
        stats.setdefault("nodes", 0)
        stats.setdefault("leaves", 0)

    def search(node: Any, alpha: float, beta: float) -> float:
        if stats is not None:
            stats["nodes"] += 1
        mover = node.current_player()
        if mover == TERMINAL:
            if stats is not None:
                stats["leaves"] += 1
            return node.returns()[player]
        if mover == CHANCE:
            raise ValueError("minimax_value needs a tree without chance nodes")
        if known is not None:
            value = known(node)
            if value is not None:
                return sign * value
        actions = node.legal_actions()
        if ordering is not None:
            actions = ordering(node, actions)
        maximizing = mover == player
        best = -float("inf") if maximizing else float("inf")
        for action in actions:
            child = node.clone()
            child.apply(action)
            value = search(child, alpha, beta)
            if maximizing:
                if value > best:
                    best = value
                    alpha = max(alpha, value)
            elif value < best:
                best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    return search(core.clone(), lo, hi)


def action_values(
    core: Any, value_of: Callable[[Any], float], actions: Sequence[int] | None = None
) -> dict[int, float]:
    """{action: value_of(child)} for the legal actions of a decision node (or `actions`)."""
    values = {}
    for action in core.legal_actions() if actions is None else actions:
        child = core.clone()
        child.apply(action)
        values[action] = value_of(child)
    return values
