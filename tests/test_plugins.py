"""A researcher's own games, agents and heuristics: `--import`, CHANCESPIEL_IMPORT, workers that
lack a plugin, records read without the code, and hooks that see the user's own states.

The example plugin (examples/dice_race.py) is run in fresh processes, as a user would run it,
so this test process's registries stay as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

from chancespiel.agents import register_agent
from chancespiel.agents.baselines import RandomBot
from chancespiel.evaluation import cli
from chancespiel.evaluation.match import GameTask, play_task, read_records
from chancespiel.evaluation.parallel import LocalPool
from chancespiel.evaluation.runner import RunConfig, RunStoppedError, run

EXAMPLE = Path(__file__).parent.parent / "examples" / "dice_race.py"
GAME = "example_dice_race"


def _chancespiel(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "chancespiel", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_the_example_plugin_runs_through_every_command(tmp_path):
    out = tmp_path / "race.jsonl"
    imported = ["--import", str(EXAMPLE)]
    played = _chancespiel(
        *imported, "match", GAME, "star2(max_depth=2)", "example_hold", "--matches", "4",
        "--workers", "2", "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    records = read_records(out)
    assert len(records) == 8 and all(r["error"] is None for r in records)
    # records are data: report reads them without the plugin
    reported = _chancespiel("report", str(out), "--json")
    assert reported.returncode == 0, reported.stderr
    assert json.loads(reported.stdout)
    # what needs the game's code says so in one line, and works with --import
    luck = _chancespiel("report", "--luck", str(out))
    assert luck.returncode == 2 and "needs the game's code" in luck.stderr
    errors = [line for line in luck.stderr.splitlines() if line.startswith("chancespiel: error")]
    assert len(errors) == 1 and "Traceback" not in luck.stderr
    assert _chancespiel(*imported, "report", "--luck", str(out)).returncode == 0
    analysed = _chancespiel(*imported, "analyse", GAME, "--agent", "star2(max_depth=2)",
                            "--json")  # fmt: skip
    assert analysed.returncode == 0, analysed.stderr
    assert json.loads(analysed.stdout)["action"] in (0, 1)
    tournament = _chancespiel(
        "tournament", GAME, "example_hold", "example_hold(n=8)", "random", "--matches", "2",
        "--workers", "2", "--no-progress", "--out", str(tmp_path / "t.jsonl"),
        env={"CHANCESPIEL_IMPORT": str(EXAMPLE)},
    )  # fmt: skip
    assert tournament.returncode == 0, tournament.stderr
    assert "round robin of 3 agents" in tournament.stdout


def test_a_plugins_learned_value_is_trained_and_searched_with(tmp_path):
    """The example registers features: a model trained on its records (value train with
    --import) is a heuristic its searches use in every worker, once a plugin registers it."""
    imported = ["--import", str(EXAMPLE)]
    records = tmp_path / "selfplay.jsonl"
    played = _chancespiel(
        *imported, "match", GAME, "example_hold", "example_hold(n=8)", "--matches", "20",
        "--workers", "2", "--no-progress", "--out", str(records),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    model = tmp_path / "race_value.json"
    trained = _chancespiel(*imported, "value", "train", str(records), "--out", str(model))
    assert trained.returncode == 0, trained.stderr
    assert "written" in trained.stdout
    plugin = tmp_path / "race_model.py"
    plugin.write_text(
        "from chancespiel.games.registry import register_value_model\n"
        f"register_value_model({GAME!r}, {str(model)!r})\n"
    )
    out = tmp_path / "learned.jsonl"
    match = _chancespiel(
        *imported, "--import", str(plugin), "match", GAME,
        "star2(heuristic=learned,max_depth=2)", "example_hold", "--matches", "2",
        "--workers", "2", "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert match.returncode == 0, match.stderr
    assert all(r["error"] is None for r in read_records(out))
    # without the model's plugin, the heuristic is refused in one line, before any game
    refused = _chancespiel(
        *imported, "match", GAME, "star2(heuristic=learned,max_depth=2)", "example_hold",
        "--matches", "1", "--no-progress", "--out", str(tmp_path / "none.jsonl"),
    )  # fmt: skip
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "learned" in refused.stderr


@pytest.mark.parametrize("goal", ["-1", "0"])
def test_the_example_refuses_a_goal_it_cannot_play_in_one_line(goal):
    """The plugin example checks its parameter as the project's games do: a user copies it."""
    done = _chancespiel(
        "--import", str(EXAMPLE), "play", f"{GAME}(goal={goal})", "random", "random"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"chancespiel: error: cannot load game '{GAME}(goal={goal})': parameter goal must be a "
        f"positive integer, got {goal}"
    ]


