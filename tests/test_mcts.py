"""MCTS (UCT and DPW), the mc and greedy baselines, and OpenSpiel's MCTS as agents."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from scipy.stats import chisquare

from chancespiel import engine
from chancespiel.agents import AGENTS, make_bot, search_state
from chancespiel.agents.baselines import expected_evaluation, greedy_values, mc_search
from chancespiel.agents.draws import temper
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.mcts_core import (
    WORDS,
    Draws,
    Node,
    TreePolicy,
    backup,
    count_nodes,
    draws_from,
    most_visited,
    rollout,
    run_simulations,
    shuffle,
    uct_select,
    widening_limit,
)
from chancespiel.agents.search_core import Guide, sample_guided, sample_index
from chancespiel.evaluation import cli
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.games.core import CHANCE, Core
from chancespiel.games.exact import expectimax_value
from chancespiel.games.pig_core import ROLL, STOP, pig_heuristic

SEARCH_AGENTS = ("mcts", "dpw", "mc", "greedy")
OPENSPIEL_AGENTS = ("openspiel_mcts", "openspiel_mcts_cpp")


def node(visits: int, total: float, player: int = 0) -> Node:
    """A hand-built node with given statistics."""
    n = Node(player)
    n.visits, n.total = visits, total
    return n


def all_nodes(root: Node):
    """Every node of a tree, root first."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in n.children or () if c is not None)


def exact_value(core, player: int) -> float:
    """Plain expectimax to the end (games.exact, which agents/mcts.py does not use)."""
    return expectimax_value(core, player)


# Pure selection rules and backup on hand-built nodes ------------------------------------


def test_uct_select_by_hand():
    # means for player 0: 0.5, 0.2, -0.1 with 10, 2, 1 visits; parent has 13 visits.
    children = [node(10, 5.0), node(2, 0.4), node(1, -0.1)]
    bonus = [math.sqrt(math.log(13) / n) for n in (10, 2, 1)]
    # c = 0: the best mean for each side.
    assert uct_select(children, 1.0, 0.0, 13) == 0
    assert uct_select(children, -1.0, 0.0, 13) == 2
    # c = 0.3: 0.5 + 0.3 * 0.506 = 0.652, 0.2 + 0.3 * 1.133 = 0.540, -0.1 + 0.3 * 1.602 = 0.380
    scores = [m + 0.3 * b for m, b in zip((0.5, 0.2, -0.1), bonus, strict=True)]
    assert max(range(3), key=scores.__getitem__) == uct_select(children, 1.0, 0.3, 13) == 0
    # c = 1: -0.1 + 1.602 wins for player 0; player 1 scores -mean + bonus: 0.1 + 1.602
    assert uct_select(children, 1.0, 1.0, 13) == 2
    # player 1 with c = 0.1: -0.5 + 0.051, -0.2 + 0.113, 0.1 + 0.160: the least mean wins
    assert uct_select(children, -1.0, 0.1, 13) == 2
    # ties go to the first child
    assert uct_select([node(4, 2.0), node(4, 2.0)], 1.0, 1.0, 8) == 0


def test_uct_select_for_min_is_max_of_negated_values():
    rng = random.Random(5)
    for _ in range(200):
        children = [node(rng.randint(1, 50), rng.uniform(-1, 1)) for _ in range(rng.randint(1, 6))]
        parent = sum(c.visits for c in children) + 1
        c = rng.choice([0.0, 0.5, 1.4])
        mirrored = [node(ch.visits, -ch.total) for ch in children]
        assert uct_select(children, -1.0, c, parent) == uct_select(mirrored, 1.0, c, parent)


def test_backup_adds_the_value_to_every_node_on_the_path():
    path = [node(3, 1.0, 0), node(2, -0.5, CHANCE), node(0, 0.0, 1)]
    backup(path, 0.25)
    assert [(n.visits, n.total) for n in path] == [(4, 1.25), (3, -0.25), (1, 0.25)]
    assert path[2].mean() == 0.25


def test_most_visited_breaks_ties_by_value_for_the_mover():
    children = [node(5, 1.0), node(7, -3.0), node(7, 2.0)]
    assert most_visited(children, 1.0) == 2
    assert most_visited(children, -1.0) == 1


def test_widening_limit_by_hand():
    assert [widening_limit(v, 1.0, 0.5) for v in (1, 2, 4, 5, 9, 10)] == [1, 2, 2, 3, 3, 4]
    assert [widening_limit(v, 5.0, 0.2) for v in (1, 2, 32, 33)] == [5, 6, 10, 11]
    assert widening_limit(7, 2.0, 1.0) == 14


