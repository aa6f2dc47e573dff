"""chancespiel agents: search algorithms as pyspiel bots, made from spec strings.

    from chancespiel.agents import make_bot
    bot = make_bot("hold(n=25)", game, player=0)

Importing this package registers every agent (and the games, which agents depend on).
"""

import chancespiel.games  # noqa: F401  (agents look up game heuristics)
from chancespiel.agents import baselines, cant_stop_policies, pig_policies
from chancespiel.agents.protocol import PyspielAdapter, SearchState, search_state
from chancespiel.agents.registry import AGENTS, check_spec, make_bot, parse_spec, register_agent

__all__ = [
    "AGENTS",
    "PyspielAdapter",
    "SearchState",
    "baselines",
    "cant_stop_policies",
    "check_spec",
    "make_bot",
    "parse_spec",
    "pig_policies",
    "register_agent",
    "search_state",
]
