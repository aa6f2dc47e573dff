"""Fast paths of the game cores agree exactly with the general code they stand in for.

- Cached and incremental evaluation terms against a direct reading of their definition.
- A core's one-step `child` against clone then apply.
"""

from __future__ import annotations

import copy
import random

import pyspiel
import pytest
from golden import play_randomly

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.games.cant_stop_core import OVER, ROLLING, CantStopCore, cant_stop_heuristic
from chancespiel.games.cant_stop_core import player_progress as fast_progress
from chancespiel.games.einstein_core import _PLAY as EINSTEIN_PLAY
from chancespiel.games.einstein_core import _POS as EINSTEIN_POS
from chancespiel.games.einstein_core import _TEMPO as EINSTEIN_TEMPO
from chancespiel.games.einstein_core import (
    PLACE_BASE,
    EinsteinCore,
    einstein_heuristic,
    einstein_move_ordering,
)
from chancespiel.games.pig_core import PigCore, _race_value, pig_heuristic

GAMES = [
    "python_cant_stop",
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)",
    "python_cant_stop(sides=2,shortest=1,height_step=1,columns_to_win=2,horizon=8)",
    "python_cant_stop(ordered_dice=true)",
    # Rows past 32 bits (13 columns of 4), and cells of one bit (23 columns of height 1).
    "python_cant_stop(sides=7)",
    "python_cant_stop(sides=12,shortest=1,height_step=0)",
    "python_pig",
    "python_pig(dice=1,winscore=30)",
    "python_pig(ordered_dice=true)",
    "python_einstein_wurfelt_nicht",
    "python_einstein_wurfelt_nicht(setup=free)",
    "python_ra",
]


def random_cores(game: pyspiel.Game, count: int, seed: int) -> list:
    """`count` cores of every kind of node (decision, chance, terminal) from random games."""
    rng = random.Random(seed)
    cores = []
    while len(cores) < count:
        core = game.rules.initial_core()
        play_randomly(core, rng, rng.randrange(0, 150))
        cores.append(core)
    return cores


def fields(core) -> dict:
    """The core's state as it is pickled (EWN's board as a list), the rules left out."""
    return {name: value for name, value in core.__getstate__().items() if name != "rules"}


def reference_progress(core: CantStopCore, player: int, risk: bool = True) -> float:
    """player_progress as defined: every column's fraction, sorted, the best averaged."""
    rules = core.rules
    heights = rules.heights
    base = core.squares[player]
    fracs = []
    keep = 0.0
    if player == core.player and core.nrun:
        if risk and core.phase == ROLLING:
            keep = 1.0 - rules.bust_probability(reference_usable(core))
        else:
            keep = 1.0
    for i, h in enumerate(heights):
        if core.blocked >> i & 1:
            fracs.append(1.0 if base[i] == h else 0.0)
            continue
        height = float(base[i])
        if keep and core.runners[i]:
            height += keep * (core.runners[i] - base[i])
        fracs.append(height / h)
    fracs.sort(reverse=True)
    w = rules.columns_to_win
    return sum(fracs[:w]) / w


def reference_usable(core: CantStopCore) -> int:
    """Columns where the turn player can use a sum, from the squares and runners."""
    heights = core.rules.heights
    base = core.squares[core.player]
    mask = 0
    for i, h in enumerate(heights):
        pos = core.runners[i] or base[i]
        if core.blocked >> i & 1 or pos >= h:
            continue
        if core.runners[i] or core.nrun < 3:
            mask |= 1 << i
    return mask


