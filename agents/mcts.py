"""Monte Carlo Tree Search with chance nodes: UCT and double progressive widening (DPW).

The search is decomposed as in DeepMind's mctx: tree data (`Node`), one
simulate/expand/backup loop (`run_simulations`), pure selection rules (`uct_select`,
`sample_index`, `widening_limit`, `most_visited`), and a `TreePolicy` that says which rules the
loop applies. UCT and DPW are two policies over the same loop, not two copies of it.

- UCT (Kocsis, Szepesvari and Willemson, "Improved Monte-Carlo Search", 2006): at a decision
  node every action is tried once, in a random order, before any is tried again; then the child
  maximising `sign * Q + uct_c * sqrt(ln N / n)` is chosen, where N is the node's visits, n and
  Q the child's visits and mean value, and `sign` is +1 at player 0's nodes and -1 at player 1's
  (the Min player minimises Q - bonus, which is the same thing).
- Chance nodes are kept in the tree; each visit samples an outcome by its probability (the
  MCMS paper's setup, section 4.2).
- DPW (MCMS paper, section 2.2): on its v-th visit (this one included) a node admits
  k = ceil(pw_c * v^pw_alpha) children. At a decision node the admitted actions are the first
  k in the game's move ordering (games.registry.register_move_ordering; a random order when
  the game has none); unvisited admitted actions are tried first, then UCT chooses among the
  admitted ones. At a chance node, while fewer than k outcomes have been sampled an outcome is
  drawn from the full distribution (a new one joins the set, a known one is followed);
  otherwise an existing child is drawn with probability proportional to its own, i.e. from
  the distribution restricted to the sampled set.
- Expansion adds one node per simulation. A new leaf is valued by `rollout_depth` uniformly
  random decision moves (chance by probability; chance nodes do not count) and then the
  heuristic (games.registry.evaluation_for): 0 is UCT-H, the heuristic at the leaf (Ramanujan,
  Sabharwal and Selman, "Understanding Sampling Style Adversarial Search Methods", 2010);
  None (or -1) plays random games to the end, as plain UCT does.
- Values: every node stores the sum of the simulation values through it for player 0
  (`Node.total`), so a node's mean is player 0's expected return; selection flips the sign at
  player 1's nodes. Results are reported for the player to move at the root.
- The final move is the most visited root child (ties: the higher mean value).

Defaults. `uct_c = 1.0`. With values in [-1, 1] (a range of 2), UCB1's bound-derived constant
(sqrt(2) for rewards in [0, 1], the UCT paper's c_{t,s} = sqrt(2 ln t / s)) becomes
2 * sqrt(2) ~ 2.8; OpenSpiel's default is 2; the MCMS paper's tuned constants, C1 / 100 on our
scale, are 0.5 (Pig, Can't Stop, Ra) and 2.0 (EWN). Our tuning matches (docs/mcts.md): 1.0
beat 0.5 on python_einstein_wurfelt_nicht and was level with 2.0 there and with 0.5 and 2.0
on python_pig, within the 95% intervals. `pw_c = 4`, `pw_alpha = 0.25`: the paper's tuned
(C2, alpha) for EWN, between its Pig (5, 0.2) and Can't Stop (25, 0.3) values.
`rollout_depth = None` (random games to the end): plain UCT, and the only sensible choice on
games without a heuristic; the paper's tuned d_r are 0 (Pig, Ra), 10 (Can't Stop) and
100 (EWN, in effect to the end).
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.protocol import CHANCE, TERMINAL, SearchState, search_state
from chancespiel.agents.registry import HEURISTIC, Param, register_agent
from chancespiel.agents.search_common import (
    CLOCK,
    check_two_player_zero_sum,
    child_maker,
    clock_named,
)
from chancespiel.games.registry import evaluation_for, move_ordering_for

Evaluation = Callable[[Any, int], float]
Ordering = Callable[[Any, Sequence[int]], Sequence[int]]

DEFAULT_UCT_C = 1.0
DEFAULT_PW_C = 4.0
DEFAULT_PW_ALPHA = 0.25
DEFAULT_TIME_MS = 200.0  # the MCMS paper's time per move, when a bot is given no budget
TO_THE_END = -1  # rollout_depth meaning "play random games to the end"
MAX_CACHED_OUTCOMES = 256  # distinct shared outcome tuples a rollout cache keeps


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

    def __init__(self, player: int, value: float = 0.0):
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
        self.state: Any = None

    def mean(self) -> float:
        """Mean simulation value for player 0 (0 before the first visit)."""
        return self.total / self.visits if self.visits else 0.0

    def __repr__(self) -> str:
        kind = {CHANCE: "chance", TERMINAL: "terminal"}.get(self.player, f"player {self.player}")
        return f"Node({kind}, visits={self.visits}, mean={self.mean():+.4f})"


# Pure selection rules --------------------------------------------------------------------


def uct_select(children: Sequence[Node], sign: float, uct_c: float, parent_visits: int) -> int:
    """Index of the child maximising sign * mean + uct_c * sqrt(ln(parent_visits) / visits).

    Every child must have been visited. `sign` is +1 at player 0's nodes and -1 at player 1's
    (means are player 0's). Ties go to the first child.
    """
    explore = uct_c * math.sqrt(math.log(parent_visits)) if parent_visits > 1 else 0.0
    sqrt = math.sqrt
    best_index = 0
    best_score = -math.inf
    for index, child in enumerate(children):
        visits = child.visits
        score = sign * child.total / visits + explore / sqrt(visits)
        if score > best_score:
            best_score = score
            best_index = index
    return best_index


def widening_limit(visits: int, pw_c: float, pw_alpha: float) -> int:
    """k = ceil(pw_c * visits^pw_alpha): children a node admits on its `visits`-th visit."""
    return math.ceil(pw_c * visits**pw_alpha)


def sample_index(cum: Sequence[float], u: float) -> int:
    """Index i with cum[i-1] <= u * cum[-1] < cum[i]: a draw by the weights behind `cum`.

    `cum` is strictly increasing (cumulative positive weights) and u is uniform in [0, 1).
    """
    return bisect_right(cum, u * cum[-1])


def most_visited(children: Sequence[Node], sign: float) -> int:
    """Index of the child with the most visits; ties go to the higher value for the mover."""
    return max(range(len(children)), key=lambda i: (children[i].visits, sign * children[i].mean()))


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


# Rollouts ----------------------------------------------------------------------------------


def rollout(
    state: SearchState,
    max_moves: int,
    rand: Callable[[], float],
    evaluate: Evaluation,
    cache: dict[int, Any] | None = None,
) -> float:
    """Value for player 0 of `state` after up to `max_moves` uniformly random decision moves.

    Chance nodes are sampled by their probabilities and do not count as moves. The value is
    the return at a terminal state, else the heuristic `evaluate(state, 0)` once `max_moves`
    moves are made; `max_moves = TO_THE_END` (-1) plays to the end. `state` is changed.

    `cache` (kept by the caller across rollouts) holds the cumulative probabilities of the
    outcome tuples a game shares between states (the Pig, EWN and Can't Stop cores return one
    tuple for every roll), keyed by identity: the cache keeps each tuple alive, so its id is
    not reused while it is cached, and a tuple cannot change. Other outcome sequences (fresh
    lists, as from Ra or the pyspiel adapter) are scanned linearly.

    A state may offer the same loop as `random_rollout(max_moves, rand, evaluate)`, written
    against its own fields (the Can't Stop core does): it is used instead, and must draw from
    `rand` exactly as this loop does, so that results do not depend on which path ran.
    """
    fast = getattr(state, "random_rollout", None)
    if fast is not None:
        return fast(max_moves, rand, evaluate)
    if cache is None:
        cache = {}
    current_player = state.current_player
    legal_actions = state.legal_actions
    chance_outcomes = state.chance_outcomes
    apply = state.apply
    last = ids = cum = None  # the last cached outcomes and their ids and cumulative weights
    total = 1.0
    moves = 0
    while True:
        player = current_player()
        if player >= 0:
            if moves == max_moves:
                return evaluate(state, 0)
            actions = legal_actions()
            apply(actions[int(rand() * len(actions))])
            moves += 1
        elif player == CHANCE:
            outcomes = chance_outcomes()
            if outcomes is not last:
                entry = cache.get(id(outcomes))
                if entry is None:
                    if type(outcomes) is not tuple or len(cache) >= MAX_CACHED_OUTCOMES:
                        u = rand()
                        for outcome, prob in outcomes:  # noqa: B007 (used after the loop)
                            u -= prob
                            if u < 0.0:
                                break
                        apply(outcome)  # the last outcome if rounding left u >= 0
                        continue
                    entry = cache[id(outcomes)] = (
                        [o for o, _ in outcomes],
                        list(accumulate(p for _, p in outcomes)),
                        outcomes,
                    )
                ids, cum, last = entry
                total = cum[-1]
            apply(ids[bisect_right(cum, rand() * total)])
        else:
            return state.returns()[0]


# The simulation loop -----------------------------------------------------------------------


def _expand_decision(
    node: Node, state: SearchState, ordering: Ordering | None, rng: random.Random, widening: bool
) -> list[int]:
    """Lists the node's actions in trial order: the move ordering if given, else shuffled.

    Under UCT every action is admitted at once; under DPW none until the first selection.
    """
    legal = state.legal_actions()
    if ordering is not None:
        actions = list(ordering(state, legal))
    else:
        actions = list(legal)
        if len(actions) == 2 and type(rng) is random.Random:
            # rng.shuffle of a pair written out (the most common decision of Pig and Can't
            # Stop, roll or stop), with its one draw: randbelow(2) by rejection from
            # getrandbits(2), then the swap if it picked index 0.
            r = rng.getrandbits(2)
            while r >= 2:
                r = rng.getrandbits(2)
            if not r:
                actions.reverse()
        else:
            rng.shuffle(actions)
    node.actions = actions
    node.children = []
    node.width = 0 if widening else len(actions)
    return actions


def _expand_chance(
    node: Node, state: SearchState, widening: bool, cache: dict[int, Any] | None = None
) -> None:
    """Lists the node's outcomes of positive probability and their cumulative probabilities.

    With a `cache` (kept by the caller across the search), nodes whose state returns the same
    shared outcome tuple share the two lists, built once; as in `rollout`, the cache keeps the
    tuple alive, so its id stays its own. The lists are only read.
    """
    outcomes = state.chance_outcomes()
    entry = None
    if cache is not None and type(outcomes) is tuple:
        entry = cache.get(id(outcomes))
        if entry is None and len(cache) < MAX_CACHED_OUTCOMES:
            kept = [(o, p) for o, p in outcomes if p > 0.0]
            entry = cache[id(outcomes)] = (
                [o for o, _ in kept],
                list(accumulate(p for _, p in kept)),
                outcomes,
            )
    if entry is None:
        kept = [(o, p) for o, p in outcomes if p > 0.0]
        node.actions = [o for o, _ in kept]
        node.cum = list(accumulate(p for _, p in kept))
    else:
        node.actions, node.cum = entry[0], entry[1]
    node.children = [None] * len(node.actions)
    if widening:
        node.present = []
        node.present_cum = []


def run_simulations(
    root_state: SearchState,
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
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[int, int, int]:
    """Runs simulations from `root` (the node of `root_state`) until the budget is spent.

    Each simulation selects down the tree, adds one node, values it (its return if terminal,
    else by `rollout`) and backs the value up along its path. At least one simulation runs.

    Returns:
      (simulations run, deepest decision ply of the tree reached by a simulation, nodes in
      the tree at the end).
    """
    rand = rng.random
    now = clock
    sqrt, log = math.sqrt, math.log
    uct_c = policy.uct_c
    widening = policy.widening
    pw_c = policy.pw_c if widening else 0.0
    pw_alpha = policy.pw_alpha
    decision_ordering = ordering if widening else None  # UCT tries actions in random order
    limit = math.inf if max_simulations is None else max_simulations
    node_limit = math.inf if max_nodes is None else max_nodes
    nodes = count_nodes(root) if root.children else 1
    cache: dict[int, Any] = {}  # outcome tuples -> cumulative tables, for rollouts
    expand_cache: dict[int, Any] = {}  # outcome tuples -> lists for chance nodes of the tree
    simulations = 0
    deepest = 0
    if root.state is None:
        root.state = root_state.clone()
    make_child = child_maker(root.state)
    # The state type's own rollout loop, looked up once (`rollout` would per simulation).
    fast_rollout = getattr(type(root.state), "random_rollout", None)
    # UCT's square roots by visit count, looked up instead of computed for every child at
    # every selection (the same floats): roots[n] = sqrt(n), explores[n] = the exploration
    # factor of a node visited n times. No node has more visits than the root, so the tables
    # grow with it.
    roots: list[float] = []
    explores: list[float] = []
    while True:
        if root.visits >= len(roots):
            for n in range(len(roots), 2 * root.visits + 64):
                roots.append(sqrt(n))
                explores.append(uct_c * sqrt(log(n)) if n > 1 else 0.0)
        node = root
        state = node.state
        path = [node]
        plies = 0
        while True:
            player = node.player
            if player >= 0:
                plies += 1
                actions = node.actions
                if actions is None:
                    actions = _expand_decision(node, state, decision_ordering, rng, widening)
                children = node.children
                width = node.width
                if width < len(actions):  # only under DPW: admit more on this visit?
                    width = node.width = min(
                        len(actions), widening_limit(node.visits + 1, pw_c, pw_alpha)
                    )
                expanded = len(children)
                if expanded < width:  # an admitted action not tried yet: expand it
                    state = make_child(state, actions[expanded])
                    player = state.current_player()
                    node = Node(player, state.returns()[0] if player == TERMINAL else 0.0)
                    nodes += 1
                    children.append(node)
                    path.append(node)
                    break
                # uct_select, inlined (the same floats and ties): it runs at every decision
                # node of every simulation.
                explore = explores[node.visits]
                best_score = -math.inf
                index = i = 0
                if player == 0:
                    for child in children:
                        visits = child.visits
                        score = child.total / visits + explore / roots[visits]
                        if score > best_score:
                            best_score = score
                            index = i
                        i += 1
                else:
                    for child in children:
                        visits = child.visits
                        # -x is -1.0 * x exactly (uct_select's sign times the mean).
                        score = -child.total / visits + explore / roots[visits]
                        if score > best_score:
                            best_score = score
                            index = i
                        i += 1
                node = children[index]
                if node.state is None:
                    node.state = make_child(state, actions[index])
                state = node.state
                path.append(node)
            elif player == CHANCE:
                cum = node.cum
                if cum is None:
                    _expand_chance(node, state, widening, expand_cache)
                    cum = node.cum
                if not widening:
                    index = bisect_right(cum, rand() * cum[-1])  # sample_index, inlined
                else:
                    present = node.present
                    if len(present) < len(cum) and len(present) < widening_limit(
                        node.visits + 1, pw_c, pw_alpha
                    ):
                        index = sample_index(cum, rand())  # a new outcome joins, a known is kept
                    else:
                        index = present[sample_index(node.present_cum, rand())]
                child = node.children[index]
                if child is None:
                    state = make_child(state, node.actions[index])
                    player = state.current_player()
                    child = Node(player, state.returns()[0] if player == TERMINAL else 0.0)
                    nodes += 1
                    node.children[index] = child
                    if widening:
                        present.append(index)
                        prob = cum[index] - (cum[index - 1] if index else 0.0)
                        present_cum = node.present_cum
                        present_cum.append(present_cum[-1] + prob if present_cum else prob)
                    path.append(child)
                    node = child
                    break
                if child.state is None:
                    child.state = make_child(state, node.actions[index])
                node = child
                state = node.state
                path.append(node)
            else:
                break
        if node.player == TERMINAL:
            value = node.value
        elif fast_rollout is not None:  # a new leaf: its state is used up by the rollout
            value = fast_rollout(state, rollout_depth, rand, evaluate)
        else:
            value = rollout(state, rollout_depth, rand, evaluate, cache)
        for node in path:  # backup, inlined
            node.visits += 1
            node.total += value
        simulations += 1
        if plies > deepest:
            deepest = plies
        if (
            simulations >= limit
            or nodes >= node_limit
            or (deadline is not None and now() >= deadline)
        ):
            return simulations, deepest, nodes


# The search function -----------------------------------------------------------------------


@dataclass
class MCTSResult:
    """What a search found, for the player to move at the root.

    `action_values` and `visits` cover the root actions that were tried; `value` is the mean
    value of the chosen (most visited) action. `nodes` counts tree nodes and `depth` the
    deepest decision ply a simulation reached in the tree; `evaluations` counts heuristic
    calls (by rollouts that stop before the end).
    """

    value: float
    action: int
    action_values: dict[int, float]
    visits: dict[int, int]
    simulations: int
    nodes: int
    depth: int
    time_s: float
    root: Node = field(repr=False)
    evaluations: int = 0


def check_mcts_params(
    *,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    pw_c: float | None = None,
    pw_alpha: float = DEFAULT_PW_ALPHA,
    max_nodes: int | None = None,
    clock: str = "wall",
) -> None:
    """Raises ValueError naming the first bad parameter of mcts / dpw / mc."""
    if not uct_c >= 0.0:  # also rejects NaN
        raise ValueError(f"uct_c must be >= 0, got {uct_c}")
    if rollout_depth is not None and rollout_depth < TO_THE_END:
        raise ValueError(
            f"rollout_depth must be >= 0, or -1 / none for random games to the end, "
            f"got {rollout_depth}"
        )
    if max_simulations is not None and max_simulations < 1:
        raise ValueError(f"max_simulations must be >= 1, got {max_simulations}")
    if time_ms is not None and not time_ms > 0:
        raise ValueError(f"time_ms must be > 0, got {time_ms}")
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    if max_simulations is None and time_ms is None and max_nodes is None:
        raise ValueError("give a budget: max_simulations, time_ms, max_nodes or several")
    if pw_c is not None and not pw_c > 0:
        raise ValueError(f"pw_c must be > 0, got {pw_c}")
    if not 0.0 < pw_alpha <= 1.0:
        raise ValueError(f"pw_alpha must be in (0, 1], got {pw_alpha}")
    clock_named(clock)


def mcts_search(
    state: SearchState,
    game: pyspiel.Game,
    *,
    uct_c: float = DEFAULT_UCT_C,
    rollout_depth: int | None = None,
    max_simulations: int | None = None,
    time_ms: float | None = None,
    pw_c: float | None = None,
    pw_alpha: float = DEFAULT_PW_ALPHA,
    seed: int = 0,
    evaluation: Evaluation | None = None,
    ordering: Ordering | None = None,
    max_nodes: int | None = None,
    clock: str = "wall",
) -> MCTSResult:
    """UCT, or DPW when `pw_c` is given, from a decision node.

    Args:
      state: a search-protocol state (see agents.protocol.search_state); not modified.
      game: the game, for its heuristic and move ordering.
      uct_c: exploration constant (values in [-1, 1]; default 1.0, see the module docstring).
      rollout_depth: random decision moves before the heuristic values a leaf; 0 values new
        leaves by the heuristic (UCT-H); None or -1 plays random games to the end.
      max_simulations: simulations to run.
      time_ms: wall-clock budget; with several budgets the first one spent ends the search.
      pw_c: DPW's C (None: plain UCT, every action and outcome admitted).
      pw_alpha: DPW's alpha, in (0, 1].
      seed: seed of the search's random generator (action order, chance samples, rollouts).
      evaluation: h(state, player) in [-1, 1]; default: the game's registered heuristic (0 at
        non-terminal states if it has none).
      ordering: DPW's action order; default: the game's registered move ordering, else random.
      max_nodes: tree nodes (one per simulation that reaches a new node), for comparisons at
        equal work.
      clock: what time_ms measures, "wall" or "cpu" (search_common.CLOCKS).

    Returns:
      The most visited root action, its value and the root statistics.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision.
    """
    check_mcts_params(
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        max_simulations=max_simulations,
        time_ms=time_ms,
        pw_c=pw_c,
        pw_alpha=pw_alpha,
        max_nodes=max_nodes,
        clock=clock,
    )
    check_two_player_zero_sum(game, "mcts" if pw_c is None else "dpw")
    player = state.current_player()
    if player < 0:
        raise ValueError(f"MCTS needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    now = clock_named(clock)
    deadline = None if time_ms is None else now() + time_ms / 1000.0
    root = Node(player)
    policy = TreePolicy(uct_c, pw_c, pw_alpha)
    heuristic = evaluation or evaluation_for(game)
    evaluations = 0

    def counted(s: Any, p: int) -> float:
        nonlocal evaluations
        evaluations += 1
        return heuristic(s, p)

    simulations, depth, nodes = run_simulations(
        state,
        root,
        policy,
        rollout_depth=TO_THE_END if rollout_depth is None else rollout_depth,
        evaluate=counted,
        ordering=ordering if ordering is not None else move_ordering_for(game),
        rng=random.Random(seed),
        max_simulations=max_simulations,
        deadline=deadline,
        max_nodes=max_nodes,
        clock=now,
    )
    result = _result(root, simulations, depth, time.perf_counter() - start, nodes)
    result.evaluations = evaluations
    return result


def _result(root: Node, simulations: int, depth: int, time_s: float, nodes: int) -> MCTSResult:
    """The result of a search from `root` (a tree of `nodes` nodes, counted by the loop
    instead of walking the tree): most visited action and root statistics."""
    sign = 1.0 if root.player == 0 else -1.0
    children = root.children or []
    actions = root.actions or []
    best = most_visited(children, sign)
    return MCTSResult(
        value=sign * children[best].mean(),
        action=actions[best],
        action_values={a: sign * c.mean() for a, c in zip(actions, children, strict=False)},
        visits={a: c.visits for a, c in zip(actions, children, strict=False)},
        simulations=simulations,
        nodes=nodes,
        depth=depth,
        time_s=time_s,
        root=root,
    )


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


# Bots and registration ---------------------------------------------------------------------


class MCTSBot(PolicyBot):
    """A pyspiel bot running `mcts_search` on a private copy of the state at every move.

    A position with a single legal action is played at once, without search.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None, **options: Any):
        super().__init__(game, player, seed)
        self.options = options
        self.last_result: MCTSResult | None = None

    def choose(self, state: SearchState) -> int:
        """The most visited root action of a search within the budget."""
        actions = state.legal_actions()
        if len(actions) == 1:
            self.last_result = None
            return actions[0]
        result = mcts_search(state, self.game, seed=self.rng.getrandbits(63), **self.options)
        self.last_result = result
        return result.action

    def analyse(self, state: pyspiel.State) -> MCTSResult:
        """Runs the bot's search on `state` without playing (even with one legal action)."""
        result = mcts_search(
            search_state(state), self.game, seed=self.rng.getrandbits(63), **self.options
        )
        self.last_result = result
        return result


