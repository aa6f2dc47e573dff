"""python_ra: scoring oracles, auction and disaster rules, a whole scripted game, invariants."""

from __future__ import annotations

import math
import pickle
import random

import pyspiel
import pytest
from golden import PLAYTHROUGHS, replay

import chancespiel.games  # noqa: F401
from chancespiel.games import heuristic_for
from chancespiel.games.ra_core import (
    AUCTION,
    CIVS,
    DISCARD,
    DRAW,
    DRAWING,
    EARTHQUAKE,
    FLOOD,
    FUNERAL,
    GOD,
    GODS,
    GOLD,
    INVOKE,
    KIND_NAMES,
    MONUMENTS,
    NILE,
    NUM_ACTIONS,
    NUM_KINDS,
    NUM_TILES,
    PASS,
    PHARAOH,
    RA,
    TILE_COUNTS,
    TURN,
    UNREST,
    RaCore,
    RaRules,
    bid_action,
    civilization_points,
    epoch_points,
    god_action,
    monument_points,
    nile_points,
    pharaoh_points,
    projected_fame,
    sun_total_points,
)

CHANCE = int(pyspiel.PlayerId.CHANCE)
KIND = {name: k for k, name in enumerate(KIND_NAMES)}


def _new(epochs: int = 3) -> RaCore:
    return RaRules(epochs).initial_core()


def _do(core: RaCore, *texts: str) -> None:
    """Applies actions (or drawn tiles, 'Tile Ra') by their names, each checked to be legal."""
    for text in texts:
        player = core.current_player()
        chance = player == CHANCE
        legal = [k for k, _ in core.chance_outcomes()] if chance else core.legal_actions()
        names = {core.action_to_string(player, a): a for a in legal}
        assert text in names, f"{text!r} is not legal for {player}; legal: {list(names)}\n{core}"
        core.apply(names[text])


def _draw(core: RaCore, *kinds: str) -> None:
    """The players in turn draw tiles of the named kinds."""
    for kind in kinds:
        _do(core, "Draw", f"Tile {kind}")


def _take_from_bag(core: RaCore, kind: int) -> None:
    assert core.bag[kind] > 0
    core.bag[kind] -= 1
    core.bag_size -= 1


def _give(core: RaCore, player: int, *kinds: int) -> None:
    """Moves tiles from the bag to a player's display (keeps conservation)."""
    for k in kinds:
        _take_from_bag(core, k)
        core.tiles[player][k] += 1


def _put_on_track(core: RaCore, *kinds: int) -> None:
    for k in kinds:
        _take_from_bag(core, k)
        core.track.append(k)


def _legal_names(core: RaCore) -> list[str]:
    return [core.action_to_string(core.current_player(), a) for a in core.legal_actions()]


def _check_invariants(core: RaCore) -> None:
    """Tiles and suns are conserved; counts and phases are consistent."""
    assert sum(core.bag) == core.bag_size
    track = [0] * NUM_KINDS
    for k in core.track:
        track[k] += 1
    track[RA] += core.ra_count
    t0, t1 = core.tiles
    places = (core.bag, track, t0, t1, core.discard)
    assert [sum(counts) for counts in zip(*places, strict=True)] == list(TILE_COUNTS), core
    assert min(min(counts) for counts in places) >= 0
    assert t0[RA] == t1[RA] == 0 and not any(t0[FUNERAL:]) and not any(t1[FUNERAL:])
    suns = sorted((*core.up[0], *core.down[0], *core.up[1], *core.down[1], core.centre))
    assert suns == list(range(1, 10))
    assert len(core.up[0]) + len(core.down[0]) == len(core.up[1]) + len(core.down[1]) == 4
    assert all(list(s) == sorted(s) for s in (*core.up, *core.down))
    assert len(core.track) <= 8 and 0 <= core.ra_count < 6
    assert min(core.fame) >= 0
    if core.phase in (TURN, GODS, DRAWING, AUCTION):  # a disaster may follow a last sun
        assert core.up[core.turn_player], "the turn player must hold a face-up sun"


# Scoring oracles (docs/games/ra.md, "Scoring").


def _counts(**named: int) -> list[int]:
    tiles = [0] * NUM_KINDS
    for name, n in named.items():
        tiles[KIND[name.replace("_", " ")]] = n
    return tiles


