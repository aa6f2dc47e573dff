"""The README opens with its two make commands, and its Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 2, "the README must keep its Python examples"
    exec(compile(blocks[0], str(README), "exec"), {})
    printed = capsys.readouterr().out
    assert printed.strip() in ("[1.0, -1.0]", "[-1.0, 1.0]")


def test_readme_openspiel_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    names: dict = {}
    exec(compile(blocks[1], str(README), "exec"), names)
    assert sorted(names["returns"]) == [-1.0, 1.0]  # a finished two-player zero-sum game
    assert -1.0 <= names["value"] <= 1.0


def test_readme_starts_with_the_two_commands():
    """A newcomer's first lines: set up and play a match, set up and test."""
    first = re.search(r"```\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert first, "the README must open with a command block"
    commands = [line.split("#")[0].strip() for line in first[1].splitlines()]
    assert commands == ["make demo", "make test"]