def budget_params(time_ms: float | None) -> dict[str, Param]:
    """The budget parameters, with `time_ms` defaulting to `time_ms` if no budget is given."""
    return {
        "max_simulations": Param(None, "simulations per move", int),
        "time_ms": Param(
            None, f"time budget per move in ms (default {time_ms:g} if no budget)", float
        ),
    }


ROLLOUT_DEPTH = Param(
    None,
    "random decision moves before the heuristic values a leaf: 0 = heuristic at the leaf "
    "(UCT-H), none or -1 = random games to the end",
    int,
)
_MCTS_PARAMS = {
    "uct_c": Param(DEFAULT_UCT_C, "UCT exploration constant (values in [-1, 1])"),
    "rollout_depth": ROLLOUT_DEPTH,
    **budget_params(DEFAULT_TIME_MS),
    "clock": CLOCK,
    "max_nodes": Param(None, "tree nodes per move (equal-work comparisons)", int),
    "heuristic": HEURISTIC,
}
_DPW_PARAMS = {
    **_MCTS_PARAMS,
    "pw_c": Param(DEFAULT_PW_C, "widening: ceil(pw_c * visits^pw_alpha) children admitted"),
    "pw_alpha": Param(DEFAULT_PW_ALPHA, "widening exponent, in (0, 1]"),
}


