"""A plugin's rules core compiled with mypyc against the compiled engine: `chancespiel compile`.

A core written as chancespiel's own are (a typed module with a `games.core.Core` subclass,
its `SharedRules` and its heuristic; examples/race_core.py) is compiled the way the engine is
(engine.MYPYC_OPTIONS, one extension per module), as a native subclass of the engine's `Core`,
so that the compiled searches call it through its method table, as they call Pig's. The
extensions go into `__compiled__/` beside the source, with a manifest of what they were built
from: the source (by content) and the engine's build (`engine.build_id`).

`use_folder` (chancespiel.plugins), which puts a plugin's folder on the Python path, puts
`__compiled__/` before it exactly when the cores there can run: the engine runs compiled, it
is the build they were compiled against, and every source is the one compiled. Otherwise the
sources run as pure Python (with a one-line notice when a source or the engine changed since).

Compiling needs the engine's source checkout, built (`pip install -e .`): mypyc regenerates
the engine's C beside the plugin's, and the build goes on only if it equals the C the engine
was compiled from, so that the plugin links with the engine it will run with. Without mypyc or
a C compiler nothing is compiled and the plugin runs as pure Python, as the engine does.
"""

from __future__ import annotations

import contextlib
import filecmp
import hashlib
import io
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chancespiel import engine

COMPILED_DIR = "__compiled__"  # beside the plugin's sources
MANIFEST = "manifest.json"
REBUILD = "chancespiel compile it again"

_noticed: set[str] = set()  # folders whose stale build was announced in this process


class CompileError(Exception):
    """A plugin core that cannot be compiled (one line)."""


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / COMPILED_DIR / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("modules"), dict) else None


def _stale_reason(folder: Path, data: dict[str, Any]) -> str | None:
    """Why the build in `folder` cannot run with this engine (None: it can)."""
    if data.get("engine") != engine.build_id():
        return "the engine was rebuilt since"
    for module, built in data["modules"].items():
        source = folder / f"{module}.py"
        if not source.is_file() or not engine.unchanged(source, built):
            return f"{source.name} changed since it was compiled"
    return None


def usable_build(folder: Path) -> Path | None:
    """The `__compiled__` folder of `folder` if its cores can run in this process (module
    docstring), else None; a build that the engine or an edit made stale is announced once."""
    data = _read_manifest(folder)
    if data is None or engine.name() != "compiled":
        return None  # no build; or pure Python on purpose (the engine said why)
    reason = _stale_reason(folder, data)
    if reason is None:
        return folder / COMPILED_DIR
    if str(folder) not in _noticed:
        _noticed.add(str(folder))
        modules = ", ".join(sorted(data["modules"]))
        print(
            f"chancespiel: running {modules} as pure Python: {reason} ({REBUILD})",
            file=sys.stderr,
            flush=True,
        )
    return None


def _checked_sources(files: Sequence[str]) -> tuple[Path, list[Path]]:
    """The folder and the paths of `files`: top-level modules of one folder."""
    if not files:
        raise CompileError("name the .py files of the cores to compile")
    paths = [Path(file).expanduser().resolve() for file in files]
    for path, given in zip(paths, files, strict=True):
        if path.suffix != ".py" or not path.is_file():
            raise CompileError(f"{given}: not a .py file")
        if (path.parent / "__init__.py").exists():
            raise CompileError(
                f"{given}: compile a top-level module (its folder is a package, with an "
                "__init__.py)"
            )
        if not path.stem.isidentifier():
            raise CompileError(f"{given}: {path.stem!r} is not a module name")
    folders = {path.parent for path in paths}
    if len(folders) > 1:
        raise CompileError("compile the modules of one folder at a time")
    return folders.pop(), paths


def _checkout() -> Path:
    """The engine's source checkout, built; raises CompileError where there is none."""
    root = engine.root()
    if root is None or not (root / "pyproject.toml").is_file():
        raise CompileError(
            "compiling a plugin core needs chancespiel's source checkout, installed with "
            "`pip install -e .` (the engine's build tree); this chancespiel is installed"
        )
    if engine.name() != "compiled":
        raise CompileError(
            f"{engine.describe()}: a plugin core compiles against the compiled engine "
            "(pip install -e . with a C compiler, without CHANCESPIEL_PURE_PYTHON)"
        )
    if not (root / "build" / "chancespiel").is_dir():
        raise CompileError(f"the engine's build tree {root / 'build'} is missing (make build)")
    return root