@pytest.mark.parametrize("game_string", [g for g in GAMES if "cant_stop" in g])
def test_cant_stop_incremental_terms_equal_their_definition(game_string):
    game = pyspiel.load_game(game_string)
    for core in random_cores(game, 300, seed=5):
        if core.phase == OVER:
            continue
        assert core.usable_mask() == reference_usable(core), str(core)
        for player in (0, 1):
            for risk in (True, False):
                assert fast_progress(core, player, risk) == reference_progress(core, player, risk)
            expected = reference_progress(core, player) - reference_progress(core, 1 - player)
            assert cant_stop_heuristic(core, player) == expected
            # Each column's banked value, after the other player's progress filled the vector.
            rules = core.rules
            rules.progress(core.squares_of(1 - player), core.blocked, core.marks, core.rmask, 1.0)
            base = core.squares[player]
            expected_values = [
                (1.0 if base[i] == h else 0.0) if core.blocked >> i & 1 else base[i] / h
                for i, h in enumerate(rules.heights)
            ]
            assert rules.column_values(core.squares_of(player), core.blocked) == expected_values
        rebuilt = core.clone()
        rebuilt.derive()
        assert fields(rebuilt) == fields(core), str(core)


@pytest.mark.parametrize("game_string", GAMES)
def test_child_equals_clone_then_apply(game_string):
    """A core's one-step `child` writes the fields `apply` writes to a clone, and leaves the
    parent as it was."""
    game = pyspiel.load_game(game_string)
    for core in random_cores(game, 200, seed=7):
        if core.is_terminal():
            continue
        if core.current_player() == pyspiel.PlayerId.CHANCE:
            actions = [outcome for outcome, _ in core.chance_outcomes()]
        else:
            actions = list(core.legal_actions())
        before = copy.deepcopy(fields(core))
        for action in actions:
            expected = core.clone()
            expected.apply(action)
            child = core.child(action)
            assert fields(child) == fields(expected), (str(core), action)
            if not child.is_terminal():  # playing on in the child leaves the parent alone
                grandchild = child.clone()
                if grandchild.current_player() == pyspiel.PlayerId.CHANCE:
                    grandchild.apply(grandchild.chance_outcomes()[0][0])
                else:
                    grandchild.apply(grandchild.legal_actions()[0])
        assert fields(core) == before, str(core)


def _pig_race_value(core: PigCore, player: int) -> float:
    """pig_heuristic as defined, by `_race_value`."""
    if core.over:
        return core.returns()[player]
    rules = core.rules
    return _race_value(core.scores, core.turn_total, core.turn_player, player, rules.winscore)


@pytest.mark.parametrize(
    "game_string", ["python_pig", "python_pig(dice=1,winscore=30)", "python_pig(winscore=7)"]
)
def test_pig_heuristic_equals_its_definition(game_string):
    game = pyspiel.load_game(game_string)
    for core in random_cores(game, 300, seed=11):
        for player in (0, 1):
            assert pig_heuristic(core, player) == _pig_race_value(core, player), str(core)


def _einstein_reference(core: EinsteinCore, player: int) -> float:
    """einstein_heuristic as defined: each side's pace over its cubes 1..6, the mover's times
    the tempo factor."""
    if core.winner >= 0:
        return 1.0 if core.winner == player else -1.0
    if core.stage != EINSTEIN_PLAY:
        return 0.0
    rules = core.rules
    pace = [0.0, 0.0]
    for p in (0, 1):
        mobility = rules.mobility[core.masks[p]]
        for v in range(1, 7):
            if mobility[v]:
                cell = core.board[EINSTEIN_POS + 6 * p + v]
                pace[p] += mobility[v] / rules.distance[p][cell]
    pace[core.next_mover()] *= EINSTEIN_TEMPO
    mine, theirs = pace[player] ** 2, pace[1 - player] ** 2
    return (mine - theirs) / (mine + theirs)


@pytest.mark.parametrize(
    "game_string", ["python_einstein_wurfelt_nicht", "python_einstein_wurfelt_nicht(setup=free)"]
)
def test_einstein_heuristic_and_ordering_equal_their_definition(game_string):
    game = pyspiel.load_game(game_string)
    for core in random_cores(game, 300, seed=13):
        for player in (0, 1):
            assert einstein_heuristic(core, player) == _einstein_reference(core, player)
        actions = core.legal_actions()
        if actions and actions[0] < PLACE_BASE:
            table = core.rules.move_table
            expected = sorted(actions, key=lambda a: (not table[a][2], not a & 1))
            assert einstein_move_ordering(core, actions) == expected