def test_monument_rulebook_example_is_19():
    # 4 Pyramids + 3 Temples + 2 Fortresses + 1 Sphinx = 4 (distinct) + 10 + 5 = 19.
    assert monument_points(_counts(Pyramid=4, Temple=3, Fortress=2, Sphinx=1)) == 19


@pytest.mark.parametrize(
    "monuments, points",
    [
        ({}, 0),
        ({"Obelisk": 1}, 1),
        ({"Obelisk": 2}, 1),
        ({"Obelisk": 3}, 1 + 5),
        ({"Obelisk": 5}, 1 + 15),
        ({name: 1 for name in KIND_NAMES[11:17]}, 6),
        ({name: 1 for name in KIND_NAMES[11:18]}, 10),
        ({name: 1 for name in KIND_NAMES[11:19]}, 15),
        ({name: 5 for name in KIND_NAMES[11:19]}, 15 + 8 * 15),
    ],
)
def test_monument_table(monuments, points):
    assert monument_points(_counts(**{k.replace(" ", "_"): n for k, n in monuments.items()})) == (
        points
    )


@pytest.mark.parametrize("distinct, points", list(enumerate([-5, 0, 0, 5, 10, 15])))
def test_civilization_table(distinct, points):
    tiles = [0] * NUM_KINDS
    for k in CIVS[:distinct]:
        tiles[k] = 2  # duplicates do not count
    assert civilization_points(tiles) == points


def test_pharaohs_majority_minority_and_all_equal():
    assert pharaoh_points(3, 1) == 5 and pharaoh_points(1, 3) == -2
    assert pharaoh_points(4, 4) == 0 and pharaoh_points(0, 0) == 0  # all equal: nobody scores
    both = _counts(Pharaoh=2, Astronomy=1, Writing=1, Art=1)
    assert epoch_points(both, both) == 5  # only the civilizations score


def test_nile_scores_only_with_a_flood():
    assert nile_points(5, 0) == 0
    assert nile_points(5, 1) == 6 and nile_points(0, 3) == 3
    assert epoch_points(_counts(Nile=4, Astronomy=1), [0] * NUM_KINDS) == 0
    assert epoch_points(_counts(Nile=4, Flood=2, Astronomy=1), [0] * NUM_KINDS) == 6


def test_gods_gold_and_sun_totals():
    mine = _counts(God=2, Gold=1, Religion=1)
    assert epoch_points(mine, mine) == 2 * 2 + 3
    assert sun_total_points(23, 21) == 5 and sun_total_points(21, 23) == -5
    assert sun_total_points(22, 22) == 0


# Setup and chance nodes.


def test_setup_and_draw_probabilities():
    game = pyspiel.load_game("python_ra")
    assert game.num_distinct_actions() == NUM_ACTIONS == 43
    assert game.max_chance_outcomes() == NUM_KINDS == 23
    assert game.max_game_length() == 232 + 40 * 3
    assert sum(TILE_COUNTS) == NUM_TILES == 180 and TILE_COUNTS[RA] == 30
    core = game.new_initial_state().core
    assert core.up == ((2, 5, 6, 9), (3, 4, 7, 8)) and core.centre == 1
    assert core.fame == (10, 10) and core.current_player() == 0
    assert core.legal_actions() == [DRAW, INVOKE]
    _do(core, "Draw")
    outcomes = core.chance_outcomes()
    assert [k for k, _ in outcomes] == list(range(NUM_KINDS))
    assert [p * 180 for _, p in outcomes] == pytest.approx(TILE_COUNTS)
    assert math.isclose(sum(p for _, p in outcomes), 1.0)
    _do(core, "Tile Funeral")
    _draw(core, "Funeral")
    _do(core, "Draw")
    outcomes = dict(core.chance_outcomes())
    assert FUNERAL not in outcomes and len(outcomes) == NUM_KINDS - 1
    assert outcomes[RA] == pytest.approx(30 / 178)
    assert math.isclose(sum(outcomes.values()), 1.0)


# Turns and auctions.


def test_voluntary_invoker_must_bid_and_may_invoke_on_an_empty_track():
    core = _new()
    _do(core, "Invoke Ra")  # legal on an empty track
    assert core.current_player() == 1  # the other player bids first
    assert _legal_names(core) == ["Pass", "Bid sun 3", "Bid sun 4", "Bid sun 7", "Bid sun 8"]
    _do(core, "Pass")
    assert core.current_player() == 0
    assert PASS not in core.legal_actions()  # everyone else passed: the invoker must bid
    _do(core, "Bid sun 2")
    # The winner takes the centre sun face down and the winning sun goes to the centre.
    assert core.up[0] == (5, 6, 9) and core.down[0] == (1,) and core.centre == 2
    assert core.current_player() == 1 and core.turn_player == 1  # after the starter
    _check_invariants(core)