def test_an_unknown_plugin_is_one_line():
    for name in ("no_such_module_here", "missing/file.py"):
        done = _chancespiel("--import", name, "games")
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1 and name in done.stderr


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("import sys\n\nsys.exit(3)\n", "it exited (sys.exit(3)) while imported"),
        ("x = 1\nraise ValueError('no table here')\n", "ValueError: no table here"),
        ("def broken(:\n", "SyntaxError: "),
        ("import json\n\njson.loads('{')\n", "JSONDecodeError: "),
        ("import a_module_nobody_has\n", "ModuleNotFoundError: "),
    ],
    ids=["exits", "raises", "syntax", "raises-deeper", "imports-a-missing-module"],
)
def test_a_plugin_failing_while_imported_is_one_line_naming_its_file_and_line(
    tmp_path, source, fragment
):
    plugin = tmp_path / "mine.py"
    plugin.write_text(source)
    line = len(source.rstrip("\n").splitlines())  # each fails on its last line
    done = _chancespiel("--import", str(plugin), "games")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert fragment in done.stderr and f"({plugin}, line {line})" in done.stderr, done.stderr


def test_what_a_plugin_prints_stays_off_stdout(tmp_path):
    plugin = tmp_path / "chatty.py"
    plugin.write_text("print('loading my agents...')\n")
    done = _chancespiel("--import", str(plugin), "solve", "pig", "--winscore", "10", "--json")
    assert done.returncode == 0 and "loading my agents" in done.stderr
    assert json.loads(done.stdout)["game"].startswith("python_pig")  # stdout: the JSON alone