def test_sample_index_boundaries():
    cum = [0.25, 0.25 + 0.5, 1.0]
    assert sample_index(cum, 0.0) == 0
    assert sample_index(cum, 0.2499) == 0
    assert sample_index(cum, 0.25) == 1
    assert sample_index(cum, 0.7499) == 1
    assert sample_index(cum, 0.75) == 2
    assert sample_index(cum, 0.999999) == 2
    assert sample_index([2.0, 3.0], 0.6) == 0  # weights 2 and 1 need not sum to 1
    assert sample_index([2.0, 3.0], 0.7) == 1


def test_guided_sampling_equals_bisection():
    rng = random.Random(3)
    rolls = pyspiel.load_game("python_cant_stop").rules.outcomes
    tables = [
        list(itertools.accumulate(p for _, p in rolls)),
        [0.25, 0.75, 1.0],
        [2.0, 3.0],
        [0.1],
        list(itertools.accumulate(rng.random() for _ in range(37))),
    ]
    for cum in tables:
        guide = Guide(cum)
        edges = [b / len(guide) for b in range(len(guide))]
        us = edges + [math.nextafter(u, 0.0) for u in edges[1:]] + [math.nextafter(1.0, 0.0)]
        us += [rng.random() for _ in range(5000)] + [c / cum[-1] for c in cum[:-1]]
        for u in us:
            assert sample_guided(cum, guide, u) == sample_index(cum, u), (cum, u)
        assert sample_guided(cum, None, 0.5) == sample_index(cum, 0.5)


def test_shuffle_makes_the_draws_and_order_of_random_shuffle():
    for seed in range(200):
        for length in (0, 1, 2, 3, 5, 11, 80):
            ours, theirs = random.Random(seed), random.Random(seed)
            items = list(range(length))
            expected = items.copy()
            shuffle(items, ours)
            theirs.shuffle(expected)
            assert items == expected
            assert ours.getstate() == theirs.getstate()


def test_temper_tempers_both_halves_of_a_word_pair_alone():
    """temper(a | b << 32) is MT19937's tempering of a and of b, each in its own half (no bit
    of one half reaches the other), read as a signed 64-bit word as the block gives it; one
    word alone is tempered as itself. Words with every bit near a half's edge set included."""

    def textbook(y: int) -> int:
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return (y ^ (y >> 18)) & 0xFFFFFFFF

    rng = random.Random(11)
    words = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFF0000, 0x0000FFFF]
    words += [rng.getrandbits(32) for _ in range(300)]
    for a in words:
        assert temper(a) == textbook(a), a
        for b in words[:60]:
            pair = a | b << 32
            tempered = temper(pair - (1 << 64) if pair >= 1 << 63 else pair)
            assert (tempered & 0xFFFFFFFF, (tempered >> 32) & 0xFFFFFFFF) == (
                textbook(a),
                textbook(b),
            ), (a, b)


def test_draws_make_the_values_of_random_random_in_its_order():
    """Draws(rng) against rng itself: random(), getrandbits(k) and shuffle mixed at random,
    from generators that have drawn 0 to 700 words, over several blocks of words."""
    for seed in (0, 1, 7, 2**40 + 3, 12345678901234567890):
        for drawn in (0, 1, 3, 700):
            theirs = random.Random(seed)
            if drawn:
                theirs.getrandbits(32 * drawn)
            ours = Draws(theirs)
            script = random.Random(seed + drawn)
            words = 0
            while words < 3 * WORDS:
                kind = script.random()
                if kind < 0.6:
                    assert ours.random() == theirs.random()
                    words += 2
                elif kind < 0.9:
                    k = script.randrange(33)
                    assert ours.getrandbits(k) == theirs.getrandbits(k), k
                    words += 1 if k else 0
                else:
                    items = list(range(script.randrange(40)))
                    expected = items.copy()
                    shuffle(items, ours)
                    theirs.shuffle(expected)
                    assert items == expected
                    words += len(items)


def test_draws_cross_a_block_with_either_word_first():
    """random() whose two words straddle the end of a block, or not: `offset` single words
    first, then floats over the first two block ends."""
    for offset in range(4):
        theirs = random.Random(offset)
        ours = Draws(theirs)
        for _ in range(offset):
            assert ours.getrandbits(32) == theirs.getrandbits(32)
        assert [ours.random() for _ in range(WORDS + 3)] == [
            theirs.random() for _ in range(WORDS + 3)
        ]
    with pytest.raises(ValueError):
        Draws(random.Random(0)).getrandbits(33)


