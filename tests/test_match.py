"""Matches: records, resumable files (kill, torn and corrupt lines), failures, workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import faulty_agents  # noqa: F401  (registers the test_* agents that fail on purpose)
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from chancespiel.agents import make_bot
from chancespiel.agents.mcts import DEFAULT_TIME_MS
from chancespiel.agents.search_common import Limits
from chancespiel.evaluation import cli
from chancespiel.evaluation.match import (
    LOST,
    GameTask,
    RecordFileError,
    RecordWriter,
    move_timing,
    parse_lines,
    play_task,
    read_records,
)
from chancespiel.evaluation.play import bot_seed, play_game, play_match
from chancespiel.evaluation.report import agent_stats
from chancespiel.evaluation.runner import RunConfig

GAME = "python_pig(winscore=20)"
SEARCHER = "expectimax(max_depth=2)"  # deterministic, reports nodes, about 5 ms a game
# what must be equal between two runs with the same seed (times are not)
SAME = ("game", "a", "b", "seed", "match", "game_index", "seats", "returns", "moves", "history")
SAME += ("nodes", "limit_ms", "error")


def _games(path: Path) -> list[dict]:
    records = read_records(path)
    keys = [(r["a"], r["b"], r["match"], r["game_index"]) for r in records]
    assert len(keys) == len(set(keys)), "a game is in the file twice"
    return sorted(
        ({k: r[k] for k in SAME} for r in records), key=lambda r: (r["match"], r["game_index"])
    )


def _match(out: Path, matches: int, *extra: str, a: str = SEARCHER, b: str = "hold(n=20)") -> int:
    args = ["match", GAME, a, b, "--matches", str(matches), "--out", str(out), "--no-progress"]
    return cli.main([*args, *extra])


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[dict]:
    """20 matches with seed 0 on one worker, uninterrupted."""
    out = tmp_path_factory.mktemp("reference") / "games.jsonl"
    assert _match(out, 20, "--workers", "1") == 0
    return _games(out)


def test_record_fields_and_seat_swap():
    first = play_task(GameTask(GAME, SEARCHER, "hold(n=20)", seed=5, match=2, game_index=0))
    second = play_task(GameTask(GAME, SEARCHER, "hold(n=20)", seed=5, match=2, game_index=1))
    assert first["seats"] == [SEARCHER, "hold(n=20)"]
    assert second["seats"] == ["hold(n=20)", SEARCHER]
    for record in (first, second):
        assert record["error"] is None and record["v"] == 5
        assert record["clocks"] == ["wall", "wall"]  # no budget of CPU time
        assert record["version"] and len(record["rules"]) == 16
        assert record["key"] == {
            "game": str(pyspiel.load_game(GAME)),
            "a": SEARCHER,
            "b": "hold",  # canonical: n=20 is hold's default
            "models": [None, None],
            "dice": 7,
            "game_index": record["game_index"],
        }
        assert record["moves"] == len(record["move_ms"][0]) + len(record["move_ms"][1])
        searcher = record["seats"].index(SEARCHER)
        assert len(record["nodes"][searcher]) == len(record["move_ms"][searcher])
        assert all(n > 0 for n in record["nodes"][searcher])
        assert record["nodes"][1 - searcher] is None  # hold reports no nodes
        assert len(record["evaluations"][searcher]) == len(record["move_ms"][searcher])
        assert all(
            0 <= e < n
            for e, n in zip(record["evaluations"][searcher], record["nodes"][searcher], strict=True)
        )
        assert record["evaluations"][1 - searcher] is None
        assert all(d >= 1 for d in record["depths"][searcher])
        assert len(record["depths"][searcher]) == len(record["move_ms"][searcher])
        assert record["depths"][1 - searcher] is None
        assert record["engine"] in ("compiled", "pure Python")
        assert record["load"] is None or record["load"] >= 0
        json.dumps(record)  # JSON-serializable
    # the record replays: the history is a legal game with these returns
    state = pyspiel.load_game(GAME).new_initial_state()
    for action in first["history"]:
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == first["returns"]


def test_play_task_is_play_match():
    game = pyspiel.load_game(GAME)
    pair = play_match(game, SEARCHER, "random", seed=7)
    for game_index, played in enumerate(pair):
        record = play_task(
            GameTask(GAME, SEARCHER, "random", seed=3, match=4, game_index=game_index)
        )
        assert record["history"] == played.history and record["returns"] == played.returns


def test_bot_seeds_differ_from_the_dice_seed():
    assert len({bot_seed(3, "a"), bot_seed(3, "b"), bot_seed(4, "a"), 3}) == 4
    assert bot_seed(3, "a") == bot_seed(3, "a") < 2**63


def test_results_do_not_depend_on_the_worker_count(tmp_path, reference):
    out = tmp_path / "two.jsonl"
    assert _match(out, 20, "--workers", "2") == 0
    assert _games(out) == reference


def test_sigkill_then_rerun_resumes_exactly(tmp_path, reference):
    out = tmp_path / "killed.jsonl"
    matches = 150
    command = [sys.executable, "-m", "chancespiel.evaluation.cli", "match", GAME, SEARCHER]
    command += ["hold(n=20)", "--matches", str(matches), "--out", str(out), "--workers", "2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 30:
                break
            time.sleep(0.005)
        assert process.poll() is None, "the run ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    lines = out.read_bytes().count(b"\n")
    assert 30 <= lines < 2 * matches, lines
    # the workers are orphans now; they must neither write nor linger
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    games = _games(out)  # no game twice
    assert len(games) == 2 * matches
    assert games[: len(reference)] == reference  # the same games as an uninterrupted run
    assert f"played {2 * matches - lines} games" in result.stdout
    # the killed run's workers noticed that their parent died, and exited
    deadline = time.monotonic() + 10
    while _processes_with(str(out)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_with(str(out)), "orphaned workers are still running"


def _processes_with(text: str) -> list[int]:
    """Ids of the processes whose command line contains `text` (Linux)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_torn_last_line_is_dropped_with_a_warning_and_replayed(tmp_path, reference, capsys):
    out = tmp_path / "torn.jsonl"
    assert _match(out, 20) == 0
    data = out.read_bytes()
    lines = data.splitlines(keepends=True)
    # a kill in the middle of writing the last game: half of its line, no newline
    out.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    capsys.readouterr()
    assert _match(out, 20) == 0
    captured = capsys.readouterr()
    assert f"line {len(lines)} is incomplete" in captured.err and "warning" in captured.err
    assert "played 1 games" in captured.out
    assert _games(out) == reference
    assert out.read_bytes().endswith(b"\n")


