"""The synthetic trees: python_pgame, python_implanted_tree, python_chance_tree.

OpenSpiel conformance (random_sim_test with serialization, golden playthroughs), the papers'
definitions checked on whole small trees, and the exact solvers against OpenSpiel's own
alpha_beta_search / expectiminimax.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import statistics

import golden
import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.minimax import alpha_beta_search, expectiminimax

from chancespiel.games.chance_tree import chance_tree_action_values, solve_chance_tree
from chancespiel.games.exact import expectimax_value, minimax_value
from chancespiel.games.implanted_tree import (
    correct_action,
    implanted_action_values,
    solve_implanted_tree,
)
from chancespiel.games.pgame import (
    move_value,
    pgame_action_values,
    pgame_heuristic,
    solve_pgame,
)
from chancespiel.games.registry import has_heuristic
from chancespiel.games.tree_hash import child_key


def implanted(depth, max_depths, min_depths=(), seed=0):
    """The game string of an implanted tree with the given critical depths."""
    maxes = [*max_depths, -1, -1][:2]
    mins = [*min_depths, -1, -1][:2]
    return (
        f"python_implanted_tree(depth={depth},seed={seed},max_critical1={maxes[0]},"
        f"max_critical2={maxes[1]},min_critical1={mins[0]},min_critical2={mins[1]})"
    )


def _leaves(core, path=()):
    """Every (path, leaf core) of a deterministic tree, depth first."""
    if core.is_terminal():
        yield path, core
        return
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        yield from _leaves(child, (*path, action))


# --- OpenSpiel conformance ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "game_string",
    [
        "python_pgame(branching=8,depth=8,seed=3,scoring=margin)",
        "python_implanted_tree(depth=20,max_critical1=0,max_critical2=6,min_critical1=3,min_critical2=9)",
        "python_chance_tree(seed=4,depth=6,outcomes=5,chance_prob=0.7)",
    ],
)
def test_random_sim_with_serialization(game_string):
    pyspiel.random_sim_test(
        pyspiel.load_game(game_string), num_sims=10, serialize=True, verbose=False
    )


@pytest.mark.parametrize("name", ["python_pgame.txt", "python_implanted_tree.txt"])
def test_golden_playthrough(name):
    recorded, replayed = golden.replay(golden.PLAYTHROUGHS / name)
    assert replayed == recorded


@pytest.mark.parametrize(
    "game_string, actions, length",
    [
        ("python_pgame(branching=5,depth=7)", 5, 7),
        ("python_implanted_tree(depth=9,max_critical1=4,max_critical2=-1)", 2, 9),
    ],
)
def test_game_info_and_type(game_string, actions, length):
    game = pyspiel.load_game(game_string)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game.num_distinct_actions() == actions
    assert game.max_game_length() == length
    assert game.max_chance_outcomes() == 0
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
        moves += 1
    assert moves == length


def test_observations():
    game = pyspiel.load_game("python_pgame(branching=3,depth=4)")
    state = game.new_initial_state()
    state.apply_action(2)
    tensor = np.array(state.observation_tensor(0))
    assert tensor.shape == (5 + 2 + 1,)
    assert tensor[1] == 1.0 and tensor[5 + 1] == 1.0  # one ply made, player 1 to move
    assert tensor[-1] == pytest.approx(state.core.total / (127 * 2))
    assert state.observation_string(0) == str(state)
    istate = pyspiel.load_game(implanted(6, (0, 2))).new_initial_state()
    assert len(istate.observation_tensor(0)) == 7 + 2
    assert istate.observation_string(1) == str(istate)


@pytest.mark.parametrize(
    "game_string, message",
    [
        ("python_pgame(branching=1)", "branching"),
        ("python_pgame(depth=0)", "depth"),
        ("python_pgame(scoring=sum)", "scoring"),
        ("python_pgame(seed=-1)", "seed"),
        ("python_implanted_tree(max_critical1=1)", "must be even"),
        ("python_implanted_tree(max_critical1=4,max_critical2=2)", "deeper than"),
        ("python_implanted_tree(depth=6,max_critical2=6)", r"in \[0, 6\)"),
        ("python_implanted_tree(max_critical1=-1,max_critical2=-1)", "must name"),
        ("python_implanted_tree(max_critical1=-1)", "needs max_critical1"),
        ("python_implanted_tree(max_critical1=-2)", r"in \[-1, 39\]"),
        ("python_implanted_tree(max_critical1=0,min_critical1=2)", "must be odd"),
        ("python_implanted_tree(min_critical1=1)", "must be 0"),
    ],
)
def test_bad_parameters(game_string, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game(game_string)


# --- P-games -----------------------------------------------------------------------------------


def test_pgame_leaves_are_the_sign_of_the_sum_of_move_values():
    """The UCT paper's definition, recomputed from the hashed move values along every path."""
    game = pyspiel.load_game("python_pgame(branching=3,depth=5,seed=8)")
    margin = pyspiel.load_game("python_pgame(branching=3,depth=5,seed=8,scoring=margin)")
    root = game.new_initial_state().core
    outcomes = set()
    count = 0
    for path, leaf in _leaves(root):
        key, total = root.key, 0
        for ply, action in enumerate(path):
            key = child_key(key, action)
            value = move_value(key, ply % 2)
            assert (0 <= value <= 127) if ply % 2 == 0 else (-127 <= value <= 0)
            total += value
        assert leaf.total == total
        expected = float(np.sign(total))
        assert leaf.returns() == (expected, -expected)
        outcomes.add(expected)
        other = margin.new_initial_state().core
        for action in path:
            other.apply(action)
        assert other.returns()[0] == pytest.approx(total / (127 * 3))
        count += 1
    assert count == 3**5
    assert {-1.0, 1.0} <= outcomes  # draws need a sum of exactly 0


