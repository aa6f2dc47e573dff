"""The MCTS search core: tree data, the four steps of a simulation, and the loop that runs them.

The shape is DeepMind's mctx: a simulation is `select` (descend by the tree policy and add one
node), `evaluate_leaf` (its return, or a `rollout`), and `backup`; `run_simulations` repeats it
until the budget is spent. The selection rules (`uct_select`, `widening_limit`, `most_visited`,
and search_core's `sample_index`) are pure functions. UCT and DPW are two `TreePolicy`s over
the same steps. `agents.mcts` documents the algorithm and wraps it as bots; this module is
compiled with the engine (see `chancespiel.engine`), and it is the code that runs and that the
tests check.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from chancespiel.agents.search_core import (
    Ordering,
    OutcomeTable,
    outcome_table,
    sample_guided,
    sample_index,
)
from chancespiel.games.core import CHANCE, TERMINAL, Core

Evaluation = Callable[[Core, int], float]

DEFAULT_UCT_C: Final = 1.0
DEFAULT_PW_C: Final = 4.0
DEFAULT_PW_ALPHA: Final = 0.25
TO_THE_END: Final = -1  # rollout_depth meaning "play random games to the end"


# Tree data -------------------------------------------------------------------------------


class Node:
    """A node of the search tree.

    `state` is the node's state once a simulation has passed through the node (made from its
    parent's when first needed, then kept and only read): a simulation descends without
    replaying the actions from the root, and a new leaf's state goes to its rollout.

    Decision node: `actions` are the legal actions in the order they are tried (listed when a
    simulation first selects from the node), `children[i]` is the child of `actions[i]`
    (children are created in that order), `width` is the number of admitted actions (DPW;
    all of them under UCT).
    Chance node: `actions` are the outcomes with positive probability, `cum` their cumulative
    probabilities, `children[i]` the child of outcome i or None while unsampled; under DPW
    `present` lists the sampled outcome indices in the order they were added and
    `present_cum` their cumulative probabilities. Terminal node: `value` is player 0's return.
    All nodes: `visits` and `total`, the sum of the simulation values (for player 0) backed up
    through the node.
    """

    __slots__ = (
        "actions",
        "children",
        "cum",
        "player",
        "present",
        "present_cum",
        "state",
        "total",
        "value",
        "visits",
        "width",
    )

    def __init__(self, player: int, value: float = 0.0) -> None:
        self.player = player
        self.visits = 0
        self.total = 0.0
        self.value = value
        self.actions: list[int] | None = None
        self.children: list[Node | None] | None = None
        self.cum: list[float] | None = None
        self.width = 0
        self.present: list[int] | None = None
        self.present_cum: list[float] | None = None
        self.state: Core | None = None

    def mean(self) -> float:
        """Mean simulation value for player 0 (0 before the first visit)."""
        return self.total / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        kinds = {CHANCE: "chance", TERMINAL: "terminal"}
        kind = kinds.get(self.player, f"player {self.player}")
        return f"Node({kind}, visits={self.visits}, mean={self.mean():+.4f})"


def new_node(state: Core) -> Node:
    """The node of `state`, which a simulation has just reached (its return if terminal)."""
    player = state.current_player()
    return Node(player, state.returns()[0] if player == TERMINAL else 0.0)


def count_nodes(root: Node) -> int:
    """Nodes in the tree below and including `root`."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        if node.children:
            stack.extend(c for c in node.children if c is not None)
    return count


# Pure selection rules --------------------------------------------------------------------


def uct_select(
    children: Sequence[Node | None], sign: float, uct_c: float, parent_visits: int
) -> int:
    """Index of the child maximising sign * mean + uct_c * sqrt(ln(parent_visits) / visits).

    Every child must exist and have been visited. `sign` is +1 at player 0's nodes and -1 at
    player 1's (means are player 0's). Ties go to the first child.
    """
    explore = uct_c * math.sqrt(math.log(parent_visits)) if parent_visits > 1 else 0.0
    best_index = 0
    best_score = -math.inf
    for index, child in enumerate(children):
        assert child is not None  # a decision node's children are made in order
        visits = child.visits
        score = sign * child.total / visits + explore / math.sqrt(visits)
        if score > best_score:
            best_score = score
            best_index = index
    return best_index


def widening_limit(visits: int, pw_c: float, pw_alpha: float) -> int:
    """k = ceil(pw_c * visits^pw_alpha): children a node admits on its `visits`-th visit."""
    return math.ceil(pw_c * visits**pw_alpha)


def most_visited(children: Sequence[Node | None], sign: float) -> int:
    """Index of the child with the most visits; ties go to the higher value for the mover."""
    best = 0
    best_key = (-1, -math.inf)
    for index, child in enumerate(children):
        assert child is not None
        key = (child.visits, sign * child.mean())
        if key > best_key:
            best, best_key = index, key
    return best


