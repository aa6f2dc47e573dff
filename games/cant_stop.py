"""Can't Stop as an OpenSpiel game, `python_cant_stop`: the adapter and the game's declaration.
The rules, the core and the heuristics are in `games.cant_stop_core`."""

from __future__ import annotations

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type
from chancespiel.games.cant_stop_core import (
    CANT_STOP_BOUNDS,
    CANT_STOP_FEATURES,
    ROLLING,
    CantStopCore,
    CantStopRules,
    cant_stop_features,
    cant_stop_heuristic,
    cant_stop_progress_heuristic,
)
from chancespiel.games.registry import GameSpec, register_game

_DEFAULTS = {
    "sides": 6,
    "shortest": 3,
    "height_step": 2,
    "columns_to_win": 3,
    "horizon": 1000,
    "ordered_dice": False,
}

_GAME_TYPE = chance_game_type("python_cant_stop", "Python Can't Stop", _DEFAULTS)


class CantStopState(CoreState):
    """OpenSpiel state of python_cant_stop; everything lives in `self.core`."""


class CantStopGame(CoreGame):
    """OpenSpiel game python_cant_stop."""

    game_type = _GAME_TYPE
    state_class = CantStopState
    rules_class = CantStopRules
    bounds = CANT_STOP_BOUNDS


def cant_stop_move_note(core: CantStopCore, player: int, action: int) -> str | None:
    """Announces a roll that busts (the turn's progress lost), for `chancespiel play`."""
    if core.phase != ROLLING or core.moves_for_roll(action):
        return None
    if core.nrun:
        return f"bust: player {core.player} loses this turn's progress; the turn passes"
    return f"bust on the turn's first roll: player {core.player} must pass"


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=CantStopGame,
        description="Can't Stop (Sackson): 11 columns, 4 dice, 3 runners; win 3 columns",
        chance="a roll of 4 dice before every move: 126 distinct multisets (or 1296 ordered)",
        status="done",
        heuristic=cant_stop_heuristic,
        variants={"progress": cant_stop_progress_heuristic},
        note=cant_stop_move_note,
        features=cant_stop_features,
        feature_names=CANT_STOP_FEATURES,
    )
)
