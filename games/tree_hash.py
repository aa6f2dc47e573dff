"""Hashing for synthetic trees that need no storage: every node is named by a 64-bit key of its
path from the root, and everything about it (its type, its actions, its values) is a pure
function of that key and the game's seed. The searches' path keys and chance samples
(agents.search_core) mix with the same `mix64`; the module is part of the compiled engine.
"""

from __future__ import annotations

from typing import Final

MASK64: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15  # SplitMix64's increment


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a well-spread 64-bit hash of a 64-bit integer."""
    x = (x + _GAMMA) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def signed64(x: int) -> int:
    """The low 64 bits of `x` as a signed (two's complement) 64-bit integer."""
    return ((x + (1 << 63)) & MASK64) - (1 << 63)


def unit(x: int) -> float:
    """A 64-bit hash as a float in [0, 1)."""
    return (x >> 11) * (1.0 / (1 << 53))


def child_key(key: int, action: int) -> int:
    """Key of the child reached from the node `key` by `action` (or chance outcome)."""
    return mix64((key * 0x100000001B3 + action + 1) & MASK64)
