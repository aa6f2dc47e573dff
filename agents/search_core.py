"""Pieces every depth-first search shares, compiled with the searches: budgets, path keys,
chance sampling and move ordering.

Path keys: every node of a search tree is named by a 64-bit hash of the actions (chance
outcomes included) from the root. Sampling a chance node from its key, not from a running
random stream, makes the sample independent of the order in which a search visits nodes. So
expss, star1ss and star2ss see exactly the same sampled tree, and Star2 probes and searches the
same sample, as the MCMS paper ("Monte Carlo *-Minimax Search", section 3.1) requires.

No pyspiel here: the module is part of the compiled engine (chancespiel.engine).
"""

from __future__ import annotations

import random
import struct
import time
from collections.abc import Callable, Sequence
from typing import Final, final

from librt.strings import read_f64_le, read_i32_le
from mypy_extensions import i64, mypyc_attr

from chancespiel.games.core import Core, Ordering

MAX_TABLE_SIZE: Final = 2_000_000  # best-move entries kept before the table is cleared
MAX_CACHED_TABLES: Final = 512  # distinct shared outcome tuples whose cumulative tables are kept

# Cumulative tables of a shared outcome tuple: ids, cumulative probabilities, their `Guide`
# (None for a table that is not cached), and the tuple itself (kept alive, so that its id,
# the cache key, is not reused while cached).
OutcomeTable = tuple[list[int], list[float], "Guide | None", Sequence[tuple[int, float]]]


def child_key(key: int, action: int) -> int:
    """Path key of the child reached from the node `key` by `action`.

    CPython's tuple hash of ints is fast, well mixed and the same in every process (only str
    and bytes hashes are salted); samples mix the key again before drawing.
    """
    return hash((key, action))


# Chance tables and sampling ----------------------------------------------------------------


def outcome_table(
    outcomes: Sequence[tuple[int, float]], cache: dict[int, OutcomeTable] | None
) -> OutcomeTable:
    """The outcomes of positive probability, their cumulative probabilities and guide table,
    and `outcomes`.

    The cores return one shared tuple per distinct distribution (Pig's dice, Can't Stop's 126
    rolls, EWN's die), so tables of tuples are kept in `cache`, keyed by identity; the table
    holds the tuple, so its id is not reused while it is cached. Other sequences (fresh lists,
    as from the pyspiel adapter) are tabulated each time, without a guide table.
    """
    cacheable = cache is not None and type(outcomes) is tuple
    if cache is not None and cacheable:
        entry = cache.get(id(outcomes))
        if entry is not None:
            return entry
    # One typed loop (compiled, a generator under `accumulate` boxes every partial sum); the
    # running sum is accumulate's: the first probability, then each partial sum plus the next.
    ids: list[int] = []
    cum: list[float] = []
    total = 0.0
    for outcome, prob in outcomes:
        if prob > 0.0:
            total += prob
            ids.append(outcome)
            cum.append(total)
    if cache is not None and cacheable and len(cache) < MAX_CACHED_TABLES:
        table = (ids, cum, Guide(cum), outcomes)
        cache[id(outcomes)] = table
        return table
    return (ids, cum, None, outcomes)


def sample_index(cum: list[float], u: float) -> int:
    """Index i with cum[i-1] <= u * cum[-1] < cum[i]: a draw by the weights behind `cum`
    (bisect_right of u * cum[-1], written out: compiled, it compares unboxed floats).

    `cum` is strictly increasing (cumulative positive weights) and u is uniform in [0, 1).
    """
    x = u * cum[-1]
    low = 0
    high = len(cum)
    while low < high:
        middle = (low + high) // 2
        if x < cum[middle]:
            high = middle
        else:
            low = middle + 1
    return low


