"""Learned value functions: a game's features through a small trained network.

A model maps the features a game computes for one player (`Features`: the position as that
player sees it) to the logit of that player's winning chance; its value is the expected
return 2 P(win) - 1 = tanh(logit / 2). It is a multilayer perceptron (no hidden layer: a
logistic regression) trained by `chancespiel.evaluation.values` and stored as JSON; this
module only evaluates it, compiled with the engine, because searches call it at every leaf.

`LearnedValue` is the heuristic agents use (`heuristic=learned`): both players' views through
the same model, combined so that the two values are exact negatives (a zero-sum value), and
the game's returns at terminal states.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
from librt.strings import BytesWriter, write_f64_le
from mypy_extensions import mypyc_attr

from chancespiel.games.core import Core

Features = Callable[[Any, int], list[float]]
"""features(core, player) -> the position as `player` sees it (a fixed number of floats)."""
FeaturePair = Callable[[Any], tuple[list[float], list[float]]]
"""pair(core) -> (features(core, 0), features(core, 1)) from one call, for a game whose two
views share their work."""
FeatureKey = Callable[[Any], int]
"""key(core) -> a hash of what the features read of the state: equal keys, equal features."""

TANH: Final = 0
RELU: Final = 1
ACTIVATIONS: Final = ("tanh", "relu")


class ValueModel:
    """A trained network: standardised features -> hidden layers -> the logit of winning."""

    def __init__(
        self,
        mean: list[float],
        scale: list[float],
        weights: list[list[list[float]]],
        biases: list[list[float]],
        activation: int = TANH,
    ) -> None:
        """`weights[k][j]` are the input weights of unit j of layer k (the last layer has one
        unit, the logit); `biases[k][j]` its bias. Shapes are checked by the loader."""
        self.arguments = (mean, scale, weights, biases, activation)
        self.relu = activation == RELU
        # Kept as it runs: each layer as an (inputs, units) matrix, the standardisation folded
        # into the first (w / scale, and the bias less w . mean / scale), so that a call makes
        # no standardised copy of its input. numpy, not a loop over floats: a compiled loop
        # unboxes every weight from its list (about 14 ns a multiply-add, 38 us for both views
        # of an EWN position through a 32x16 network, against 10 us here).
        layers = [np.asarray(w, dtype=np.float64).T for w in weights]
        layers[0] = layers[0] / np.asarray(scale, dtype=np.float64)[:, None]
        first_bias = np.asarray(biases[0], dtype=np.float64) - np.asarray(mean) @ layers[0]
        self.layers: list[tuple[Any, Any]] = [
            (np.ascontiguousarray(w), np.asarray(b, dtype=np.float64))
            for w, b in zip(layers, [first_bias, *biases[1:]], strict=True)
        ]
        # A logistic model (no hidden layer) is one dot product: its weights also as floats,
        # for `logit_difference`'s loop.
        self.linear: list[float] = layers[0][:, 0].tolist() if len(layers) == 1 else []

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its constructor's arguments (a compiled class has no other way)."""
        return (ValueModel, self.arguments)

    def logits(self, rows: Any) -> Any:
        """The logit of winning of each row of `rows` (features of one player each; a 2-d
        array or a list of rows), as a 1-d array."""
        h = np.asarray(rows, dtype=np.float64)
        last = len(self.layers) - 1
        for k, (weights, bias) in enumerate(self.layers):
            h = h @ weights
            h += bias
            if k < last:
                if self.relu:
                    np.maximum(h, 0.0, out=h)
                else:
                    np.tanh(h, out=h)
        return h[:, 0]

    def logit_difference(self, mine: list[float], theirs: list[float]) -> float:
        """logit(mine) - logit(theirs). A logistic model's is one dot product with the
        difference of the rows (the bias cancels), as a typed loop: for so few weights cheaper
        than numpy's calls (Can't Stop's 45: about 1 us against 4); a network's is both rows in
        one numpy pass."""
        weights = self.linear
        if weights:
            total = 0.0
            for i in range(len(weights)):
                total += weights[i] * (mine[i] - theirs[i])
            return total
        both = self.logits((mine, theirs))
        return float(both[0] - both[1])

    def logit(self, x: list[float]) -> float:
        """The logit of winning for the player whose features `x` are."""
        return float(self.logits([x])[0])

    def value(self, x: list[float]) -> float:
        """The expected return 2 P(win) - 1 of the player whose features `x` are."""
        return math.tanh(0.5 * self.logit(x))


BLOCK_ROWS: Final = 128
"""Rows `LearnedValue.leaf_values` runs through the network at once: numpy's calls cost little
per row from a few dozen, and OpenBLAS starts threads for blocks of thousands, which on a
busy machine cost more than they save."""

