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

import struct
import time
from collections.abc import Callable, Sequence
from typing import Final, final

from librt.strings import read_f64_le, read_i32_le
from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from chancespiel.agents.interrupt import poll_interrupt
from chancespiel.games.core import Core, Ordering
from chancespiel.games.tree_hash import MASK64, mix64, signed64

MAX_TABLE_SIZE: Final = 2_000_000  # best-move entries kept before the table is cleared
MAX_CACHED_TABLES: Final = 512  # distinct shared outcome tuples whose cumulative tables are kept

# Cumulative tables of a shared outcome tuple: ids, cumulative probabilities, their `Guide`
# (None for a table that is not cached), the tuple itself (kept alive, so that its id, the
# cache key, is not reused while cached), and whether the ids are `numbered` (each outcome
# its own index; False for a table that is not cached).
OutcomeTable = tuple[list[int], list[float], "Guide | None", Sequence[tuple[int, float]], bool]


RUNS_COMPILED: Final = not __file__.endswith(".py")  # this module is compiled (see child_key)

# CPython's hash of a pair of ints (`tuplehash` over `long_hash`), as signed 64-bit words: an
# int hashes to its absolute value modulo the Mersenne prime 2 ** 61 - 1, with its sign (and
# -1 made -2); the pair's lanes are combined by xxHash's rounds with these primes.
_HASH_MODULUS: Final[i64] = (1 << 61) - 1
# 11400714785074694791 = 2 ** 63 + this: the product with 2 ** 63 is the lowest bit moved to
# the top (mypyc boxes an i64 constant beyond +-2 ** 62, and converts it at every use).
_XXPRIME_1_LOW: Final[i64] = 2177342748219918983
_XXPRIME_2: Final[i64] = -4417276706812531889  # 14029467366897019727 - 2 ** 64
_XXPRIME_5: Final[i64] = 2870177450012600261
_PAIR_LENGTH: Final[i64] = 2870177450013471924  # 2 ^ _XXPRIME_5 ^ 3527539: the length, mangled
_LOW31: Final[i64] = (1 << 31) - 1


def child_key(key: i64, action: i64) -> i64:
    """Path key of the child reached from the node `key` by `action`: `hash((key, action))`.

    CPython's tuple hash of ints is well mixed and the same in every process (only str and
    bytes hashes are salted); samples mix the key again before drawing. Compiled, the same
    number is computed in machine integers (64-bit products wrap around, as CPython's
    unsigned ones do), without boxing the key and making a tuple to hash: a tenth of a
    node's work in Star2. In pure Python the integers would not wrap, and the tuple's hash
    is the faster way there.
    """
    if not RUNS_COMPILED:
        return hash((key, action))
    acc = _hash_round(_hash_round(_XXPRIME_5, _int_hash(key)), _int_hash(action)) + _PAIR_LENGTH
    if acc == -1:
        return 1546275796
    return acc


def _int_hash(x: i64) -> i64:
    """`hash(x)`: |x| modulo 2 ** 61 - 1 (2 ** 61 is 1 modulo it, so the bits above 61 add
    to the rest), with x's sign, and -1 made -2. ~x is |x| - 1 for a negative x, whose
    absolute value may not fit in 64 bits."""
    if x >= 0:
        r = (x & _HASH_MODULUS) + (x >> 61)
    else:
        m = ~x
        r = (m & _HASH_MODULUS) + (m >> 61) + 1
    if r >= _HASH_MODULUS:
        r -= _HASH_MODULUS
    if x >= 0:
        return r
    if r == 1:
        return -2
    return -r


def _hash_round(acc: i64, lane: i64) -> i64:
    """One of xxHash's rounds, as CPython's tuple hash runs it on each item's hash (the
    multiplications wrap modulo 2 ** 64; the rotation is by 31 bits)."""
    acc += lane * _XXPRIME_2
    acc = acc << 31 | (acc >> 33) & _LOW31
    return acc * _XXPRIME_1_LOW + (acc << 63)


