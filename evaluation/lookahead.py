"""The luck correction's value under a lookahead: a few plies of expectimax on a value h.

`Lookahead` is the value function of `report --luck`'s default (`learned_lookahead`): at each
chance node of a replayed game every child is valued by it, so its walk below the children
runs millions of times a record file. Compiled with the engine (see `chancespiel.engine`),
which calls the cores' methods natively; as pure Python, the same walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chancespiel.games.core import CHANCE, Core
from chancespiel.games.value_model import LearnedValue

if TYPE_CHECKING:  # (the registry imports pyspiel and every game)
    from chancespiel.games.registry import SymmetricOutcomes


def terminal_or(state: Core) -> float | None:
    """Player 0's return if `state` ends the game, else None."""
    return float(state.returns()[0]) if state.is_terminal() else None


def expected_value(
    state: Core,
    h: Callable[[Any, int], float],
    depth: int = 0,
    symmetric: SymmetricOutcomes | None = None,
) -> float:
    """Player 0's expectimax value of `state` with `depth` decision plies searched and h at
    the decision nodes below them (h at the next decision for depth 0), chance nodes averaged.
    With `symmetric` (the game's `symmetric_outcomes`, for an h of the features alone), one
    child of each class of a chance node's outcomes is valued, for all of them."""
    if state.is_terminal():
        return float(state.returns()[0])
    player = state.current_player()
    if player != CHANCE:
        if depth == 0:
            return h(state, 0)
        values = [expected_value(c, h, depth - 1, symmetric) for c in _move_children(state)]
        return max(values) if player == 0 else min(values)
    outcomes, children = distinct_children(state, symmetric)
    return _mean(outcomes, [expected_value(c, h, depth, symmetric) for c in children])


def _move_children(state: Core) -> list[Core]:
    """The child of each legal move of a decision node."""
    return [state.child(action) for action in state.legal_actions()]


def _mean(outcomes: list[tuple[int, float, int]], values: list[float]) -> float:
    """The mean over a chance node's outcomes (`_distinct_children`) of their children's
    values, in the order of the outcomes."""
    total = 0.0
    for _, prob, k in outcomes:
        total += prob * values[k]
    return total


Plan = int | tuple[int, list[tuple[int, float, int]] | None, list[Any]]
"""`expected_value`'s tree with the values of its leaves left out: a leaf's index among the
leaves, or a node (its player or CHANCE; a chance node's outcomes, or None for a decision whose
children are all leaves, the last ones listed; its children's plans)."""


def _plan(state: Core, depth: int, symmetric: SymmetricOutcomes | None, leaves: list[Core]) -> Plan:
    """The plan of `expected_value(state, h, depth, symmetric)`, its leaves (the states h
    values, and the terminal ones) appended to `leaves`."""
    if state.is_terminal():
        leaves.append(state)
        return len(leaves) - 1
    player = state.current_player()
    if player == CHANCE:
        outcomes, children = distinct_children(state, symmetric)
    elif depth == 0:
        leaves.append(state)
        return len(leaves) - 1
    else:
        outcomes, children, depth = [], _move_children(state), depth - 1
    if depth > 0:
        return player, outcomes, [_plan(child, depth, symmetric, leaves) for child in children]
    plans: list[Plan] = []
    leaves_only = player != CHANCE
    for child in children:  # the leaves among them here: most of a plan's nodes are leaves
        if child.is_terminal() or child.current_player() != CHANCE:
            plans.append(len(leaves))
            leaves.append(child)
        else:
            leaves_only = False
            plans.append(_plan(child, 0, symmetric, leaves))
    return player, None if leaves_only else outcomes, plans


def _planned_value(plan: Plan, values: list[float]) -> float:
    """A plan's value, given its leaves' `values` (`expected_value`'s, in its order)."""
    if isinstance(plan, int):
        return values[plan]
    player, outcomes, children = plan
    found = [
        values[child] if isinstance(child, int) else _planned_value(child, values)
        for child in children
    ]
    if outcomes is not None and player == CHANCE:
        return _mean(outcomes, found)
    return max(found) if player == 0 else min(found)


@dataclass(frozen=True)
class Lookahead:
    """`depth` plies of expectimax on h at decision nodes (player 0's view: the max over
    player 0's moves, the min over player 1's), chance nodes averaged up to the leaves; h
    itself at chance nodes (no averaging, which for chained chance nodes such as EinStein's
    setups would cost millions of calls). Depth 0 is h itself everywhere. With `symmetric`,
    as `expected_value`, and at the chance nodes whose outcomes it values (`_chance_values`).

    On a learned value, the leaves below a state go through the network as one block
    (`LearnedValue.leaf_values`): the same values within the last bits, in a fraction of the
    time where many leaves are new. (One block for all the children of a chance node, hundreds
    of leaves in Ra, was slower: 0.21 s a record against 0.13.)"""

    h: Callable[[Any, int], float]
    depth: int = 1
    symmetric: SymmetricOutcomes | None = None

    def __call__(self, state: Core) -> float:
        h = self.h
        if isinstance(h, LearnedValue):
            leaves: list[Core] = []
            plan = self._plan(state, leaves)
            values = h.leaf_values(leaves)
            if isinstance(plan, int):
                return values[plan]
            if plan[1] is None:  # a decision whose moves all lead to leaves, those alone
                return max(values) if plan[0] == 0 else min(values)
            return _planned_value(plan, values)
        terminal = terminal_or(state)
        if terminal is not None:
            return terminal
        if self.depth == 0 or state.current_player() == CHANCE:
            return h(state, 0)
        return expected_value(state, h, self.depth, self.symmetric)

    def _plan(self, state: Core, leaves: list[Core]) -> Plan:
        """The plan of the value of `state`, its leaves appended to `leaves`."""
        if state.is_terminal() or self.depth == 0 or state.current_player() == CHANCE:
            leaves.append(state)  # valued by h, or its returns if terminal
            return len(leaves) - 1
        return _plan(state, self.depth, self.symmetric, leaves)


def distinct_children(
    state: Core, symmetric: SymmetricOutcomes | None
) -> tuple[list[tuple[int, float, int]], list[Core]]:
    """A chance node's outcomes of positive probability, each as (outcome, probability, the
    index of its child), and the children: one for each outcome, or with `symmetric` one for
    each class of outcomes."""
    outcomes: list[tuple[int, float, int]] = []
    children: list[Core] = []
    if symmetric is None:
        for outcome, prob in state.chance_outcomes():
            if prob > 0.0:
                outcomes.append((outcome, prob, len(children)))
                children.append(state.child(outcome))
        return outcomes, children
    index: dict[int, int] = {}  # the first outcome of a class -> its child's index
    for (outcome, prob), first in zip(state.chance_outcomes(), symmetric(state), strict=True):
        if prob <= 0.0:
            continue
        k = index.get(first)
        if k is None:
            k = index[first] = len(children)
            children.append(state.child(outcome))
        outcomes.append((outcome, prob, k))
    return outcomes, children