def test_bids_must_beat_the_high_bid_and_a_bidder_who_cannot_is_skipped():
    core = _new()
    _draw(core, "Pharaoh")
    _do(core, "Invoke Ra", "Bid sun 6")  # player 1 invokes, player 0 bids 6
    assert _legal_names(core) == ["Pass", "Bid sun 7", "Bid sun 8"]  # the invoker may pass
    _do(core, "Bid sun 8")
    assert core.tiles[1][PHARAOH] == 1 and core.up[1] == (3, 4, 7) and core.centre == 8
    assert core.track == [] and core.turn_player == 0
    # Player 0 invokes and player 1 bids 7: player 0 can beat it with 9 only.
    _do(core, "Invoke Ra", "Bid sun 7")
    assert _legal_names(core) == ["Pass", "Bid sun 9"]
    _do(core, "Bid sun 9")
    assert core.up == ((2, 5, 6), (3, 4, 7)) and core.down == ((8,), (1,))
    # Player 0 invokes again; player 1 bids 7 and player 0 (2, 5, 6) cannot beat it: no decision.
    _draw(core, "Nile")
    _do(core, "Invoke Ra", "Bid sun 7")
    assert core.current_player() == 1 and core.turn_player == 1
    assert core.tiles[1][NILE] == 1 and core.up == ((2, 5, 6), (3, 4)) and core.centre == 7
    _check_invariants(core)


def test_ra_drawn_all_may_pass_and_the_tiles_stay():
    core = _new()
    _draw(core, "Gold", "Nile")
    _do(core, "Draw", "Tile Ra")  # player 0 draws Ra: an auction, player 1 bids first
    assert core.ra_count == 1 and core.current_player() == 1
    _do(core, "Pass")
    assert PASS in core.legal_actions()  # a drawn Ra does not force the drawer to bid
    _do(core, "Pass")
    assert [KIND_NAMES[k] for k in core.track] == ["Gold", "Nile"]
    assert core.up == ((2, 5, 6, 9), (3, 4, 7, 8)) and core.turn_player == 1
    _check_invariants(core)


def test_full_track_blocks_drawing_and_all_passing_discards_it():
    core = _new()
    _draw(core, "Pharaoh", "Nile", "Flood", "Gold", "Pyramid", "Art", "Funeral", "Temple")
    assert len(core.track) == 8 and core.current_player() == 0
    assert core.legal_actions() == [INVOKE]  # drawing is illegal, no god to spend
    _do(core, "Invoke Ra", "Pass")
    assert PASS in core.legal_actions()  # invoked on a full track: the invoker may pass
    _do(core, "Pass")
    assert core.track == [] and sum(core.discard) == 8 and core.discard[FUNERAL] == 1
    assert core.up == ((2, 5, 6, 9), (3, 4, 7, 8)) and core.turn_player == 1
    _check_invariants(core)


def test_gods_take_tiles_several_per_turn_but_not_gods_or_disasters():
    core = _new()
    _give(core, 0, GOD, GOD, GOD)
    _put_on_track(core, PHARAOH, GOD, FUNERAL, GOLD, PHARAOH, NILE, FLOOD, MONUMENTS[0])
    # The track is full: drawing is illegal, gods may still be spent.
    assert _legal_names(core) == [
        "Invoke Ra",
        "God takes Gold",
        "God takes Pharaoh",
        "God takes Nile",
        "God takes Flood",
        "God takes Fortress",
    ]
    _do(core, "God takes Pharaoh")
    assert core.current_player() == 0 and _legal_names(core)[0] == "End turn"
    assert DRAW not in core.legal_actions() and INVOKE not in core.legal_actions()
    _do(core, "God takes Gold")
    assert core.tiles[0][PHARAOH] == 1 and core.tiles[0][GOLD] == 1 and core.tiles[0][GOD] == 1
    assert core.discard[GOD] == 2  # spent gods leave the game
    _do(core, "End turn")
    assert core.turn_player == 1 and core.tiles[0][GOD] == 1
    _check_invariants(core)
    # The last god ends the turn by itself.
    _do(core, "Draw", "Tile Nile")
    assert god_action(NILE) in core.legal_actions()
    _do(core, "God takes Nile")
    assert core.tiles[0][GOD] == 0 and core.turn_player == 1 and core.current_player() == 1
    _check_invariants(core)