def _bot_options(
    game: pyspiel.Game,
    agent: str,
    max_simulations: int | None,
    time_ms: float | None,
    heuristic: str,
    **rest: Any,
) -> dict[str, Any]:
    """Checked search options for a bot; the default budget if none is given."""
    if max_simulations is None and time_ms is None and rest.get("max_nodes") is None:
        time_ms = DEFAULT_TIME_MS
    options = {"max_simulations": max_simulations, "time_ms": time_ms, **rest}
    check_mcts_params(**options)
    check_two_player_zero_sum(game, agent)
    return {**options, "evaluation": evaluation_for(game, heuristic)}


def fresh_seed(seed: int | None) -> int:
    """`seed`, or fresh entropy when it is None."""
    return seed if seed is not None else random.SystemRandom().getrandbits(63)


@register_agent(
    "mcts",
    "UCT with chance nodes in the tree (outcomes sampled by probability), random rollouts "
    "then the heuristic; the most visited move",
    _MCTS_PARAMS,
)
def _make_mcts(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    heuristic: str,
) -> MCTSBot:
    options = _bot_options(
        game,
        "mcts",
        max_simulations,
        time_ms,
        heuristic,
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        max_nodes=max_nodes,
        clock=clock,
    )
    return MCTSBot(game, player, fresh_seed(seed), **options)


@register_agent(
    "dpw",
    "MCTS with double progressive widening (MCMS paper section 2.2): ceil(pw_c * v^pw_alpha) "
    "actions (in move order) and sampled outcomes per node",
    _DPW_PARAMS,
)
def _make_dpw(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    uct_c: float,
    rollout_depth: int | None,
    max_simulations: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    pw_c: float,
    pw_alpha: float,
    heuristic: str,
) -> MCTSBot:
    options = _bot_options(
        game,
        "dpw",
        max_simulations,
        time_ms,
        heuristic,
        uct_c=uct_c,
        rollout_depth=rollout_depth,
        pw_c=pw_c,
        pw_alpha=pw_alpha,
        max_nodes=max_nodes,
        clock=clock,
    )
    return MCTSBot(game, player, fresh_seed(seed), **options)


def __getattr__(name: str) -> Any:
    """OpenSpiel's MCTS wrappers, once defined here, now live in `agents.openspiel_mcts`."""
    if name in ("OpenSpielMCTSBot", "OpenSpielCppMCTSBot"):
        from chancespiel.agents import openspiel_mcts

        return getattr(openspiel_mcts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
