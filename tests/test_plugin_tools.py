"""What a plugin's author gets from the command: their games listed, `--import` of a module in
the current directory, `check` (the conformance checks), `compile` (a typed core with mypyc),
`--debug`, and forfeits that say where a plugin's code failed.

Plugins are loaded in fresh processes, as a user runs them, so that this test process's
registries stay as they are."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chancespiel import engine, plugin_build

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
FAULTY = Path(__file__).parent / "faulty_games.py"


def _chancespiel(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "chancespiel", *args], capture_output=True, text=True,
        timeout=600, cwd=cwd, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_plugin_games_are_listed_with_their_modules_and_every_heuristic():
    done = _chancespiel("--import", str(EXAMPLES / "dice_race.py"), "games")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    entry = next(i for i, line in enumerate(lines) if line.startswith("example_dice_race "))
    assert "[plugin: " in lines[entry] and lines[entry].endswith("dice_race.py]")
    assert "Dice race (a chancespiel plugin example)" in lines[entry + 1]
    assert "goal=12" in lines[entry + 2]
    everything = _chancespiel("--import", str(EXAMPLES / "dice_race.py"), "games", "--all")
    assert everything.returncode == 0, everything.stderr
    rows = {line.split()[0].rstrip(":"): line for line in everything.stdout.splitlines()[1:]}
    assert "[plugin: " in rows["example_dice_race"]
    # the learned value is a heuristic of every game it fits, listed with the others
    assert rows["python_pig"].endswith("default, zero, learned, lead")
    assert "learned" in rows["python_ra"] and "[chancespiel]" in rows["python_ra"]


def test_import_finds_a_module_in_the_current_directory(tmp_path):
    """Through the console script, as a user runs it (`python -m` would put the current
    directory on the path itself)."""
    shutil.copy(EXAMPLES / "dice_race.py", tmp_path / "my_game.py")
    script = shutil.which("chancespiel", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no chancespiel console script beside this Python")
    done = subprocess.run([script, "--import", "my_game", "games"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[plugin: my_game.py]" in done.stdout
    # and a file's neighbours: fast_race.py imports race_core.py from its own folder
    beside = _chancespiel("--import", str(EXAMPLES / "fast_race.py"), "games", cwd=tmp_path)
    assert beside.returncode == 0, beside.stderr
    assert "example_fast_race" in beside.stdout


BUGGY = """\
import sys
sys.path.insert(0, {examples!r})
import dice_race  # noqa: F401
from chancespiel.games import register_heuristic


def typo(state, player):
    return state.scores_typo[player]


