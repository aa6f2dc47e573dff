"""Fuzzing the one-line-error contract: agent specs, game strings, histories and record lines
made by hypothesis, half from the real vocabulary (agent and parameter names, games, legal
moves) and half arbitrary. Whatever comes in, the answer is a result or the one documented
error type with a one-line message: never another exception, a traceback or a hang."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pyspiel
from faulty_games import FAULTS, NAME
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chancespiel.agents import AGENTS, make_bot
from chancespiel.agents.registry import resolve_spec
from chancespiel.evaluation import cli
from chancespiel.evaluation.cli.common import apply_history
from chancespiel.evaluation.match import RecordFileError, parse_lines
from chancespiel.evaluation.usage import UsageError, load_game

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples in every CI run: a failure is reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
GAMES = ("python_pig", "python_einstein_wurfelt_nicht", "python_cant_stop", "python_ra", "pig")
PIG = pyspiel.load_game("python_pig(winscore=20)")

names = st.sampled_from(sorted(AGENTS)) | st.text(max_size=12)
keys = st.sampled_from(
    [*sorted({key for info in AGENTS.values() for key in info.params}), "dice", "n", ""]
) | st.text(max_size=8)
values = (
    st.integers(-(10**12), 10**12).map(str)
    | st.floats(allow_nan=True, allow_infinity=True).map(repr)
    | st.sampled_from(["true", "false", "none", "default", "path", "state", "", "(", ")", ","])
    | st.text(max_size=10)
)
params = st.lists(st.tuples(keys, values), max_size=4).map(
    lambda items: ",".join(f"{k}={v}" for k, v in items)
)
specs = st.tuples(names, params, st.sampled_from(["", ")", "x", "()", " "])).map(
    lambda t: f"{t[0]}({t[1]}){t[2]}" if t[1] or t[2] else t[0]
)
game_strings = st.tuples(
    st.sampled_from(GAMES) | st.text(max_size=12), params, st.sampled_from(["", ")", "x"])
).map(lambda t: f"{t[0]}({t[1]}){t[2]}" if t[1] or t[2] else t[0])


def _one_line(message: str) -> None:
    assert message.strip() and "\n" not in message.strip(), message


def _answers_or_refuses(call: Callable[[], object], error: type[Exception]) -> None:
    """`call()` returns, or raises `error` with a one-line message (nothing else)."""
    try:
        call()
    except error as e:
        _one_line(str(e))


@FUZZ
@given(specs)
def test_any_agent_spec_resolves_or_is_one_value_error(spec):
    _answers_or_refuses(lambda: resolve_spec(spec), ValueError)


@FUZZ
@given(specs)
def test_any_agent_spec_makes_a_bot_or_is_one_value_error(spec):
    _answers_or_refuses(lambda: make_bot(spec, PIG, 0, seed=1), ValueError)


@FUZZ
@given(game_strings)
def test_any_game_string_loads_or_is_one_usage_error(game_string):
    _answers_or_refuses(lambda: load_game(game_string), UsageError)


game_keys = st.sampled_from(
    ["dice", "winscore", "horizon", "diceoutcomes", "seed", "depth", "branching", "outcomes",
     "chance_prob", "epochs", "setup", "fault", "at", "bad_info", "sides", "players", ""]
) | st.text(max_size=8)  # fmt: skip
game_values = values | st.sampled_from([*FAULTS, "0", "2", "10", "1e400", "-1", "2147483648"])
cli_game_strings = st.tuples(
    st.sampled_from([*GAMES, NAME, "python_chance_tree", "python_pgame", "kuhn_poker"])
    | st.text(max_size=12),
    st.lists(st.tuples(game_keys, game_values), max_size=3).map(
        lambda items: ",".join(f"{k}={v}" for k, v in items)
    ),
    st.sampled_from(["", "", ")", "x", "("]),
).map(lambda t: f"{t[0]}({t[1]}){t[2]}" if t[1] or t[2] else t[0])


@FUZZ
@given(cli_game_strings)
@example(f"{NAME}(fault=half)")  # a faulty game: its search meets the fault
@example(f"{NAME}(fault=no_actions)")  # ... at the root
@example(f"{NAME}(bad_info=true)")  # declarations no game is played by
@example("python_pig(dice=0.0)")  # a type OpenSpiel refuses (and prints itself)
@example("python_pig(\x1e=0)")  # a character that ends a line
@example("python_chance_tree(seed=2147483648)")  # beyond OpenSpiel's integers
@example("--i")  # a prefix of --import: the command's to refuse, in one line
@example("-:")  # read as an option
def test_any_game_string_through_the_cli_is_an_answer_or_one_line(capfd, game_string):
    """What the command line makes of any text as a game (faulty plugin games included): an
    analysis, or one line on stderr (OpenSpiel's own messages counted), never a traceback."""
    try:
        code = cli.main(["analyse", game_string, "--agent", "expectimax(max_depth=1)", "--json"])
    except SystemExit as e:  # argparse's usage errors (a string read as an option: '-:')
        code = e.code
    out, err = capfd.readouterr()
    lines = [line for line in err.splitlines() if not line.startswith("chancespiel: warning")]
    assert "Traceback" not in err
    if code == 0:
        assert json.loads(out, parse_constant=_refuse) and not lines
    else:
        assert code == 2 and len(lines) == 1, err
        assert lines[0].startswith(("chancespiel: error", "chancespiel analyse: error")), err


def _refuse(token: str) -> None:
    raise AssertionError(f"{token} is not JSON")


@FUZZ
@given(st.data())
def test_any_history_applies_or_is_one_usage_error(data):
    """Mostly legal prefixes with one changed token, so the errors come from deep in a game."""
    state = PIG.new_initial_state()
    played: list[str] = []
    for _ in range(data.draw(st.integers(0, 30))):
        if state.is_terminal():
            break
        action = data.draw(st.sampled_from(state.legal_actions()))
        played.append(str(action))
        state.apply_action(action)
    noise = st.integers(-5, 10**6).map(str) | st.text(max_size=5)
    if data.draw(st.booleans()):
        played.append(data.draw(noise))
    _answers_or_refuses(lambda: apply_history(PIG, " ".join(played)), UsageError)


def _record(game_index: int = 0) -> dict:
    """A real record of a short game, to be damaged."""
    from chancespiel.evaluation.match import GameTask, play_task

    return play_task(GameTask("python_pig(winscore=20)", "hold(n=5)", "random", 0, 0, game_index))


RECORD = _record()
FIELDS = sorted(RECORD)
junk = (
    st.none()
    | st.booleans()
    | st.integers(-3, 10**6)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.lists(st.integers(-2, 30), max_size=6)
    | st.lists(
        st.integers(0, 2) | st.floats(0, 2) | st.booleans() | st.text(max_size=2), max_size=6
    )
    | st.lists(st.lists(st.floats(allow_nan=True), max_size=3), max_size=3)
)


moves = st.integers(-2, 25) | st.floats(0, 2) | st.booleans() | st.text(max_size=1)
# fields whose checks have logic, with values near the valid ones
NEAR = {
    "history": st.lists(moves, max_size=8) | st.just(RECORD["history"][:-1]),
    "returns": st.lists(st.floats(-2, 2) | st.just(math.nan) | st.integers(-1, 1), max_size=3),
    "move_ms": st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=3)),
    "seats": st.lists(st.sampled_from(["hold(n=5)", "random", "hold"]), max_size=3),
    # a key that names another game, agent, model, dice or game index than its record's
    "key": st.fixed_dictionaries(
        {
            "game": st.sampled_from([RECORD["key"]["game"], "python_pig(winscore=30)", "(", 3]),
            "a": st.sampled_from(["hold(n=5)", "hold(n=6)", "random", "hold(", "", None]),
            "b": st.sampled_from(["random", "hold", "nope(x=1)", 2]),
            "models": st.sampled_from([[None, None], ["0" * 64, None], ["x", None], [None], {}]),
            "dice": st.integers(-1, 2) | st.just(True) | st.text(max_size=1),
            "game_index": st.integers(-1, 2) | st.booleans() | st.none(),
        }
    ).map(lambda key: {k: v for k, v in key.items() if v != ""}),
}
change = st.sampled_from(sorted(NEAR)).flatmap(lambda f: st.tuples(st.just(f), NEAR[f])) | (
    st.tuples(st.sampled_from(FIELDS), junk | st.just(None))
)


