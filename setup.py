"""Builds the compiled engine (chancespiel/engine.py lists its modules) with mypyc.

Everything else is in pyproject.toml. Where mypyc or a C compiler is missing, or a module
fails to compile, the package installs as pure Python with a one-line notice: the same
source runs either way.

Each module is compiled into its own extension (mypyc's separate compilation), so that a
rebuild after an edit recompiles only the modules whose generated C changed: mypy's cache
under build/ regenerates only what the edit touches, and an extension whose C and headers are
older than the copy beside its source is reused as it is. Extensions compile in parallel, one
per core. The build writes a manifest (engine.MANIFEST) of the sources it compiled, by
content: the engine runs compiled only while the sources match it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import runpy
import shutil
import sys
import time
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
ENGINE = runpy.run_path(str(ROOT / "chancespiel" / "engine.py"))
# mypyc names a module after its path: a tree of links gives the sources their import names.
TREE = ROOT / "build" / "mypyc-src"
CACHE = ROOT / "build" / "mypyc-cache"  # mypy's incremental cache: what an edit leaves alone


def notice(text: str) -> None:
    print(f"chancespiel: {text}; installing the pure Python engine", file=sys.stderr)


def can_compile() -> bool:
    """False, with the notice why, where the engine will not be compiled (decided cheaply:
    mypyc itself runs only when build_ext is set up)."""
    if ENGINE["pure_requested"]():
        notice(f"{ENGINE['ENV_PURE']} is set")
    elif importlib.util.find_spec("mypyc") is None:
        notice("mypyc is not installed")
    elif not ENGINE["compiler_found"]():
        notice("no C compiler was found")
    else:
        return True
    return False


COMPILING = can_compile()


GENERATED: dict = {}  # the sources generate() read


@functools.cache
def generate() -> list:
    """The engine's extensions, their C written (or kept) by mypyc; none if it refuses. Once
    per process: setuptools finalizes build_ext afresh for each stage of a build."""
    # what mypyc is about to read: the manifest's record of each source
    GENERATED["states"] = {
        relative: ENGINE["source_state"](ROOT / relative) for relative in ENGINE["COMPILED"]
    }
    options = [*ENGINE["MYPYC_OPTIONS"], f"--cache-dir={CACHE}"]
    try:
        from mypyc.build import mypycify

        sources = ENGINE["link_tree"](ROOT, TREE)
        try:
            return mypycify(options + sources, separate=True, opt_level="3")
        except Exception:  # (not SystemExit: a type error fails without the cache too)
            if not CACHE.exists():
                raise
            # mypyc's incremental cache can hold a class that no longer fits the modules
            # compiled against it (an i64 attribute added to a compiled class failed every
            # later build with "value is not in list"); without it mypyc reads nothing stale,
            # and the extensions whose C it writes unchanged are still reused.
            print(
                "chancespiel: mypyc failed with its incremental cache; compiling without it",
                file=sys.stderr,
            )
            shutil.rmtree(CACHE)
            return mypycify(options + sources, separate=True, opt_level="3")
    except (Exception, SystemExit) as error:  # mypyc exits on a type error
        notice(f"mypyc refused the engine's sources ({error})")
        return []


class EngineDistribution(Distribution):
    """Has extension modules exactly when the engine is to be compiled, so that build_ext runs
    (and the wheel is tagged for this platform) then, and only then."""

    def has_ext_modules(self) -> bool:
        return COMPILING


class EngineBuildExt(build_ext):
    """Runs mypyc, compiles what changed, one extension per core, and writes the manifest.

    A compile failure leaves the whole engine pure Python (no manifest), never a failed
    install: the first one is shown, and the extensions not started yet are not compiled."""

    def finalize_options(self) -> None:
        self.failed = False
        self.reused: set[str] = set()
        self.distribution.ext_modules = generate() if COMPILING else []
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        manifest = self.manifest()
        manifest.unlink(missing_ok=True)  # no build is trusted until this one is complete
        if not self.extensions:
            return
        start = time.perf_counter()
        try:
            super().run()
        except Exception as error:  # (copying a failed extension beside its source, say)
            if not self.failed:
                notice(f"compiling the engine failed ({error})")
            return
        if self.failed:
            return
        sources = {relative: GENERATED["states"][relative] for relative in ENGINE["COMPILED"]}
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps({"sources": sources}, indent=1) + "\n", encoding="utf-8")
        print(
            f"chancespiel: engine: {len(self.extensions) - len(self.reused)} of "
            f"{len(self.extensions)} extensions compiled in {time.perf_counter() - start:.1f} s "
            "(the others unchanged)"
        )

    def build_extension(self, ext):  # type: ignore[no-untyped-def]
        if self.failed or self.reuse(ext):
            return
        if self.compiler.compiler_type == "unix":
            # A module's own functions called from its others may then be inlined (the
            # extensions are shared libraries, whose global functions could otherwise be
            # replaced at load time), such as a core's small helpers (PigCore.score).
            ext.extra_compile_args = [*ext.extra_compile_args, "-fno-semantic-interposition"]
        try:
            super().build_extension(ext)
        except Exception as error:
            if not self.failed:
                self.failed = True
                notice(f"compiling {ext.name} failed ({error})")

    def reuse(self, ext) -> bool:  # type: ignore[no-untyped-def]
        """Copies the extension beside the sources (the last build's) into the build instead
        of compiling it again, when it is newer than the C and headers it is built from."""
        inplace, regular = self._get_inplace_equivalent(self.get_finalized_command("build_py"), ext)
        if not os.path.isfile(inplace):
            return False
        built = os.path.getmtime(inplace)
        inputs = [*ext.sources, *ext.depends]
        if any(not os.path.isfile(p) or os.path.getmtime(p) >= built for p in inputs):
            return False
        os.makedirs(os.path.dirname(regular), exist_ok=True)
        shutil.copy2(inplace, regular)  # keeps the time: the in-place copy is skipped
        self.reused.add(ext.name)
        return True

    def manifest(self) -> Path:
        """Where the manifest goes: beside the sources when building in place (editable
        installs), else into the build, and so the wheel."""
        folder = ROOT / "chancespiel" if self.inplace else Path(self.build_lib) / "chancespiel"
        return folder / ENGINE["MANIFEST"]


setup(distclass=EngineDistribution, cmdclass={"build_ext": EngineBuildExt})
