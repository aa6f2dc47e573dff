"""A researcher's own games, agents and heuristics: modules that register them, loaded before
any command runs and in every worker that plays a game.

Three ways to name them, all loaded by `load_plugins` (each module once per process):

- `chancespiel --import MODULE` (repeatable): a module on the Python path or in the current
  directory (`my_lab.agents`, `my_game`) or the path of a .py file (`./my_agent.py`), whose
  folder is then on the path too, for the modules beside it that it imports;
- the environment variable CHANCESPIEL_IMPORT, the same names separated by commas;
- an installed package's entry point in the group `chancespiel.plugins`, so that
  `pip install my-lab` is enough (`[project.entry-points."chancespiel.plugins"]` in its
  pyproject.toml, `lab = "my_lab.agents"`).

A module registers with `chancespiel.agents.register_agent`, `chancespiel.games.
register_heuristic` and `pyspiel.register_game`, as it would without chancespiel's command.
The names loaded in this process (`loaded()`) travel with every game task, so a worker that
did not inherit them (a spawned process, a Ray node) loads them before it builds a bot.

A plugin that fails while it is imported (an error, a SyntaxError, sys.exit) is one line
naming its file and line; what it prints goes to stderr, so that stdout holds only the
command's output (`--json`). CHANCESPIEL_NO_ENTRY_POINTS=1 skips the entry points, for an
installed package whose plugin is broken.

A folder put on the path for a plugin brings the rules cores compiled in it by `chancespiel
compile` (chancespiel.plugin_build) when they can run: see `use_folder`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path

ENV = "CHANCESPIEL_IMPORT"
DEBUG_ENV = "CHANCESPIEL_DEBUG"  # set (to 1) by --debug, so that workers inherit it
NO_ENTRY_POINTS = "CHANCESPIEL_NO_ENTRY_POINTS"  # set (to 1): the entry points are not loaded
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


def _failure(error: BaseException, origin: str | None) -> str:
    """What went wrong importing a plugin, in one line: the error and where (the plugin's
    file and line when it is in the traceback, else where it was raised)."""
    if isinstance(error, SystemExit):
        what = f"it exited (sys.exit({error.code!r})) while imported"
    elif isinstance(error, SyntaxError):  # its str() names the place too
        what = f"SyntaxError: {error.msg}"
    else:
        what = f"{type(error).__name__}: {error_line(error)}"
    where = None
    if isinstance(error, SyntaxError) and error.filename:
        where = (error.filename, error.lineno)
    else:
        frames = traceback.extract_tb(error.__traceback__)
        own = [f for f in frames if origin is not None and f.filename == origin]
        chosen = (own or [f for f in frames if not f.filename.startswith("<frozen")])[-1:]
        where = (chosen[0].filename, chosen[0].lineno) if chosen else None
    return what if where is None else f"{what} ({where[0]}, line {where[1]})"


def error_line(error: BaseException) -> str:
    """The first line of an exception's message (its class without one)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


_OURS = ("chancespiel", "chancespiel.games", "chancespiel.agents", "chancespiel.evaluation")


def _library_folders() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(chancespiel's folders and the standard library's, installed packages' folders): where
    a user's own code is not."""
    import sysconfig

    ours = [p for name in _OURS if name in sys.modules for p in sys.modules[name].__path__]
    ours += [sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")]
    installed = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]
    norm = lambda paths: tuple(str(Path(p).resolve()) + os.sep for p in paths if p)  # noqa: E731
    return norm(ours), norm(installed)


def where_raised(error: BaseException) -> str | None:
    """`file:line` of the innermost frame of `error`'s traceback in the user's own code (not
    chancespiel's, the standard library's or an installed package's; else an installed
    package's, else the innermost), relative to the current directory when under it; None
    for an error without a traceback."""
    ours, installed = _library_folders()
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith("<") and not str(Path(f.filename).resolve()).startswith(ours)
    ]
    own = [f for f in frames if not str(Path(f.filename).resolve()).startswith(installed)]
    every = [f for f in traceback.extract_tb(error.__traceback__) if f.filename[:1] != "<"]
    chosen = (own or frames or every)[-1:]  # chancespiel's own frame if that is all
    if not chosen:
        return None
    path = Path(chosen[0].filename)
    with contextlib.suppress(ValueError):
        path = path.resolve().relative_to(Path.cwd())
    return f"{path}:{chosen[0].lineno}"


