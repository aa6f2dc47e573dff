"""Settings of the test session."""

import atexit
import os
import shutil
import signal
import tempfile

import pytest

# A suite started in the background by a shell without job control inherits SIGINT ignored,
# and so would every command it starts (an ignored signal stays ignored across exec): the
# tests that press Ctrl-C on a command need it delivered.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# What the Pig solver keeps between processes goes to a folder of this session (its commands
# inherit it), not to the user's cache: every session solves afresh, and leaves nothing.
_CACHE = tempfile.mkdtemp(prefix="chancespiel-test-cache-")
os.environ["CHANCESPIEL_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture
def figure_problems(monkeypatch):
    """Every figure saved while the test runs, checked as drawn: a list of (file, what
    `layout_problems` finds in it)."""
    from matplotlib.figure import Figure

    from chancespiel.evaluation.figures import layout_problems

    saved: list[tuple[str, list[str]]] = []
    save = Figure.savefig

    def checked(self, fname, *args, **kwargs):
        saved.append((str(fname), layout_problems(self)))
        return save(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked)
    return saved
