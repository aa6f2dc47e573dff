"""A plugin game built on a compiled rules core: `example_fast_race`, the dice race of
dice_race.py with the rules in examples/race_core.py (typed, compiled by `chancespiel
compile`) and this thin OpenSpiel layer, the way chancespiel's own games are built.

    chancespiel compile examples/race_core.py                 # once; optional
    chancespiel check example_fast_race --import examples/fast_race.py
    chancespiel --import examples/fast_race.py match example_fast_race \\
        "star2(time_ms=200)" "star1(time_ms=200)" --matches 10 --out fast_race.jsonl

`trusted_core=True` lets agents search the core directly, as they search chancespiel's own
games (after `chancespiel check` has passed); without it they reach it through the checked
adapter, which tests the contract at every node and is several times slower.
"""

from __future__ import annotations

import pyspiel
from race_core import RACE_BOUNDS, RaceRules, race_heuristic, race_ordering

from chancespiel.games import GameSpec, register_game
from chancespiel.games._adapter import CoreGame

_GAME_TYPE = pyspiel.GameType(
    short_name="example_fast_race",
    long_name="Dice race on a compiled core (a chancespiel plugin example)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"goal": 100, "sides": 6, "horizon": 1000},
)


class FastRaceGame(CoreGame):
    """The pyspiel game: states forward every call to a RaceCore."""

    game_type = _GAME_TYPE
    rules_class = RaceRules
    bounds = RACE_BOUNDS


register_game(
    GameSpec(
        _GAME_TYPE.short_name,
        game_type=_GAME_TYPE,
        game_class=FastRaceGame,
        heuristic=race_heuristic,
        ordering=race_ordering,
        trusted_core=True,
    )
)
