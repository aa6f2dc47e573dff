"""ChanceProbCut against Star2 (pruning off) and exhaustive expectimax (pruning on)."""

from __future__ import annotations

import pyspiel
import pytest

from chancespiel.agents import make_bot, search_state
from chancespiel.agents.chance_probcut import (
    ChanceProbCutSearch,
    Regression,
    fit_regression,
    linear_fit,
)
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions as random_positions


def _cpc(state, game, depth, regression, confidence, **options):
    return search(
        search_state(state),
        game,
        "star2",
        max_depth=depth,
        search_class=ChanceProbCutSearch,
        search_options={"regression": regression, "confidence": confidence},
        **options,
    )


@pytest.mark.parametrize(
    "game_string, depth",
    [
        ("python_pig(winscore=40)", 4),
        ("python_einstein_wurfelt_nicht", 3),
        ("python_chance_tree(seed=3,depth=6,branching=4,outcomes=4)", 5),
    ],
)
def test_without_pruning_it_is_star2_node_for_node(game_string, depth):
    game = pyspiel.load_game(game_string)
    regression = Regression(2, 1, 1.0, 0.0, 0.05)
    for state in random_positions(game, 4, seed=5):
        star2 = search(search_state(state), game, "star2", max_depth=depth)
        off = _cpc(state, game, depth, regression, 1.0)
        assert (off.value, off.action, off.nodes) == (star2.value, star2.action, star2.nodes)
        assert off.action_values == star2.action_values


def test_with_pruning_it_searches_fewer_nodes_within_a_bounded_error():
    """Forward pruning may be wrong; how wrong is measured against exhaustive expectimax on
    early and middle EWN positions at depth 4 (where the error was 0 and the saving 10-15%
    when this test was written) and bounded loosely, so that a broken cut test fails."""
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    regression = fit_regression(game, 3, 1, games=3, max_positions=60, seed=1)
    assert 0.5 < regression.a < 1.5 and 0.0 < regression.sigma < 0.5
    assert abs(regression.b) < 1e-9  # pairs enter with both signs
    star2_nodes = cpc_nodes = 0
    errors = []
    for state in random_positions(game, 12, seed=3):
        if len(state.legal_actions()) < 2:
            continue
        exact = search(search_state(state), game, "expectimax", max_depth=4, iterative=False)
        star2 = search(search_state(state), game, "star2", max_depth=4)
        pruned = _cpc(state, game, 4, regression, 0.8)
        star2_nodes += star2.nodes
        cpc_nodes += pruned.nodes
        errors.append(abs(pruned.value - exact.value))
    assert cpc_nodes < 0.97 * star2_nodes
    assert sum(errors) / len(errors) < 0.05 and max(errors) < 0.3


def test_aggressive_pruning_changes_values():
    """With a tiny sigma and low confidence the predictions are often wrong: the pruning is
    real (values move away from Star2's), which is what the bounded-error test guards."""
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    regression = Regression(2, 0, 1.0, 0.0, 0.001)
    differ = 0
    for state in random_positions(game, 10, seed=4):
        star2 = search(search_state(state), game, "star2", max_depth=3)
        pruned = _cpc(state, game, 3, regression, 0.55)
        differ += abs(pruned.value - star2.value) > 1e-9
        assert pruned.nodes <= star2.nodes
    assert differ > 0


def test_linear_fit_on_a_known_line_and_noise():
    a, b, sigma = linear_fit([(x / 10, 2 * x / 10 + 1) for x in range(10)])
    assert (a, b, sigma) == pytest.approx((2.0, 1.0, 0.0), abs=1e-12)
    a, b, sigma = linear_fit([(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 2.0)])
    assert (a, b) == pytest.approx((1.0, 0.5))
    assert sigma == pytest.approx((4 * 0.25 / 2) ** 0.5)
    with pytest.raises(ValueError, match="at least 3"):
        linear_fit([(0.0, 0.0)])


def test_regression_file_and_agent_spec(tmp_path):
    game = pyspiel.load_game("python_pig(winscore=40)")
    regression = Regression(3, 1, 0.97, 0.0, 0.08, 120, str(game))
    path = tmp_path / "pig_3_1.json"
    regression.save(path)
    assert Regression.load(path) == regression
    bot = make_bot(f"star2cpc(regression={path},max_depth=3,confidence=0.95,seed=1)", game, 0)
    assert bot.options["search_options"]["regression"] == regression
    state = random_positions(game, 1, seed=2)[0]
    assert bot.analyse(state).action in state.legal_actions()
    with pytest.raises(ValueError, match="confidence"):
        make_bot("star2cpc(confidence=0.4)", game, 0)
    with pytest.raises(ValueError, match="shallow < depth"):
        make_bot("star2cpc(depth=2,shallow=2)", game, 0)
