"""The registry of games: one declaration per game module, no import cycle in the package, and
the declarations' checks and the thin calls plugins add to a declared game with.

The tests of the structure read the source with `ast` (nothing is imported to count): every import
statement of every module of the package, those inside functions included, and every call
whose name starts with `register_` in the modules of `games/`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pyspiel
import pytest

from chancespiel.games import registry
from chancespiel.games.registry import GameSpec, register_game, register_heuristic

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
GAMES_PACKAGE = "chancespiel.games"


def package_modules() -> dict[str, Path]:
    """Every module of the package, by name, with its source file: the packages and their
    folders that pyproject.toml installs (a package without a folder of its own lies in its
    parent's, as setuptools places it), each folder's .py files."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders: dict[str, str] = config.get("package-dir", {})

    def folder(package: str) -> Path:
        if package in folders:
            return ROOT / folders[package]
        parent, _, leaf = package.rpartition(".")
        return folder(parent) / leaf

    modules = {}
    for package in config["packages"]:
        for source in sorted(folder(package).glob("*.py")):
            name = package if source.stem == "__init__" else f"{package}.{source.stem}"
            modules[name] = source
    return modules


MODULES = package_modules()


def imported_modules(name: str, source: Path) -> Iterator[str]:
    """The modules of the package that `name` imports, at any level of its source.

    An import names one module: `import a.b` and `from a import b` (b a module) import a.b,
    `from a.b import c` (c a name in a.b) imports a.b. Python also runs the __init__ of each
    parent package first; those edges are left out on purpose, because a package's __init__
    imports its own modules to register them, which would make every module of the package a
    cycle with its __init__.
    """
    package = name if source.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source.read_text(), str(source))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}"
                elif base in MODULES:
                    yield base


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of a directed graph: its strongly connected components of more than one
    node, or of a node with an edge to itself (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        cycles.append(sorted(component))
    return cycles


def test_cycles_are_found_where_there_are_some():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "d"}, "e": set()}
    assert sorted(import_cycles(graph)) == [["a", "b", "c"], ["d"]]


def test_the_package_has_no_import_cycle():
    assert len(MODULES) > 50 and "chancespiel.games.registry" in MODULES
    graph = {name: set(imported_modules(name, source)) for name, source in MODULES.items()}
    assert "chancespiel.games.registry" in graph["chancespiel.games.learned"]
    assert import_cycles(graph) == []


def registration_calls(source: Path) -> list[str]:
    """The names of the calls in `source`, anywhere in it, to a function whose name starts
    with `register_` (`register_game`, `pyspiel.register_game`, `register_heuristic`, ...)."""
    calls = []
    for node in ast.walk(ast.parse(source.read_text(), str(source))):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called.startswith("register_"):
                calls.append(called)
    return calls


def test_each_game_module_declares_itself_in_one_call():
    """The modules the games package imports (the games, OpenSpiel's, the learned value) make
    one registration each; no other module of games/ makes any (the registry, which defines
    them, is the one exception: its register_game registers the game type with pyspiel)."""
    init = MODULES[GAMES_PACKAGE]
    declaring = set(imported_modules(GAMES_PACKAGE, init)) - {f"{GAMES_PACKAGE}.registry"}
    assert {f"{GAMES_PACKAGE}.{m}" for m in ("pig", "ra", "openspiel_games", "learned")} <= (
        declaring
    )
    counts = {
        name: registration_calls(source)
        for name, source in MODULES.items()
        if name.startswith(f"{GAMES_PACKAGE}.") and name != f"{GAMES_PACKAGE}.registry"
    }
    expected: dict[str, list[str]] = {name: [] for name in counts}
    for name in declaring:
        expected[name] = ["register_game"]
    expected[f"{GAMES_PACKAGE}.learned"] = ["register_heuristic_factory"]
    assert counts == expected


# The declarations ---------------------------------------------------------------------------

NAME = "test_registry_only_game"  # a name no game has; each test forgets it


@pytest.fixture
def forget():
    yield
    registry._SPECS.pop(NAME, None)
    registry._SPECS.pop(NAME + "_version", None)