def test_a_whole_last_record_short_of_its_newline_is_kept(tmp_path, reference, capsys):
    """A record line whole but for its newline is a game played: kept by readers and by a
    resumed run, which ends the line before its next record; a run refused leaves it."""
    out = tmp_path / "newline.jsonl"
    assert _match(out, 20) == 0
    data = out.read_bytes()
    out.write_bytes(data[:-1])
    assert len(read_records(out)) == 40
    assert _match(out, 20, a="hold(n=20)", b=SEARCHER) == 2  # another run: refused, untouched
    assert out.read_bytes() == data[:-1]
    assert _match(out, 20) == 0 and out.read_bytes() == data[:-1]  # nothing to play
    capsys.readouterr()
    assert _match(out, 21) == 0
    captured = capsys.readouterr()
    assert "line 40 lacks its newline: its game is kept" in captured.err
    assert "played 2 games" in captured.out
    assert out.read_bytes().startswith(data) and _games(out)[:40] == reference


@pytest.mark.parametrize(
    "content",
    [
        b"my notes",
        b"results\nof last week",
        b'{"v"',  # too short to tell, in a file without a record: not cut
        b'{"v": 2, "name": "my config"}',  # a one-line JSON file of someone else's
        b'{"v":2,"name":"my config"}',  # whole JSON, compact, but not a record
        b'{"v":2,"game":"python_pig"',
    ],
)
def test_an_out_file_that_is_not_ours_is_refused_untouched(tmp_path, capsys, content):
    """Only a record cut short by our own write is dropped; anyone else's text is kept."""
    out = tmp_path / "notes.txt"
    out.write_bytes(content)
    ours = content.startswith(b'{"v":2,"game"')
    assert _match(out, 1) == (0 if ours else 2)
    if not ours:
        err = capsys.readouterr().err
        assert "line 1 is not" in err and len(err.strip().splitlines()) == 1
        assert out.read_bytes() == content


def test_reading_a_torn_file_warns_and_skips_the_line(tmp_path):
    out = tmp_path / "torn.jsonl"
    assert _match(out, 2) == 0
    with out.open("ab") as f:
        f.write(b'{"v": 1, "game": "pyth')
    with pytest.warns(UserWarning, match="incomplete"):
        assert len(read_records(out)) == 4
    assert cli.main(["report", str(out)]) == 0
    # bytes after the last newline that no record begins with: not a record file
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00 not a record")
    with pytest.raises(RecordFileError, match="line 1 is not a chancespiel game record"):
        read_records(binary)


def test_corrupt_middle_line_is_an_error_naming_it(tmp_path, capsys):
    out = tmp_path / "corrupt.jsonl"
    assert _match(out, 3) == 0
    lines = out.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"v": 1, "game": oops\n'
    out.write_bytes(b"".join(lines))
    before = out.read_bytes()
    assert _match(out, 5) == 2
    assert "line 3 is not valid JSON" in capsys.readouterr().err
    assert out.read_bytes() == before, "a refused run must not touch the file"
    assert cli.main(["report", str(out)]) == 2
    assert "line 3" in capsys.readouterr().err
    with pytest.raises(RecordFileError, match="line 2 is not a chancespiel game record"):
        parse_lines(lines[0] + b"[1, 2]\n", "f")