def test_draws_from_reseeded_generators_at_every_kind_of_block_position():
    """Draws(rng) against rng from generators reseeded after drawing (as a bot's generator is
    between moves) and from each position around a block's end: fresh (the block all drawn),
    one word in, one word or one float short of the end, just past it; floats and single words
    alternate over five blocks, so that both alignments of a float's two words cross them."""
    for seed, reseed in ((0, 1), (5, 2**70 + 1), (123, "a string seed")):
        for drawn in (0, 1, WORDS - 2, WORDS - 1, WORDS, WORDS + 1, 2 * WORDS - 1):
            theirs = random.Random(seed)
            theirs.getrandbits(32 * WORDS + 32)
            theirs.seed(reseed)
            if drawn:
                theirs.getrandbits(32 * drawn)
            ours = Draws(theirs)
            for step in range(5 * WORDS // 2):
                if step % 97 == 0:
                    assert ours.getrandbits(32) == theirs.getrandbits(32)
                assert ours.random() == theirs.random()


def test_a_numpy_state_draws_cannot_read_leaves_the_generators_copy(monkeypatch):
    """A Draws reads numpy's MT19937 state in place: where the words at numpy's state address
    are not the state (a numpy laid out otherwise, played here by an address of zeros), it
    refuses, and a compiled search draws from a copy of the generator, the same values."""
    import ctypes

    import numpy.random

    zeros = (ctypes.c_uint32 * (WORDS + 1))()

    class Elsewhere(numpy.random.MT19937):
        @property
        def ctypes(self):  # numpy's interface, its state address replaced
            return type("Interface", (), {"state_address": ctypes.addressof(zeros)})

    Elsewhere.__name__ = "MT19937"  # (numpy takes a state only for a class of that name)
    monkeypatch.setattr(numpy.random, "MT19937", Elsewhere)
    rng, theirs = random.Random(4), random.Random(4)
    with pytest.raises(RuntimeError, match="keeps its state otherwise"):
        Draws(rng)
    ours = draws_from(rng)
    assert not isinstance(ours, Draws)
    assert [ours.random() for _ in range(WORDS + 5)] == [theirs.random() for _ in range(WORDS + 5)]


def test_searches_draw_what_the_generator_would_and_leave_it_alone():
    """draws_from: a Draws where compiled, a copy of the generator as pure Python (both
    checked against random.Random here, the Draws also above), the generator not advanced."""
    for seed in (0, 3):
        rng, theirs = random.Random(seed), random.Random(seed)
        rng.random()
        theirs.random()
        before = rng.getstate()
        ours = draws_from(rng)
        assert isinstance(ours, Draws) == (engine.name() == "compiled")
        for _ in range(3 * WORDS):
            assert ours.random() == theirs.random()
        items, expected = list(range(30)), list(range(30))
        shuffle(items, ours)
        theirs.shuffle(expected)
        assert items == expected
        assert ours.getrandbits(7) == theirs.getrandbits(7)
        assert rng.getstate() == before


# Chance sampling frequencies ---------------------------------------------------------------


def test_tree_chance_samples_follow_the_probabilities():
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    result = mcts_search(core, game, max_simulations=4000, rollout_depth=0, seed=3)
    root = result.root
    chance = root.children[root.actions.index(ROLL)]  # rolling is clearly best at 0-0-0
    assert chance.player == CHANCE and chance.visits > 3000
    probs = dict(core.rules.outcomes)
    observed = [c.visits if c is not None else 0 for c in chance.children]
    expected_p = [probs[o] for o in chance.actions]
    # The first visit made the chance node a leaf; every later one sampled an outcome.
    assert sum(observed) == chance.visits - 1
    n = sum(observed)
    assert chisquare(observed, [p * n for p in expected_p]).pvalue > 0.001


class Recorder(Core):
    """A search-protocol state that records the actions applied to it."""

    def __init__(self, core, applied: list[int]):
        self.core = core
        self.applied = applied

    def current_player(self):
        return self.core.current_player()

    def legal_actions(self):
        return self.core.legal_actions()

    def chance_outcomes(self):
        return self.core.chance_outcomes()

    def apply(self, action):
        self.applied.append(action)
        self.core.apply(action)


def test_rollout_chance_samples_follow_the_probabilities():
    """One chance step, then the heuristic: shared outcome tuples (cached) and fresh outcome
    lists (scanned) are both sampled by their probabilities."""
    for game_string, kind in (("python_pig", tuple), ("python_chance_tree(seed=4)", list)):
        game = pyspiel.load_game(game_string)
        state = game.new_initial_state()
        while state.current_player() != CHANCE:
            state.apply_action(state.legal_actions()[0])
        core = state.core
        assert type(core.chance_outcomes()) is kind
        outcomes = list(core.chance_outcomes())
        rng = random.Random(11)
        cache: dict = {}
        first: list[int] = []
        n = 6000
        for _ in range(n):
            applied: list[int] = []  # chance nodes may chain: the first one is the root's
            rollout(Recorder(core.clone(), applied), 0, rng, lambda s, p: 0.0, cache)
            first.append(applied[0])
        observed = [first.count(o) for o, _ in outcomes]
        assert chisquare(observed, [p * n for _, p in outcomes]).pvalue > 0.001
        assert (len(cache) == 1) == (kind is tuple)


def test_dpw_chance_node_resamples_its_children_by_probability():
    """With pw_c = 1 and pw_alpha = 0.05 a chance node admits two outcomes (until its
    2^20-th visit); their visits follow their probabilities renormalised to the pair."""
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    for seed in range(4):
        result = mcts_search(
            core, game, max_simulations=3000, rollout_depth=0, seed=seed, pw_c=1.0, pw_alpha=0.05
        )
        chance = result.root.children[result.root.actions.index(ROLL)]
        assert chance.visits > 1000
        assert len(chance.present) == 2 == sum(c is not None for c in chance.children)
        probs = dict(core.rules.outcomes)
        weights = [probs[chance.actions[i]] for i in chance.present]
        assert chance.present_cum == pytest.approx([weights[0], sum(weights)])
        # A child's first visit created it; the later ones are draws between the two.
        observed = [chance.children[i].visits - 1 for i in chance.present]
        n = sum(observed)
        expected = [w / sum(weights) * n for w in weights]
        assert chisquare(observed, expected).pvalue > 0.001


# Widening -----------------------------------------------------------------------------------


def test_dpw_admits_exactly_ceil_c_v_alpha_actions_at_every_visit():
    state = next(
        core
        for seed in range(100)
        for core in [
            pyspiel.load_game(f"python_chance_tree(seed={seed},depth=6,branching=8)")
            .new_initial_state()
            .core
        ]
        if core.current_player() >= 0 and len(core.legal_actions()) == 8
    )

    def reverse(_state, actions):
        return list(reversed(actions))

    for pw_c, pw_alpha in ((1.0, 0.5), (1.5, 0.3), (0.3, 0.9), (4.0, 0.25)):
        root = Node(state.current_player())
        policy = TreePolicy(uct_c=1.0, pw_c=pw_c, pw_alpha=pw_alpha)
        rng = random.Random(0)
        expanded = 0
        for visit in range(1, 301):
            run_simulations(
                state,
                root,
                policy,
                rollout_depth=-1,
                evaluate=lambda s, p: 0.0,
                ordering=reverse,
                rng=rng,
                max_simulations=1,
                deadline=None,
            )
            k = min(8, math.ceil(pw_c * visit**pw_alpha))
            assert root.visits == visit
            assert root.width == k, (pw_c, pw_alpha, visit)
            expanded = min(expanded + 1, k)  # one new child per visit while some are admitted
            assert len(root.children) == expanded
        assert root.actions == list(reversed(state.legal_actions()))
        # every decision node of the tree obeys the same rule at its own visit count
        for n in all_nodes(root):
            if n.player >= 0 and n.actions is not None:
                assert n.width == min(len(n.actions), math.ceil(pw_c * n.visits**pw_alpha))
                assert len(n.children) <= n.width
            if n.player == CHANCE and n.actions is not None:
                assert len(n.present) <= math.ceil(pw_c * n.visits**pw_alpha)


def test_dpw_follows_the_games_move_ordering():
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    core.turn_total = 25  # Pig's ordering puts STOP first from a turn total of 20
    result = mcts_search(core, game, max_simulations=1, pw_c=1.0, pw_alpha=0.5)
    assert result.root.actions == [STOP, ROLL]
    assert list(result.visits) == [STOP]


def test_uct_tries_every_action_before_repeating_one():
    game = pyspiel.load_game("python_chance_tree(seed=7,depth=6,branching=8,outcomes=4)")
    for state in random_decision_positions(game, 5, seed=2, max_moves=3):
        count = len(state.legal_actions())
        result = mcts_search(search_state(state), game, max_simulations=count, seed=1)
        assert sorted(result.visits) == sorted(state.legal_actions())
        assert set(result.visits.values()) == {1}


# Values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 3, 4, 5])
@pytest.mark.parametrize(
    "options",
    [{}, {"rollout_depth": 0}, {"rollout_depth": 2}, {"pw_c": 2.0, "pw_alpha": 0.5}],
    ids=["uct", "uct-h", "rollout2", "dpw"],
)
def test_values_converge_to_expectimax_on_small_trees(seed, options):
    game = pyspiel.load_game(f"python_chance_tree(seed={seed},depth=4,branching=3,outcomes=3)")
    core = game.new_initial_state().core
    player = core.current_player()
    exact = {}
    for action in core.legal_actions():
        child = core.clone()
        child.apply(action)
        exact[action] = exact_value(child, player)
    result = mcts_search(core, game, max_simulations=15000, seed=seed, **options)
    assert result.action == max(exact, key=exact.__getitem__)
    assert result.value == pytest.approx(exact_value(core, player), abs=0.02)
    assert result.action_values[result.action] == pytest.approx(exact[result.action], abs=0.02)
    assert result.simulations == 15000 == result.root.visits
    assert result.nodes == sum(1 for _ in all_nodes(result.root))


def test_rollout_depth_counts_decision_moves_before_the_heuristic():
    game = pyspiel.load_game("python_chance_tree(seed=2,depth=12,branching=3,outcomes=3)")
    leaf_plies: list[int] = []

    def plies_seen(state, player):
        leaf_plies.append(state.plies)
        return 0.0

    for depth in (0, 1, 3):
        leaf_plies.clear()
        rng = random.Random(depth)
        for _ in range(50):
            core = game.new_initial_state().core
            rollout(core, depth, rng, plies_seen)
        assert set(leaf_plies) == {depth}
    # to the end: the heuristic is never called; the value is the return
    core = game.new_initial_state().core
    value = rollout(core, -1, random.Random(0), plies_seen)
    assert core.is_terminal() and value == core.returns()[0]


def test_search_is_reproducible_and_leaves_the_state_alone():
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    state = random_decision_positions(game, 1, seed=3)[0]
    core = search_state(state)
    before = str(core)
    first = mcts_search(core, game, max_simulations=300, seed=9, pw_c=2.0)
    second = mcts_search(core, game, max_simulations=300, seed=9, pw_c=2.0)
    assert str(core) == before
    assert (first.action, first.visits, first.action_values) == (
        second.action,
        second.visits,
        second.action_values,
    )


def test_values_are_for_the_player_to_move():
    """Pig is symmetric: a position and its mirror image (seats swapped) give the mover the
    same value, the same visits and the same move with the same seed."""
    game = pyspiel.load_game("python_pig")
    results = []
    for player in (0, 1):
        core = game.new_initial_state().core
        core.turn_player, core.turn_total = player, 12
        core.scores = (60, 85) if player == 0 else (85, 60)
        results.append(mcts_search(core, game, max_simulations=2000, seed=1, rollout_depth=3))
    first, second = results
    assert first.value == pytest.approx(second.value)
    assert first.visits == second.visits
    assert first.action_values == pytest.approx(second.action_values)
    assert first.value < 0  # behind by 13 points with 12 at risk


# Baselines -----------------------------------------------------------------------------------


def test_mc_spreads_simulations_uniformly_and_picks_the_best_mean():
    game = pyspiel.load_game("python_chance_tree(seed=3,depth=3,branching=3,outcomes=3)")
    core = game.new_initial_state().core
    result = mc_search(core, game, max_simulations=3001, seed=2)
    counts = sorted(result.visits.values())
    assert counts[-1] - counts[0] <= 1 and sum(counts) == 3001
    assert result.action == max(result.action_values, key=result.action_values.__getitem__)


def test_greedy_averages_over_the_chance_nodes_before_the_next_decision():
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    core.scores, core.turn_total = (40, 50), 5
    values = greedy_values(core, pig_heuristic)
    after_roll = core.clone()
    after_roll.apply(ROLL)
    expected = 0.0
    for outcome, prob in after_roll.chance_outcomes():
        child = after_roll.clone()
        child.apply(outcome)
        expected += prob * pig_heuristic(child, 0)
    assert values[ROLL] == pytest.approx(expected)
    assert values[ROLL] == pytest.approx(expected_evaluation(after_roll, pig_heuristic, 0))
    after_stop = core.clone()
    after_stop.apply(STOP)
    assert values[STOP] == pig_heuristic(after_stop, 0)
    bot = make_bot("greedy", game, 0, seed=1)
    state = game.new_initial_state()
    state.core = core
    assert bot.step(state) == max(values, key=values.__getitem__)


def test_greedy_analyses_with_its_one_ply_values(capsys):
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    state.core.scores, state.core.turn_total = (40, 50), 5
    expected = greedy_values(state.core, pig_heuristic)
    result = make_bot("greedy", game, 0, seed=1).analyse(state)
    assert result.action_values == expected and result.depth == 1
    assert result.action == max(expected, key=expected.__getitem__)
    assert result.value == expected[result.action] and result.evaluations > len(expected)
    history = " ".join(map(str, [ROLL, 3, ROLL, 4]))
    assert cli.main(["analyse", "python_pig", "--history", history, "--agent", "greedy"]) == 0
    shown = capsys.readouterr().out
    assert "greedy for player 0" in shown and "roll (0):" in shown and "stop (1):" in shown


# Bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts(uct_c=-0.5)", r"uct_c must be in \[0, "),
        ("dpw(uct_c=-1)", r"uct_c must be in \[0, "),
        ("dpw(pw_alpha=0)", r"pw_alpha must be in \(0, 1\]"),
        ("dpw(pw_alpha=1.5)", r"pw_alpha must be in \(0, 1\]"),
        ("dpw(pw_alpha=-0.2)", r"pw_alpha must be in \(0, 1\]"),
        ("dpw(pw_c=0)", r"pw_c must be in \(0, "),
        ("mcts(max_simulations=0)", r"max_simulations must be in \[1, "),
        ("dpw(max_simulations=-3)", r"max_simulations must be in \[1, "),
        ("mcts(time_ms=0)", r"time_ms must be in \(0, "),
        ("mc(time_ms=-5)", r"time_ms must be in \(0, "),
        ("mc(max_simulations=0)", r"max_simulations must be in \[1, "),
        ("mcts(rollout_depth=-2)", r"rollout_depth must be in \[-1, "),
        ("mcts(uct_c=abc)", "uct_c must be a number such as 200 or 200.5"),
        ("mcts(pw_c=2)", "unknown parameter"),
        ("openspiel_mcts(uct_c=-1)", r"uct_c must be in \[0, "),
        ("openspiel_mcts(max_simulations=0)", r"max_simulations must be in \[1, "),
        ("openspiel_mcts_cpp(time_ms=0)", r"time_ms must be in \(0, "),
        ("openspiel_mcts_cpp(max_memory_mb=0)", r"max_memory_mb must be in \[1, "),
    ],
)
def test_bad_parameters_raise_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec, pyspiel.load_game("python_pig"), 0)