@final
class Guide:
    """`sample_index` of one table `cum` in about one step instead of a bisection (`sample`).

    The guide has G buckets, G a power of two about twice the outcomes: bucket b starts the
    scan at `sample_index(cum, b / G)`, the draw of the smallest u that falls into it, which
    is at most the answer (u >= b / G exactly, as G is a power of two, and rounding u * cum[-1]
    keeps the order); the scan stops at the same comparison `x < cum[i]` as the bisection.
    The starts and `cum` are kept as little-endian bytes: compiled, each is one native read
    (mypyc's `librt.strings`), where an item of a list is a boxed number to check and unbox.
    """

    __slots__ = ("buckets", "count", "cum", "starts", "total")

    def __init__(self, cum: list[float]) -> None:
        size = 1 << (2 * len(cum) - 1).bit_length()
        starts = [sample_index(cum, b / size) for b in range(size)]
        self.starts = struct.pack(f"<{size}i", *starts)
        self.cum = struct.pack(f"<{len(cum)}d", *cum)
        self.buckets = float(size)
        self.count: i64 = len(cum)
        self.total = cum[-1]

    def __len__(self) -> int:
        """The buckets, G."""
        return int(self.buckets)

    def sample(self, u: float) -> int:
        """`sample_index(cum, u)`."""
        x = u * self.total
        cum = self.cum
        i = i64(read_i32_le(self.starts, 4 * i64(int(u * self.buckets))))
        n = self.count
        while i < n and x >= read_f64_le(cum, 8 * i):
            i += 1
        return int(i)


def sample_guided(cum: list[float], guide: Guide | None, u: float) -> int:
    """`sample_index(cum, u)`: by the guide of `cum` if it has one, else by bisection."""
    if guide is None:
        return sample_index(cum, u)
    return guide.sample(u)


_SAMPLE_TABLES: dict[int, OutcomeTable] = {}  # outcome_table's cache for sample_outcomes


SAMPLE_CHUNK: Final = 4096  # draws between two looks at the budget's clock
INDEPENDENT: Final = 0  # how _draw_outcomes places its points
SYSTEMATIC: Final = 1
STRATIFIED: Final = 2


def sample_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn with replacement by probability, duplicates merged.

    Each distinct outcome gets weight count / samples; the result lists outcomes in order of
    first draw. The draws are a pure function of `key` (uniform numbers from a generator
    seeded by it), each found in the cumulative table by bisection (O(log n) per draw).
    With a `budget`, its clock is read every SAMPLE_CHUNK draws (a search's budget is
    checked per node, and one node may draw millions), raising SearchTimeout once spent.
    """
    return _draw_outcomes(outcomes, samples, key, budget, INDEPENDENT)


def systematic_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn systematically by probability, duplicates merged.

    One uniform u in [0, 1/samples) and the points u + i / samples (i < samples) are looked up
    in the cumulative table: every outcome of probability p is drawn floor(samples * p) or
    ceil(samples * p) times (its expected count, as with independent draws, so the weighted
    mean is unbiased), and never more than one draw away from it, which independent draws
    give only in expectation. A pure function of `key`; weights count / samples; the
    `budget`'s clock is read as in `sample_outcomes`.
    """
    return _draw_outcomes(outcomes, samples, key, budget, SYSTEMATIC)