def can_compile() -> str | None:
    """Why nothing can be compiled here (no mypyc, no C compiler), or None."""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed"
    if not engine.compiler_found():
        return "no C compiler was found"
    return None


def _same_engine(generated: Path, built: Path) -> bool:
    """True if every C file of the engine generated now equals the one it was built from."""
    engine_c = generated / "chancespiel"
    files = [p for p in engine_c.rglob("*") if p.is_file()]
    return bool(files) and all(
        (built / p.relative_to(generated)).is_file()
        and filecmp.cmp(p, built / p.relative_to(generated), shallow=False)
        for p in files
    )


def compile_plugin(files: Sequence[str]) -> str:
    """Compiles the cores `files` (top-level modules of one folder) into `__compiled__/`
    beside them; returns what was done, in one line. Without mypyc or a C compiler nothing is
    compiled and the message says the cores run as pure Python.

    Raises:
      CompileError: for files that are not top-level modules, an engine that is not compiled
        from a checkout, a core mypyc refuses (its errors printed above) or a failed compile.
    """
    folder, sources = _checked_sources(files)
    names = [path.stem for path in sources]
    missing = can_compile()
    if missing is not None:
        return f"{missing}: {', '.join(names)} will run as pure Python"
    root = _checkout()
    clashes = [name for name in names if name in ("chancespiel", *sys.builtin_module_names)]
    if clashes:
        raise CompileError(f"module name {clashes[0]!r} is taken")
    from mypyc.build import mypycify
    from setuptools import Distribution

    key = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    work = root / "build" / "plugins" / key
    generated = work / "c"
    options = [*engine.MYPYC_OPTIONS, f"--cache-dir={work / 'cache'}"]
    tree = engine.link_tree(root, root / "build" / "mypyc-src")
    states = {path.stem: engine.source_state(path) for path in sources}  # what mypyc reads
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output):
            extensions = mypycify(
                options + tree + [str(p) for p in sources],
                separate=True,
                opt_level="3",
                target_dir=str(generated),
            )
    except (Exception, SystemExit) as error:  # mypyc exits on a type error
        sys.stderr.write(output.getvalue())
        raise CompileError(f"mypyc refused {', '.join(files)} ({error}; see above)") from None
    if not _same_engine(generated, root / "build"):
        raise CompileError(
            "the engine's C generated now is not what it was compiled from (a different mypyc, "
            "or edited sources): make build, then compile again"
        )
    wanted = {*names, *(f"{name}__mypyc" for name in names)}
    mine = [ext for ext in extensions if ext.name in wanted]
    staging = work / "lib"
    shutil.rmtree(staging, ignore_errors=True)
    distribution = Distribution({"ext_modules": mine, "script_name": "chancespiel compile"})
    command: Any = distribution.get_command_obj("build_ext")
    command.build_lib, command.build_temp = str(staging), str(work / "tmp")
    try:
        with contextlib.redirect_stdout(output):
            command.ensure_finalized()
            command.run()
    except (Exception, SystemExit) as error:
        sys.stderr.write(output.getvalue())
        raise CompileError(f"compiling {', '.join(names)} failed ({error})") from None
    return _install(folder, states, staging)


def _install(folder: Path, states: dict[str, Any], staging: Path) -> str:
    """Moves the extensions built in `staging` into `folder/__compiled__` and records them
    in its manifest (keeping the other modules compiled there before)."""
    target = folder / COMPILED_DIR
    target.mkdir(exist_ok=True)
    data = _read_manifest(folder) or {"modules": {}}
    if data.get("engine") != engine.build_id():
        data["modules"] = {}  # built for another engine: useless now
    data["modules"].update(states)
    for old in target.iterdir():  # the last build of these modules
        if old.name.split(".")[0].removesuffix("__mypyc") in states:
            old.unlink()
    for built in staging.iterdir():
        shutil.copy2(built, target / built.name)
    data["engine"] = engine.build_id()
    (target / MANIFEST).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    names = ", ".join(states)
    return f"compiled {names} into {target} (used when the engine runs compiled)"