def test_search_functions_reject_bad_input():
    game = pyspiel.load_game("python_pig")
    core = game.new_initial_state().core
    with pytest.raises(ValueError, match="give a budget"):
        mcts_search(core, game)
    with pytest.raises(ValueError, match="uct_c must be >= 0"):
        mcts_search(core, game, max_simulations=10, uct_c=-1.0)
    with pytest.raises(ValueError, match="uct_c must be >= 0"):
        mcts_search(core, game, max_simulations=10, uct_c=math.nan)
    with pytest.raises(ValueError, match="pw_alpha"):
        mcts_search(core, game, max_simulations=10, pw_c=1.0, pw_alpha=0.0)
    with pytest.raises(ValueError, match="max_simulations must be >= 1"):
        mcts_search(core, game, max_simulations=0)
    with pytest.raises(ValueError, match="max_simulations must be >= 1"):
        mc_search(core, game, max_simulations=0)
    core.apply(ROLL)
    with pytest.raises(ValueError, match="decision node"):
        mcts_search(core, game, max_simulations=10)
    with pytest.raises(ValueError, match="decision node"):
        mc_search(core, game, max_simulations=10)
    with pytest.raises(ValueError, match="needs 2"):
        make_bot("mcts", pyspiel.load_game("kuhn_poker(players=3)"), 0)


