"""The MCTS search core: tree data, the four steps of a simulation, and the loop that runs them.

A simulation is four steps, the `Simulator`'s methods and `backup`, called in turn by
`run_simulations` until the budget is spent:

1. `select`: descend from the root by the tree policy to the first action or chance outcome
   whose child is not in the tree yet (or to a terminal node);
2. `expand`: add that child, the new leaf;
3. `evaluate`: the leaf's value, its return if terminal, else a `rollout`;
4. `backup`: add the value to every node on the path.

The selection rules (`uct_select`, `widening_limit`, `most_visited`, and search_core's
`sample_index`) are pure functions. UCT and DPW are two `TreePolicy`s over the same steps.
Every draw of a search comes from `agents.draws` (compiled, a `Draws`). `agents.mcts`
documents the algorithm and wraps it as bots; this module is compiled with the engine (see
`chancespiel.engine`), and it is the code that runs and that the tests check.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, final

from mypy_extensions import i64

# Draws, WORDS and draws_from are named here as well: the tests of MCTS import them from here.
from chancespiel.agents.draws import WORDS as WORDS
from chancespiel.agents.draws import Draws as Draws
from chancespiel.agents.draws import Rng, shuffle
from chancespiel.agents.draws import draws_from as draws_from
from chancespiel.agents.interrupt import poll_interrupt
from chancespiel.agents.search_core import (
    Guide,
    OutcomeTable,
    numbered,
    outcome_table,
    sample_guided,
    sample_index,
)
from chancespiel.games.core import CHANCE, TERMINAL, Core, Heuristic, Ordering

DEFAULT_UCT_C: Final = 1.0
DEFAULT_PW_C: Final = 4.0
DEFAULT_PW_ALPHA: Final = 0.25
TO_THE_END: Final = -1  # rollout_depth meaning "play random games to the end"


# Tree data -------------------------------------------------------------------------------


@final
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
    probabilities and `guide` its guide table (`sample_guided`; shared, only read),
    `children[i]` the child of outcome i or None while unsampled; under DPW
    `present` lists the sampled outcome indices in the order they were added and
    `present_cum` their cumulative probabilities. Terminal node: `value` is player 0's return.
    All nodes: `visits` and `total`, the sum of the simulation values (for player 0) backed up
    through the node.
    """

    __slots__ = (
        "actions",
        "children",
        "cum",
        "guide",
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
        self.guide: Guide | None = None
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


def uct_select(children: list[Node | None], sign: float, uct_c: float, parent_visits: int) -> int:
    """Index of the child maximising sign * mean + uct_c * sqrt(ln(parent_visits) / visits).

    Every child must exist and have been visited. `sign` is +1 at player 0's nodes and -1 at
    player 1's (means are player 0's). Ties go to the first child.
    """
    # float() of the counts (exact): compiled, math.log and math.sqrt of an int are generic
    # calls through the math module, of a float a C call.
    explore = uct_c * math.sqrt(math.log(float(parent_visits))) if parent_visits > 1 else 0.0
    best_index = 0
    best_score = -math.inf
    for index, child in enumerate(children):
        assert child is not None  # a decision node's children are made in order
        visits = float(child.visits)
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


# Rollouts, and the actions of a node --------------------------------------------------------


def rollout(
    state: Core,
    max_moves: int,
    rng: Rng,
    evaluate: Heuristic,
    cache: dict[int, OutcomeTable] | None = None,
    table: OutcomeTable | None = None,
) -> float:
    """Value for player 0 of `state` after up to `max_moves` uniformly random decision moves.

    Chance nodes are sampled by their probabilities and do not count as moves. The value is
    the return at a terminal state, else the heuristic `evaluate(state, 0)` once `max_moves`
    moves are made; `max_moves = TO_THE_END` (-1) plays to the end. `state` is changed.
    Draws: one per decision (forced ones included), one per chance node. `table`, an
    `outcome_table` of `cache`, is taken as the last chance node's: a caller that keeps the
    table of a game's one distribution saves each rollout looking it up.
    """
    # Machine integers and a float: compiled, the count of moves and the draw's scale are
    # not tagged integers checked and converted at every step.
    moves: i64 = 0
    limit: i64 = max_moves
    last: Sequence[tuple[int, float]] = ()  # the outcomes of the last chance node, tabulated
    ids: list[int] = []
    cum: list[float] = []
    guide: Guide | None = None
    ids_numbered = False
    if table is not None:
        ids, cum, guide, last, ids_numbered = table
    actions: tuple[int, ...] = ()  # the legal actions of the last decision, and their count
    count = 0.0
    # Whether the actions, and the outcome ids, are their own indices (Pig's roll and stop,
    # a die's faces): then the drawn index is the move. Compiled, a move read from the tuple
    # is a boxed int to unbox, and unboxing branches on its size, 0 or 1 digit: for moves
    # 0 and 1 drawn at random, a branch mispredicted half the time. The actions are looked
    # at when the same tuple comes back (`seen`): a tuple that changes at every decision
    # (EWN's, Can't Stop's) would cost more to look at than it saves.
    actions_numbered = False
    seen = False
    # The draws' own class, once: compiled, each draw is then a direct native call, where a
    # call on the union checks the type and counts a reference every time (the pure engine
    # draws from the generator, `draws` None).
    draws = rng if isinstance(rng, Draws) else None
    while True:
        player = state.current_player()
        if player >= 0:
            if moves == limit:
                return evaluate(state, 0)
            choices = state.legal_actions()
            if choices is not actions:  # most cores return a few shared tuples: listed once
                # A tuple (compiled, indexed directly; a plugin's list is copied, so it is
                # never `actions` again) and its length as a float (exact), the draw's scale.
                actions = choices if isinstance(choices, tuple) else tuple(choices)
                count = float(len(actions))
                actions_numbered = seen = False
            elif not seen:
                actions_numbered = numbered(actions)
                seen = True
            u = draws.random() if draws is not None else rng.random()
            index = int(u * count)
            state.apply(index if actions_numbered else actions[index])
            moves += 1
        elif player == CHANCE:
            outcomes = state.chance_outcomes()
            if outcomes is not last:  # most games share one tuple for every roll
                ids, cum, guide, last, ids_numbered = outcome_table(outcomes, cache)
            u = draws.random() if draws is not None else rng.random()
            outcome = sample_guided(cum, guide, u)
            state.apply(int(outcome) if ids_numbered else ids[outcome])
        else:
            return state.returns()[0]


def list_actions(
    node: Node, state: Core, ordering: Ordering | None, rng: Rng, widening: bool
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
            shuffle(actions, rng)
    node.actions = actions
    node.children = []
    node.width = 0 if widening else len(actions)
    return actions


def list_outcomes(
    node: Node, state: Core, widening: bool, cache: dict[int, OutcomeTable] | None = None
) -> list[float]:
    """Lists the node's outcomes of positive probability, their cumulative probabilities and
    guide table (shared with every node of the same outcome tuple through `cache`; only read)."""
    ids, cum, guide, _, _ = outcome_table(state.chance_outcomes(), cache)
    node.actions = ids
    node.cum = cum
    node.guide = guide
    node.children = [None] * len(ids)
    if widening:
        node.present = []
        node.present_cum = []
    return cum


# The simulation: four steps -----------------------------------------------------------------

NO_CHILD: Final = -1  # the index `select` gives at a terminal node: there is nothing to add


@final
class Simulator:
    """The steps of a simulation over one tree, with the search's settings and counts."""

    def __init__(
        self,
        policy: TreePolicy,
        rollout_depth: int,
        heuristic: Heuristic,
        ordering: Ordering | None,
        rng: Rng,
    ) -> None:
        self.uct_c = policy.uct_c
        self.widening = policy.widening
        self.pw_c = policy.pw_c if policy.pw_c is not None else 0.0
        self.pw_alpha = policy.pw_alpha
        # UCT tries a decision node's actions in random order; DPW in the move ordering.
        self.ordering = ordering if self.widening else None
        self.rollout_depth = rollout_depth
        self.heuristic = heuristic
        self.rng = rng
        self.nodes = 0  # nodes added
        self.evaluations = 0  # heuristic calls (by rollouts that stop before the end)
        self.plies = 0  # decision plies the last selection passed
        self.rollout_cache: dict[int, OutcomeTable] = {}
        # The rollouts' table once it is their only one (`rollout`'s `table`): most games
        # have one distribution, and a rollout would look it up by identity every time.
        self.rollout_table: OutcomeTable | None = None
        self.tree_cache: dict[int, OutcomeTable] = {}

    def select(self, root: Node) -> tuple[list[Node], Core, int]:
        """Step 1: descends from `root` by the tree policy to the first action or outcome
        whose child is not in the tree yet, or to a terminal node. Returns the path, the
        state of its last node (kept in the tree: it must not change) and the index of the
        missing child there (NO_CHILD at a terminal node)."""
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
            if index == len(children) or children[index] is None:
                return path, state, index
            child = children[index]
            assert child is not None
            if child.state is None:
                child.state = state.child(node.actions[index])
            node = child
            state = child.state
            path.append(node)
        return path, state, NO_CHILD

    def expand(self, path: list[Node], state: Core, index: int) -> Core:
        """Step 2: adds the child `index` of the last node of `path` (whose state is `state`)
        to the tree and to the path, and returns the new leaf's state, its own, for the
        evaluation to use up; at a terminal node (NO_CHILD) adds nothing and returns `state`."""
        if index == NO_CHILD:
            return state
        node = path[-1]
        actions = node.actions
        children = node.children
        assert actions is not None and children is not None
        leaf_state = state.child(actions[index])
        leaf = new_node(leaf_state)
        path.append(leaf)
        self.nodes += 1
        if node.player >= 0:  # a decision node's children are made in the order of actions
            children.append(leaf)
            return leaf_state
        children[index] = leaf
        if self.widening:
            cum, present, present_cum = node.cum, node.present, node.present_cum
            assert cum is not None and present is not None and present_cum is not None
            present.append(index)
            prob = cum[index] - (cum[index - 1] if index else 0.0)
            present_cum.append(present_cum[-1] + prob if present_cum else prob)
        return leaf_state

    def evaluate(self, leaf: Node, state: Core) -> float:
        """Step 3: the value for player 0 of the node a simulation ended at: its return if
        terminal, else a rollout from its state (which the rollout uses up)."""
        if leaf.player == TERMINAL:
            return leaf.value
        cache = self.rollout_cache
        table = self.rollout_table
        value = rollout(state, self.rollout_depth, self.rng, self.heuristic, cache, table)
        if table is None and len(cache) == 1:
            for table in cache.values():
                self.rollout_table = table
        if not state.is_terminal():  # the rollout stopped early: the heuristic valued it
            self.evaluations += 1
        return value

    def choose_action(self, node: Node, state: Core) -> int:
        """The index of the action to follow at a decision node; its child count if that is an
        admitted action not tried yet (tried in order), else the UCT choice."""
        actions = node.actions
        if actions is None:
            actions = list_actions(node, state, self.ordering, self.rng, self.widening)
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
            cum = list_outcomes(node, node.state, self.widening, self.tree_cache)
        if not self.widening:
            # the draw's index in about one step, not a bisection (a table of the cache)
            return sample_guided(cum, node.guide, self.rng.random())
        present = node.present
        present_cum = node.present_cum
        assert present is not None and present_cum is not None
        if len(present) < len(cum) and len(present) < widening_limit(
            node.visits + 1, self.pw_c, self.pw_alpha
        ):
            return sample_index(cum, self.rng.random())
        return present[sample_index(present_cum, self.rng.random())]


def backup(path: list[Node], value: float) -> None:
    """Step 4: adds one simulation of value `value` (for player 0) to every node on `path`
    (a list: compiled, iterated natively, where a `Sequence` takes the generic iterator)."""
    for node in path:
        node.visits += 1
        node.total += value


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
    evaluate: Heuristic,
    ordering: Ordering | None,
    rng: Rng,
    max_simulations: int | None,
    deadline: float | None,
    max_nodes: int | None = None,
    clock: Callable[[], float] | None = None,
) -> SimulationCounts:
    """Runs simulations from `root` (the node of `root_state`) until the budget is spent, each
    one the four steps: select, expand, evaluate, backup. At least one simulation runs.
    Returns what the run counted. (`agents.mcts.mcts_search` runs it with the cyclic garbage
    collector paused.)

    Without `max_simulations` (which ends every run by itself), the run also ends once
    simulations stop adding nodes (`stalled`): a tree smaller than the budget is exhausted,
    and a node budget would never be spent, nor a time budget be of use.
    """
    if root.state is None:
        root.state = root_state.clone()
    simulator = Simulator(policy, rollout_depth, evaluate, ordering, rng)
    simulator.nodes = count_nodes(root) if root.children else 1
    simulations = 0
    deepest = 0
    grown = simulator.nodes  # the tree's size when it last grew, and the simulation that did
    grown_at = 0
    while True:
        path, state, index = simulator.select(root)
        leaf_state = simulator.expand(path, state, index)
        value = simulator.evaluate(path[-1], leaf_state)
        backup(path, value)
        simulations += 1
        deepest = max(deepest, simulator.plies)
        if simulator.nodes != grown:
            grown = simulator.nodes
            grown_at = simulations
        if not simulations & 255:  # a pending Ctrl-C is raised here
            poll_interrupt()
        if (
            (max_simulations is not None and simulations >= max_simulations)
            or (max_nodes is not None and simulator.nodes >= max_nodes)
            or (deadline is not None and clock is not None and clock() >= deadline)
            or (max_simulations is None and stalled(simulations, grown_at))
        ):
            return SimulationCounts(simulations, deepest, simulator.nodes, simulator.evaluations)


STALL_SIMULATIONS: Final = 1000


def stalled(simulations: int, grown_at: int) -> bool:
    """True once simulations have stopped adding nodes: the last `grown_at` simulations (and at
    least STALL_SIMULATIONS) ended on terminal nodes already in the tree. The tree is then
    exhausted, or its unvisited parts so unlikely (an outcome of tiny probability, moves the
    policy all but rules out) that doubling the search would not reach them; progressive
    widening admits a node's next child within fewer visits than it had (its schedule grows
    by less than a factor of two), so DPW's widening never stalls a search."""
    return simulations - grown_at >= max(STALL_SIMULATIONS, grown_at)
