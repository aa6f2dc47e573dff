"""Ra as an OpenSpiel game, `python_ra`: the adapter and the registrations. The rules, the core
and the heuristic are in `games.ra_core`."""

from __future__ import annotations

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type, register_game
from chancespiel.games.ra_core import RA_BOUNDS, RA_FEATURES, RaRules, ra_features, ra_heuristic
from chancespiel.games.registry import (
    GameEntry,
    register_entry,
    register_features,
    register_heuristic,
)

_DEFAULTS = {"epochs": 3}

_GAME_TYPE = chance_game_type("python_ra", "Python Ra (Reiner Knizia, two players)", _DEFAULTS)


class RaState(CoreState):
    """OpenSpiel state of python_ra; everything lives in `self.core` (a RaCore)."""


class RaGame(CoreGame):
    """OpenSpiel game python_ra."""

    game_type = _GAME_TYPE
    state_class = RaState
    rules_class = RaRules
    bounds = RA_BOUNDS


register_game(_GAME_TYPE, RaGame)
register_heuristic(_GAME_TYPE.short_name, ra_heuristic)
register_features(_GAME_TYPE.short_name, ra_features, RA_FEATURES)
register_entry(
    GameEntry(
        short_name=_GAME_TYPE.short_name,
        description="Ra (Reiner Knizia), two players: auctions of tiles with suns, three epochs",
        chance="a tile drawn from the bag: one outcome per kind left, weighted by its count",
        status="done",
    )
)