def test_a_player_without_face_up_suns_is_skipped():
    core = _new()
    for sun in (2, 5, 6, 9):  # player 0 spends a sun, player 1 draws
        _do(core, "Invoke Ra", "Pass", f"Bid sun {sun}")
        if core.up[0]:
            _draw(core, "Nile")
    assert core.up[0] == () and core.down[0] == (1, 2, 5, 6)
    assert core.turn_player == 1 and core.tiles[0][NILE] == 3
    _draw(core, "Gold", "Gold")  # player 1 moves twice in a row
    _do(core, "Draw", "Tile Ra")  # player 0 cannot bid: player 1 alone decides
    assert core.current_player() == 1 and PASS in core.legal_actions()
    _do(core, "Pass", "Invoke Ra")
    assert PASS not in core.legal_actions()  # a voluntary invoker must still bid
    _do(core, "Bid sun 3")
    assert core.tiles[1][GOLD] == 2 and core.turn_player == 1
    _check_invariants(core)


# Disasters.


def _win_track(core: RaCore, sun: int = 9) -> None:
    """Player 0 invokes, player 1 passes, player 0 wins the track with `sun`."""
    _do(core, "Invoke Ra", "Pass", f"Bid sun {sun}")


def test_funeral_takes_two_pharaohs_counting_the_lot_and_stacks():
    core = _new()
    _give(core, 0, PHARAOH, PHARAOH)
    _put_on_track(core, PHARAOH, FUNERAL)
    _win_track(core)
    assert core.tiles[0][PHARAOH] == 1 and core.discard[PHARAOH] == 2
    assert core.discard[FUNERAL] == 1 and core.current_player() == 1
    _check_invariants(core)
    core = _new()
    _give(core, 0, PHARAOH, PHARAOH)
    _put_on_track(core, FUNERAL, PHARAOH, FUNERAL)  # two funerals, three pharaohs: all go
    _win_track(core)
    assert core.tiles[0][PHARAOH] == 0 and core.discard[PHARAOH] == 3
    _check_invariants(core)


def test_drought_takes_floods_first_then_niles():
    core = _new()
    _give(core, 0, NILE, NILE, NILE, FLOOD)
    _put_on_track(core, 20)  # Drought
    _win_track(core)
    assert core.tiles[0][FLOOD] == 0 and core.tiles[0][NILE] == 2
    assert core.current_player() == 1  # no decision
    _check_invariants(core)
    core = _new()
    _give(core, 0, NILE, FLOOD, FLOOD, FLOOD)
    _put_on_track(core, 20, FLOOD)
    _win_track(core)
    assert core.tiles[0][FLOOD] == 2 and core.tiles[0][NILE] == 1
    _check_invariants(core)


def test_unrest_asks_which_civilizations_to_discard():
    core = _new()
    astronomy, writing, art = CIVS[0], CIVS[2], CIVS[4]
    _give(core, 0, astronomy, writing)
    _put_on_track(core, UNREST, art, GOLD)
    _win_track(core)
    assert core.current_player() == 0  # the winner chooses, among the tiles just won too
    assert _legal_names(core) == ["Discard Astronomy", "Discard Writing", "Discard Art"]
    _do(core, "Discard Writing")
    assert _legal_names(core) == ["Discard Astronomy", "Discard Art"]
    _do(core, "Discard Art")
    assert core.tiles[0][astronomy] == 1 and core.tiles[0][GOLD] == 1
    assert core.current_player() == 1 and core.turn_player == 1
    _check_invariants(core)


@pytest.mark.parametrize(
    "held, left",
    [
        ((CIVS[0], CIVS[1]), ()),  # two or fewer: all go
        ((CIVS[3],) * 3, (CIVS[3],)),  # one kind: no choice
        ((), ()),
    ],
)
def test_unrest_without_a_choice_is_automatic(held, left):
    core = _new()
    _give(core, 0, *held)
    _put_on_track(core, UNREST)
    _win_track(core)
    assert core.current_player() == 1
    assert [k for k in CIVS for _ in range(core.tiles[0][k])] == list(left)
    _check_invariants(core)


