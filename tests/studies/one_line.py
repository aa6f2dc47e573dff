"""A command's bad input: exit status 2 and a one-line error."""

from __future__ import annotations

from chancespiel.evaluation import cli


def one_line_error(argv: list[str], capsys) -> str:
    """Runs the command, which must fail with a one-line error; returns the line."""
    capsys.readouterr()
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    return err