# SplitMix64 (tree_hash.mix64) as signed 64-bit words, its constants split so that no part
# lies beyond +-2 ** 62 (mypyc boxes such an i64 constant): the increment as a sum of two, each
# multiplier as 2 ** 63 + c (the product with 2 ** 63 is the lowest bit moved to the top).
_GAMMA_HIGH: Final[i64] = -(1 << 62)
_GAMMA_LOW: Final[i64] = -2434343235958965227  # 0x9E3779B97F4A7C15 - 2 ** 64 - _GAMMA_HIGH
_MIX_1_LOW: Final[i64] = 4564476756301768121  # 0xBF58476D1CE4E5B9 - 2 ** 63
_MIX_2_LOW: Final[i64] = 1499779743744070123  # 0x94D049BB133111EB - 2 ** 63
_LOW33: Final[i64] = (1 << 33) - 1  # masks making the right shifts logical
_LOW34: Final[i64] = (1 << 34) - 1
_LOW37: Final[i64] = (1 << 37) - 1
_LOW53: Final[i64] = (1 << 53) - 1
_UNIT: Final = 1.0 / (1 << 53)


def mix_key(x: i64) -> i64:
    """`tree_hash.mix64` of the 64 bits of `x`, as a signed 64-bit integer.

    Compiled, in machine integers (products wrap modulo 2 ** 64, right shifts masked to be
    logical); in pure Python, where integers do not wrap, `mix64` itself.
    """
    if not RUNS_COMPILED:
        return signed64(mix64(x & MASK64))
    x = x + _GAMMA_HIGH + _GAMMA_LOW
    x ^= (x >> 30) & _LOW34
    x = x * _MIX_1_LOW + (x << 63)
    x ^= (x >> 27) & _LOW37
    x = x * _MIX_2_LOW + (x << 63)
    return x ^ ((x >> 31) & _LOW33)


def uniform(key: i64, index: i64) -> float:
    """The `index`-th uniform number in [0, 1) of the chance node `key`: output `index` of
    SplitMix64 seeded by `key` (the state key + (index + 1) * gamma, finalised), its top 53
    bits. A pure function of the two numbers: a node's draws cost no generator to seed, and
    any draw can be computed without the ones before it."""
    return float(mix_key(key + index * _GAMMA_HIGH + index * _GAMMA_LOW) >> 11 & _LOW53) * _UNIT


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
        table = (ids, cum, Guide(cum), outcomes, numbered(tuple(ids)))
        cache[id(outcomes)] = table
        return table
    return (ids, cum, None, outcomes, False)  # (a table made at every call: not looked at)


def numbered(items: tuple[int, ...]) -> bool:
    """True if `items` are 0, 1, ..., n - 1 (n >= 1) in order: each is its own index. (A
    tuple: compiled, a `Sequence` is walked by a generic iterator.)"""
    for index, item in enumerate(items):
        if item != index:
            return False
    return len(items) > 0


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
    """The table with which `sample_guided` draws from `cum` in about one step instead of a
    bisection.

    The guide has G buckets, G a power of two about twice the outcomes: bucket b starts the
    scan at `sample_index(cum, b / G)`, the draw of the smallest u that falls into it, which
    is at most the answer (u >= b / G exactly, as G is a power of two, and rounding u * cum[-1]
    keeps the order); the scan stops at the same comparison `x < cum[i]` as the bisection.
    The starts and `cum` are kept as little-endian bytes: compiled, each is one native read
    (mypyc's `librt.strings`), where an item of a list is a boxed number to check and unbox
    (and a `librt.vecs` vector costs more to read than bytes); the index is a machine integer.
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


def sample_guided(cum: list[float], guide: Guide | None, u: float) -> i64:
    """`sample_index(cum, u)`: by the guide of `cum` if it has one (the scan written here,
    not in a method of the guide: compiled, a call fewer per chance node), else by
    bisection."""
    if guide is None:
        return sample_index(cum, u)
    x = u * guide.total
    table = guide.cum
    i = i64(read_i32_le(guide.starts, 4 * i64(int(u * guide.buckets))))
    n = guide.count
    while i < n and x >= read_f64_le(table, 8 * i):
        i += 1
    return i


_SAMPLE_TABLES: dict[int, OutcomeTable] = {}  # outcome_table's cache for sample_outcomes


SAMPLE_CHUNK: Final = 4096  # draws between two looks at the budget's clock
INDEPENDENT: Final = 0  # how draw_outcomes places its points
SYSTEMATIC: Final = 1
STRATIFIED: Final = 2


def sample_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: i64, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn with replacement by probability, duplicates merged.

    Each distinct outcome gets weight count / samples; the result lists outcomes in order of
    first draw. The draws are a pure function of `key` (the i-th is `uniform(key, i)`), each
    found in the cumulative table by bisection (O(log n) per draw).
    With a `budget`, its clock is read every SAMPLE_CHUNK draws (a search's budget is
    checked per node, and one node may draw millions), raising SearchTimeout once spent.
    """
    return draw_outcomes(outcomes, samples, key, budget, INDEPENDENT)


