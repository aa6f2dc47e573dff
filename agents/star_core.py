"""The procedures of expectimax, Star1, Star2 and their sampled forms (MCMS), compiled.

The specification is the MCMS paper ("Monte Carlo *-Minimax Search", Lanctot et al. 2013),
Algorithms 1 and 2, in its alpha-beta (not negamax) form; agents.star_minimax describes the
conventions (values for the root player, depth in decision plies, sample keys, probes, root
value kinds) and runs these procedures by iterative deepening. Each procedure is written once,
as the paper names it:

- `star`: a node with a window, dispatching to the three below (terminal and horizon nodes
  answer directly);
- `decision_node`: alpha-beta over the ordered actions; with `probe`, Star2's probe of one
  action;
- `chance_node`: Star1's search of the outcomes with per-outcome bounds (Algorithm 1), after
  Star2's probing phase (Algorithm 2), both over a `ChanceBounds`;
- `chance_average`: a chance node without pruning (remaining depth <= prune_min_depth);
- `expectimax`: the unpruned reference.

No pyspiel here: the module is part of the compiled engine (chancespiel.engine).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from chancespiel.agents.search_core import (
    ABSENT,
    INDEPENDENT,
    STRATIFIED,
    SYSTEMATIC,
    Budget,
    MoveTable,
    OrderedSearch,
    child_key,
    draw_outcomes,
    mix_key,
)
from chancespiel.games.core import CHANCE, TERMINAL, Core, Heuristic, Ordering

ALGORITHMS: Final = ("expectimax", "star1", "star2")
TABLES: Final = ("state", "path")  # keys of the best-move table
# Sums of probabilities carry rounding error: never cut on less than a proof.
FP_SLACK: Final = 1e-12
EXACT: Final = "exact"  # kinds of a root action value
UPPER: Final = "upper"
LOWER: Final = "lower"
_COUNT_MASK: Final = (1 << 32) - 1

# A root search: its value, best action, each action's value and each value's kind.
RootValues = tuple[float, int, dict[int, float], dict[int, str]]


@final
class ChanceBounds:
    """Star1's knowledge of one chance node (MCMS paper, Algorithm 1).

    Outcome i < count, of probability probs[i], is known to be worth within [lower[i],
    upper[i]] (unsearched: [vmin, vmax]); pess = sum p_i lower_i and opti = sum p_i upper_i
    bound the node. Children are made when first needed (a cut may come before most are) and
    kept between Star2's probing and its search.

    A search keeps one for each level of chance nodes on the current path and fills it anew
    at each chance node of that level (`reset`): its vectors of machine numbers grow to the
    most outcomes seen and are reused, where an object and five lists of boxed numbers a
    chance node cost about a tenth of Star2's work.
    """

    def __init__(self) -> None:
        self.state: Core | None = None
        self.count: i64 = 0
        self.outcomes: vec[i64] = vec[i64]()
        self.probs: vec[float] = vec[float]()
        self.lower: vec[float] = vec[float]()
        self.upper: vec[float] = vec[float]()
        self.children: list[Core | None] = []
        # The node's own keys: a child's are made only when it is searched (with a thousand
        # outcomes, most nodes cut after a few).
        self.key: i64 = 0
        self.ckey: i64 = 0
        self.vmin = 0.0
        self.vmax = 0.0
        self.pess = 0.0
        self.opti = 0.0

    def reset(
        self,
        state: Core,
        outcomes: Sequence[tuple[int, float]],
        key: i64,
        ckey: i64,
        vmin: float,
        vmax: float,
    ) -> None:
        """Makes this the chance node `state` with `outcomes`, every outcome unsearched."""
        n: i64 = len(outcomes)
        if len(self.probs) < n:
            self.outcomes = vec[i64]([0] * n)
            self.probs = vec[float]([0.0] * n)
            self.lower = vec[float]([0.0] * n)
            self.upper = vec[float]([0.0] * n)
            self.children = [None] * n
        ids, probs, lower, upper = self.outcomes, self.probs, self.lower, self.upper
        children = self.children
        for i, (outcome, prob) in enumerate(outcomes):
            ids[i] = outcome
            probs[i] = prob
            lower[i] = vmin
            upper[i] = vmax
            children[i] = None
        self.state = state
        self.count = n
        self.key = key
        self.ckey = ckey
        self.vmin = vmin
        self.vmax = vmax
        self.pess = vmin  # probabilities sum to 1
        self.opti = vmax

    def release(self) -> None:
        """Lets go of the node's state and children (made again by the next `reset`)."""
        self.state = None
        children = self.children
        for i in range(self.count):
            children[i] = None

    def child(self, i: i64) -> Core:
        """The child of outcome i, made once."""
        child = self.children[i]
        if child is None:
            state = self.state
            assert state is not None
            child = state.child(self.outcomes[i])
            self.children[i] = child
        return child

    def window(self, i: i64, alpha: float, beta: float) -> tuple[float, float]:
        """Outcome i's window: the values for which it could change whether the node cuts,
        alpha' = max(vmin, (alpha - opti + p u) / p), beta' = min(vmax, (beta - pess + p l) / p)."""
        prob = self.probs[i]
        child_alpha = (alpha - self.opti + prob * self.upper[i]) / prob
        if not child_alpha > self.vmin:  # max(vmin, child_alpha), without the call
            child_alpha = self.vmin
        child_beta = (beta - self.pess + prob * self.lower[i]) / prob
        if not child_beta < self.vmax:
            child_beta = self.vmax
        return child_alpha, child_beta

    def tighten(self, i: i64, low: float, up: float) -> None:
        """Outcome i is now known to lie within [low, up]."""
        prob = self.probs[i]
        self.pess += prob * (low - self.lower[i])
        self.opti += prob * (up - self.upper[i])
        self.lower[i] = low
        self.upper[i] = up

    def cut(self, alpha: float, beta: float) -> bool:
        """Whether the bounds prove the node's value outside the window.

        Tested on pess and opti (within FP_SLACK) rather than on v >= beta' as printed in the
        paper: with windows clipped to [vmin, vmax] the printed test can fire without a proof.
        """
        return self.pess >= beta - FP_SLACK or self.opti <= alpha + FP_SLACK

    def bound(self, beta: float) -> float:
        """The fail-soft value after a cut: pess on a fail high, else opti."""
        return self.pess if self.pess >= beta - FP_SLACK else self.opti

    def exact(self) -> float:
        """The value once every outcome is known exactly (pess == opti up to rounding): the
        sum of p_i lower_i, added in the order of the outcomes."""
        probs, lower = self.probs, self.lower
        total = 0.0
        for i in range(self.count):
            total += probs[i] * lower[i]
        return total


