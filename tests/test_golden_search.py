"""Golden searches: values, best moves and node counts of fixed searches, pinned from a recording.

Speed work on the rules, the heuristics and the search loops must not change what a search
computes. Each case runs one search from a fixed position and compares it with the recording
in `golden_search.json`: classic expectimax / Star1 / Star2 at a fixed depth (value, action,
per-action values, nodes), and MCTS, DPW and flat Monte Carlo with a fixed seed and simulation
count (action, root visits, value). Positions come from seeded random play on the game cores,
so they depend on nothing but the rules.

Re-record only after an intended change of behaviour, and say why in the commit:

    .venv/bin/python tests/test_golden_search.py --record
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyspiel
import pytest
from golden import golden_positions

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents.baselines import mc_search
from chancespiel.agents.mcts import mcts_search
from chancespiel.agents.star_minimax import search
from chancespiel.games.registry import evaluation_for

GOLDEN = Path(__file__).with_name("golden_search.json")

# Game string -> (fixed depth of the classic searches, heuristics to pin).
GAMES: dict[str, tuple[int, tuple[str, ...]]] = {
    "python_pig": (4, ("default", "lead")),
    "python_pig(dice=1,winscore=30)": (5, ("default",)),
    "python_einstein_wurfelt_nicht": (4, ("default",)),
    "python_cant_stop": (4, ("default", "progress")),
    "python_cant_stop(sides=3,shortest=2,height_step=1,columns_to_win=2)": (5, ("default",)),
    "python_ra": (4, ("default",)),
}
POSITIONS = 3
SIMULATIONS = 300
# Tree searches: name -> (search function, keyword arguments).
TREE_SEARCHES: dict[str, tuple[Any, dict[str, Any]]] = {
    "mcts": (mcts_search, {}),
    "mcts_rd0": (mcts_search, {"rollout_depth": 0}),
    "mcts_rd10": (mcts_search, {"rollout_depth": 10}),
    "dpw_rd10": (mcts_search, {"rollout_depth": 10, "pw_c": 4.0, "pw_alpha": 0.25}),
    "mc_rd10": (mc_search, {"rollout_depth": 10}),
}


def _cases() -> list[tuple[str, str, int, str, str]]:
    """(case id, game string, position index, search name, heuristic) of every case."""
    cases = []
    for game_string, (depth, heuristics) in GAMES.items():
        for index in range(POSITIONS):
            for heuristic in heuristics:
                for algorithm in ("expectimax", "star1", "star2", "star2_iterative"):
                    name = f"{algorithm}_d{depth}"
                    cases.append(
                        (
                            f"{game_string}|{index}|{name}|{heuristic}",
                            game_string,
                            index,
                            name,
                            heuristic,
                        )
                    )
                if heuristic == "default":
                    for name in TREE_SEARCHES:
                        cases.append(
                            (
                                f"{game_string}|{index}|{name}|{heuristic}",
                                game_string,
                                index,
                                name,
                                heuristic,
                            )
                        )
    return cases


_GAME_CACHE: dict[str, tuple[pyspiel.Game, list[Any]]] = {}


def _game_and_positions(game_string: str) -> tuple[pyspiel.Game, list[Any]]:
    if game_string not in _GAME_CACHE:
        game = pyspiel.load_game(game_string)
        _GAME_CACHE[game_string] = (game, golden_positions(game, POSITIONS, seed=len(game_string)))
    return _GAME_CACHE[game_string]


def run_case(game_string: str, index: int, name: str, heuristic: str) -> dict[str, Any]:
    """The pinned facts of one case, as JSON-ready values."""
    game, positions = _game_and_positions(game_string)
    state = positions[index].clone()
    evaluation = evaluation_for(game, heuristic)
    if name in TREE_SEARCHES:
        function, options = TREE_SEARCHES[name]
        result = function(
            state, game, max_simulations=SIMULATIONS, seed=7, evaluation=evaluation, **options
        )
        return {
            "action": result.action,
            "value": result.value,
            "visits": {str(a): v for a, v in sorted(result.visits.items())},
            "simulations": result.simulations,
        }
    algorithm, depth_text = name.rsplit("_d", 1)
    iterative = algorithm.endswith("_iterative")
    result = search(
        state,
        game,
        algorithm.removesuffix("_iterative"),
        max_depth=int(depth_text),
        iterative=iterative,
        evaluation=evaluation,
    )
    return {
        "action": result.action,
        "value": result.value,
        "action_values": {str(a): v for a, v in sorted(result.action_values.items())},
        "nodes": result.nodes,
    }


def _close(recorded: Any, now: Any) -> bool:
    """Equal, with floats within 1e-9 (a summation order may differ in the last bits)."""
    if isinstance(recorded, float) or isinstance(now, float):
        return abs(recorded - now) <= 1e-9
    if isinstance(recorded, dict):
        return recorded.keys() == now.keys() and all(_close(recorded[k], now[k]) for k in recorded)
    return recorded == now


CASES = _cases()


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("case", "game_string", "index", "name", "heuristic"), CASES, ids=[c[0] for c in CASES]
)
def test_search_matches_the_recording(golden, case, game_string, index, name, heuristic):
    now = run_case(game_string, index, name, heuristic)
    recorded = golden[case]
    assert _close(recorded, now), f"{case}: recorded {recorded}, now {now}"


def test_the_recording_covers_every_case(golden):
    assert sorted(golden) == sorted(c[0] for c in CASES)


def record() -> None:
    """Writes the facts of every case to golden_search.json."""
    facts = {case: run_case(*rest) for case, *rest in CASES}
    GOLDEN.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(facts)} cases in {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    record()