def stratified_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: int, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn by stratified sampling, duplicates merged.

    The cumulative table is cut into `samples` equal strata and one point drawn uniformly in
    each: unbiased like the others, every outcome drawn within about one of its expected
    count, and, unlike one uniform number for every point (`systematic_outcomes`), blind to
    a period in the order of the outcomes. Ordered dice listed by first die then second,
    sampled at half their number, are such a period: every systematic point falls on the
    same parity of the second die. A pure function of `key`; weights count / samples.
    """
    return _draw_outcomes(outcomes, samples, key, budget, STRATIFIED)


def _draw_outcomes(
    outcomes: Sequence[tuple[int, float]],
    samples: int,
    key: int,
    budget: Budget | None,
    mode: int,
) -> list[tuple[int, float]]:
    """The draws of `sample_outcomes`, `systematic_outcomes` or `stratified_outcomes`,
    counted."""
    if len(_SAMPLE_TABLES) >= MAX_CACHED_TABLES:
        _SAMPLE_TABLES.clear()
    ids, cum, guide, _ = outcome_table(outcomes, _SAMPLE_TABLES)
    # A Mersenne Twister seeded by the key: seeding plus c draws costs about half of c
    # SplitMix64 hashes in Python, and the key is already a well-mixed 64-bit hash.
    draw = random.Random(key).random
    start = draw() if mode == SYSTEMATIC else 0.0  # one uniform number for every point
    counts: dict[int, int] = {}
    done = 0
    while done < samples:  # chunks: the loop over draws stays free of a clock test per draw
        end = done + SAMPLE_CHUNK if samples - done > SAMPLE_CHUNK else samples
        for i in range(done, end):
            if mode == INDEPENDENT:
                u = draw()
            else:  # systematic: the same offset in every stratum; stratified: its own
                u = (i + (start if mode == SYSTEMATIC else draw())) / samples
            chosen = ids[sample_guided(cum, guide, u)]
            counts[chosen] = counts.get(chosen, 0) + 1
        done = end
        if done < samples and budget is not None:
            budget.check()
    return [(outcome, count / samples) for outcome, count in counts.items()]


# Budgets and move ordering -----------------------------------------------------------------


class SearchTimeout(Exception):  # noqa: N818  (control flow, not an error)
    """Raised inside a search when its time or node budget runs out."""


class Budget:
    """A time and node budget, checked every 256 nodes (so it may overrun by that many)."""

    def __init__(
        self,
        time_ms: float | None,
        max_nodes: int | None,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.clock = clock
        self.deadline: float | None = None if time_ms is None else clock() + time_ms / 1000.0
        self.max_nodes = max_nodes
        self.nodes = 0

    def tick(self) -> None:
        """Counts a node; raises SearchTimeout once the budget is spent."""
        self.nodes += 1
        if not self.nodes & 255:
            self.check()

    def affords(self, nodes: int, seconds: float) -> bool:
        """Whether `nodes` more nodes and `seconds` more time fit in what is left."""
        if self.max_nodes is not None and self.nodes + nodes > self.max_nodes:
            return False
        return self.deadline is None or self.clock() + seconds <= self.deadline

    def check(self) -> None:
        """Raises SearchTimeout if the budget is spent (callers batch their node counts)."""
        if self.spent():
            raise SearchTimeout

    def spent(self) -> bool:
        """Whether the nodes or the time are used up."""
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            return True
        return self.deadline is not None and self.clock() > self.deadline

    def narrow(self, share: float) -> tuple[int | None, float | None]:
        """Limits the budget to `share` of the nodes and time left, for a search that may be
        given up; returns the limits that `widen` puts back."""
        limits = (self.max_nodes, self.deadline)
        if self.max_nodes is not None:
            self.max_nodes = self.nodes + int((self.max_nodes - self.nodes) * share)
        if self.deadline is not None:
            now = self.clock()
            self.deadline = now + (self.deadline - now) * share
        return limits

    def widen(self, limits: tuple[int | None, float | None]) -> None:
        """Puts back the limits that `narrow` returned."""
        self.max_nodes, self.deadline = limits


@mypyc_attr(allow_interpreted_subclasses=True)
class OrderedSearch:
    """Base of the depth-first searches, for their move ordering: the best move each decision
    node had at the previous iteration (keyed by path or by state) first, then the game's
    static order."""

    def __init__(self, ordering: Ordering | None) -> None:
        self.ordering = ordering
        self.best_moves: dict[int, int] = {}

    def ordered_actions(self, state: Core, key: int) -> Sequence[int]:
        """Legal actions, best move from the previous iteration first, then static order."""
        actions = state.legal_actions()
        if self.ordering is not None:
            actions = self.ordering(state, actions)
        best = self.best_moves.get(key)
        # `best in actions`: a state key's hash collision must not bring in an illegal move.
        if best is not None and best != actions[0] and best in actions:
            actions = [best, *(a for a in actions if a != best)]
        return actions

    def remember(self, key: int, action: int) -> None:
        """Stores the best move of the node `key` for the next iteration."""
        if len(self.best_moves) >= MAX_TABLE_SIZE:
            self.best_moves.clear()
        self.best_moves[key] = action
