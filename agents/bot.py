"""The pyspiel.Bot base every chancespiel agent derives from."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pyspiel

from chancespiel.agents.protocol import search_state
from chancespiel.agents.result import SearchResult
from chancespiel.agents.search_common import Limits
from chancespiel.games.core import Core


class NotSearchingError(ValueError):
    """The bot plays without a search it can report (a fixed rule, a table, a person, a search
    that keeps its tree to itself): there is nothing to analyse."""


class PolicyBot(pyspiel.Bot):
    """A bot that picks an action from a private search-protocol copy of the state.

    Subclasses implement `choose(state)`. The bot owns its random generator (`self.rng`),
    seeded from its spec; no global random state is used. A bot that searches keeps what its
    last search found in `last_result` (None after a move it played without searching), which
    the match runner reads for node counts and `analyse` returns. A bot that searches under
    a budget keeps it in `limits` (None: the bot does not search, or has no budget).
    """

    last_result: SearchResult | None = None
    limits: Limits | None = None

    def __init__(self, game: pyspiel.Game, player: int, seed: int | None):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.game_string = str(game)  # the variant this bot was made for (rules, parameters)
        self.player = player
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, state: Core) -> int:
        """The action to play in `state` (a private copy the bot may change)."""
        raise NotImplementedError

    def analyse(self, state: pyspiel.State) -> SearchResult:
        """Runs the bot's search on `state` without playing; what `choose` found.

        Raises:
          NotSearchingError: if the bot does not search.
        """
        self.last_result = None
        self.choose(search_state(state))
        if self.last_result is None:
            raise NotSearchingError("it plays without searching")
        return self.last_result

    def check_turn(self, state: pyspiel.State) -> None:
        """Raises ValueError unless `state` is of the game this bot was made for (a Pig policy
        solved for one goal would play another Pig's state silently wrong) and it is this bot's
        turn."""
        if not isinstance(state, pyspiel.State):
            raise ValueError(f"{type(self).__name__} needs a pyspiel.State, got {state!r}")
        if (played := str(state.get_game())) != self.game_string:
            raise ValueError(f"{type(self).__name__} was made for {self.game_string}, not {played}")
        if state.current_player() != self.player:
            raise ValueError(
                f"{type(self).__name__} plays player {self.player} but it is player "
                f"{state.current_player()}'s turn"
            )

    def step(self, state: pyspiel.State) -> int:
        """The bot's action in `state`, which must be its turn."""
        self.check_turn(state)
        return self.choose(search_state(state))

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """The action as a deterministic policy, and the action."""
        action = self.step(state)
        return [(action, 1.0)], action

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset: the bot keeps no per-game memory."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Ignored: the bot reads everything it needs from the state."""


def require_game(game: pyspiel.Game, agent: str, names: Iterable[str]) -> None:
    """Raises ValueError unless `game`'s short name is one of `names`."""
    allowed = tuple(names)
    short_name = game.get_type().short_name
    if short_name not in allowed:
        raise ValueError(f"agent {agent} plays only {', '.join(allowed)}, not {short_name}")