@mypyc_attr(allow_interpreted_subclasses=True)
class StarSearch(OrderedSearch):
    """One search from one root: the recursive procedures share this context.

    Every procedure takes two keys: `key`, the path key of the node (move ordering, probes), and
    `ckey`, the key its chance samples derive from: the same as `key`, or with shared samples
    the packed (last mover, chance nodes after each player's moves) described below.
    Subclasses may replace one procedure (agents.chance_probcut replaces `chance_node`).
    """

    def __init__(
        self,
        algorithm: str,
        root_player: int,
        evaluate: Heuristic,
        vmin: float,
        vmax: float,
        samples: int | None,
        seed: i64,
        prune_min_depth: int,
        ordering: Ordering | None,
        budget: Budget,
        shared_samples: bool = False,
        table: str = "state",
        full_root_window: bool = False,
        systematic: bool = False,
        exact_up_to: int = 0,
        exact_plies: int = 0,
        stratified: bool = False,
    ) -> None:
        super().__init__(ordering)
        self.algorithm = algorithm
        self.root = root_player
        self.evaluate = evaluate
        self.vmin = vmin
        self.vmax = vmax
        self.samples = samples
        self.seed = seed
        self.prune_min_depth = prune_min_depth
        self.budget = budget
        self.shared = shared_samples
        self.table = table
        self.full_root_window = full_root_window and samples is not None
        # How a sampled chance node is sampled, or enumerated (StarSearch.outcomes): a mode of
        # draw_outcomes, called natively (through a callable, the sample key would be boxed).
        self.draw_mode: i64 = (
            SYSTEMATIC if systematic else STRATIFIED if stratified else INDEPENDENT
        )
        self.exact_up_to = exact_up_to
        self.exact_plies = exact_plies
        # se_gap: the standard error a sampled chance node searched without a window draws
        # down to (`drawn_average`), set by the deepening before each depth (0: no more draws).
        self.se_target = 0.0
        self.sampled_here = False  # did `outcomes` draw a sample (not enumerate) just now?
        # The cost of a sampled search were the chance nodes within `count_plies` decision
        # plies of the root enumerated (`count_enumeration`): each such node's subtree weighed
        # by its outcomes over its draws, nested ones inside it first (open ones on stacks).
        self.count_plies = 0
        self.counted_nodes = 0  # such chance nodes met
        self.enumeration_extra = 0.0  # nodes the enumeration would add to the search's
        self.open_starts: list[int] = []  # the budget's nodes when each open node was met
        self.open_factors: list[float] = []  # its outcomes over its draws
        self.open_extra: list[float] = []  # what the nested ones closed so far would add
        self.root_depth = 0  # the depth of the current iteration (root_search)
        # Best moves are keyed by state (a transposition table, as the MCMS paper's
        # implementation had) or by path; root_search decides for the root's type.
        self.by_state = False
        self.path_keys = True  # are path keys needed? (root_search decides; see `path_key`)
        self.horizon_reached = False  # did the current iteration stop anywhere at depth 0?
        self.partial_sample = False  # did the current iteration omit an outcome anywhere?
        self.drew = False  # did it draw a sample anywhere (else it searched the classic tree)?
        self.evaluations = 0
        self.probes = MoveTable()  # path key -> the action probed and its exact value
        # One ChanceBounds for each level of chance nodes on the current path (`chance_node`).
        self.chance_bounds: list[ChanceBounds] = []
        self.chance_level: i64 = 0

    # Shared helpers -----------------------------------------------------------------------

    def path_key(self, key: i64, action: i64) -> i64:
        """The path key of the child reached by `action`, or 0 when no key is needed: path
        keys name nodes for their samples, Star2's probes and a best-move table kept by path;
        classic expectimax, and classic Star1 with its table by state, use none, and hashing
        every child's path cost Star1 a sixth of its time (lab/results/speed/)."""
        if self.path_keys:
            return child_key(key, action)
        return 0

    def chance_child_keys(self, key: i64, ckey: i64, outcome: i64) -> tuple[i64, i64]:
        """Path key and sample key of the child reached from the chance node (`key`, `ckey`)
        by `outcome`."""
        k = self.path_key(key, outcome)
        return k, self.chance_ckey(ckey, k)

    def outcomes(self, state: Core, depth: int, ckey: i64) -> Sequence[tuple[int, float]]:
        """The chance node's outcomes, or its sample (a function of its sample key).

        A sampled search enumerates a node with at most `exact_up_to` outcomes, and every node
        within `exact_plies` decision plies of the root; elsewhere it draws `samples` outcomes,
        independently, or (`systematic`) systematically, or (`stratified`) one in each stratum.
        A node within `count_plies` plies is counted (`close_counted` ends it).
        """
        outcomes = state.chance_outcomes()
        samples = self.samples
        self.sampled_here = False
        if samples is None:
            return outcomes
        plies = self.root_depth - depth  # decision plies between the root and this node
        if self.exact_plies > 0 and plies <= self.exact_plies:
            return outcomes
        sample = outcomes
        if len(outcomes) > self.exact_up_to:
            sample = draw_outcomes(
                outcomes, samples, self.sample_key(ckey), self.budget, self.draw_mode
            )
            self.drew = self.sampled_here = True
            if len(sample) < len(outcomes):
                self.partial_sample = True
        if self.count_plies > 0 and self.counts(depth):
            self.counted_nodes += 1
            self.open_starts.append(self.budget.nodes)
            self.open_factors.append(len(outcomes) / len(sample))
            self.open_extra.append(0.0)
        return sample

    def sample_key(self, ckey: i64) -> i64:
        """The key a chance node's sample is drawn from, of its sample key `ckey`."""
        if self.shared:  # (last mover, chance nodes after that player's moves so far)
            last = ckey & 1
            ckey = child_key(last, ckey >> 33 if last else (ckey >> 1) & _COUNT_MASK)
        return mix_key(ckey ^ self.seed)

    def drawn_average(
        self, state: Core, depth: int, key: i64, ckey: i64, sample: Sequence[tuple[int, float]]
    ) -> float:
        """`se_gap`: the mean value of a sampled chance node searched without a window, its
        outcomes drawn `samples` more at a time (each batch from a key of its own) until the
        standard error of the mean of all its draws is at most `se_target`, or it has drawn
        as many times as it has outcomes. An outcome drawn again is not searched again: its
        subtree's samples derive from its path, so its value would be the same. The draws
        are taken as independent, so the error is overstated for stratified ones."""
        outcomes = state.chance_outcomes()
        per_batch = len(sample) if self.samples is None else self.samples
        values: dict[int, float] = {}
        limit = self.se_target * self.se_target
        weight = first = second = 0.0  # the draws' weight, and their values' two moments
        batch: i64 = 0
        while True:
            for outcome, share in sample:
                value = values.get(outcome)
                if value is None:
                    value = self.child_value(state, depth, key, ckey, outcome)
                    values[outcome] = value
                weight += share
                first += share * value
                second += share * value * value
            batch += 1
            # (one batch: the plain node's sum, to the last bit, as its weights sum to 1)
            mean = first if batch == 1 else first / weight
            draws = float(per_batch) * float(batch)
            if draws >= float(len(outcomes)):
                return mean
            # Stop once the squared standard error of the mean, the draws' (biased) variance
            # over draws - 1, is within the bound.
            if draws > 1.0 and second / weight - mean * mean <= limit * (draws - 1.0):
                return mean
            sample = draw_outcomes(
                outcomes,
                per_batch,
                mix_key(self.sample_key(ckey) ^ batch),
                self.budget,
                self.draw_mode,
            )

    def child_value(self, state: Core, depth: int, key: i64, ckey: i64, outcome: int) -> float:
        """The value of the chance node's child by `outcome`, searched without a window."""
        k, c = self.chance_child_keys(key, ckey, outcome)
        if self.algorithm == "expectimax":
            return self.expectimax(state.child(outcome), depth, k, c)
        return self.star(state.child(outcome), depth, self.vmin, self.vmax, k, c)

    def count_enumeration(self, plies: int) -> None:
        """Starts counting what enumerating the chance nodes within `plies` decision plies of
        the root, sampled in this search, would cost (0: no counting)."""
        self.count_plies = plies
        self.counted_nodes = 0
        self.enumeration_extra = 0.0
        self.open_starts.clear()
        self.open_factors.clear()
        self.open_extra.clear()

    def counts(self, depth: int) -> bool:
        """Whether `outcomes` counts a chance node at `depth`: sampled (not enumerated for
        being within `exact_plies`) and within `count_plies` decision plies of the root."""
        plies = self.root_depth - depth
        return (
            self.samples is not None
            and plies <= self.count_plies
            and not (self.exact_plies > 0 and plies <= self.exact_plies)
        )

    def close_counted(self, depth: int) -> None:
        """Ends a chance node searched at `depth`: if `outcomes` counted it, its subtree's nodes
        enumerated are its nodes sampled (and what its nested counted nodes add) times its
        outcomes over its draws; the excess goes to the enclosing counted node, or the search."""
        if not self.counts(depth):
            return
        sampled = float(self.budget.nodes - self.open_starts.pop())
        enumerated = self.open_factors.pop() * (sampled + self.open_extra.pop())
        if self.open_extra:
            self.open_extra[-1] += enumerated - sampled
        else:
            self.enumeration_extra += enumerated - sampled

    def leaf(self, state: Core) -> float:
        """The heuristic value of a non-terminal node at the horizon."""
        self.horizon_reached = True
        self.evaluations += 1
        return self.evaluate(state, self.root)

    # Shared sample keys pack three numbers into an int: bit 0 is the last player to move,
    # bits 1-32 count the chance nodes met after player 0's moves on the path, bits 33 and up
    # those after player 1's. The n-th chance node after a player's moves draws the same
    # uniform numbers wherever it is in the tree: every line sees "that player's n-th roll"
    # alike, as dice dealt in advance to each player would be.

    def decision_ckey(self, ckey: i64, player: i64, key: i64) -> i64:
        """Sample key of the children of `player`'s decision node, whose child's path key is
        `key`."""
        if self.shared:
            return (ckey & ~1) | player
        return key

    def chance_ckey(self, ckey: i64, key: i64) -> i64:
        """Sample key of a chance node's child, whose path key is `key`."""
        if not self.shared:
            return key
        if ckey & 1:
            return ckey + (1 << 33)
        return ckey + 2

    # Expectimax ---------------------------------------------------------------------------

    def expectimax(self, state: Core, depth: int, key: i64, ckey: i64) -> float:
        """Exact depth-limited expectimax value for the root player (no pruning).

        Without pruning, move order changes nothing, so no best moves are stored; path keys
        are only needed to sample chance nodes.
        """
        self.budget.tick()
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[self.root]
        if depth == 0:
            return self.leaf(state)
        sampled = self.samples is not None
        if player == CHANCE:
            total = 0.0
            sample = self.outcomes(state, depth, ckey)
            if self.sampled_here and self.se_target > 0.0:
                total = self.drawn_average(state, depth, key, ckey, sample)
            else:
                for outcome, prob in sample:
                    k = self.path_key(key, outcome)
                    c: i64 = 0
                    if sampled:
                        c = self.chance_ckey(ckey, k)
                    total += prob * self.expectimax(state.child(outcome), depth, k, c)
            if self.count_plies:
                self.close_counted(depth)
            return total
        values = []
        for action in state.legal_actions():
            k = self.path_key(key, action)
            c = 0
            if sampled:
                c = self.decision_ckey(ckey, player, k)
            values.append(self.expectimax(state.child(action), depth - 1, k, c))
        return max(values) if player == self.root else min(values)

    # Star1 / Star2 ------------------------------------------------------------------------

    def star(
        self, state: Core, depth: int, alpha: float, beta: float, key: i64, ckey: i64
    ) -> float:
        """Fail-soft value in window (alpha, beta): exact inside it, a bound outside it.

        Requires vmin <= alpha < beta <= vmax; every window the search derives satisfies it.
        """
        self.budget.tick()
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[self.root]
        if depth == 0:
            return self.leaf(state)
        if player != CHANCE:
            return self.decision_node(state, depth, alpha, beta, key, ckey, False)
        if depth <= self.prune_min_depth:
            return self.chance_average(state, depth, key, ckey)
        return self.chance_node(state, depth, alpha, beta, key, ckey)

    def decision_node(
        self,
        state: Core,
        depth: int,
        alpha: float,
        beta: float,
        key: i64,
        ckey: i64,
        probe: bool,
    ) -> float:
        """Alpha-beta at a decision node; with `probe`, Star2's probe: the first ordered
        action alone, whose value (a bound for the node) is kept for reuse when exact."""
        player = state.current_player()
        maximizing = player == self.root
        table_key = state.state_key() if self.by_state else key
        actions = self.ordered_actions(state, table_key)
        if probe:
            actions = actions[:1]
        probed: i64 = ABSENT  # the action of Star2's probe of this node, if exact
        probed_value = 0.0
        if not probe:
            probed, probed_value = self.probes.take(key)
        best_value = -math.inf if maximizing else math.inf
        best_action = actions[0]
        for action in actions:
            if probed == action:
                value = probed_value  # exact, from Star2's probe of this node
            else:
                k = self.path_key(key, action)
                c = self.decision_ckey(ckey, player, k)
                value = self.star(state.child(action), depth - 1, alpha, beta, k, c)
                if probe and alpha < value < beta:
                    self.probes.put(key, action, value)
            if maximizing:
                if value > best_value:
                    best_value, best_action = value, action
                    if value > alpha:
                        alpha = value
            elif value < best_value:
                best_value, best_action = value, action
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        if not probe:
            self.remember(table_key, best_action)
        return best_value

    def chance_average(self, state: Core, depth: int, key: i64, ckey: i64) -> float:
        """A chance node searched without pruning (children get the full window)."""
        total = 0.0
        sample = self.outcomes(state, depth, ckey)
        if self.sampled_here and self.se_target > 0.0:
            total = self.drawn_average(state, depth, key, ckey, sample)
        else:
            for outcome, prob in sample:
                k, c = self.chance_child_keys(key, ckey, outcome)
                total += prob * self.star(state.child(outcome), depth, self.vmin, self.vmax, k, c)
        if self.count_plies:
            self.close_counted(depth)
        return total

    def chance_node(
        self, state: Core, depth: int, alpha: float, beta: float, key: i64, ckey: i64
    ) -> float:
        """Star1 (Algorithm 1) or Star2 (Algorithm 2) at a chance node."""
        outcomes = self.outcomes(state, depth, ckey)
        level = self.chance_level
        if level == len(self.chance_bounds):
            self.chance_bounds.append(ChanceBounds())
        node = self.chance_bounds[level]
        node.reset(state, outcomes, key, ckey, self.vmin, self.vmax)
        self.chance_level = level + 1  # (root_search starts at 0 again after a timeout)
        if self.algorithm == "star2" and self.probe_outcomes(node, depth, alpha, beta):
            value = node.bound(beta)
        else:
            value = self.search_outcomes(node, depth, alpha, beta)
        node.release()
        self.chance_level = level
        if self.count_plies:
            self.close_counted(depth)
        return value

    def probe_outcomes(self, node: ChanceBounds, depth: int, alpha: float, beta: float) -> bool:
        """Star2's probing phase: one action at each decision child gives a one-sided bound
        (a lower bound at a Max child, an upper bound at a Min child); True on a cut.

        A probe bounds only if it did not fail on the other side of its window (a fail-low
        probe of a Max child bounds nothing); one that cannot cause a cut (a Max child while
        beta = vmax, a Min child while alpha = vmin) is skipped.
        """
        root, vmin, vmax = self.root, self.vmin, self.vmax
        for i in range(node.count):
            child = node.child(i)
            player = child.current_player()
            if player == CHANCE:
                continue  # no single action to probe
            if player == TERMINAL:
                self.budget.tick()
                value = child.returns()[root]
                node.tighten(i, value, value)
            elif beta >= vmax if player == root else alpha <= vmin:
                continue
            else:
                child_alpha, child_beta = node.window(i, alpha, beta)
                self.budget.tick()
                key, ckey = self.chance_child_keys(node.key, node.ckey, node.outcomes[i])
                value = self.decision_node(child, depth, child_alpha, child_beta, key, ckey, True)
                if player == root:
                    if value > child_alpha and value > node.lower[i]:  # a proof: child >= value
                        node.tighten(i, value, node.upper[i])
                elif value < child_beta and value < node.upper[i]:  # a proof: child <= value
                    node.tighten(i, node.lower[i], value)
            if node.cut(alpha, beta):
                return True
        return False

    def search_outcomes(self, node: ChanceBounds, depth: int, alpha: float, beta: float) -> float:
        """Star1's search of the outcomes (Algorithm 1): each child with the window in which
        it could cause a cut; a child that fails high (low) only raises (lowers) one side of
        its bounds, so a bound is never taken for an exact value."""
        vmin, vmax = self.vmin, self.vmax
        for i in range(node.count):
            low, up = node.lower[i], node.upper[i]
            if low == up:
                continue  # known exactly (a terminal child found while probing)
            child_alpha, child_beta = node.window(i, alpha, beta)
            key, ckey = self.chance_child_keys(node.key, node.ckey, node.outcomes[i])
            value = self.star(node.child(i), depth, child_alpha, child_beta, key, ckey)
            if value >= child_beta and child_beta < vmax:  # fail high: a lower bound
                node.tighten(i, value if value > low else low, up)
            elif value <= child_alpha and child_alpha > vmin:  # fail low: an upper bound
                node.tighten(i, low, value if value < up else up)
            else:
                node.tighten(i, value, value)
            if node.cut(alpha, beta):
                return node.bound(beta)
        return node.exact()

    # Root ---------------------------------------------------------------------------------

    def root_search(self, state: Core, depth: int) -> RootValues:
        """Searches every root action at `depth`.

        Returns:
          The value, the best action, each action's value and its kind (EXACT, or UPPER for a
          Star1/Star2 child that failed low against the best value so far).
        """
        assert state.current_player() == self.root, "the root player moves at the root"
        self.root_depth = depth
        self.chance_level = 0
        values: dict[int, float] = {}
        kinds: dict[int, str] = {}
        best_value, best_action = -math.inf, -1
        self.by_state = self.table == "state" and state.has_state_key()
        self.path_keys = self.samples is not None or (
            self.algorithm != "expectimax" and (self.algorithm == "star2" or not self.by_state)
        )
        table_key = state.state_key() if self.by_state else 0
        vmin, vmax = self.vmin, self.vmax
        for action in self.ordered_actions(state, table_key):
            key = child_key(0, action)
            ckey = self.decision_ckey(0, self.root, key)  # no chance node yet
            if self.algorithm == "expectimax":
                value = self.expectimax(state.child(action), depth - 1, key, ckey)
                kinds[action] = EXACT
            else:
                # Root pruning as in every alpha-beta search: a later child only has to be
                # proved no better than the best so far. With `full_root_window` (implied by
                # `resample`, whose mean of bounds would be no estimate) every sampled root
                # child is searched exactly instead.
                alpha = vmin if self.full_root_window else max(vmin, best_value)
                if alpha >= vmax:
                    # Nothing beats vmax; an empty window would return no bound at all.
                    values[action], kinds[action] = vmax, UPPER
                    continue
                value = self.star(state.child(action), depth - 1, alpha, vmax, key, ckey)
                # Fail-soft: at or below alpha (> vmin) the value only bounds the child.
                kinds[action] = UPPER if value <= alpha and alpha > vmin else EXACT
            values[action] = value
            if value > best_value:
                best_value, best_action = value, action
        self.remember(table_key, best_action)
        return best_value, best_action, values, kinds