LEAF_CACHE_SIZE: Final = 1 << 19
"""Values a LearnedValue keeps by state (about 50 MB when full; then it starts again)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class LearnedValue:
    """h(state, player) of a model over a game's features: exact at terminal states, else the
    difference of the two players' logits, so that h(s, 0) = -h(s, 1) exactly.

    Values are kept by state key (`Core.state_key`, or the game's feature key where it has
    one, which states that differ only in what the features ignore share; up to `cache_size`
    of them): a search
    meets the same leaves again, across transpositions, the iterations of deepening and the
    moves of a game (EWN, star2 at 20,000 nodes a move: 3.8 evaluations per distinct state;
    a luck correction's four-ply searches from a game's chance nodes: 7.5), and a network
    costs about 10 us a leaf against well under one for the lookup. A key's collision would
    cost a leaf's value; Python's 64-bit tuple hashes make it about as likely as never."""

    def __init__(
        self,
        model: ValueModel,
        features: Features,
        pair: FeaturePair | None = None,
        key: FeatureKey | None = None,
    ) -> None:
        """`pair`, if given, is both views of `features` from one call (a leaf needs both);
        `key`, if given, keeps the values by what the features read instead of by state."""
        self.model = model
        self.features = features
        self.pair = pair
        self.key = key
        self.cache: dict[int, float] = {}
        self.cache_size = LEAF_CACHE_SIZE

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its model and features, without the values it keeps."""
        return (LearnedValue, (self.model, self.features, self.pair, self.key))

    def rows(self, state: Any, player: int) -> tuple[list[float], list[float]]:
        """The features of `player` and of the other player."""
        pair = self.pair
        if pair is None:
            return self.features(state, player), self.features(state, 1 - player)
        both = pair(state)
        return both[player], both[1 - player]

    def cache_key(self, state: Any, player: int) -> int | None:
        """The key of `player`'s value of `state` among the values kept, or None (a game
        without a core of ours passes its own states, or adapters: neither has a key)."""
        if not isinstance(state, Core):
            return None
        feature_key = self.key
        if feature_key is not None:
            return 2 * feature_key(state) + player
        return 2 * state.state_key() + player if state.has_state_key() else None

    def keep(self, key: int, value: float) -> None:
        """Keeps a value by its key (all of them dropped when `cache_size` are kept)."""
        if len(self.cache) >= self.cache_size:
            self.cache.clear()
        self.cache[key] = value

    def __call__(self, state: Any, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        key = self.cache_key(state, player)
        if key is not None:
            found = self.cache.get(key)
            if found is not None:
                return found
        mine, theirs = self.rows(state, player)
        difference = self.model.logit_difference(mine, theirs)
        # each logit is half the evidence: (mine - theirs) / 2 is the logit of the pair
        value = math.tanh(0.25 * difference)
        if key is not None:
            self.keep(key, value)
        return value

    def leaf_values(self, states: list[Any]) -> list[float]:
        """Player 0's value of each state, as calls one by one would give it but with the
        network run once over the rows of all the states whose values are not kept: within
        the last bits of the calls' (numpy sums a block of rows in another order than two),
        at a fraction of their cost where most are new. A logistic model's rows, and a lone
        new state's, are valued as a call values them."""
        model = self.model
        linear = len(model.linear) > 0
        values = [0.0] * len(states)
        new: list[int] = []  # the states valued by the network, by index
        keys: list[int | None] = []
        differences: list[float] = []  # of their logits, as far as known
        # the rows of a network's new states as the bytes of an array: numpy reads them as
        # they are, where it would check and convert each number of a list
        block = BytesWriter()
        mine: list[float] = []
        theirs: list[float] = []
        for i in range(len(states)):
            state = states[i]
            if state.is_terminal():
                values[i] = float(state.returns()[0])
                continue
            key = self.cache_key(state, 0)
            if key is not None:
                found = self.cache.get(key)
                if found is not None:
                    values[i] = found
                    continue
            mine, theirs = self.rows(state, 0)
            if linear:
                differences.append(model.logit_difference(mine, theirs))
            else:
                for x in mine:
                    write_f64_le(block, x)
                for x in theirs:
                    write_f64_le(block, x)
            new.append(i)
            keys.append(key)
        if len(new) == 1 and not linear:
            differences = [model.logit_difference(mine, theirs)]
        elif len(new) > 1 and not linear:
            rows = np.frombuffer(block.getvalue(), dtype="<f8").reshape(2 * len(new), len(mine))
            for start in range(0, len(rows), BLOCK_ROWS):
                logits = model.logits(rows[start : start + BLOCK_ROWS])
                differences.extend((logits[0::2] - logits[1::2]).tolist())
        for j in range(len(new)):
            value = math.tanh(0.25 * differences[j])
            values[new[j]] = value
            key = keys[j]
            if key is not None:
                self.keep(key, value)
        return values
