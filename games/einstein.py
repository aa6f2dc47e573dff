"""EinStein würfelt nicht! as an OpenSpiel game, `python_einstein_wurfelt_nicht`: the adapter
and the registrations. The rules are in `games.einstein_core`."""

from __future__ import annotations

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type, register_game
from chancespiel.games.einstein_core import (
    EINSTEIN_FEATURES,
    EinsteinRules,
    einstein_features,
    einstein_heuristic,
    einstein_move_ordering,
)
from chancespiel.games.registry import (
    GameEntry,
    register_entry,
    register_features,
    register_heuristic,
    register_move_ordering,
)

_DEFAULTS = {"setup": "random"}

_GAME_TYPE = chance_game_type(
    "python_einstein_wurfelt_nicht", "Python EinStein wurfelt nicht!", _DEFAULTS
)


class EinsteinState(CoreState):
    """OpenSpiel state of python_einstein_wurfelt_nicht; everything lives in `self.core`."""


class EinsteinGame(CoreGame):
    """OpenSpiel game python_einstein_wurfelt_nicht."""

    game_type = _GAME_TYPE
    state_class = EinsteinState
    rules_class = EinsteinRules


register_game(_GAME_TYPE, EinsteinGame)
register_heuristic(_GAME_TYPE.short_name, einstein_heuristic)
register_move_ordering(_GAME_TYPE.short_name, einstein_move_ordering)
register_features(_GAME_TYPE.short_name, einstein_features, EINSTEIN_FEATURES)
register_entry(
    GameEntry(
        short_name=_GAME_TYPE.short_name,
        description="EinStein wurfelt nicht! (= OpenSpiel's einstein_wurfelt_nicht, or free setup)",
        chance="two 720-way setup permutations, then a d6 before every move",
        status="done",
    )
)