@settings(FUZZ, max_examples=400)
@given(st.lists(change, max_size=3))
def test_any_damaged_record_line_is_read_or_refused_naming_its_line(changes):
    record = dict(RECORD)
    for field, value in changes:
        if value is None and field in record and len(changes) % 2:
            del record[field]
        else:
            record[field] = value
    line = json.dumps(record).encode() + b"\n"
    try:
        records, torn = parse_lines(line, "f.jsonl")
    except RecordFileError as e:
        _one_line(str(e))
        assert "f.jsonl: line 1" in str(e)
    else:
        assert torn is None and len(records) == 1


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_as_a_record_file_are_reported_or_refused_in_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "r.jsonl"
    path.write_bytes(data)
    code = cli.main(["report", str(path)])
    assert code in (0, 2)


# Any JSON value, with nesting past the reader's bound and integers past any field's, spliced
# in as text (json.dumps of a value that deep would itself recurse too far).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)
raw_json = (
    json_values.map(json.dumps)
    | st.integers(30, 3000).map(lambda n: "[" * n + "]" * n)
    | st.integers(25, 400).map(lambda n: "9" * n)
    | st.sampled_from(["1e400", "-1e400", "NaN", "1e12", "0.5e-3"])
)


def _spliced(data: dict, changes: list[tuple[str, str]]) -> str:
    """`data` as JSON, with the raw JSON text of each change as the value of its field."""
    marked = dict(data)
    for number, (field, _) in enumerate(changes):
        marked[field] = f"@{number}@"
    text = json.dumps(marked)
    for number, (_, raw) in enumerate(changes):
        text = text.replace(f'"@{number}@"', raw)
    return text


