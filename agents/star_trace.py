"""An optional trace of a *-Minimax search (expectimax, Star1, Star2 and their sampled forms,
MCMS), for drawing it (`chancespiel analyse --html`).

The compiled procedures (agents.star_core) know nothing of it. `TracedStarSearch` is an
interpreted subclass of their search context that watches them: it overrides the procedures
the search calls on itself (`star`, `decision_node`, the two phases of a chance node, the
chance sample, the root search) to note each node, its window, its value and its children,
and calls the compiled procedure unchanged. So a search without a trace is exactly the
search as it always was, and a traced search visits the same nodes in the same order, with
the same values and node counts (tests/test_star_trace.py).

One change it makes, that no result depends on: every child gets its path key (`path_key`),
even where the search would pass 0 because no key is used there (classic expectimax, classic
Star1 with its table by state). A child's key names the action or outcome that reached it, so
the trace knows which child of its parent each call is.

What is kept is bounded: nodes `levels` below the root (decision and chance nodes alike),
each node keeping the `children` of them that took the most nodes (and the best action), the
others counted; the trees of the last MAX_TREES iterations of the iterative deepening.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chancespiel.agents.search_core import ABSENT, SearchTimeout, child_key
from chancespiel.agents.star_core import ChanceBounds, RootValues, StarSearch
from chancespiel.agents.star_minimax import StarMinimaxBot, StarResult
from chancespiel.games.core import CHANCE, TERMINAL, Core

MAX_LEVELS = 12  # levels below the root a trace may keep
MAX_CHILDREN = 100  # children a trace node may keep
DEFAULT_LEVELS = 4
DEFAULT_CHILDREN = 6
MAX_TREES = 8  # iterations whose trees are kept (the last ones); earlier ones are summarised

# How a node was reached from its parent.
SEARCHED = "searched"
PROBED = "probed"  # Star2's probe of a chance outcome's child: its first action only
AVERAGED = "averaged"  # a child of a chance node searched without pruning

# What became of a chance outcome (`TraceNode.outcomes`).
OUTCOME_SEARCHED = "searched"
OUTCOME_PROBED_SEARCHED = "probed, searched"
OUTCOME_PROBED = "probed, then pruned"  # the probes alone proved the cut
OUTCOME_TERMINAL = "terminal: exact when probed"
OUTCOME_PRUNED = "pruned"  # never searched: the node cut before it
OUTCOME_NOT_DRAWN = ""  # below the levels kept: what became of it is not recorded


@dataclass
class Outcome:
    """One outcome of a chance node: its id, weight (probability, or share of the sample), what
    the search did with it and the bounds [lower, upper] it ended with (Star1/Star2; None where
    the node kept none)."""

    outcome: int
    prob: float
    status: str
    lower: float | None = None
    upper: float | None = None


@dataclass
class TraceNode:
    """One node the search visited.

    kind: "max" or "min" (a decision node of the root player or of the opponent), "chance",
      "terminal" or "horizon" (valued by the heuristic at depth 0).
    move: the action or outcome from the parent (None at the root); role: how the parent
      reached it (SEARCHED, PROBED, AVERAGED); prob: its probability at a chance parent.
    depth: the remaining depth (decision plies); alpha, beta: its window (None for
      expectimax); value: what it returned (fail-soft: at or above beta a lower bound, at or
      below alpha an upper bound), None if the budget ran out inside it; nodes: the nodes it
      and its subtree visited.
    children: the children kept, in search order; omitted, omitted_nodes: those left out.
    outcomes: at a chance node, every outcome searched or not; pruned: at a decision node,
      the actions not searched (cut off); reused: an action whose value was the probe's;
      notes: lines of explanation (a cut, a sample).
    """

    kind: str
    state: Core = field(repr=False)
    key: int
    move: int | None = None
    role: str = SEARCHED
    prob: float | None = None
    depth: int = 0
    alpha: float | None = None
    beta: float | None = None
    value: float | None = None
    nodes: int = 0
    children: list[TraceNode] = field(default_factory=list)
    omitted: int = 0
    omitted_nodes: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    pruned: list[int] = field(default_factory=list)
    reused: int | None = None
    notes: list[str] = field(default_factory=list)
    sampled_from: int = 0  # outcomes of the full distribution, when the search drew a sample
    averaged: bool = False  # a chance node searched without pruning
    level: int = 0  # levels below the root
    _moves: dict[int, int] | None = field(default=None, repr=False)

    def move_of(self, key: int) -> int | None:
        """The action or outcome of this node whose child has path key `key`."""
        if self._moves is None:
            moves = (
                [o for o, _ in self.state.chance_outcomes()]
                if self.kind == "chance"
                else list(self.state.legal_actions())
            )
            self._moves = {child_key(self.key, m): m for m in moves}
        return self._moves.get(key)

    def bound(self) -> str:
        """How `value` relates to the true value: "=" (exact), ">=" or "<=" (a bound)."""
        value, alpha, beta = self.value, self.alpha, self.beta
        if value is None or alpha is None or beta is None:
            return "="
        if value >= beta:
            return ">="
        if value <= alpha:
            return "<="
        return "="


@dataclass
class IterationTrace:
    """One search of the iterative deepening: its depth, whether it sampled, its result and
    tree (None for an early iteration whose tree was dropped: MAX_TREES)."""

    depth: int
    sampled: bool
    root: TraceNode | None
    value: float | None = None
    action: int | None = None
    nodes: int = 0
    completed: bool = False
    note: str = ""  # what the search was for, where it was not a result of the deepening


@dataclass
class SearchTrace:
    """What a traced search records: its limits and every iteration."""

    levels: int = DEFAULT_LEVELS
    children: int = DEFAULT_CHILDREN
    iterations: list[IterationTrace] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 1 <= self.levels <= MAX_LEVELS:
            raise ValueError(f"levels must be in 1..{MAX_LEVELS}, got {self.levels}")
        if not 1 <= self.children <= MAX_CHILDREN:
            raise ValueError(f"children must be in 1..{MAX_CHILDREN}, got {self.children}")


class TracedStarSearch(StarSearch):
    """The search context of agents.star_core, recording its search into `trace` (module
    docstring). Pass it to `star_minimax.search` as `search_class`, with
    `search_options={"trace": SearchTrace(...)}`."""

    def __init__(self, *args: Any, trace: SearchTrace, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.trace = trace
        # One entry per call being searched: its node, or None where nothing is recorded
        # (below the kept levels); the root's is at the bottom.
        self.stack: list[TraceNode | None] = []

    # Keys and samples -------------------------------------------------------------------

    def path_key(self, key: int, action: int) -> int:
        """Every child's path key, even where the search needs none (module docstring)."""
        return child_key(key, action)

    def outcomes(self, state: Core, depth: int, ckey: int) -> Sequence[tuple[int, float]]:
        """The chance node's outcomes or sample, noted on its node."""
        chosen = super().outcomes(state, depth, ckey)
        node = self.stack[-1] if self.stack else None
        if node is not None and node.kind == "chance":
            node.outcomes = [Outcome(o, p, OUTCOME_NOT_DRAWN) for o, p in chosen]
            every = state.chance_outcomes()
            if list(chosen) != list(every):  # a sample, not the node's outcomes enumerated
                node.sampled_from = len(every)
        return chosen

    # Nodes --------------------------------------------------------------------------------

    def _enter(
        self, state: Core, depth: int, alpha: float | None, beta: float | None, key: int, role: str
    ) -> TraceNode | None:
        """The node of a call about to be searched (None if not recorded), pushed."""
        parent = self.stack[-1] if self.stack else None
        node = None
        if parent is not None and len(self.stack) <= self.trace.levels:
            player = state.current_player()
            if role == PROBED:
                kind = "max" if player == self.root else "min"
            elif player == TERMINAL:
                kind = "terminal"
            elif depth == 0:
                kind = "horizon"
            elif player == CHANCE:
                kind = "chance"
            else:
                kind = "max" if player == self.root else "min"
            node = TraceNode(kind, state, key, parent.move_of(key), role, None, depth, alpha, beta)
            node.level = len(self.stack)
            node.nodes = self.budget.nodes
            if parent.kind == "chance":
                node.prob = next((r.prob for r in parent.outcomes if r.outcome == node.move), None)
            parent.children.append(node)
        self.stack.append(node)
        return node

    def _leave(self, node: TraceNode | None, value: float | None) -> None:
        """Pops the call's entry; records its value and node count, and trims its children."""
        self.stack.pop()
        if node is None:
            return
        node.value = value
        node.nodes = self.budget.nodes - node.nodes
        if node.level < self.trace.levels:  # (else its children were not recorded)
            _summarise(node, self)
        _trim(node, self.trace.children)

    def star(
        self, state: Core, depth: int, alpha: float, beta: float, key: int, ckey: int
    ) -> float:
        """`StarSearch.star`, the node recorded."""
        node = self._enter(state, depth, alpha, beta, key, self._role())
        value = None
        try:
            value = super().star(state, depth, alpha, beta, key, ckey)
        finally:
            self._leave(node, value)
        return value

    def expectimax(self, state: Core, depth: int, key: int, ckey: int) -> float:
        """`StarSearch.expectimax`, the node recorded."""
        node = self._enter(state, depth, None, None, key, self._role())
        value = None
        try:
            value = super().expectimax(state, depth, key, ckey)
        finally:
            self._leave(node, value)
        return value

    def _role(self) -> str:
        """How the call about to be entered is reached: averaged below a chance node searched
        without pruning, else searched."""
        parent = self.stack[-1] if self.stack else None
        return AVERAGED if parent is not None and parent.averaged else SEARCHED

    def decision_node(
        self,
        state: Core,
        depth: int,
        alpha: float,
        beta: float,
        key: int,
        ckey: int,
        probe: bool,
    ) -> float:
        """`StarSearch.decision_node`: a probe recorded as a child of its chance node; a
        value reused from the probe noted."""
        if not probe:  # (the node was entered by `star`)
            node = self.stack[-1] if self.stack else None
            probed = self.probes.get(key)
            if node is not None and probed != ABSENT:
                node.reused = probed
            return super().decision_node(state, depth, alpha, beta, key, ckey, probe)
        node = self._enter(state, depth, alpha, beta, key, PROBED)
        if node is not None:
            node.nodes -= 1  # the probe's own node was counted just before the call
        value = None
        try:
            value = super().decision_node(state, depth, alpha, beta, key, ckey, probe)
        finally:
            self._leave(node, value)
        return value

    def chance_average(self, state: Core, depth: int, key: int, ckey: int) -> float:
        """`StarSearch.chance_average`, noted as such."""
        node = self.stack[-1] if self.stack else None
        if node is not None:
            node.averaged = True
            node.notes.append(
                "averaged without pruning (remaining depth <= prune_min_depth): every outcome "
                "searched with the full window"
            )
        return super().chance_average(state, depth, key, ckey)

    def probe_outcomes(self, node: ChanceBounds, depth: int, alpha: float, beta: float) -> bool:
        """Star2's probing phase, its bounds and cut noted."""
        cut = super().probe_outcomes(node, depth, alpha, beta)
        traced = self.stack[-1] if self.stack else None
        if traced is not None:
            _bounds(traced, node)
            if cut:
                traced.notes.append(_cut_note(node, alpha, beta, "after probing"))
        return cut

    def search_outcomes(self, node: ChanceBounds, depth: int, alpha: float, beta: float) -> float:
        """Star1's search of the outcomes, its bounds and cut noted."""
        value = super().search_outcomes(node, depth, alpha, beta)
        traced = self.stack[-1] if self.stack else None
        if traced is not None:
            _bounds(traced, node)
            if node.cut(alpha, beta):
                traced.notes.append(_cut_note(node, alpha, beta, "while searching"))
        return value

    # Root ---------------------------------------------------------------------------------

    def note_last_search(self, note: str) -> None:
        """Labels the last search (one that measured a cap, or a given-up trial)."""
        self.trace.iterations[-1].note = note

    def root_search(self, state: Core, depth: int) -> RootValues:
        """One iteration, recorded as a tree of its own (the last MAX_TREES kept)."""
        root = TraceNode("max", state, 0, depth=depth, alpha=self.vmin, beta=self.vmax)
        iteration = IterationTrace(depth, self.samples is not None, root)
        self.trace.iterations.append(iteration)
        kept = [it for it in self.trace.iterations if it.root is not None]
        for old in kept[:-MAX_TREES]:
            old.root = None
        self.stack = [root]
        start = self.budget.nodes
        try:
            result = super().root_search(state, depth)
        except SearchTimeout:
            root.notes.append("the budget ran out during this search: it is incomplete")
            _trim(root, self.trace.children)  # as every other node's, on leaving it
            raise
        finally:
            self.stack = []
            iteration.nodes = root.nodes = self.budget.nodes - start
        value, action, values, _ = result
        iteration.value, iteration.action, iteration.completed = value, action, True
        root.value = value
        searched = {c.move for c in root.children}
        root.pruned = [a for a in values if a not in searched]
        if root.pruned:
            root.notes.append(
                "not searched: the best action so far is worth the maximum, nothing beats it"
            )
        _trim(root, self.trace.children, keep=action)
        return result


