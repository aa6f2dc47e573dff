"""Which engine runs: the compiled rules and search cores, or the same source as pure Python.

The modules in `COMPILED` are ordinary typed Python. Where a C compiler is present, installing
the package (`pip install .` or `pip install -e .`) also compiles them with mypyc into C
extensions that sit beside the sources and are imported instead of them, and writes a manifest
(`MANIFEST`, beside this module) of the sources it compiled: their SHA-256, size and time. The
two engines run the same code: equal node counts, moves and values under fixed seeds
(tests/test_engine.py).

Pure Python is used, for every listed module at once, when
- `CHANCESPIEL_PURE_PYTHON=1` is set (for debugging and profiling),
- no compiled extension was built (no compiler at install time), or
- in a source checkout, a listed source is not the one compiled (its content differs from the
  manifest's: edited since the last build; `make build` compiles it again). A source whose
  time changed but not its content (`git checkout`, `touch`) is still the one compiled. A
  notice on stderr says so, once, when the package is imported, before any output.
All or nothing, because compiled classes link each other directly: a compiled core next to an
interpreted copy of its base class would be two different classes.

This module imports nothing of the package: `setup.py` reads `COMPILED` from it.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

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
    "evaluation/lookahead.py": "chancespiel.evaluation.lookahead",
}
ENV_PURE = "CHANCESPIEL_PURE_PYTHON"
MANIFEST = "engine_build.json"  # beside this module: the sources the extensions were built from
# Set once the notice has been printed: worker processes (spawned, Ray's) stay quiet.
_ENV_NOTICE = "CHANCESPIEL_ENGINE_NOTICE_GIVEN"
REBUILD = "make build compiles it again"
# Names that cannot be imported compiled without the others (see the module docstring).
_MODULES = frozenset(COMPILED.values())

# mypy's options for compiling the engine (and plugin cores against it), besides the cache.
# --no-site-packages: the C does not depend on what the environment holds. pip builds before
# it installs the dependencies, so with numpy's stubs seen only by a reinstall the second
# install would compile its uses differently, and again.
MYPYC_OPTIONS = ("--ignore-missing-imports", "--follow-imports=silent", "--no-site-packages")

_root: Path | None = None  # the folder `install` was given
_reason: str | None = None  # why pure Python runs, once decided
_stale = False  # a compiled build exists, of other sources than these
_timing_warned = False


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


def source_state(source: Path) -> dict[str, Any]:
    """What the manifest records of a compiled source: its SHA-256, size and time (ns). The
    time is taken first: an edit while it is read leaves a newer time, so a digest check."""
    mtime_ns = source.stat().st_mtime_ns
    data = source.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "mtime_ns": mtime_ns}


def unchanged(source: Path, built: Any) -> bool:
    """True if `source` has the content recorded in `built` (a manifest entry): by size and
    time when both are as recorded, else by its digest (read only then)."""
    if not isinstance(built, dict):
        return False
    status = source.stat()
    if status.st_size != built.get("size"):
        return False
    if status.st_mtime_ns == built.get("mtime_ns"):
        return True
    return hashlib.sha256(source.read_bytes()).hexdigest() == built.get("sha256")


def _manifest(root: Path) -> dict[str, Any] | None:
    """The sources of the last build (relative path -> entry), None if there is none."""
    try:
        data = json.loads((root / "chancespiel" / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sources = data.get("sources") if isinstance(data, dict) else None
    return sources if isinstance(sources, dict) else None


def link_tree(root: Path, tree: Path) -> list[str]:
    """The engine's sources under `tree`, in a tree of links that gives them their import
    names (mypyc names a module after its path; pyproject's package-dir installs games/ as
    chancespiel.games)."""
    package = tree / "chancespiel"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").touch()
    for folder in ("games", "agents", "evaluation"):
        link = package / folder
        if not link.is_symlink():
            link.symlink_to(root / folder, target_is_directory=True)
    return [str(tree / "chancespiel" / relative) for relative in COMPILED]


def build_id() -> str | None:
    """The SHA-256 of the manifest of the compiled engine this process runs (None if it runs
    pure Python): what a plugin core compiled against it records, so that a rebuilt engine
    is never linked with a core compiled for another."""
    if _reason is not None or _root is None:
        return None
    try:
        return hashlib.sha256((_root / "chancespiel" / MANIFEST).read_bytes()).hexdigest()
    except OSError:
        return None


def root() -> Path | None:
    """The folder that holds the engine's sources (`install`'s), once chosen."""
    return _root


def pure_requested() -> bool:
    """True if `CHANCESPIEL_PURE_PYTHON` asks for pure Python (set, and not empty or 0)."""
    return os.environ.get(ENV_PURE, "") not in ("", "0")


def compiler_found() -> bool:
    """True if the C compiler Python was built with (or `cc`) is on the PATH."""
    import shutil
    import sysconfig

    command = (sysconfig.get_config_var("CC") or "cc").split()
    return bool(command) and shutil.which(command[0]) is not None


def _decide(root: Path) -> tuple[str | None, bool]:
    """Why the engine must run as pure Python (None: compiled), and whether a compiled build
    of other sources exists (what a rebuild would bring back)."""
    if pure_requested():
        return f"{ENV_PURE} is set", False
    # An installed package holds the extensions of one build; a source checkout may hold
    # none, some, or stale ones.
    checkout = (root / "pyproject.toml").is_file()
    built = _manifest(root)
    if built is None:
        if checkout and any(_extension(root / relative) for relative in COMPILED):
            return f"the compiled extensions have no manifest of their sources ({REBUILD})", True
        return "no compiled extension was built", False
    for relative in COMPILED:
        source = root / relative
        if relative not in built:
            return f"{relative} was not compiled ({REBUILD})", True
        if not checkout:
            continue
        if _extension(source) is None:
            return f"{relative} has no compiled extension ({REBUILD})", True
        if not unchanged(source, built[relative]):
            return f"{relative} changed since it was compiled ({REBUILD})", True
    return None, False


def install(root: Path) -> None:
    """Chooses the engine before any of its modules is imported; `root` is the folder that
    holds `games/` and `agents/` (the project root in a source checkout)."""
    global _reason, _stale, _root
    if any(name in sys.modules for name in _MODULES):
        return  # already chosen by this process (or a parent before a fork)
    _root = root
    _reason, _stale = _decide(root)
    if _reason is not None:
        sys.meta_path.insert(0, _SourceFinder())
        if _stale and not os.environ.get(_ENV_NOTICE):
            os.environ[_ENV_NOTICE] = "1"
            print(f"chancespiel: running pure Python: {_reason}", file=sys.stderr, flush=True)


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


def stale() -> bool:
    """True if pure Python runs because the sources are not those of the compiled build that
    exists (edited since `make build`)."""
    return _stale


def warn_timed(what: str) -> None:
    """Warns on stderr, once, before `what` (a run with time budgets) starts on a stale build's
    pure Python: a time budget buys a few times fewer nodes than it does compiled."""
    global _timing_warned
    if not _stale or _timing_warned:
        return
    _timing_warned = True
    print(
        f"chancespiel: warning: {what} has time budgets (time_ms) and runs on the pure Python "
        f"engine, a few times slower than the compiled one, so its results measure that: "
        f"{_reason}",
        file=sys.stderr,
        flush=True,
    )
