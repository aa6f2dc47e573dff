"""A researcher's own games, agents and heuristics: modules that register them, loaded before
any command runs and in every worker that plays a game.

Three ways to name them, all loaded by `load_plugins` (each module once per process):

- `chancespiel --import MODULE` (repeatable): a module on the Python path (`my_lab.agents`) or
  the path of a .py file (`./my_agent.py`);
- the environment variable CHANCESPIEL_IMPORT, the same names separated by commas;
- an installed package's entry point in the group `chancespiel.plugins`, so that
  `pip install my-lab` is enough (`[project.entry-points."chancespiel.plugins"]` in its
  pyproject.toml, `lab = "my_lab.agents"`).

A module registers with `chancespiel.agents.register_agent`, `chancespiel.games.
register_heuristic` and `pyspiel.register_game`, as it would without chancespiel's command.
The names loaded in this process (`loaded()`) travel with every game task, so a worker that
did not inherit them (a spawned process, a Ray node) loads them before it builds a bot.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
from collections.abc import Iterable
from pathlib import Path

ENV = "CHANCESPIEL_IMPORT"
ENTRY_POINT_GROUP = "chancespiel.plugins"

_LOADED: dict[str, None] = {}  # names loaded in this process, in order (a dict: no repeats)
_entry_points_read = False


class PluginError(Exception):
    """A plugin that cannot be found or fails while it is imported (one line)."""


def _module_name_of_path(path: Path) -> str:
    """A module name for a .py file, unique per path (two files may share a stem)."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return f"chancespiel_plugin_{path.stem}_{digest}"


def _is_path(name: str) -> bool:
    return name.endswith(".py") or os.sep in name


def _canonical(name: str) -> str:
    """A file's absolute path (workers may run elsewhere: another directory, a Ray node with
    the same tree), or the module name as given."""
    return str(Path(name).expanduser().resolve()) if _is_path(name) else name


def _import(name: str, given: str) -> None:
    """Imports the plugin `name` (canonical), naming it `given` (as the user wrote it) in
    errors."""
    if _is_path(name):
        path = Path(name)
        if not path.is_file():
            raise PluginError(f"--import {given}: no such file")
        module_name = _module_name_of_path(path)
        if module_name in sys.modules:
            return
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"--import {given}: not a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[module_name]
            raise PluginError(f"--import {given}: {type(e).__name__}: {e}") from None
        return
    try:
        importlib.import_module(name.split(":")[0])  # an entry point's "module:attribute"
    except ModuleNotFoundError as e:
        missing = e.name or name
        raise PluginError(
            f"--import {given}: no module named {missing!r} on the Python path "
            "(give a module name or the path of a .py file)"
        ) from None
    except Exception as e:
        raise PluginError(f"--import {given}: {type(e).__name__}: {e}") from None


def load_plugins(names: Iterable[str] = ()) -> list[str]:
    """Imports `names`, then those of CHANCESPIEL_IMPORT and the entry points (each once per
    process) and returns every name loaded so far.

    Raises:
      PluginError: naming the first module that cannot be found or imported.
    """
    from_env = [n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip()]
    for given in [*names, *from_env]:
        name = _canonical(given)
        if name not in _LOADED:
            _import(name, given)
            _LOADED[name] = None
    global _entry_points_read
    if _entry_points_read:  # once per process: scanning installed packages takes a while
        return loaded()
    _entry_points_read = True
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.value not in _LOADED:
            try:
                entry.load()
            except Exception as e:
                raise PluginError(
                    f"entry point {entry.name} ({entry.value}) of group {ENTRY_POINT_GROUP}: "
                    f"{type(e).__name__}: {e}"
                ) from None
            _LOADED[entry.value] = None
    return loaded()


def loaded() -> list[str]:
    """The plugins this process has loaded, in order (what a worker must load too)."""
    return list(_LOADED)
