"""A group-sequential rule for paired comparisons: look every few matches, stop when settled.

A run of matches between two agents is looked at after every `batch` matches. It stops at the
first look where either

- its 95% interval is as narrow as wanted (half-width <= `target`): precise enough; or
- its sequential interval, mean +- z standard errors, excludes every reference rate (e.g.
  50% and a published figure): decided, whatever more matches would show; or
- it has played `max_matches`: the cap.

A look whose matches all scored alike (no variance, e.g. two agents that play the same moves)
has no estimate of the spread; it is precise when the rule of three says so: at 95%, fewer
than 3/n of all matches would score otherwise, and a match's score is within 1 of the common
one, so the mean lies within 3/n of it, which settles the run once 3/n <= `target` (60
matches for 5 points). It never decides.

Looking again and again at a normal interval and stopping when it excludes a value rejects a
true value far more often than 5% of the time. z is therefore Pocock's constant for the number
of looks (Pocock, "Group sequential methods in the design and analysis of clinical trials",
Biometrika 1977): the same nominal level at every look, chosen so that the chance of any look's
interval excluding the true mean is `alpha` (2.41 for 5 looks, 2.56 for 10, 2.67 for 20).
Looks before `min_matches` are skipped, which only makes the rule more conservative.

The rule is applied to the matches in index order, so a run cut short and resumed reaches the
same decisions as one played at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from chancespiel.evaluation.stats import MatchInterval

GRID_STEP = 0.005  # of the partial-sum grid in `pocock_z`, in standard deviations of one batch


@cache
def pocock_z(looks: int, alpha: float = 0.05) -> float:
    """Pocock's two-sided constant: P(|Z_k| >= z at some look k <= looks) = alpha under the null.

    Z_k = S_k / sqrt(k) for a sum S_k of k standard normal increments (equal batches). The
    probability of crossing is computed by following the density of S_k on the grid of the
    region not yet stopped (the Armitage-McPherson-Rowe recursion), and z found by root
    finding.

    Raises:
      ValueError: for looks < 1 or alpha outside (0, 1).
    """
    from scipy import optimize, stats  # here: importing scipy costs every command 0.25 s

    if looks < 1:
        raise ValueError(f"looks must be >= 1, got {looks}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if looks == 1:
        return float(stats.norm.isf(alpha / 2))

    half_width = round(8.0 / GRID_STEP)  # the increment's density beyond 8 sd is negligible
    increment = stats.norm.pdf(np.arange(-half_width, half_width + 1) * GRID_STEP) * GRID_STEP

    def continuing(z: float) -> float:
        cells = math.ceil(z * math.sqrt(looks) / GRID_STEP)
        grid = np.arange(-cells, cells + 1) * GRID_STEP
        density = stats.norm.pdf(grid)
        for k in range(1, looks + 1):
            if k > 1:  # the density of the next partial sum: one more normal increment
                density = np.convolve(density, increment)[half_width : half_width + len(grid)]
            density = np.where(np.abs(grid) < z * math.sqrt(k), density, 0.0)
        return float(density.sum() * GRID_STEP)

    low = float(stats.norm.isf(alpha / 2))
    return float(optimize.brentq(lambda z: continuing(z) - (1 - alpha), low, low + 2, xtol=1e-5))


@dataclass(frozen=True)
class SequentialRule:
    """Looks every `batch` matches from `min_matches` on, up to `max_matches`."""

    batch: int = 10
    max_matches: int = 200
    min_matches: int = 20
    target: float = 0.05  # half-width of the 95% interval that is precise enough
    alpha: float = 0.05

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError(f"batch must be >= 1 match, got {self.batch}")
        if not 2 <= self.min_matches <= self.max_matches:
            raise ValueError(
                f"need 2 <= min_matches <= max_matches, got {self.min_matches} and "
                f"{self.max_matches}"
            )
        if not 0.0 < self.target < 0.5:
            raise ValueError(f"target half-width must be in (0, 0.5), got {self.target}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")

    @property
    def looks(self) -> list[int]:
        """The numbers of matches at which the rule looks, in order."""
        points = [*range(self.batch, self.max_matches, self.batch), self.max_matches]
        return [n for n in points if n >= self.min_matches]

    @property
    def z(self) -> float:
        """Pocock's constant for every look at multiples of `batch` up to `max_matches`."""
        return pocock_z(math.ceil(self.max_matches / self.batch), self.alpha)


@dataclass(frozen=True)
class Decision:
    """Where a run stands under a SequentialRule."""

    matches: int  # the look that stopped the run, or the next look to play up to
    reason: str | None  # "precise", "decided", "cap", or None while the run goes on
    interval: MatchInterval | None  # 95% interval at the last look reached (None before one)
    z: float  # the rule's sequential constant

    @property
    def sequential(self) -> tuple[float, float]:
        """The sequential interval at the last look reached (nan before one): mean +- z'
        standard errors, z' the quantile of Student's t (n - 1 degrees of freedom) at the
        level of Pocock's z, since the variance is estimated from the same n matches."""
        i = self.interval
        if i is None or i.matches < 2 or math.isnan(i.variance):
            return math.nan, math.nan
        from scipy import stats

        z = float(stats.t.isf(stats.norm.sf(self.z), i.matches - 1))
        half = z * math.sqrt(i.variance / i.matches)
        return i.mean - half, i.mean + half


def excludes(interval: tuple[float, float], references: Sequence[float]) -> bool:
    """Whether the closed `interval` contains none of `references`."""
    low, high = interval
    return all(not low <= r <= high for r in references)


def decide(
    rule: SequentialRule,
    interval_at: Callable[[int], MatchInterval | None],
    references: Sequence[float],
) -> Decision:
    """Walks the rule's looks in order and stops at the first that settles the run.

    `interval_at(n)` is the 95% interval of the first n matches, or None if they are not all
    played yet; the walk then ends with the run still open at look n.
    """
    last = None
    for n in rule.looks:
        interval = interval_at(n)
        if interval is None:
            return Decision(n, None, last, rule.z)
        last = interval
        if not interval.variance > 0:  # all matches alike: the rule of three bounds the mean
            if 3 / n <= rule.target:
                return Decision(n, "precise", interval, rule.z)
            continue
        if interval.half_width <= rule.target:
            return Decision(n, "precise", interval, rule.z)
        if excludes(Decision(n, None, interval, rule.z).sequential, references):
            return Decision(n, "decided", interval, rule.z)
    return Decision(rule.max_matches, "cap", last, rule.z)


def verdict(interval: tuple[float, float], claim: float | None, direction: float = 0.5) -> str:
    """A published claim that the left agent wins (rate > `direction`), `claim` its stated rate
    if any, against an interval of ours: agrees, disagrees, or undecided.

    "agrees in direction" when ours is above `direction` but excludes the stated rate.
    """
    low, high = interval
    if math.isnan(low):
        return "undecided"
    if high < direction:
        return "disagrees"
    if low > direction:
        if claim is None or low <= claim <= high:
            return "agrees"
        return "agrees in direction, not in size"
    if claim is not None and not low <= claim <= high:
        return f"disagrees with {100 * claim:.0f}%; undecided against {100 * direction:.0f}%"
    return "undecided"
