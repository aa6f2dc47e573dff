"""Test-only agents that fail on purpose: raise, crash, hang, get stuck where SIGALRM cannot
stop them, run late, or play illegally.

Importing this module registers them (once per process). Local workers are forked from the
test process, so they know these agents too; a `chancespiel` subprocess does not.
"""

from __future__ import annotations

import os
import signal
import time

import pyspiel

from chancespiel.agents import AGENTS, register_agent
from chancespiel.agents.baselines import RandomBot
from chancespiel.agents.registry import Param
from chancespiel.agents.search_common import CLOCK, Limits


class FaultyBot(RandomBot):
    """Plays randomly, and misbehaves on its `on_move`-th move (counted from 1 per bot)."""

    def __init__(self, game, player, seed, fault, on_move, ms, time_ms, seat, clock, keeps):
        super().__init__(game, player, seed)
        self.fault, self.on_move, self.ms = fault, on_move, ms
        self.options = {"time_ms": time_ms}
        if time_ms is not None and keeps:  # a budget kept as a searching bot keeps it
            self.limits = Limits(time_ms=time_ms, clock=clock)
        self.moves = 0
        self.misbehaves = seat is None or seat == player

    def choose(self, state):
        self.moves += 1
        if not self.misbehaves:
            return super().choose(state)
        if self.fault == "slow" or self.moves == self.on_move:
            if self.fault == "raise":
                raise RuntimeError(f"deliberate failure on move {self.moves}")
            if self.fault == "exit":
                os._exit(3)
            if self.fault in ("hang", "slow"):
                time.sleep(self.ms / 1000.0)
            if self.fault == "stuck":
                # as a search in native code: the alarm's handler never gets to run
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                while True:
                    time.sleep(1.0)
            if self.fault == "illegal":
                return 99
        return super().choose(state)


def _factory(fault: str):
    def make(game: pyspiel.Game, player: int, seed, on_move, ms, time_ms, seat, clock, keeps):
        return FaultyBot(game, player, seed, fault, on_move, ms, time_ms, seat, clock, keeps)

    return make


_PARAMS = {
    "on_move": Param(3, "the move on which to misbehave", high=10_000),
    "ms": Param(20.0, "how long to sleep (hang, slow)", high=3_600_000.0),
    "time_ms": Param(None, "the per-move budget this agent claims", float, high=3_600_000.0),
    "seat": Param(None, "misbehave only in this seat (none: in either)", int, high=1),
    "clock": CLOCK,
    "keeps": Param(True, "keeps its budget as a searching bot does (false: as a plugin's may not)"),
}

FAULTS = ("raise", "exit", "hang", "stuck", "slow", "illegal")
FAULTY_AGENTS = tuple(f"test_{fault}" for fault in FAULTS)

for _fault in FAULTS:
    if f"test_{_fault}" not in AGENTS:
        register_agent(f"test_{_fault}", f"test only: random play that does {_fault}", _PARAMS)(
            _factory(_fault)
        )
