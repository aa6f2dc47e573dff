"""Bounded alpha-beta's procedures (Algorithm 1 of "Bounded Suboptimal Game Tree Search",
Atzmon, Stern and Saffidine, with chance nodes), compiled with the engine.

agents.bab maps the paper's lines to these procedures, states the pruning rules and the
tolerance below chance nodes, and runs them by iterative deepening. No pyspiel here: the
module is part of the compiled engine (chancespiel.engine).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from chancespiel.agents.search_core import Budget, OrderedSearch, child_key
from chancespiel.games.core import CHANCE, TERMINAL, Core, Heuristic, Ordering

# An interval [L, U] of a node's value.
Interval = tuple[float, float]


class Tolerance:
    """The allowed width of an interval: additive `epsilon` and/or multiplicative `gamma`."""

    def __init__(self, epsilon: float = 0.0, gamma: float = 0.0) -> None:
        self.epsilon = epsilon
        self.gamma = gamma

    def __repr__(self) -> str:
        return f"Tolerance(epsilon={self.epsilon}, gamma={self.gamma})"

    def up(self, x: float) -> float:
        """The largest U for which [x, U] is tight."""
        u = x + self.epsilon
        if self.gamma:
            m = x * (1.0 + self.gamma) if x >= 0.0 else x / (1.0 + self.gamma)
            if m > u:
                u = m
        return u

    def down(self, y: float) -> float:
        """The smallest L for which [L, y] is tight."""
        d = y - self.epsilon
        if self.gamma:
            m = y / (1.0 + self.gamma) if y >= 0.0 else y * (1.0 + self.gamma)
            if m < d:
                d = m
        return d

    def min_slack(self, a: float, b: float) -> float:
        """min of up(x) - x over x in [a, b]: the width any tight interval from there may have."""
        g = self.gamma
        if not g or a <= 0.0 <= b:
            mult = 0.0
        elif a > 0.0:
            mult = g * a
        else:
            mult = -b * g / (1.0 + g)
        return max(self.epsilon, mult)


@mypyc_attr(allow_interpreted_subclasses=True)
class BabSearch(OrderedSearch):
    """One search from one root: the recursive procedures share this context."""

    def __init__(
        self,
        root_player: int,
        evaluate: Heuristic,
        vmin: float,
        vmax: float,
        ordering: Ordering | None,
        budget: Budget,
        share_slack: bool = True,
    ) -> None:
        super().__init__(ordering)
        self.root = root_player
        self.share_slack = share_slack
        self.evaluate = evaluate
        self.vmin = vmin
        self.vmax = vmax
        self.budget = budget
        self.horizon_reached = False
        self.evaluations = 0

    def search(
        self,
        state: Core,
        depth: int,
        alpha: float,
        beta: float,
        tol: Tolerance,
        key: int,
    ) -> Interval:
        """[L, U] of `state` in window (alpha, beta) under `tol` (see the module docstring)."""
        self.budget.tick()
        player = state.current_player()
        if player == TERMINAL:
            v = state.returns()[self.root]
            return v, v
        if depth == 0:
            self.horizon_reached = True
            self.evaluations += 1
            v = self.evaluate(state, self.root)
            return v, v
        if player == CHANCE:
            return self.chance(state, depth, alpha, beta, tol, key)
        return self.decision(state, depth, alpha, beta, tol, key)

    def decision(
        self,
        state: Core,
        depth: int,
        alpha: float,
        beta: float,
        tol: Tolerance,
        key: int,
        bounds: dict[int, Interval] | None = None,
    ) -> Interval:
        """Algorithm 1 at a MAX or MIN node; `bounds` collects the children's intervals."""
        actions = self.ordered_actions(state, key)
        last = len(actions) - 1
        best_action = actions[0]
        if state.current_player() == self.root:  # MAX
            lower, best_upper = self.vmin, self.vmin
            cut = tol.down(beta)
            for i, action in enumerate(actions):
                low, up = self.search(
                    state.child(action),
                    depth - 1,
                    max(alpha, lower),
                    beta,
                    tol,
                    child_key(key, action),
                )
                if bounds is not None:
                    bounds[action] = (low, up)
                if up > best_upper:
                    best_upper = up
                if low > lower:
                    lower, best_action = low, action
                if lower >= cut and i < last:
                    self.remember(key, best_action)
                    return lower, self.vmax  # cut: the unsearched children bound nothing
            self.remember(key, best_action)
            return lower, best_upper
        upper, best_lower = self.vmax, self.vmax  # MIN
        cut = tol.up(alpha)
        for i, action in enumerate(actions):
            low, up = self.search(
                state.child(action), depth - 1, alpha, min(beta, upper), tol, child_key(key, action)
            )
            if bounds is not None:
                bounds[action] = (low, up)
            if low < best_lower:
                best_lower = low
            if up < upper:
                upper, best_action = up, action
            if upper <= cut and i < last:
                self.remember(key, best_action)
                return self.vmin, upper
        self.remember(key, best_action)
        return best_lower, upper

    def chance(
        self,
        state: Core,
        depth: int,
        alpha: float,
        beta: float,
        tol: Tolerance,
        key: int,
    ) -> Interval:
        """WeightedAB at a chance node: Star1 windows, weighted bounds, shared tolerance."""
        vmin, vmax = self.vmin, self.vmax
        outcomes = state.chance_outcomes()
        n = len(outcomes)
        mass_left = [0.0] * (n + 1)  # probability of outcomes i.. (suffix sums)
        for i in range(n - 1, -1, -1):
            mass_left[i] = mass_left[i + 1] + outcomes[i][1]
        up_slack = tol.up(alpha) - alpha
        down_slack = beta - tol.down(beta)
        cut_high = tol.down(beta)
        lower_sum = upper_sum = spent = 0.0  # over the searched children
        for i, (outcome, prob) in enumerate(outcomes):
            left = mass_left[i]
            lower = lower_sum + left * vmin  # running L(n), U(n): unsearched at [vmin, vmax]
            upper = upper_sum + left * vmax
            if upper <= tol.up(max(alpha, lower)) or lower >= cut_high:
                return lower, upper  # the contract holds already (line 25)
            child_alpha = max(vmin, (alpha - upper) / prob + vmax)
            child_beta = min(vmax, (beta - lower) / prob + vmin)
            if self.share_slack:
                slack = tol.min_slack(max(alpha, lower), max(alpha, upper))
                e = min((slack - spent) / left, up_slack / prob, down_slack / prob)
                child_tol = _ZERO if e <= 0.0 else Tolerance(e)
            else:
                child_tol = tol  # the paper: every child gets the node's own epsilon
            low, up = self.search(
                state.child(outcome),
                depth,
                child_alpha,
                child_beta,
                child_tol,
                child_key(key, outcome),
            )
            lower_sum += prob * low
            upper_sum += prob * up
            spent += prob * (up - low)
        return lower_sum, upper_sum

    def root_search(
        self, state: Core, depth: int, tol: Tolerance
    ) -> tuple[float, float, int, dict[int, Interval]]:
        """The root's [L, U], the child with the highest L, and the children's intervals."""
        bounds: dict[int, Interval] = {}
        lower, upper = self.decision(state, depth, self.vmin, self.vmax, tol, 0, bounds)
        best = max(bounds, key=lambda a: bounds[a][0])  # first of the highest L in search order
        return lower, upper, best, bounds


_ZERO = Tolerance()
