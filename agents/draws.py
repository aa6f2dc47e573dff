"""The random draws of a search: a `random.Random`'s values, made faster where compiled.

A search draws from `draws_from(random.Random(seed))`: compiled, a `Draws`, which makes the
generator's words a block at a time and returns unboxed floats; as pure Python, a copy of the
generator. Both give the values the generator would give, in the same order, so a search
moves and counts the same in either engine. `shuffle` is `random.shuffle`'s draws and swaps
as a typed loop. Compiled with the engine (see `chancespiel.engine`).
"""

from __future__ import annotations

import _random
import random
import struct
from typing import Final, TypeAlias, final

from librt.strings import read_i32_le, read_i64_le
from mypy_extensions import i64

WORDS: Final = 624  # generator words made at a time: MT19937's state, twisted at once
RUNS_COMPILED: Final = not __file__.endswith(".py")  # this module is compiled (see draws_from)


def temper(words: i64) -> i64:
    """MT19937's output words of the state words in the two 32-bit halves of `words` (the
    high half 0 for one word): its tempering, both halves at once. Each shift's bits are
    masked to their own half, after a right shift and before a left one, so that no bit
    crosses into the other half: (y << 7) & 0x9D2C5680 is (y & 0x9D2C5680 >> 7) << 7, as the
    mask's low 7 bits are 0 (and its 15 for the second one). The masks stay below 2**62:
    compiled, a larger constant would be a boxed int converted at every use."""
    words ^= (words >> 11) & 0x001FFFFF001FFFFF
    words ^= (words & 0x013A58AD013A58AD) << 7
    words ^= (words & 0x0001DF8C0001DF8C) << 15
    return words ^ ((words >> 18) & 0x00003FFF00003FFF)


@final
class Draws:
    """The draws of a `random.Random` from where it stands: `random()`, `getrandbits(k)` for
    k <= 32 and `shuffle` give the values the generator would give, in the same order.

    Both are the Mersenne Twister MT19937. numpy's `MT19937`, given the generator's state,
    twists it, 624 words at a time, in C; its state words are read in place (through
    `ctypes`, at the address numpy gives of its state) as little-endian bytes, and the drawn
    words are tempered here, as CPython does (`_randommodule.c`), a float's two at once.
    `random()` makes ((a >> 5) * 2**26 + (b >> 6)) / 2**53 of two words a, b, and
    `getrandbits(k)` the top k bits of one word. The generator itself does not advance:
    draw from one of the two only.

    Compiled, a draw is a native call that returns an unboxed float, where `rng.random()` is a
    call through a method object and a float boxed and unboxed; a block of words costs one C
    call (numpy's word by word `random_raw` costs a call per word), and each word is one
    native read of the block (mypyc's `librt.strings`).
    """

    __slots__ = ("bits", "block", "index", "key", "position")

    def __init__(self, rng: random.Random) -> None:
        # Imported here: numpy.random costs 30M instructions at start-up, and only compiled
        # searches use it.
        import ctypes

        from numpy.random import MT19937

        state = rng.getstate()[1]  # the twister's 624 words, then the index of the next one
        bits = MT19937(0)  # (a seed, replaced by the state)
        bits.state = {"bit_generator": "MT19937", "state": {"key": state[:-1], "pos": state[-1]}}
        # numpy's state: 624 32-bit words, then the index of the next one (a C int)
        address = bits.ctypes.state_address
        key = (ctypes.c_uint32 * WORDS).from_address(address)
        position = ctypes.c_int.from_address(address + 4 * WORDS)
        words = bytes(key)
        if words != struct.pack(f"<{WORDS}I", *state[:-1]) or position.value != state[-1]:
            raise RuntimeError("numpy's MT19937 keeps its state otherwise than Draws reads it")
        self.bits = bits
        self.key = key
        self.position = position
        self.block = words  # the state's words, 4 bytes each, untempered
        self.index: i64 = 4 * state[-1]  # the first byte of `block` not drawn

    def word(self) -> i64:
        """The generator's next 32-bit word."""
        i = self.index
        if i == 4 * WORDS:
            self.position.value = WORDS  # all drawn: numpy's next word twists the state
            self.bits.random_raw()
            self.block = bytes(self.key)
            i = 0
        self.index = i + 4
        return temper(i64(read_i32_le(self.block, i)) & 0xFFFFFFFF)  # (read as signed)

    def random(self) -> float:
        """`rng.random()`: a float in [0, 1) of 53 random bits, from the next two words."""
        i = self.index
        if i + 8 <= 4 * WORDS:  # both words in the block: read and tempered together
            self.index = i + 8
            pair = temper(read_i64_le(self.block, i))
        else:
            pair = self.word()
            pair |= self.word() << 32
        # a = the low half, b = the high one: (a >> 5) << 26 | b >> 6
        return float((pair & 0xFFFFFFE0) << 21 | (pair >> 38) & 0x3FFFFFF) * 1.1102230246251565e-16

    def getrandbits(self, k: int) -> int:
        """`rng.getrandbits(k)` for 0 <= k <= 32: the top k bits of the next word."""
        if not 0 <= k <= 32:
            raise ValueError(f"Draws.getrandbits makes 0 to 32 bits, not {k}")
        if k == 0:
            return 0  # (no word drawn, as in CPython)
        return int(self.word() >> (32 - k))


# What a search draws from: a Draws, or a generator (`random.Random` is a `_random.Random`).
Rng: TypeAlias = Draws | _random.Random


def draws_from(rng: random.Random) -> Rng:
    """What a search draws from: `rng`'s values in `rng`'s order, `rng` left where it stands
    (from now on draw from the result only). Compiled, a `Draws` (if numpy's state reads as
    it expects); as pure Python, a copy of the generator in `_random.Random`, the C class
    under `random.Random`: there a method of `Draws` would be a Python call per draw, and the
    interpreter calls a method of the C class directly (of its Python subclass, through a
    checked generic call)."""
    if RUNS_COMPILED:
        try:
            return Draws(rng)
        except RuntimeError:  # a numpy that keeps its state otherwise: the generator's copy
            pass
    copy = _random.Random(0)
    copy.setstate(rng.getstate()[1])
    return copy


def shuffle(items: list[int], rng: Rng) -> None:
    """`rng.shuffle(items)`: the same draws and swaps (Fisher-Yates from the end, each index
    drawn by `getrandbits` with rejection, as `Random._randbelow` does), as a typed loop;
    compiled code would call the library's as an interpreted method."""
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        items[i], items[j] = items[j], items[i]
