"""The interpreted side of what the search families share: their clocks and parameter checks,
iterative deepening, the game check, and the reference sampler. What runs inside a search
(budgets, path keys, sampling, move ordering) is compiled: agents.search_core.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

from chancespiel.agents.registry import Param, seat_problems
from chancespiel.agents.search_core import SearchTimeout, uniform


def sample_outcomes_linear(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int
) -> list[tuple[int, float]]:
    """`search_core.sample_outcomes` by a linear scan of the distribution per draw.

    Kept as the reference of the sampling benchmark and tests: both draw the same outcomes
    (the i-th at `uniform(key, i)`) but where a uniform number falls within rounding error
    of a cumulative boundary.
    """
    counts: dict[int, int] = {}
    for i in range(samples):
        u = uniform(key, i)
        chosen = outcomes[-1][0]  # if rounding leaves u just above the total
        for outcome, prob in outcomes:
            u -= prob
            if u < 0.0:
                chosen = outcome
                break
        counts[chosen] = counts.get(chosen, 0) + 1
    return [(outcome, count / samples) for outcome, count in counts.items()]


# What a time budget measures: wall time, as the MCMS paper's players; or the CPU time of the
# searching thread, which other jobs on a shared machine cannot eat into, so that a budget buys
# the same search however loaded the machine is.
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}

# Upper bounds of the agents' numeric parameters (Param.high), each keeping one move bounded in
# time and memory; `Limits` holds every search to the budgets' bounds.
MAX_TIME_MS = 3_600_000.0  # an hour per move
MAX_DEPTH = 100  # decision plies (the recursion's depth; synthetic test trees are 40 deep)
MAX_NODES = 1_000_000_000  # nodes a depth-first search visits (a counter, not memory)
MAX_TREE_NODES = 10_000_000  # MCTS tree nodes and simulations (each one a node in memory)
MAX_SAMPLES = 10_000_000  # outcomes drawn at one chance node
MAX_CONSTANT = 1000.0  # exploration and widening constants
MAX_COEFFICIENT = 1e6  # additive bounds and regression coefficients
CLOCK = Param(
    "wall",
    "what time_ms measures: wall time (wall) or the search thread's CPU time (cpu: the same "
    "search on a loaded machine)",
)


def time_ms_param(text: str = "time budget per move in ms (default 200 if no budget)") -> Param:
    """The `time_ms` parameter of a searching agent: positive, at most MAX_TIME_MS."""
    return Param(None, text, float, high=MAX_TIME_MS, low=0.0, open_low=True)


# The budget parameters of the depth-first searches (*-Minimax, bounded alpha-beta, ChanceProbCut).
DEPTH_FIRST_BUDGET: dict[str, Param] = {
    "max_depth": Param(
        None,
        "deepest iteration in decision plies (none: until the budget)",
        int,
        high=MAX_DEPTH,
        low=1,
    ),
    "time_ms": time_ms_param(),
    "clock": CLOCK,
    "max_nodes": Param(None, "node budget per move", int, high=MAX_NODES, low=1),
}


def clock_named(name: str) -> Callable[[], float]:
    """The clock `name` of CLOCKS.

    Raises:
      ValueError: for an unknown name, listing the known ones.
    """
    try:
        return CLOCKS[name]
    except KeyError:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {name!r}") from None


@dataclass(frozen=True)
class Limits:
    """The budget of one search, shared by every agent family: the search ends when the first
    of its limits is spent (None: no such limit). `time_ms` is measured by `clock` ("wall" or
    "cpu", CLOCKS). Depth-first searches take max_depth, time_ms and max_nodes; MCTS
    max_simulations, time_ms and max_nodes (tree nodes). Each is at most its MAX_ above.

    Raises:
      ValueError: naming the first bad limit or clock.
    """

    max_depth: int | None = None
    max_simulations: int | None = None
    max_nodes: int | None = None
    time_ms: float | None = None
    clock: str = "wall"

    def __post_init__(self) -> None:
        counts = (
            ("max_depth", self.max_depth, MAX_DEPTH),
            ("max_simulations", self.max_simulations, MAX_TREE_NODES),
            ("max_nodes", self.max_nodes, MAX_NODES),
        )
        for name, count, high in counts:
            if count is not None and count < 1:
                raise ValueError(f"{name} must be >= 1, got {count}")
            if count is not None and count > high:
                raise ValueError(f"{name} must be at most {high}, got {count}")
        if self.time_ms is not None and not self.time_ms > 0:  # also rejects NaN
            raise ValueError(f"time_ms must be > 0, got {self.time_ms}")
        if self.time_ms is not None and self.time_ms > MAX_TIME_MS:
            raise ValueError(f"time_ms must be at most {MAX_TIME_MS:.0f}, got {self.time_ms}")
        clock_named(self.clock)

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Limits:
        """The limits among an agent's search options (other options are ignored)."""
        names = [field.name for field in dataclasses.fields(cls)]
        return cls(**{name: options[name] for name in names if name in options})

    @property
    def unlimited(self) -> bool:
        """True if no limit is set."""
        budgets = (self.max_depth, self.max_simulations, self.max_nodes, self.time_ms)
        return all(limit is None for limit in budgets)

    @property
    def timer(self) -> Callable[[], float]:
        """The clock `time_ms` is measured by (its function, for a search to poll)."""
        return CLOCKS[self.clock]

    def deadline(self) -> float | None:
        """The timer's reading at which `time_ms` from now is spent (None without time_ms)."""
        return None if self.time_ms is None else self.timer() + self.time_ms / 1000.0