# Registry and play -----------------------------------------------------------------------------


def test_registry_lists_the_agents_with_the_shared_vocabulary():
    expected = {
        "mcts": {
            "uct_c",
            "rollout_depth",
            "max_simulations",
            "time_ms",
            "clock",
            "max_nodes",
            "heuristic",
            "ordering",
            "seed",
        },
        "dpw": {
            "uct_c",
            "rollout_depth",
            "max_simulations",
            "time_ms",
            "clock",
            "max_nodes",
            "pw_c",
            "pw_alpha",
            "heuristic",
            "ordering",
            "seed",
        },
        "mc": {"rollout_depth", "max_simulations", "time_ms", "heuristic", "seed"},
        "greedy": {"heuristic", "seed"},
        "openspiel_mcts": {"uct_c", "max_simulations", "time_ms", "solve", "seed"},
        "openspiel_mcts_cpp": {
            "uct_c",
            "max_simulations",
            "time_ms",
            "solve",
            "max_memory_mb",
            "seed",
        },
    }
    for name, params in expected.items():
        assert set(AGENTS[name].params) == params
    assert AGENTS["openspiel_mcts"].params["uct_c"].default == 2.0
    assert AGENTS["mcts"].params["uct_c"].default == 1.0


def test_bots_are_reproducible_from_their_seed():
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    state = random_decision_positions(game, 1, seed=8)[0]
    for spec in (
        "mcts(max_simulations=200)",
        "dpw(max_simulations=200)",
        "mc(max_simulations=60)",
        "openspiel_mcts(max_simulations=60)",
        "openspiel_mcts_cpp(max_simulations=200)",
    ):
        picks = {make_bot(spec, game, state.current_player(), seed=4).step(state) for _ in "ab"}
        assert len(picks) == 1, spec
        assert picks <= set(state.legal_actions())


