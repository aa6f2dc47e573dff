"""chancespiel agents: search algorithms as pyspiel bots, made from spec strings.

    from chancespiel.agents import make_bot
    bot = make_bot("star2(samples=15,time_ms=200)", game, player=0)

Importing this package registers every agent (and the games, which agents depend on). One
import per line, so that branches adding agents merge without conflicts. Our MCTS and DPW are
in `mcts`; OpenSpiel's own MCTS bots, wrapped for comparison, in `openspiel_mcts`.

The layout (imports point one way: games <- agents <- evaluation <- evaluation.experiments):

    games/                   chancespiel.games: rules engines behind thin OpenSpiel adapters,
                             heuristics, exact solvers. A new game is one module here.
    agents/                  chancespiel.agents: search algorithms as OpenSpiel bots, one module
                             per family, and the agent registry. A new agent is one module here.
    evaluation/              chancespiel.evaluation: the toolkit (matches, runner, parallel and
                             Ray backends, statistics, ratings, SPRT, tuning, reports, plots).
    evaluation/cli/          the `chancespiel` command: parsing and printing, one module per
                             group of subcommands.
    evaluation/experiments/  the paper studies, one module per table or figure. A new experiment
                             is one module defining EXPERIMENT.
    results/  docs/          committed results (with command, machine, date); guides.
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
