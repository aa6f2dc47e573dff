"""Training learned value functions from match records: the recipe for any game.

1. Records of strong agents playing each other (`chancespiel match`), as many as the games
   allow; their positions are the data, each game's outcome the target, or a search's value
   of the position: `target` "lookahead" or "lookahead2", one or two plies of expectimax on
   the game's current value (bootstrapped training), or `search(depth=D)` (any bound of the
   luck correction's `search` value), a deeper search on the hand-written heuristic or the
   learned value (distillation). A search's value varies from position to position where the
   outcome is one coin for a whole game.
2. `train_value`: every position of those games (every non-terminal node, chance nodes too,
   since the luck correction values the children of chance nodes) is seen from both players
   through the features its GameSpec declares (`features_for`); models are fitted on the
   positions of 80% of the games and compared on the rest (the split is by game, as the
   positions of one game share its outcome): a logistic regression and small networks
   (scikit-learn), the best held-out log loss kept, with the hand-written heuristic's
   figures beside it.
3. The model is written as JSON (`games.learned`), with the command, seed, version, data and
   held-out metrics, and frozen: records a correction is measured on are never records it was
   trained on.

The value of a position is then `games.value_model.LearnedValue`: the two players' logits
combined into one zero-sum value.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import tqdm

import chancespiel
from chancespiel import engine
from chancespiel.evaluation.lookahead import expected_value
from chancespiel.evaluation.luck import (
    SEARCH,
    SEARCH_SPEC,
    LuckError,
    value_function,
)
from chancespiel.evaluation.match import Record, canonical_game, load_game_cached
from chancespiel.evaluation.positions import ReplayError, replay
from chancespiel.files import file_digest, read_json, written
from chancespiel.games.core import CHANCE, Core
from chancespiel.games.learned import FORMAT, VERSION, parse_model
from chancespiel.games.registry import evaluation_for, features_for
from chancespiel.games.value_model import ValueModel

HELD_OUT = 0.2  # share of the games whose positions only measure
TARGET_CLIP = 0.99  # search values beyond +-0.99 are learned as 0.99 (a logit of about 5.3)


class TrainingError(ValueError):
    """Records or options a value cannot be trained from."""


@dataclass
class Positions:
    """Features of positions seen from both players, with the outcome for that player."""

    game: str
    features: list[list[float]] = field(default_factory=list)  # rows: (position, player)
    wins: list[int] = field(default_factory=list)  # 1 if that player won
    # player 0's hand-written value, per position (not per row)
    heuristic: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)  # index of the game a row comes from
    # player 0's value by a search below the position (`search_target`), per position; empty
    # when the outcome is the target
    targets: list[float] = field(default_factory=list)
    target: str = "outcome"  # what the model learns: a name of TARGETS
    target_search: str | None = None  # the search that made `targets` (`search_target`)
    left_out_chance: int = 0  # chance nodes before another chance node (no search target)
    draws: int = 0  # games left out: a draw has no winner to learn
    skipped: int = 0  # records left out: errors (forfeits, crashes)

    @property
    def num_games(self) -> int:
        return len(set(self.games))


# What a model learns to predict: the game's outcome, or the value of an expectimax search of
# one or two decision plies below each position on the game's current value (bootstrapped);
# or, by a name with parameters (`SEARCH_SPEC`), the luck correction's `search(...)` value.
TARGETS = {"outcome": 0, "lookahead": 1, "lookahead2": 2}


def search_target(game: pyspiel.Game, depth: int) -> tuple[str, Callable[[Core], float]]:
    """Player 0's expectimax value of a position with `depth` decision plies searched (chance
    nodes averaged) on the game's learned value, or its hand-written heuristic if it has none;
    with a description of it."""
    from chancespiel.games.learned import has_learned_value, learned_heuristic

    if has_learned_value(game):
        h, base = learned_heuristic(game), "the learned value"
    else:
        h, base = evaluation_for(game), "the hand-written heuristic"

    def value(state: Core) -> float:
        return expected_value(state, h, depth)

    plies = "ply" if depth == 1 else "plies"
    return f"{depth} {plies} of expectimax on {base}", value


def star2_target(game_string: str, name: str) -> tuple[str, Callable[[Core], float]]:
    """Player 0's value of a position of `game_string` by the luck correction's value `name`,
    a `search(...)` (Star2 to a depth or node bound; `evaluation.luck.search_value`): at a
    decision node the search's value, at a chance node the mean of its outcomes' values (the
    search's own value there would be the heuristic's, and a search with the trained model at
    its horizon evaluates exactly such chance nodes); with a description of it.

    Raises:
      TrainingError: for a name that is not a `search(...)` the game can use.
    """
    if name.split("(")[0].strip() != SEARCH:
        raise TrainingError(f"unknown target {name!r}; known: {', '.join(TARGETS)}, {SEARCH_SPEC}")
    try:
        spelled, searched = value_function(game_string, name)
    except LuckError as e:
        raise TrainingError(str(e)) from None

    def value(state: Core) -> float:
        return expected_value(state, lambda child, _: searched(child), 0)

    return f"{spelled} (Star2; at chance nodes the mean over the outcomes)", value


def _before_chance(state: Core) -> bool:
    """True at a chance node whose outcomes lead to another chance node (EWN's setups): its
    expectation would multiply their outcomes."""
    if state.current_player() != CHANCE:
        return False
    child = state.clone()
    child.apply(state.chance_outcomes()[0][0])
    return child.current_player() == CHANCE


def collect_positions(
    records: Sequence[Record],
    keep: float = 1.0,
    seed: int = 0,
    max_rows: int = 2_000_000,
    target: str = "outcome",
    saved: Sequence[float] | None = None,
) -> Positions:
    """Every non-terminal position of the records' games (each kept with probability `keep`),
    seen from both players, with the outcome and, for a `target` other than "outcome", the
    value of that search below the position (`search_target`, `star2_target`; chance nodes
    followed by another chance node are left out). A search target shows a progress bar on a
    terminal (a deep one takes minutes). `saved`: the targets of an earlier call with the same
    records, keep, seed and target (`read_targets`), taken in order instead of searching.

    Raises:
      TrainingError: for records of several games, a game without features, a history that
        does not replay, an unknown target, more than `max_rows` rows, or `saved` targets
        that are not as many as the positions.
    """
    if not records:
        raise TrainingError("no records")
    games = {canonical_game(r["game"]) for r in records}
    if len(games) != 1:
        raise TrainingError(f"records of several games: {', '.join(sorted(games))}")
    game_string = games.pop()
    game = load_game_cached(game_string)
    try:
        features, names = features_for(game.get_type().short_name)
    except ValueError as e:
        raise TrainingError(str(e)) from None
    heuristic = evaluation_for(game)
    rng = random.Random(seed)
    searched = None
    target_search = None
    if target not in TARGETS:
        target = "".join(target.split())
        target_search, searched = star2_target(game_string, target)
    elif TARGETS[target]:
        target_search, searched = search_target(game, TARGETS[target])
    if saved is not None and searched is None:
        raise TrainingError("saved targets belong to a search target, not to the outcome")
    out = Positions(game_string, target=target, target_search=target_search)
    bar = tqdm.tqdm(
        records,
        desc="positions",
        unit="game",
        leave=False,
        disable=None if searched and saved is None else True,
    )
    for index, record in enumerate(bar):
        if record.get("error") is not None:
            out.skipped += 1
            continue
        returns = record["returns"]
        if returns[0] == returns[1]:
            out.draws += 1
            continue
        winner = 0 if returns[0] > returns[1] else 1
        try:
            for _, state, _ in replay(game, record["history"]):
                if rng.random() >= keep:
                    continue
                if searched is not None:
                    if _before_chance(state):
                        out.left_out_chance += 1
                        continue
                    if saved is None:
                        out.targets.append(searched(state))
                    elif len(out.targets) < len(saved):
                        out.targets.append(saved[len(out.targets)])
                    else:
                        raise TrainingError(_NOT_THESE_POSITIONS)
                for player in (0, 1):
                    row = features(state, player)
                    if len(row) != len(names):
                        raise TrainingError(
                            f"{game_string}: {len(row)} features where {len(names)} are named"
                        )
                    out.features.append(row)
                    out.wins.append(1 if player == winner else 0)
                    out.games.append(index)
                out.heuristic.append(heuristic(state, 0))
                if len(out.features) > max_rows:
                    raise TrainingError(f"more than {max_rows} rows: lower --keep")
        except ReplayError as e:
            raise TrainingError(f"record {index}: {e}") from None
    if not out.features:
        raise TrainingError("no positions: every record was left out")
    if saved is not None and len(out.targets) != len(saved):
        raise TrainingError(_NOT_THESE_POSITIONS)
    return out


_NOT_THESE_POSITIONS = "the saved targets are not as many as the positions they should label"
MAX_TARGETS_BYTES = 64 << 20  # 2,000,000 rows are 1,000,000 targets, about 20 MiB of JSON
TARGETS_FORMAT = "chancespiel-value-targets"


def _selection(
    game: str, target: str, records: Sequence[str], keep: float, seed: int
) -> dict[str, Any]:
    """What decides which positions are labelled, and by which search: the saved targets
    label the same positions only if all of it is the same."""
    try:
        digests = [file_digest(p) for p in records]
    except OSError as e:
        raise TrainingError(f"cannot read {e.filename}: {e.strerror}") from None
    return {"game": game, "target": target, "keep": keep, "seed": seed, "records_sha256": digests}


def write_targets(
    path: str | os.PathLike[str],
    positions: Positions,
    records: Sequence[str],
    keep: float,
    seed: int,
    made: Mapping[str, str],
) -> None:
    """Writes the search targets of `positions` (collected from the record files `records`
    with `keep` and `seed`) with what selected them and `made` (`usage.made_by`), so that
    other features or models can be tried without searching again (`read_targets`). A saved
    file is not overwritten."""
    if not positions.targets:
        raise TrainingError("no search targets to save: the target is the outcome")
    data = {
        "format": TARGETS_FORMAT,
        **_selection(positions.game, positions.target, records, keep, seed),
        "records": [str(p) for p in records],
        "target_search": positions.target_search,
        **made,
        "targets": positions.targets,
    }
    _write_new_json(path, data, "saved targets are")


def _write_new_json(
    path: str | os.PathLike[str], data: Any, what: str, indent: int | None = None
) -> None:
    """Writes `data` as JSON to the new file `path`, through a temporary file renamed at the
    end (never half a file), refusing to replace one: `what` names it ("... not
    overwritten")."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with written(target) as tmp:
            tmp.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
    except FileExistsError:
        raise TrainingError(f"{target} exists: {what} not overwritten") from None
    except OSError as e:
        raise TrainingError(f"cannot write {target}: {e.strerror}") from None


def read_targets(
    path: str | os.PathLike[str],
    game: str,
    target: str,
    records: Sequence[str],
    keep: float,
    seed: int,
) -> list[float]:
    """The targets `write_targets` saved in `path`, read with a bounded read, after checking
    that they label these records' positions: the same game, target, keep, seed and record
    files (their contents, in order; the paths may differ).

    Raises:
      TrainingError: naming the first thing that differs, or a file that is not saved targets.
    """
    try:
        data = read_json(path, MAX_TARGETS_BYTES)
    except OSError as e:
        raise TrainingError(f"cannot read saved targets {path}: {e.strerror}") from None
    except ValueError:
        data = None  # refused below, as any other content that is not saved targets
    if not isinstance(data, dict) or data.get("format") != TARGETS_FORMAT:
        raise TrainingError(f"{path} is not a file of saved targets (value train --save-targets)")
    wanted = _selection(game, "".join(target.split()), records, keep, seed)
    for key, value in wanted.items():
        if data.get(key) != value:
            what = (
                "they were made from other record files (by content, in order)"
                if key == "records_sha256"
                else f"its {key} is {data.get(key)!r}, not {value!r}"
            )
            raise TrainingError(f"{path} labels other positions: {what}")
    values = data.get("targets")
    if not isinstance(values, list) or not all(
        isinstance(v, float | int) and not isinstance(v, bool) and -1.0 <= v <= 1.0 for v in values
    ):
        raise TrainingError(f"{path}: targets must be a list of numbers in [-1, 1]")
    return [float(v) for v in values]


@dataclass(frozen=True)
class Candidate:
    """A model to try: hidden layer sizes (none: logistic regression) and L2 strength."""

    hidden: tuple[int, ...]
    alpha: float

    @property
    def name(self) -> str:
        if not self.hidden:
            return f"logistic(C={1.0 / self.alpha:g})"
        return f"mlp({'x'.join(map(str, self.hidden))}, alpha={self.alpha:g})"


# The positions of one game share its outcome, so a network can learn games by heart: strong
# L2 penalties (networks with a weak one fitted Can't Stop's training games at a log loss of
# 0.29 and the held-out ones at 0.90).
CANDIDATES = (
    Candidate((), 1.0),
    Candidate((16,), 1e-2),
    Candidate((16,), 1e-1),
    Candidate((32,), 1e-1),
    Candidate((32, 16), 1e-1),
)


def _pair_metrics(logits: np.ndarray, wins: np.ndarray) -> dict[str, float]:
    """Metrics of the zero-sum value of row pairs (player 0's row, then player 1's): the
    combined logit (l0 - l1) / 2, as LearnedValue combines them, against player 0's outcome."""
    z = (logits[0::2] - logits[1::2]) / 2.0
    y = wins[0::2].astype(float)
    p = 1.0 / (1.0 + np.exp(-z))
    p = np.clip(p, 1e-12, 1 - 1e-12)
    value = 2.0 * p - 1.0
    outcome = 2.0 * y - 1.0
    return {
        "log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
        "mse": float(np.mean((value - outcome) ** 2)),
        "accuracy": float(np.mean((p > 0.5) == (y > 0.5))),
    }


def _heuristic_metrics(values: np.ndarray, wins: np.ndarray) -> dict[str, float]:
    """The hand-written heuristic's squared error and accuracy: player 0's values of the
    positions against the wins of their row pairs (player 0's row first)."""
    value = values
    outcome = 2.0 * wins[0::2] - 1.0
    return {
        "mse": float(np.mean((value - outcome) ** 2)),
        "accuracy": float(np.mean((value > 0) == (outcome > 0))),
    }


def _fit(candidate: Candidate, x: np.ndarray, y: np.ndarray, seed: int) -> Any:
    """The candidate fitted to outcomes `y` (0/1: a classifier) or to target logits `y`
    (floats: a regression, least squares on the logit; the same layers either way)."""
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    regression = y.dtype.kind == "f"
    if not candidate.hidden:
        if regression:
            return Ridge(alpha=candidate.alpha).fit(x, y)
        return LogisticRegression(C=1.0 / candidate.alpha, max_iter=2000).fit(x, y)
    network = MLPRegressor if regression else MLPClassifier
    return network(
        hidden_layer_sizes=candidate.hidden,
        activation="tanh",
        alpha=candidate.alpha,
        early_stopping=True,
        n_iter_no_change=8,
        max_iter=200,
        random_state=seed,
    ).fit(x, y)


def _layers(model: Any) -> list[dict[str, list[Any]]]:
    """The fitted model's layers as the model file stores them (weights by output unit)."""
    if hasattr(model, "coefs_"):
        pairs = zip(model.coefs_, model.intercepts_, strict=True)
        return [{"weights": w.T.tolist(), "biases": b.tolist()} for w, b in pairs]
    # one output unit: a classifier's coef_ is (1, n), a regression's (n,)
    weights, biases = np.atleast_2d(model.coef_), np.atleast_1d(model.intercept_)
    return [{"weights": weights.tolist(), "biases": biases.tolist()}]


@dataclass
class Trained:
    """The chosen model as a model file's JSON object, and every candidate's metrics."""

    data: dict[str, Any]
    results: dict[str, dict[str, float]]
    chosen: str


def train_value(
    positions: Positions,
    seed: int = 0,
    candidates: Sequence[Candidate] = CANDIDATES,
    command: str = "",
    records: Sequence[str] = (),
) -> Trained:
    """Fits each candidate on the positions of 80% of the games and keeps the one with the
    lowest held-out log loss of the zero-sum value against the outcomes. With search targets
    (`collect_positions(target=...)`), each row's target is the logit of its player's winning
    chance by the search, 2 atanh(v) for the player's value v (clipped to +-TARGET_CLIP), so
    that `LearnedValue`'s combination of the two rows gives v back.

    Raises:
      TrainingError: with fewer than 10 games.
    """
    game_ids = sorted(set(positions.games))
    if len(game_ids) < 10:
        raise TrainingError(f"{len(game_ids)} games: at least 10 are needed (20% are held out)")
    rng = random.Random(seed)
    held = set(rng.sample(game_ids, max(2, round(HELD_OUT * len(game_ids)))))
    x = np.asarray(positions.features, dtype=float)
    y = np.asarray(positions.wins, dtype=int)
    test = np.asarray([g in held for g in positions.games])
    targets = np.repeat(np.asarray(positions.targets, dtype=float), 2)
    targets[1::2] *= -1.0  # player 1's rows: player 1's value
    fitted = (
        2.0 * np.arctanh(np.clip(targets, -TARGET_CLIP, TARGET_CLIP)) if positions.targets else y
    )
    mean = x[~test].mean(axis=0)
    scale = x[~test].std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant feature: no scaling
    xs = (x - mean) / scale
    results: dict[str, dict[str, float]] = {}
    best: tuple[float, str, list[dict[str, list[Any]]]] | None = None
    for candidate in candidates:
        model = _fit(candidate, xs[~test], fitted[~test], seed)
        # measured through the evaluation searches run, on the exported weights
        layers = _layers(model)
        logits = _exported_logits(layers, mean, scale, x)
        metrics = {
            **{f"train_{k}": v for k, v in _pair_metrics(logits[~test], y[~test]).items()},
            **{f"held_out_{k}": v for k, v in _pair_metrics(logits[test], y[test]).items()},
        }
        if positions.targets:  # how closely the value follows the search it learns
            value = np.tanh((logits[0::2] - logits[1::2]) / 4.0)
            error = (value - targets[0::2]) ** 2
            metrics["held_out_target_mse"] = float(np.mean(error[test[0::2]]))
        results[candidate.name] = metrics
        if best is None or metrics["held_out_log_loss"] < best[0]:
            best = (metrics["held_out_log_loss"], candidate.name, layers)
    assert best is not None
    _, chosen, chosen_layers = best
    heuristic = np.asarray(positions.heuristic, dtype=float)
    _, names = features_for(load_game_cached(positions.game).get_type().short_name)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "game": positions.game,
        "features": list(names),
        "activation": "tanh",
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "layers": chosen_layers,
        "training": {
            "command": command,
            "records": list(records),
            "seed": seed,
            "chancespiel": chancespiel.__version__,
            "engine": engine.describe(),
            "date": datetime.date.today().isoformat(),
            "games": len(game_ids),
            "held_out_games": len(held),
            "draws_left_out": positions.draws,
            "records_left_out": positions.skipped,
            "positions": len(positions.features) // 2,
            "target": positions.target,
            "target_search": positions.target_search,
            "chance_nodes_left_out": positions.left_out_chance,
            "model": chosen,
            "candidates": results,
            "heuristic_held_out": _heuristic_metrics(heuristic[test[0::2]], y[test]),
        },
    }
    parse_model(json.loads(json.dumps(data)), "trained model")  # what is written must read back
    return Trained(data, results, chosen)


def _exported_logits(
    layers: list[dict[str, list[Any]]], mean: np.ndarray, scale: np.ndarray, x: np.ndarray
) -> np.ndarray:
    """The logits of the rows of `x` by the model as a file stores it, evaluated by
    games.value_model (what agents and the luck correction run)."""
    model = ValueModel(
        mean.tolist(),
        scale.tolist(),
        [layer["weights"] for layer in layers],
        [layer["biases"] for layer in layers],
    )
    return np.asarray(model.logits(x))


def write_model(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Writes the model file (refusing to replace one: a trained model is a result)."""
    _write_new_json(path, data, "a trained model is", indent=1)


def describe(trained: Trained) -> str:
    """The candidates' held-out figures and the chosen one, for the command's output."""
    training = trained.data["training"]
    lines = [
        f"{trained.data['game']}: {training['games']} games ({training['held_out_games']} held "
        f"out), {training['positions']} positions, {training['draws_left_out']} draws left out"
    ]
    if training["target_search"]:
        lines.append(
            f"target: {training['target_search']} ({training['chance_nodes_left_out']} chance "
            "nodes before another chance node left out)"
        )
    for name, m in trained.results.items():
        mark = "*" if name == trained.chosen else " "
        fit = f"  target mse {m['held_out_target_mse']:.4f}" if "held_out_target_mse" in m else ""
        lines.append(
            f" {mark} {name:<28} held-out log loss {m['held_out_log_loss']:.4f}  "
            f"mse {m['held_out_mse']:.4f}  accuracy {m['held_out_accuracy']:.3f}{fit}  "
            f"(train log loss {m['train_log_loss']:.4f})"
        )
    h = training["heuristic_held_out"]
    lines.append(
        f"   hand-written heuristic       held-out mse {h['mse']:.4f}  accuracy {h['accuracy']:.3f}"
    )
    if not math.isfinite(trained.results[trained.chosen]["held_out_log_loss"]):
        lines.append("warning: the chosen model's held-out loss is not finite")
    return "\n".join(lines)