def _heuristic(state, player):
    return 0.5


def test_a_spec_is_checked_when_it_is_made():
    ours = pyspiel.load_game("python_pig").get_type()
    with pytest.raises(ValueError, match="game_type and game_class come together"):
        GameSpec(NAME, game_type=ours)
    with pytest.raises(ValueError, match="the game type is named 'python_pig'"):
        GameSpec(NAME, game_type=ours, game_class=pyspiel.Game)
    with pytest.raises(ValueError, match="features and feature_names come together"):
        GameSpec(NAME, features=lambda state, player: [0.0])
    for hook in ("feature_pair", "feature_key", "symmetric_outcomes"):
        with pytest.raises(ValueError, match="symmetric outcomes need the features"):
            GameSpec(NAME, **{hook: lambda state: 0})
    with pytest.raises(ValueError, match="needs a reader"):
        GameSpec(NAME, openspiel_versions=(GameSpec(NAME + "_version"),))
    for reserved in ("default", "zero", "learned"):
        with pytest.raises(ValueError, match=f"heuristic name '{reserved}' is reserved"):
            GameSpec(NAME, variants={reserved: _heuristic})


def test_a_game_is_declared_once_and_pyspiel_games_are_not_shadowed(forget):
    before = dict(registry._SPECS)
    version = GameSpec(NAME + "_version", reader=lambda state: None)
    register_game(GameSpec(NAME, heuristic=_heuristic, openspiel_versions=(version,)))
    assert registry.has_heuristic(NAME) and registry._SPECS[NAME + "_version"] == version
    with pytest.raises(ValueError, match=f"game '{NAME}' is declared already"):
        register_game(GameSpec(NAME))
    registry._SPECS.pop(NAME)
    # one of the two names taken: nothing is registered
    with pytest.raises(ValueError, match=f"'{NAME}_version' is declared already"):
        register_game(GameSpec(NAME, openspiel_versions=(version,)))
    assert NAME not in registry._SPECS
    tic_tac_toe = pyspiel.load_game("tic_tac_toe").get_type()
    with pytest.raises(ValueError, match="'tic_tac_toe' is already registered with pyspiel"):
        register_game(GameSpec("tic_tac_toe", game_type=tic_tac_toe, game_class=pyspiel.Game))
    assert "tic_tac_toe" not in registry._SPECS
    registry._SPECS.pop(NAME + "_version")
    assert before == registry._SPECS


def test_a_plugin_adds_heuristics_and_a_model_to_a_declared_game(forget):
    register_game(GameSpec(NAME, features=lambda state, player: [1.0], feature_names=("one",)))
    register_heuristic(NAME, _heuristic)
    register_heuristic(NAME, _heuristic, name="other")
    registry.register_value_model(NAME, "model.json")
    spec = registry._SPECS[NAME]
    assert spec.heuristic is _heuristic and dict(spec.variants) == {"other": _heuristic}
    assert spec.feature_names == ("one",) and registry.value_model_file(NAME) == "model.json"
    registry.register_value_model(NAME, None)
    assert registry.value_model_file(NAME) is None
    with pytest.raises(ValueError, match="reserved"):
        register_heuristic(NAME, _heuristic, name="learned")


def test_a_heuristic_for_an_undeclared_pyspiel_game_declares_it(forget):
    register_heuristic(NAME, _heuristic)
    assert registry._SPECS[NAME] == GameSpec(NAME, heuristic=_heuristic)
    assert registry.heuristic_for(NAME)(None, 0) == 0.5
    assert NAME not in {spec.short_name for spec in registry.listed_games()}


def test_a_spec_keeps_copies_of_what_it_was_given():
    variants = {"v": _heuristic}
    names = ["one"]
    spec = GameSpec(NAME, variants=variants, features=lambda s, p: [1.0], feature_names=names)
    variants["w"] = _heuristic
    names.append("two")
    assert list(spec.variants) == ["v"] and spec.feature_names == ("one",)
    with pytest.raises(TypeError):
        spec.variants["w"] = _heuristic  # type: ignore[index]
