"""The search cores' shared pieces in machine integers: path keys and the move table.

Compiled, `child_key` computes CPython's hash of the pair in 64-bit words and `MoveTable`
keeps its entries in vectors; both must give exactly what the tuple's hash and a dict give,
or sampled searches would draw other samples and move ordering would change.
"""

from __future__ import annotations

import random

from chancespiel.agents.search_core import ABSENT, MAX_TABLE_SIZE, MoveTable, child_key

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