def located(error: BaseException) -> str:
    """`str(error)` with where it was raised (`where_raised`) at the end of its first line,
    for an error raised outside chancespiel (a plugin's bug, not one of our own errors, which
    name their place themselves)."""
    text = str(error)
    place = None if type(error).__module__.startswith("chancespiel.") else where_raised(error)
    if place is None:
        return text
    first, newline, rest = text.partition("\n")
    return f"{first} (at {place}){newline}{rest}"


def debugging() -> bool:
    """True under `chancespiel --debug` (CHANCESPIEL_DEBUG set, and not 0)."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def print_traceback(error: BaseException, what: str) -> None:
    """Under --debug, the full traceback of `error` on stderr, after a line naming `what`
    failed; a one-line error raised `from None` in place of another shows that one's too."""
    if not debugging():
        return
    print(f"chancespiel: --debug: traceback of {what}:", file=sys.stderr)
    context = error.__context__ if error.__suppress_context__ else None
    if context is not None:
        traceback.print_exception(context, file=sys.stderr)
        print("which was reported as:", file=sys.stderr)
    traceback.print_exception(error, file=sys.stderr)
    sys.stderr.flush()


def _import(name: str, given: str) -> None:
    """Imports the plugin `name` (canonical), naming it `given` (as the user wrote it) in
    errors; what it prints goes to stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        _import_quietly(name, given)


def use_folder(folder: Path) -> None:
    """Puts `folder` on the Python path (last: it shadows no installed module), and before
    everything the cores compiled in it (`plugin_build.usable_build`), which are then
    imported instead of their sources."""
    from chancespiel import plugin_build

    text = str(folder)
    if text not in sys.path:
        sys.path.append(text)
    compiled = plugin_build.usable_build(folder)
    if compiled is not None and str(compiled) not in sys.path:
        sys.path.insert(0, str(compiled))


def _import_quietly(name: str, given: str) -> None:
    if _is_path(name):
        path = Path(name)
        if not path.is_file():
            raise PluginError(f"--import {given}: no such file")
        use_folder(path.parent)
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
        except (Exception, SystemExit) as e:
            del sys.modules[module_name]
            raise PluginError(f"--import {given}: {_failure(e, str(path))}") from None
        return
    module_name = name.split(":")[0]  # an entry point's "module:attribute"
    use_folder(Path.cwd())  # as `python -m` finds them, but after the installed modules
    try:
        importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and not module_name.startswith(e.name):  # the plugin imports it
            raise PluginError(f"--import {given}: {_failure(e, _origin(module_name))}") from None
        missing = e.name or name
        raise PluginError(
            f"--import {given}: no module named {missing!r} on the Python path "
            "(give a module name or the path of a .py file)"
        ) from None
    except (Exception, SystemExit) as e:
        raise PluginError(f"--import {given}: {_failure(e, _origin(module_name))}") from None


def _origin(module_name: str) -> str | None:
    """The file of a module, if it can be found without importing it."""
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    return None if spec is None else spec.origin


def load_plugins(names: Iterable[str] = ()) -> list[str]:
    """Imports `names`, then those of CHANCESPIEL_IMPORT and the entry points (each once per
    process; no entry points with CHANCESPIEL_NO_ENTRY_POINTS set) and returns every name
    loaded so far.

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
    if _entry_points_read or os.environ.get(NO_ENTRY_POINTS, "") not in ("", "0"):
        return loaded()  # once per process: scanning installed packages takes a while
    _entry_points_read = True
    skip = f"(set {NO_ENTRY_POINTS}=1 to skip the entry points)"
    try:
        entries = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as e:  # an installed package's metadata that does not parse
        raise PluginError(f"entry points of group {ENTRY_POINT_GROUP}: {e} {skip}") from None
    for entry in entries:
        if entry.value not in _LOADED:
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    entry.load()
            except (Exception, SystemExit) as e:
                raise PluginError(
                    f"entry point {entry.name} ({entry.value}) of group {ENTRY_POINT_GROUP}: "
                    f"{_failure(e, _origin(entry.module))} {skip}"
                ) from None
            _LOADED[entry.value] = None
    return loaded()


def loaded() -> list[str]:
    """The plugins this process has loaded, in order (what a worker must load too)."""
    return list(_LOADED)
