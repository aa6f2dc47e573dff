"""Every registered chancespiel game passes the conformance checks (chancespiel.evaluation.
conformance, what `chancespiel check GAME` runs on any game, a plugin's too): OpenSpiel's API
contract, the game contract and the search protocol, and determinism.

The cases come from the registry (`listed_games()`, what `chancespiel games` lists) at
collection time, so a game declared later gets the same checks without editing this file. A
game with a `horizon` parameter is also checked with a short horizon, so that random playouts
end there (a draw, possibly at a chance node) and the length bounds are met at their limit.
Game-specific facts (oracles against OpenSpiel's C++ games, golden playthroughs and values)
stay in each game's own test file. Each check is also broken once, by a faulty game
(tests/faulty_games.py), and must fail with a reason that names the fault.
"""

from __future__ import annotations

import functools

import faulty_games  # noqa: F401  (registers the faulty games)
import pyspiel
import pytest

from chancespiel.evaluation.conformance import CHECK_NAMES, CHECKS, run_check, run_checks
from chancespiel.games import listed_games

SHORT_HORIZON = 20  # decision moves: random games of every game with a horizon reach it


def _game_strings() -> list[str]:
    """Each registered game with its defaults, and with a short horizon if it has one."""
    strings = []
    for name in sorted(spec.short_name for spec in listed_games()):
        strings.append(name)
        horizon = pyspiel.load_game(name).get_parameters().get("horizon")
        if isinstance(horizon, int) and horizon > SHORT_HORIZON:
            strings.append(f"{name}(horizon={SHORT_HORIZON})")
    return strings


GAME_STRINGS = _game_strings()


@functools.cache
def _load(game_string: str) -> pyspiel.Game:
    return pyspiel.load_game(game_string)


@pytest.mark.parametrize("check", CHECKS, ids=[check.name for check in CHECKS])
@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_every_game_passes_every_check(game_string, check):
    outcome = run_check(check, _load(game_string))
    if outcome.status == "skip":
        pytest.skip(outcome.reason)
    assert outcome.status == "pass", outcome.reason


# check -> (a game that breaks it, words its reason must hold)
BROKEN = {
    "random_sim": ("test_faulty_game(fault=raises,at=3)", "deliberate failure"),
    "serialization": ("test_faulty_game(fault=forgets)", "comes back from serialize"),
    "clones": ("test_faulty_game(fault=shared_clone)", "changed the original"),
    "chance": ("test_faulty_game(fault=half,at=3)", "sum to 0.5"),
    "returns": ("test_faulty_game(fault=not_zero_sum)", "sum to 2, not 0"),
    "legal_actions": ("test_faulty_game(fault=unsorted,at=2)", "[1, 0] not sorted"),
    "length": ("test_faulty_game(fault=endless)", "more than max_game_length = 6"),
    "observations": ("test_faulty_core(fault=observation)", "not finite"),
    "contract": ("test_faulty_game(fault=bad_player,at=4)", "current player 5 is no player"),
    "core": ("test_faulty_core(fault=child)", "child(0) differs from clone() then apply(0)"),
    "search": ("test_faulty_core(fault=heuristic)", "returned 5.0"),
    "determinism": ("test_faulty_game(fault=unseeded)", "the same seed gave two different"),
}


def test_every_check_is_broken_once():
    assert set(BROKEN) == set(CHECK_NAMES)


@pytest.mark.parametrize("check", CHECKS, ids=[check.name for check in CHECKS])
def test_a_game_that_breaks_a_check_fails_it_with_a_one_line_reason(check):
    game_string, words = BROKEN[check.name]
    outcome = run_check(check, pyspiel.load_game(game_string))
    assert outcome.status == "fail" and words in outcome.reason, outcome
    assert "\n" not in outcome.reason
    # the same game without the fault passes
    fine = game_string.split("(")[0]
    assert run_check(check, pyspiel.load_game(fine)).status in ("pass", "skip")


def test_an_error_raised_by_the_game_names_the_line_that_raised_it():
    game = pyspiel.load_game("test_faulty_game(fault=raises,at=3)")
    outcomes = {o.check: o for o in run_checks(game)}
    assert outcomes["clones"].status == "fail"
    reason = outcomes["clones"].reason
    assert reason.startswith("RuntimeError: deliberate failure while applying a move (")
    assert "faulty_games.py:" in reason
