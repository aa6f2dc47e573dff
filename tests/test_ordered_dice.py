"""`ordered_dice=true` on python_cant_stop and python_pig: the same game, chance unmerged."""

from __future__ import annotations

import collections
import random

import pyspiel
import pytest

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import ReplayError, translate_history

# Default game string -> the same game with ordered dice, and a depth-2 search that is quick.
PAIRS = {
    "python_cant_stop": "python_cant_stop(ordered_dice=true)",
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)": (
        "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2,ordered_dice=true)"
    ),
    "python_pig": "python_pig(ordered_dice=true)",
    "python_pig(winscore=30,diceoutcomes=4)": (
        "python_pig(winscore=30,diceoutcomes=4,ordered_dice=true)"
    ),
}


def dice_of(game: pyspiel.Game, outcome: int) -> tuple[int, ...]:
    """The dice of a chance outcome, in the order the outcome lists them."""
    rules = game.rules
    if hasattr(rules, "rolls"):
        return rules.rolls[outcome]
    return tuple(int(x) for x in rules.outcome_names[outcome].split()[1].split("+"))


def ordered_id(game: pyspiel.Game, dice: tuple[int, ...]) -> int:
    """The outcome of the ordered-dice `game` that rolls exactly `dice`."""
    rules = game.rules
    if hasattr(rules, "roll_id"):
        return rules.roll_id(dice)
    a, b = dice
    return (a - 1) * rules.sides + b - 1


def twin_positions(merged: pyspiel.Game, ordered: pyspiel.Game, count: int, seed: int):
    """Pairs of cores of the same decision positions in the two encodings, from random games."""
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < count:
        one, two = merged.rules.initial_core(), ordered.rules.initial_core()
        for _ in range(rng.randrange(1, 40)):
            if one.is_terminal():
                break
            if one.current_player() == pyspiel.PlayerId.CHANCE:
                outcomes = one.chance_outcomes()
                outcome = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
                dice = list(dice_of(merged, outcome))
                rng.shuffle(dice)
                one.apply(outcome)
                two.apply(ordered_id(ordered, tuple(dice)))
            else:
                action = rng.choice(one.legal_actions())
                one.apply(action)
                two.apply(action)
            assert one.legal_actions() == two.legal_actions()
        if not one.is_terminal() and one.current_player() >= 0:
            pairs.append((one, two))
    return pairs


def test_outcome_counts_and_the_default():
    assert pyspiel.load_game("python_cant_stop").max_chance_outcomes() == 126
    assert pyspiel.load_game("python_cant_stop(ordered_dice=true)").max_chance_outcomes() == 1296
    assert pyspiel.load_game("python_pig").max_chance_outcomes() == 21
    assert pyspiel.load_game("python_pig(ordered_dice=true)").max_chance_outcomes() == 36
    assert pyspiel.load_game("python_pig(dice=1,ordered_dice=true)").max_chance_outcomes() == 6
    for name in ("python_cant_stop", "python_pig"):
        assert pyspiel.load_game(name).get_parameters()["ordered_dice"] is False


@pytest.mark.parametrize("merged_string", list(PAIRS))
def test_ordered_outcomes_merge_to_the_default_distribution(merged_string):
    merged, ordered = pyspiel.load_game(merged_string), pyspiel.load_game(PAIRS[merged_string])
    merged_probs = {tuple(sorted(dice_of(merged, o))): p for o, p in merged.rules.outcomes}
    summed: dict[tuple[int, ...], float] = collections.defaultdict(float)
    for outcome, prob in ordered.rules.outcomes:
        summed[tuple(sorted(dice_of(ordered, outcome)))] += prob
    assert summed.keys() == merged_probs.keys()
    for dice, prob in merged_probs.items():
        assert summed[dice] == pytest.approx(prob, abs=1e-15)


@pytest.mark.parametrize("merged_string", list(PAIRS))
def test_expectimax_and_star2_values_equal_under_both_encodings(merged_string):
    merged, ordered = pyspiel.load_game(merged_string), pyspiel.load_game(PAIRS[merged_string])
    depth = 2
    for one, two in twin_positions(merged, ordered, 6, seed=len(merged_string)):
        for algorithm in ("expectimax", "star2"):
            a = search(one.clone(), merged, algorithm, max_depth=depth, iterative=False)
            b = search(two.clone(), ordered, algorithm, max_depth=depth, iterative=False)
            assert a.value == pytest.approx(b.value, abs=1e-12), (algorithm, str(one))
            if algorithm == "expectimax":
                assert a.action_values == pytest.approx(b.action_values, abs=1e-12)


@pytest.mark.parametrize("game_string", list(PAIRS.values()))
def test_random_sim_with_ordered_dice(game_string):
    pyspiel.random_sim_test(
        pyspiel.load_game(game_string), num_sims=3, serialize=True, verbose=False
    )


@pytest.mark.parametrize("merged_string", list(PAIRS))
def test_histories_translate_to_ordered_dice_move_by_move(merged_string):
    merged, ordered = pyspiel.load_game(merged_string), pyspiel.load_game(PAIRS[merged_string])
    rng = random.Random(3)
    for _ in range(4):
        state, history = merged.new_initial_state(), []
        while not state.is_terminal() and len(history) < 120:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                action = rng.choice(state.legal_actions())
            history.append(action)
            state.apply_action(action)
        translated = translate_history(merged, ordered, history)
        assert len(translated) == len(history)
        one, two = merged.new_initial_state(), ordered.new_initial_state()
        for a, b in zip(history, translated, strict=True):
            if one.is_chance_node():  # the ordered roll of the same dice, in sorted order
                assert sorted(dice_of(ordered, b)) == sorted(dice_of(merged, a))
            else:
                assert a == b and one.legal_actions() == two.legal_actions()
            one.apply_action(a)
            two.apply_action(b)
        assert one.is_terminal() == two.is_terminal()
        assert one.returns() == two.returns() and str(one) == str(two)
        assert translate_history(ordered, ordered, translated) == translated


def test_a_history_that_cannot_be_translated_names_its_step():
    merged, ordered = pyspiel.load_game("python_pig"), pyspiel.load_game(PAIRS["python_pig"])
    unsorted = ordered_id(ordered, (5, 2))
    with pytest.raises(ReplayError, match=r"step 1: no action of python_pig.*'Roll 5\+2'"):
        translate_history(ordered, merged, [0, unsorted])  # merged rolls name sorted dice
    with pytest.raises(ReplayError, match="action 7 at step 0 is not legal"):
        translate_history(merged, ordered, [7])
    state, history, rng = merged.new_initial_state(), [], random.Random(0)
    while not state.is_terminal():
        chance = state.is_chance_node()
        choices = [o for o, _ in state.chance_outcomes()] if chance else state.legal_actions()
        history.append(rng.choice(choices))
        state.apply_action(history[-1])
    with pytest.raises(ReplayError, match="after the end of the game at step"):
        translate_history(merged, ordered, [*history, 0])
