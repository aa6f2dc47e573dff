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

from mypy_extensions import mypyc_attr

Features = Callable[[Any, int], list[float]]
"""features(core, player) -> the position as `player` sees it (a fixed number of floats)."""

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
        self.activation = activation
        # Kept as it runs: the standardisation folded into the first layer (w / scale, and the
        # bias less w . mean / scale), so a call allocates no standardised copy of its input,
        # and each layer's weights in one flat row-major list (one index per weight).
        first: list[list[float]] = []
        first_bias: list[float] = []
        for row, bias in zip(weights[0], biases[0], strict=True):
            folded = [row[i] / scale[i] for i in range(len(mean))]
            first.append(folded)
            first_bias.append(bias - sum(folded[i] * mean[i] for i in range(len(mean))))
        layers = [first, *weights[1:]]
        self.flat: list[list[float]] = [[w for row in layer for w in row] for layer in layers]
        self.flat_biases: list[list[float]] = [first_bias, *biases[1:]]

    def logit(self, x: list[float]) -> float:
        """The logit of winning for the player whose features `x` are."""
        h = x
        last = len(self.flat) - 1
        for k in range(last):
            h = self._layer(self.flat[k], self.flat_biases[k], h)
        w = self.flat[last]
        out = self.flat_biases[last][0]
        for i in range(len(h)):
            out += w[i] * h[i]
        return out

    def _layer(self, weights: list[float], biases: list[float], h: list[float]) -> list[float]:
        """One hidden layer: the activations of its units for the inputs `h`."""
        n = len(h)
        out: list[float] = []
        relu = self.activation == RELU
        base = 0
        for j in range(len(biases)):
            z = biases[j]
            for i in range(n):
                z += weights[base + i] * h[i]
            base += n
            out.append((z if z > 0.0 else 0.0) if relu else math.tanh(z))
        return out

    def value(self, x: list[float]) -> float:
        """The expected return 2 P(win) - 1 of the player whose features `x` are."""
        return math.tanh(0.5 * self.logit(x))


@mypyc_attr(allow_interpreted_subclasses=True)
class LearnedValue:
    """h(state, player) of a model over a game's features: exact at terminal states, else the
    difference of the two players' logits, so that h(s, 0) = -h(s, 1) exactly."""

    def __init__(self, model: ValueModel, features: Features) -> None:
        self.model = model
        self.features = features

    def __call__(self, state: Any, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        mine = self.model.logit(self.features(state, player))
        theirs = self.model.logit(self.features(state, 1 - player))
        # each logit is half the evidence: (mine - theirs) / 2 is the logit of the pair
        return math.tanh(0.25 * (mine - theirs))
