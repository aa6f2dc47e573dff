"""Agents made in Python: a registered agent with keyword arguments, as a bot factory.

    from chancespiel import agents

    def my_heuristic(state, player):  # the game's own state object; a value for `player`
        ...

    star2 = agents.star2(max_depth=3, heuristic=my_heuristic)  # an AgentConfig
    bot = star2(game, player=0, seed=1)  # a bot factory: factory(game, player, seed)

`chancespiel.agents.NAME(**params)` exists for every registered agent (`chancespiel agents`
lists them), made from its one definition in the registry: the same parameters, defaults and
bounds as its spec string, checked the same way (`registry.resolve`) when it is made. The
parameters that take hooks (`heuristic`, `ordering`) also take Python functions:

- heuristic(state, player) -> float: the value of `state` for `player`, within the game's
  utilities (for chancespiel's games [-1, 1]); called at the search's horizon (terminal
  states are valued by their returns) with the game's own state object: for chancespiel's
  games the rules core the searches use (Pig's `scores`, `turn_total`, ...), for any other
  game its pyspiel.State. A value outside the utilities, or NaN, stops the game with a
  one-line error (games.registry._checked_heuristic).
- ordering(state, actions) -> the same actions, most promising for the player to move first,
  with the same state object; an answer that is not a reordering of `actions` stops the game.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.agents.registry import (
    AGENTS,
    _spec_value,
    build_bot,
    canonical_spec,
    resolve,
    seat_game,
)


def _shown(value: Any) -> str:
    """A parameter's value as a spec writes it; a function by its name."""
    if callable(value):
        return str(getattr(value, "__name__", type(value).__name__))
    return _spec_value(value)


@dataclass(frozen=True)
class AgentConfig:
    """A registered agent with its parameters as Python values (checked when made): a bot
    factory, `config(game, player, seed=None) -> pyspiel.Bot`."""

    agent: str  # the registered name
    params: Mapping[str, Any] = field(default_factory=dict)  # the given ones, checked

    def __post_init__(self) -> None:
        _, full = resolve(self.agent, self.params)  # ValueError, as for a spec string
        object.__setattr__(self, "params", {key: full[key] for key in self.params})

    @property
    def spec(self) -> str | None:
        """The canonical spec string of this agent, or None when a parameter is a function
        (no spec string can name it)."""
        if any(callable(value) for value in self.params.values()):
            return None
        return canonical_spec(self._text(self.params))

    @property
    def label(self) -> str:
        """How records name this agent: its spec, or for one with a function, the agent and
        its parameters in a name that no spec has ('star2:heuristic=my_fn;max_depth=3')."""
        spec = self.spec
        if spec is not None:
            return spec
        info = AGENTS[self.agent]
        changed = sorted(
            (key, value) for key, value in self.params.items() if value != info.params[key].default
        )
        return f"{self.agent}:{';'.join(f'{key}={_shown(value)}' for key, value in changed)}"

    def _text(self, params: Mapping[str, Any]) -> str:
        given = ",".join(f"{key}={_shown(value)}" for key, value in sorted(params.items()))
        return f"{self.agent}({given})" if given else self.agent

    def __call__(
        self, game: pyspiel.Game | str, player: int, seed: int | None = None
    ) -> pyspiel.Bot:
        """The bot for `player` in `game`, seeded by `seed` unless the parameters set one.

        Raises:
          ValueError: as make_bot (a game the agent cannot play, a bad player or seed).
        """
        game = seat_game(game, player, seed)
        return build_bot(*resolve(self.agent, self.params), game, player, seed)

    def __repr__(self) -> str:
        return f"chancespiel.agents.{self._text(self.params)}"


def configure(agent: str, **params: Any) -> AgentConfig:
    """The registered `agent` with keyword parameters (`chancespiel.agents.NAME(...)` is this
    for every agent whose name is a Python identifier).

    Raises:
      ValueError: for an unknown agent or parameter, or a value of the wrong type or range.
    """
    return AgentConfig(agent, params)


class AgentMaker:
    """`chancespiel.agents.NAME`: makes the AgentConfig of agent NAME from keywords."""

    def __init__(self, agent: str):
        self.agent = agent
        info = AGENTS[agent]
        lines = [f"{info.help}", "", "Parameters (defaults; as in `chancespiel agents`):"]
        for key, param in info.params.items():
            bound = param.range_text()
            lines.append(
                f"  {key}={param.default!r}: {param.help}" + (f" ({bound})" if bound else "")
            )
        self.__doc__ = "\n".join(lines)
        self.__name__ = agent

    def __call__(self, **params: Any) -> AgentConfig:
        return configure(self.agent, **params)

    def __repr__(self) -> str:
        return f"<agent maker chancespiel.agents.{self.agent}>"


class AgentModule(types.ModuleType):
    """A module of `chancespiel.agents` named as one of its agents (mcts, bab, human,
    openspiel_mcts): calling the module makes that agent, as `chancespiel.agents.star2(...)`
    does, while its contents stay attributes."""

    def __call__(self, **params: Any) -> AgentConfig:
        return configure(self.__name__.rsplit(".", 1)[-1], **params)


def maker(name: str) -> AgentMaker:
    """The AgentMaker of a registered agent (AttributeError for an unknown name, as a
    module's missing attribute)."""
    if name not in AGENTS:
        raise AttributeError(f"module 'chancespiel.agents' has no attribute {name!r}")
    return AgentMaker(name)
