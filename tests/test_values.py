"""Learned values: the model against scikit-learn, files read strictly, training end to end,
the heuristic and the luck correction built on them."""

from __future__ import annotations

import json
import math
import os
import pickle
import random
import re

import numpy as np
import pyspiel
import pytest
from golden import expectimax

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.agents import make_bot
from chancespiel.agents.protocol import search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.cli import main
from chancespiel.evaluation.lookahead import expected_value
from chancespiel.evaluation.luck import game_correction, value_function
from chancespiel.evaluation.play import play_game
from chancespiel.evaluation.positions import replay
from chancespiel.evaluation.values import (
    Candidate,
    TrainingError,
    _before_chance,
    collect_positions,
    read_targets,
    search_target,
    train_value,
    write_model,
    write_targets,
)
from chancespiel.games import learned
from chancespiel.games.learned import VALUES_DIR, ModelError, parse_model, read_model
from chancespiel.games.pig_solver import hold_at_policy, policy_win_probability
from chancespiel.games.registry import (
    evaluation_for,
    features_for,
    heuristic_names,
    register_value_model,
)
from chancespiel.games.value_model import ValueModel

GAMES = ("python_pig", "python_einstein_wurfelt_nicht", "python_cant_stop", "python_ra")


@pytest.fixture
def registered_model(tmp_path):
    """Registers a model file for a game for one test, and forgets it afterwards."""
    registered = []

    def register(game: str, data: dict) -> str:
        path = tmp_path / f"{game}.json"
        path.write_text(json.dumps(data))
        register_value_model(game, str(path))
        registered.append(game)
        learned._cached_model.cache_clear()
        value_function.cache_clear()
        return str(path)

    yield register
    for game in registered:
        register_value_model(game, None)
    learned._cached_model.cache_clear()
    value_function.cache_clear()


def random_model(game: pyspiel.Game, hidden: int = 5, seed: int = 0, size: float = 1.0) -> dict:
    """A model file of random weights over the game's features: a deliberately bad value."""
    _, names = features_for(game.get_type().short_name)
    rng = np.random.default_rng(seed)
    n = len(names)
    layers = []
    inputs = n
    for units in (hidden, 1) if hidden else (1,):
        layers.append(
            {
                "weights": (size * rng.standard_normal((units, inputs))).tolist(),
                "biases": (size * rng.standard_normal(units)).tolist(),
            }
        )
        inputs = units
    return {
        "format": learned.FORMAT,
        "version": learned.VERSION,
        "game": str(game),
        "features": list(names),
        "activation": "tanh",
        "mean": [0.0] * n,
        "scale": [1.0] * n,
        "layers": layers,
    }


