"""Builds the compiled engine (chancespiel/engine.py lists its modules) with mypyc.

Everything else is in pyproject.toml. Where mypyc or a C compiler is missing, or a module
fails to compile, the package installs as pure Python with a one-line notice: the same
source runs either way.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
ENGINE = runpy.run_path(str(ROOT / "chancespiel" / "engine.py"))
# mypyc names a module after its path: a tree of links gives the sources their import names
# (pyproject's package-dir installs games/ as chancespiel.games).
TREE = ROOT / "build" / "mypyc-src"


def notice(text: str) -> None:
    print(f"chancespiel: {text}; installing the pure Python engine", file=sys.stderr)


def link_tree() -> list[str]:
    package = TREE / "chancespiel"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").touch()
    for folder in ("games", "agents"):
        link = package / folder
        if not link.is_symlink():
            link.symlink_to(ROOT / folder, target_is_directory=True)
    return [str(TREE / "chancespiel" / relative) for relative in ENGINE["COMPILED"]]


class OptionalBuildExt(build_ext):
    """Any compile failure leaves the pure Python engine, never a failed install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            notice(f"compiling the engine failed ({error})")

    def build_extension(self, ext):  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as error:
            notice(f"compiling {ext.name} failed ({error})")


def extensions() -> list:
    if ENGINE["pure_requested"]():
        notice(f"{ENGINE['ENV_PURE']} is set")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        notice("mypyc is not installed")
        return []
    if not ENGINE["compiler_found"]():
        notice("no C compiler was found")
        return []
    options = ["--ignore-missing-imports", "--follow-imports=silent"]
    try:
        return mypycify(options + link_tree(), group_name=ENGINE["GROUP"], opt_level="3")
    except (Exception, SystemExit) as error:  # mypyc exits on a type error
        notice(f"mypyc refused the engine's sources ({error})")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
