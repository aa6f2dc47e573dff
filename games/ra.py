"""Ra as an OpenSpiel game, `python_ra`: the adapter and the game's declaration. The rules, the core
and the heuristic are in `games.ra_core`."""

from __future__ import annotations

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type
from chancespiel.games.ra_core import (
    RA_BOUNDS,
    RA_FEATURES,
    RaRules,
    ra_feature_key,
    ra_feature_pair,
    ra_features,
    ra_heuristic,
    ra_symmetric_outcomes,
)
from chancespiel.games.registry import GameSpec, register_game

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


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=RaGame,
        description="Ra (Reiner Knizia), two players: auctions of tiles with suns, three epochs",
        chance="a tile drawn from the bag: one outcome per kind left, weighted by its count",
        status="done",
        heuristic=ra_heuristic,
        features=ra_features,
        feature_names=RA_FEATURES,
        feature_pair=ra_feature_pair,
        feature_key=ra_feature_key,
        symmetric_outcomes=ra_symmetric_outcomes,
    )
)