def test_pgame_move_values_are_uniform_integers():
    """Every move of Max in a whole tree (21844 distinct moves): uniform on 0..127."""
    game = pyspiel.load_game("python_pgame(branching=4,depth=7,seed=2)")
    values = []

    def collect(core):
        if core.is_terminal():
            return
        for action in core.legal_actions():
            if core.current_player() == 0:
                values.append(core.child_move_value(action))
            child = core.clone()
            child.apply(action)
            collect(child)

    collect(game.new_initial_state().core)
    assert len(values) == 4 + 4**3 + 4**5 + 4**7
    assert set(values) == set(range(128))
    assert statistics.fmean(values) == pytest.approx(63.5, abs=1.0)
    counts = np.bincount(values, minlength=128)
    expected = len(values) / 128
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 200  # 127 degrees of freedom: mean 127, sd 16


def test_pgames_are_pure_functions_of_the_seed():
    def leaf_values(seed):
        game = pyspiel.load_game(f"python_pgame(branching=2,depth=6,seed={seed})")
        return [leaf.total for _, leaf in _leaves(game.new_initial_state().core)]

    assert leaf_values(3) == leaf_values(3)
    assert leaf_values(3) != leaf_values(4)
    game = pyspiel.load_game("python_pgame(branching=2,depth=6,seed=3)")
    state = game.new_initial_state()
    clone = state.clone()
    for action in (1, 0, 1):
        state.apply_action(action)
        clone.apply_action(action)
    assert str(state) == str(clone)


def test_pgame_heuristic_is_bounded_and_exact_at_leaves():
    assert has_heuristic("python_pgame")
    for scoring in ("sign", "margin"):
        game = pyspiel.load_game(f"python_pgame(branching=3,depth=5,seed=1,scoring={scoring})")
        rng = random.Random(1)
        for _ in range(200):
            core = game.new_initial_state().core
            while True:
                for player in (0, 1):
                    h = pgame_heuristic(core, player)
                    assert -1.0 <= h <= 1.0
                    if core.is_terminal():
                        assert h == core.returns()[player]
                if core.is_terminal():
                    break
                core.apply(rng.randrange(3))