def test_earthquake_asks_which_monuments_and_stacks_with_unrest():
    core = _new()
    pyramid, temple, sphinx = MONUMENTS[3], MONUMENTS[4], MONUMENTS[7]
    _give(core, 0, pyramid, pyramid, temple, CIVS[0], CIVS[1], CIVS[2])
    _put_on_track(core, EARTHQUAKE, sphinx, UNREST)
    _win_track(core)
    # Civilizations first (3 held, 2 owed), then monuments (4 held, 2 owed).
    assert _legal_names(core) == ["Discard Astronomy", "Discard Agriculture", "Discard Writing"]
    _do(core, "Discard Agriculture", "Discard Writing")
    assert _legal_names(core) == ["Discard Pyramid", "Discard Temple", "Discard Sphinx"]
    _do(core, "Discard Pyramid")
    assert core.current_player() == 0
    _do(core, "Discard Temple")
    assert [core.tiles[0][k] for k in (pyramid, temple, sphinx)] == [1, 0, 1]
    assert core.tiles[0][CIVS[0]] == 1 and core.current_player() == 1
    assert core.discard[EARTHQUAKE] == core.discard[UNREST] == 1
    _check_invariants(core)


# Epochs.


def test_sixth_ra_ends_the_epoch_without_an_auction():
    core = _new()
    _draw(core, "Pharaoh", "Nile")
    for _ in range(5):  # five drawn Ras, both pass each time; the tiles stay
        _do(core, "Draw", "Tile Ra", "Pass", "Pass")
    assert core.ra_count == 5 and len(core.track) == 2 and core.epoch == 1
    _do(core, "Draw", "Tile Ra")  # the sixth: no auction
    assert core.epoch == 2 and core.ra_count == 0 and core.track == []
    assert core.discard[RA] == 6 and core.discard[PHARAOH] == core.discard[NILE] == 1
    assert core.fame == (5, 5)  # no civilizations: -5 each, nothing else
    assert core.turn_player == 0 and core.current_player() == 0  # holds sun 9
    _check_invariants(core)


def test_epoch_ends_when_no_face_up_sun_is_left_and_highest_sun_starts():
    core = _new()
    # The turn player invokes, the other passes, the invoker bids: one sun spent per auction.
    for sun in (2, 3, 5, 4, 6, 7, 9):  # players 0, 1, 0, 1, 0, 1, 0
        _do(core, "Invoke Ra", "Pass", f"Bid sun {sun}")
    assert core.up == ((), (8,)) and core.epoch == 1 and core.turn_player == 1
    _do(core, "Invoke Ra", "Bid sun 8")  # player 0 has no sun to bid: 1 must bid its last
    assert core.epoch == 2 and core.centre == 8
    assert core.up == ((1, 3, 4, 7), (2, 5, 6, 9)) and core.down == ((), ())
    assert core.turn_player == 1  # player 0 started epoch 1; player 1 now holds sun 9
    _check_invariants(core)


def test_fame_never_drops_below_zero():
    core = _new(epochs=2)
    core.fame = (3, 10)
    _give(core, 1, PHARAOH)  # player 0: fewest pharaohs -2, no civilization -5
    for _ in range(6):
        _do(core, "Draw", "Tile Ra", *(["Pass", "Pass"] if core.ra_count < 5 else []))
    assert core.fame == (0, 10)  # 3 - 7 floored; 10 + 5 - 5


def test_gods_gold_floods_and_civilizations_are_discarded_at_epoch_end():
    core = _new()
    _give(core, 0, GOD, GOLD, FLOOD, NILE, PHARAOH, CIVS[0], MONUMENTS[0])
    for _ in range(6):
        _do(core, "Draw", "Tile Ra", *(["Pass", "Pass"] if core.ra_count < 5 else []))
    kept = [KIND_NAMES[k] for k in range(NUM_KINDS) if core.tiles[0][k]]
    assert kept == ["Pharaoh", "Nile", "Fortress"]
    # 2 (god) + 3 (gold) + 5 (pharaohs) + 2 (Nile and flood) + 0 (one civilization)
    assert core.fame == (10 + 12, 10 - 2 - 5)
    _check_invariants(core)


