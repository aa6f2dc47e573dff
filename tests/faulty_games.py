"""Test-only games that break the game contract (chancespiel.games.contract) on purpose.

`test_faulty_game(fault=NAME,at=K)` is a tiny dice game, correct for its first K moves (chance
included; 0: faulty at once): players alternate a choice of 0 or 1, a coin (outcomes 0, 1)
follows every choice, and after MOVES choices the higher total wins. From move K on it does
what `fault` names (FAULTS, or CHECK_FAULTS); with K even, the state after K moves is a decision.
`test_faulty_core(fault=NAME)` is the same game on a search-protocol core, for the faults only
a core can have (CORE_FAULTS). Importing this module registers both (once per process); a
`chancespiel` subprocess loads them with `--import tests/faulty_games.py`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games import GameSpec, register_game
from chancespiel.games._adapter import CoreGame, chance_game_type
from chancespiel.games.core import CHANCE, TERMINAL, Core, SharedRules
from chancespiel.games.registry import is_declared

NAME = "test_faulty_game"
MOVES = 6

# fault -> what the game does wrong from move `at` on
FAULTS = {
    "half": "chance probabilities sum to 0.5",
    "double": "chance probabilities sum to 2",
    "negative": "a negative chance probability",
    "nan_prob": "a NaN chance probability",
    "zero_prob": "a chance outcome of probability 0",
    "repeat": "one chance outcome listed twice",
    "nan_returns": "NaN returns",
    "outside": "returns outside the declared utilities",
    "not_zero_sum": "returns of a zero-sum game that do not sum to 0",
    "endless": "never ends (max_game_length is not kept)",
    "endless_chance": "chance nodes forever",
    "no_actions": "a decision node without legal actions",
    "bad_player": "a current player out of range",
    "raises": "applying a move raises",
}
# fault -> what the game does wrong within its contract, which only the conformance checks
# (chancespiel.evaluation.conformance) see
CHECK_FAULTS = {
    "unsorted": "legal actions out of order",
    "shared_clone": "clones share the totals with their original",
    "forgets": "a state pickled (how OpenSpiel serializes a Python game's) loses its totals",
    "unseeded": "each new game starts from a total no seed determines",
}

_GAME_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Faulty game (chancespiel tests)",
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
    parameter_specification={"fault": "none", "at": 0, "bad_info": False},
)


class FaultyGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None):
        params = params or {}
        self.fault = str(params.get("fault", "none"))
        if self.fault not in (*FAULTS, *CHECK_FAULTS, "none"):
            raise ValueError(f"unknown fault {self.fault!r}")
        self.at = int(params.get("at", 0))
        low = math.nan if params.get("bad_info", False) else -1.0
        info = pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=2,
            num_players=2,
            min_utility=low,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MOVES,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> FaultyState:
        return ForgetfulState(self) if self.fault == "forgets" else FaultyState(self)


class _Shared(list):
    """A list that copies share ("shared_clone")."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class FaultyState(pyspiel.State):
    def __init__(self, game: FaultyGame):
        super().__init__(game)
        self.fault, self.at = game.fault, game.at
        self.totals = _Shared([0, 0]) if self.fault == "shared_clone" else [0, 0]
        if self.fault == "unseeded":
            self.totals[0] = random.SystemRandom().randrange(10**9)
        self.decisions = 0
        self.moves = 0
        self.coin = False  # a coin follows the last choice

    def _faulty(self, fault: str) -> bool:
        return self.fault == fault and self.moves >= self.at

    def current_player(self) -> int:
        if self._faulty("bad_player"):
            return 5
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.coin or (self._faulty("endless_chance") and self.moves > self.at):
            return pyspiel.PlayerId.CHANCE
        return self.decisions % 2

    def _legal_actions(self, player: int) -> list[int]:
        if self._faulty("unsorted"):
            return [1, 0]
        return [] if self._faulty("no_actions") else [0, 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        probs = {
            "half": (0.25, 0.25),
            "double": (1.0, 1.0),
            "negative": (1.5, -0.5),
            "nan_prob": (math.nan, 0.5),
            "zero_prob": (1.0, 0.0),
        }
        for fault, (p0, p1) in probs.items():
            if self._faulty(fault):
                return [(0, p0), (1, p1)]
        if self._faulty("repeat"):
            return [(0, 0.5), (0, 0.5)]
        return [(0, 0.5), (1, 0.5)]

    def _apply_action(self, action: int) -> None:
        if self._faulty("raises"):
            raise RuntimeError("deliberate failure while applying a move")
        if self.coin or self.current_player() == pyspiel.PlayerId.CHANCE:
            self.totals[(self.decisions - 1) % 2] += action
            self.coin = False
        else:
            self.totals[self.decisions % 2] += action
            self.decisions += 1
            self.coin = True
        self.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        return f"coin {action}" if player == pyspiel.PlayerId.CHANCE else f"choose {action}"

    def is_terminal(self) -> bool:
        if self._faulty("endless") or self._faulty("endless_chance"):
            return False
        return self.decisions >= MOVES and not self.coin

    def returns(self) -> list[float]:
        if not self.is_terminal() and not self._faulty("bad_player"):
            return [0.0, 0.0]
        if self._faulty("nan_returns"):
            return [math.nan, math.nan]
        if self._faulty("outside"):
            return [5.0, -5.0]
        if self._faulty("not_zero_sum"):
            return [1.0, 1.0]
        diff = self.totals[0] - self.totals[1]
        sign = (diff > 0) - (diff < 0)
        return [float(sign), float(-sign)]

    def __str__(self) -> str:
        return f"totals {self.totals[0]} {self.totals[1]}, move {self.decisions}"


_HIDDEN: dict[int, list[int]] = {}


class ForgetfulState(FaultyState):
    """Keeps its totals outside its __dict__, which is what OpenSpiel serializes of a Python
    game's state ("forgets")."""

    @property  # type: ignore[override]
    def totals(self) -> list[int]:
        return _HIDDEN.setdefault(id(self), [0, 0])

    @totals.setter
    def totals(self, value: list[int]) -> None:
        _HIDDEN[id(self)] = value


if NAME not in pyspiel.registered_names():
    pyspiel.register_game(_GAME_TYPE, FaultyGame)


# A game on a core, for the faults of what only a core has: `test_faulty_core(fault=NAME)`,
# the same choices and coins as test_faulty_game, faulty from the start.
CORE_NAME = "test_faulty_core"
CORE_FAULTS = {
    "key": "equal states get different state_keys",
    "child": "child(action) is not clone() then apply(action)",
    "observation": "observation tensors hold NaN",
    "heuristic": "the heuristic returns values outside the utilities",
}


class FaultyRules(SharedRules):
    def __init__(self, fault: str = "none"):
        if fault not in CORE_FAULTS and fault != "none":
            raise ValueError(f"unknown fault {fault!r}")
        self.fault = fault

    def params(self) -> dict[str, Any]:
        return {"fault": self.fault}

    def initial_core(self) -> FaultyCore:
        return FaultyCore(self, (0, 0), 0, False)

    def game_info(self) -> pyspiel.GameInfo:
        return pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=2,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MOVES,
        )

    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        return [("totals", (2,))]

    def fill_observation(self, core: FaultyCore, player: int, views: dict[str, Any]) -> None:
        views["totals"][:] = core.totals
        if self.fault == "observation":
            views["totals"][0] = np.nan

    def observation_string(self, core: FaultyCore, player: int) -> str:
        return str(core)


