"""chancespiel: search in two-player zero-sum games with chance, as an OpenSpiel plugin.

Subpackages: `chancespiel.games` (registers the games with pyspiel on import),
`chancespiel.agents` (search algorithms and the bot registry) and
`chancespiel.evaluation` (matches, statistics, experiments and the `chancespiel` CLI).
"""

__version__ = "0.1.0"