def test_a_whole_scripted_game_with_hand_computed_scores():
    core = _new()
    # Epoch 1: player 0 (sun 9) starts.
    _draw(core, "Pharaoh", "Pharaoh", "Flood", "Nile", "Astronomy", "Writing", "Art")
    _do(core, "Invoke Ra", "Bid sun 9")  # 1 invokes, 0 bids 9, 1 cannot beat it
    _draw(core, "God", "Gold", "Pyramid")
    _do(core, "Draw", "Tile Ra", "Pass", "Bid sun 8")  # 1 draws Ra (1), 0 passes, 1 wins
    for _ in range(4):  # Ra 2..5, drawn alternately from player 0, nobody bids
        _do(core, "Draw", "Tile Ra", "Pass", "Pass")
    _do(core, "Draw", "Tile Ra")  # Ra 6 (player 0): the epoch ends
    # Player 0: pharaohs 2 > 0 +5, Nile + flood 2, three civilizations +5: 22.
    # Player 1: god 2, gold 3, fewest pharaohs -2, no civilization -5: 8.
    assert core.fame == (22, 8) and core.epoch == 2
    assert core.up == ((1, 2, 5, 6), (3, 4, 7, 9)) and core.centre == 8
    assert core.turn_player == 1  # holds sun 9
    # Epoch 2.
    _draw(core, "Earthquake", "Temple", "Pyramid", "Pyramid", "Agriculture")
    _do(core, "Invoke Ra", "Pass", "Bid sun 1")  # 0 invokes, 1 passes, 0 must bid
    _do(core, "Discard Temple")  # earthquake: Temple + 2 Pyramids held, then one Pyramid goes
    assert core.tiles[0][MONUMENTS[3]] == 1 and core.tiles[0][MONUMENTS[4]] == 0
    _draw(core, "Funeral", "Pharaoh", "Nile", "God")
    _do(core, "Invoke Ra", "Bid sun 6", "Bid sun 7")  # 1 invokes, 0 bids 6, 1 bids 7
    assert core.tiles[1][PHARAOH] == 0  # the funeral took the pharaoh just won
    _draw(core, "Gold")
    _do(core, "God takes Gold")  # player 1's only god: the turn ends
    for _ in range(5):  # Ra 1..5 from player 0, nobody bids
        _do(core, "Draw", "Tile Ra", "Pass", "Pass")
    _do(core, "Draw", "Tile Ra")  # Ra 6 (player 1)
    # Player 0: pharaohs 2 > 0 +5, Nile without flood 0, one civilization 0: 27.
    # Player 1: gold 3, fewest pharaohs -2, no civilization -5: 4.
    assert core.fame == (27, 4) and core.epoch == 3
    assert core.up == ((2, 5, 6, 8), (1, 3, 4, 9)) and core.centre == 7
    assert core.turn_player == 1
    # Epoch 3.
    _draw(core, "Flood", "Flood", "Palace", "Drought")
    _do(core, "Invoke Ra", "Pass", "Bid sun 1")  # player 1 wins; the drought takes the floods
    assert core.tiles[1][FLOOD] == 0 and core.tiles[1][NILE] == 1
    _draw(core, "Pharaoh", "Sphinx")
    _do(core, "Invoke Ra", "Bid sun 3", "Bid sun 5")  # 0 invokes, 1 bids 3, 0 bids 5
    _draw(core, "Unrest", "Religion", "Art", "Writing")
    _do(core, "Invoke Ra", "Bid sun 8", "Bid sun 9")  # 1 invokes, 0 bids 8, 1 bids 9
    _do(core, "Discard Art", "Discard Writing")
    _do(core, "Draw", "Tile Ra", "Bid sun 4", "Pass")  # 0 draws Ra (1), 1 wins with 4
    _draw(core, "Palace")
    _do(core, "Invoke Ra", "Pass", "Bid sun 2")  # 0 invokes and must bid
    _do(core, "Draw", "Tile Ra", "Pass", "Pass")  # 1 draws Ra (2)
    _do(core, "Invoke Ra", "Bid sun 3", "Pass")  # 1 spends its last sun
    assert core.up == ((6, 8), ()) and core.turn_player == 0
    _draw(core, "Gold")  # player 0 plays alone now
    _do(core, "Draw", "Tile Ra", "Pass")  # Ra (3): only player 0 can bid, and passes
    _do(core, "Invoke Ra", "Bid sun 6")  # wins the gold
    _do(core, "Invoke Ra", "Bid sun 8")  # the last sun: the game ends
    assert core.is_terminal()
    # Player 0: gold 3, pharaohs 3 > 0 +5, Nile without flood 0, no civilization -5; monuments
    # Pyramid, Sphinx, Palace 3; suns 1+3+4+6 = 14 < 23 -5: 27 + 1 = 28.
    # Player 1: fewest pharaohs -2, Nile without flood 0, one civilization 0; monuments Pyramid,
    # Palace 2; suns 2+5+7+9 = 23 +5: 4 + 5 = 9.
    assert core.down == ((1, 3, 4, 6), (2, 5, 7, 9)) and core.centre == 8
    assert core.fame == (28, 9)
    assert core.returns() == (1.0, -1.0)
    assert "Game over: player 0 wins, 28 to 9" in str(core)
    _check_invariants(core)