@pytest.mark.parametrize("scoring", ["sign", "margin"])
def test_solve_pgame_equals_openspiel_alpha_beta(scoring):
    rng = random.Random(len(scoring))
    for _ in range(60):
        b, d = rng.randint(2, 4), rng.randint(1, 6)
        game = pyspiel.load_game(
            f"python_pgame(branching={b},depth={d},seed={rng.randrange(10**6)},scoring={scoring})"
        )
        state = game.new_initial_state()
        reference, _ = alpha_beta_search(game, state, maximizing_player_id=0)
        assert solve_pgame(state.core) == pytest.approx(reference, abs=1e-12)
        assert solve_pgame(state.core, player=1) == pytest.approx(-reference, abs=1e-12)
        assert minimax_value(state.core) == pytest.approx(reference, abs=1e-12)  # unordered
        values = pgame_action_values(state.core)
        assert max(values.values()) == pytest.approx(reference, abs=1e-12)


# --- implanted trees ---------------------------------------------------------------------------


def test_implanted_strategy_wins_against_every_min_reply():
    """Figures 3 and 5: Max's correct moves at the critical depths give +1 whatever Min does;
    any wrong critical move leads to hashed leaves in {-1, 0, +1} (all three occur)."""
    game = pyspiel.load_game(implanted(10, (2, 6), seed=5))
    root = game.new_initial_state().core
    off_values = []
    on_strategy = 0
    for path, leaf in _leaves(root):
        core = root.clone()
        correct = True
        for action in path:
            if core.current_player() == 0 and core.plies in (2, 6):
                correct &= action == correct_action(core.key)
            core.apply(action)
        if correct:
            assert leaf.returns()[0] == 1.0
            on_strategy += 1
        else:
            off_values.append(leaf.returns()[0])
    assert on_strategy == 2**10 // 4
    assert set(off_values) == {-1.0, 0.0, 1.0}
    assert statistics.fmean(off_values) == pytest.approx(0.0, abs=0.1)
    assert solve_implanted_tree(root) == 1.0


def test_correct_actions_vary_between_nodes_and_seeds():
    seen = set()
    for seed in range(8):
        game = pyspiel.load_game(implanted(4, (0, 2), seed=seed))
        core = game.new_initial_state().core
        seen.add(correct_action(core.key))
        for action in (0, 1):
            child = core.clone()
            child.apply(action)
            child.apply(0)
            seen.add(correct_action(child.key))
    assert seen == {0, 1}


def test_trap_tree_has_the_papers_leaf_averages():
    """Figure 4: with Max at depths (0, x2) and Min at (y1, y2), subtree A (Max's correct root
    move) averages 0 and the trap B averages 0.5, though Min refutes B."""
    game = pyspiel.load_game(implanted(10, (0, 4), (3, 7), seed=2))
    root = game.new_initial_state().core
    good = correct_action(root.key)
    subtree = {good: [], 1 - good: []}
    for path, leaf in _leaves(root):
        subtree[path[0]].append(leaf.returns()[0])
    assert statistics.fmean(subtree[good]) == 0.0
    assert statistics.fmean(subtree[1 - good]) == 0.5
    values = implanted_action_values(root)
    assert values == {good: 1.0, 1 - good: -1.0}


def test_solve_implanted_tree_equals_openspiel_alpha_beta():
    rng = random.Random(7)
    for trial in range(60):
        depth = rng.randint(2, 9)
        evens = list(range(0, depth, 2))
        max_depths = sorted(rng.sample(evens, rng.randint(1, min(2, len(evens)))))
        odds = list(range(1, depth, 2))
        min_depths = []
        if trial % 3 == 0 and odds and max_depths[0] == 0:
            min_depths = sorted(rng.sample(odds, rng.randint(1, min(2, len(odds)))))
        game = pyspiel.load_game(implanted(depth, max_depths, min_depths, seed=trial))
        state = game.new_initial_state()
        reference, _ = alpha_beta_search(game, state, maximizing_player_id=0)
        assert reference == 1.0
        assert solve_implanted_tree(state.core) == reference
        for action, value in implanted_action_values(state.core).items():
            child = state.child(action)
            child_value, _ = alpha_beta_search(game, child, maximizing_player_id=0)
            assert value == child_value
            assert minimax_value(child.core) == child_value  # without the shortcuts