@pytest.mark.parametrize("game_string", ["python_pig(winscore=30)", "pig(winscore=30)"])
@pytest.mark.parametrize("name", SEARCH_AGENTS + OPENSPIEL_AGENTS)
def test_each_agent_plays_in_openspiel_evaluate_bots(name, game_string):
    game = pyspiel.load_game(game_string)
    spec = name if name == "greedy" else f"{name}(max_simulations=20)"
    bots = [make_bot(spec, game, 0, seed=1), make_bot("random", game, 1, seed=2)]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
    assert sorted(returns) == [-1.0, 1.0]


GAMES = [
    "python_pig",
    "python_einstein_wurfelt_nicht",
    "python_einstein_wurfelt_nicht(setup=free)",
    "python_cant_stop",
    "python_ra",
    "python_chance_tree(seed=1,depth=8)",
    "pig",
    "einstein_wurfelt_nicht",
    "backgammon",
]


@pytest.mark.parametrize("game_string", GAMES)
def test_every_agent_moves_on_our_games_and_openspiels(game_string):
    game = pyspiel.load_game(game_string)
    state = random_decision_positions(game, 1, seed=4, max_moves=6)[0]
    player = state.current_player()
    budgets = {"greedy": ""}
    for name in SEARCH_AGENTS + OPENSPIEL_AGENTS:
        simulations = 3 if game_string == "backgammon" and name != "openspiel_mcts_cpp" else 30
        spec = budgets.get(name, f"(max_simulations={simulations})")
        bot = make_bot(name + spec, game, player, seed=1)
        assert bot.step(state) in state.legal_actions(), (name, game_string)
    heuristic_leaf = make_bot("mcts(rollout_depth=0,max_simulations=50)", game, player, seed=1)
    assert heuristic_leaf.step(state) in state.legal_actions()


