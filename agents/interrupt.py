"""Lets Ctrl-C reach a search of the compiled engine.

CPython runs a signal's Python handler (Ctrl-C's KeyboardInterrupt) only from its interpreter
loop; compiled code that never enters it, such as a long Star2 search on a compiled core,
would hold the interrupt back until the search ends. This module is never compiled: calling
its function from a compiled search enters the interpreter, which runs the pending handlers
and raises their exception there.
"""

from __future__ import annotations


def poll_interrupt() -> None:
    """Nothing, interpreted: its call lets pending signal handlers run (see the module)."""
