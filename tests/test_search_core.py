"""The search cores' shared pieces in machine integers: path keys, the move table and the
chance nodes' uniform numbers.

Compiled, `child_key` computes CPython's hash of the pair in 64-bit words, `MoveTable`
keeps its entries in vectors and `mix_key` / `uniform` compute SplitMix64 in wrapping 64-bit
words; each must give exactly what the tuple's hash, a dict and SplitMix64 on Python's
integers give, or the engines would draw other samples and move ordering would change.
"""

from __future__ import annotations

import math
import random

from chancespiel.agents.search_core import (
    ABSENT,
    MAX_TABLE_SIZE,
    MoveTable,
    child_key,
    mix_key,
    numbered,
    outcome_table,
    uniform,
)

MODULUS = (1 << 61) - 1  # CPython's int hash reduces modulo this prime
EDGES = [
    0, 1, -1, -2, 2, 3, 125, MODULUS - 1, MODULUS, MODULUS + 1, -MODULUS, -MODULUS - 1,
    -MODULUS + 1, 2 * MODULUS, -3 * MODULUS, 4 * MODULUS + 3, 2**61, 2**62, -(2**62),
    2**63 - 1, -(2**63), -(2**63) + 1, 1546275796,
]  # fmt: skip


def test_child_key_is_the_hash_of_the_pair():
    """Every 64-bit key and action, at the edges of the int hash's modulus and of 64 bits
    and at random, hashes as the tuple does."""
    rng = random.Random(5)
    keys = EDGES + [rng.getrandbits(64) - 2**63 for _ in range(20_000)]
    actions = EDGES + [rng.getrandbits(64) - 2**63 for _ in range(3)]
    for key in keys:
        for action in actions if key in EDGES else actions[:12]:
            assert child_key(key, action) == hash((key, action)), (key, action)


def _splitmix64(seed: int, index: int) -> int:
    """Output `index` of SplitMix64 seeded by `seed`, written out on Python's integers."""
    z = (seed + (index + 1) * 0x9E3779B97F4A7C15) % 2**64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 % 2**64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB % 2**64
    return z ^ (z >> 31)


def test_uniform_is_splitmix64_in_both_engines():
    """The i-th number of key k is SplitMix64's output i from seed k, its top 53 bits, on
    the edges of 64 bits and at random, for counters large and small; SplitMix64's published
    outputs (seed 0, and the first five from seed 1234567) pin its constants and shifts."""
    assert _splitmix64(0, 0) == 0xE220A8397B1DCDAF
    published = [
        6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431,
        16408922859458223821,
    ]  # fmt: skip
    assert [_splitmix64(1234567, i) for i in range(5)] == published
    assert uniform(0, 0) == (0xE220A8397B1DCDAF >> 11) / 2**53
    rng = random.Random(8)
    keys = EDGES + [rng.getrandbits(64) - 2**63 for _ in range(5_000)]
    counters = [0, 1, 2, 5, 4095, 4096, 2**31 - 1, 2**40 + 3, 2**62 + 1, 2**63 - 1]
    for key in keys:
        assert mix_key(key) - _splitmix64(key, 0) in (0, -(2**64)), key
        for index in counters if key in EDGES else counters[:4]:
            expected = (_splitmix64(key, index) >> 11) / 2**53
            assert uniform(key, index) == expected, (key, index)


def test_uniform_numbers_are_uniform():
    """Chi-square over 64 equal bins of 128,000 numbers (fixed keys: it cannot flake), for the
    numbers of consecutive keys at one counter (a search's chance nodes' first draws) and of
    one key's counters (a node's draws), and on the low bits kept (the 64 bins of the last
    six of the 53); the bound is about five standard deviations above the mean (63)."""

    def chi_square(numbers: list[float], bins: int = 64) -> float:
        counts = [0] * bins
        for u in numbers:
            assert 0.0 <= u < 1.0
            counts[int(u * bins)] += 1
        expected = len(numbers) / bins
        return sum((c - expected) ** 2 / expected for c in counts)

    across_keys = [uniform(key, 0) for key in range(128_000)]
    along_counters = [uniform(-7, index) for index in range(128_000)]
    low_bits = [math.fmod(u * 2**53, 64) / 64 for u in along_counters]
    for numbers in (across_keys, along_counters, low_bits):
        assert 20 < chi_square(numbers) < 63 + 5 * math.sqrt(2 * 63)
    assert len(set(along_counters)) == len(along_counters)


def test_move_table_is_a_dict():
    """Random puts, gets and takes, on keys that crowd a few slots and on spread ones, find
    what a dict of (move, value) finds, through the table's growth and clears."""
    rng = random.Random(3)
    table = MoveTable()
    model: dict[int, tuple[int, float]] = {}
    pool = EDGES + [rng.getrandbits(64) - 2**63 for _ in range(300)] + [k << 40 for k in range(200)]
    for step in range(40_000):
        key = rng.choice(pool)
        op = rng.random()
        if op < 0.45:
            move, value = rng.randrange(200), rng.random()
            table.put(key, move, value)
            model[key] = (move, value)
        elif op < 0.7:
            assert table.take(key) == model.pop(key, (ABSENT, 0.0))
        elif op < 0.9995:
            assert table.get(key) == model.get(key, (ABSENT, 0.0))[0]
        else:
            table.clear()
            model.clear()
        assert len(table) == len(model), step
    assert len(model) > 100  # the table grew


def test_remember_clears_a_full_table():
    """The best-move table is emptied when it holds MAX_TABLE_SIZE moves, as before."""
    from chancespiel.agents.search_core import OrderedSearch

    search = OrderedSearch(None)
    for key in range(5):
        search.remember(key, key + 1)
    assert len(search.best_moves) == 5 < MAX_TABLE_SIZE
    search.best_moves.size = MAX_TABLE_SIZE  # as if full
    search.remember(99, 7)
    assert len(search.best_moves) == 1
    assert search.best_moves.get(99) == 7 and search.best_moves.get(3) == ABSENT


def test_move_table_size_follows_its_entries():
    """Keys put and taken one after another do not grow the table (as a dict's deleted keys
    do not grow it): it is rebuilt in as many slots when its taken keys fill it."""
    table = MoveTable()
    for key in range(10_000):
        table.put(key * 7919, 1, 0.5)
        assert table.take(key * 7919) == (1, 0.5)
    assert len(table) == 0 and len(table.moves) <= 64
    for key in range(1000):
        table.put(key, key, 0.0)
    assert len(table) == 1000 and all(table.get(key) == key for key in range(1000))


def test_numbered_items_are_their_own_indices():
    """`numbered`, which lets a rollout apply the drawn index as the move: only 0..n-1 in
    order, and a table's ids say so."""
    assert numbered((0,)) and numbered((0, 1, 2))
    for items in [(), (1,), (0, 2), (1, 0), (0, 1, 1)]:
        assert not numbered(items), items
    cache: dict = {}
    assert outcome_table(((0, 0.5), (1, 0.5)), cache)[4]
    assert not outcome_table(((0, 0.5), (1, 0.0), (2, 0.5)), cache)[4]  # ids 0 and 2
    assert not outcome_table(((1, 0.5), (2, 0.5)), cache)[4]
    assert not outcome_table([(0, 0.5), (1, 0.5)], cache)[4]  # a list: not cached, not looked at