def test_a_half_played_match_gets_only_its_missing_game(tmp_path, reference, capsys):
    out = tmp_path / "half.jsonl"
    assert _match(out, 20) == 0
    lines = out.read_bytes().splitlines(keepends=True)
    records = [json.loads(line) for line in lines]
    # drop the second game of match 7: as if the kill came between its two games
    kept = [
        line
        for line, r in zip(lines, records, strict=True)
        if (r["match"], r["game_index"]) != (7, 1)
    ]
    out.write_bytes(b"".join(kept))
    capsys.readouterr()
    assert _match(out, 20) == 0
    assert "played 1 games" in capsys.readouterr().out
    assert _games(out) == reference


def test_more_matches_extend_the_file_and_fewer_play_nothing(tmp_path, reference, capsys):
    out = tmp_path / "grow.jsonl"
    assert _match(out, 5) == 0
    assert _match(out, 20) == 0
    assert _games(out) == reference
    capsys.readouterr()
    assert _match(out, 10) == 0
    text = capsys.readouterr().out
    assert "nothing to play" in text and "20 games of matches beyond 10" in text


@pytest.mark.parametrize(
    "change, problem",
    [
        (["--seed", "1"], "seed 0, not 1"),
        (["--matches", "3"], None),  # the same run, shorter: fine
    ],
)
def test_a_file_of_another_run_is_refused(tmp_path, capsys, change, problem):
    out = tmp_path / "run.jsonl"
    assert _match(out, 3) == 0
    args = ["match", GAME, SEARCHER, "hold(n=20)", "--matches", "3", "--out", str(out)]
    code = cli.main([*args, "--no-progress", *change])
    err = capsys.readouterr().err
    if problem is None:
        assert code == 0
    else:
        assert code == 2 and problem in err and "another run" in err


@pytest.mark.parametrize(
    "version, refused", [("0.1.0", True), (None, True), ("0.2.0", False), ("unknown", False)]
)
def test_records_of_the_former_sampled_search_are_not_resumed(tmp_path, capsys, version, refused):
    """Before 0.2.0 the same spec strings of sampled agents ran another search: a run never
    mixes the two (classic agents are unaffected)."""
    sampled = "expss(samples=2,max_depth=1)"
    for spec, affected in ((sampled, refused), ("expectimax(max_depth=1)", False)):
        out = tmp_path / f"{spec[:5]}{version}.jsonl"
        args = ["match", GAME, spec, "hold(n=20)", "--matches", "1", "--out", str(out)]
        assert cli.main([*args, "--no-progress"]) == 0
        lines = out.read_text().splitlines()
        records = [json.loads(line) for line in lines]
        for record in records:
            if version is None:  # format 1: no version, no rules digest
                for key in ("v", "version", "rules"):
                    del record[key]
            else:
                record["version"] = version
        out.write_text("".join(json.dumps(r) + "\n" for r in records))
        before = out.read_bytes()
        capsys.readouterr()
        code = cli.main([*args[:-4], "--matches", "2", "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        if affected:
            assert code == 2 and "sampled search" in err, err
            assert "resume it with the version that wrote it" in err, err
            assert out.read_bytes() == before
        else:
            assert code == 0, err


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"v": 99}, "record format 99, newer than this chancespiel's"),
        ({"version": "99.0.0"}, "version 99.0.0, newer than this chancespiel's"),
        ({"version": "abc"}, "version 'abc', which is not a version number"),
        ({"version": "v0.2.0"}, "version 'v0.2.0', which is not a version number"),
        ({"version": "0.3.0.dev1"}, None),
        ({"version": "unknown"}, None),
    ],
)
def test_records_of_a_newer_or_unreadable_version_are_not_extended(
    tmp_path, capsys, change, problem
):
    """A newer chancespiel may play other searches under the same specs (and write records
    otherwise): its records are not extended by this one, nor those whose version is not one."""
    out = tmp_path / "run.jsonl"
    assert _match(out, 1) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    out.write_text("".join(json.dumps({**r, **change}) + "\n" for r in records))
    before = out.read_bytes()
    capsys.readouterr()
    code = _match(out, 2)
    printed, err = capsys.readouterr()
    if problem is None:
        assert code == 0, err
        assert printed.startswith(f"{GAME}: ") and "records in" in printed.splitlines()[0]
    else:
        # the one-line error alone: no header of a run that does not start
        assert code == 2 and problem in err and err.count("\n") == 1, err
        assert "resume it with the version that wrote it" in err
        assert printed == "" and out.read_bytes() == before


