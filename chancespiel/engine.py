"""Which engine runs: the compiled rules and search cores, or the same source as pure Python.

The modules in `COMPILED` are ordinary typed Python. Where a C compiler is present, installing
the package (`pip install .` or `pip install -e .`) also compiles them with mypyc into C
extensions that sit beside the sources and are imported instead of them. The two engines run
the same code: equal node counts, moves and values under fixed seeds (tests/test_engine.py).

Pure Python is used, for every listed module at once, when
- `CHANCESPIEL_PURE_PYTHON=1` is set (for debugging and profiling),
- no compiled extension was built (no compiler at install time), or
- in a source checkout, a listed source is newer than its extension (edited since the last
  build: `make build` compiles it again); a notice says so once.
All or nothing, because compiled classes link each other directly: a compiled core next to an
interpreted copy of its base class would be two different classes.

This module imports nothing of the package: `setup.py` reads `COMPILED` from it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# Source files compiled into the engine, relative to the project root, with their modules.
COMPILED: dict[str, str] = {
    "games/core.py": "chancespiel.games.core",
    "games/tree_hash.py": "chancespiel.games.tree_hash",
    "games/pig_core.py": "chancespiel.games.pig_core",
    "games/einstein_core.py": "chancespiel.games.einstein_core",
    "games/cant_stop_core.py": "chancespiel.games.cant_stop_core",
    "games/ra_core.py": "chancespiel.games.ra_core",
    "games/value_model.py": "chancespiel.games.value_model",
    "agents/search_core.py": "chancespiel.agents.search_core",
    "agents/star_core.py": "chancespiel.agents.star_core",
    "agents/draws.py": "chancespiel.agents.draws",
    "agents/mcts_core.py": "chancespiel.agents.mcts_core",
    "agents/bab_core.py": "chancespiel.agents.bab_core",
}
ENV_PURE = "CHANCESPIEL_PURE_PYTHON"
GROUP = "chancespiel.engine_lib"  # mypyc's shared library, inside the package: GROUP + "__mypyc"
# Names that cannot be imported compiled without the others (see the module docstring).
_MODULES = frozenset(COMPILED.values())

_reason: str | None = None  # why pure Python runs, once decided


class _SourceFinder:
    """A meta-path finder that loads the engine's modules from their `.py` sources."""

    @staticmethod
    def find_spec(
        fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _MODULES or not path:
            return None
        leaf = fullname.rpartition(".")[2]
        for folder in path:
            source = os.path.join(folder, leaf + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def _extension(source: Path) -> Path | None:
    """The compiled extension beside `source`, if one was built."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_suffix(suffix)
        if candidate.is_file():
            return candidate
    return None


def pure_requested() -> bool:
    """True if `CHANCESPIEL_PURE_PYTHON` asks for pure Python (set, and not empty or 0)."""
    return os.environ.get(ENV_PURE, "") not in ("", "0")


def compiler_found() -> bool:
    """True if the C compiler Python was built with (or `cc`) is on the PATH."""
    import shutil
    import sysconfig

    command = (sysconfig.get_config_var("CC") or "cc").split()
    return bool(command) and shutil.which(command[0]) is not None


def _decide(root: Path) -> str | None:
    """Why the engine must run as pure Python (None: compiled, if built)."""
    if pure_requested():
        return f"{ENV_PURE} is set"
    if importlib.util.find_spec(GROUP + "__mypyc") is None:
        return "no compiled extension was built"
    # An installed package holds the extensions of one build; a source checkout may hold
    # none, some, or stale ones.
    checkout = (root / "pyproject.toml").is_file()
    for relative in COMPILED if checkout else ():
        source = root / relative
        extension = _extension(source)
        if extension is None:
            return f"{relative} has no compiled extension (make build compiles the engine)"
        if source.stat().st_mtime > extension.stat().st_mtime + 1.0:
            return f"{relative} changed since it was compiled (make build compiles it again)"
    return None


def install(root: Path) -> None:
    """Chooses the engine before any of its modules is imported; `root` is the folder that
    holds `games/` and `agents/` (the project root in a source checkout)."""
    global _reason
    if any(name in sys.modules for name in _MODULES):
        return  # already chosen by this process (or a parent before a fork)
    _reason = _decide(root)
    if _reason is not None:
        sys.meta_path.insert(0, _SourceFinder())
        if "make build" in _reason:
            print(f"chancespiel: running pure Python: {_reason}", file=sys.stderr)


def name() -> str:
    """'compiled' or 'pure Python': what runs in this process."""
    from chancespiel.games import core  # the engine's first module; imports the choice

    file = core.__file__ or ""
    return "pure Python" if file.endswith(".py") else "compiled"


def describe() -> str:
    """The engine and, for pure Python, why."""
    engine = name()
    if engine == "compiled":
        return "compiled engine (mypyc)"
    return f"pure Python engine ({_reason})"
