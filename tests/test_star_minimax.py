"""Expectimax / Star1 / Star2 / MCMS against OpenSpiel's expectiminimax and each other."""

from __future__ import annotations

import collections
import random
import zlib

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.algorithms.minimax import expectiminimax

from chancespiel.agents import PyspielAdapter, make_bot, search_common, search_state
from chancespiel.agents.search_core import Budget, sample_outcomes
from chancespiel.agents.star_core import StarSearch
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions as random_positions

# Every game the family must handle: ours, and OpenSpiel's own games with chance.
GAMES = {
    "python_pig(winscore=40)": 4,
    "python_pig(dice=1,winscore=25)": 4,
    "python_chance_tree(seed=3,depth=6,branching=4,outcomes=4)": 5,
    "python_einstein_wurfelt_nicht": 3,
    "python_cant_stop": 2,
    "python_ra": 2,
    "python_ra(epochs=1)": 3,
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)": 4,
    "pig(winscore=25)": 3,
    "einstein_wurfelt_nicht": 2,
    "backgammon": 1,
}


def hashed_evaluation(state, player: int) -> float:
    """A deterministic, varied evaluation in (-1, 1) of any state (ours or pyspiel's)."""
    if state.is_terminal():
        return state.returns()[player]
    h = zlib.crc32(f"{player}:{state}".encode()) / 2**32
    return 1.8 * h - 0.9


@pytest.mark.parametrize("game_string", list(GAMES))
def test_expectimax_equals_openspiel_and_star_equals_expectimax(game_string):
    game = pyspiel.load_game(game_string)
    for state in random_positions(game, 3, seed=len(game_string)):
        player = state.current_player()
        for depth in range(1, GAMES[game_string] + 1):
            reference, _ = expectiminimax(
                state, depth, lambda s, p=player: hashed_evaluation(s, p), player
            )
            values = {}
            for algorithm in ("expectimax", "star1", "star2"):
                result = search(
                    # OpenSpiel's states through the adapter: search_state would read C++ EWN
                    # into our core, whose str() (hashed above) differs from the C++ one.
                    search_state(state)
                    if hasattr(state, "core")
                    else PyspielAdapter(state.clone()),
                    game,
                    algorithm,
                    max_depth=depth,
                    evaluation=hashed_evaluation,
                )
                values[algorithm] = result.value
            assert values["expectimax"] == pytest.approx(reference, abs=1e-9), (depth, state)
            assert values["star1"] == pytest.approx(reference, abs=1e-9), (depth, state)
            assert values["star2"] == pytest.approx(reference, abs=1e-9), (depth, state)


def _exact(core, depth: int, root: int) -> float:
    """Plain recursive expectimax, written independently of the module under test."""
    player = core.current_player()
    if player == pyspiel.PlayerId.TERMINAL:
        return core.returns()[root]
    if depth == 0:
        return hashed_evaluation(core, root)
    if player == pyspiel.PlayerId.CHANCE:
        total = 0.0
        for outcome, prob in core.chance_outcomes():
            child = core.clone()
            child.apply(outcome)
            total += prob * _exact(child, depth, root)
        return total
    values = []
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        values.append(_exact(child, depth - 1, root))
    return max(values) if player == root else min(values)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 4),
    chance_prob=st.sampled_from([0.3, 0.6, 0.9]),
    algorithm=st.sampled_from(["star1", "star2"]),
    window=st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)),
    walk=st.integers(0, 3),
)
def test_fail_soft_window_property_on_random_chance_trees(
    seed, depth, chance_prob, algorithm, window, walk
):
    """In window (a, b) the result v is exact if a < v < b, an upper bound if v <= a, and a
    lower bound if v >= b: the contract every caller of Star1/Star2 relies on. Windows lie in
    [vmin, vmax], as every window the search derives does."""
    alpha, beta = sorted(window)
    if beta - alpha < 1e-6:
        return
    game = pyspiel.load_game(
        f"python_chance_tree(seed={seed},depth=6,branching=3,outcomes=4,chance_prob={chance_prob})"
    )
    core = game.new_initial_state().core
    rng = random.Random(seed)
    for _ in range(walk):  # start below the root sometimes, at a chance node too
        if core.current_player() == pyspiel.PlayerId.CHANCE:
            core.apply(rng.choice(core.chance_outcomes())[0])
        elif not core.is_terminal() and core.plies < 2:
            core.apply(rng.choice(core.legal_actions()))
    root = 0
    exact = _exact(core, depth, root)
    context = StarSearch(
        algorithm, root, hashed_evaluation, -1.0, 1.0, None, 0, 0, None, Budget(None, None)
    )
    value = context.star(core.clone(), depth, alpha, beta, 12345, 12345)
    if alpha < value < beta:
        assert value == pytest.approx(exact, abs=1e-9)
    elif value <= alpha:
        assert exact <= value + 1e-9
    else:
        assert exact >= value - 1e-9


