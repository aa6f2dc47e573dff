"""The interpreted side of what the search families share: their clocks and parameter checks,
iterative deepening, the game check, and the reference sampler. What runs inside a search
(budgets, path keys, sampling, move ordering) is compiled: agents.search_core.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

import pyspiel

from chancespiel.agents.registry import Param, seat_problems
from chancespiel.agents.search_core import SearchTimeout


def sample_outcomes_linear(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int
) -> list[tuple[int, float]]:
    """`search_core.sample_outcomes` by a linear scan of the distribution per draw.

    Kept as the reference of the sampling benchmark and tests: both draw the same outcomes
    but where a uniform number falls within rounding error of a cumulative boundary.
    """
    draw = random.Random(key).random
    counts: dict[int, int] = {}
    for _ in range(samples):
        u = draw()
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
CLOCK = Param(
    "wall",
    "what time_ms measures: wall time (wall) or the search thread's CPU time (cpu: the same "
    "search on a loaded machine)",
)


def clock_named(name: str) -> Callable[[], float]:
    """The clock `name` of CLOCKS.

    Raises:
      ValueError: for an unknown name, listing the known ones.
    """
    try:
        return CLOCKS[name]
    except KeyError:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {name!r}") from None


def check_budget(
    max_depth: int | None,
    time_ms: float | None,
    max_nodes: int | None,
    clock: str = "wall",
) -> None:
    """Raises ValueError naming the first bad depth / time / node budget or clock of a search."""
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be >= 1, got {max_depth}")
    if time_ms is not None and time_ms <= 0:
        raise ValueError(f"time_ms must be > 0, got {time_ms}")
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    if max_depth is None and time_ms is None and max_nodes is None:
        raise ValueError("give at least one of max_depth, time_ms, max_nodes")
    clock_named(clock)


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


def check_two_player_zero_sum(game: pyspiel.Game, agent: str) -> None:
    """Raises ValueError unless `game` is a sequential 2-player zero-sum perfect-info game."""
    game_type = game.get_type()
    problems = seat_problems(game)
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        problems.append(f"utility {game_type.utility} (needs zero-sum)")
    if game_type.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        problems.append("imperfect information (needs perfect information)")
    if problems:
        raise ValueError(
            f"agent {agent} does not support {game_type.short_name}: {'; '.join(problems)}"
        )
