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
- Fresh samples at every search (MCMS paper, section 3.1: outcomes are drawn at each visit of
  each search). Every iterative-deepening iteration draws from a new sample stream. A finished
  sampled tree is not a proof: when a sampled iteration never reaches the horizon, deepening
  is pointless but the sample is only one draw, so under a time or node budget the search is
  repeated at the same depth with fresh samples until the budget ends (likewise when a sampled
  root value is vmin or vmax: the sample's terminal nodes alone decided it, and deeper search
  of a clairvoyant sample adds nothing but the same overconfidence; and a depth whose every
  sampled search says vmin or vmax does not replace the shallower depth's estimate, since a
  sample cannot prove a win), and the result is the
  average of the completed searches at the deepest depth: each root action's value is the mean
  of its values over those searches (the estimator sparse sampling's theory covers, averaged
  over independent draws), and the move maximises that mean. If a sampled iteration finished
  without the horizon and every chance node it met drew every outcome, the classic search of
  the real tree is run at that depth; if it also finishes, the position is solved and the
  search stops. At `max_depth` with a time or node budget left, sampled searches also repeat
  (the budget is spent, not saved). With `max_depth` alone a sampled search runs depths
  1..max_depth once each (so expss, star1ss and star2ss with one seed still agree exactly).
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
- Root action values: expectimax's are exact; a classic Star1/Star2 root child searched with
  the window (best so far, vmax) that fails low is an upper bound (`action_value_kinds` says
  which). Sampled Star1/Star2 search every root child with the full window, so the values they
  average over repeated searches are all exact (a mean of upper bounds would favour the moves
  pruned most loosely); they prune below the root as before.
- `evaluations` counts heuristic calls (terminal returns are not heuristic calls), `nodes` the
  nodes visited, so searches can be compared at equal work.
- Iterative deepening under `time_ms` / `max_nodes` keeps the best move of the last completed
  depth; a table keyed by path stores each decision node's best move, searched first at the next
  depth; games may register a static move ordering (games.registry.register_move_ordering).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.protocol import CHANCE, TERMINAL, SearchState, search_state
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
    child_maker,
    clock_named,
    deepen,
    mix64,
    sample_outcomes,
)
from chancespiel.games.registry import evaluation_for, move_ordering_for

ALGORITHMS = ("expectimax", "star1", "star2")
FP_SLACK = 1e-12  # sums of probabilities carry rounding error; never cut on less than a proof
EXACT, UPPER, LOWER = "exact", "upper", "lower"  # kinds of a root action value
_COUNT_MASK = (1 << 32) - 1