def _bounds(traced: TraceNode, node: ChanceBounds) -> None:
    """Copies a chance node's per-outcome bounds onto its trace."""
    bounds = {node.outcomes[i]: (node.lower[i], node.upper[i]) for i in range(node.count)}
    for row in traced.outcomes:
        if row.outcome in bounds:
            row.lower, row.upper = bounds[row.outcome]


def _cut_note(node: ChanceBounds, alpha: float, beta: float, when: str) -> str:
    """Why a chance node stopped: its bounds left the window."""
    if node.pess >= beta - 1e-12:
        return f"cut {when}: fail high, pess {node.pess:+.4f} >= beta {beta:+.4f}"
    return f"cut {when}: fail low, opti {node.opti:+.4f} <= alpha {alpha:+.4f}"


def _summarise(node: TraceNode, search: StarSearch) -> None:
    """What became of each child of a finished node: outcomes' statuses, actions cut off."""
    if node.kind == "chance":
        probed = {c.move for c in node.children if c.role == PROBED}
        searched = {c.move for c in node.children if c.role != PROBED}
        for row in node.outcomes:
            if row.outcome in searched:
                row.status = OUTCOME_PROBED_SEARCHED if row.outcome in probed else OUTCOME_SEARCHED
            elif row.outcome in probed:
                row.status = OUTCOME_PROBED
            elif row.lower is not None and row.lower == row.upper:
                row.status = OUTCOME_TERMINAL
            else:
                row.status = OUTCOME_PRUNED
        if node.sampled_from:
            node.notes.append(
                f"sampled: {len(node.outcomes)} distinct outcomes of {node.sampled_from}, "
                f"{search.samples} draws (weights: the share of the draws)"
            )
        return
    if node.kind in ("max", "min") and node.value is not None:
        searched = {c.move for c in node.children}
        if node.reused is not None:
            searched.add(node.reused)
        actions = node.state.legal_actions()
        if node.role == PROBED:
            return  # a probe searches the first action alone
        node.pruned = [a for a in actions if a not in searched]
        if node.pruned and math.isfinite(node.value) and node.children:
            side = "beta" if node.kind == "max" else "alpha"
            node.notes.append(f"cut off after a child reached {side}: the rest not searched")


