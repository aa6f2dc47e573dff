"""Statistics for match results."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a rate of `score` successes in `n` games.

    A draw counts as half a success, so `score` may be a half-integer.

    Raises:
      ValueError: if n < 1 or score is outside [0, n].
    """
    if n < 1:
        raise ValueError(f"need at least one game, got n={n}")
    if not 0.0 <= score <= n:
        raise ValueError(f"score must be in [0, {n}], got {score}")
    p = score / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class MatchInterval:
    """A mean of per-match scores with its normal 95% interval (nan without two matches)."""

    mean: float
    low: float
    high: float
    variance: float  # of one match's score
    matches: int

    @property
    def half_width(self) -> float:
        """1.96 standard errors: the interval's half-width before clipping to the bounds."""
        return Z95 * math.sqrt(self.variance / self.matches) if self.matches else math.nan


def match_interval(
    scores: Sequence[float], bounds: tuple[float, float] = (0.0, 1.0)
) -> MatchInterval:
    """Mean and normal 95% interval of per-match scores (the pentanomial interval of chess
    engine testing, fastchess and OpenBench, when the scores are raw match results), clipped
    to `bounds`, the range the quantity can take (a score rate's by default: a normal
    interval near 0 or 1 would otherwise reach past it)."""
    n = len(scores)
    if n == 0:
        return MatchInterval(math.nan, math.nan, math.nan, math.nan, 0)
    x = np.asarray(scores, dtype=float)
    mean = float(x.mean())
    if n < 2:
        return MatchInterval(mean, math.nan, math.nan, math.nan, n)
    variance = float(x.var(ddof=1))
    half = Z95 * math.sqrt(variance / n)
    low, high = bounds
    return MatchInterval(mean, max(low, mean - half), min(high, mean + half), variance, n)