def test_equal_fame_is_a_draw():
    core = _new(epochs=1)
    for _ in range(6):
        _do(core, "Draw", "Tile Ra", *(["Pass", "Pass"] if core.ra_count < 5 else []))
    # Nothing held; sun totals 22 and 22.
    assert core.is_terminal() and core.fame == (5, 5) and core.returns() == (0.0, 0.0)
    assert heuristic_for("python_ra")(core, 0) == 0.0


# Invariants over many random games.


def _random_game(core: RaCore, rng: random.Random, drawer: bool, seen: dict[str, int]) -> None:
    """Plays to the end checking invariants at every step; counts events in `seen`.

    `drawer` players draw whenever they can and mostly pass, which makes long games that
    fill the track and spend gods.
    """
    h = heuristic_for("python_ra")
    decisions = 0
    while not core.is_terminal():
        _check_invariants(core)
        player = core.current_player()
        if player == CHANCE:
            outcomes = core.chance_outcomes()
            kinds = [k for k, _ in outcomes]
            assert kinds == sorted(kinds) and all(core.bag[k] > 0 for k in kinds)
            assert math.isclose(sum(p for _, p in outcomes), 1.0)
            action = rng.choices(kinds, [p for _, p in outcomes])[0]
            seen["sixth Ra"] += action == RA and core.ra_count == 5
        else:
            legal = core.legal_actions()
            assert legal and legal == sorted(set(legal)) and 0 <= legal[0] <= legal[-1] < 43
            value = h(core, player)
            assert -1.0 < value < 1.0 and value == pytest.approx(-h(core, 1 - player))
            if drawer and DRAW in legal and rng.random() < 0.9:
                action = DRAW
            elif drawer and PASS in legal and rng.random() < 0.8:
                action = PASS
            else:
                action = rng.choice(legal)
            decisions += 1
            seen["gods spent"] += action >= god_action(GOLD) and core.phase in (TURN, GODS)
            seen["disaster choices"] += core.phase == DISCARD
            seen["full tracks discarded"] += (
                core.phase == AUCTION
                and action == PASS
                and player == core.turn_player
                and len(core.track) == 8
                and core.high_bidder < 0
            )
        core.apply(action)
    _check_invariants(core)
    assert h(core, 0) == core.returns()[0] and h(core, 1) == core.returns()[1]
    assert decisions <= core.rules.max_game_length
    seen["longest"] = max(seen["longest"], decisions)
    seen["ties"] += core.returns() == (0.0, 0.0)


