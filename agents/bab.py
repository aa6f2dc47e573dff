"""Bounded alpha-beta (BAB): a value interval [L, U] that is proved to hold the true value and is
at most `epsilon` wide (additive bound) or within `gamma * |V|` of it (multiplicative bound).

The specification is Atzmon, Stern and Saffidine, "Bounded Suboptimal Game Tree Search":
Algorithm 1 (WeightedAB, BAB with chance nodes), the multiplicative variant BAB/m, and the
policy "play the child with the highest L". The paper text we have is a draft: this docstring
says how each piece maps to our code and where we had to complete it.

Conventions
-----------
- Values are for the root player (the player to move at the root), as in star_minimax: a node
  is MAX when the root player moves there and MIN when the other player does, read from the
  node's current player, so turns need not alternate (Pig, Can't Stop, Ra, python_chance_tree).
  The paper's pseudocode is already written in this MAX/MIN (not negamax) form, so L(n), U(n),
  alpha(n), beta(n), best_U and best_L keep their meaning; v_min / v_max are the game's utility
  bounds.
- Depth counts decision plies; chance nodes do not count (docs/agents.md). A terminal node is
  [V, V]; a non-terminal node at depth 0 is [h, h] with the heuristic h, so with a horizon the
  guarantees are about the depth-limited value. A search that never reaches the horizon
  (`BabResult.exact_tree`) bounds the true game value.
- Node counts tick once per node visited, as in star_minimax, so they compare directly.

The paper's Algorithm 1, line by line
-------------------------------------
- Lines 1-2 (terminal: (V, V)) and 3-5 (L = v_min, U = v_max, best_U = v_min at MAX,
  best_L = v_max at MIN): `BabSearch.search`, `BabSearch.decision` (agents.bab_core, compiled
  with the engine; this module runs them by iterative deepening and wraps them as a bot).
- Lines 6-7: the root gets (v_min, v_max); a child of a MAX/MIN node gets its parent's current
  window: (max(alpha, L), beta) under MAX, (alpha, min(beta, U)) under MIN (lines 22-23 update
  the parent's window after each child).
- Lines 8-10: a child c of a chance node n gets
  alpha(c) = max(v_min, (alpha(n) - U(n)) / pi(c) + v_max) and
  beta(c) = min(v_max, (beta(n) - L(n)) / pi(c) + v_min), where L(n), U(n) are n's running
  bounds with every unsearched child at [v_min, v_max]: Star1's window (`BabSearch.chance`).
- Lines 12-21: MAX: L = max L(c), best_U = max U(c); MIN: U = min U(c), best_L = min L(c);
  chance: L(n) += pi(c) (L(c) - v_min), U(n) -= pi(c) (v_max - U(c)).
- Lines 24-25 (cut when beta(n) <= alpha(n) + eps and c is not the last child) and 26-27 (a
  MAX node that searched every child gets U = best_U, a MIN node L = best_L; a cut MAX node
  keeps U = v_max, a cut MIN node L = v_min).

Our pruning rules, and why they are the paper's made exact
----------------------------------------------------------
Write the bound as a tolerance: [L, U] is *tight* when U <= up(L), with
up(x) = x + epsilon (additive) and, for gamma, up(x) = x (1 + gamma) if x >= 0 and
x / (1 + gamma) if x < 0, which is exactly "U - L <= gamma * min |v| over v in [L, U]", so a
tight interval holds V with V - gamma|V| <= L <= U <= V + gamma|V| (the paper's BAB/m bound).
down(y) is the inverse (L >= down(U) iff U <= up(L)). With both bounds given, up is the larger
of the two: the result meets at least one of them.

Every node searched with window (alpha, beta) returns [L, U] with L <= V <= U and
    U <= up(max(alpha, L))   or   L >= down(beta),
i.e. tight, or proved to be at most alpha (up to the tolerance), or at least beta. At the root
(window [v_min, v_max]) both cases mean [L, U] is tight. Induction over the tree gives the rules:

- MAX node: cut when L >= down(beta); MIN node: cut when U <= up(alpha). For the additive bound
  and windows wider than epsilon this is the paper's beta(n) <= alpha(n) + eps; for gamma it is
  the paper's eps = gamma * min(|alpha(n)|, |beta(n)|) (line 24), which for a window on one side
  of 0 is exactly down(beta) / up(alpha). Testing L (or U) rather than the window also stays
  sound for windows narrowed by clipping to [v_min, v_max] below chance nodes.
- Chance node: cut when U(n) <= up(max(alpha, L(n))) or L(n) >= down(beta), its running bounds
  already meeting the contract (the paper's line 25 with alpha(n) = max(alpha, L(n)) and
  beta(n) = min(beta, U(n))).
- Tolerance below a chance node: the paper gives every child the node's own eps. That is sound
  for the additive bound (the widths add up weighted by pi, to at most eps) but not for gamma: a
  child's window is about 1/pi(c) times wider than its parent's, so gamma * |alpha(c)| can
  exceed what the parent may lose, and the interval at the root can break the bound (the paper
  leaves BAB/m with chance nodes open). We give each child an additive tolerance
      e(c) = min((S - spent) / mass_left, up_slack(alpha) / pi(c), down_slack(beta) / pi(c)),
  where S is the smallest slack up(x) - x over the values max(alpha, L(n)) can still take,
  spent = sum pi(c') (U(c') - L(c')) over the children searched so far and mass_left the
  probability of c and the children after it. For the additive bound the first child gets
  exactly eps (as the paper) and later ones more when earlier children came back tighter than
  allowed, which saves nodes (lab/results/bab_nodes/); for gamma it makes the bound hold: with
  the paper's per-child gamma, 163 of 900 searches of random chance trees (gamma 0.1, 0.3,
  0.6) returned an interval that broke the bound. `share_slack=False` gives the paper's rule
  (epsilon only), for comparisons.

The move
--------
At the root we play the child with the highest L (ties: the first searched). With additive eps,
V(move) >= L(root) >= U(root) - eps >= V - eps (the paper's Theorem 1); with gamma,
V(move) >= L(root) >= down(U(root)) >= down(V).

Iterative deepening orders moves by the best move of the previous depth (a table keyed by
path), after the game's registered static ordering; on timeout the interval and move of the last
completed depth are returned.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.bab_core import BabSearch, Tolerance
from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.registry import HEURISTIC, ORDERING, Param, register_agent
from chancespiel.agents.result import Iteration, SearchResult
from chancespiel.agents.search_common import (
    DEPTH_FIRST_BUDGET,
    MAX_COEFFICIENT,
    Limits,
    check_budget,
    check_two_player_zero_sum,
    deepen,
)
from chancespiel.agents.search_core import Budget
from chancespiel.games.core import Core, Heuristic, Ordering
from chancespiel.games.registry import DEFAULT_ORDERING, evaluation_for, move_ordering_for


@dataclass(kw_only=True)
class BabResult(SearchResult):
    """What a BAB search found (agents.result.SearchResult's fields, and these).

    `lower <= V <= upper` for the value V of the root at `depth` (the game value if
    `exact_tree`), and the interval meets the bound. `action_bounds` are the children's
    intervals; a child cut off before it was searched is absent (its interval is
    [v_min, v_max]). `action_values` are their lower bounds, what the move choice ranks, and
    `value` is the midpoint of [lower, upper] (within half the bound of the true value).
    """

    lower: float
    upper: float
    action_bounds: dict[int, tuple[float, float]] = field(default_factory=dict)
    exact_tree: bool = False  # True if the search never stopped at the horizon
    bounds_by_depth: list[tuple[float, float]] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        """The root's interval, the children's, and whether the tree was searched to its end."""
        return {
            "lower": self.lower,
            "upper": self.upper,
            "action_bounds": {str(a): list(lu) for a, lu in self.action_bounds.items()},
            "exact_tree": self.exact_tree,
        }


def bab_search(
    state: Core,
    game: pyspiel.Game,
    *,
    epsilon: float = 0.0,
    gamma: float = 0.0,
    max_depth: int | None = None,
    time_ms: float | None = None,
    max_nodes: int | None = None,
    evaluation: Heuristic | None = None,
    ordering: str | Ordering = DEFAULT_ORDERING,
    iterative: bool = True,
    share_slack: bool = True,
    clock: str = "wall",
) -> BabResult:
    """Bounded alpha-beta from a decision node, with iterative deepening.

    Args:
      state: a search-protocol state (see agents.protocol.search_state); not modified.
      game: the game, for its utility bounds, heuristic and move ordering.
      epsilon: additive bound: U - L <= epsilon (0: exact alpha-beta / Star1-like search).
      gamma: multiplicative bound in [0, 1): V - gamma|V| <= L <= U <= V + gamma|V|. With both,
        the interval meets at least one of the two bounds.
      max_depth: deepest iteration (decision plies); None to deepen until the budget ends or
        the tree is exhausted.
      time_ms: time budget (of `clock`, "wall" or "cpu"); the interval and move of the last
        completed depth are returned.
      max_nodes: node budget, as time_ms.
      evaluation: h(state, player) in [vmin, vmax]; default: the game's registered heuristic.
      iterative: deepen from depth 1 (best moves of each depth order the next); False searches
        max_depth only, for node counts of the bare algorithm.
      share_slack: True (default) shares the tolerance among a chance node's children as the
        module docstring says; False gives each child the node's own epsilon, as the paper's
        Algorithm 1 (sound for epsilon only, so it needs gamma = 0; for comparisons).

    Returns:
      The interval, move and counters of the last completed depth.

    Raises:
      ValueError: on a bad parameter, an unsupported game or a root that is not a decision node.
    """
    limits = check_bab_params(epsilon, gamma, max_depth, time_ms, max_nodes, clock)
    if not share_slack and gamma:
        raise ValueError("share_slack=False (the paper's per-child epsilon) needs gamma = 0")
    check_two_player_zero_sum(game, "bab")
    player = state.current_player()
    if player < 0:
        raise ValueError(f"bab_search needs a decision node at the root, got player {player}")
    start = time.perf_counter()
    budget = Budget(limits.time_ms, limits.max_nodes, limits.timer)
    vmin, vmax = game.min_utility(), game.max_utility()
    context = BabSearch(
        player,
        evaluation or evaluation_for(game),
        vmin,
        vmax,
        move_ordering_for(game, ordering),
        budget,
        share_slack,
    )
    tol = Tolerance(float(epsilon), float(gamma))
    actions = list(state.legal_actions())
    result = BabResult(value=0.5 * (vmin + vmax), action=actions[0], lower=vmin, upper=vmax)

    def iteration(depth: int) -> bool:
        context.horizon_reached = False
        nodes = budget.nodes
        lower, upper, action, bounds = context.root_search(state, depth, tol)
        result.lower, result.upper, result.action = lower, upper, action
        result.value = 0.5 * (lower + upper)
        result.action_bounds = bounds
        result.action_values = {a: lu[0] for a, lu in bounds.items()}
        result.depth = depth
        result.iterations.append(Iteration(depth, result.value, action, budget.nodes - nodes))
        result.bounds_by_depth.append((lower, upper))
        result.exact_tree = not context.horizon_reached
        return context.horizon_reached

    forced = len(actions) == 1 and max_depth is None  # nothing to decide
    result.completed = deepen(iteration, max_depth, iterative, forced)
    result.nodes = budget.nodes
    result.evaluations = context.evaluations
    result.time_s = time.perf_counter() - start
    return result


def check_bab_params(
    epsilon: float,
    gamma: float,
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    clock: str = "wall",
) -> Limits:
    """The search's limits, after checking every BAB parameter.

    Raises:
      ValueError: naming the first bad parameter.
    """
    if not isinstance(epsilon, (int, float)) or not math.isfinite(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if not isinstance(gamma, (int, float)) or not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma must be in [0, 1), got {gamma!r}")
    return check_budget(max_depth, time_ms, max_nodes, clock)


class BabBot(PolicyBot):
    """A pyspiel bot running `bab_search` on a private copy of the state at every move."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None, **options: Any):
        super().__init__(game, player, seed)
        self.options = options
        self.limits = Limits.of(options)

    def choose(self, state: Core) -> int:
        """The child with the highest lower bound in the deepest search within the budget."""
        result = bab_search(state, self.game, **self.options)
        self.last_result = result
        return result.action


@register_agent(
    "bab",
    "bounded alpha-beta (Atzmon et al.): interval [L, U] within epsilon (additive) or "
    "gamma*|V| (multiplicative), chance nodes weighted (WeightedAB); plays the highest L",
    {
        "epsilon": Param(0.0, "additive bound: U - L <= epsilon", high=MAX_COEFFICIENT, low=0.0),
        "gamma": Param(
            0.0,
            "multiplicative bound: L, U within gamma*|V| of V",
            high=1.0,
            low=0.0,
            open_high=True,
        ),
        **DEPTH_FIRST_BUDGET,
        "heuristic": HEURISTIC,
        "ordering": ORDERING,
    },
)
def _make_bab(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    epsilon: float,
    gamma: float,
    max_depth: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    heuristic: str | Heuristic,
    ordering: str | Ordering,
) -> BabBot:
    if max_depth is None and time_ms is None and max_nodes is None:
        time_ms = 200.0  # as the star agents
    check_bab_params(epsilon, gamma, max_depth, time_ms, max_nodes, clock)
    check_two_player_zero_sum(game, "bab")
    evaluation = evaluation_for(game, heuristic)
    move_ordering_for(game, ordering)  # checked now, not at the first move
    seed = seed if seed is not None else random.SystemRandom().getrandbits(63)
    return BabBot(
        game,
        player,
        seed,
        epsilon=epsilon,
        gamma=gamma,
        max_depth=max_depth,
        time_ms=time_ms,
        clock=clock,
        max_nodes=max_nodes,
        evaluation=evaluation,
        ordering=ordering,
    )
