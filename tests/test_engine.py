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
# Star2 classic and sampled, with and without pruning near the horizon and shared samples;
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


def test_a_source_newer_than_its_extension_runs_pure_python(tmp_path, monkeypatch):
    monkeypatch.delenv(engine.ENV_PURE, raising=False)
    monkeypatch.setattr(engine.importlib.util, "find_spec", lambda name: object())
    (tmp_path / "pyproject.toml").touch()
    suffix = engine.importlib.machinery.EXTENSION_SUFFIXES[0]
    for relative in engine.COMPILED:
        source = tmp_path / relative
        source.parent.mkdir(parents=True, exist_ok=True)
        source.touch()
        extension = source.with_suffix(suffix)
        extension.touch()
        os.utime(source, (1000.0, 1000.0))
        os.utime(extension, (2000.0, 2000.0))
    assert engine._decide(tmp_path) is None
    edited = tmp_path / next(iter(engine.COMPILED))
    os.utime(edited, (5000.0, 5000.0))
    assert "changed since it was compiled" in str(engine._decide(tmp_path))
    edited.with_suffix(suffix).unlink()
    assert "has no compiled extension" in str(engine._decide(tmp_path))
    monkeypatch.setenv(engine.ENV_PURE, "1")
    assert engine.ENV_PURE in str(engine._decide(tmp_path))


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