def _many_games(games: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    seen = dict.fromkeys(
        ["longest", "ties", "sixth Ra", "gods spent", "disaster choices", "full tracks discarded"],
        0,
    )
    rules = RaRules()
    for i in range(games):
        _random_game(rules.initial_core(), rng, drawer=i % 2 == 1, seen=seen)
    return seen


def test_conservation_and_invariants_in_random_games():
    seen = _many_games(2000, seed=1)
    assert seen["longest"] > 150 and seen["ties"] > 0
    assert min(seen[k] for k in ("sixth Ra", "gods spent", "disaster choices")) > 100
    assert seen["full tracks discarded"] > 100


@pytest.mark.slow
def test_conservation_and_invariants_in_many_random_games():
    _many_games(20000, seed=2)


# OpenSpiel conformance, serialization, bad input.


def test_random_sim_with_serialization_one_epoch():
    game = pyspiel.load_game("python_ra(epochs=1)")
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_golden_playthrough():
    original, replayed = replay(PLAYTHROUGHS / "python_ra.txt")
    assert original == replayed


def test_illegal_actions_raise_and_change_nothing():
    game = pyspiel.load_game("python_ra")
    state = game.new_initial_state()
    for bad in (PASS, bid_action(9), god_action(GOLD), 42, 43, 99):
        with pytest.raises(ValueError, match="illegal"):
            state.apply_action(bad)
    assert state.history() == [] and str(state) == str(game.new_initial_state())
    state.apply_action(DRAW)
    with pytest.raises(ValueError, match="illegal chance outcome"):
        state.apply_action(NUM_KINDS)
    state.apply_action(KIND["Pharaoh"])
    state.apply_action(INVOKE)  # player 1 invokes; player 0 bids first
    before = str(state)
    with pytest.raises(ValueError, match="illegal action for player 0"):
        state.apply_action(bid_action(3))  # not player 0's sun
    assert str(state) == before and state.history() == [DRAW, KIND["Pharaoh"], INVOKE]


@pytest.mark.parametrize(
    "game_string, message",
    [
        ("python_ra(epochs=0)", "epochs must be in \\[1, 3\\]"),
        ("python_ra(epochs=4)", "epochs must be in \\[1, 3\\]"),
        ("python_ra(epochs=1.5)", "parameter epochs"),
        ("python_ra(players=3)", "players"),
    ],
)
def test_bad_parameters_raise(game_string, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game(game_string)


def test_core_clone_is_independent_and_pickles():
    core = _new()
    _draw(core, "Pharaoh", "God")
    _do(core, "Invoke Ra", "Pass", "Bid sun 9")
    copy = core.clone()
    _do(copy, "Draw", "Tile Nile", "God takes Nile")
    assert core.track == [] and core.tiles[0][GOD] == 1 and core.bag[NILE] == 25
    assert copy.tiles[0][GOD] == 0 and copy.tiles[0][NILE] == 1
    restored = pickle.loads(pickle.dumps(copy))
    assert str(restored) == str(copy) and restored.rules.params() == {"epochs": 3}
    assert restored.legal_actions() == copy.legal_actions()
    assert pickle.loads(pickle.dumps(copy.rules)).epochs == 3


def test_state_string_and_action_names():
    core = _new()
    _draw(core, "Pharaoh", "Pyramid")
    _do(core, "Invoke Ra", "Pass")
    text = str(core)
    for piece in (
        "Epoch 1 of 3, Ra track 0/6, 178 tiles in the bag",
        "Auction track (2/8): Pharaoh, Pyramid",
        "Centre sun: 1",
        "Player 0: fame 10, suns 2 5 6 9 (face down -), tiles -",
        "Auction invoked by player 0: no bid yet",
        "Player 0 to move (auction)",
    ):
        assert piece in text
    names = [core.rules.action_names[a] for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert names[:5] == ["Draw", "Invoke Ra", "Pass", "End turn", "Bid sun 1"]
    assert core.action_to_string(CHANCE, RA) == "Tile Ra"


def test_heuristic_values_unrealized_points_and_suns():
    h = heuristic_for("python_ra")
    core = _new()
    assert h(core, 0) == pytest.approx(-h(core, 1))
    base = [projected_fame(core, 0), projected_fame(core, 1)]
    _give(core, 0, PHARAOH)  # most pharaohs now: +5 for player 0 and -2 for player 1
    assert projected_fame(core, 0) == base[0] + 5 and projected_fame(core, 1) == base[1] - 2
    assert h(core, 0) > 0
    _give(core, 1, *MONUMENTS[:3], GOLD, GOLD)  # 3 distinct monuments and two gold
    assert projected_fame(core, 1) == base[1] - 2 + 3 + 6
    assert h(core, 0) < 0
    core.up = ((2, 5, 6), core.up[1])  # a face-up sun is worth 3 + (9 - 5) / 4 this epoch
    core.down = ((9,), ())
    assert projected_fame(core, 0) == base[0] + 5 - 4


def test_heuristic_predicts_results_of_random_games():
    """Halfway through epochs 2 and 3 the sign of h agrees with the result most of the time."""
    h = heuristic_for("python_ra")
    rng = random.Random(4)
    agree = {2: 0, 3: 0}
    total = 0
    rules = RaRules()
    for _ in range(400):
        core = rules.initial_core()
        values: dict[int, list[float]] = {1: [], 2: [], 3: []}
        while not core.is_terminal():
            if core.current_player() == CHANCE:
                outcomes = core.chance_outcomes()
                core.apply(rng.choices([k for k, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            values[core.epoch].append(h(core, 0))
            core.apply(rng.choice(core.legal_actions()))
        result = core.returns()[0]
        if result != 0:
            total += 1
            for epoch in (2, 3):
                middle = values[epoch][len(values[epoch]) // 2]
                agree[epoch] += (middle > 0) == (result > 0)
    assert total > 350
    assert agree[2] / total > 0.65 and agree[3] / total > 0.75