Evaluation = Callable[[Any, int], float]
Ordering = Callable[[Any, Sequence[int]], Sequence[int]]


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
    searches: int = 1  # completed searches averaged at `depth` (sampled searches)
    solved: bool = False  # a classic search of the real tree finished without the horizon


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
        self.best_moves: dict[int, int] = {}
        self.horizon_reached = False  # did the current iteration stop anywhere at depth 0?
        self.partial_sample = False  # did the current iteration omit an outcome anywhere?
        self.evaluations = 0
        self.probes: dict[int, tuple[int, float]] = {}  # key -> (action, exact probe value)
        # make_child(state, action): set by root_search for the root's type (search_common).
        self.make_child: Callable[[Any, int], Any] = child_maker(None)

    # Shared helpers -----------------------------------------------------------------------

    def outcomes(self, state: SearchState, ckey: int) -> Sequence[tuple[int, float]]:
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

    def leaf(self, state: SearchState) -> float:
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

    def expectimax(self, state: SearchState, depth: int, key: int, ckey: int) -> float:
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
        self, state: SearchState, depth: int, alpha: float, beta: float, key: int, ckey: int
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
        state: SearchState,
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
        best = best_moves.get(key)
        if best is not None and best != actions[0]:
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
            if len(best_moves) >= MAX_TABLE_SIZE:  # remember(key, best_action)
                best_moves.clear()
            best_moves[key] = best_action
        return best_value

    def chance_average(self, state: SearchState, depth: int, key: int, ckey: int) -> float:
        """A chance node searched without pruning (children get the full window)."""
        total = 0.0
        for outcome, prob in self.outcomes(state, ckey):
            child = self.make_child(state, outcome)
            k = child_key(key, outcome)
            c = self.chance_ckey(ckey) if self.shared else k
            total += prob * self.star(child, depth, self.vmin, self.vmax, k, c)
        return total

    def chance_node(
        self, state: SearchState, depth: int, alpha: float, beta: float, key: int, ckey: int
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
        children: list[SearchState | None] = [None] * n
        keys = [hash((key, outcome)) for outcome, _ in outcomes]  # child_key(key, outcome)
        ckeys = [self.chance_ckey(ckey)] * n if self.shared else keys
        budget, root, make_child = self.budget, self.root, self.make_child

        if self.algorithm == "star2":
            # Probing phase: one action at each decision child gives a one-sided bound.
            # At depth 1 the probe (decision_node with probe=True: the first ordered action,
            # a leaf) is inlined: half of the nodes of a shallow search are such probes.
            ordering, best_moves, probes = self.ordering, self.best_moves, self.probes
            evaluate = self.evaluate
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
                        first = best_moves.get(k)
                        if first is None:
                            actions = child.legal_actions()
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
            child = children[i]
            if child is None:
                child = make_child(state, outcome)
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
        self, state: SearchState, depth: int
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
        self.make_child = child_maker(state)
        for action in self.ordered_actions(state, 0):
            child = self.make_child(state, action)
            key = child_key(0, action)
            ckey = shared_ckey if self.shared else key
            if self.algorithm == "expectimax":
                value = self.expectimax(child, depth - 1, key, ckey)
                kinds[action] = EXACT
            else:
                # Sampled searches are averaged over repeats (_Average), and a mean of bounds
                # is no estimate: their root children get the full window, so every root
                # value is exact (pruning below the root is unchanged).
                alpha = max(self.vmin, best_value) if self.samples is None else self.vmin
                value = self.star(child, depth - 1, alpha, self.vmax, key, ckey)
                # Fail-soft: at or below alpha (> vmin) the value only bounds the child.
                kinds[action] = UPPER if value <= alpha and alpha > self.vmin else EXACT
            values[action] = value
            if value > best_value:
                best_value, best_action = value, action
        self.remember(0, best_action)
        return best_value, best_action, values, kinds


class _Average:
    """Root action values averaged over the completed searches at one depth (all exact: the
    sampled root searches every child with the full window)."""

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
    state: SearchState,
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
        iteration and average repeated searches at one depth (module docstring).
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

    Returns:
      The value and best action of the last completed depth, with counters.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision node.
    """
    check_search_params(algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock)
    check_two_player_zero_sum(game, algorithm)
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
        **(search_options or {}),
    )
    result = run_iterations(context, state, max_depth, iterative, time_ms, max_nodes)
    result.nodes = budget.nodes
    result.evaluations = context.evaluations
    result.time_s = time.perf_counter() - start
    return result


def run_iterations(
    context: _Search,
    state: SearchState,
    max_depth: int | None,
    iterative: bool,
    time_ms: float | None,
    max_nodes: int | None,
) -> SearchResult:
    """Iterative deepening of `context` from `state` (counters are left to the caller)."""
    actions = list(state.legal_actions())
    result = SearchResult(0.0, actions[0], {}, 0, 0, 0.0)
    forced = len(actions) == 1 and max_depth is None  # nothing to decide

    if context.samples is None:

        def iteration(depth: int) -> bool:
            context.horizon_reached = False
            context.probes.clear()
            value, action, values, kinds = context.root_search(state, depth)
            result.value, result.action, result.action_values = value, action, values
            result.action_value_kinds = kinds
            result.depth = depth
            result.values_by_depth.append(value)
            return context.horizon_reached

        result.completed = deepen(iteration, max_depth, iterative, forced)
        return result

    result.completed = _sampled_iterations(
        context, state, result, max_depth, iterative, forced, time_ms, max_nodes
    )
    return result


def _sampled_iterations(
    context: _Search,
    state: SearchState,
    result: SearchResult,
    max_depth: int | None,
    iterative: bool,
    forced: bool,
    time_ms: float | None,
    max_nodes: int | None,
) -> bool:
    """Iterations of a sampled search, each with a fresh sample stream (module docstring).

    Returns False if the budget ran out during an iteration, True otherwise.
    """
    if not iterative and max_depth is None:
        raise ValueError("iterative=False needs max_depth")
    has_budget = time_ms is not None or max_nodes is not None
    base_seed = context.seed
    average = _Average()
    depth = 0 if iterative else max_depth - 1
    deeper = True
    stream = 0
    solve_tried = 0
    try:
        while True:
            if deeper:
                depth += 1
            stream += 1
            context.seed = mix64((base_seed + stream * 0x9E3779B97F4A7C15) & MASK64)
            context.horizon_reached = context.partial_sample = False
            context.probes.clear()
            result_value, _, values, _ = context.root_search(state, depth)
            average.add(depth, values)
            # A sample cannot prove a win or a loss: a depth whose every search returned vmin
            # or vmax does not replace the shallower depth's estimate (beyond depth 1, only a
            # classic search, `solved`, reports a decided value).
            if result.depth in (0, depth) or context.vmin < average.value() < context.vmax:
                average.store(result)
                result.values_by_depth.append(result.value)
            if forced or not iterative:
                return True
            exhausted = not context.horizon_reached and not context.partial_sample
            if exhausted and solve_tried < depth:
                solve_tried = depth  # once per depth: a failed attempt would fail again
                if _solve(context, state, depth, result):
                    return True
            at_max = max_depth is not None and depth >= max_depth
            if not has_budget:
                if at_max:
                    return True
                deeper = True
            else:
                # Deeper only if the horizon could matter; after an exhausted sample, a root
                # value of vmin / vmax (decided by the sample's terminal nodes alone), or at
                # max_depth, a fresh sample at the same depth.
                decided = not context.vmin < result_value < context.vmax
                deeper = context.horizon_reached and not decided and not at_max
    except SearchTimeout:
        return False


def _solve(context: _Search, state: SearchState, depth: int, result: SearchResult) -> bool:
    """Runs the classic search of the real tree at `depth`; True (result stored) if it finished
    without meeting the horizon, i.e. the position is solved."""
    samples = context.samples
    context.samples = None
    context.horizon_reached = False
    context.probes.clear()
    try:
        value, action, values, kinds = context.root_search(state, depth)
    finally:
        context.samples = samples
    if context.horizon_reached:
        return False
    result.value, result.action, result.action_values = value, action, values
    result.action_value_kinds = kinds
    result.depth, result.searches, result.solved = depth, 1, True
    result.values_by_depth.append(value)
    return True


def check_search_params(
    algorithm: str,
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    samples: int | None,
    prune_min_depth: int,
    clock: str = "wall",
) -> None:
    """Raises ValueError naming the first bad search parameter."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    check_budget(max_depth, time_ms, max_nodes, clock)
    if samples is not None and samples < 1:
        raise ValueError(f"samples must be >= 1 (or none for the classic algorithm), got {samples}")
    if prune_min_depth < 0:
        raise ValueError(f"prune_min_depth must be >= 0, got {prune_min_depth}")


class StarMinimaxBot(PolicyBot):
    """A pyspiel bot running `search` on a private copy of the state at every move."""

    def __init__(
        self, game: pyspiel.Game, player: int, seed: int | None, algorithm: str, **options: Any
    ):
        super().__init__(game, player, seed)
        self.algorithm = algorithm
        self.options = options
        self.last_result: SearchResult | None = None

    def choose(self, state: SearchState) -> int:
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
    ) -> StarMinimaxBot:
        if max_depth is None and time_ms is None and max_nodes is None:
            time_ms = 200.0  # the MCMS paper's budget per move
        check_search_params(
            algorithm, max_depth, time_ms, max_nodes, samples, prune_min_depth, clock
        )
        check_two_player_zero_sum(game, algorithm)
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
        {"samples": Param(None, "outcomes sampled per chance node (none: all)", int), **_COMMON},
    )(_make(_algorithm))
    register_agent(
        _PAPER_NAMES[_algorithm],
        f"MCMS: {_algorithm} with samples=10 outcomes per chance node by default",
        {"samples": Param(10, "outcomes sampled with replacement per chance node"), **_COMMON},
    )(_make(_algorithm))