def random_positions(game: pyspiel.Game, count: int, seed: int) -> list:
    """Search states met in random play (chance nodes included), none terminal."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = search_state(game.new_initial_state())
        while not state.is_terminal() and len(found) < count:
            if rng.random() < 0.3:
                found.append(state.clone())
            if state.current_player() == pyspiel.PlayerId.CHANCE:
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply(rng.choices(outcomes, probs)[0])
            else:
                state.apply(rng.choice(list(state.legal_actions())))
    return found


@pytest.mark.parametrize("hidden", [(), (7,), (6, 4)])
def test_model_equals_scikit_learn(hidden) -> None:
    """The compiled evaluation of an exported model, standardisation folded in, gives
    scikit-learn's probabilities on the standardised rows; a pair's logit difference (a loop
    for the logistic model, numpy for the networks) is the difference of the logits."""
    from chancespiel.evaluation.values import _fit, _layers

    rng = np.random.default_rng(1)
    x = rng.standard_normal((400, 5))
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] + rng.standard_normal(400) > 0).astype(int)
    mean, scale = rng.standard_normal(5), rng.uniform(0.5, 2.0, 5)
    raw = x * scale + mean  # the rows as features, before standardisation
    fitted = _fit(Candidate(hidden, 1e-3 if hidden else 1.0), x, y, seed=0)
    layers = _layers(fitted)
    model = ValueModel(
        mean.tolist(),
        scale.tolist(),
        [layer["weights"] for layer in layers],
        [layer["biases"] for layer in layers],
    )
    assert bool(model.linear) == (not hidden)
    expected = fitted.predict_proba(x)[:, 1]
    got = [(model.value(list(row)) + 1.0) / 2.0 for row in raw]
    assert got == pytest.approx(expected, abs=1e-9)
    for a, b in zip(raw[:20].tolist(), raw[20:40].tolist(), strict=True):
        difference = model.logit_difference(a, b)
        assert difference == pytest.approx(model.logit(a) - model.logit(b), abs=1e-9)


@pytest.mark.parametrize("game_string", GAMES)
def test_learned_value_is_zero_sum_and_exact_at_the_end(game_string, registered_model) -> None:
    game = pyspiel.load_game(game_string)
    registered_model(game.get_type().short_name, random_model(game))
    assert "learned" in heuristic_names(game)
    h = evaluation_for(game, "learned")
    values = set()
    for state in random_positions(game, 40, seed=3):
        v = h(state, 0)
        assert -1.0 < v < 1.0
        assert h(state, 1) == pytest.approx(-v, abs=1e-12)
        values.add(round(v, 9))
    assert len(values) > 5  # the features vary: the value is not a constant
    state = search_state(game.new_initial_state())
    rng = random.Random(0)
    while not state.is_terminal():
        if state.current_player() == pyspiel.PlayerId.CHANCE:
            state.apply(state.chance_outcomes()[0][0])
        else:
            state.apply(rng.choice(list(state.legal_actions())))
    assert h(state, 0) == state.returns()[0]


@pytest.mark.parametrize("game_string", GAMES)
def test_kept_leaf_values_change_no_value_and_stay_bounded(game_string, registered_model) -> None:
    # the values a LearnedValue keeps by state are the ones it would compute again, for each
    # player, with the cache full and clearing as with room to spare; searches on it agree
    game = pyspiel.load_game(game_string)
    registered_model(game.get_type().short_name, random_model(game))
    kept, tight = evaluation_for(game, "learned"), evaluation_for(game, "learned")
    tight.cache_size = 3
    positions = random_positions(game, 30, seed=5)
    first = [(kept(s, 0), kept(s, 1)) for s in positions]
    assert 0 < len(kept.cache) <= 60
    for _ in range(2):  # the second round from the cache (or from scratch, for `tight`)
        for h in (kept, tight):
            assert [(h(s, 0), h(s, 1)) for s in positions] == first
    assert len(tight.cache) <= 3
    # pickled (as a process pool or Ray ships it): the same values, none of the kept ones
    copy = pickle.loads(pickle.dumps(kept))
    assert len(copy.cache) == 0 and [(copy(s, 0), copy(s, 1)) for s in positions] == first
    core = next(s for s in positions if s.current_player() >= 0)
    found = [search(core.clone(), game, "star2", max_depth=2, evaluation=h) for h in (kept, tight)]
    assert (found[0].value, found[0].nodes) == (found[1].value, found[1].nodes)


def test_model_files_are_read_strictly(tmp_path) -> None:
    game = pyspiel.load_game("python_pig")
    good = random_model(game)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(good))
    assert read_model(path).features == features_for("python_pig")[1]
    broken = [
        ({**good, "format": "other"}, "not a chancespiel value model"),
        ({**good, "version": 2}, "version"),
        ({**good, "activation": "sigmoid"}, "activation"),
        ({**good, "mean": [0.0]}, "mean"),
        ({**good, "scale": [0.0] * len(good["scale"])}, "scale must be positive"),
        ({**good, "layers": []}, "layers"),
        ({**good, "layers": good["layers"][:1]}, "last layer must have one unit"),
        ({**good, "mean": [math.inf] * len(good["mean"])}, "not a finite number"),
    ]
    for data, message in broken:
        with pytest.raises(ModelError, match=message):
            parse_model(json.loads(json.dumps(data)))
    with pytest.raises(ModelError, match="cannot read"):
        read_model(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ModelError, match="not JSON"):
        read_model(tmp_path / "bad.json")


def test_a_model_file_larger_than_the_bound_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(learned, "MAX_MODEL_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(" " * 101)
    with pytest.raises(ModelError, match="larger than"):
        read_model(path)


def test_a_model_or_targets_path_that_is_not_a_file_is_refused(tmp_path) -> None:
    # a FIFO would block the read: refused before reading a byte, in one line
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ModelError, match="not a regular file"):
        read_model(fifo)
    with pytest.raises(TrainingError, match="not a regular file"):
        read_targets(fifo, "python_pig", "search(depth=2)", [], 1.0, 0)
    with pytest.raises(ModelError, match="not a regular file"):
        read_model(tmp_path)


def test_a_model_of_other_parameters_is_refused(registered_model) -> None:
    registered_model("python_pig", random_model(pyspiel.load_game("python_pig")))
    other = pyspiel.load_game("python_pig(winscore=50)")
    assert "learned" not in heuristic_names(other)
    with pytest.raises(ModelError, match="trained on python_pig"):
        evaluation_for(other, "learned")


def _hold_records(n_matches: int) -> list[dict]:
    """Records of hold(n=15) against hold(n=25) on Pig to 40, as the match runner writes
    them (the fields training reads)."""
    game = pyspiel.load_game("python_pig(winscore=40)")
    records = []
    for match in range(n_matches):
        for index in (0, 1):
            specs = ["hold(n=15)", "hold(n=25)"] if index == 0 else ["hold(n=25)", "hold(n=15)"]
            bots = [make_bot(s, game, p, match) for p, s in enumerate(specs)]
            played = play_game(game, bots, match)
            records.append(
                {
                    "game": str(game),
                    "a": "hold(n=15)",
                    "b": "hold(n=25)",
                    "match": match,
                    "game_index": index,
                    "returns": list(played.returns),
                    "history": list(played.history),
                    "error": None,
                }
            )
    return records


def test_training_learns_pig_and_beats_a_constant(tmp_path, registered_model) -> None:
    records = _hold_records(40)
    positions = collect_positions(records, keep=0.5, seed=1)
    assert positions.num_games == 80
    trained = train_value(positions, seed=0, candidates=[Candidate((), 1.0), Candidate((4,), 1e-3)])
    chosen = trained.results[trained.chosen]
    # a constant value has mse about 1 (outcomes are +-1, the first player wins about half)
    assert chosen["held_out_mse"] < 0.8
    assert chosen["held_out_accuracy"] > 0.65
    path = tmp_path / "pig.json"
    write_model(trained.data, path)
    with pytest.raises(TrainingError, match="exists"):
        write_model(trained.data, path)
    found = read_model(path)
    assert found.training["games"] == 80 and found.training["model"] == trained.chosen
    registered_model("python_pig", trained.data)
    game = pyspiel.load_game("python_pig(winscore=40)")
    h = evaluation_for(game, "learned")
    state = search_state(game.new_initial_state())
    assert abs(h(state, 0)) < 0.5  # the first player has a small edge at most


# The small network on a few games' positions stops at its iteration limit; the fit is tested.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_search_targets_train_a_value_that_follows_the_search(registered_model) -> None:
    records = _hold_records(20)
    game = pyspiel.load_game("python_pig(winscore=40)")
    positions = collect_positions(records, keep=0.3, seed=2, target="lookahead")
    assert positions.target == "lookahead" and positions.left_out_chance == 0
    assert len(positions.targets) == len(positions.features) // 2 > 100
    # Each target is one ply of expectimax on the heuristic (this Pig has no learned model),
    # player 0's value: recomputed for the first game's kept positions, in order.
    h = evaluation_for(game)
    kept = collect_positions(records[:1], keep=0.3, seed=2, target="lookahead")
    rng, expected = random.Random(2), []
    for _, state, _ in replay(game, records[0]["history"]):
        if rng.random() < 0.3:
            expected.append(expected_value(state, h, 1))
    assert kept.targets == pytest.approx(expected) and len(expected) >= 3
    assert kept.targets != pytest.approx([h(s, 0) for s in _states(game, records[0], 0.3, 2)])

    trained = train_value(positions, seed=0, candidates=[Candidate((), 1.0), Candidate((4,), 1e-3)])
    training = trained.data["training"]
    assert training["target"] == "lookahead"
    assert training["target_search"] == "1 ply of expectimax on the hand-written heuristic"
    chosen = trained.results[trained.chosen]
    spread = float(np.var(positions.targets))
    for metrics in trained.results.values():  # each learned the search, not a constant
        assert metrics["held_out_target_mse"] < 0.5 * spread
    assert chosen["held_out_mse"] < 1.0  # and predicts outcomes better than a constant
    parse_model(json.loads(json.dumps(trained.data)))
    # With a learned model registered, the search is on the learned value.
    registered_model("python_pig", trained.data)
    name, _ = search_target(game, 2)
    assert name == "2 plies of expectimax on the learned value"


def _states(game, record, keep, seed):
    rng = random.Random(seed)
    return [s.clone() for _, s, _ in replay(game, record["history"]) if rng.random() < keep]


def test_star2_targets_are_expectimax_values_averaged_at_chance_nodes() -> None:
    # the oracle: the plain expectimax recursion on the hand-written heuristic, apart from
    # the compiled Star2; at a chance node the mean of its outcomes' values
    game_string = "python_einstein_wurfelt_nicht(setup=random)"
    game = pyspiel.load_game(game_string)
    bots = [make_bot("random", game, p, 0) for p in (0, 1)]
    played = play_game(game, bots, 5)
    record = {"game": game_string, "returns": list(played.returns),
              "history": list(played.history), "error": None}  # fmt: skip
    positions = collect_positions([record], keep=0.5, seed=1, target="search( depth = 2 )")
    assert positions.target == "search(depth=2)"
    assert positions.target_search.startswith("search(depth=2) (Star2;")
    h = evaluation_for(game)
    rng, expected, kinds = random.Random(1), [], set()
    for _, state, _ in replay(game, record["history"]):
        if rng.random() >= 0.5 or _before_chance(state):
            continue
        if state.current_player() == pyspiel.PlayerId.CHANCE:
            outcomes = [(p, state.child(a)) for a, p in state.chance_outcomes()]
            expected.append(sum(p * expectimax(child, h, 2) for p, child in outcomes))
        else:
            expected.append(expectimax(state, h, 2))
        kinds.add(state.current_player() == pyspiel.PlayerId.CHANCE)
    assert kinds == {True, False} and len(expected) >= 6
    assert positions.targets == pytest.approx(expected, abs=1e-9)
    # a one-ply search is another target
    shallow = collect_positions([record], keep=0.5, seed=1, target="search(depth=1)")
    assert shallow.targets != pytest.approx(positions.targets)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("deep", "unknown target 'deep'; known: outcome, lookahead, lookahead2, search("),
        ("search(depth=0)", "depth must be an integer >= 1"),
        ("search(width=3)", "unknown parameter"),
        ("search(depth=2,heuristic=oracle)", "no heuristic 'oracle'"),
        ("search", "needs depth= or max_nodes="),
    ],
)
def test_bad_targets_are_one_line_errors(target: str, message: str) -> None:
    records = _hold_records(1)
    with pytest.raises(TrainingError, match=re.escape(message)) as caught:
        collect_positions(records, target=target)
    assert "\n" not in str(caught.value)


def test_search_targets_leave_out_chance_nodes_before_chance_nodes() -> None:
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    bots = [make_bot("random", game, p, 0) for p in (0, 1)]
    played = play_game(game, bots, 3)
    record = {"game": str(game), "returns": list(played.returns), "history": list(played.history),
              "error": None}  # fmt: skip
    everything = collect_positions([record])
    searched = collect_positions([record], target="lookahead")
    # The two setups: the first before the second, the second before the first roll.
    assert searched.left_out_chance == 2
    assert len(searched.targets) == len(everything.features) // 2 - 2
    assert all(-1.0 <= t <= 1.0 for t in searched.targets)
    with pytest.raises(TrainingError, match="unknown target 'deep'; known: outcome"):
        collect_positions([record], target="deep")


def _record_file(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_saved_targets_label_the_same_positions_without_searching(tmp_path, monkeypatch) -> None:
    records = _hold_records(6)
    files = [
        _record_file(tmp_path / "a.jsonl", records[:6]),
        _record_file(tmp_path / "b.jsonl", records[6:]),
    ]
    target = "search(depth=2)"
    searched = collect_positions(records, keep=0.5, seed=3, target=target)
    saved = tmp_path / "targets.json"
    made = {"command": "chancespiel value train ...", "date": "2026-11-26"}
    write_targets(saved, searched, files, 0.5, 3, made)
    assert json.loads(saved.read_text())["command"] == made["command"]
    with pytest.raises(TrainingError, match="exists: saved targets are not overwritten"):
        write_targets(saved, searched, files, 0.5, 3, made)
    game = searched.game
    # the same positions, labelled from the file: no search may run
    targets = read_targets(saved, game, "search( depth = 2 )", files, 0.5, 3)

    def no_search(*args, **kwargs):
        raise AssertionError("searched although the targets were saved")

    monkeypatch.setattr("chancespiel.evaluation.values.star2_target", lambda *a: ("s", no_search))
    again = collect_positions(records, keep=0.5, seed=3, target=target, saved=targets)
    assert again.targets == searched.targets and len(targets) > 20
    assert again.features == searched.features and again.wins == searched.wins
    # targets of other positions, or from another file, are refused in one line
    moved = tmp_path / "moved.jsonl"
    moved.write_text((tmp_path / "a.jsonl").read_text())
    assert read_targets(saved, game, target, [str(moved), files[1]], 0.5, 3) == targets
    other = _record_file(tmp_path / "c.jsonl", records[:4])
    for args, message in [
        ((game, target, files, 0.4, 3), "its keep is 0.5, not 0.4"),
        ((game, target, files, 0.5, 4), "its seed is 3, not 4"),
        ((game, "search(depth=3)", files, 0.5, 3), "its target is 'search(depth=2)', not"),
        ((game, target, files[::-1], 0.5, 3), "other record files (by content, in order)"),
        ((game, target, [files[0], other], 0.5, 3), "other record files"),
        ((game, target, [files[0], str(tmp_path / "gone.jsonl")], 0.5, 3), "cannot read"),
    ]:
        with pytest.raises(TrainingError, match=re.escape(message)) as caught:
            read_targets(saved, *args)
        assert "\n" not in str(caught.value)
    with pytest.raises(TrainingError, match="not as many as the positions"):
        collect_positions(records, keep=0.5, seed=3, target=target, saved=targets[:-1])
    with pytest.raises(TrainingError, match="not as many as the positions"):
        collect_positions(records, keep=0.5, seed=3, target=target, saved=[*targets, 0.0])
    with pytest.raises(TrainingError, match="belong to a search target"):
        collect_positions(records, keep=0.5, seed=3, saved=targets)
    with pytest.raises(TrainingError, match="no search targets to save"):
        write_targets(tmp_path / "none.json", collect_positions(records), files, 1.0, 0, made)
    for text, message in [
        ("[]", "not a file of saved targets"),
        ("{", "not a file of saved targets"),
        (saved.read_text().replace('"targets": [', '"targets": ["x", '), "numbers in [-1, 1]"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(TrainingError, match=re.escape(message)):
            read_targets(bad, game, target, files, 0.5, 3)


def test_cli_saves_targets_and_trains_on_them(tmp_path, capsys) -> None:
    path = str(tmp_path / "records.jsonl")
    match = ["match", "python_pig(winscore=40)", "hold(n=15)", "hold(n=25)", "--matches", "12"]
    assert main([*match, "--workers", "1", "--no-progress", "--out", path]) == 0
    train = ["value", "train", path, "--keep", "0.3", "--target", "search(depth=2)"]
    saved = tmp_path / "targets.json"
    first = tmp_path / "first.json"
    assert main([*train, "--out", str(first), "--save-targets", str(saved)]) == 0
    assert f"targets saved: {saved}" in capsys.readouterr().out
    assert json.loads(saved.read_text())["command"].startswith("chancespiel value train ")
    second = tmp_path / "second.json"
    assert main([*train, "--out", str(second), "--targets-from", str(saved)]) == 0
    capsys.readouterr()
    # the same targets, split and seed: the same model
    assert read_model(first).training["candidates"] == read_model(second).training["candidates"]
    # refused before any labelling: an existing output, targets for the outcome, other options
    for extra, message in [
        (["--out", str(first)], f"{first} exists"),
        (["--out", str(tmp_path / "m.json"), "--save-targets", str(saved)], f"{saved} exists"),
        (["--out", str(tmp_path / "m.json"), "--targets-from", str(saved), "--seed", "1"],
         "its seed is 0, not 1"),
        (["--out", str(tmp_path / "m.json"), "--save-targets", str(tmp_path / "." / "m.json")],
         "--out and --save-targets name one file"),
    ]:  # fmt: skip
        assert main([*train, *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main([*train, "--out", str(blocked / "sub" / "m.json")]) == 2  # no folder there
    assert "cannot write" in capsys.readouterr().err
    command = ["value", "train", path, "--out", str(tmp_path / "m.json")]
    assert main([*command, "--save-targets", str(tmp_path / "t.json")]) == 2
    assert "need a search --target" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "t.json").exists()


def test_training_refuses_what_it_cannot_use() -> None:
    records = _hold_records(2)
    with pytest.raises(TrainingError, match="at least 10"):
        train_value(collect_positions(records))
    mixed = [*records, {**records[0], "game": "python_cant_stop"}]
    with pytest.raises(TrainingError, match="several games"):
        collect_positions(mixed)
    bad = [{**records[0], "history": [*records[0]["history"][:3], 99]}]
    with pytest.raises(TrainingError, match="record 0"):
        collect_positions(bad)
    with pytest.raises(TrainingError, match="no features"):
        collect_positions([{**records[0], "game": "python_chance_tree"}])


def test_cli_train_and_show(tmp_path, capsys) -> None:
    path = tmp_path / "records.jsonl"
    match = ["match", "python_pig(winscore=40)", "hold(n=15)", "hold(n=25)", "--matches", "12"]
    assert main([*match, "--workers", "1", "--no-progress", "--out", str(path)]) == 0
    out = tmp_path / "model.json"
    assert main(["value", "train", str(path), "--out", str(out), "--keep", "0.5"]) == 0
    assert "written" in capsys.readouterr().out
    assert main(["value", "show", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["games"] == 24 and shown["command"].startswith("chancespiel value train")
    assert shown["target"] == "outcome" and shown["target_search"] is None
    searched = tmp_path / "searched.json"
    assert main(["value", "train", str(path), "--out", str(searched), "--target", "lookahead"]) == 0
    assert "target: 1 ply of expectimax on the hand-written heuristic" in capsys.readouterr().out
    assert read_model(searched).training["target"] == "lookahead"
    assert main(["value", "train", str(path), "--out", str(tmp_path / "x"), "--target", "x"]) == 2
    assert "unknown target 'x'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    deeper = tmp_path / "deeper.json"
    command = ["value", "train", str(path), "--out", str(deeper), "--target", "search(depth=2)"]
    assert main([*command, "--keep", "0.3"]) == 0
    assert "target: search(depth=2) (Star2;" in capsys.readouterr().out
    assert read_model(deeper).training["target"] == "search(depth=2)"
    assert main(["value", "train", str(path), "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("[]")
    assert main(["value", "show", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not a chancespiel value model" in err


def test_a_bad_learned_value_leaves_the_correction_unbiased(registered_model) -> None:
    """hold(n=8) against hold(n=12) on Pig to 30 (exact win probability known), corrected
    with a learned value of random weights: the mean stays the truth, only the variance may
    not shrink."""
    game = pyspiel.load_game("python_pig(winscore=30)")
    registered_model("python_pig", random_model(game, hidden=4, seed=7, size=2.0))
    exact = policy_win_probability(
        hold_at_policy(8, 30), hold_at_policy(12, 30), dice=2, winscore=30
    )
    _, value = value_function(str(game), "learned")
    corrected = []
    for seed in range(300):
        bots = [make_bot("hold(n=8)", game, 0, seed), make_bot("hold(n=12)", game, 1, seed)]
        played = play_game(game, bots, seed)
        correction = game_correction(game, played.history, value)
        assert correction != 0.0 or not played.history
        corrected.append((played.returns[0] + 1.0) / 2.0 - correction / 2.0)
    se = np.std(corrected, ddof=1) / math.sqrt(len(corrected))
    assert abs(np.mean(corrected) - exact) < 4 * se


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("hidden", [0, 5])
def test_leaf_values_are_the_calls_values(game_string, hidden, registered_model) -> None:
    # a block of leaves through the network at once gives each leaf the value a call gives it
    # (within the last bits), keeps them as calls do, and values a lone new leaf (and every
    # leaf of a logistic model) exactly as a call does
    game = pyspiel.load_game(game_string)
    registered_model(game.get_type().short_name, random_model(game, hidden=hidden))
    called, batched = evaluation_for(game, "learned"), evaluation_for(game, "learned")
    positions = random_positions(game, 40, seed=3)
    expected = [called(s, 0) for s in positions]
    found = batched.leaf_values(positions[:25])
    assert found == pytest.approx(expected[:25], rel=0, abs=1e-12)
    assert len(batched.cache) == len(called.cache.keys() & batched.cache.keys()) > 0
    found += batched.leaf_values(positions[25:26]) + batched.leaf_values(positions[26:])
    assert found[:25] == batched.leaf_values(positions[:25])  # now kept
    assert found[25] == expected[25]
    if not hidden:
        assert found == expected


def test_ras_feature_pair_and_key_change_no_value() -> None:
    # both sides' features from one call are the two calls' features; states with equal
    # feature keys have equal features (the key leaves out the bag and the track's order, so
    # it tells fewer states apart); and the learned value is the same with and without them
    from chancespiel.games.ra_core import ra_feature_key, ra_feature_pair, ra_features
    from chancespiel.games.value_model import LearnedValue

    game = pyspiel.load_game("python_ra")
    positions = random_positions(game, 300, seed=4)
    seen: dict[int, tuple] = {}
    for state in positions:
        pair = ra_feature_pair(state)
        assert pair == (ra_features(state, 0), ra_features(state, 1))
        assert seen.setdefault(ra_feature_key(state), pair) == pair
    state = next(s for s in positions if len(set(s.track)) > 1)
    swapped = state.clone()
    swapped.track.reverse()
    assert swapped.state_key() != state.state_key()
    assert ra_feature_key(swapped) == ra_feature_key(state)
    learned_value = evaluation_for(game, "learned")
    plain = LearnedValue(learned_value.model, ra_features)
    both = [*positions, swapped]
    assert [learned_value(s, p) for s in both for p in (0, 1)] == [
        plain(s, p) for s in both for p in (0, 1)
    ]
    assert len(learned_value.cache) < len(plain.cache)


def _strict(text: str) -> object:
    """JSON as strict readers (jq, JavaScript) take it: no NaN or Infinity."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_value_show_json_is_strict_json_with_a_metric_that_is_nan(tmp_path, capsys):
    """A metric may be NaN (the reader takes it); --json writes it as null."""
    data = json.loads((VALUES_DIR / "python_pig.json").read_text())
    chosen = data["training"]["model"]
    data["training"]["candidates"][chosen]["held_out_log_loss"] = float("nan")
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    assert main(["value", "show", str(path), "--json"]) == 0
    shown = _strict(capsys.readouterr().out)
    assert shown["candidates"][chosen]["held_out_log_loss"] is None
