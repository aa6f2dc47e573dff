"""Learned value models as files: reading, checking and finding a game's model.

A model file is JSON (format below), trained and written by `chancespiel value train`
(`chancespiel.evaluation.values`), and read here with a bounded read and every shape checked,
so a damaged or foreign file gives a one-line error instead of a wrong value. The package
ships a model for each of its games in `games/values/<short name>.json`; a plugin registers
its own with `registry.register_value_model`. This module declares the learned value to the
registry: the heuristic `learned` of every game with features and a model that fits it.

    {"format": "chancespiel-value-model", "version": 1,
     "game": "python_pig(...)",            the loaded game's string (every parameter)
     "features": [names...],               the game's registered feature names
     "activation": "tanh" | "relu",
     "mean": [...], "scale": [...],        standardisation of the features
     "layers": [{"weights": [[...]...], "biases": [...]}, ...],   the last has one unit
     "training": {...}}                    command, seed, version, data and held-out metrics
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

from chancespiel.files import (
    INT,
    NATURAL,
    TEXT,
    JsonError,
    Kind,
    field_problem,
    loads,
    map_of,
    maybe,
    read_bounded,
)
from chancespiel.games.core import Heuristic
from chancespiel.games.registry import (
    HeuristicFactory,
    feature_key_for,
    feature_pair_for,
    features_for,
    register_heuristic_factory,
    value_model_file,
)
from chancespiel.games.value_model import ACTIVATIONS, LearnedValue, ValueModel

LEARNED_HEURISTIC = "learned"  # agents' heuristic=learned
FORMAT = "chancespiel-value-model"
VERSION = 1
MAX_MODEL_BYTES = 8 << 20  # a model of a few thousand weights is well below this
MAX_UNITS = 4096  # per layer
MAX_LAYERS = 8
# Every weight, bias and mean within +-MAX_WEIGHT and every scale at least MIN_SCALE: with at
# most MAX_LAYERS layers of MAX_UNITS units the logit of any finite features is then finite
# (trained models are within +-10; a weight of 1e308 is finite but overflows at once).
MAX_WEIGHT = 1e6
MIN_SCALE = 1e-6
_REAL = Kind("a number", lambda v: type(v) in (int, float))  # NaN too: a metric may be
TRAINING = {  # what `value show` prints of a model's training (others are kept unread)
    "model": TEXT,
    "command": TEXT,
    "chancespiel": TEXT,
    "date": TEXT,
    "seed": INT,
    "games": NATURAL,
    "held_out_games": NATURAL,
    "positions": NATURAL,
    "candidates": map_of(map_of(_REAL)),
    "heuristic_held_out": map_of(_REAL),
    "target": maybe(TEXT),
}
VALUES_DIR = Path(__file__).resolve().parent / "values"


@dataclass(frozen=True)
class ModelFile:
    """A model read from a file, with what it was trained on."""

    model: ValueModel
    game: str
    features: tuple[str, ...]
    training: dict[str, Any]
    path: str
    sha256: str = ""  # of the file's bytes: names the model in game records


class ModelError(ValueError):
    """A model file that cannot be read or does not fit the game."""


def _floats(value: Any, length: int, what: str) -> list[float]:
    """The numbers of a list of `length` within +-MAX_WEIGHT, as floats."""
    if not isinstance(value, list) or len(value) != length:
        raise ModelError(f"{what}: expected a list of {length} numbers")
    out = []
    for x in value:
        if type(x) not in (int, float) or not -MAX_WEIGHT <= x <= MAX_WEIGHT:  # nor NaN
            raise ModelError(f"{what}: {x!r} is not a finite number within +-{MAX_WEIGHT:g}")
        out.append(float(x))
    return out


def parse_model(data: Any, where: str = "model") -> ModelFile:
    """A ModelFile from a decoded JSON object, every field and shape checked.

    Raises:
      ModelError: naming the first problem.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError(f"{where}: not a chancespiel value model")
    if data.get("version") != VERSION:
        raise ModelError(f"{where}: model format version {data.get('version')!r}, not {VERSION}")
    features = data.get("features")
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        raise ModelError(f"{where}: 'features' must be a list of names")
    if not 0 < len(features) <= MAX_UNITS:
        raise ModelError(f"{where}: between 1 and {MAX_UNITS} features expected")
    game = data.get("game")
    if not isinstance(game, str):
        raise ModelError(f"{where}: 'game' must be a game string")
    if data.get("activation") not in ACTIVATIONS:
        raise ModelError(f"{where}: activation must be one of {', '.join(ACTIVATIONS)}")
    n = len(features)
    mean = _floats(data.get("mean"), n, f"{where}: mean")
    scale = _floats(data.get("scale"), n, f"{where}: scale")
    if any(s < MIN_SCALE for s in scale):
        raise ModelError(f"{where}: scale must be positive (at least {MIN_SCALE:g})")
    layers = data.get("layers")
    if not isinstance(layers, list) or not 0 < len(layers) <= MAX_LAYERS:
        raise ModelError(f"{where}: 'layers' must be a list of 1 to {MAX_LAYERS} layers")
    weights: list[list[list[float]]] = []
    biases: list[list[float]] = []
    inputs = n
    for k, layer in enumerate(layers):
        if not isinstance(layer, dict):
            raise ModelError(f"{where}: layer {k} must be an object")
        rows = layer.get("weights")
        if not isinstance(rows, list) or not 0 < len(rows) <= MAX_UNITS:
            raise ModelError(f"{where}: layer {k} needs 1 to {MAX_UNITS} units")
        weights.append([_floats(r, inputs, f"{where}: layer {k} weights") for r in rows])
        biases.append(_floats(layer.get("biases"), len(rows), f"{where}: layer {k} biases"))
        inputs = len(rows)
    if inputs != 1:
        raise ModelError(f"{where}: the last layer must have one unit (the logit)")
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise ModelError(f"{where}: 'training' must be an object")
    if (problem := field_problem(training, TRAINING)) is not None:
        raise ModelError(f"{where}: training: {problem}")
    model = ValueModel(mean, scale, weights, biases, ACTIVATIONS.index(data["activation"]))
    if not math.isfinite(model.logit(mean)):  # the bounds make it so; checked all the same
        raise ModelError(f"{where}: the model's output is not finite")
    return ModelFile(model, game, tuple(features), training, where)