def systematic_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: i64, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn systematically by probability, duplicates merged.

    One uniform u in [0, 1/samples) and the points u + i / samples (i < samples) are looked up
    in the cumulative table: every outcome of probability p is drawn floor(samples * p) or
    ceil(samples * p) times (its expected count, as with independent draws, so the weighted
    mean is unbiased), and never more than one draw away from it, which independent draws
    give only in expectation. A pure function of `key`; weights count / samples; the
    `budget`'s clock is read as in `sample_outcomes`.
    """
    return draw_outcomes(outcomes, samples, key, budget, SYSTEMATIC)


def stratified_outcomes(
    outcomes: Sequence[tuple[int, float]], samples: int, key: i64, budget: Budget | None = None
) -> list[tuple[int, float]]:
    """`samples` outcomes drawn by stratified sampling, duplicates merged.

    The cumulative table is cut into `samples` equal strata and one point drawn uniformly in
    each: unbiased like the others, every outcome drawn within about one of its expected
    count, and, unlike one uniform number for every point (`systematic_outcomes`), blind to
    a period in the order of the outcomes. Ordered dice listed by first die then second,
    sampled at half their number, are such a period: every systematic point falls on the
    same parity of the second die. A pure function of `key`; weights count / samples.
    """
    return draw_outcomes(outcomes, samples, key, budget, STRATIFIED)


def draw_outcomes(
    outcomes: Sequence[tuple[int, float]],
    samples: int,
    key: i64,
    budget: Budget | None,
    mode: i64,
) -> list[tuple[int, float]]:
    """The draws of `sample_outcomes`, `systematic_outcomes` or `stratified_outcomes` (`mode`
    INDEPENDENT, SYSTEMATIC or STRATIFIED), counted. Draw i is at `uniform(key, i)`, or
    stratum i's point at (i + uniform(key, i)) / samples; the systematic points share
    `uniform(key, 0)`."""
    if len(_SAMPLE_TABLES) >= MAX_CACHED_TABLES:
        _SAMPLE_TABLES.clear()
    ids, cum, guide, _, _ = outcome_table(outcomes, _SAMPLE_TABLES)
    n: i64 = samples
    start = uniform(key, 0) if mode == SYSTEMATIC else 0.0  # one uniform number for every point
    counts: dict[int, int] = {}
    done: i64 = 0
    while done < n:  # chunks: the loop over draws stays free of a clock test per draw
        end = done + SAMPLE_CHUNK if n - done > SAMPLE_CHUNK else n
        for i in range(done, end):
            if mode == INDEPENDENT:
                u = uniform(key, i)
            else:  # systematic: the same offset in every stratum; stratified: its own
                u = (float(i) + (start if mode == SYSTEMATIC else uniform(key, i))) / float(n)
            chosen = ids[sample_guided(cum, guide, u)]
            counts[chosen] = counts.get(chosen, 0) + 1
        done = end
        if done < n and budget is not None:
            budget.check()
    return [(outcome, count / samples) for outcome, count in counts.items()]


# Budgets and move ordering -----------------------------------------------------------------


class SearchTimeout(Exception):  # noqa: N818  (control flow, not an error)
    """Raised inside a search when its time or node budget runs out."""


@final
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
        self.nodes: i64 = 0

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
        """Raises SearchTimeout if the budget is spent (callers batch their node counts);
        a pending Ctrl-C is raised here (`poll_interrupt`)."""
        poll_interrupt()
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
            self.max_nodes = self.nodes + int((self.max_nodes - int(self.nodes)) * share)
        if self.deadline is not None:
            now = self.clock()
            self.deadline = now + (self.deadline - now) * share
        return limits

    def widen(self, limits: tuple[int | None, float | None]) -> None:
        """Puts back the limits that `narrow` returned."""
        self.max_nodes, self.deadline = limits


EMPTY: Final = -2  # a MoveTable slot never used
ABSENT: Final = -1  # MoveTable: no move (a key not found, or its entry taken)
_SPREAD: Final[i64] = 0x2545F4914F6CDD1D  # an odd multiplier spreading keys over the slots
MIN_SLOTS: Final[i64] = 16


@final
class MoveTable:
    """A table from 64-bit keys (path or state keys) to a move and a value: what a
    `dict[int, tuple[int, float]]` holds, in vectors of machine integers and floats, so that
    no key, move or value is boxed, hashed as an object or compared as one.

    Open addressing with linear probing: a key's slots start at a multiplicative hash of it
    (state keys need not be well mixed) and every lookup compares the full key. Entries are
    never removed, only emptied (`take`), so the probe sequences stay intact; when half its
    slots hold keys, it is made anew with the entries that have a move, twice as large if
    they fill a quarter of it (so its size follows the entries, as a dict's does, not the
    keys ever put). Moves are actions and outcomes, which are non-negative.
    """

    __slots__ = ("keys", "mask", "moves", "size", "slots_used", "values")

    def __init__(self) -> None:
        self.keys: vec[i64] = vec[i64]()
        self.moves: vec[i64] = vec[i64]()
        self.values: vec[float] = vec[float]()
        self.mask: i64 = 0
        self.size: i64 = 0  # keys with a move, as len() of the dict
        self.slots_used: i64 = 0  # slots holding a key, with a move or taken
        self.clear()

    def __len__(self) -> int:
        """The keys with a move."""
        return int(self.size)

    def clear(self) -> None:
        """Removes every entry (and gives back the memory of a grown table)."""
        self._allocate(MIN_SLOTS)

    def _allocate(self, slots: i64) -> None:
        """Empty vectors of `slots` slots (a power of two)."""
        self.keys = vec[i64]([0] * slots)
        self.moves = vec[i64]([EMPTY] * slots)
        self.values = vec[float]([0.0] * slots)
        self.mask = slots - 1
        self.size = 0
        self.slots_used = 0

    def _slot(self, key: i64) -> i64:
        """The slot holding `key`, or the empty slot where it would go."""
        keys, moves, mask = self.keys, self.moves, self.mask
        # The product's middle bits depend on all of the key's low ones (its wrapping, when
        # compiled, changes which slots are used, never what is found).
        i = (key * _SPREAD >> 29) & mask
        while moves[i] != EMPTY and keys[i] != key:
            i = (i + 1) & mask
        return i

    def get(self, key: i64) -> i64:
        """The move kept for `key`, or ABSENT."""
        move = self.moves[self._slot(key)]
        if move < 0:
            return ABSENT
        return move

    def take(self, key: i64) -> tuple[i64, float]:
        """The move and value kept for `key`, which are removed; (ABSENT, 0.0) if none."""
        i = self._slot(key)
        move = self.moves[i]
        if move < 0:
            return ABSENT, 0.0
        self.moves[i] = ABSENT
        self.size -= 1
        return move, self.values[i]

    def put(self, key: i64, move: i64, value: float) -> None:
        """Keeps `move` (>= 0) and `value` for `key`, replacing what it had."""
        i = self._slot(key)
        old = self.moves[i]
        if old == EMPTY:
            self.keys[i] = key
            self.slots_used += 1
        if old < 0:
            self.size += 1
        self.moves[i] = move
        self.values[i] = value
        if 2 * self.slots_used > self.mask:
            self._rebuild()

    def _rebuild(self) -> None:
        """The entries that have a move in new slots, twice as many if they fill a quarter."""
        keys, moves, values = self.keys, self.moves, self.values
        slots = self.mask + 1
        if 4 * self.size >= slots:
            slots *= 2
        self._allocate(slots)
        for i in range(len(keys)):
            if moves[i] >= 0:
                self.put(keys[i], moves[i], values[i])


@mypyc_attr(allow_interpreted_subclasses=True)
class OrderedSearch:
    """Base of the depth-first searches, for their move ordering: the best move each decision
    node had at the previous iteration (keyed by path or by state) first, then the game's
    static order."""

    def __init__(self, ordering: Ordering | None) -> None:
        self.ordering = ordering
        self.best_moves = MoveTable()

    def ordered_actions(self, state: Core, key: i64) -> tuple[int, ...]:
        """Legal actions, best move from the previous iteration first, then static order.

        A tuple, which the searches' loops read natively (a `Sequence` is iterated through
        Python's iterator protocol); the cores' own tuples are used as they are."""
        actions = state.legal_actions()
        if self.ordering is not None:
            actions = self.ordering(state, actions)
        ordered = tuple(actions)
        best = self.best_moves.get(key)
        # `best in actions`: a state key's hash collision must not bring in an illegal move.
        if best != ABSENT and best != ordered[0] and best in ordered:
            return (best, *[a for a in ordered if a != best])
        return ordered

    def remember(self, key: i64, action: i64) -> None:
        """Stores the best move of the node `key` for the next iteration."""
        if self.best_moves.size >= MAX_TABLE_SIZE:
            self.best_moves.clear()
        self.best_moves.put(key, action, 0.0)