@pytest.mark.parametrize(
    "game_string, depth",
    [("python_pig(winscore=60)", 4), ("python_chance_tree(seed=11,depth=7,outcomes=6)", 5)],
)
def test_sampled_star_equals_expss_with_the_same_seed(game_string, depth):
    game = pyspiel.load_game(game_string)
    for state in random_positions(game, 4, seed=9):
        values = {
            algorithm: search(
                search_state(state), game, algorithm, max_depth=depth, samples=3, seed=77
            ).value
            for algorithm in ("expectimax", "star1", "star2")
        }
        assert values["star1"] == pytest.approx(values["expectimax"], abs=1e-9)
        assert values["star2"] == pytest.approx(values["expectimax"], abs=1e-9)
        other = search(search_state(state), game, "expectimax", max_depth=depth, samples=3, seed=78)
        assert other.nodes > 0  # another seed is another sample (checked below)


def test_samples_depend_on_seed_and_converge_to_expectimax():
    game = pyspiel.load_game("python_pig(winscore=40)")
    state = random_positions(game, 1, seed=4)[0]
    exact = search(search_state(state), game, "expectimax", max_depth=3).value
    sampled = [
        search(search_state(state), game, "expectimax", max_depth=3, samples=40, seed=s).value
        for s in range(20)
    ]
    assert len(set(sampled)) > 1
    assert np.mean(sampled) == pytest.approx(exact, abs=0.05)


def test_sample_outcomes_frequencies_match_probabilities():
    outcomes = [(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.4)]
    counts = collections.Counter()
    for key in range(200):
        for outcome, weight in sample_outcomes(outcomes, 100, key):
            counts[outcome] += round(weight * 100)
    total = sum(counts.values())
    assert total == 20_000
    for outcome, prob in outcomes:
        sigma = (prob * (1 - prob) / total) ** 0.5
        assert abs(counts[outcome] / total - prob) < 4 * sigma
    merged = sample_outcomes(outcomes, 50, 7)
    assert sum(w for _, w in merged) == pytest.approx(1.0)
    assert len({o for o, _ in merged}) == len(merged)


def test_iterative_deepening_does_not_change_values_and_prunes():
    game = pyspiel.load_game("python_chance_tree(seed=5,depth=7,branching=4,outcomes=5)")
    state = game.new_initial_state()
    nodes = {}
    for algorithm in ("expectimax", "star1", "star2"):
        flat = search(search_state(state), game, algorithm, max_depth=6, iterative=False)
        deep = search(search_state(state), game, algorithm, max_depth=6)
        assert flat.value == pytest.approx(deep.value, abs=1e-9)
        assert deep.depth == 6 and deep.completed
        nodes[algorithm] = flat.nodes
    assert nodes["star1"] < nodes["expectimax"] / 3
    assert nodes["star2"] < nodes["expectimax"] / 3


def test_budgets_stop_the_search_with_a_legal_move():
    game = pyspiel.load_game("python_pig")
    state = random_positions(game, 1, seed=2)[0]
    result = search(search_state(state), game, "star2", max_nodes=3000)
    assert not result.completed and result.depth >= 1
    assert result.action in state.legal_actions()
    assert result.nodes <= 3000 + 256
    timed = search(search_state(state), game, "star1", time_ms=30)
    assert timed.action in state.legal_actions() and timed.time_s < 1.0


