"""Pieces every search family shares: budgets, path keys, chance sampling, game checks.

Path keys: every node of a search tree is named by a 64-bit hash of the actions (chance
outcomes included) from the root. Sampling a chance node from its key, not from a running
random stream, makes the sample independent of the order in which a search visits nodes. So
expss, star1ss and star2ss see exactly the same sampled tree, and Star2 probes and searches the
same sample, as the MCMS paper requires.
"""

from __future__ import annotations

import random
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

import pyspiel

from chancespiel.agents.registry import Param, seat_problems

MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a well-spread 64-bit hash of a 64-bit integer."""
    x = (x + _GAMMA) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def child_key(key: int, action: int) -> int:
    """Path key of the child reached from the node `key` by `action`.

    CPython's tuple hash of ints is fast, well mixed and the same in every process (only str
    and bytes hashes are salted); samples mix the key again before drawing.
    """
    return hash((key, action))


MAX_CACHED_TABLES = 512  # distinct shared outcome tuples whose cumulative tables are kept
_TABLES: dict[int, tuple[Sequence[tuple[int, float]], list[int], list[float]]] = {}


def cumulative_table(outcomes: Sequence[tuple[int, float]]) -> tuple[list[int], list[float]]:
    """The outcome ids and cumulative probabilities of a chance node's distribution.

    The game cores return one shared tuple per distinct distribution (Pig's dice, Can't Stop's
    126 rolls, EWN's die), so tables of tuples are cached by identity; the cache holds the
    tuple, so its id cannot be reused while cached. Other sequences (lists, as from Ra or the
    pyspiel adapter) are tabulated on each call.
    """
    cacheable = type(outcomes) is tuple
    if cacheable:
        entry = _TABLES.get(id(outcomes))
        if entry is not None and entry[0] is outcomes:
            return entry[1], entry[2]
    ids = [outcome for outcome, _ in outcomes]
    cum = list(accumulate(prob for _, prob in outcomes))
    if cacheable:
        if len(_TABLES) >= MAX_CACHED_TABLES:
            _TABLES.clear()
        _TABLES[id(outcomes)] = (outcomes, ids, cum)
    return ids, cum


def sample_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn with replacement by probability, duplicates merged.

    Each distinct outcome gets weight count / samples; the result lists outcomes in order of
    first draw. The draws are a pure function of `key` (uniform numbers from a generator
    seeded by it), each found in the cumulative table by bisection (O(log n) per draw).
    """
    ids, cum = cumulative_table(outcomes)
    last = len(ids) - 1
    # A Mersenne Twister seeded by the key: seeding plus c draws costs about half of c
    # SplitMix64 hashes in Python, and the key is already a well-mixed 64-bit hash.
    draw = random.Random(key).random
    counts: dict[int, int] = {}
    for _ in range(samples):
        index = bisect_right(cum, draw())
        chosen = ids[index if index <= last else last]  # rounding can leave cum[-1] <= u
        counts[chosen] = counts.get(chosen, 0) + 1
    return [(outcome, count / samples) for outcome, count in counts.items()]


def sample_outcomes_linear(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int
) -> list[tuple[int, float]]:
    """`sample_outcomes` by a linear scan of the distribution per draw (the former method).

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


MAX_TABLE_SIZE = 2_000_000  # best-move entries kept before the table is cleared


class MoveOrderingMixin:
    """Move ordering for depth-first searches: the best move each decision node had at the
    previous iteration (keyed by path or by state) first, then the game's static order.

    Users set `self.ordering` (a static ordering or None) and `self.best_moves` (a dict).
    """

    ordering: Callable[[Any, Sequence[int]], Sequence[int]] | None
    best_moves: dict[int, int]

    def ordered_actions(self, state: Any, key: int) -> Sequence[int]:
        """Legal actions, best move from the previous iteration first, then static order."""
        actions = state.legal_actions()
        if self.ordering is not None:
            actions = self.ordering(state, actions)
        best = self.best_moves.get(key)
        if best is not None and best != actions[0] and best in actions:
            actions = [best, *(a for a in actions if a != best)]
        return actions

    def remember(self, key: int, action: int) -> None:
        """Stores the best move of the node `key` for the next iteration."""
        if len(self.best_moves) >= MAX_TABLE_SIZE:
            self.best_moves.clear()
        self.best_moves[key] = action


class SearchTimeout(Exception):  # noqa: N818  (control flow, not an error)
    """Raised inside a search when its time or node budget runs out."""


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


class Budget:
    """A time and node budget, checked every 256 nodes (so it may overrun by that many)."""

    __slots__ = ("clock", "deadline", "max_nodes", "nodes")

    def __init__(
        self,
        time_ms: float | None,
        max_nodes: int | None,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.clock = clock
        self.deadline = None if time_ms is None else clock() + time_ms / 1000.0
        self.max_nodes = max_nodes
        self.nodes = 0

    def tick(self) -> None:
        """Counts a node; raises SearchTimeout once the budget is spent."""
        self.nodes += 1
        if not self.nodes & 255:
            self.check()

    def check(self) -> None:
        """Raises SearchTimeout if the budget is spent (callers batch their node counts)."""
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchTimeout
        if self.deadline is not None and self.clock() > self.deadline:
            raise SearchTimeout


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