# --- chance trees ------------------------------------------------------------------------------


def test_solve_chance_tree_equals_openspiel_expectiminimax():
    rng = random.Random(3)
    for _ in range(40):
        game = pyspiel.load_game(
            f"python_chance_tree(seed={rng.randrange(10**6)},depth={rng.randint(1, 4)},"
            f"branching={rng.randint(2, 4)},outcomes={rng.randint(2, 4)},"
            f"chance_prob={rng.choice([0.2, 0.5, 0.9])})"
        )
        state = game.new_initial_state()
        reference, _ = expectiminimax(state, 100, lambda s: 0.0, 0)
        assert solve_chance_tree(state.core) == pytest.approx(reference, abs=1e-12)
        assert solve_chance_tree(state.core, player=1) == pytest.approx(-reference, abs=1e-12)
        values = chance_tree_action_values(state.core)
        assert max(values.values()) == pytest.approx(reference, abs=1e-12)


def _tree_digest(game_string):
    """A digest of a whole chance tree: every node's key, plies, mover and value, and its
    actions or chance outcomes with their probabilities."""
    digest = hashlib.sha256()

    def walk(core):
        digest.update(f"{core.key:x} {core.plies} {core.player} {core.value()!r};".encode())
        if core.is_terminal():
            return
        if core.current_player() == pyspiel.PlayerId.CHANCE:
            moves = core.chance_outcomes()
        else:
            moves = [(a, None) for a in core.legal_actions()]
        digest.update(repr(moves).encode())
        for move, _ in moves:
            child = core.clone()
            child.apply(move)
            walk(child)

    walk(pyspiel.load_game(game_string).new_initial_state().core)
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(
    "game_string, digest",
    [  # computed when outcomes stopped at 8: widening the bound changed no tree
        ("python_chance_tree", "714a9fc1cdf821ce"),
        (
            "python_chance_tree(seed=4,depth=4,branching=4,outcomes=8,chance_prob=0.7)",
            "0aec1a975e016d82",
        ),
        (
            "python_chance_tree(seed=11,depth=4,branching=8,outcomes=2,chance_prob=1.0)",
            "e25409cba5e94b7e",
        ),
        (
            "python_chance_tree(seed=7,depth=3,branching=2,outcomes=5,chance_prob=0.3)",
            "7bf0afc04928dc50",
        ),
    ],
)
def test_chance_trees_are_those_of_before(game_string, digest):
    assert _tree_digest(game_string) == digest


def test_chance_nodes_have_up_to_64_outcomes():
    game = pyspiel.load_game("python_chance_tree(depth=2,outcomes=64,chance_prob=1.0)")
    assert game.max_chance_outcomes() == 64
    counts = set()
    for seed in range(100):
        core = (
            pyspiel.load_game(
                f"python_chance_tree(seed={seed},depth=2,outcomes=64,chance_prob=1.0)"
            )
            .new_initial_state()
            .core
        )
        core.apply(0)
        outcomes = core.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        counts.add(len(outcomes))
    assert max(counts) > 56 and min(counts) < 8 and counts <= set(range(1, 65))
    with pytest.raises((ValueError, pyspiel.SpielError), match="outcomes"):
        pyspiel.load_game("python_chance_tree(outcomes=65)")


def test_exact_solvers_reject_chance_in_minimax():
    game = pyspiel.load_game("python_chance_tree(seed=1,depth=3,chance_prob=1.0)")
    core = game.new_initial_state().core
    core.apply(0)
    assert core.current_player() == pyspiel.PlayerId.CHANCE
    with pytest.raises(ValueError, match="without chance nodes"):
        minimax_value(core)
    assert -1.0 <= expectimax_value(core) <= 1.0


def test_every_small_tree_shape_loads():
    for b, d in itertools.product((2, 16), (1, 40)):
        state = pyspiel.load_game(f"python_pgame(branching={b},depth={d})").new_initial_state()
        assert len(state.legal_actions()) == b