@settings(FUZZ, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(FIELDS), raw_json), max_size=3))
def test_any_json_in_a_records_fields_is_reported_or_refused_in_one_line(changes):
    """Through the reader and what reads records after it (a report): a result, or one line."""
    from chancespiel.evaluation.report import format_report, summarize

    line = _spliced(RECORD, changes).encode() + b"\n"
    try:
        records, _ = parse_lines(line, "f.jsonl")
    except RecordFileError as e:
        _one_line(str(e))
        return
    summarize(records)
    format_report(records)


MODEL = json.loads(
    (Path(__file__).parent.parent / "games" / "values" / "python_pig.json").read_text()
)
MODEL_FIELDS = [*sorted(MODEL), "training.candidates", "training.seed", "layers.0", "layers.1"]


@settings(FUZZ, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(MODEL_FIELDS), raw_json), max_size=3), st.data())
def test_any_json_in_a_model_files_fields_is_read_or_refused_in_one_line(
    tmp_path_factory, changes, data
):
    """A model file read back: refused in one line, or a model whose values are finite."""
    from chancespiel.games.learned import ModelError, read_model

    model = json.loads(json.dumps(MODEL))
    top = [(f, raw) for f, raw in changes if "." not in f]
    for field, raw in changes:  # a field inside a layer or the training: its JSON parsed
        if "." in field and not raw.startswith("[" * 30) and len(raw) < 25:
            part, key = field.split(".")
            container = model[part]
            if isinstance(container, list):
                container[int(key)] = json.loads(raw)
            else:
                container[key] = json.loads(raw)
    path = tmp_path_factory.mktemp("fuzz") / "m.json"
    path.write_text(_spliced(model, top))
    try:
        found = read_model(path)
    except ModelError as e:
        _one_line(str(e))
        return
    features = data.draw(
        st.lists(st.floats(-1e6, 1e6), min_size=len(MODEL["mean"]), max_size=len(MODEL["mean"]))
    )
    assert math.isfinite(found.model.value(features))
    assert cli.main(["value", "show", str(path)]) == 0
