"""What names a game in a record: self-play, two spellings of one agent, one-match runs, value
models. `match`, `report`, resume, the SPRT and value training count the same games, and a
file is never resumed with another value model. Committed records report as they always did."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chancespiel.evaluation import cli
from chancespiel.evaluation.cli.common import read_all
from chancespiel.evaluation.luck import value_function
from chancespiel.evaluation.match import (
    FORMAT_VERSION,
    MISSING,
    Agent,
    GameTask,
    RecordFileError,
    game_key,
    play_task,
    read_records,
    run_agent,
    unique_records,
)
from chancespiel.evaluation.runner import RunConfig, run
from chancespiel.evaluation.sprt import SprtParams
from chancespiel.evaluation.values import collect_positions
from chancespiel.games import learned
from chancespiel.games.registry import register_value_model

GAME = "python_pig(winscore=20)"
ROOT = Path(__file__).resolve().parent.parent


def _match(out: Path, a: str, b: str, matches: int, *extra: str) -> int:
    argv = ["match", GAME, a, b, "--matches", str(matches), "--out", str(out), "--no-progress"]
    return cli.main([*argv, "--workers", "1", *extra])


def _report(capsys, *files: Path) -> dict:
    capsys.readouterr()
    assert cli.main(["report", "--json", *map(str, files)]) == 0
    return json.loads(capsys.readouterr().out)


def _keys(path: Path) -> list[tuple[int, int]]:
    return [(r["match"], r["game_index"]) for r in read_records(path)]


@pytest.mark.parametrize(
    ("a", "b"), [("hold(n=10)", "hold(n=10)"), ("hold", "hold(n=20)"), ("random", "random")]
)
def test_self_play_counts_every_game_in_match_report_and_resume(tmp_path, capsys, a, b):
    """A against itself (written alike or in two spellings): both games of every match are
    games, in the run's line, the report, the resumed run and the records' keys."""
    out = tmp_path / "self.jsonl"
    assert _match(out, a, b, 10) == 0
    text = capsys.readouterr().out
    assert "played 20 games" in text
    assert "self-play of " in text and "the first seat scored" in text and "of 20 games" in text
    assert len({game_key(r) for r in read_records(out)}) == 20
    summary = _report(capsys, out)
    (game,) = summary["games"]
    (pair,) = game["pairs"]
    assert game["records"] == 20 and pair["games"] == 20 and pair["self_play"]
    first = pair["first_seat"]
    assert first["games"] == 20 and first["wins"] + first["draws"] + first["losses"] == 20
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    captured = capsys.readouterr()
    assert "more than once" not in captured.err
    assert f"self-play of {a}: the first seat scored {first['score']:g} of 20 games" in (
        captured.out
    )
    # resumed, with the spellings the other way round: the same agent, nothing to play
    assert _match(out, b, a, 10) == 0
    assert "nothing to play: all 20 games were in the file" in capsys.readouterr().out
    assert _match(out, a, b, 12) == 0
    assert "played 4 games" in capsys.readouterr().out
    assert sorted(_keys(out)) == [(m, i) for m in range(12) for i in (0, 1)]


def test_a_one_match_run_of_random_against_itself_is_two_games(tmp_path, capsys):
    """Its two games are other games on the same dice (each bot's seed follows its side)."""
    out = tmp_path / "one.jsonl"
    assert _match(out, "random", "random", 1) == 0
    (game,) = _report(capsys, out)["games"]
    assert game["records"] == 2 and game["pairs"][0]["games"] == 2


def test_two_spellings_of_one_pair_are_one_run(tmp_path, capsys):
    """A file written with defaults left out resumes with them written out, and the report
    of both spellings counts each game once."""
    out = tmp_path / "ab.jsonl"
    assert _match(out, "hold", "random", 4) == 0
    assert _match(out, "hold(n=20)", "random", 5) == 0
    text = capsys.readouterr().out
    assert "played 2 games in" in text and "; 8 games were already in the file" in text
    (pair,) = _report(capsys, out)["games"][0]["pairs"]
    assert (pair["a"], pair["games"], pair["matches"]) == ("hold", 10, 5)


def test_a_resumed_self_play_sprt_writes_each_game_once(tmp_path, capsys):
    """The SPRT and the report count the same whole matches, before and after a resume."""
    out = tmp_path / "sprt.jsonl"
    for matches in (8, 12):
        assert _match(out, "random", "random", matches, "--sprt=-10,10") == 0
    assert "SPRT" in capsys.readouterr().out
    records = read_records(out)
    assert len(records) == len({game_key(r) for r in records})
    assert unique_records(records)[1] == 0
    (pair,) = _report(capsys, out)["games"][0]["pairs"]
    assert pair["whole_matches"] == len(records) // 2 == pair["matches"]
    config = RunConfig(GAME, [("random", "random")], 12, out=str(out), workers=1)
    again = run(dataclasses.replace(config, sprt=SprtParams(-10, 10)))
    assert again.played == 0 and again.sprt is not None
    # the test saw the report's whole matches in order, up to its decision
    assert again.sprt.pairs <= pair["whole_matches"]
    if again.sprt.decision is None:
        assert again.sprt.pairs == pair["whole_matches"]


def test_value_training_uses_every_game_of_a_self_play_file(tmp_path, capsys):
    out = tmp_path / "self.jsonl"
    assert _match(out, "hold(n=12)", "hold(n=12)", 6) == 0
    records = read_all([str(out)])
    assert len(records) == 12
    positions = collect_positions(records)
    assert positions.num_games == 12
    model = tmp_path / "model.json"
    capsys.readouterr()
    assert cli.main(["value", "train", str(out), "--out", str(model)]) == 0
    assert ": 12 games (" in capsys.readouterr().out


# -- value models -----------------------------------------------------------------------------

LEARNED = "expectimax(max_depth=1,heuristic=learned)"
LEARNED_CANONICAL = "expectimax(heuristic=learned,max_depth=1)"
PIG = "python_pig"


@pytest.fixture
def pig_model(tmp_path):
    """Makes `python_pig`'s learned value a copy of the shipped model, with `note` in its
    training data (the same weights, another file: another digest); forgets it afterwards."""

    def register(note: str) -> str:
        data = json.loads((learned.VALUES_DIR / f"{PIG}.json").read_text())
        data["training"] = {**data.get("training", {}), "note": note}
        path = tmp_path / f"model_{note}.json"
        path.write_text(json.dumps(data))
        register_value_model(PIG, str(path))
        learned._cached_model.cache_clear()
        value_function.cache_clear()
        return hashlib.sha256(path.read_bytes()).hexdigest()

    yield register
    register_value_model(PIG, None)  # back to the shipped model
    learned._cached_model.cache_clear()
    value_function.cache_clear()


def test_records_name_the_model_and_a_resume_with_another_is_refused(tmp_path, pig_model):
    first = pig_model("first")
    out = tmp_path / "learned.jsonl"
    config = RunConfig(PIG, [(LEARNED, "hold")], 1, out=str(out), workers=1)
    assert run(config).played == 2
    assert all(r["key"]["models"] == [first, None] for r in read_records(out))
    assert {game_key(r).a for r in read_records(out)} == {Agent(LEARNED_CANONICAL, first)}
    second = pig_model("second")
    with pytest.raises(RecordFileError) as refused:
        run(dataclasses.replace(config, matches=2))
    message = str(refused.value)
    assert f"sha256:{first}" in message and f"sha256:{second}" in message
    assert "\n" not in message
    assert len(read_records(out)) == 2  # nothing was written
    pig_model("first")  # the same bytes again: the same model, resumed
    assert run(dataclasses.replace(config, matches=2)).played == 2


def test_report_groups_by_model(tmp_path, capsys, pig_model):
    """Two files of one spec with two models are two agents, each named with its model."""
    files = []
    for note in ("one", "two"):
        pig_model(note)
        files.append(tmp_path / f"{note}.jsonl")
        run(RunConfig(PIG, [(LEARNED, "hold")], 1, out=str(files[-1]), workers=1))
    (game,) = _report(capsys, *files)["games"]
    assert len(game["pairs"]) == 2 and all(p["games"] == 2 for p in game["pairs"])
    names = [p["a"] for p in game["pairs"]]
    assert len(set(names)) == 2 and all("[model " in name for name in names)
    assert {tuple(p["models"]) for p in game["pairs"]} == {
        (r["key"]["models"][0], None) for f in files for r in read_records(f)
    }


def test_a_worker_with_another_model_stops_the_run(tmp_path, pig_model):
    pig_model("worker")
    planned = (Agent(LEARNED_CANONICAL, "0" * 64), run_agent(PIG, "hold"))
    record = play_task(GameTask(PIG, LEARNED, "hold", 0, 0, 0, agents=planned))
    assert record["error"]["kind"] == MISSING and record["returns"] is None
    assert f"sha256:{'0' * 64}" in record["error"]["message"]


# -- write, kill, resume ----------------------------------------------------------------------

# each pair in two spellings of the same agents: a resume may use either
SPELLINGS = [
    (("hold(n=8)", "hold(n=8)"), ("hold(n=8)", "hold(n=8)")),
    (("hold", "hold(n=20)"), ("hold(n=20)", "hold")),
    (("random", "random"), ("random", "random")),
    (("hold", "random"), ("hold(n=20)", "random")),
]
step = st.one_of(
    st.tuples(st.just("run"), st.integers(1, 4), st.integers(0, 1)),
    st.tuples(st.just("kill"), st.floats(0.0, 1.0), st.integers(0, 1)),
)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(spellings=st.sampled_from(SPELLINGS), steps=st.lists(step, min_size=1, max_size=5))
def test_write_kill_resume_sequences_count_each_game_once(tmp_path_factory, spellings, steps):
    """Runs of growing and shrinking length, resumed in either spelling of the pair, and kills
    that cut the file anywhere (a torn last line): after every run the file holds each game
    once, and exactly the games of the runs so far less those a kill cut off and no run
    played again; the run's counts agree."""
    out = tmp_path_factory.mktemp("resume") / "r.jsonl"
    have: set[tuple[int, int]] = set()
    for kind, amount, spelling in steps:
        if kind == "kill":
            data = out.read_bytes() if out.exists() else b""
            out.write_bytes(data[: int(len(data) * amount)])
            have = set(_complete_games(out.read_bytes()))
            continue
        matches = int(amount)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the torn line's warning
            result = run(
                RunConfig(GAME, [spellings[spelling]], matches, out=str(out), workers=1, seed=4)
            )
        wanted = {(m, i) for m in range(matches) for i in (0, 1)}
        assert result.played == len(wanted - have)
        assert result.resumed == len(wanted & have)
        have |= wanted
        keys = _keys(out)
        assert len(keys) == len(set(keys)) and set(keys) == have
        records = read_records(out)
        assert len({game_key(r) for r in records}) == len(records)
        assert unique_records(records)[1] == 0
        assert sum(p.games for p in result.tally.pairs()) == len(wanted)


def _complete_games(data: bytes) -> list[tuple[int, int]]:
    """(match, game index) of each complete line of a record file's bytes."""
    end = data.rfind(b"\n") + 1
    return [
        (record["match"], record["game_index"])
        for record in map(json.loads, data[:end].splitlines())
    ]


# -- committed records ------------------------------------------------------------------------

# report --json of committed record files of every format, as it has always been: per pair
# (A, B, matches, games, wins, draws, losses, whole matches), and the SHA-256 of the whole
# output (json.dumps with sorted keys)
COMMITTED = {
    "matches/cant_stop_depth/star2_d3_vs_d2.jsonl": (
        [("star2(max_depth=3,prune_min_depth=2)", "star2(max_depth=2,prune_min_depth=2)",
          20, 40, 22, 0, 18, 20)],
        "22ff1fbc694a28b82659521ff6878bf6d38cb54144db87326e8e2d712bb050b1",
    ),
    "figure2/mcms_sequential_ordered_dice/pig.jsonl": (
        [("star2ss(samples=18,time_ms=200,prune_min_depth=2,clock=cpu)",
          "star2(time_ms=200,prune_min_depth=2,clock=cpu)", 30, 60, 35, 0, 25, 30)],
        "a408542e41ce9dbccf60d1b219fcecc5fc3d7b8c94a4a41d09a4e8548339d1f1",
    ),
    "figure2/mcms_sequential_tuning/tune_ewn_expss.jsonl": (
        [("expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=1)",
          "expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=2)", 40, 80, 35, 0, 45, 40),
         ("expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=4)",
          "expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=8)", 40, 80, 39, 0, 41, 40),
         ("expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=2)",
          "expss(time_ms=200,prune_min_depth=2,clock=cpu,samples=8)", 40, 80, 39, 0, 41, 40)],
        "1da170325cf083747a3c2864f815d7ce29b977931c4194291130d2f6a5710fae",
    ),
    "values/strength/mcts_leaf_pig.jsonl": (
        [("mcts(rollout_depth=0,heuristic=learned,time_ms=200,clock=cpu)",
          "mcts(rollout_depth=0,time_ms=200,clock=cpu)", 30, 60, 32, 0, 28, 30)],
        "692a45458db4b630bac8318605a0bd3c6c3dfafdafe31cbd65b6c33ede1411c1",
    ),
    "values/deterministic/ra.jsonl": (
        [("star2(max_nodes=20000)", "expectimax(max_nodes=20000)", 60, 120, 66, 1, 53, 60)],
        "54f9340d430011fd46c4221e2272dc07bf1a8cd9951bcae4eb4c577d221b94ee",
    ),
}  # fmt: skip


def _committed(name: str) -> Path:
    """A committed record file, where the results live now (plain or compressed)."""
    for path in (ROOT / "results" / name, ROOT / "lab" / "results" / f"{name}.gz"):
        if path.exists():
            return path
    pytest.fail(f"committed record file {name} not found")


@pytest.mark.parametrize("name", sorted(COMMITTED))
def test_committed_records_report_as_before(capsys, name):
    pairs, digest = COMMITTED[name]
    summary = _report(capsys, _committed(name))
    (game,) = summary["games"]
    found = [
        (p["a"], p["b"], p["matches"], p["games"], p["wins"], p["draws"], p["losses"],
         p["whole_matches"])
        for p in game["pairs"]
    ]  # fmt: skip
    assert found == pairs
    assert not any("self_play" in p or "models" in p for p in game["pairs"])
    # the digest was taken before the report gained each pair's engines and each agent's
    # search rate: everything else must read as it did, floats to 9 significant digits (the
    # ratings come from scipy's optimiser, whose last bits change with its version)
    kept = _comparable(summary, {"engines", "nodes_per_s"})
    assert hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest() == digest


def _comparable(value: Any, keys: set[str]) -> Any:
    """`value` (decoded JSON) with the members named `keys` left out at every level and every
    float rounded to 9 significant digits."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: _comparable(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_comparable(v, keys) for v in value]
    return value


def test_keyed_records_appended_to_older_ones_are_one_run(tmp_path, capsys):
    """A file of format 3 (no keys) resumed: its games are found by the keys made from their
    fields, and the new records join them as one pair, each game once."""
    out = tmp_path / "old.jsonl"
    assert _match(out, "hold", "random", 3) == 0
    older = []
    for line in out.read_bytes().splitlines():
        record = json.loads(line)
        del record["key"]
        older.append(json.dumps({**record, "v": 3}, separators=(",", ":")))
    out.write_text("\n".join(older) + "\n")
    assert _match(out, "hold(n=20)", "random", 5) == 0
    text = capsys.readouterr().out
    assert "played 4 games in" in text and "; 6 games were already in the file" in text
    assert [r["v"] for r in read_records(out)] == [3] * 6 + [FORMAT_VERSION] * 4
    (pair,) = _report(capsys, out)["games"][0]["pairs"]
    assert (pair["games"], pair["matches"], pair["whole_matches"]) == (10, 5, 5)
