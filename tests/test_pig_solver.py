"""The exact Pig solver against published values, an independent solver, and simulation."""

from __future__ import annotations

import random

import pyspiel
import pytest

import chancespiel.games  # noqa: F401
from chancespiel.games.pig_core import CHANCE, ROLL, STOP, PigCore, PigRules
from chancespiel.games.pig_solver import hold_at_policy, policy_win_probability, solve_pig


def test_one_die_first_player_win_probability():
    # Neller and Presser (2004); docs/games/pig.md, "Known results".
    assert solve_pig(dice=1, winscore=100).first_player_win_probability == pytest.approx(
        0.530593, abs=5e-7
    )


def test_one_die_policy_at_41_against_49():
    # Roll while k <= 21, hold at 22..26, roll again at k = 27 (Neller and Presser; pig.md,
    # "Known results").
    solution = solve_pig(dice=1, winscore=100)
    actions = [solution.best_action(41, 49, k) for k in range(0, 29)]
    assert actions[:22] == [ROLL] * 22
    assert actions[22:27] == [STOP] * 5
    assert actions[27] == ROLL


@pytest.mark.parametrize("goal, expected", [(10, 0.709424), (20, 0.615559), (50, 0.546151)])
def test_one_die_smaller_goals(goal, expected):
    assert solve_pig(dice=1, winscore=goal).first_player_win_probability == pytest.approx(
        expected, abs=5e-7
    )


def test_translation_invariance_holds_for_one_die_only():
    one = solve_pig(dice=1, winscore=100)
    assert one.win_probability(50, 50, 0) == pytest.approx(
        solve_pig(dice=1, winscore=50).first_player_win_probability, abs=1e-10
    )
    two = solve_pig(dice=2, winscore=100)
    # Double 1s reset the score to 0, which is not 50 points below the goal-50 game's 0.
    assert (
        abs(two.win_probability(50, 50, 0) - solve_pig(2, 50).first_player_win_probability) > 1e-3
    )


def test_fixed_policies_one_die():
    optimal = solve_pig(dice=1, winscore=100).roll
    hold20 = hold_at_policy(20, 100)
    assert policy_win_probability(hold20, hold20, dice=1) == pytest.approx(0.534698, abs=5e-7)
    assert policy_win_probability(optimal, hold20, dice=1) == pytest.approx(0.571498, abs=5e-7)
    assert policy_win_probability(hold20, optimal, dice=1) == pytest.approx(0.491658, abs=5e-7)
    # Evaluating the optimal policy against itself gives back the optimal value.
    assert policy_win_probability(optimal, optimal, dice=1) == pytest.approx(0.5305927, abs=1e-7)


def _independent_values(rules: PigRules) -> dict[tuple, float]:
    """Player 0's win probability in every state, by value iteration over the game's own moves.

    This uses only PigCore (legal actions, chance outcomes, apply), not the solver's equations.
    """
    rules.horizon = 10**9  # the solver solves the unbounded game

    def key(core: PigCore) -> tuple:
        return (core.scores, core.turn_total, core.turn_player, core.rolling, core.over)

    start = PigCore(rules)
    nodes: dict[tuple, PigCore] = {key(start): start}
    frontier = [start]
    while frontier:
        core = frontier.pop()
        moves = core.chance_outcomes() if core.rolling else core.legal_actions()
        for move in moves:
            action = move[0] if core.rolling else move
            child = core.clone()
            child.apply(action)
            if key(child) not in nodes:
                nodes[key(child)] = child
                frontier.append(child)
    value = {k: 0.5 for k in nodes}
    for _ in range(100_000):
        delta = 0.0
        for k, core in nodes.items():
            if core.over:
                new = 1.0 if core.returns()[0] > 0 else 0.0
            elif core.rolling:
                new = 0.0
                for outcome, prob in core.chance_outcomes():
                    child = core.clone()
                    child.apply(outcome)
                    new += prob * value[key(child)]
            else:
                children = []
                for action in core.legal_actions():
                    child = core.clone()
                    child.apply(action)
                    children.append(value[key(child)])
                new = max(children) if core.turn_player == 0 else min(children)
            delta = max(delta, abs(new - value[k]))
            value[k] = new
        if delta < 1e-13:
            return {k: v for k, v in value.items() if not nodes[k].over}
    raise AssertionError("independent value iteration did not converge")


@pytest.mark.parametrize("dice, sides, goal", [(1, 4, 9), (2, 3, 8), (2, 4, 12)])
def test_solver_equals_independent_value_iteration(dice, sides, goal):
    rules = PigRules(dice=dice, winscore=goal, diceoutcomes=sides)
    expected = _independent_values(rules)
    solution = solve_pig(dice=dice, winscore=goal, sides=sides)
    assert len(expected) > 100
    for (scores, turn_total, turn_player, rolling, _), value in expected.items():
        core = PigCore(rules)
        core.scores, core.turn_total, core.turn_player, core.rolling = (
            scores,
            turn_total,
            turn_player,
            rolling,
        )
        assert solution.state_win_probability(core, 0) == pytest.approx(value, abs=1e-9)


def _self_play_first_player_wins(games: int, seed: int) -> float:
    game = pyspiel.load_game("python_pig")
    solution = solve_pig(dice=2, winscore=100)
    rng = random.Random(seed)
    wins = 0
    for _ in range(games):
        core = game.new_initial_state().core
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                outcomes = core.chance_outcomes()
                core.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                mover = core.turn_player
                core.apply(
                    solution.best_action(
                        core.scores[mover], core.scores[1 - mover], core.turn_total
                    )
                )
        wins += core.returns()[0] > 0
    return wins / games


def _assert_within_4_sigma(games: int, seed: int) -> None:
    exact = solve_pig(dice=2, winscore=100).first_player_win_probability
    observed = _self_play_first_player_wins(games, seed)
    sigma = (exact * (1 - exact) / games) ** 0.5
    assert abs(observed - exact) < 4 * sigma, (observed, exact, sigma)


def test_two_dice_value_matches_optimal_self_play():
    _assert_within_4_sigma(games=3000, seed=1)


@pytest.mark.slow
def test_two_dice_value_matches_optimal_self_play_many_games():
    _assert_within_4_sigma(games=100_000, seed=2)


def test_solver_rejects_bad_variants():
    with pytest.raises(ValueError, match="dice"):
        solve_pig(dice=3)
    with pytest.raises(ValueError, match="must be in"):
        solve_pig(winscore=5000)
    with pytest.raises(ValueError, match=r"needs about 2\.8 GiB"):  # before allocating it
        solve_pig(winscore=500)
    with pytest.raises(ValueError, match="policy"):
        policy_win_probability(hold_at_policy(20, 50), hold_at_policy(20, 100), winscore=100)