def backup(path: Sequence[Node], value: float) -> None:
    """Adds one simulation of value `value` (for player 0) to every node on `path`."""
    for node in path:
        node.visits += 1
        node.total += value


@dataclass(frozen=True)
class TreePolicy:
    """Which selection and widening rules the simulation loop applies.

    `pw_c = None` is UCT (all actions and outcomes admitted); otherwise DPW with k =
    ceil(pw_c * v^pw_alpha) children admitted on the v-th visit of a node.
    """

    uct_c: float = DEFAULT_UCT_C
    pw_c: float | None = None
    pw_alpha: float = DEFAULT_PW_ALPHA

    @property
    def widening(self) -> bool:
        """True for DPW."""
        return self.pw_c is not None


# Chance tables -----------------------------------------------------------------------------


# The four steps ----------------------------------------------------------------------------


def rollout(
    state: Core,
    max_moves: int,
    rng: random.Random,
    evaluate: Evaluation,
    cache: dict[int, OutcomeTable] | None = None,
) -> float:
    """Value for player 0 of `state` after up to `max_moves` uniformly random decision moves.

    Chance nodes are sampled by their probabilities and do not count as moves. The value is
    the return at a terminal state, else the heuristic `evaluate(state, 0)` once `max_moves`
    moves are made; `max_moves = TO_THE_END` (-1) plays to the end. `state` is changed.
    Draws: one per decision (forced ones included), one per chance node.
    """
    rand = rng.random  # bound once: a compiled call to a method of a C type looks it up
    moves = 0
    last: Sequence[tuple[int, float]] = ()  # the outcomes of the last chance node, tabulated
    ids: list[int] = []
    cum: list[float] = []
    guide: list[int] = []
    while True:
        player = state.current_player()
        if player >= 0:
            if moves == max_moves:
                return evaluate(state, 0)
            actions = state.legal_actions()
            state.apply(actions[int(rand() * len(actions))])
            moves += 1
        elif player == CHANCE:
            outcomes = state.chance_outcomes()
            if outcomes is not last:  # most games share one tuple for every roll
                ids, cum, guide, last = outcome_table(outcomes, cache)
            state.apply(ids[sample_guided(cum, guide, rand())])
        else:
            return state.returns()[0]


def expand_decision(
    node: Node, state: Core, ordering: Ordering | None, rng: random.Random, widening: bool
) -> list[int]:
    """Lists the node's actions in trial order: the move ordering if given; else, under DPW,
    the game's own order, and under UCT a shuffled one.

    DPW admits "only the first k actions from the action set", enumerated by a static move
    ordering (MCMS paper, sections 2.2 and 4.2): a game without a registered ordering is
    enumerated in its own order, as the depth-first searches try it. Under UCT, which admits
    every action at once, the order only breaks ties among untried actions. Under DPW no
    action is admitted until the first selection.
    """
    legal = state.legal_actions()
    if ordering is not None:
        actions = list(ordering(state, legal))
    else:
        actions = list(legal)
        if not widening:
            rng.shuffle(actions)
    node.actions = actions
    node.children = []
    node.width = 0 if widening else len(actions)
    return actions


def expand_chance(
    node: Node, state: Core, widening: bool, cache: dict[int, OutcomeTable] | None = None
) -> list[float]:
    """Lists the node's outcomes of positive probability and their cumulative probabilities
    (shared with every node of the same outcome tuple through `cache`; only read)."""
    ids, cum, _, _ = outcome_table(state.chance_outcomes(), cache)
    node.actions = ids
    node.cum = cum
    node.children = [None] * len(ids)
    if widening:
        node.present = []
        node.present_cum = []
    return cum