DEPTH_FIRST_LIMITS = ("max_depth", "time_ms", "max_nodes")


def check_budget(
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    clock: str = "wall",
) -> Limits:
    """The limits of a depth-first search (Star, BAB), checked.

    Raises:
      ValueError: naming the first bad limit or clock, or if no limit is given.
    """
    limits = Limits(max_depth=max_depth, max_nodes=max_nodes, time_ms=time_ms, clock=clock)
    if limits.unlimited:
        raise ValueError(f"give at least one of {', '.join(DEPTH_FIRST_LIMITS)}")
    return limits


def deepen(
    iteration: Callable[[int], bool], max_depth: int | None, iterative: bool, forced: bool
) -> bool:
    """Iterative deepening: calls `iteration(depth)` for depth = 1, 2, ... up to `max_depth`.

    `iteration` searches to `depth`, keeps its result, and returns whether the search stopped
    anywhere at the horizon; if it did not, the whole tree was searched and deeper iterations
    cannot change anything. `iterative=False` runs `max_depth` alone (node counts of the bare
    algorithm); `forced` (a single legal move, no depth given) stops after depth 1.

    Returns:
      False if the budget ran out during an iteration (SearchTimeout), whose result is then
      the previous iteration's; True otherwise.
    """
    if not iterative and max_depth is None:
        raise ValueError("iterative=False needs max_depth")
    depth = max_depth - 1 if not iterative and max_depth is not None else 0
    while max_depth is None or depth < max_depth:
        depth += 1
        try:
            horizon_reached = iteration(depth)
        except SearchTimeout:
            return False
        if not horizon_reached or forced:
            break
    return True


def search_problems(game: pyspiel.Game) -> list[str]:
    """What keeps the search agents from `game` (each as 'what it has (what is needed)'):
    none for a sequential two-player zero-sum game of perfect information."""
    game_type = game.get_type()
    problems = seat_problems(game)
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        problems.append(f"{game_type.utility.name.lower()} utility (needs zero-sum)")
    if game_type.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        problems.append("imperfect information (needs perfect information)")
    return problems


def check_two_player_zero_sum(game: pyspiel.Game, agent: str) -> None:
    """Raises ValueError unless `game` is a sequential 2-player zero-sum perfect-info game."""
    game_type = game.get_type()
    if problems := search_problems(game):
        raise ValueError(
            f"agent {agent} does not support {game_type.short_name}: {'; '.join(problems)}"
        )