def test_time_budgets_end_the_searches():
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    for spec in ("mcts(time_ms=20)", "dpw(time_ms=20)", "mc(time_ms=20)"):
        bot = make_bot(spec, game, 0, seed=1)
        bot.step(state)
        assert bot.last_result.simulations >= 1
    for spec in ("openspiel_mcts(time_ms=20)", "openspiel_mcts_cpp(time_ms=20)"):
        bot = make_bot(spec, game, 0, seed=1)
        assert bot.step(state) in (ROLL, STOP)
        assert 1 <= bot.last_root.explore_count < 2**31 - 1
    assert bot.last_root.outcome in (None, [])  # the stopping mark is not left behind


def test_forced_moves_are_played_without_search():
    game = pyspiel.load_game("python_pig(winscore=20)")
    state = game.new_initial_state()
    state.core.turn_total = 25  # stopping wins: the only legal action
    for name in SEARCH_AGENTS + OPENSPIEL_AGENTS:
        assert make_bot(name, game, 0, seed=1).step(state) == STOP


def test_analyse_reports_the_search():
    game = pyspiel.load_game("python_pig")
    state = game.new_initial_state()
    for spec in ("mcts(max_simulations=100)", "mc(max_simulations=100)"):
        result = make_bot(spec, game, 0, seed=1).analyse(state)
        assert result.simulations == 100
        assert set(result.action_values) == {ROLL, STOP}
        assert result.action in (ROLL, STOP) and result.nodes >= 3


@pytest.mark.slow
def test_pig_values_converge_to_the_exact_solution():
    """Small one-die Pig: MCTS's value of the best move approaches the solver's."""
    from chancespiel.games.pig_solver import solve_pig

    game = pyspiel.load_game("python_pig(dice=1,winscore=8)")
    solution = solve_pig(dice=1, winscore=8)
    for scores, turn_total in (((0, 0), 0), ((5, 3), 2), ((2, 6), 4)):
        core = game.new_initial_state().core
        core.scores, core.turn_total = scores, turn_total
        exact = 2.0 * solution.state_win_probability(core, 0) - 1.0
        for options in ({}, {"pw_c": 2.0}):
            result = mcts_search(core, game, max_simulations=100_000, seed=1, **options)
            assert result.action == solution.best_action(*scores, turn_total)
            assert result.value == pytest.approx(exact, abs=0.015)


