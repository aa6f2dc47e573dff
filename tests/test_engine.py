"""The compiled engine and the pure Python one: which runs, and that they compute the same.

The equivalence test runs fixed searches in a child process with CHANCESPIEL_PURE_PYTHON=1 and
compares node counts, visits, moves and values with the same searches here: with the
compiled engine installed (as `make test` installs it where a C compiler is present) this
compares the compiled code with its pure Python source.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import pickle
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pyspiel
import pytest

import chancespiel.agents
from chancespiel import engine
from chancespiel.agents.bab import bab_search
from chancespiel.agents.baselines import mc_search
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.star_minimax import search as star_search
from chancespiel.games.learned import has_learned_value
from chancespiel.games.registry import evaluation_for

GAMES = (
    "python_pig",
    "python_pig(dice=1,winscore=40)",
    "python_pig(ordered_dice=true)",
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)",
    "python_cant_stop",
    "python_einstein_wurfelt_nicht",
    "python_einstein_wurfelt_nicht(setup=free)",
    "python_ra(epochs=1)",
    "python_ra",
)
# Search name -> (function, keyword arguments): UCT and DPW, to the end and with the
# heuristic, and flat Monte Carlo (rollouts through the engine's own loop); expectimax, Star1,
# Star2 classic and sampled (independently, systematically, stratified, drawing again down
# to an error: se_gap), with and without pruning near the horizon and shared samples;
# bounded alpha-beta.
SEARCHES: dict[str, tuple[Any, dict[str, Any]]] = {
    "uct": (mcts_search, {"max_simulations": 400}),
    "uct_h": (mcts_search, {"max_simulations": 400, "rollout_depth": 0, "uct_c": 0.5}),
    "dpw": (mcts_search, {"max_simulations": 400, "rollout_depth": 5, "pw_c": 2.0}),
    "mc": (mc_search, {"max_simulations": 200, "rollout_depth": 10}),
    "expectimax": (star_search, {"algorithm": "expectimax", "max_depth": 2}),
    "star1": (star_search, {"algorithm": "star1", "max_depth": 3}),
    "star2": (star_search, {"algorithm": "star2", "max_depth": 3}),
    "star2ss": (
        star_search,
        {"algorithm": "star2", "max_depth": 3, "samples": 4, "prune_min_depth": 1},
    ),
    "star1ss_shared": (
        star_search,
        {"algorithm": "star1", "max_depth": 3, "samples": 3, "shared_samples": True},
    ),
    "expss_systematic": (
        star_search,
        {"algorithm": "expectimax", "max_depth": 3, "samples": 2, "systematic": True},
    ),
    "star2ss_stratified": (
        star_search,
        {"algorithm": "star2", "max_depth": 3, "samples": 3, "stratified": True},
    ),
    "star2ss_se_gap": (
        star_search,
        {"algorithm": "star2", "max_depth": 3, "samples": 2, "prune_min_depth": 2, "se_gap": 0.2},
    ),
    "bab": (bab_search, {"max_depth": 3, "epsilon": 0.05}),
}


def fingerprint() -> dict[str, Any]:
    """What the engine computes on fixed inputs: searches from seeded positions, a random
    game's states and keys, and pickled cores."""
    out: dict[str, Any] = {"engine": engine.name()}
    for game_string in GAMES:
        game = pyspiel.load_game(game_string)
        rng = random.Random(7)
        core = game.new_initial_state().core
        keys, texts = [], []
        choices = []  # decision nodes with more than one move
        while not core.is_terminal():
            if core.current_player() < 0:
                outcomes = core.chance_outcomes()
                core.apply(outcomes[rng.randrange(len(outcomes))][0])
            else:
                if len(core.legal_actions()) > 1:
                    choices.append(core.clone())
                core.apply(rng.choice(list(core.legal_actions())))
            keys.append(core.state_key())
            texts.append(str(core))
        # a quarter, half and three quarters into the game, where values are not all equal
        positions = [choices[len(choices) * k // 4] for k in (1, 2, 3)] if choices else []
        restored = pickle.loads(pickle.dumps(core))
        out[game_string] = {
            "keys": keys,
            "texts": texts,
            "pickled": [str(restored), restored.state_key() == core.state_key()],
            "searches": {
                name: [
                    _summary(search(position, game, seed=index, **options))
                    if search is not bab_search
                    else _summary(search(position, game, **options))
                    for index, position in enumerate(positions)
                ]
                for name, (search, options) in SEARCHES.items()
            },
            "learned": _learned(game, positions),
        }
    return out


def _learned(game: pyspiel.Game, positions: list[Any]) -> dict[str, Any]:
    """The game's learned value (the compiled network) at the positions, for both players,
    and a Star2 search on it; empty for a game without a model."""
    if not has_learned_value(game):
        return {}
    h = evaluation_for(game, "learned")
    return {
        "values": [[h(position, 0), h(position, 1)] for position in positions],
        "star2": [
            _summary(star_search(position, game, "star2", max_depth=2, evaluation=h))
            for position in positions
        ],
    }


def _summary(result: Any) -> list[Any]:
    """The fields a search result has of: move, value, MCTS visits and simulations, nodes,
    depth, root action values."""
    fields = ("visits", "simulations", "nodes", "depth", "action_values")
    return [result.action, result.value, *(_plain(getattr(result, f, None)) for f in fields)]


def _plain(value: Any) -> Any:
    return sorted(value.items()) if isinstance(value, dict) else value


def test_pure_python_and_compiled_engines_compute_the_same():
    here = fingerprint()
    if here["engine"] != "compiled":
        pytest.skip(f"the {engine.describe()} runs here: nothing compiled to compare")
    env = {**os.environ, engine.ENV_PURE: "1"}
    code = "import json, test_engine; print(json.dumps(test_engine.fingerprint()))"
    child = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    there = json.loads(child.stdout)
    assert there.pop("engine") == "pure Python"
    here.pop("engine")
    assert there == json.loads(json.dumps(here))


def test_the_compiled_engine_runs_where_it_could_be_built():
    """`make test` installs the package, which compiles the engine where a C compiler is
    present; pure Python here means the build failed or a source changed since (the notice
    says which; `make build` shows the compiler's error)."""
    if engine.pure_requested() or not engine.compiler_found():
        pytest.skip("pure Python asked for, or no C compiler")
    assert engine.name() == "compiled", engine.describe()


def _built_checkout(root: Path) -> Path:
    """A checkout whose engine sources were all compiled: sources, extensions, manifest."""
    root.mkdir(exist_ok=True)
    (root / "pyproject.toml").touch()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    sources = {}
    for relative in engine.COMPILED:
        source = root / relative
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(f"# {relative}\n")
        source.with_suffix(suffix).touch()
        sources[relative] = engine.source_state(source)
    manifest = root / "chancespiel" / engine.MANIFEST
    manifest.parent.mkdir()
    manifest.write_text(json.dumps({"sources": sources}))
    return root


def test_the_engine_runs_compiled_while_the_sources_are_those_compiled(tmp_path, monkeypatch):
    monkeypatch.delenv(engine.ENV_PURE, raising=False)
    root = _built_checkout(tmp_path)
    assert engine._decide(root) == (None, False)
    # git checkout or touch: the same content with a new time is still the source compiled
    source = root / next(iter(engine.COMPILED))
    source.write_bytes(source.read_bytes())
    os.utime(source, ns=(10**18, 10**18))
    assert engine._decide(root) == (None, False)
    # an edit of the same size, then of another size: pure Python until the next build
    for text in ("# edited\n", "# edited, longer\n"):
        source.write_text(text)
        reason, stale = engine._decide(root)
        assert "changed since it was compiled (make build" in str(reason) and stale
    monkeypatch.setenv(engine.ENV_PURE, "1")
    assert engine._decide(root) == (f"{engine.ENV_PURE} is set", False)


def test_a_source_without_its_build_runs_pure_python(tmp_path, monkeypatch):
    monkeypatch.delenv(engine.ENV_PURE, raising=False)
    root = _built_checkout(tmp_path)
    manifest = root / "chancespiel" / engine.MANIFEST
    first, second = list(engine.COMPILED)[:2]
    # a module added to the engine since the build (in the list, not in the manifest)
    built = json.loads(manifest.read_text())
    del built["sources"][second]
    manifest.write_text(json.dumps(built))
    assert engine._decide(root) == (f"{second} was not compiled ({engine.REBUILD})", True)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (root / first).with_suffix(suffix).unlink()
    reason, stale = engine._decide(root)
    assert reason == f"{first} has no compiled extension ({engine.REBUILD})" and stale
    # extensions of an unfinished (or older) build: no manifest
    manifest.write_text("{not json")
    reason, stale = engine._decide(root)
    assert "no manifest of their sources" in str(reason) and stale
    for relative in list(engine.COMPILED)[1:]:
        (root / relative).with_suffix(suffix).unlink()  # nothing was ever built
    assert engine._decide(root) == ("no compiled extension was built", False)


def _stale_process(root: Path, code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Runs `code` in a child Python whose engine was chosen for the checkout `root` (before
    any engine module is imported, as the package does for its own folder), its stderr and
    stdout in one stream, in the order written."""
    prelude = (
        "import sys; from pathlib import Path; from chancespiel import engine; "
        f"engine.install(Path({str(root)!r}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in (engine.ENV_PURE, engine._ENV_NOTICE)}
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )


def test_an_edited_source_runs_pure_python_after_one_notice_first(tmp_path):
    """The notice comes first, on stderr, once: not again from worker processes."""
    root = _built_checkout(tmp_path / "checkout")
    (root / "games" / "core.py").write_text("# edited\n")
    worker = (
        "from pathlib import Path; from chancespiel import engine; "
        f"engine.install(Path({str(root)!r})); print(engine.describe())"
    )
    code = (
        "import subprocess\n"
        "from chancespiel.evaluation.cli import main\n"
        "main(['games'])\n"
        f"subprocess.run([sys.executable, '-c', {worker!r}], check=True)\n"
    )
    done = _stale_process(root, code, tmp_path)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    notice = "chancespiel: running pure Python: games/core.py changed since it was compiled"
    assert lines[0].startswith(notice)
    assert sum(notice in line for line in lines) == 1
    assert "python_pig" in done.stdout  # the command's output, after the notice
    assert lines[-1].startswith("pure Python engine (games/core.py changed")  # the worker's


def test_a_timed_run_on_a_stale_build_is_warned_before_it_starts(tmp_path):
    root = _built_checkout(tmp_path / "checkout")
    (root / "agents" / "star_core.py").write_text("# edited\n")
    warning = "chancespiel: warning: this match has time budgets (time_ms)"
    for spec, warned in (("star2(time_ms=5)", True), ("star2(max_depth=1)", False)):
        out = tmp_path / f"{warned}.jsonl"
        code = (
            "from chancespiel.evaluation.cli import main\n"
            f"main(['match', 'python_pig(winscore=10)', {spec!r}, 'hold', '--matches', '1', "
            f"'--workers', '1', '--no-progress', '--out', {str(out)!r}])\n"
        )
        done = _stale_process(root, code, tmp_path)
        assert done.returncode == 0, done.stdout
        lines = done.stdout.splitlines()
        assert lines[0].startswith("chancespiel: running pure Python: agents/star_core.py")
        if warned:
            assert lines[1].startswith(warning), done.stdout
            assert "python_pig(winscore=10): star2" in lines[2]  # then the run
        else:
            assert warning not in done.stdout


@pytest.mark.slow
def test_a_wheel_carries_the_compiled_engine_to_machines_without_a_compiler(tmp_path):
    """`make wheel`: where the engine compiles, the wheel holds every compiled module, and
    installed without building anything it runs the compiled engine (about a minute)."""
    if engine.pure_requested() or not engine.compiler_found():
        pytest.skip("pure Python asked for, or no C compiler")
    root = Path(__file__).resolve().parents[1]
    pip = [sys.executable, "-m", "pip", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", tmp_path, root], check=True, timeout=1800)
    (wheel,) = tmp_path.glob("chancespiel-*.whl")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in engine.COMPILED.values():
        assert module.replace(".", "/") + suffix in names, module
    manifest = json.loads(zipfile.ZipFile(wheel).read(f"chancespiel/{engine.MANIFEST}"))
    assert set(manifest["sources"]) == set(engine.COMPILED)
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", site, wheel], check=True)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import chancespiel.games.pig_core as m; "
        "from chancespiel import engine; print(engine.name(), m.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, site], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.split() == ["compiled", f"{site}/chancespiel/games/pig_core{suffix}"]


def test_version_names_the_engine():
    command = Path(sys.executable).with_name("chancespiel")
    done = subprocess.run(
        [str(command), "--version"], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.startswith(f"chancespiel {chancespiel.__version__}, ")
    assert engine.name() in done.stdout
