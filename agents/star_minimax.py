"""Expectimax, Star1 and Star2 (*-Minimax), and Monte Carlo *-Minimax (sampled chance nodes).

The specification is the MCMS paper ("Monte Carlo *-Minimax Search", Lanctot et al. 2013),
Algorithms 1 and 2 and Section 3, in its alpha-beta (not negamax) form: values are for the root
player (the Max player); whether a node is Max or Min is read from its current player, so games
where a chance outcome decides who moves next (Pig, Can't Stop, Ra) are handled.

- Depth counts decision plies; chance nodes do not count. A non-terminal node at depth 0 is
  evaluated by the heuristic, a terminal node by its returns; this is exactly OpenSpiel's
  `expectiminimax`, which the tests use as the reference.
- `samples=c` replaces every chance node by c outcomes drawn with replacement (weights 1/c,
  duplicates merged): expss / star1ss / star2ss. Within one search a node's sample is a pure
  function of its path from the root and the search's sample stream (see search_common), so
  the three sample identically and Star2 probes and searches the same sample (MCMS paper,
  section 3.1). With `shared_samples`, a chance node's sample key is only "the n-th chance
  node after player p's moves" on its path (neither moves nor outcomes): sibling subtrees use
  the same uniform numbers for each player's n-th roll, hence the same outcomes when the
  distributions are equal (common random numbers, like dice dealt in advance to each player,
  so the difference between two moves carries less noise). Each node's sample is still an
  independent-looking draw from its own distribution; only the correlation between nodes
  changes.
- Sampled iterative deepening is the paper's (sections 3.1 and 4.2): one search per depth, each
  drawing from a fresh sample stream (the n-th depth from stream n, so expss, star1ss and
  star2ss with one seed sample alike), and on timeout the best move of the last completed
  depth. Under a budget a sample that never met the horizon ends the deepening, as in the
  classic search; with `max_depth` alone every depth 1..max_depth is searched once. Root
  pruning is that of Star1/Star2. `result.iterations` lists every completed search.
- Opt-in additions to the paper's sampled search (`SampledOptions`, each a bot parameter):
  `resample` (repeat a depth with fresh samples and average where going deeper cannot help),
  `full_root_window` (exact sampled root values), `distrust_decided` (a sampled vmin/vmax
  does not replace the shallower depth), `solve_exhausted` (a sample that drew every
  outcome above the horizon triggers the classic search of the real tree), and
  `shared_samples` above. docs/mcms.md tabulates them with their measured effects.
- Star1 keeps per-outcome bounds [l_o, u_o] at chance nodes, with pess = sum p_o l_o and
  opti = sum p_o u_o, and searches outcome o with the window
  alpha' = max(vmin, (alpha - opti + p_o u_o) / p_o),
  beta' = min(vmax, (beta - pess + p_o l_o) / p_o).
  We cut when pess >= beta or opti <= alpha (within FP_SLACK) rather than on v >= beta' as
  printed: with windows clipped to [vmin, vmax] the printed test can fire without a proof.
- Star2 first probes each outcome's child with its first action only (after move ordering). At a
  Max child the probe is a lower bound, at a Min child an upper bound, but only if the probe did
  not fail on the other side of its window (a fail-low probe of a Max child bounds nothing).
  A probe that cannot cause a cut (a Max child while beta = vmax, a Min child while
  alpha = vmin) is skipped, and an exact probe value is reused when the full search reaches the
  same action, so probing on the principal variation costs nothing.
- A child that fails high/low only tightens one side of its outcome's bounds, so a bound is never
  taken for an exact value.
- Root action values: expectimax's are exact; a Star1/Star2 root child searched with the
  window (best so far, vmax) that fails low is an upper bound (`action_value_kinds` says
  which); once a child is worth vmax the later ones are not searched and get the bound vmax.
  With `full_root_window` every root value is exact.
- `evaluations` counts heuristic calls (terminal returns are not heuristic calls), `nodes` the
  nodes visited, so searches can be compared at equal work.
- Iterative deepening under `time_ms` / `max_nodes` keeps the best move of the last completed
  depth; a transposition table keyed by state (`state_key()` of the cores; `table="path"`
  keys it by path, the only choice for states without a key of their own, those of the
  pyspiel adapter: `has_state_key()`) stores each decision node's best move, searched first at
  the next depth and wherever the state recurs; games may register a static move ordering
  (games.registry.register_move_ordering).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.protocol import search_state
from chancespiel.agents.registry import HEURISTIC, Param, register_agent
from chancespiel.agents.search_common import (
    CLOCK,
    MASK64,
    MAX_TABLE_SIZE,
    Budget,
    MoveOrderingMixin,
    SearchTimeout,
    check_budget,
    check_two_player_zero_sum,
    child_key,
    clock_named,
    deepen,
    mix64,
    sample_outcomes,
)
from chancespiel.games.core import CHANCE, TERMINAL, Core
from chancespiel.games.registry import evaluation_for, move_ordering_for

ALGORITHMS = ("expectimax", "star1", "star2")
TABLES = ("state", "path")  # keys of the best-move table
FP_SLACK = 1e-12  # sums of probabilities carry rounding error; never cut on less than a proof
EXACT, UPPER, LOWER = "exact", "upper", "lower"  # kinds of a root action value
_COUNT_MASK = (1 << 32) - 1

Evaluation = Callable[[Any, int], float]
Ordering = Callable[[Any, Sequence[int]], Sequence[int]]


@dataclass(frozen=True)
class Iteration:
    """One completed search of iterative deepening: its depth, root value and best action, and
    the nodes it visited."""

    depth: int
    value: float
    action: int
    nodes: int


@dataclass(frozen=True)
class SampledOptions:
    """Opt-in additions to the paper's sampled search (all off: the MCMS paper's algorithm).

    resample: under a budget, repeat a depth with fresh samples instead of going deeper when
      the sample never met the horizon, when the root value is vmin or vmax, or at max_depth
      with budget left; the result averages each root action's value over the searches of
      the deepest depth (implies full_root_window: a mean of bounds is no estimate).
    full_root_window: sampled Star1/Star2 search every root child with the full window
      (exact root values, no root pruning).
    distrust_decided: a depth whose (mean) sampled root value is vmin or vmax does not
      replace the shallower depth's result (a sample cannot prove a win).
    solve_exhausted: a sampled search that met neither the horizon nor an omitted outcome
      triggers the classic search of the real tree at that depth; if it also ends above
      the horizon, the position is solved and the search stops.
    """

    resample: bool = False
    full_root_window: bool = False
    distrust_decided: bool = False
    solve_exhausted: bool = False


@dataclass
class SearchResult:
    """What a search found.

    `action_values` are exact for expectimax. For star1/star2 the best action's value is exact
    and the others may be upper bounds (proved no better, not evaluated exactly):
    `action_value_kinds` maps every action to "exact", "upper" or "lower". Sampled searches
    repeated at one depth report the mean over the `searches` completed searches of that depth;
    their `values_by_depth` has the value after every completed search.
    """

    value: float
    action: int
    action_values: dict[int, float]
    nodes: int
    depth: int  # deepest completed iteration
    time_s: float
    completed: bool = True  # False if the budget ran out before max_depth
    values_by_depth: list[float] = field(default_factory=list)
    action_value_kinds: dict[int, str] = field(default_factory=dict)
    evaluations: int = 0  # heuristic evaluations
    searches: int = 1  # completed searches averaged at `depth` (`resample`)
    solved: bool = False  # a classic search of the real tree finished without the horizon
    iterations: list[Iteration] = field(default_factory=list)  # every completed search


class _Search(MoveOrderingMixin):
    """One search from one root: the recursive procedures share this context.

    Every procedure takes two keys: `key`, the path key of the node (move ordering, probes), and
    `ckey`, the key its chance samples derive from: the same as `key`, or with shared samples
    the packed (last mover, chance nodes after each player's moves) described below.
    """

    def __init__(
        self,
        algorithm: str,
        root_player: int,
        evaluate: Evaluation,
        vmin: float,
        vmax: float,
        samples: int | None,
        seed: int,
        prune_min_depth: int,
        ordering: Ordering | None,
        budget: Budget,
        shared_samples: bool = False,
        table: str = "state",
        full_root_window: bool = False,
    ):
        self.algorithm = algorithm
        self.root = root_player
        self.evaluate = evaluate
        self.vmin = vmin
        self.vmax = vmax
        self.samples = samples
        self.seed = seed
        self.prune_min_depth = prune_min_depth
        self.ordering = ordering
        self.budget = budget
        self.shared = shared_samples
        self.table = table
        self.full_root_window = full_root_window and samples is not None
        # Best moves for ordering, keyed by state (a transposition table, as the MCMS paper's
        # implementation had) or by path; `table_key` is set by root_search for the root's type.
        self.best_moves: dict[int, int] = {}
        self.by_state = False
        self.horizon_reached = False  # did the current iteration stop anywhere at depth 0?
        self.partial_sample = False  # did the current iteration omit an outcome anywhere?
        self.evaluations = 0
        self.probes: dict[int, tuple[int, float]] = {}  # key -> (action, exact probe value)
        # make_child(state, action): the `child` method of the root's type, set by root_search
        # (looked up once: every state of a search has the root's type).
        self.make_child: Callable[[Core, int], Core] = Core.child

    # Shared helpers -----------------------------------------------------------------------

    def outcomes(self, state: Core, ckey: int) -> Sequence[tuple[int, float]]:
        """The chance node's outcomes, or its sample (a function of its sample key)."""
        outcomes = state.chance_outcomes()
        if self.samples is None:
            return outcomes
        if self.shared:  # (last mover, chance nodes after that player's moves so far)
            last = ckey & 1
            ckey = child_key(last, ckey >> 33 if last else (ckey >> 1) & _COUNT_MASK)
        sample = sample_outcomes(outcomes, self.samples, mix64((ckey ^ self.seed) & MASK64))
        if len(sample) < len(outcomes):
            self.partial_sample = True
        return sample

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

    @staticmethod
    def mover_ckey(ckey: int, player: int) -> int:
        """Shared sample key of the children of `player`'s decision node."""
        return (ckey & ~1) | player

    @staticmethod
    def chance_ckey(ckey: int) -> int:
        """Shared sample key of the children of a chance node."""
        return ckey + (1 << 33 if ckey & 1 else 2)

    # Expectimax ---------------------------------------------------------------------------

    def expectimax(self, state: Core, depth: int, key: int, ckey: int) -> float:
        """Exact depth-limited expectimax value for the root player (no pruning).

        Without pruning, move order changes nothing, so no best moves are stored; path keys
        are only needed to sample chance nodes.
        """
        budget = self.budget
        budget.nodes += 1
        if not budget.nodes & 255:
            budget.check()
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[self.root]
        if depth == 0:
            return self.leaf(state)
        sampled = self.samples is not None
        if player == CHANCE:
            total = 0.0
            for outcome, prob in self.outcomes(state, ckey):
                child = self.make_child(state, outcome)
                if sampled:
                    k = child_key(key, outcome)
                    total += prob * self.expectimax(
                        child, depth, k, self.chance_ckey(ckey) if self.shared else k
                    )
                else:
                    total += prob * self.expectimax(child, depth, 0, 0)
            return total
        values = []
        shared_ckey = self.mover_ckey(ckey, player) if self.shared else 0
        for action in state.legal_actions():
            child = self.make_child(state, action)
            if sampled:
                k = child_key(key, action)
                values.append(
                    self.expectimax(child, depth - 1, k, shared_ckey if self.shared else k)
                )
            else:
                values.append(self.expectimax(child, depth - 1, 0, 0))
        return max(values) if player == self.root else min(values)

    # Star1 / Star2 ------------------------------------------------------------------------

    def star(
        self, state: Core, depth: int, alpha: float, beta: float, key: int, ckey: int
    ) -> float:
        """Fail-soft value in window (alpha, beta): exact inside it, a bound outside it.

        Requires vmin <= alpha < beta <= vmax; every window the search derives satisfies it.
        The root calls it; `decision_node` and `chance_node` inline it for their children.
        """
        self.budget.tick()
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[self.root]
        if depth == 0:
            return self.leaf(state)
        if player == CHANCE:
            if depth <= self.prune_min_depth:
                return self.chance_average(state, depth, key, ckey)
            return self.chance_node(state, depth, alpha, beta, key, ckey)
        return self.decision_node(state, depth, alpha, beta, key, ckey, probe=False)

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
        """Alpha-beta at a decision node; with `probe`, only the first ordered action.

        The move ordering (`ordered_actions`), `child_key`, `star`'s prologue for the children
        and `remember` are inlined: this loop runs at every decision node, and in Pig and EWN
        the search's own calls cost as much as the rules.
        """
        player = state.current_player()
        maximizing = player == self.root
        shared = self.shared
        shared_ckey = self.mover_ckey(ckey, player) if shared else 0
        actions = state.legal_actions()
        if self.ordering is not None:
            actions = self.ordering(state, actions)
        best_moves = self.best_moves
        table_key = state.state_key() if self.by_state else key
        best = best_moves.get(table_key)
        # `best in actions`: a state key's hash collision must not bring in an illegal move.
        if best is not None and best != actions[0] and best in actions:
            actions = [best, *(a for a in actions if a != best)]
        if probe:
            actions = actions[:1]
        best_value = -math.inf if maximizing else math.inf
        best_action = actions[0]
        probed = None if probe else self.probes.pop(key, None)
        make_child = self.make_child
        frontier = depth == 1  # every child is a leaf: star(child, 0, ...) is inlined
        budget, root, evaluate = self.budget, self.root, self.evaluate
        depth -= 1  # the children's depth
        for action in actions:
            if probed is not None and probed[0] == action:
                value = probed[1]  # exact, from Star2's probe of this node
            else:
                child = make_child(state, action)
                budget.nodes += 1  # star(child, ...)'s tick
                if not budget.nodes & 255:
                    budget.check()
                child_player = child.current_player()
                if child_player == TERMINAL:
                    value = child.returns()[root]
                elif frontier:
                    self.horizon_reached = True
                    self.evaluations += 1
                    value = evaluate(child, root)
                else:
                    k = hash((key, action))  # child_key(key, action)
                    ck = shared_ckey if shared else k
                    if child_player != CHANCE:
                        value = self.decision_node(child, depth, alpha, beta, k, ck, False)
                    elif depth <= self.prune_min_depth:
                        value = self.chance_average(child, depth, k, ck)
                    else:
                        value = self.chance_node(child, depth, alpha, beta, k, ck)
                if probe and alpha < value < beta:
                    self.probes[key] = (action, value)
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
            if len(best_moves) >= MAX_TABLE_SIZE:  # remember(table_key, best_action)
                best_moves.clear()
            best_moves[table_key] = best_action
        return best_value

    def chance_average(self, state: Core, depth: int, key: int, ckey: int) -> float:
        """A chance node searched without pruning (children get the full window)."""
        total = 0.0
        for outcome, prob in self.outcomes(state, ckey):
            child = self.make_child(state, outcome)
            k = child_key(key, outcome)
            c = self.chance_ckey(ckey) if self.shared else k
            total += prob * self.star(child, depth, self.vmin, self.vmax, k, c)
        return total

    def chance_node(
        self, state: Core, depth: int, alpha: float, beta: float, key: int, ckey: int
    ) -> float:
        """Star1 (Algorithm 1) or Star2 (Algorithm 2) at a chance node.

        As in `decision_node`, `child_key`, `Budget.tick` and `star`'s prologue for the
        children are inlined.
        """
        vmin, vmax = self.vmin, self.vmax
        outcomes = self.outcomes(state, ckey)
        n = len(outcomes)
        lower = [vmin] * n
        upper = [vmax] * n
        pess, opti = vmin, vmax  # probabilities sum to 1
        # Children are made when first needed (a cut may come before most are), and kept
        # between Star2's probing and its full search.
        children: list[Core | None] = [None] * n
        keys = [hash((key, outcome)) for outcome, _ in outcomes]  # child_key(key, outcome)
        ckeys = [self.chance_ckey(ckey)] * n if self.shared else keys
        budget, root, make_child = self.budget, self.root, self.make_child

        if self.algorithm == "star2":
            # Probing phase: one action at each decision child gives a one-sided bound.
            # At depth 1 the probe (decision_node with probe=True: the first ordered action,
            # a leaf) is inlined: half of the nodes of a shallow search are such probes.
            ordering, best_moves, probes = self.ordering, self.best_moves, self.probes
            evaluate, by_state = self.evaluate, self.by_state
            i = -1
            for outcome, prob in outcomes:
                i += 1
                child = make_child(state, outcome)
                children[i] = child
                player = child.current_player()
                if player == CHANCE:
                    continue  # no single action to probe
                if player == TERMINAL:
                    budget.nodes += 1
                    if not budget.nodes & 255:
                        budget.check()
                    value = child.returns()[root]
                    pess += prob * (value - lower[i])
                    opti += prob * (value - upper[i])
                    lower[i] = upper[i] = value
                else:
                    if beta >= vmax if player == root else alpha <= vmin:
                        continue  # a lower (upper) bound cannot reach beta = vmax (alpha = vmin)
                    child_beta = (beta - pess + prob * lower[i]) / prob
                    if not child_beta < vmax:  # min(vmax, child_beta), without the call
                        child_beta = vmax
                    child_alpha = (alpha - opti + prob * upper[i]) / prob
                    if not child_alpha > vmin:  # max(vmin, child_alpha), without the call
                        child_alpha = vmin
                    budget.nodes += 1
                    if not budget.nodes & 255:
                        budget.check()
                    if depth == 1:
                        k = keys[i]
                        actions = child.legal_actions()
                        first = best_moves.get(child.state_key() if by_state else k)
                        if first is None or first not in actions:
                            if ordering is not None:
                                actions = ordering(child, actions)
                            first = actions[0]
                        leaf = make_child(child, first)
                        budget.nodes += 1
                        if not budget.nodes & 255:
                            budget.check()
                        if leaf.current_player() == TERMINAL:
                            value = leaf.returns()[root]
                        else:
                            self.horizon_reached = True
                            self.evaluations += 1
                            value = evaluate(leaf, root)
                        if child_alpha < value < child_beta:
                            probes[k] = (first, value)
                    else:
                        value = self.decision_node(
                            child, depth, child_alpha, child_beta, keys[i], ckeys[i], True
                        )
                    if player == root:
                        if value > child_alpha and value > lower[i]:  # a proof: child >= value
                            pess += prob * (value - lower[i])
                            lower[i] = value
                    elif value < child_beta and value < upper[i]:  # a proof: child <= value
                        opti += prob * (value - upper[i])
                        upper[i] = value
                if pess >= beta - FP_SLACK:
                    return pess
                if opti <= alpha + FP_SLACK:
                    return opti

        # depth >= 1 here (star values chance nodes at depth 0 by the heuristic), so no child
        # of this node is a leaf.
        prune_min_depth = self.prune_min_depth
        i = -1
        for outcome, prob in outcomes:
            i += 1
            low, up = lower[i], upper[i]
            if low == up:
                continue  # known exactly (a terminal child found while probing)
            kept = children[i]  # made while probing, or not yet
            child = kept if kept is not None else make_child(state, outcome)
            child_alpha = (alpha - opti + prob * up) / prob
            if not child_alpha > vmin:  # max(vmin, child_alpha), without the call
                child_alpha = vmin
            child_beta = (beta - pess + prob * low) / prob
            if not child_beta < vmax:  # min(vmax, child_beta), without the call
                child_beta = vmax
            budget.nodes += 1  # star(child, ...) from here on
            if not budget.nodes & 255:
                budget.check()
            player = child.current_player()
            if player == TERMINAL:
                value = child.returns()[root]
            elif player != CHANCE:
                value = self.decision_node(
                    child, depth, child_alpha, child_beta, keys[i], ckeys[i], False
                )
            elif depth <= prune_min_depth:
                value = self.chance_average(child, depth, keys[i], ckeys[i])
            else:
                value = self.chance_node(child, depth, child_alpha, child_beta, keys[i], ckeys[i])
            if value >= child_beta and child_beta < vmax:  # fail high: a lower bound
                new_lower, new_upper = (value if value > low else low), up
            elif value <= child_alpha and child_alpha > vmin:  # fail low: an upper bound
                new_lower, new_upper = low, (value if value < up else up)
            else:
                new_lower = new_upper = value
            pess += prob * (new_lower - low)
            opti += prob * (new_upper - up)
            lower[i], upper[i] = new_lower, new_upper
            if pess >= beta - FP_SLACK:
                return pess
            if opti <= alpha + FP_SLACK:
                return opti
        # Every outcome searched without a cut: all are exact, so pess == opti (up to rounding).
        return sum([prob * lower[i] for i, (_, prob) in enumerate(outcomes)])

    # Root ---------------------------------------------------------------------------------

    def root_search(
        self, state: Core, depth: int
    ) -> tuple[float, int, dict[int, float], dict[int, str]]:
        """Searches every root action at `depth`.

        Returns:
          The value, the best action, each action's value and its kind (EXACT, or UPPER for a
          Star1/Star2 child that failed low against the best value so far).
        """
        maximizing = state.current_player() == self.root
        assert maximizing, "the root player moves at the root"
        values: dict[int, float] = {}
        kinds: dict[int, str] = {}
        best_value, best_action = -math.inf, -1
        shared_ckey = self.root  # no chance node yet, the root player moved last
        self.make_child = type(state).child
        self.by_state = self.table == "state" and state.has_state_key()
        table_key = state.state_key() if self.by_state else 0
        vmin, vmax = self.vmin, self.vmax
        for action in self.ordered_actions(state, table_key):
            if self.algorithm == "expectimax":
                child = self.make_child(state, action)
                key = child_key(0, action)
                value = self.expectimax(child, depth - 1, key, shared_ckey if self.shared else key)
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
                child = self.make_child(state, action)
                key = child_key(0, action)
                ckey = shared_ckey if self.shared else key
                value = self.star(child, depth - 1, alpha, vmax, key, ckey)
                # Fail-soft: at or below alpha (> vmin) the value only bounds the child.
                kinds[action] = UPPER if value <= alpha and alpha > vmin else EXACT
            values[action] = value
            if value > best_value:
                best_value, best_action = value, action
        self.remember(table_key, best_action)
        return best_value, best_action, values, kinds


class _Average:
    """Root action values averaged over the completed searches at one depth (`resample`; all
    exact, since it implies the full root window)."""

    def __init__(self) -> None:
        self.depth = 0
        self.count = 0
        self.sums: dict[int, float] = {}

    def add(self, depth: int, values: dict[int, float]) -> None:
        """Adds one completed search; a deeper search replaces the shallower ones."""
        if depth != self.depth:
            self.depth, self.count, self.sums = depth, 0, {}
        self.count += 1
        for action, value in values.items():
            self.sums[action] = self.sums.get(action, 0.0) + value

    def value(self) -> float:
        """The best mean action value."""
        return max(self.sums.values()) / self.count

    def store(self, result: SearchResult) -> None:
        """Writes the averaged values, kinds and best action (first on ties) into `result`."""
        values = {action: total / self.count for action, total in self.sums.items()}
        best = max(values, key=values.__getitem__)  # the first maximum, in search order
        result.action, result.value, result.action_values = best, values[best], values
        result.action_value_kinds = dict.fromkeys(values, EXACT)
        result.depth, result.searches = self.depth, self.count


def search(
    state: Core,
    game: pyspiel.Game,
    algorithm: str = "star2",
    *,
    max_depth: int | None = None,
    time_ms: float | None = None,
    max_nodes: int | None = None,
    samples: int | None = None,
    shared_samples: bool = False,
    seed: int = 0,
    prune_min_depth: int = 0,
    evaluation: Evaluation | None = None,
    iterative: bool = True,
    search_class: type[_Search] | None = None,
    search_options: dict[str, Any] | None = None,
    clock: str = "wall",
    table: str = "state",
    resample: bool = False,
    full_root_window: bool = False,
    distrust_decided: bool = False,
    solve_exhausted: bool = False,
) -> SearchResult:
    """Iterative-deepening expectimax / Star1 / Star2 from a decision node.

    Args:
      state: a search-protocol state (see agents.protocol.search_state); not modified.
      game: the game, for its utility bounds, heuristic and move ordering.
      algorithm: "expectimax", "star1" or "star2".
      max_depth: deepest iteration (decision plies); None to deepen until the budget ends.
      time_ms: wall-clock budget; the best move of the last completed depth is returned.
      max_nodes: node budget, as time_ms.
      samples: None for the classic algorithm, c >= 1 to sample c outcomes at every chance
        node (MCMS: expss, star1ss, star2ss). Sampled searches draw fresh samples at every
        iteration (module docstring).
      shared_samples: sample keys from the chance outcomes of the path only, so that sibling
        subtrees share samples (common random numbers); ignored without `samples`.
      seed: seed of the chance samples.
      prune_min_depth: chance nodes with at most this remaining depth are averaged without
        pruning (the MCMS paper uses 2).
      evaluation: h(state, player) in [vmin, vmax]; default: the game's registered heuristic.
      iterative: deepen from depth 1 (best moves of each depth order the next); False searches
        max_depth only, for node counts of the bare algorithm.
      search_class, search_options: a subclass of the search context and its extra keyword
        arguments, for variants that change one procedure (agents.chance_probcut).
      clock: what time_ms measures, "wall" or "cpu" (search_common.CLOCKS).
      table: key of the best-move table, "state" (a transposition table: equal states share
        their best move) or "path" (one entry per path from the root).
      resample, full_root_window, distrust_decided, solve_exhausted: opt-in additions to
        the sampled search (SampledOptions); ignored without `samples`.

    Returns:
      The value and best action of the last completed depth, with counters.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision node.
    """
    check_search_params(
        algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock, table
    )
    check_two_player_zero_sum(game, algorithm)
    options = SampledOptions(
        resample, full_root_window or resample, distrust_decided, solve_exhausted
    )
    check_sampled_options(samples, options)
    player = state.current_player()
    if player < 0:
        raise ValueError(f"search needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    budget = Budget(time_ms, max_nodes, clock_named(clock))
    context = (search_class or _Search)(
        algorithm,
        player,
        evaluation or evaluation_for(game),
        game.min_utility(),
        game.max_utility(),
        samples,
        mix64(seed & MASK64),
        prune_min_depth,
        move_ordering_for(game),
        budget,
        shared_samples and samples is not None,
        table,
        options.full_root_window,
        **(search_options or {}),
    )
    result = run_iterations(context, state, max_depth, iterative, time_ms, max_nodes, options)
    result.nodes = budget.nodes
    result.evaluations = context.evaluations
    result.time_s = time.perf_counter() - start
    return result


def run_iterations(
    context: _Search,
    state: Core,
    max_depth: int | None,
    iterative: bool,
    time_ms: float | None,
    max_nodes: int | None,
    options: SampledOptions | None = None,
) -> SearchResult:
    """Iterative deepening of `context` from `state` (counters are left to the caller)."""
    actions = list(state.legal_actions())
    result = SearchResult(0.0, actions[0], {}, 0, 0, 0.0)
    forced = len(actions) == 1 and max_depth is None  # nothing to decide
    budget = context.budget

    if context.samples is None:

        def iteration(depth: int) -> bool:
            context.horizon_reached = False
            context.probes.clear()
            nodes = budget.nodes
            value, action, values, kinds = context.root_search(state, depth)
            _store(result, depth, value, action, values, kinds)
            result.iterations.append(Iteration(depth, value, action, budget.nodes - nodes))
            return context.horizon_reached

        result.completed = deepen(iteration, max_depth, iterative, forced)
        return result

    has_budget = time_ms is not None or max_nodes is not None
    result.completed = _sampled_iterations(
        context, state, result, max_depth, iterative, forced, has_budget,
        options or SampledOptions(),
    )  # fmt: skip
    return result


def _store(
    result: SearchResult,
    depth: int,
    value: float,
    action: int,
    values: dict[int, float],
    kinds: dict[int, str],
) -> None:
    """Makes one completed search at `depth` the result."""
    result.value, result.action, result.action_values = value, action, values
    result.action_value_kinds = kinds
    result.depth, result.searches = depth, 1
    result.values_by_depth.append(value)


def _sampled_iterations(
    context: _Search,
    state: Core,
    result: SearchResult,
    max_depth: int | None,
    iterative: bool,
    forced: bool,
    has_budget: bool,
    options: SampledOptions,
) -> bool:
    """Iterative deepening of a sampled search: one search per depth, each with a fresh sample
    stream (the MCMS paper, sections 3.1 and 4.2), plus the opt-in `options` (module
    docstring).

    Returns False if the budget ran out during an iteration, True otherwise.
    """
    if not iterative and max_depth is None:
        raise ValueError("iterative=False needs max_depth")
    budget, vmin, vmax = context.budget, context.vmin, context.vmax
    base_seed = context.seed
    average = _Average() if options.resample else None
    depth = max_depth - 1 if not iterative and max_depth is not None else 0
    deeper = True
    stream = 0  # the n-th search draws from stream n: depth n in plain iterative deepening
    solve_tried = 0
    try:
        while True:
            if deeper:
                depth += 1
            stream += 1
            context.seed = mix64((base_seed + stream * 0x9E3779B97F4A7C15) & MASK64)
            context.horizon_reached = context.partial_sample = False
            context.probes.clear()
            nodes = budget.nodes
            value, action, values, kinds = context.root_search(state, depth)
            result.iterations.append(Iteration(depth, value, action, budget.nodes - nodes))
            estimate = value
            if average is not None:
                average.add(depth, values)
                estimate = average.value()
            # distrust_decided: a sample cannot prove a win or a loss, so a depth whose
            # estimate is vmin or vmax does not replace the shallower depth's.
            kept = options.distrust_decided and not vmin < estimate < vmax
            if not kept or result.depth in (0, depth):
                if average is None:
                    _store(result, depth, value, action, values, kinds)
                else:
                    average.store(result)
                    result.values_by_depth.append(result.value)
            if forced or not iterative:
                return True
            exhausted = not context.horizon_reached and not context.partial_sample
            if options.solve_exhausted and exhausted and solve_tried < depth:
                solve_tried = depth  # once per depth: a failed attempt would fail again
                if _solve(context, state, depth, result):
                    return True
            at_max = max_depth is not None and depth >= max_depth
            if average is not None and has_budget:
                # resample: deeper only if the horizon could matter; after a sample that never
                # met it, a root value of vmin / vmax (decided by the sample's terminal nodes
                # alone), or at max_depth, a fresh sample at the same depth.
                deeper = context.horizon_reached and vmin < value < vmax and not at_max
            elif at_max or (has_budget and not context.horizon_reached):
                # Under a budget, a sample that never met the horizon ends the deepening as
                # in the classic search (a deeper iteration would only redraw the sample);
                # with max_depth alone every depth is searched once.
                return True
    except SearchTimeout:
        return False


def _solve(context: _Search, state: Core, depth: int, result: SearchResult) -> bool:
    """Runs the classic search of the real tree at `depth`; True (result stored) if it finished
    without meeting the horizon, i.e. the position is solved."""
    samples = context.samples
    context.samples = None
    context.horizon_reached = False
    context.probes.clear()
    nodes = context.budget.nodes
    try:
        value, action, values, kinds = context.root_search(state, depth)
    finally:
        context.samples = samples
    if context.horizon_reached:
        return False
    _store(result, depth, value, action, values, kinds)
    result.iterations.append(Iteration(depth, value, action, context.budget.nodes - nodes))
    result.solved = True
    return True


def check_search_params(
    algorithm: str,
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    samples: int | None,
    prune_min_depth: int,
    clock: str = "wall",
    table: str = "state",
) -> None:
    """Raises ValueError naming the first bad search parameter."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    check_budget(max_depth, time_ms, max_nodes, clock)
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be >= 1 (or none for the classic algorithm), got {samples}")
    if prune_min_depth < 0:
        raise ValueError(f"prune_min_depth must be >= 0, got {prune_min_depth}")
    if table not in TABLES:
        raise ValueError(f"table must be one of {', '.join(TABLES)}, got {table!r}")


def check_sampled_options(samples: int | None, options: SampledOptions) -> None:
    """Raises ValueError if an option of the sampled search is set without `samples`."""
    if samples is None:
        given = [name for name, on in dataclasses.asdict(options).items() if on]
        if given:
            raise ValueError(f"{', '.join(given)} need samples (an option of sampled search)")


class StarMinimaxBot(PolicyBot):
    """A pyspiel bot running `search` on a private copy of the state at every move."""

    def __init__(
        self, game: pyspiel.Game, player: int, seed: int | None, algorithm: str, **options: Any
    ):
        super().__init__(game, player, seed)
        self.algorithm = algorithm
        self.options = options
        self.last_result: SearchResult | None = None

    def choose(self, state: Core) -> int:
        """The best move of the deepest search completed within the budget."""
        result = search(
            state, self.game, self.algorithm, seed=self.rng.getrandbits(63), **self.options
        )
        self.last_result = result
        return result.action

    def analyse(self, state: pyspiel.State) -> SearchResult:
        """Runs the bot's search on `state` without playing; the result of `choose`."""
        self.choose(search_state(state))
        assert self.last_result is not None
        return self.last_result


_COMMON = {
    "max_depth": Param(None, "deepest iteration in decision plies (none: until the budget)", int),
    "time_ms": Param(None, "time budget per move in ms (default 200 if no budget)", float),
    "clock": CLOCK,
    "max_nodes": Param(None, "node budget per move", int),
    "prune_min_depth": Param(0, "no pruning at chance nodes with remaining depth <= this"),
    "shared_samples": Param(
        False, "siblings share chance samples (common random numbers; with samples only)"
    ),
    "heuristic": HEURISTIC,
    "table": Param("state", "key of the best-move table: state (transpositions) or path"),
}
# Opt-in additions to the paper's sampled search (SampledOptions; with samples only).
_SAMPLED = {
    "resample": Param(
        False,
        "repeat a depth with fresh samples and average, where deeper search cannot help "
        "(implies full_root_window)",
    ),
    "full_root_window": Param(False, "search every root child exactly (no root pruning)"),
    "distrust_decided": Param(
        False, "a depth whose sampled value is vmin/vmax does not replace the shallower one"
    ),
    "solve_exhausted": Param(
        False, "a sample that drew every outcome above the horizon triggers a classic search"
    ),
}


def _make(algorithm: str) -> Callable[..., StarMinimaxBot]:
    def factory(
        game: pyspiel.Game,
        player: int,
        seed: int | None,
        samples: int | None,
        max_depth: int | None,
        time_ms: float | None,
        clock: str,
        max_nodes: int | None,
        prune_min_depth: int,
        shared_samples: bool,
        heuristic: str,
        table: str,
        **sampled: bool,
    ) -> StarMinimaxBot:
        if max_depth is None and time_ms is None and max_nodes is None:
            time_ms = 200.0  # the MCMS paper's budget per move
        check_search_params(
            algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock, table
        )
        check_two_player_zero_sum(game, algorithm)
        check_sampled_options(samples, SampledOptions(**sampled))
        evaluation = evaluation_for(game, heuristic)
        seed = seed if seed is not None else random.SystemRandom().getrandbits(63)
        return StarMinimaxBot(
            game,
            player,
            seed,
            algorithm,
            max_depth=max_depth,
            time_ms=time_ms,
            clock=clock,
            max_nodes=max_nodes,
            samples=samples,
            shared_samples=shared_samples,
            prune_min_depth=prune_min_depth,
            evaluation=evaluation,
            table=table,
            **sampled,
        )

    return factory


_HELP = {
    "expectimax": "depth-limited expectimax with iterative deepening",
    "star1": "Star1 (*-Minimax with chance-node pruning, Ballard 1983; MCMS Algorithm 1)",
    "star2": "Star2 (Star1 plus probing; MCMS Algorithm 2)",
}
_PAPER_NAMES = {"expectimax": "expss", "star1": "star1ss", "star2": "star2ss"}

for _algorithm in ALGORITHMS:
    register_agent(
        _algorithm,
        _HELP[_algorithm] + "; samples=c samples c outcomes per chance node (MCMS)",
        {
            "samples": Param(None, "outcomes sampled per chance node (none: all)", int),
            **_COMMON,
            **_SAMPLED,
        },
    )(_make(_algorithm))
    register_agent(
        _PAPER_NAMES[_algorithm],
        f"MCMS: {_algorithm} with samples=10 outcomes per chance node by default",
        {
            "samples": Param(10, "outcomes sampled with replacement per chance node"),
            **_COMMON,
            **_SAMPLED,
        },
    )(_make(_algorithm))