def test_a_broken_entry_point_is_one_line_and_can_be_skipped(monkeypatch, capsys):
    import importlib.metadata

    from chancespiel import plugins

    broken = importlib.metadata.EntryPoint(
        "lab", "a_lab_package_that_is_gone:agents", plugins.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [broken])
    monkeypatch.setattr(plugins, "_entry_points_read", False)
    assert cli.main(["games"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "entry point lab" in err
    assert f"{plugins.NO_ENTRY_POINTS}=1" in err
    for argv in (["--version"], ["--help"]):  # they need no plugin: shown, with a warning
        monkeypatch.setattr(plugins, "_entry_points_read", False)
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 0
        out, err = capsys.readouterr()
        assert out.startswith(("chancespiel 0", "usage: chancespiel")) and "warning" in err
    monkeypatch.setattr(plugins, "_entry_points_read", False)
    monkeypatch.setenv(plugins.NO_ENTRY_POINTS, "1")
    assert cli.main(["games"]) == 0


def test_the_users_heuristic_sees_the_users_state(tmp_path):
    """The example's heuristic reads `state.scores`, which only its own state class has: a
    search over it fails unless the hook receives that object, not our adapter."""
    script = tmp_path / "check.py"
    script.write_text(
        "import importlib.util, sys\n"
        "import pyspiel\n"
        "from chancespiel.agents import make_bot\n"
        f"spec = importlib.util.spec_from_file_location('dice_race', {str(EXAMPLE)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "seen = set()\n"
        "def spy(state, player):\n"
        "    seen.add(type(state).__name__)\n"
        "    return module.race_heuristic(state, player)\n"
        "from chancespiel.games import register_heuristic\n"
        "register_heuristic('example_dice_race', spy, name='spy')\n"
        "game = pyspiel.load_game('example_dice_race')\n"
        "bot = make_bot('star2(max_depth=3,heuristic=spy)', game, 0)\n"
        "bot.step(game.new_initial_state())\n"
        "print(sorted(seen))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['DiceRaceState']"


@register_agent("test_only_here", "test only: known to this process, not to spawned workers")
def _only_here(game: pyspiel.Game, player: int, seed: int | None) -> pyspiel.Bot:
    return RandomBot(game, player, seed)


def test_a_worker_without_an_agent_stops_the_run_and_scores_nothing(tmp_path):
    """A spawned worker does not inherit this process's registrations: the run stops with one
    message instead of writing forfeits that are not the game's result."""
    out = tmp_path / "m.jsonl"
    config = RunConfig("python_pig(winscore=20)", [("test_only_here", "random")], 2, out=str(out))

    def spawned(backend: str, workers: int | None, address: str | None) -> LocalPool:
        return LocalPool(1, start_method="spawn")

    with pytest.raises(RunStoppedError, match="unknown agent 'test_only_here'"):
        run(config, executor_factory=spawned)
    assert read_records(out) == []


def test_report_refuses_nothing_for_an_unknown_agent_but_checks_syntax(tmp_path, capsys):
    ours = play_task(GameTask("python_pig(winscore=10)", "hold(n=5)", "random", 0, 0, 0))
    theirs = {"game": "someone_elses_game(x=1)", "a": "their_agent(k=2)"}
    record = {  # a record of a game and an agent this process has never heard of
        **ours, **theirs, "key": {**ours["key"], **theirs},
        "seats": ["their_agent(k=2)", "random"], "returns": [1.0, -1.0], "history": [3, 1],
    }  # fmt: skip
    path = tmp_path / "theirs.jsonl"
    swapped = {
        **record, "game_index": 1, "key": {**record["key"], "game_index": 1},
        "seats": ["random", "their_agent(k=2)"],
    }  # fmt: skip
    path.write_text(json.dumps(record) + "\n" + json.dumps(swapped) + "\n")
    assert cli.main(["report", str(path)]) == 0
    assert "their_agent(k=2) scored 1 of 2 games" in capsys.readouterr().out
    bad = {**record, "a": "their_agent(k=2"}
    path.write_text(json.dumps(bad) + "\n")
    assert cli.main(["report", str(path)]) == 2
    assert "does not parse" in capsys.readouterr().err


def test_a_plugins_experiment_is_a_subcommand(tmp_path):
    study = EXAMPLE.parent / "dice_race_study.py"
    out = tmp_path / "sweep.md"
    done = _chancespiel("--import", str(EXAMPLE), "--import", str(study), "experiment",
                        "example-hold-sweep", "--games", "5", "--thresholds", "3,6",
                        "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert [line.split(" | ")[0] for line in lines[2:4]] == ["| 3", "| 6"]
    assert lines[-1].startswith("`chancespiel --import") and "example-hold-sweep" in lines[-1]
    again = _chancespiel("--import", str(EXAMPLE), "--import", str(study), "experiment",
                         "example-hold-sweep", "--out", str(out))  # fmt: skip
    assert again.returncode == 2 and "a result is not written over" in again.stderr
    without = _chancespiel("--import", str(study), "experiment", "example-hold-sweep",
                           "--out", str(out))  # fmt: skip
    assert without.returncode == 2 and "add --import examples/dice_race.py" in without.stderr


def test_the_example_plugin_plays_on_ray(tmp_path):
    """Ray workers are not forked from the command: they load the plugin by its path."""
    pytest.importorskip("ray")
    out = tmp_path / "ray.jsonl"
    relative = os.path.relpath(EXAMPLE, tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "chancespiel", "--import", relative, "match", GAME,
         "star2(max_depth=2)", "example_hold", "--matches", "2", "--backend", "ray",
         "--workers", "2", "--no-progress", "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [r["error"] for r in read_records(out)] == [None] * 4
