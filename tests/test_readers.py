"""Readers are bounded and typed: records, model files, regressions, run files, saved targets
and luck terms go through one checked JSON reader (bounded nesting and integers) and have
every field's type checked, so whatever a file holds the answer is a result or one line,
never a RecursionError, TypeError or OverflowError; a model whose weights would overflow is
refused when it is read."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from chancespiel import files
from chancespiel.agents.chance_probcut import Regression
from chancespiel.evaluation import cli
from chancespiel.evaluation.match import RecordFileError, read_records
from chancespiel.evaluation.resumable import read_settings
from chancespiel.evaluation.usage import UsageError
from chancespiel.games.learned import ModelError, read_model
from chancespiel.studies.luck_values import read_terms

RECORDS = Path(__file__).parent.parent / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"
MODEL = Path(__file__).parent.parent / "games" / "values" / "python_pig.json"
DEEP = "[" * 5000 + "]" * 5000
HUGE = "9" * 5000  # past Python's own limit for int() of a string


def _one_line(err: str) -> str:
    assert err.strip() and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _record(**changes: object) -> str:
    record = json.loads(gzip.decompress(RECORDS.read_bytes()).decode().splitlines()[0])
    record.update(changes)
    return json.dumps(record)


def test_the_checked_reader_bounds_nesting_and_integers():
    for text, message in [
        (DEEP, "nested deeper than"),
        ("[" * 40 + "]" * 40, "nested deeper than"),  # within Python's recursion, past ours
        (HUGE, "an integer of 5000 digits"),
        ('{"a": [1, ' + HUGE + "]}", "an integer of 5000 digits"),
        (b"\xff\xfe{}", "not UTF-8"),
        ("{", "Expecting property name"),
    ]:
        with pytest.raises(files.JsonError, match=message) as caught:
            files.loads(text)
        _one_line(str(caught.value))
    assert files.loads('{"a": [1e12, -3, 1.5e-300]}') == {"a": [1e12, -3, 1.5e-300]}
    assert files.loads("[" * 30 + "]" * 30) is not None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"v":3,"x":' + DEEP + "}", "nested deeper than"),
        (_record(seed=json.loads("1" + "0" * 40)), "an integer of 41 digits"),
        (_record(nodes="x"), "nodes must be a list of 2"),
        (_record(nodes=[["1"], None]), "nodes must be a list of 2"),
        (_record(error={"kind": 5, "message": "m"}), "error must be null or an object"),
        (_record(error="boom"), "error must be null or an object"),
        (_record(limit_ms=[1, "x"]), "limit_ms must be"),
        (_record(overruns=[0, -1]), "overruns must be"),
        (_record(seconds=[]), "seconds must be"),
        (_record(load="high"), "load must be"),
        (_record(overrun_ms=math.inf), "overrun_ms must be a finite number"),
        (
            json.dumps({k: v for k, v in json.loads(_record()).items() if k != "move_ms"}),
            "move_ms missing",
        ),
    ],
)
def test_a_record_with_a_field_of_another_type_is_one_line(tmp_path, capsys, line, message):
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(RecordFileError, match=message):
        read_records(path)
    assert cli.main(["report", str(path)]) == 2
    assert f"{path}: line 1" in _one_line(capsys.readouterr().err)


def _model(**changes: object) -> dict:
    data = json.loads(MODEL.read_text())
    data.update(changes)
    return data


def _layers(scale: float) -> list:
    layers = _model()["layers"]
    layers[0]["weights"] = [[w * scale for w in row] for row in layers[0]["weights"]]
    return layers


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_model(layers=_layers(1e308)), "is not a finite number within"),  # finite; overflows
        (_model(mean=[1e300] * len(_model()["mean"])), "is not a finite number within"),
        (_model(scale=[1e-300] * len(_model()["scale"])), "scale must be positive"),
        (_model(layers=_model()["layers"] * 5), "1 to 8 layers"),
        (_model(training={"candidates": []}), "training: candidates must be"),
        (_model(training={"seed": "0"}), "training: seed must be an integer"),
        (_model(training=[]), "'training' must be an object"),
        (_model(training={"deep": "DEEP"}), "nested deeper than"),
    ],
)
def test_a_model_file_that_would_misbehave_is_refused_when_read(tmp_path, capsys, data, message):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data).replace('"DEEP"', "[" * 900 + "]" * 900))
    with pytest.raises(ModelError, match=message) as caught:
        read_model(path)
    _one_line(str(caught.value))
    assert cli.main(["value", "show", str(path)]) == 2
    _one_line(capsys.readouterr().err)


def test_a_model_with_weights_in_bounds_is_read_and_its_values_are_finite(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(_model(layers=_layers(1e3))))  # far above any trained model
    model = read_model(path).model
    features = [1e6] * len(_model()["mean"])
    assert math.isfinite(model.value(features)) and math.isfinite(model.logit(features))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"depth": "3", "shallow": 1}, "depth must be an integer >= 0"),
        ({"depth": 3.0, "shallow": 1}, "depth must be an integer >= 0"),
        ({"depth": 3, "shallow": 1, "a": "1"}, "a must be a finite number"),
        ({"depth": 3, "shallow": 1, "sigma": None}, "sigma must be a finite number"),
        ({"depth": 3, "shallow": 1, "game": []}, "game must be a string"),
        ({"depth": 3, "shallow": 1, "colour": "red"}, "unknown field 'colour'"),
        ({"depth": 3}, "shallow missing"),
        ({"depth": 3, "shallow": 1, "pairs": "DEEP"}, "nested deeper than"),
    ],
)
def test_a_regression_file_of_the_wrong_shape_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(content).replace('"DEEP"', DEEP))
    with pytest.raises(ValueError, match=message) as caught:
        Regression.load(path)
    _one_line(str(caught.value))
    argv = ["play", "python_pig(winscore=20)", f"star2cpc(regression={path})", "random"]
    assert cli.main(argv) == 2
    _one_line(capsys.readouterr().err)


def test_a_number_in_exponent_form_is_a_float_where_a_float_is_meant(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"depth": 3, "shallow": 1, "a": 1e12, "b": 1, "sigma": 2E-3}')
    regression = Regression.load(path)
    assert (regression.a, regression.b, regression.sigma) == (1e12, 1, 0.002)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (DEEP, "not a run file"),  # past Python's recursion limit
        ('{"seed": ' + "[" * 40 + "]" * 40 + "}", "not a run file"),  # past ours
    ],
)
def test_a_run_file_that_is_not_ours_is_one_line(tmp_path, content, message):
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(UsageError, match=message) as caught:
        read_settings(tmp_path)
    _one_line(str(caught.value))


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"file": 1.5, "record": 0, "value": "exact", "luck": 0.1}, "file must be an integer"),
        ({"file": 0, "record": "0", "value": "exact", "luck": 0.1}, "record must be an integer"),
        ({"file": 0, "record": 0, "value": 3, "luck": 0.1}, "value must be a string"),
        ({"file": 0, "record": 0, "value": "exact", "luck": "0.1"}, "luck must be a finite"),
        ({"file": 0, "record": 0, "value": "exact", "luck": 0.1, "drift": [1]}, "drift must be"),
        ({"file": 0, "record": 0, "value": "exact"}, "luck missing"),
    ],
)
def test_a_luck_term_of_the_wrong_type_is_one_line(tmp_path, row, message):
    path = tmp_path / "terms.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(UsageError, match=message) as caught:
        read_terms(path)
    _one_line(str(caught.value))


def test_a_luck_term_in_exponent_form_is_read(tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text('{"file": 0, "record": 2, "value": "exact", "luck": 1e-3, "cpu_s": 1E2}\n')
    assert read_terms(path)[0, 2, "exact"]["luck"] == 0.001


def test_saved_targets_nested_too_deep_are_one_line(tmp_path, capsys):
    from chancespiel.evaluation.values import TrainingError, read_targets

    path = tmp_path / "t.json"
    path.write_text(DEEP)
    with pytest.raises(TrainingError, match="not a file of saved targets") as caught:
        read_targets(path, "python_pig", "lookahead", [str(RECORDS)], 1.0, 0)
    _one_line(str(caught.value))
