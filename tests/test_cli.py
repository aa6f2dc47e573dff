"""The command line as a whole: entry points, help with defaults, fresh outputs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from chancespiel.agents import AGENTS
from chancespiel.evaluation import cli


def test_python_dash_m_chancespiel_is_the_chancespiel_command():
    done = subprocess.run(
        [sys.executable, "-m", "chancespiel", "solve", "pig", "--dice", "1", "--winscore", "20",
         "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout)["first_player_win_probability"] == pytest.approx(
        0.615559, abs=1e-6
    )  # Neller and Presser


@pytest.mark.parametrize("command", [["match"], ["experiment", "figure2"], ["demo"], ["solve"]])
def test_help_shows_defaults(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    assert "(default: " in capsys.readouterr().out


def test_match_without_out_writes_a_new_record_file_and_says_where(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["match", "python_pig", "hold(n=20)", "random", "--matches", "2", "--workers", "1"]
    for _ in range(2):
        assert cli.main([*argv, "--no-progress"]) == 0
    files = sorted((tmp_path / "results" / "match").glob("run-*.jsonl"))
    assert len(files) == 2  # a rerun never appends to (or overwrites) the first run's file
    assert all(len(f.read_text().splitlines()) == 4 for f in files)
    assert str(files[1].relative_to(tmp_path)) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["play", "python_pgi", "random", "random"], "did you mean python_pig"),
        (["play", "python_pig(dcie=2)", "random", "random"], "unknown parameter(s) dcie"),
        (["play", "python_pig", "stra2", "random"], "did you mean star2"),
    ],
)
def test_unknown_names_suggest_a_few_close_ones(argv, expected, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.splitlines()) == 1
    assert "tic_tac_toe" not in err  # not OpenSpiel's whole list of games


def test_ctrl_c_is_one_line_and_status_130():
    """SIGINT during a game (the second seat searches for a minute a move): no traceback, the
    shell's status for it, at once."""
    player = subprocess.Popen(
        [sys.executable, "-u", "-m", "chancespiel", "play", "python_pig", "random",
         "star2(time_ms=60000)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert player.stdout is not None
    player.stdout.readline()  # the first move is shown: the game is under way
    player.send_signal(signal.SIGINT)
    _, err = player.communicate(timeout=30)
    assert player.returncode == 130
    assert err.strip() == "chancespiel: interrupted"


@pytest.mark.parametrize("searcher", ["mcts", "expss(samples=3)", "star2"])
def test_ctrl_c_stops_a_compiled_search_at_once(searcher):
    """SIGINT during a minute's search of `analyse`: the compiled engine never enters the
    interpreter, where Python raises the interrupt, but where a search polls for it (every
    256 nodes or simulations); it used to run to its budget (MCTS, the sampled searches)."""
    spec = f"{searcher[:-1]},time_ms=60000)" if "(" in searcher else f"{searcher}(time_ms=60000)"
    searching = subprocess.Popen(
        [sys.executable, "-m", "chancespiel", "analyse", "python_pig", "--agent", spec],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(4)  # (a start that takes longer under load is interrupted as the other test's)
    sent = time.perf_counter()
    searching.send_signal(signal.SIGINT)
    _, err = searching.communicate(timeout=60)
    assert time.perf_counter() - sent < 5  # (the sampled search took 10 s to see it)
    assert searching.returncode == 130
    assert err.strip() == "chancespiel: interrupted"


def test_ctrl_c_while_the_command_starts_is_one_line_and_status_130():
    """SIGINT while the command is still importing (pyspiel, the agents): the same one line,
    never a traceback from the middle of an import (the first tenth of a second, Python's own
    start, is Python's: measured here, since under load it takes several times as long).
    Whichever way it ends, the shell reports 130."""
    begun = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python_start = time.perf_counter() - begun
    for delay in (0.2, 0.4, 0.6, 0.8, 1.1, 1.4):
        delay += python_start
        started = subprocess.Popen(
            [sys.executable, "-m", "chancespiel", "games"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(delay)
        started.send_signal(signal.SIGINT)
        _, err = started.communicate(timeout=60)
        assert "Traceback" not in err, (delay, err)
        assert started.returncode in (0, 130, -signal.SIGINT), (delay, err)
        if started.returncode == 130:
            assert err.strip() == "chancespiel: interrupted", (delay, err)


def test_play_stops_a_move_past_the_limit_as_a_forfeit(capsys):
    argv = ["play", "python_pig", "star2(time_ms=20000)", "random", "--move-timeout-s", "0.3"]
    assert cli.main([*argv, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "player 0 (star2(time_ms=20000)) forfeits: MoveTimeoutError" in out
    assert "winner: player 1 (random)" in out


@pytest.mark.parametrize(
    "spec, kind",
    [
        ("test_stuck(on_move=1)", "MoveTimeoutError"),  # as in native code: no alarm runs
        ("test_hang(on_move=1,ms=30000)", "MoveTimeoutError"),
        ("test_raise(on_move=1)", "RuntimeError"),
    ],
)
def test_play_forfeits_a_stuck_or_failing_agent_in_bounded_time(capsys, spec, kind):
    import faulty_agents  # noqa: F401  (registers the test_* agents)

    start = time.monotonic()
    argv = ["play", "python_pig", spec, "random", "--move-timeout-s", "0.3", "--quiet"]
    assert cli.main(argv) == 0
    assert time.monotonic() - start < 15
    out = capsys.readouterr().out
    assert f"player 0 ({spec}) forfeits: {kind}" in out and "winner: player 1 (random)" in out


def test_replay_prints_a_recorded_game_with_times_and_nodes(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    argv = ["match", "python_pig(winscore=20)", "star2(max_depth=2)", "hold(n=10)"]
    assert (
        cli.main([*argv, "--matches", "1", "--workers", "1", "--no-progress", "--out", str(out)])
        == 0
    )
    capsys.readouterr()
    assert cli.main(["replay", str(out), "--line", "2"]) == 0
    text = capsys.readouterr().out
    record = [json.loads(line) for line in out.read_text().splitlines()][1]
    moves = [line for line in text.splitlines() if line.startswith("  player ")]
    assert len(moves) == record["moves"]
    searched = [line for line in moves if "(star2(max_depth=2))" in line]
    assert searched and all(" ms, " in line and " nodes)" in line for line in searched)
    assert text.rstrip().endswith(f"returns: {record['returns']}")
    assert cli.main(["replay", str(out), "--line", "3"]) == 2
    assert "no game record on line 3 (its 2 records are on lines 1 to 2)" in capsys.readouterr().err


def test_replay_and_annotate_take_the_line_an_editor_shows(tmp_path, capsys):
    """--line is the file's line, blank lines counted: never the record on another line."""
    out = tmp_path / "m.jsonl"
    argv = ["match", "python_pig(winscore=20)", "hold(n=10)", "random", "--matches", "1"]
    assert cli.main([*argv, "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    first, second = out.read_text().splitlines(keepends=True)
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text(f"\n{first}\n{second}")  # records on lines 2 and 4
    capsys.readouterr()
    for command in ("replay", "annotate"):
        assert cli.main([command, str(spaced), "--line", "4"]) == 0, command
        assert "match 0 game 1 (seed 0)" in capsys.readouterr().out.splitlines()[0]
        assert cli.main([command, str(spaced), "--line", "3"]) == 2
        assert "no game record on line 3 (its 2 records are on lines 2 to 4)" in (
            capsys.readouterr().err
        )
    assert cli.main(["replay", str(spaced)]) == 0  # without --line: the first record
    assert "match 0 game 0 (seed 0)" in capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize(
    "game, agents, words",
    [
        (
            "python_pig(winscore=20)",
            ["hold(n=10)", "hold(n=5)"],
            "(bust: player 0 loses the turn total",
        ),
        ("pig(winscore=20)", ["hold(n=10)", "hold(n=5)"], "(bust: player 0 loses the turn total"),
        ("python_cant_stop", ["random", "random"], "(bust"),
        ("python_cant_stop", ["random", "random"], "(forced: the only legal move)"),
    ],
)
def test_play_announces_busts_and_forced_moves(capsys, game, agents, words):
    assert cli.main(["play", game, *agents, "--seed", "2"]) == 0
    assert words in capsys.readouterr().out


def test_agents_with_a_name_shows_that_agents_parameters(capsys):
    assert cli.main(["agents", "star2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("star2: Star2 (Star1 plus probing")
    assert all(line.startswith("    ") for line in lines[1:])  # its parameters only
    shown = {line.split("=")[0].strip() for line in lines[1:]}
    assert shown == set(AGENTS["star2"].params)
    assert any(line.startswith("    max_depth=None  deepest iteration") and "(in [1, 100])" in line
               for line in lines)  # fmt: skip
    assert cli.main(["agents", "hold(n=25)"]) == 0  # a spec names its agent
    assert capsys.readouterr().out.startswith("hold: Pig: roll until")
    assert cli.main(["agents", "stra2"]) == 2
    assert "unknown agent 'stra2' (did you mean star2" in capsys.readouterr().err
