"""ChanceProbCut: forward pruning at chance nodes, on top of Star2 (and Star2 with sampling).

Schadd, Winands and Uiterwijk, "ChanceProbCut: Forward Pruning in Chance Nodes" (IEEE CIG
2009), section III. Buro's ProbCut models the value v of a deep search (depth d) from the value
v' of a shallow one (depth d' < d) as v = a v' + b + e, with e normal of deviation sigma. At a
chance node of remaining depth >= d, ChanceProbCut searches each chance event's child to depth
(remaining - (d - d')) first and turns each shallow value into an estimated interval
[a v' + b - t sigma, a v' + b + t sigma] (clipped to [vmin, vmax]; a terminal child is exact),
with t the standard normal quantile of `confidence`. Events not yet estimated count as
[vmin, vmax]. As soon as the probability-weighted lower ends reach beta, the node is predicted
to fail high and returns beta; as soon as the upper ends reach alpha, it returns alpha. If
neither happens, the estimates are dropped and the node is searched by Star2 as usual (the
shallow searches leave their best moves in the ordering table, so they are not wasted).

Our choices where the paper leaves room:
- One regression, fitted for one depth pair (d, d'), is applied with the same reduction
  R = d - d' at every chance node of remaining depth >= d, as ProbCut implementations do.
- Shallow searches use the full window (an exact shallow value; the estimate is then the same
  for both tests).
- The regression is fitted on decision nodes that follow a chance event in real games
  (`fit_regression`), values for the player to move, with every pair also entered negated
  (zero-sum: the model must hold from both players' side, so b is 0 up to rounding).
- `confidence=1` disables the pruning and every shallow search: the agent is then Star2.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pyspiel

from chancespiel.agents.protocol import search_state
from chancespiel.agents.registry import HEURISTIC, ORDERING, Param, make_bot, register_agent
from chancespiel.agents.search_common import (
    DEPTH_FIRST_BUDGET,
    MAX_COEFFICIENT,
    MAX_DEPTH,
    MAX_SAMPLES,
    check_two_player_zero_sum,
)
from chancespiel.agents.star_minimax import (
    StarMinimaxBot,
    StarSearch,
    check_search_params,
    search,
)
from chancespiel.files import (
    NATURAL,
    NUMBER,
    TEXT,
    JsonError,
    field_problem,
    loads,
    read_bounded,
    shown,
    write_output,
)
from chancespiel.games.core import TERMINAL, Core, Heuristic, Ordering
from chancespiel.games.registry import evaluation_for, move_ordering_for

MAX_REGRESSION_BYTES = 1 << 16  # a saved regression is a few hundred bytes


@dataclass(frozen=True)
class Regression:
    """v_deep = a * v_shallow + b, residual deviation `sigma`, for one depth pair."""

    depth: int
    shallow: int
    a: float = 1.0
    b: float = 0.0
    sigma: float = 0.1
    pairs: int = 0  # (shallow, deep) pairs it was fitted on
    game: str = ""
    heuristic: str = "default"

    def save(self, path: str | Path) -> None:
        """Writes the regression as JSON (whole, or nothing)."""
        write_output(path, json.dumps(asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Regression:
        """Reads a regression written by `save`.

        Raises:
          ValueError: naming the file, for what is not a regular file of at most
            MAX_REGRESSION_BYTES holding such a regression (nothing is read without bound).
        """
        try:
            data = read_bounded(path, MAX_REGRESSION_BYTES)
        except OSError as e:
            raise ValueError(f"regression {path}: {e.strerror}") from None
        try:
            fields = loads(data)
        except JsonError as e:
            raise ValueError(f"regression {path}: not a saved regression ({e})") from None
        problem = "not a JSON object" if not isinstance(fields, dict) else None
        unknown = sorted(set(fields) - set(_REGRESSION_FIELDS)) if problem is None else []
        if unknown:
            problem = f"unknown field {shown(unknown[0])}"
        problem = problem or field_problem(fields, _REGRESSION_FIELDS, ("depth", "shallow"))
        if problem is not None:
            raise ValueError(f"regression {path}: not a saved regression ({problem})")
        return cls(**fields)

    def check(self) -> None:
        """Raises ValueError on an unusable regression."""
        if not 0 <= self.shallow < self.depth:
            raise ValueError(f"need 0 <= shallow < depth, got ({self.depth}, {self.shallow})")
        if not (self.sigma >= 0.0 and math.isfinite(self.a) and math.isfinite(self.b)):
            raise ValueError(f"bad regression coefficients: {self}")


_REGRESSION_FIELDS = {  # what `save` writes, and the kind of each
    "depth": NATURAL,
    "shallow": NATURAL,
    "a": NUMBER,
    "b": NUMBER,
    "sigma": NUMBER,
    "pairs": NATURAL,
    "game": TEXT,
    "heuristic": TEXT,
}


def linear_fit(pairs: Sequence[tuple[float, float]]) -> tuple[float, float, float]:
    """Least squares (a, b, sigma) of y = a x + b over (x, y) pairs; sigma of the residuals."""
    n = len(pairs)
    if n < 3:
        raise ValueError(f"need at least 3 pairs to fit a regression, got {n}")
    mx = sum(x for x, _ in pairs) / n
    my = sum(y for _, y in pairs) / n
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    a = sxy / sxx if sxx > 0.0 else 1.0
    b = my - a * mx
    residual = sum((y - a * x - b) ** 2 for x, y in pairs)
    return a, b, math.sqrt(residual / (n - 2))


def fit_regression(
    game: pyspiel.Game,
    depth: int,
    shallow: int,
    *,
    games: int = 10,
    agent: str = "greedy",
    max_positions: int = 200,
    seed: int = 0,
    heuristic: str = "default",
) -> Regression:
    """Fits ChanceProbCut's regression for `game` from positions of real games.

    Plays `games` self-play games of `agent` (a spec), collects the decision nodes right after
    chance events (at most `max_positions`, spread over the games), and searches each with
    Star2 to `shallow` and to `depth` plies, for the player to move.

    Returns:
      The fitted regression (depth pair, a, b, sigma, number of pairs).
    """
    rng = random.Random(seed)
    evaluation = evaluation_for(game, heuristic)
    positions: list[pyspiel.State] = []
    for number in range(games):
        bots = [make_bot(agent, game, p, seed=seed * 1000 + 2 * number + p) for p in (0, 1)]
        state = game.new_initial_state()
        after_chance = False
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions, probs = zip(*outcomes, strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                after_chance = True
                continue
            if after_chance and len(state.legal_actions()) > 1:
                positions.append(state.clone())
            after_chance = False
            state.apply_action(bots[state.current_player()].step(state))
    if len(positions) > max_positions:
        positions = rng.sample(positions, max_positions)
    pairs = []
    for state in positions:
        values = [
            search(
                search_state(state),
                game,
                "star2",
                max_depth=d,
                evaluation=evaluation,
                iterative=False,
            ).value
            if d > 0
            else evaluation(search_state(state), state.current_player())
            for d in (shallow, depth)
        ]
        pairs.append((values[0], values[1]))
        pairs.append((-values[0], -values[1]))
    a, b, sigma = linear_fit(pairs)
    return Regression(depth, shallow, a, b, sigma, len(pairs), str(game), heuristic)


class ChanceProbCutSearch(StarSearch):
    """Star2's search context with ChanceProbCut at chance nodes (module docstring)."""

    def __init__(self, *args: Any, regression: Regression, confidence: float, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.regression = regression
        t = NormalDist().inv_cdf(confidence) if confidence < 1.0 else math.inf
        self.margin = t * regression.sigma
        self.reduction = regression.depth - regression.shallow

    def chance_node(
        self, state: Core, depth: int, alpha: float, beta: float, key: int, ckey: int
    ) -> float:
        """Star2 at a chance node, after a ChanceProbCut test where it applies."""
        if (
            depth >= self.regression.depth
            and self.margin < math.inf
            and (alpha > self.vmin or beta < self.vmax)  # else no estimate can cut
        ):
            predicted = self.probcut(state, depth, alpha, beta, key, ckey)
            if predicted is not None:
                return predicted
        return super().chance_node(state, depth, alpha, beta, key, ckey)

    def probcut(
        self, state: Core, depth: int, alpha: float, beta: float, key: int, ckey: int
    ) -> float | None:
        """beta (alpha) if the shallow estimates predict a fail high (low), else None."""
        vmin, vmax = self.vmin, self.vmax
        a, b, margin = self.regression.a, self.regression.b, self.margin
        shallow = depth - self.reduction
        low, high = vmin, vmax  # weighted interval ends, unestimated events at [vmin, vmax]
        for outcome, prob in self.outcomes(state, depth, ckey):
            child = state.clone()
            child.apply(outcome)
            k, c = self.chance_child_keys(key, ckey, outcome)
            value = self.star(child, shallow, vmin, vmax, k, c)
            if child.current_player() == TERMINAL:
                lo = hi = value  # exact
            else:
                estimate = a * value + b
                lo = max(vmin, min(vmax, estimate - margin))
                hi = min(vmax, max(vmin, estimate + margin))
            low += prob * (lo - vmin)
            high += prob * (hi - vmax)
            if low >= beta:
                return beta
            if high <= alpha:
                return alpha
        return None


DEFAULT_CONFIDENCE = 0.9


def check_cpc_params(regression: Regression, confidence: float) -> None:
    """Raises ValueError on a bad regression or confidence."""
    regression.check()
    if not 0.5 < confidence <= 1.0:
        raise ValueError(f"confidence must be in (0.5, 1], got {confidence}")


@register_agent(
    "star2cpc",
    "Star2 with ChanceProbCut (Schadd, Winands and Uiterwijk 2009): chance nodes whose "
    "shallow searches predict a cut are pruned; regression=FILE from `fit_regression`",
    {
        "regression": Param(None, "JSON file of a fitted regression (overrides depth..sigma)", str),
        "depth": Param(3, "deep depth d of the regression's depth pair", high=MAX_DEPTH, low=1),
        "shallow": Param(1, "shallow depth d' < d", high=MAX_DEPTH, low=0),
        "a": Param(1.0, "regression slope", high=MAX_COEFFICIENT, low=-MAX_COEFFICIENT),
        "b": Param(0.0, "regression intercept", high=MAX_COEFFICIENT, low=-MAX_COEFFICIENT),
        "sigma": Param(0.1, "regression residual deviation", high=MAX_COEFFICIENT, low=0.0),
        "confidence": Param(
            DEFAULT_CONFIDENCE,
            "probability of a predicted cut (1: no pruning)",
            high=1.0,
            low=0.5,
            open_low=True,
        ),
        "samples": Param(
            None, "outcomes sampled per chance node (none: all)", int, high=MAX_SAMPLES, low=1
        ),
        "shared_samples": Param(False, "siblings share chance samples (with samples only)"),
        **DEPTH_FIRST_BUDGET,
        "prune_min_depth": Param(
            0, "no pruning at chance nodes with remaining depth <= this", high=MAX_DEPTH, low=0
        ),
        "heuristic": HEURISTIC,
        "ordering": ORDERING,
    },
)
def _make_star2cpc(
    game: pyspiel.Game,
    player: int,
    seed: int | None,
    regression: str | None,
    depth: int,
    shallow: int,
    a: float,
    b: float,
    sigma: float,
    confidence: float,
    samples: int | None,
    shared_samples: bool,
    max_depth: int | None,
    time_ms: float | None,
    clock: str,
    max_nodes: int | None,
    prune_min_depth: int,
    heuristic: str | Heuristic,
    ordering: str | Ordering,
) -> StarMinimaxBot:
    model = (
        Regression.load(regression)
        if regression is not None
        else Regression(depth, shallow, float(a), float(b), float(sigma))
    )
    check_cpc_params(model, float(confidence))
    if max_depth is None and time_ms is None and max_nodes is None:
        time_ms = 200.0
    check_search_params("star2", max_depth, time_ms, max_nodes, samples, prune_min_depth, clock)
    check_two_player_zero_sum(game, "star2cpc")
    move_ordering_for(game, ordering)  # checked now, not at the first move
    return StarMinimaxBot(
        game,
        player,
        seed if seed is not None else random.SystemRandom().getrandbits(63),
        "star2",
        max_depth=max_depth,
        time_ms=time_ms,
        clock=clock,
        max_nodes=max_nodes,
        samples=samples,
        shared_samples=shared_samples,
        prune_min_depth=prune_min_depth,
        evaluation=evaluation_for(game, heuristic),
        ordering=ordering,
        search_class=ChanceProbCutSearch,
        search_options={"regression": model, "confidence": float(confidence)},
    )
