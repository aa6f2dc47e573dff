"""Baseline agents that need no search: uniform random play."""

from __future__ import annotations

import pyspiel

from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.protocol import SearchState
from chancespiel.agents.registry import register_agent


class RandomBot(PolicyBot):
    """Plays a uniformly random legal action."""

    def choose(self, state: SearchState) -> int:
        """A uniformly random legal action."""
        return self.rng.choice(state.legal_actions())


@register_agent("random", "uniformly random legal actions (any game)")
def _make_random(game: pyspiel.Game, player: int, seed: int | None) -> RandomBot:
    return RandomBot(game, player, seed)