def _trim(node: TraceNode, keep_count: int, keep: int | None = None) -> None:
    """Keeps the `keep_count` children that took the most nodes (and the action `keep`, the
    best at the root), in search order; counts the others."""
    children = node.children
    if len(children) <= keep_count:
        return
    ranked = sorted(range(len(children)), key=lambda i: -children[i].nodes)
    chosen = set(ranked[:keep_count])
    if keep is not None and not any(children[i].move == keep for i in chosen):
        best = next(i for i, c in enumerate(children) if c.move == keep)
        chosen.discard(ranked[keep_count - 1])
        chosen.add(best)
    node.omitted += len(children) - len(chosen)
    node.omitted_nodes += sum(c.nodes for i, c in enumerate(children) if i not in chosen)
    node.children = [c for i, c in enumerate(children) if i in chosen]


class UntraceableError(ValueError):
    """A search this trace cannot watch."""


def traced_search(bot: StarMinimaxBot, state: Core, trace: SearchTrace) -> StarResult:
    """The bot's search from `state`, as its move would run it, recorded into `trace`.

    Raises:
      UntraceableError: for a bot whose search has a context of its own (star2cpc's): its
        procedures are not the ones this trace watches; or one that draws a chance node again
        (se_gap), whose later draws the trace would not list.
    """
    if "search_class" in bot.options:
        raise UntraceableError("its search replaces procedures of Star2 that the trace watches")
    if bot.options.get("se_gap"):
        raise UntraceableError(
            "se_gap draws a chance node again, and the trace lists a node's first draws only"
        )
    return bot.run_search(state, search_class=TracedStarSearch, search_options={"trace": trace})
