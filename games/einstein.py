"""EinStein würfelt nicht! as an OpenSpiel game, `python_einstein_wurfelt_nicht`: the adapter,
the reader of OpenSpiel's own C++ `einstein_wurfelt_nicht`, and the game's declaration. The
rules are in `games.einstein_core`.

OpenSpiel's `einstein_wurfelt_nicht` equals ours move for move (actions, chance outcomes,
returns; tested step by step), so agents read its states into our core by replaying the
history, then search at our core's speed with our heuristic and move ordering.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyspiel

from chancespiel.games._adapter import CoreGame, CoreState, chance_game_type, replayed_core
from chancespiel.games.einstein_core import (
    EINSTEIN_FEATURES,
    EinsteinCore,
    EinsteinRules,
    einstein_features,
    einstein_heuristic,
    einstein_move_ordering,
)
from chancespiel.games.registry import GameSpec, register_game

_DEFAULTS = {"setup": "random"}

_GAME_TYPE = chance_game_type(
    "python_einstein_wurfelt_nicht", "Python EinStein wurfelt nicht!", _DEFAULTS
)
CPP_EINSTEIN = "einstein_wurfelt_nicht"  # OpenSpiel's


class EinsteinState(CoreState):
    """OpenSpiel state of python_einstein_wurfelt_nicht; everything lives in `self.core`."""


class EinsteinGame(CoreGame):
    """OpenSpiel game python_einstein_wurfelt_nicht."""

    game_type = _GAME_TYPE
    state_class = EinsteinState
    rules_class = EinsteinRules


_einstein_game: pyspiel.Game | None = None


def read_einstein(state: pyspiel.State) -> EinsteinCore:
    """Our core of a C++ `einstein_wurfelt_nicht` state (its history replayed on ours)."""
    global _einstein_game
    if _einstein_game is None:
        _einstein_game = pyspiel.load_game(_GAME_TYPE.short_name)
    core: EinsteinCore = replayed_core(_einstein_game, state)
    return core


def _einstein_core(state: Any) -> EinsteinCore:
    """`state` itself when agents already read it into our core, else read now (an adapter
    around a C++ state, or the C++ state)."""
    if isinstance(state, EinsteinCore):
        return state
    return read_einstein(getattr(state, "state", state))


def cpp_einstein_heuristic(state: Any, player: int) -> float:
    """`einstein_heuristic` on a C++ `einstein_wurfelt_nicht` state or our core of one."""
    return einstein_heuristic(_einstein_core(state), player)


def cpp_einstein_move_ordering(state: Any, actions: Sequence[int]) -> Sequence[int]:
    """`einstein_move_ordering` on a C++ `einstein_wurfelt_nicht` state or our core of one."""
    return einstein_move_ordering(_einstein_core(state), actions)


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=EinsteinGame,
        description="EinStein wurfelt nicht! (= OpenSpiel's einstein_wurfelt_nicht, or free setup)",
        chance="two 720-way setup permutations, then a d6 before every move",
        status="done",
        heuristic=einstein_heuristic,
        ordering=einstein_move_ordering,
        features=einstein_features,
        feature_names=EINSTEIN_FEATURES,
        openspiel_versions=(
            GameSpec(
                CPP_EINSTEIN,
                reader=read_einstein,
                heuristic=cpp_einstein_heuristic,
                ordering=cpp_einstein_move_ordering,
            ),
        ),
    )
)
