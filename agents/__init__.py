"""chancespiel agents: search algorithms as pyspiel bots, made from spec strings.

    from chancespiel.agents import make_bot
    bot = make_bot("star2(samples=15,time_ms=200)", game, player=0)

    from chancespiel import agents
    star2 = agents.star2(samples=15, heuristic=my_function)  # every agent, with keywords
    bot = star2(game, player=0, seed=1)

Importing this package registers every agent (and the games, which agents depend on). One
import per line, so that branches adding agents merge without conflicts. Our MCTS and DPW are
in `mcts`; OpenSpiel's own MCTS bots, wrapped for comparison, in `openspiel_mcts`.

The package layout, and the one direction of imports between its parts, is in the
docstring of `chancespiel` (chancespiel/__init__.py) and docs/architecture.md.
"""

import chancespiel.games
from chancespiel.agents import baselines
from chancespiel.agents import pig_policies
from chancespiel.agents import cant_stop_policies
from chancespiel.agents import star_minimax
from chancespiel.agents import bab
from chancespiel.agents import mcts
from chancespiel.agents import openspiel_mcts
from chancespiel.agents import human
from chancespiel.agents import chance_probcut
from chancespiel.games.core import Core
from chancespiel.agents.protocol import PyspielAdapter, search_state
from chancespiel.agents.registry import AGENTS, check_spec, make_bot, parse_spec, register_agent
from chancespiel.agents.configured import AgentConfig, configure
from chancespiel.agents import configured as _configured


def __getattr__(name: str) -> _configured.AgentMaker:
    """`chancespiel.agents.star2(max_depth=3, heuristic=h)`: every registered agent, made
    with keyword arguments (agents.configured)."""
    return _configured.maker(name)


# An agent named as one of this package's modules is made by calling the module.
for _name in AGENTS:
    _module = globals().get(_name)
    if type(_module) is type(_configured):
        _module.__class__ = _configured.AgentModule
del _name, _module