@pytest.mark.parametrize(
    "version, refused",
    [("0.2.0", True), ("0.3.0", True), ("0.3.9", True), ("0.4.0", True), ("0.5.0", False)],
)
def test_records_of_the_former_hybrid_are_not_resumed(tmp_path, capsys, version, refused):
    """Before 0.3.0 star1hs's and star2hs's spec strings ran another search (systematic
    draws, without fit_within_ply, classic_within_ply and growth_two_back), before 0.4.0
    another again (without first_cap_two_back), and before 0.5.0 one that sampled nodes its
    width nearly covers: a run never mixes them, whichever options its spec names (exphs,
    unchanged, is unaffected)."""
    for spec, affected in (
        ("star2hs(samples=2,max_depth=1)", refused),
        ("star1hs(samples=2,max_depth=1,stratified=true)", refused),
        ("exphs(samples=2,max_depth=1)", False),
    ):
        out = tmp_path / f"{spec[:5]}{version}.jsonl"
        args = ["match", GAME, spec, "hold(n=20)", "--matches", "1", "--out", str(out)]
        assert cli.main([*args, "--no-progress"]) == 0
        records = [json.loads(line) for line in out.read_text().splitlines()]
        out.write_text("".join(json.dumps({**r, "version": version}) + "\n" for r in records))
        before = out.read_bytes()
        capsys.readouterr()
        code = cli.main([*args[:-4], "--matches", "2", "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        if affected:
            assert code == 2 and f"version {version}, whose hybrid sampled search" in err, err
            assert err.count("\n") == 1 and out.read_bytes() == before, err
        else:
            assert code == 0, err


def test_swapped_or_other_specs_are_refused(tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    assert _match(out, 2) == 0
    assert _match(out, 2, a="hold(n=20)", b=SEARCHER) == 2
    assert "which this run does not play" in capsys.readouterr().err
    assert cli.main(["match", "python_pig(winscore=30)", SEARCHER, "hold", "--matches", "1",
                     "--out", str(out)]) == 2  # fmt: skip
    assert "game 'python_pig(winscore=20)'" in capsys.readouterr().err


def test_an_unwritable_output_is_a_clear_error(tmp_path, capsys):
    assert _match(tmp_path / "no" / "such" / "dir.jsonl", 1) == 2
    assert "cannot open" in capsys.readouterr().err


def test_a_file_is_locked_while_a_run_writes_it(tmp_path):
    out = tmp_path / "locked.jsonl"
    with RecordWriter(out), pytest.raises(RecordFileError, match="another command"):
        RecordWriter(out)
    RecordWriter(out).close()


@pytest.mark.parametrize(
    "args, message",
    [
        (["match", "no_such_game", "random", "random"], "unknown game 'no_such_game'"),
        (["match", "python_pig(dice=3)", "random", "random"], "dice must be in"),
        (["match", GAME, "nosuch", "random"], "unknown agent 'nosuch'"),
        (["match", GAME, "random", "hold(m=3)"], "unknown parameter(s) ['m']"),
        (["match", GAME, "random", "hold(n=0)"], "n must be in [1, "),
        (["match", GAME, "random", "hold(n=x)"], "must be of type int"),
        (["match", "python_cant_stop", "random", "hold"], "plays only python_pig"),
        (["match", GAME, "random", "random", "--sprt", "10,0"], "elo0 < elo1"),
        (["match", GAME, "random", "random", "--address", "x:1"], "--address is for"),
        (["tournament", GAME, "random", "random"], "two distinct agent specs"),
        (["tournament", GAME, "random", "hold", "bad(("], "malformed agent spec"),
        (["tune", GAME, "hold", "--param", "n=5,0"], "n must be in [1, "),
        (["tune", GAME, "hold", "--param", "m=5,6"], "unknown parameter(s) ['m']"),
        (["tune", GAME, "hold(n=3)", "--param", "n=5,6"], "both fixed in"),
        (["tune", GAME, "hold", "--param", "n5"], "expected name=v1,v2"),
        (["tune", GAME, "hold", "--param", "n=5"], "at least two candidates"),
    ],
)
def test_bad_input_fails_before_any_game(tmp_path, capsys, args, message):
    out = tmp_path / "never.jsonl"
    code = cli.main([*args, "--matches", "2", "--out", str(out)])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists(), "no file may be written before the input is checked"


def test_a_raising_agent_forfeits_and_the_run_goes_on(tmp_path, capsys):
    out = tmp_path / "raise.jsonl"
    assert _match(out, 4, a="test_raise(on_move=2)", b="random") == 0
    records = read_records(out)
    assert len(records) == 8
    failed = [r for r in records if r["error"] is not None]
    assert failed, "random Pig games to 20 last more than 2 moves of each player"
    for r in failed:
        seat = r["error"]["seat"]
        assert r["seats"][seat] == "test_raise(on_move=2)"
        assert r["error"]["kind"] == "RuntimeError"
        assert "deliberate failure on move 2" in r["error"]["message"]
        assert r["returns"][seat] == -1.0 and r["returns"][1 - seat] == 1.0
    text = capsys.readouterr().out
    assert f"FAILED: test_raise(on_move=2) forfeited {len(failed)} game(s): RuntimeError" in text
    assert "of 8 games" in text


def test_a_dying_worker_is_replaced_its_game_unscored_and_played_again_on_resume(tmp_path, capsys):
    out = tmp_path / "exit.jsonl"
    assert _match(out, 3, "--workers", "2", a="test_exit(on_move=1)", b="random") == 0
    records = read_records(out)
    assert len(records) == 6
    crashed = [r for r in records if r["error"] is not None]
    assert len(crashed) >= 3, "test_exit moves first in half of the games"
    for r in crashed:
        assert r["error"]["kind"] == LOST and r["error"]["seat"] is None
        assert "exit code 3" in r["error"]["message"] and r["returns"] is None
    assert all(r["returns"] is not None for r in records if r["error"] is None)
    text = capsys.readouterr().out
    assert f"CRASHED: {len(crashed)} unscored games" in text
    assert f"of {6 - len(crashed)} games" in text
    # the rerun plays exactly the lost games again (here they die again: still unscored, and
    # each game is counted once)
    assert _match(out, 3, "--workers", "2", a="test_exit(on_move=1)", b="random") == 0
    assert f"played {len(crashed)} games" in capsys.readouterr().out
    assert len(read_records(out)) == 6 + len(crashed)
    assert cli.main(["report", str(out)]) == 0
    assert f"of {6 - len(crashed)} games" in capsys.readouterr().out


def test_a_hanging_move_is_stopped_and_forfeited(tmp_path, capsys):
    out = tmp_path / "hang.jsonl"
    spec = "test_hang(on_move=1,ms=30000)"
    start = time.monotonic()
    assert _match(out, 2, "--move-timeout-s", "0.2", a=spec, b="random") == 0
    assert time.monotonic() - start < 20
    records = read_records(out)
    assert len(records) == 4
    hung = [r for r in records if r["error"] is not None]
    assert len(hung) >= 2, "test_hang moves first in half of the games"
    for r in hung:
        assert r["error"]["kind"] == "MoveTimeoutError" and r["error"]["spec"] == spec
        assert r["returns"][r["error"]["seat"]] == -1.0
    for r in records:
        if r["error"] is None:  # the game ended before test_hang's first move
            assert r["move_ms"][r["seats"].index(spec)] == []
    assert "hard limit of 0.2 s" in capsys.readouterr().out


def test_a_move_the_alarm_cannot_stop_kills_its_worker_and_forfeits(tmp_path, capsys):
    """SIGALRM masked stands in for a search in native code, which the alarm cannot interrupt:
    the parent kills the worker, and the games on the other worker go on."""
    out = tmp_path / "stuck.jsonl"
    spec = "test_stuck(on_move=1,seat=1)"  # stuck in game 1 of each match, random in game 0
    args = ("--workers", "2", "--move-timeout-s", "0.5")
    start = time.monotonic()
    assert _match(out, 2, *args, a=spec, b="random") == 0
    assert time.monotonic() - start < 20
    records = read_records(out)
    assert sorted((r["match"], r["game_index"]) for r in records) == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    ]
    for r in records:
        if r["game_index"] == 0:
            assert r["error"] is None and r["moves"] > 0 and sorted(r["returns"]) == [-1.0, 1.0]
            continue
        assert r["returns"] == [1.0, -1.0]
        error = r["error"]
        assert (error["seat"], error["spec"], error["kind"]) == (1, spec, "MoveTimeoutError")
        assert "hard limit of 0.5 s" in error["message"]
        assert "worker process was killed after 2.5 s" in error["message"]
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    assert f"{spec} forfeited 2 game(s): MoveTimeoutError" in capsys.readouterr().out
    assert _match(out, 2, *args, a=spec, b="random") == 0
    assert "nothing to play: all 4 games were in the file" in capsys.readouterr().out


def test_overruns_are_counted_per_agent(tmp_path, capsys):
    out = tmp_path / "slow.jsonl"
    spec = "test_slow(ms=25,time_ms=5)"
    assert _match(out, 3, "--overrun-ms", "10", a=spec, b="random") == 0
    records = read_records(out)
    total = 0
    for r in records:
        seat = r["seats"].index(spec)
        assert r["limit_ms"][seat] == 5.0 and r["overrun_ms"] == 10.0
        assert r["overruns"][seat] == len(r["move_ms"][seat])  # every move sleeps 25 ms
        assert r["overruns"][1 - seat] == 0 and r["limit_ms"][1 - seat] is None
        total += r["overruns"][seat]
    assert total > 0
    text = capsys.readouterr().out
    row = next(line.split() for line in text.splitlines() if line.split()[:2] == [spec, str(total)])
    assert row[6] == str(total)  # moves, mean, p99, max, limit, overruns
    assert "an overrun is a move longer than limit + 10 ms" in text


def test_the_report_gives_each_agents_mean_depth(tmp_path, capsys):
    out = tmp_path / "depth.jsonl"
    spec = "star2(max_depth=3)"  # every search completes depth 3, or ends the game earlier
    assert _match(out, 2, a=spec, b="hold(n=20)") == 0
    depths = [d for r in read_records(out) for d in r["depths"][r["seats"].index(spec)] or []]
    assert depths and set(depths) <= {1, 2, 3} and 3 in depths
    [stats] = [s for s in agent_stats(read_records(out)) if s.spec == spec]
    assert stats.as_dict()["mean_depth"] == pytest.approx(sum(depths) / len(depths))
    text = capsys.readouterr().out
    moves = str(len(depths))
    row = next(ln.split() for ln in text.splitlines() if ln.split()[:2] == [spec, moves])
    assert float(row[-2]) == pytest.approx(sum(depths) / len(depths), abs=0.005)


def test_the_report_gives_each_agents_search_rate(tmp_path, capsys):
    """Nodes per second over the moves that counted nodes, beside the depth."""
    out = tmp_path / "rate.jsonl"
    spec = "star2(max_depth=2)"
    assert _match(out, 2, "--workers", "1", a=spec, b="hold(n=20)") == 0
    records = read_records(out)
    first = next(r for r in records if r["nodes"][r["seats"].index(spec)])
    seat = first["seats"].index(spec)
    first["nodes"][seat][0] = None  # a move without a count: its time is not the search's
    first["move_ms"][seat][0] = 1e6
    nodes = ms = 0.0
    for r in records:
        mine = r["seats"].index(spec)
        for count, time_ms in zip(r["nodes"][mine] or [], r["move_ms"][mine], strict=False):
            if count is not None:
                nodes, ms = nodes + count, ms + time_ms
    rates = {s.spec: s.as_dict()["nodes_per_s"] for s in agent_stats(records)}
    assert rates[spec] == pytest.approx(1000 * nodes / ms) and rates["hold(n=20)"] is None
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if "mean depth" in line)
    assert lines[header].split()[-3:] == ["mean", "depth", "nodes/s"]
    rows = {line.split()[0]: line.split() for line in lines[header + 1 : header + 3]}
    assert float(rows[spec][-1].replace(",", "")) == pytest.approx(1000 * nodes / ms, abs=0.5)
    assert rows["hold(n=20)"][-1] == "-"


def test_the_report_flags_a_pairing_whose_games_mix_engines(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert _match(out, 2, "--workers", "1") == 0
    records = read_records(out)
    assert len({r["engine"] for r in records}) == 1
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    assert "MIXED ENGINES" not in capsys.readouterr().out
    # as if the file had been resumed on the other engine
    other = "pure Python" if records[0]["engine"] == "compiled" else "compiled"
    records[-1]["engine"] = other
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert cli.main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "MIXED ENGINES: these games were played by the compiled and the pure Python" in text
    counts = {records[0]["engine"]: len(records) - 1, other: 1}
    shown = ", ".join(f"{counts[engine]} {engine}" for engine in sorted(counts))
    assert f"    {SEARCHER} vs hold(n=20): {shown}  <- mixed" in text.splitlines()
    assert cli.main(["report", "--json", str(out)]) == 0
    [game] = json.loads(capsys.readouterr().out)["games"]
    assert game["engines"] == counts
    assert game["pairs"][0]["engines"] == game["engines"]


def test_star_bots_report_their_default_budget():
    record = play_task(GameTask(GAME, "star2(max_depth=1,time_ms=40)", "hold", 0, 0, 0))
    assert record["limit_ms"] == [40.0, None]
    default = play_task(GameTask(GAME, "star2", "hold", 0, 0, 0, move_timeout_s=None))
    assert default["limit_ms"] == [200.0, None]


@pytest.mark.parametrize(
    "spec, limits",
    [
        ("star2", Limits(time_ms=200.0)),
        ("expss(samples=3,max_nodes=50,clock=cpu)", Limits(max_nodes=50, clock="cpu")),
        ("bab(max_depth=2)", Limits(max_depth=2)),
        ("mcts", Limits(time_ms=DEFAULT_TIME_MS)),
        ("dpw(max_simulations=30,max_nodes=9)", Limits(max_simulations=30, max_nodes=9)),
        ("mc(max_simulations=7)", Limits(max_simulations=7)),
        ("openspiel_mcts(max_simulations=5)", Limits(max_simulations=5)),
        ("hold", None),
    ],
)
def test_every_searching_bot_keeps_its_limits_and_the_runner_reads_them(spec, limits):
    bot = make_bot(spec, pyspiel.load_game(GAME), 0, 0)
    assert bot.limits == limits
    time_ms = None if limits is None else limits.time_ms
    assert move_timing(spec, bot)[0] == time_ms


@pytest.mark.parametrize(
    "limits, problem",
    [
        (dict(max_depth=0), "max_depth must be >= 1, got 0"),
        (dict(max_simulations=-1), "max_simulations must be >= 1"),
        (dict(max_nodes=0), "max_nodes must be >= 1"),
        (dict(time_ms=float("nan")), "time_ms must be > 0"),
        (dict(time_ms=5, clock="sundial"), "clock must be one of wall, cpu"),
    ],
)
def test_limits_name_the_first_bad_one(limits, problem):
    with pytest.raises(ValueError, match=problem):
        Limits(**limits)


def test_an_illegal_action_forfeits():
    record = play_task(GameTask(GAME, "test_illegal(on_move=1)", "hold", 0, 0, 0))
    assert record["error"]["kind"] == "IllegalActionError" and record["error"]["seat"] == 0
    assert "illegal action 99" in record["error"]["message"]
    assert record["returns"] == [-1.0, 1.0]


def test_play_game_raises_bot_errors_unless_asked():
    game = pyspiel.load_game(GAME)
    bots = [make_bot("test_raise(on_move=1)", game, 0, 1), make_bot("random", game, 1, 2)]
    with pytest.raises(RuntimeError, match="deliberate"):
        play_game(game, bots, seed=0)
    bots = [make_bot("test_raise(on_move=1)", game, 0, 1), make_bot("random", game, 1, 2)]
    record = play_game(game, bots, seed=0, catch_errors=True)
    assert record.failure is not None and record.failure.player == 0
    assert record.returns == [-1.0, 1.0]


@pytest.mark.parametrize("game_string", ["python_pig(winscore=30)", "pig(winscore=30)"])
def test_our_bots_play_in_openspiel_evaluate_bots(game_string):
    game = pyspiel.load_game(game_string)
    specs = ["random", "star2(max_depth=2)", "expss(max_depth=2,samples=3)"]
    if game_string.startswith("python_pig"):
        specs += ["hold(n=10)", "pig_optimal"]
    rng = np.random.RandomState(3)
    for i, spec in enumerate(specs):
        other = specs[(i + 1) % len(specs)]
        bots = [make_bot(spec, game, 0, seed=i), make_bot(other, game, 1, seed=i + 1)]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        assert sorted(returns) == [-1.0, 1.0]


def test_ctrl_c_stops_cleanly_and_the_rerun_completes(tmp_path):
    out = tmp_path / "interrupted.jsonl"
    # a searcher of about 30 ms a game, and far more matches than can be played before the
    # signal even on a loaded machine (a run that ended first would not see the signal)
    slow = "expectimax(max_depth=3)"
    command = [sys.executable, "-m", "chancespiel.evaluation.cli", "match", GAME, slow]
    command += ["hold(n=20)", "--out", str(out), "--workers", "2"]
    interrupted = [*command, "--matches", "5000"]
    # a terminal sends SIGINT to the whole foreground process group
    process = subprocess.Popen(
        interrupted,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 10:
            break
        time.sleep(0.005)
    if process.poll() is not None:
        _, err = process.communicate()
        raise AssertionError(f"the run ended before it could be interrupted: {err}")
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "interrupted" in err and "run the same command to resume" in err
    assert out.read_bytes().endswith(b"\n")
    first = len(_games(out))
    assert 10 <= first < 10_000
    # the rest of the first 150 matches, resumed from the interrupted file
    rerun = subprocess.run([*command, "--matches", "150"], capture_output=True, timeout=120)
    assert rerun.returncode == 0
    games = _games(out)
    counted = [(g["match"], g["game_index"]) for g in games if g["match"] < 150]
    assert sorted(counted) == [(m, i) for m in range(150) for i in (0, 1)]


def test_a_game_written_twice_is_counted_once(tmp_path, capsys):
    out = tmp_path / "twice.jsonl"
    assert _match(out, 3) == 0
    with out.open("ab") as f:
        f.write(out.read_bytes().splitlines(keepends=True)[2])
    capsys.readouterr()
    assert _match(out, 3) == 0
    captured = capsys.readouterr()
    assert "1 game(s) appear more than once" in captured.err
    assert "nothing to play" in captured.out and "of 6 games" in captured.out


def _run_on(out: Path, a: str, b: str, seed: int, matches: int = 5) -> None:
    argv = ["match", GAME, a, b, "--matches", str(matches), "--seed", str(seed)]
    assert cli.main([*argv, "--workers", "1", "--no-progress", "--out", str(out)]) == 0


def test_overlapping_seed_ranges_count_each_game_once(tmp_path, capsys):
    """Match m of a run with seed s plays on the dice of s + m: runs with seeds 0 and 3 (five
    matches each) share two matches. The swapped pair on seed 0 seats the same agents on the
    same dice, but its bots' seeds follow their side: ten other games, counted with a
    warning that they are not independent evidence."""
    _run_on(tmp_path / "s0.jsonl", "hold(n=10)", "hold(n=15)", 0)
    _run_on(tmp_path / "s3.jsonl", "hold(n=10)", "hold(n=15)", 3)
    _run_on(tmp_path / "swapped.jsonl", "hold(n=15)", "hold(n=10)", 0)
    capsys.readouterr()
    assert cli.main(["report", *(str(tmp_path / f) for f in ("s0.jsonl", "s3.jsonl"))]) == 0
    out, err = capsys.readouterr()
    assert "16 games" in out and "4 game(s) appear more than once" in err
    assert "another pairing" not in err
    assert cli.main(["report", str(tmp_path / "s0.jsonl"), str(tmp_path / "swapped.jsonl")]) == 0
    out, err = capsys.readouterr()
    assert "20 games" in out and "more than once" not in err
    assert "20 game(s) seat the same agents on the same dice as a game of another pairing" in err


def test_two_results_of_one_game_are_refused(tmp_path, capsys):
    """Timed agents can play one game (one key) two ways: overlapping runs are then not
    independent evidence, and the report says so in one line."""
    _run_on(tmp_path / "ab.jsonl", "random", "hold(n=15)", 0, matches=3)
    lines = (tmp_path / "ab.jsonl").read_bytes().splitlines()
    first, other = json.loads(lines[0]), json.loads(lines[-1])
    assert (first["match"], first["game_index"]) != (other["match"], other["game_index"])
    for field in ("returns", "moves", "history", "move_ms", "nodes", "depths", "evaluations"):
        first[field] = other[field]  # the same game (its key), other moves
    (tmp_path / "again.jsonl").write_text(json.dumps(first) + "\n")
    capsys.readouterr()
    assert cli.main(["report", str(tmp_path / "ab.jsonl"), str(tmp_path / "again.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "is two different games" in err and "seed ranges overlap" in err
    assert len(err.strip().splitlines()) == 1


def test_a_negative_seed_is_refused_by_the_python_api():
    with pytest.raises(ValueError, match="seed must be >= 0"):
        RunConfig(GAME, [("random", "random")], 1, seed=-1)


# A bot that keeps its budget, as ours do, and one that keeps none, as a plugin's may: then
# its spec's clock times it, as its spec's time_ms is its limit.
@pytest.mark.parametrize("keeps", ["", ",keeps=false"])
def test_moves_are_timed_on_the_clock_of_the_budget(tmp_path, capsys, keeps):
    """A move of an agent whose budget is CPU time is timed on the CPU: a move that sleeps
    (the wall clock runs, the CPU's does not) is no overrun of it, and its record says so."""
    out = tmp_path / "cpu.jsonl"
    spec = f"test_slow(ms=120,time_ms=5,clock=cpu{keeps})"
    assert (
        _match(out, 1, "--overrun-ms", "10", a=spec, b=f"test_slow(ms=120,time_ms=5{keeps})") == 0
    )
    for r in read_records(out):
        cpu = r["seats"].index(spec)
        assert r["clocks"][cpu] == "cpu" and r["clocks"][1 - cpu] == "wall"
        assert r["overruns"][cpu] == 0 and max(r["move_ms"][cpu]) < 100
        assert r["overruns"][1 - cpu] == len(r["move_ms"][1 - cpu]) > 0
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    assert f"(times and nodes/s on the CPU clock, as the budget: {spec})" in capsys.readouterr().out


def test_a_refused_file_gets_its_error_alone(tmp_path, capsys):
    """`match` and `tournament` print their header once the file is found to be the run's:
    a file of another run gets the one-line error and nothing on stdout."""
    out = tmp_path / "run.jsonl"
    assert _match(out, 1) == 0
    before = out.read_bytes()
    capsys.readouterr()
    for argv in (
        ["match", GAME, SEARCHER, "hold(n=25)", "--matches", "1"],
        ["tournament", GAME, SEARCHER, "hold(n=25)", "random", "--matches", "1"],
    ):
        code = cli.main([*argv, "--out", str(out), "--no-progress"])
        printed, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1 and "another" in err, err
        assert printed == "" and out.read_bytes() == before