def read_model(path: str | Path) -> ModelFile:
    """The model in the file `path`, read with a bounded read and checked.

    Raises:
      ModelError: if the file is missing, too large, not JSON or not a valid model.
    """
    try:
        raw = read_bounded(path, MAX_MODEL_BYTES)
        data = loads(raw)
    except OSError as e:
        raise ModelError(f"cannot read value model {path}: {e.strerror}") from None
    except JsonError as e:
        raise ModelError(f"value model {path} is not JSON of ours: {e}") from None
    # the digest of the very bytes parsed: a file replaced later cannot lend its name
    found = parse_model(data, str(path))
    return dataclasses.replace(found, sha256=hashlib.sha256(raw).hexdigest())


def model_path(short_name: str) -> Path | None:
    """The model file of a game: one a plugin registered, else the package's, if any."""
    registered = value_model_file(short_name)
    if registered is not None:
        return Path(registered)
    shipped = VALUES_DIR / f"{short_name}.json"
    return shipped if shipped.is_file() else None


@functools.lru_cache(maxsize=32)
def _cached_model(path: str) -> ModelFile:
    return read_model(path)


def game_model(game: pyspiel.Game) -> ModelFile:
    """The learned value model of `game`, checked against the game and its features.

    Raises:
      ModelError: if the game has no features or no model, or the model was trained on other
        parameters or other features.
    """
    short_name = game.get_type().short_name
    try:
        _, names = features_for(short_name)
    except ValueError as e:
        raise ModelError(str(e)) from None
    path = model_path(short_name)
    if path is None:
        raise ModelError(
            f"no learned value model for {short_name} (train one: chancespiel value train)"
        )
    found = _cached_model(str(path))
    if found.game != str(game):
        raise ModelError(
            f"the learned value model {path} was trained on {found.game}, not {game}: train "
            "one for these parameters (chancespiel value train)"
        )
    if found.features != names:
        raise ModelError(f"the learned value model {path} has other features than {short_name}")
    return found


def has_learned_value(game: pyspiel.Game) -> bool:
    """True if `game_model(game)` would find a model that fits."""
    try:
        game_model(game)
    except ModelError:
        return False
    return True


def learned_heuristic(game: pyspiel.Game) -> Heuristic:
    """The game's learned value as a heuristic h(state, player) (see LearnedValue).

    Raises:
      ModelError: as game_model.
    """
    short_name = game.get_type().short_name
    features, _ = features_for(short_name)
    return LearnedValue(
        game_model(game).model,
        features,
        feature_pair_for(short_name),
        feature_key_for(short_name),
    )


register_heuristic_factory(
    HeuristicFactory(LEARNED_HEURISTIC, learned_heuristic, has_learned_value)
)