class Simulator:
    """The four steps of a simulation over one tree, with the search's settings and counts."""

    def __init__(
        self,
        policy: TreePolicy,
        rollout_depth: int,
        evaluate: Evaluation,
        ordering: Ordering | None,
        rng: random.Random,
    ) -> None:
        self.uct_c = policy.uct_c
        self.widening = policy.widening
        self.pw_c = policy.pw_c if policy.pw_c is not None else 0.0
        self.pw_alpha = policy.pw_alpha
        # UCT tries a decision node's actions in random order; DPW in the move ordering.
        self.ordering = ordering if self.widening else None
        self.rollout_depth = rollout_depth
        self.evaluate = evaluate
        self.rng = rng
        self.nodes = 0  # nodes added
        self.evaluations = 0  # heuristic calls (by rollouts that stop before the end)
        self.plies = 0  # decision plies the last selection passed
        self.rollout_cache: dict[int, OutcomeTable] = {}
        self.tree_cache: dict[int, OutcomeTable] = {}

    def select(self, root: Node) -> tuple[list[Node], Core]:
        """Descends from `root` by the tree policy until it adds a node or reaches a terminal
        one: the path (the new or terminal node last) and that node's state (a new leaf's
        state is its own, for the rollout to use up; a kept node's state must not change)."""
        node = root
        state = root.state
        assert state is not None
        path = [node]
        self.plies = 0
        while node.player != TERMINAL:
            if node.player >= 0:
                self.plies += 1
                index = self.choose_action(node, state)
            else:
                index = self.sample_outcome(node)
            children = node.children
            assert children is not None and node.actions is not None
            if index == len(children) or children[index] is None:  # a new node: expand it
                child_state = state.child(node.actions[index])
                leaf = new_node(child_state)
                self.add_child(node, index, leaf)
                path.append(leaf)
                return path, child_state
            child = children[index]
            assert child is not None
            if child.state is None:
                child.state = state.child(node.actions[index])
            node = child
            state = child.state
            path.append(node)
        return path, state

    def choose_action(self, node: Node, state: Core) -> int:
        """The index of the action to follow at a decision node; its child count if that is an
        admitted action not tried yet (tried in order), else the UCT choice."""
        actions = node.actions
        if actions is None:
            actions = expand_decision(node, state, self.ordering, self.rng, self.widening)
        if node.width < len(actions):  # only under DPW: admit more on this visit?
            node.width = min(
                len(actions), widening_limit(node.visits + 1, self.pw_c, self.pw_alpha)
            )
        children = node.children
        assert children is not None
        if len(children) < node.width:
            return len(children)
        sign = 1.0 if node.player == 0 else -1.0
        return uct_select(children, sign, self.uct_c, node.visits)

    def sample_outcome(self, node: Node) -> int:
        """The index of the outcome to follow at a chance node: drawn by probability; under
        DPW, from the full distribution while fewer outcomes than admitted are known (a new
        one joins, a known one is followed), else among the known ones."""
        cum = node.cum
        if cum is None:
            assert node.state is not None
            cum = expand_chance(node, node.state, self.widening, self.tree_cache)
        if not self.widening:
            return sample_index(cum, self.rng.random())
        present = node.present
        present_cum = node.present_cum
        assert present is not None and present_cum is not None
        if len(present) < len(cum) and len(present) < widening_limit(
            node.visits + 1, self.pw_c, self.pw_alpha
        ):
            return sample_index(cum, self.rng.random())
        return present[sample_index(present_cum, self.rng.random())]

    def add_child(self, node: Node, index: int, child: Node) -> None:
        """Puts the new `child` into the tree below `node` at `index`."""
        self.nodes += 1
        children = node.children
        assert children is not None
        if node.player >= 0:
            children.append(child)
            return
        children[index] = child
        if self.widening:
            cum, present, present_cum = node.cum, node.present, node.present_cum
            assert cum is not None and present is not None and present_cum is not None
            present.append(index)
            prob = cum[index] - (cum[index - 1] if index else 0.0)
            present_cum.append(present_cum[-1] + prob if present_cum else prob)

    def evaluate_leaf(self, leaf: Node, state: Core) -> float:
        """The value for player 0 of the node a selection ended at: its return if terminal,
        else a rollout from its state (which the rollout uses up)."""
        if leaf.player == TERMINAL:
            return leaf.value
        value = rollout(state, self.rollout_depth, self.rng, self.evaluate, self.rollout_cache)
        if not state.is_terminal():  # the rollout stopped early: the heuristic valued it
            self.evaluations += 1
        return value


@dataclass(frozen=True)
class SimulationCounts:
    """What a run of simulations counted: simulations, the deepest decision ply of the tree a
    simulation reached, nodes in the tree at the end, and heuristic calls."""

    simulations: int
    depth: int
    nodes: int
    evaluations: int


def run_simulations(
    root_state: Core,
    root: Node,
    policy: TreePolicy,
    *,
    rollout_depth: int,
    evaluate: Evaluation,
    ordering: Ordering | None,
    rng: random.Random,
    max_simulations: int | None,
    deadline: float | None,
    max_nodes: int | None = None,
    clock: Callable[[], float] | None = None,
) -> SimulationCounts:
    """Runs simulations from `root` (the node of `root_state`) until the budget is spent:
    each one selects down the tree, adds one node, evaluates it and backs the value up. At
    least one simulation runs. Returns what the run counted."""
    if root.state is None:
        root.state = root_state.clone()
    simulator = Simulator(policy, rollout_depth, evaluate, ordering, rng)
    simulator.nodes = count_nodes(root) if root.children else 1
    simulations = 0
    deepest = 0
    while True:
        path, state = simulator.select(root)
        value = simulator.evaluate_leaf(path[-1], state)
        backup(path, value)
        simulations += 1
        deepest = max(deepest, simulator.plies)
        if (
            (max_simulations is not None and simulations >= max_simulations)
            or (max_nodes is not None and simulator.nodes >= max_nodes)
            or (deadline is not None and clock is not None and clock() >= deadline)
        ):
            return SimulationCounts(simulations, deepest, simulator.nodes, simulator.evaluations)