def test_search_stops_when_the_tree_is_exhausted():
    game = pyspiel.load_game("python_chance_tree(seed=1,depth=3)")
    result = search(search_state(game.new_initial_state()), game, "star2", time_ms=5000)
    assert result.depth <= 4 and result.time_s < 1.0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("star1(max_depth=-1)", r"max_depth must be in \[1, "),
        ("expss(samples=0)", r"samples must be in \[1, "),
        ("star2(samples=0)", r"samples must be in \[1, "),
        ("star2(depth=3)", "unknown parameter"),
        ("star2(time_ms=0)", r"time_ms must be in \(0, "),
        ("expectimax(prune_min_depth=-2)", "prune_min_depth"),
        ("star1ss(samples=none)", "cannot be none"),
    ],
)
def test_bad_parameters(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec, pyspiel.load_game("python_pig"), 0)


def test_unsupported_games():
    with pytest.raises(ValueError, match="3 players"):
        make_bot("star2(max_depth=2)", pyspiel.load_game("pig(players=3)"), 0)
    with pytest.raises(ValueError, match="imperfect information"):
        make_bot("star1(max_depth=2)", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="decision node"):
        game = pyspiel.load_game("python_pig")
        state = game.new_initial_state()
        state.apply_action(0)
        search(search_state(state), game, "star1", max_depth=2)


def test_bots_play_in_evaluate_bots_on_ours_and_openspiel_games():
    for game_string in ("python_pig(winscore=30)", "pig(winscore=30)", "einstein_wurfelt_nicht"):
        game = pyspiel.load_game(game_string)
        bots = [
            make_bot("star2ss(samples=3,max_depth=2,seed=1)", game, 0),
            make_bot("random(seed=2)", game, 1),
        ]
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
        assert len(returns) == 2 and returns[0] == -returns[1]


def test_paper_names_are_registered_with_samples():
    game = pyspiel.load_game("python_pig")
    for name in ("expss", "star1ss", "star2ss"):
        bot = make_bot(f"{name}(samples=5,max_depth=2,seed=3)", game, 0)
        assert bot.options["samples"] == 5
    assert make_bot("star2(seed=1)", game, 0).options["time_ms"] == 200.0


@pytest.mark.parametrize("spec", ["star2ss(samples=3,", "dpw(", "bab(", "star2cpc("])
def test_cpu_clock_budgets_time_of_the_cpu_clock(spec, monkeypatch):
    """clock=cpu reads search_common.CLOCKS["cpu"] (the thread's CPU time): with a fake clock
    that advances 1 ms per reading, a 50 ms budget ends after about 50 readings."""
    readings = []

    def fake() -> float:
        readings.append(None)
        return len(readings) / 1000.0

    monkeypatch.setitem(search_common.CLOCKS, "cpu", fake)
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = make_bot(f"{spec}time_ms=50,clock=cpu)", game, state.current_player(), 1)
    bot.step(state)
    assert 50 <= len(readings) <= 60


def test_unknown_clock_is_refused():
    game = pyspiel.load_game("python_pig")
    with pytest.raises(ValueError, match="clock must be one of wall, cpu, got 'gpu'"):
        make_bot("star2(clock=gpu)", game, 0, 1)


def test_adapter_states_key_the_table_by_path():
    """A pyspiel state behind the adapter has no key of its own (its hash is its identity,
    which would make node counts depend on memory addresses): the table falls back to path
    keys, so the default table and table="path" search the same nodes."""
    game = pyspiel.load_game("pig(piglet=true,winscore=20)")  # no reader: the adapter
    state = search_state(game.new_initial_state())
    assert isinstance(state, PyspielAdapter) and not state.has_state_key()
    by_default = search(state, game, "star2", max_depth=9)
    by_path = search(state, game, "star2", max_depth=9, table="path")
    assert by_default.nodes == by_path.nodes
    assert by_default.value == by_path.value
