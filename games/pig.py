"""Pig as an OpenSpiel game, `python_pig`: the adapter, the reader of OpenSpiel's own C++ `pig`,
and the game's declaration. The rules are in `games.pig_core`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pyspiel

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type, replayed_core
from chancespiel.games.pig_core import (
    _RESET,
    PIG_BOUNDS,
    PIG_FEATURES,
    PigCore,
    PigRules,
    _race_value,
    pig_features,
    pig_heuristic,
    pig_lead_heuristic,
    pig_move_ordering,
)
from chancespiel.games.registry import GameSpec, register_game

_DEFAULTS = {
    "dice": 2,
    "winscore": 100,
    "horizon": 1000,
    "diceoutcomes": 6,
    "ordered_dice": False,
}

_GAME_TYPE = chance_game_type("python_pig", "Python Pig (one or two dice)", _DEFAULTS)


class PigState(CoreState):
    """OpenSpiel state of python_pig; everything lives in `self.core` (a PigCore)."""


class PigGame(CoreGame):
    """OpenSpiel game python_pig."""

    game_type = _GAME_TYPE
    state_class = PigState
    rules_class = PigRules
    bounds = PIG_BOUNDS


@functools.lru_cache(maxsize=16)
def _one_die_pig(sides: int, winscore: int, horizon: int) -> pyspiel.Game:
    return pyspiel.load_game(
        f"python_pig(dice=1,diceoutcomes={sides},winscore={winscore},horizon={horizon})"
    )


def read_openspiel_pig(state: pyspiel.State) -> PigCore | None:
    """Our core of a state of OpenSpiel's C++ `pig` with two players and no piglet rule, by
    replaying its history on python_pig(dice=1) with the same sides, goal and horizon (the
    same game move for move: actions, chance outcomes, returns; tested); None for the other
    variants, which agents search through the adapter."""
    params = state.get_game().get_parameters()
    if params["players"] != 2 or params["piglet"]:
        return None
    game = _one_die_pig(params["diceoutcomes"], params["winscore"], params["horizon"])
    core: PigCore = replayed_core(game, state)
    return core


def openspiel_pig_heuristic(state: Any, player: int) -> float:
    """The same evaluation for OpenSpiel's C++ `pig` (2 players): on our core of one (what
    agents search when the variant has a reader), or read from the state string.

    `state` is then a pyspiel state or the agents' adapter around one (anything whose str()
    is the C++ ToString: "Scores: 12 30, Turn total: 5\nCurrent player: 1 (rolling)").
    """
    if isinstance(state, PigCore):
        return pig_heuristic(state, player)
    if state.is_terminal():
        return state.returns()[player]
    head, tail = str(state).split("\n", 1)
    scores_text, turn_total_text = head[len("Scores: ") :].split(", Turn total: ")
    first, second = scores_text.split()
    pyspiel_state = getattr(state, "state", state)
    winscore = pyspiel_state.get_game().get_parameters()["winscore"]
    turn_player = int(tail.split()[2])
    return _race_value(
        (int(first), int(second)), int(turn_total_text), turn_player, player, winscore
    )


def pig_move_note(core: Any, player: int, action: int) -> str | None:
    """Announces a roll that busts (what it costs), for `chancespiel play` (None but on our
    core: variants of OpenSpiel's pig that agents do not read into it)."""
    if not isinstance(core, PigCore) or not core.rolling:
        return None
    gain = core.rules.gains[action]
    p = core.turn_player
    if gain > 0:
        return None
    if gain == _RESET:
        return (
            f"bust: player {p} loses the turn total of {core.turn_total} and all "
            f"{core.scores[p]} banked points; the turn passes"
        )
    return f"bust: player {p} loses the turn total of {core.turn_total}; the turn passes"


def openspiel_pig_move_ordering(state: Any, actions: Sequence[int]) -> Sequence[int]:
    """pig_move_ordering on our core of OpenSpiel's `pig`; other variants keep their order."""
    return pig_move_ordering(state, actions) if isinstance(state, PigCore) else actions


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=PigGame,
        description="Pig: one die (= OpenSpiel's pig) or two dice (MCMS paper, default)",
        chance="a roll after every 'roll': 6 faces, 21 unordered pairs or 36 ordered rolls",
        status="done",
        heuristic=pig_heuristic,
        variants={"lead": pig_lead_heuristic},
        ordering=pig_move_ordering,
        note=pig_move_note,
        features=pig_features,
        feature_names=PIG_FEATURES,
        openspiel_versions=(
            GameSpec(
                "pig",
                reader=read_openspiel_pig,
                heuristic=openspiel_pig_heuristic,
                ordering=openspiel_pig_move_ordering,
                note=pig_move_note,
            ),
        ),
    )
)
