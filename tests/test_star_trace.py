"""The trace of the *-Minimax searches (agents.star_trace): a traced search is the same search
(value, move, every root value and kind, nodes, heuristic calls), and what it records is what
the algorithm did: Star2's probes, the outcomes a cut pruned, the actions cut off."""

from __future__ import annotations

from collections.abc import Iterator

import pyspiel
import pytest
from golden import former_hybrid, ordered_cant_stop_decision

from chancespiel.agents import make_bot, search_state
from chancespiel.agents.star_minimax import search
from chancespiel.agents.star_trace import (
    OUTCOME_PROBED,
    OUTCOME_PROBED_SEARCHED,
    OUTCOME_PRUNED,
    OUTCOME_SEARCHED,
    PROBED,
    SearchTrace,
    TracedStarSearch,
    TraceNode,
    UntraceableError,
    traced_search,
)
from chancespiel.evaluation.cli.common import apply_history
from chancespiel.evaluation.positions import random_decision_positions
from chancespiel.evaluation.search_page import star_trees

GAMES = [
    "python_pig(winscore=40)",
    "python_einstein_wurfelt_nicht",
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)",
    "python_chance_tree(seed=3,depth=6,branching=4,outcomes=4)",
]
SEARCHES = [
    ("expectimax", {}),
    ("star1", {}),
    ("star2", {}),
    ("star1", {"table": "path"}),
    ("star2", {"prune_min_depth": 1}),
    ("star2", {"samples": 4}),
    ("star1", {"samples": 3, "shared_samples": True}),
    ("expectimax", {"samples": 5, "systematic": True, "exact_up_to": 3}),
    ("star2", {"samples": 4, "resample": True, "max_nodes": 3000}),
]


def facts(result) -> tuple:
    return (
        result.value,
        result.action,
        result.action_values,
        result.action_value_kinds,
        result.nodes,
        result.evaluations,
        result.depth,
        result.completed,
        [(it.depth, it.value, it.action, it.nodes) for it in result.iterations],
    )


def walk(node: TraceNode) -> Iterator[TraceNode]:
    yield node
    for child in node.children:
        yield from walk(child)


@pytest.mark.parametrize("game_string", GAMES)
@pytest.mark.parametrize("algorithm, options", SEARCHES, ids=lambda x: str(x))
def test_a_traced_search_is_the_same_search(game_string, algorithm, options):
    game = pyspiel.load_game(game_string)
    options = {"max_depth": 3, **options}
    for state in random_decision_positions(game, 2, seed=7):
        root = search_state(state)
        plain = search(root, game, algorithm, seed=11, **options)
        trace = SearchTrace(levels=3, children=2)
        traced = search(
            root, game, algorithm, seed=11, search_class=TracedStarSearch,
            search_options={"trace": trace}, **options,
        )  # fmt: skip
        assert facts(traced) == facts(plain)
        completed = [(it.depth, it.nodes) for it in trace.iterations if it.completed]
        assert completed == [(it.depth, it.nodes) for it in plain.iterations]
        for it in trace.iterations:
            if it.root is None:
                continue
            for node in walk(it.root):
                assert node.level <= 3 and len(node.children) <= 2


def test_a_search_stopped_by_its_budget_is_the_same_and_says_so():
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    root = search_state(random_decision_positions(game, 1, seed=3)[0])
    plain = search(root, game, "star2", seed=1, max_nodes=2000)
    trace = SearchTrace()
    traced = search(
        root, game, "star2", seed=1, max_nodes=2000, search_class=TracedStarSearch,
        search_options={"trace": trace},
    )  # fmt: skip
    assert facts(traced) == facts(plain) and not plain.completed
    last = trace.iterations[-1]
    assert not last.completed and last.root is not None
    assert "the budget ran out" in last.root.notes[0]


# the hybrid before version 0.3.0, where capped_trial was measured
HYBRID_15 = {"samples": 15, "seed": 1, **former_hybrid(15), "capped_trial": True}


def test_the_searches_that_are_not_results_say_what_they_were_for():
    """The hybrid with capped_trial on Can't Stop with ordered dice after a bust: a sampled
    fourth depth measures the cap, then the classic second depth is given up at it; the
    trace names both, and the page's headings say so."""
    game, state = ordered_cant_stop_decision(4)
    plain = search(search_state(state), game, "expectimax", max_nodes=300_000, **HYBRID_15)
    trace = SearchTrace()
    traced = search(
        search_state(state), game, "expectimax", max_nodes=300_000, **HYBRID_15,
        search_class=TracedStarSearch, search_options={"trace": trace},
    )  # fmt: skip
    assert facts(traced) == facts(plain)
    notes = [(it.depth, it.sampled, it.completed, it.note) for it in trace.iterations[:4]]
    assert notes[:2] == [(1, False, True, ""), (4, True, True, notes[1][3])]
    assert "measured the cap" in notes[1][3]
    assert notes[2][:3] == (2, False, False) and "given up" in notes[2][3]
    assert notes[3] == (2, True, True, "")  # sampling takes over at the second depth
    headings = [heading for heading, _ in star_trees(trace)]
    assert "measured the cap" in headings[1] and "given up" in headings[2]