register_heuristic("example_dice_race", typo, name="typo")
"""


def test_a_forfeit_says_where_the_plugin_failed_and_debug_shows_the_traceback(tmp_path):
    (tmp_path / "buggy.py").write_text(BUGGY.format(examples=str(EXAMPLES)))
    run = (
        "--import", "buggy", "match", "example_dice_race", "star2(max_depth=2,heuristic=typo)",
        "random", "--matches", "1", "--no-progress", "--workers", "2",
    )  # fmt: skip
    done = _chancespiel(*run, "--out", "a.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    failed = [line for line in done.stdout.splitlines() if "FAILED" in line]
    assert failed and failed[0].endswith(
        "AttributeError: 'DiceRaceState' object has no attribute 'scores_typo' (at buggy.py:8)"
    ), done.stdout
    assert "Traceback" not in done.stderr
    debug = _chancespiel("--debug", *run, "--out", "b.jsonl", cwd=tmp_path)
    assert debug.returncode == 0, debug.stderr
    assert "Traceback (most recent call last)" in debug.stderr  # from the workers
    assert 'buggy.py", line 8, in typo' in debug.stderr


def test_debug_shows_the_traceback_of_a_plugin_that_fails_to_import(tmp_path):
    plugin = tmp_path / "broken.py"
    plugin.write_text("import json\n\njson.loads('{')\n")
    quiet = _chancespiel("--import", str(plugin), "games")
    assert quiet.returncode == 2 and "Traceback" not in quiet.stderr
    loud = _chancespiel("--import", str(plugin), "--debug", "games")
    assert loud.returncode == 2 and "Traceback (most recent call last)" in loud.stderr
    assert "JSONDecodeError" in loud.stderr and loud.stderr.strip().splitlines()[-1].startswith(
        "chancespiel: error: --import"
    )


def test_check_passes_the_examples_and_fails_a_faulty_game_in_one_line_per_check():
    for plugin, game in (("fast_race.py", "example_fast_race"), ("dice_race.py", None)):
        done = _chancespiel(
            "--import", str(EXAMPLES / plugin), "check", game or "example_dice_race"
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "0 failed" in done.stdout
    faulty = _chancespiel("--import", str(FAULTY), "check", "test_faulty_game(fault=half,at=3)")
    assert faulty.returncode == 1
    lines = {line.split()[1]: line for line in faulty.stdout.splitlines()[1:-1]}
    assert lines["chance"].split()[0] == "FAIL" and "sum to 0.5" in lines["chance"]
    assert lines["returns"].split()[0] == "pass"
    assert faulty.stderr.strip() == (
        "chancespiel: error: test_faulty_game(at=3,bad_info=False,fault=half) failed 4 check(s): "
        "random_sim, chance, contract, search"
    )
    only = _chancespiel("--import", str(FAULTY), "check", "test_faulty_game", "--only", "nope")
    assert only.returncode == 2 and "invalid choice: 'nope'" in only.stderr


def test_a_trusted_core_is_searched_directly_and_an_untrusted_one_through_the_adapter():
    script = (
        "import pyspiel, dataclasses\n"
        "from chancespiel.plugins import load_plugins\n"
        f"load_plugins([{str(EXAMPLES / 'fast_race.py')!r}])\n"
        "from chancespiel.agents.protocol import search_state\n"
        "from chancespiel.games import registry\n"
        "state = pyspiel.load_game('example_fast_race').new_initial_state()\n"
        "print(type(search_state(state)).__name__)\n"
        "spec = registry._SPECS['example_fast_race']\n"
        "registry._SPECS['example_fast_race'] = dataclasses.replace(spec, trusted_core=False)\n"
        "print(type(search_state(state)).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["RaceCore", "PyspielAdapter"]


def test_compile_without_a_compiler_leaves_the_core_pure_python(tmp_path, monkeypatch):
    shutil.copy(EXAMPLES / "race_core.py", tmp_path)
    monkeypatch.setattr(engine, "compiler_found", lambda: False)
    message = plugin_build.compile_plugin([str(tmp_path / "race_core.py")])
    assert message == "no C compiler was found: race_core will run as pure Python"
    assert not (tmp_path / plugin_build.COMPILED_DIR).exists()


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("missing.py", "not a .py file"),
        ("package/core.py", "compile a top-level module"),
        ("two-words.py", "is not a module name"),
    ],
)
def test_compile_refuses_what_it_cannot_compile_in_one_line(tmp_path, name, fragment):
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "__init__.py").touch()
    (tmp_path / "package" / "core.py").touch()
    (tmp_path / "two-words.py").touch()
    done = _chancespiel("compile", str(tmp_path / name))
    assert done.returncode == 2 and fragment in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


COMPILED = engine.name() == "compiled" and plugin_build.can_compile() is None


@pytest.mark.skipif(not COMPILED, reason="needs the compiled engine and a C compiler")
def test_a_compiled_core_runs_compiled_until_its_source_changes(tmp_path):
    for name in ("race_core.py", "fast_race.py"):
        shutil.copy(EXAMPLES / name, tmp_path)
    env = {engine.ENV_PURE: ""}
    built = _chancespiel("compile", str(tmp_path / "race_core.py"), env=env)
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "__compiled__" / "manifest.json").read_text())
    assert list(manifest["modules"]) == ["race_core"]
    probe = (
        "from chancespiel.plugins import load_plugins\n"
        f"load_plugins([{str(tmp_path / 'fast_race.py')!r}])\n"
        "import race_core\n"
        "print(race_core.__file__)\n"
    )

    def loaded(**extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              timeout=120, env={**os.environ, **env, **extra})  # fmt: skip

    fast = loaded()
    assert fast.returncode == 0 and "__compiled__" in fast.stdout and fast.stderr == ""
    check = _chancespiel("--import", str(tmp_path / "fast_race.py"), "check",
                         "example_fast_race", env=env)  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    pure = loaded(**{engine.ENV_PURE: "1"})  # the engine pure: the core too, silently
    assert pure.stdout.strip().endswith("race_core.py") and pure.stderr == ""
    with (tmp_path / "race_core.py").open("a") as source:
        source.write("\nEDITED = True\n")
    stale = loaded()
    assert stale.stdout.strip().endswith("race_core.py")
    assert stale.stderr.strip() == (
        "chancespiel: running race_core as pure Python: race_core.py changed since it was "
        "compiled (chancespiel compile it again)"
    )