@pytest.mark.parametrize("pw_c", [None, 1.0])
@pytest.mark.parametrize("game_string", ["python_pig", "python_cant_stop"])
def test_node_count_of_the_loop_equals_a_walk_of_the_tree(game_string, pw_c):
    game = pyspiel.load_game(game_string)
    start = game.new_initial_state()
    while start.is_chance_node():
        start.apply_action(start.chance_outcomes()[-1][0])
    state = search_state(start)
    for max_simulations in (1, 2, 300):
        result = mcts_search(
            state, game, max_simulations=max_simulations, rollout_depth=10, pw_c=pw_c, seed=5
        )
        assert result.nodes == count_nodes(result.root)


def test_a_bots_search_frees_its_tree_before_the_collector_resumes():
    """With keep_tree=False (what MCTSBot asks for) the tree is freed while the collector is
    paused, so it leaves the collector nothing to walk; a kept tree counts as thousands of new
    container allocations, which the collector's next pass walks."""
    import gc

    game = pyspiel.load_game("python_pig(dice=1)")
    core = search_state(game.new_initial_state())
    assert gc.isenabled()
    allocated = {}
    for keep in (True, False):
        gc.collect()
        before = gc.get_count()[0]
        gc.disable()  # so that no pass resets the count between the search and the reading
        try:
            result = mcts_search(core, game, max_simulations=3000, seed=0, keep_tree=keep)
            allocated[keep] = gc.get_count()[0] - before
        finally:
            gc.enable()
        assert (result.root is not None) == keep
        assert result.simulations == 3000
    assert allocated[True] > 3000  # at least a node per simulation
    assert allocated[False] < 300
    bot = make_bot("mcts(max_simulations=500)", game, player=0)
    bot.step(game.new_initial_state())
    assert bot.last_result.root is None and gc.isenabled()


def test_dpw_without_a_move_ordering_admits_actions_in_the_games_order():
    """Ra registers no move ordering: DPW enumerates its legal actions as listed (the paper's
    "first k actions" of a static order), where UCT tries them in a shuffled order."""
    game = pyspiel.load_game("python_ra")
    for state in random_decision_positions(game, 20, seed=3, max_moves=40):
        legal = list(state.legal_actions())
        if len(legal) < 3:
            continue
        core = search_state(state)
        for seed in range(3):
            dpw = mcts_search(core, game, max_simulations=50, pw_c=1.0, pw_alpha=0.1, seed=seed)
            assert dpw.root.actions == legal
            assert set(dpw.visits) == set(legal[: dpw.root.width])
        shuffled = [
            mcts_search(core, game, max_simulations=1, seed=seed).root.actions for seed in range(8)
        ]
        assert all(sorted(order) == sorted(legal) for order in shuffled)
        assert any(order != legal for order in shuffled)


@pytest.mark.parametrize("spec", ["mcts(max_simulations=300)", "dpw(max_simulations=300)"])
def test_step_with_policy_is_the_roots_visit_distribution(spec):
    """The policy is each legal action's share of the root's visits in the search tree that
    chose the move (the same search, kept by `analyse` from a bot with the same seed)."""
    game = pyspiel.load_game("python_cant_stop")
    state = game.new_initial_state()
    rng = random.Random(0)
    while state.is_chance_node() or len(state.legal_actions()) < 3:
        state.apply_action(
            rng.choice([o for o, _ in state.chance_outcomes()])
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
    player = state.current_player()
    tree = make_bot(spec, game, player, seed=5).analyse(state).root
    assert tree is not None
    visits = {a: c.visits for a, c in zip(tree.actions, tree.children, strict=False) if c}
    policy, action = make_bot(spec, game, player, seed=5).step_with_policy(state)
    assert [a for a, _ in policy] == state.legal_actions()
    total = sum(visits.values())
    assert total == 300
    assert policy == [(a, visits.get(a, 0) / total) for a in state.legal_actions()]
    assert math.isclose(sum(p for _, p in policy), 1.0)
    assert len({p for _, p in policy}) > 1  # a distribution, not one action's certainty
    assert action == max(visits, key=lambda a: visits[a])


def test_step_with_policy_of_a_forced_move_is_certain():
    game = pyspiel.load_game("python_cant_stop")
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) > 1:
        state.apply_action(
            state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0]
        )
    bot = make_bot("mcts(max_simulations=50)", game, state.current_player(), 1)
    policy, action = bot.step_with_policy(state)
    assert policy == [(action, 1.0)]
    assert bot.last_result is None  # played without search