class FaultyCore(Core):
    __slots__ = ("coin", "decisions", "rules", "totals")

    def __init__(self, rules: FaultyRules, totals: tuple[int, int], decisions: int, coin: bool):
        self.rules, self.totals, self.decisions, self.coin = rules, totals, decisions, coin

    def current_player(self) -> int:
        if self.decisions >= MOVES and not self.coin:
            return TERMINAL
        return CHANCE if self.coin else self.decisions % 2

    def legal_actions(self) -> Sequence[int]:
        return (0, 1) if self.current_player() >= 0 else ()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ((0, 0.5), (1, 0.5))

    def apply(self, action: int) -> None:
        mover = (self.decisions - 1) % 2 if self.coin else self.decisions % 2
        totals = list(self.totals)
        totals[mover] += action
        self.totals = (totals[0], totals[1])
        if not self.coin:
            self.decisions += 1
        self.coin = not self.coin

    def returns(self) -> Sequence[float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        diff = self.totals[0] - self.totals[1]
        sign = float((diff > 0) - (diff < 0))
        return (sign, -sign)

    def clone(self) -> FaultyCore:
        return FaultyCore(self.rules, self.totals, self.decisions, self.coin)

    def child(self, action: int) -> FaultyCore:
        child = self.clone()
        child.apply(1 - action if self.rules.fault == "child" else action)
        return child

    def state_key(self) -> int:
        if self.rules.fault == "key":
            return id(self)
        return hash((self.totals, self.decisions, self.coin))

    def __str__(self) -> str:
        return f"totals {self.totals[0]} {self.totals[1]}, move {self.decisions}"


class FaultyCoreGame(CoreGame):
    game_type = chance_game_type(
        CORE_NAME, "Faulty core game (chancespiel tests)", {"fault": "none"}
    )
    rules_class = FaultyRules


def _core_heuristic(core: FaultyCore, player: int) -> float:
    if core.is_terminal():
        return core.returns()[player]
    return 5.0 if core.rules.fault == "heuristic" else 0.0


if not is_declared(CORE_NAME):
    register_game(
        GameSpec(
            CORE_NAME,
            game_type=FaultyCoreGame.game_type,
            game_class=FaultyCoreGame,
            heuristic=_core_heuristic,
        )
    )