def pig_trace(algorithm: str, levels: int = 6, children: int = 100) -> SearchTrace:
    game = pyspiel.load_game("python_pig")
    state = search_state(apply_history(game, "0 7 0 12"))
    trace = SearchTrace(levels, children)
    search(
        state, game, algorithm, max_depth=3, search_class=TracedStarSearch,
        search_options={"trace": trace},
    )  # fmt: skip
    return trace


def test_star2_probes_and_prunes_where_the_trace_says():
    root = pig_trace("star2").iterations[-1].root
    assert root is not None
    chance = [n for n in walk(root) if n.kind == "chance" and n.outcomes and n.level < 6]
    statuses = {row.status for n in chance for row in n.outcomes}
    assert {OUTCOME_PRUNED, OUTCOME_PROBED, OUTCOME_PROBED_SEARCHED} <= statuses
    for node in chance:
        pruned = [r for r in node.outcomes if r.status in (OUTCOME_PRUNED, OUTCOME_PROBED)]
        cut = [note for note in node.notes if note.startswith("cut ")]
        # an outcome is left out only where the bounds proved a cut, and the proof holds
        assert cut or not pruned
        if pruned:
            assert node.alpha is not None and node.beta is not None and node.value is not None
            assert node.value >= node.beta or node.value <= node.alpha
            assert all(r.lower is not None and r.upper is not None for r in node.outcomes)
            pess = sum(r.prob * r.lower for r in node.outcomes)  # type: ignore[operator]
            opti = sum(r.prob * r.upper for r in node.outcomes)  # type: ignore[operator]
            assert pess >= node.beta - 1e-9 or opti <= node.alpha + 1e-9
        for row in node.outcomes:  # a searched outcome has a child of its own in the trace
            if row.status in (OUTCOME_SEARCHED, OUTCOME_PROBED_SEARCHED):
                assert any(c.move == row.outcome and c.role != PROBED for c in node.children)
        probes = [c for c in node.children if c.role == PROBED]
        assert all(len(p.children) <= 1 for p in probes)  # a probe tries one action
    # a decision node that cut off lists the actions it never searched
    assert any(n.pruned and n.kind in ("max", "min") for n in walk(root))


def test_star1_never_probes_and_expectimax_never_prunes():
    star1 = pig_trace("star1").iterations[-1].root
    expectimax = pig_trace("expectimax").iterations[-1].root
    assert star1 is not None and expectimax is not None
    assert all(n.role != PROBED for n in walk(star1))
    assert any(r.status == OUTCOME_PRUNED for n in walk(star1) for r in n.outcomes)
    for node in walk(expectimax):
        assert not node.pruned and all(r.status == OUTCOME_SEARCHED for r in node.outcomes)


def test_trimmed_children_are_counted():
    """What the trace leaves out is counted: every node's visits are its own (but the root's,
    which no search counts), its kept children's and the omitted ones' (expectimax: no probe
    visits a child's node twice)."""
    root = pig_trace("expectimax", levels=4, children=2).iterations[-1].root
    assert root is not None
    omitted = 0
    for node in walk(root):
        if node.level < 4 and node.kind != "horizon" and node.kind != "terminal":
            own = 1 if node.level else 0
            assert node.nodes == own + sum(c.nodes for c in node.children) + node.omitted_nodes
            omitted += node.omitted
    assert omitted > 0


def test_limits_are_checked_and_a_foreign_search_is_refused():
    with pytest.raises(ValueError, match=r"levels must be in 1\.\.12"):
        SearchTrace(levels=0)
    with pytest.raises(ValueError, match=r"children must be in 1\.\.100"):
        SearchTrace(children=101)
    game = pyspiel.load_game("python_pig(winscore=30)")
    bot = make_bot("star2cpc(max_depth=3)", game, 0, 1)
    with pytest.raises(UntraceableError):
        traced_search(bot, search_state(game.new_initial_state()), SearchTrace())
    # a node drawn again would list its first draws only
    bot = make_bot("expss(samples=3,max_depth=3,se_gap=1)", game, 0, 1)
    with pytest.raises(UntraceableError, match="se_gap draws a chance node again"):
        traced_search(bot, search_state(game.new_initial_state()), SearchTrace())
