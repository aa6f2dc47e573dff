"""Sequential probability ratio test (SPRT) on match pairs, as chess engine testing does.

Model: pentanomial. Our matches are pairs of seat-swapped games on the same dice, so the
natural sample is the match, not the game: x = A's mean score over the match's two games, one
of 0, 1/4, 1/2, 3/4, 1, with unknown probabilities p_0..p_4. Pairs are far less noisy than
games (the shared dice cancel), which the pentanomial model captures and a per-game
(trinomial) model would miss.

Hypotheses, in logistic Elo: H0: elo = elo0 against H1: elo = elo1, where a rating difference
d means an expected score s(d) = 1 / (1 + 10^(-d/400)) per game, i.e. E[x] = s(d).

Statistic: the generalized log-likelihood ratio (GSPRT, as Fishtest uses)

    LLR = max {log L(p) : E_p[x] = s1} - max {log L(p) : E_p[x] = s0}

over pentanomial distributions p, with L(p) = prod_k p_k^n_k for the counts n_k so far. Each
maximum is the empirical likelihood of the mean: p_k = n_k / (N (1 + t (x_k - s))), where t
maximizes sum_k n_k log(1 + t (x_k - s)) over the t that keep every probability of all five
scores non-negative, a one-dimensional concave problem. Unobserved scores may get probability,
so no regularization is needed: a single drawn match is weak evidence, not a certainty (the
normal approximation N (s1 - s0)(2 mean - s0 - s1) / (2 var), which this approaches for large
N, is undefined while all matches so far have the same result).

Luck-corrected matches (evaluation.luck): a match's corrected score is continuous, so the
pentanomial model does not apply; `CorrectedSprt` uses the normal approximation above, with the
sample variance of the corrected scores, and decides nothing before MIN_NORMAL_MATCHES.

Wald's bounds: accept H1 when LLR >= ln((1 - beta) / alpha), H0 when LLR <= ln(beta /
(1 - alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
# The widest Elo difference a hypothesis may name: a score of 99.999% (or 0.001%). Beyond about
# 6,400 the expected score rounds to 1.0 (or overflows below -120,000), which no test can use.
MAX_ELO = 2000.0


def logistic_score(elo: float) -> float:
    """Expected score of a player rated `elo` above the opponent (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class SprtParams:
    """H0: elo = elo0, H1: elo = elo1; alpha and beta are the two error probabilities."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name, elo in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not -MAX_ELO <= elo <= MAX_ELO:  # NaN too
                raise ValueError(f"SPRT {name} must be in [-{MAX_ELO:g}, {MAX_ELO:g}], got {elo}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must be in (0, 0.5), got {value}")

    @classmethod
    def parse(cls, text: str) -> SprtParams:
        """From 'elo0,elo1,alpha,beta' (alpha and beta may be left out: 0.05 each)."""
        parts = text.split(",")
        if len(parts) not in (2, 4):
            raise ValueError(f"SPRT: expected elo0,elo1[,alpha,beta], got {text!r}")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"SPRT: expected numbers, got {text!r}") from None
        return cls(*values)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)


def _max_log_likelihood_ratio(counts: Sequence[float], s: float) -> float:
    """max over pentanomial p with mean s of log L(p) - log L(empirical p); <= 0."""
    if not 0.0 < s < 1.0:
        raise ValueError(f"expected score must be in (0, 1), got {s}")
    terms = [(c, x - s) for c, x in zip(counts, PAIR_SCORES, strict=True) if c > 0]
    # 1 + t (x - s) >= 0 at the scores 0 and 1 bounds t; f(t) = sum c log(1 + t d) is concave

    def value(t: float) -> float:
        total = 0.0
        for c, d in terms:
            q = 1.0 + t * d
            if q <= 0.0:
                return -math.inf
            total += c * math.log(q)
        return total

    def slope_and_curvature(t: float) -> tuple[float, float]:
        first = second = 0.0
        for c, d in terms:
            r = d / (1.0 + t * d)
            first += c * r
            second -= c * r * r
        return first, second

    t_low, t_high = -1.0 / (1.0 - s), 1.0 / s
    margin = 1e-12 * (t_high - t_low)
    low, high = t_low + margin, t_high - margin
    if slope_and_curvature(high)[0] >= 0.0:  # rising to the end: score 0 unobserved, mass there
        return -max(value(t_high), value(high))
    if slope_and_curvature(low)[0] <= 0.0:  # falling from the start: mass on score 1
        return -max(value(t_low), value(low))
    t = 0.0  # inside (low, high); Newton steps, bisecting when one leaves the bracket
    for _ in range(200):
        first, second = slope_and_curvature(t)
        if first > 0.0:
            low = t
        else:
            high = t
        step = -first / second if second < 0.0 else math.inf
        if not low < t + step < high:
            step = (low + high) / 2.0 - t
        t += step
        if abs(step) <= 1e-15 * max(1.0, abs(t)) or high - low <= 1e-15:
            break
    return -value(t)


def pentanomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 over H0 from pentanomial counts.

    Args:
      counts: numbers of matches in which A scored 0, 1/2, 1, 3/2, 2 points of 2.
      elo0, elo1: the hypotheses in logistic Elo.

    Returns:
      The LLR (0 for no matches).
    """
    if len(counts) != len(PAIR_SCORES):
        raise ValueError(f"expected 5 pentanomial counts, got {len(counts)}")
    if any(c < 0 for c in counts):
        raise ValueError(f"counts must be >= 0, got {list(counts)}")
    if sum(counts) == 0:
        return 0.0
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return _max_log_likelihood_ratio(counts, s1) - _max_log_likelihood_ratio(counts, s0)


def pair_index(points: float) -> int:
    """The pentanomial bin of A's points (0, 0.5, 1, 1.5 or 2) in a match."""
    index = round(points * 2)
    if not 0 <= index <= 4 or abs(index - points * 2) > 1e-9:
        raise ValueError(f"match points must be one of 0, 0.5, 1, 1.5, 2, got {points}")
    return index


@dataclass
class SprtResult:
    """The state of a test: the LLR, its bounds, and the decision if one was reached."""

    params: SprtParams
    counts: list[int]
    llr: float
    decision: str | None  # 'H1' (the matches favour elo1 over elo0), 'H0' (elo0), None
    pairs: int  # pairs used when the decision was reached, or all pairs so far
    model: str = "pentanomial"

    def describe(self) -> str:
        """One line for people."""
        p = self.params
        head = (
            f"SPRT elo0={p.elo0:g} elo1={p.elo1:g} alpha={p.alpha:g} beta={p.beta:g} "
            f"({self.model}): LLR {self.llr:.3f} in [{p.lower:.3f}, {p.upper:.3f}] "
            f"after {self.pairs} matches ({2 * self.pairs} games)"
        )
        # What the test decided, no more: which of the two elos the matches favour, with the
        # error rate that guards it; it does not say A's elo is at least elo1 (or at most elo0).
        if self.decision == "H1":
            return head + (
                f": H1 accepted: A's elo is more likely elo1={p.elo1:g} than elo0={p.elo0:g} "
                f"(at alpha={p.alpha:g}: a test of elo {p.elo0:g} or lower ends so at most about "
                "that often); no estimate of the elo"
            )
        if self.decision == "H0":
            return head + (
                f": H0 accepted: A's elo is more likely elo0={p.elo0:g} than elo1={p.elo1:g} "
                f"(at beta={p.beta:g}: a test of elo {p.elo1:g} or higher ends so at most about "
                "that often); no estimate of the elo"
            )
        return head + ": no decision yet"


class Sprt:
    """A running test over pairs added in order; it stops changing once it has decided."""

    def __init__(self, params: SprtParams):
        self.params = params
        self.counts = [0] * len(PAIR_SCORES)
        self.llr = 0.0
        self.decision: str | None = None
        self.decided_at: int | None = None

    @property
    def pairs(self) -> int:
        """Pairs added so far."""
        return sum(self.counts)

    def add(self, points: float) -> str | None:
        """Adds one match in which A scored `points` of 2; returns the decision, if any."""
        if self.decision is not None:
            return self.decision
        self.counts[pair_index(points)] += 1
        self.llr = pentanomial_llr(self.counts, self.params.elo0, self.params.elo1)
        if self.llr >= self.params.upper:
            self.decision = "H1"
        elif self.llr <= self.params.lower:
            self.decision = "H0"
        if self.decision is not None:
            self.decided_at = self.pairs
        return self.decision

    def result(self) -> SprtResult:
        """The test's state."""
        return SprtResult(
            self.params, list(self.counts), self.llr, self.decision, self.decided_at or self.pairs
        )


MIN_NORMAL_MATCHES = 10


def normal_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """Normal-approximation log-likelihood ratio of per-match mean scores (nan below two
    matches or with zero variance): N (s1 - s0)(2 mean - s0 - s1) / (2 var)."""
    n = len(scores)
    if n < 2:
        return math.nan
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / (n - 1)
    if var <= 0.0:
        return math.nan
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


class CorrectedSprt:
    """A running test over continuous per-match scores (A's luck-corrected mean score per game
    of the match), with the same interface as Sprt but `add(score)` takes a score in score
    units (about 0..1), not match points."""

    def __init__(self, params: SprtParams):
        self.params = params
        self.scores: list[float] = []
        self.llr = 0.0
        self.decision: str | None = None
        self.decided_at: int | None = None

    @property
    def pairs(self) -> int:
        """Matches added so far."""
        return len(self.scores)

    def add(self, score: float) -> str | None:
        """Adds one match's corrected score; returns the decision, if any."""
        if self.decision is not None:
            return self.decision
        self.scores.append(score)
        llr = normal_llr(self.scores, self.params.elo0, self.params.elo1)
        self.llr = 0.0 if math.isnan(llr) else llr
        if self.pairs >= MIN_NORMAL_MATCHES and not math.isnan(llr):
            if llr >= self.params.upper:
                self.decision = "H1"
            elif llr <= self.params.lower:
                self.decision = "H0"
        if self.decision is not None:
            self.decided_at = self.pairs
        return self.decision

    def result(self) -> SprtResult:
        """The test's state."""
        return SprtResult(
            self.params,
            [],
            self.llr,
            self.decision,
            self.decided_at or self.pairs,
            model="luck-corrected, normal approximation",
        )
