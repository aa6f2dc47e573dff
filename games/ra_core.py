"""Reiner Knizia's Ra for two players.

Rules (Reiner Knizia's Ra, for two players): 180 tiles in a bag, suns {2,5,6,9} and {3,4,7,8}
with sun 1 in the centre, an auction track of 8 spaces, 6 Ra tiles end an epoch, three epochs.
On a turn the player with a face-up sun draws a tile, invokes Ra (an auction for the whole
track, bid with one sun), or spends god tiles to take tiles from the track. The auction's winner
takes the tiles, resolves the disasters among them, takes the centre sun face-down and puts the
winning sun in the centre. Epochs score gods, gold, pharaohs, Nile and floods, and
civilizations; the game's end also scores monuments and sun totals. More fame wins.

Rule choices (where sources disagree, docs/games/ra.md says which reading each follows):

- Player 0 holds {2,5,6,9} and starts (the holder of sun 9 starts); player 1 holds {3,4,7,8}.
  The real game deals the two sets at random; matches with swapped seats play both.
- Each later epoch starts with the holder of the highest sun. Play alternates; a player with no
  face-up sun is skipped, so the other may take several turns in a row.
- Drawing is illegal when the auction track holds 8 tiles. The 6th Ra tile of an epoch ends it at
  once, with no auction; the tiles left on the auction track are discarded.
- Invoking Ra is legal with any track, even an empty one (bidding only to swap suns).
- Auction: the other player bids first, the starter last; each may bid a face-up sun higher than
  the current bid, or pass. A bidder who cannot beat the bid (or has no face-up sun) is skipped
  without a decision. After a voluntary invocation the invoker must bid if the other passed. After
  a drawn Ra, or an invocation with a full track, both may pass: a full track is then discarded,
  otherwise the tiles stay. Play continues with the player after the auction's starter.
- Gods: on their turn a player may spend several gods, each taking one tile of their choice from
  the auction track (one action per god, then "end turn" or another god). A god may not take a
  god or a disaster; gods may be spent when the track is full. Spent gods leave the game.
- Disasters (resolved by the lot's winner, counting the tiles just won; the disaster tile is
  discarded; several stack, 2 discards each, fewer if fewer are held): funeral takes 2 pharaohs,
  drought 2 floods and then Niles for the remainder, both without choice; unrest takes 2
  civilizations and earthquake 2 monuments of the winner's choice, one tile-kind action per
  discarded tile, asked only when there is a real choice.
- Epoch scoring: god 2, gold 3; most pharaohs +5 and fewest -2, nothing when equal; with at least
  one flood, 1 per Nile and per flood, else nothing; distinct civilizations 0..5 score
  -5, 0, 0, 5, 10, 15. Gods, gold, floods and civilizations are then discarded; pharaohs, Niles
  and monuments are kept.
- End of the last epoch: monuments score 1, 2, 3, 4, 5, 6, 10, 15 for 1..8 distinct types plus
  5, 10, 15 for each type held 3, 4, 5 times; the higher sun total (face up and down, not the
  centre sun) +5 and the lower -5, nothing when equal.
- Fame never goes below 0: after each epoch's scoring (the last one including monuments and suns)
  negative fame becomes 0 (nbogie's reading of the Rio Grande rules; fame is physical tablets).
- Ties: no published tie-break is known (docs/games/ra.md), so equal fame is a draw.

Chance: every draw is a chance node over the 23 tile kinds left in the bag, with probability
count / tiles in the bag; the outcome id is the kind (0 Ra, 1 God, 2 Gold, 3 Pharaoh, 4 Nile,
5 Flood, 6..10 civilizations, 11..18 monuments, 19 Funeral, 20 Drought, 21 Unrest,
22 Earthquake).

Actions (43 ids, fixed): 0 draw, 1 invoke Ra, 2 pass (auction), 3 end turn (after gods),
3 + v bid sun v (v = 1..9: ids 4..12), 11 + k god takes a tile of kind k (k = 2..18: ids 13..29),
24 + k discard a tile of kind k to a disaster (k = 6..18: ids 30..42).

Returns: +1 / -1 by fame after the last epoch, 0 / 0 on equal fame.

max_game_length (decision moves) is 232 + 40 * epochs, from these bounds: draws <= 150 non-Ra
tiles + 6 Ra per epoch; auctions won <= 8 per epoch (each turns a player's sun face down);
auctions with no bid <= 5 drawn-Ra ones per epoch + 18 with a full track (each discards 8 drawn
tiles); invocations <= won + full-track ones; <= 2 bid decisions per auction; <= 8 gods, each
with at most one "end turn"; <= 12 disaster discards (4 unrest + 2 earthquakes, 2 each).

Parameter: `epochs` (1..3, default 3): the number of epochs; monuments and suns are scored after
the last one. Fewer epochs give shorter games for tests and search.
"""

from __future__ import annotations

import math
from typing import Any, Final, final

import numpy as np
import pyspiel

from chancespiel.games.core import (
    CHANCE,
    TERMINAL,
    Core,
    ParamBounds,
    SharedRules,
    check_param,
)

# Tile kinds. Those a god may take (GOLD..SPHINX) are contiguous.
RA: Final = 0
GOD: Final = 1
GOLD: Final = 2
PHARAOH: Final = 3
NILE: Final = 4
FLOOD: Final = 5
ASTRONOMY: Final = 6  # the first civilization
ART: Final = 10  # the last civilization
FORTRESS: Final = 11  # the first monument
SPHINX: Final = 18  # the last monument
FUNERAL: Final = 19
DROUGHT: Final = 20
UNREST: Final = 21
EARTHQUAKE: Final = 22
NUM_KINDS: Final = 23
CIVS: Final[tuple[int, ...]] = tuple(range(ASTRONOMY, ART + 1))
MONUMENTS: Final[tuple[int, ...]] = tuple(range(FORTRESS, SPHINX + 1))
KIND_NAMES: Final[tuple[str, ...]] = (
    "Ra",
    "God",
    "Gold",
    "Pharaoh",
    "Nile",
    "Flood",
    "Astronomy",
    "Agriculture",
    "Writing",
    "Religion",
    "Art",
    "Fortress",
    "Obelisk",
    "Palace",
    "Pyramid",
    "Temple",
    "Statue",
    "Step Pyramid",
    "Sphinx",
    "Funeral",
    "Drought",
    "Unrest",
    "Earthquake",
)
TILE_COUNTS: Final[tuple[int, ...]] = (30, 8, 5, 25, 25, 12, *(5,) * 5, *(5,) * 8, 2, 2, 4, 2)
NUM_TILES: Final = 180
# Tiles discarded at the end of every epoch; pharaohs, Niles and monuments are kept.
_EPOCH_DISCARDS: Final[tuple[int, ...]] = (GOD, GOLD, FLOOD, *CIVS)

# Actions.
DRAW: Final = 0
INVOKE: Final = 1
PASS: Final = 2
END_TURN: Final = 3
_BID_BASE: Final = 3  # bid with sun v: 3 + v
_GOD_BASE: Final = 11  # god takes kind k: 11 + k
_DISCARD_BASE: Final = 24  # discard kind k: 24 + k
NUM_ACTIONS: Final = _DISCARD_BASE + SPHINX + 1


def bid_action(sun: int) -> int:
    """The action that bids sun `sun` (1..9)."""
    return _BID_BASE + sun


def god_action(kind: int) -> int:
    """The action that spends a god on a tile of `kind` from the auction track."""
    return _GOD_BASE + kind


def discard_action(kind: int) -> int:
    """The action that discards one civilization or monument of `kind` to a disaster."""
    return _DISCARD_BASE + kind


# Two-player setup.
START_SUNS: Final[tuple[tuple[int, ...], ...]] = ((2, 5, 6, 9), (3, 4, 7, 8))
START_CENTRE: Final = 1
START_FAME: Final = 10
RA_PER_EPOCH: Final = 6
TRACK_SIZE: Final = 8

# Phases of the core's state machine.
TURN: Final = 0  # the turn player chooses draw, invoke or a god
GODS: Final = 1  # the turn player has spent a god and may spend another or end the turn
DRAWING: Final = 2  # chance: a tile comes out of the bag
AUCTION: Final = 3  # `to_move` bids or passes
DISCARD: Final = 4  # the lot's winner chooses a civilization or monument to lose
OVER: Final = 5
_PHASE_NAMES: Final[tuple[str, ...]] = ("turn", "gods", "drawing", "auction", "discard", "over")

# Kinds of auction.
VOLUNTARY: Final = 0  # invoked with room on the track: the invoker must bid if the other passes
DRAWN: Final = 1  # a Ra tile was drawn: all may pass, the tiles stay
FULL: Final = 2  # invoked with a full track: all may pass, the tiles are discarded
_AUCTION_NAMES: Final[tuple[str, ...]] = (
    "invoked by",
    "Ra drawn by",
    "invoked on a full track by",
)

# Scoring tables.
GOD_POINTS: Final = 2
GOLD_POINTS: Final = 3
PHARAOH_MOST: Final = 5
PHARAOH_FEWEST: Final = -2
CIV_POINTS: Final[tuple[int, ...]] = (-5, 0, 0, 5, 10, 15)  # by distinct civilization types
MONUMENT_DISTINCT_POINTS: Final[tuple[int, ...]] = (0, 1, 2, 3, 4, 5, 6, 10, 15)  # by types
MONUMENT_SAME_POINTS: Final[tuple[int, ...]] = (0, 0, 0, 5, 10, 15)  # per type, by tiles held
SUN_TOTAL_POINTS: Final = 5

# Typed as variable-length tuples: compiled, they stay the same shared objects (a fixed-length
# tuple type would be unboxed, and boxed anew each time a method returns it).
_FIRST_WINS: Final[tuple[float, ...]] = (1.0, -1.0)
_SECOND_WINS: Final[tuple[float, ...]] = (-1.0, 1.0)
_NO_WINNER: Final[tuple[float, ...]] = (0.0, 0.0)
_NO_SUNS: Final[tuple[tuple[int, ...], ...]] = ((), ())


# Scoring, as pure functions of tile counts (lists indexed by kind).


def pharaoh_points(mine: int, theirs: int) -> int:
    """+5 for more pharaohs than the opponent, -2 for fewer, 0 when equal."""
    if mine > theirs:
        return PHARAOH_MOST
    if mine < theirs:
        return PHARAOH_FEWEST
    return 0


def nile_points(niles: int, floods: int) -> int:
    """1 per Nile and per flood, but only with at least one flood."""
    return niles + floods if floods else 0


def civilization_points(tiles: list[int]) -> int:
    """-5, 0, 0, 5, 10, 15 for 0..5 distinct civilization types."""
    distinct = 0
    for k in range(ASTRONOMY, ART + 1):
        if tiles[k]:
            distinct += 1
    return CIV_POINTS[distinct]


def monument_points(tiles: list[int]) -> int:
    """Distinct monument types plus the bonus of each type held 3, 4 or 5 times."""
    distinct = 0
    same = 0
    for k in range(FORTRESS, SPHINX + 1):
        n = tiles[k]
        if n:
            distinct += 1
            same += MONUMENT_SAME_POINTS[n]
    return MONUMENT_DISTINCT_POINTS[distinct] + same


def epoch_points(mine: list[int], theirs: list[int]) -> int:
    """Fame a player scores at the end of an epoch with tile counts `mine` (opponent `theirs`)."""
    return (
        GOD_POINTS * mine[GOD]
        + GOLD_POINTS * mine[GOLD]
        + pharaoh_points(mine[PHARAOH], theirs[PHARAOH])
        + nile_points(mine[NILE], mine[FLOOD])
        + civilization_points(mine)
    )


def sun_total_points(mine: int, theirs: int) -> int:
    """+5 for the higher sun total, -5 for the lower, 0 when equal."""
    if mine > theirs:
        return SUN_TOTAL_POINTS
    if mine < theirs:
        return -SUN_TOTAL_POINTS
    return 0


def sun_sum(suns: tuple[int, ...]) -> int:
    """The total of the suns `suns` (a loop: compiled, the builtin `sum` is a generic call)."""
    total = 0
    for v in suns:
        total += v
    return total


def _tiles_text(tiles: list[int]) -> str:
    parts = []
    for k in range(NUM_KINDS):
        n = tiles[k]
        if n:
            parts.append(KIND_NAMES[k] if n == 1 else f"{KIND_NAMES[k]} x{n}")
    return ", ".join(parts) if parts else "-"


def _suns_text(suns: tuple[int, ...]) -> str:
    return " ".join(map(str, suns)) if suns else "-"


def _max_decisions(epochs: int) -> int:
    """A safe bound on decision moves (232 + 40 * epochs; the module docstring derives it)."""
    non_ra = NUM_TILES - TILE_COUNTS[RA]
    draws = non_ra + RA_PER_EPOCH * epochs
    wins = len(START_SUNS[0] + START_SUNS[1]) * epochs  # a win turns a player's sun face down
    full_track_passes = non_ra // TRACK_SIZE  # each discards 8 drawn tiles
    auctions = wins + (RA_PER_EPOCH - 1) * epochs + full_track_passes
    invocations = wins + full_track_passes
    gods = 2 * TILE_COUNTS[GOD]  # each spent god, and one "end turn" after it at most
    discards = 2 * (TILE_COUNTS[UNREST] + TILE_COUNTS[EARTHQUAKE])
    return draws + invocations + 2 * auctions + gods + discards


RA_BOUNDS: Final[ParamBounds] = {"epochs": (1, 3)}


@final
class RaRules(SharedRules):
    """Constants of a Ra game: the number of epochs and the size facts. Shared, never copied."""

    # `epochs` is typed Any: it comes from a params dict and is checked here (compiled, an int
    # annotation would reject a float before the check could name the parameter).
    def __init__(self, epochs: Any = 3):
        self.epochs = check_param(RA_BOUNDS, "epochs", epochs)
        self.max_game_length = _max_decisions(self.epochs)
        names = ["Draw", "Invoke Ra", "Pass", "End turn"]
        names += [f"Bid sun {v}" for v in range(1, 10)]
        names += [f"God takes {KIND_NAMES[k]}" for k in range(GOLD, SPHINX + 1)]
        names += [f"Discard {KIND_NAMES[k]}" for k in range(ASTRONOMY, SPHINX + 1)]
        assert len(names) == NUM_ACTIONS
        self.action_names: tuple[str, ...] = tuple(names)

    def params(self) -> dict[str, Any]:
        """The game parameters these rules were built from."""
        return {"epochs": self.epochs}

    def initial_core(self) -> RaCore:
        """The state before the first move: full bag, player 0 (sun 9) to move."""
        return RaCore(
            self,
            bag=list(TILE_COUNTS),
            bag_size=NUM_TILES,
            discard=[0] * NUM_KINDS,
            track=[],
            ra_count=0,
            tiles=([0] * NUM_KINDS, [0] * NUM_KINDS),
            up=START_SUNS,
            down=_NO_SUNS,
            centre=START_CENTRE,
            fame=(START_FAME, START_FAME),
            epoch=1,
            phase=TURN,
            turn_player=0,  # holds sun 9
            to_move=0,
            auction_kind=VOLUNTARY,
            high_bid=0,
            high_bidder=-1,
            pending_civs=0,
            pending_monuments=0,
        )

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        return pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_KINDS,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_game_length,
        )

    # Observation: the whole state (Ra has no hidden information), the same for both players.
    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the observation tensor's pieces."""
        return [
            ("bag", (NUM_KINDS,)),  # tiles of each kind left in the bag
            ("auction_track", (NUM_KINDS,)),  # tiles of each kind on the auction track
            ("tiles", (2, NUM_KINDS)),  # tiles of each kind held by each player
            ("suns", (5, 9)),  # one-hot: p0 up, p0 down, p1 up, p1 down, centre
            ("fame", (2,)),
            ("epoch", (self.epochs,)),
            ("ra_track", (1,)),  # Ra tiles on the Ra track
            ("phase", (len(_PHASE_NAMES),)),
            ("to_move", (2,)),  # the deciding player (the drawer at a chance node)
            ("turn_player", (2,)),
            ("auction_kind", (3,)),
            ("high_bid", (10,)),  # 0 = no bid yet
            ("pending_discards", (2,)),  # civilizations, monuments
        ]

    def fill_observation(self, core: RaCore, player: int, views: dict[str, np.ndarray]) -> None:
        """Writes the encoding of `core` into the zeroed `views`."""
        views["bag"][:] = core.bag
        for k in core.track:
            views["auction_track"][k] += 1
        views["tiles"][0, :] = core.tiles[0]
        views["tiles"][1, :] = core.tiles[1]
        suns = views["suns"]
        for p in (0, 1):
            for v in core.up[p]:
                suns[2 * p, v - 1] = 1.0
            for v in core.down[p]:
                suns[2 * p + 1, v - 1] = 1.0
        suns[4, core.centre - 1] = 1.0
        views["fame"][:] = core.fame
        views["epoch"][core.epoch - 1] = 1.0
        views["ra_track"][0] = core.ra_count
        views["phase"][core.phase] = 1.0
        if core.phase != OVER:
            views["to_move"][core.to_move] = 1.0
            views["turn_player"][core.turn_player] = 1.0
        if core.phase == AUCTION:
            views["auction_kind"][core.auction_kind] = 1.0
            views["high_bid"][core.high_bid] = 1.0
        views["pending_discards"][:] = (core.pending_civs, core.pending_monuments)

    def observation_string(self, core: RaCore, player: int) -> str:
        """The whole state as text."""
        return str(core)


@final
class RaCore(Core):
    """Mutable Ra state implementing the search protocol (`Core`).

    Tile counts are lists indexed by kind (`bag`, `discard`, `tiles[p]`); the auction track is a
    list of kinds in the order drawn; suns are sorted tuples, `up[p]` and `down[p]` a player's
    face-up and face-down ones.
    """

    __slots__ = (
        "auction_kind",
        "bag",
        "bag_size",
        "centre",
        "discard",
        "down",
        "epoch",
        "fame",
        "high_bid",
        "high_bidder",
        "pending_civs",
        "pending_monuments",
        "phase",
        "ra_count",
        "rules",
        "tiles",
        "to_move",
        "track",
        "turn_player",
        "up",
    )

    def __init__(
        self,
        rules: RaRules,
        bag: list[int],
        bag_size: int,
        discard: list[int],
        track: list[int],
        ra_count: int,
        tiles: tuple[list[int], ...],
        up: tuple[tuple[int, ...], ...],
        down: tuple[tuple[int, ...], ...],
        centre: int,
        fame: tuple[int, ...],
        epoch: int,
        phase: int,
        turn_player: int,
        to_move: int,
        auction_kind: int,
        high_bid: int,
        high_bidder: int,
        pending_civs: int,
        pending_monuments: int,
    ) -> None:
        """Every field, as `clone` copies them; the rules' `initial_core` makes the first."""
        self.rules = rules
        self.bag = bag  # tiles of each kind in the bag
        self.bag_size = bag_size
        self.discard = discard  # tiles out of the game
        self.track = track  # the auction track
        self.ra_count = ra_count  # Ra tiles on the Ra track
        self.tiles = tiles  # each player's tiles
        self.up = up  # face-up suns
        self.down = down  # face-down suns
        self.centre = centre
        self.fame = fame
        self.epoch = epoch
        self.phase = phase
        self.turn_player = turn_player
        self.to_move = to_move
        self.auction_kind = auction_kind
        self.high_bid = high_bid  # 0: no bid yet
        self.high_bidder = high_bidder
        self.pending_civs = pending_civs  # discards the lot's winner still owes to unrest
        self.pending_monuments = pending_monuments  # ... and to earthquakes

    def clone(self) -> RaCore:
        """An independent copy sharing the rules and the immutable tuples."""
        tiles = self.tiles
        return RaCore(
            self.rules,
            self.bag[:],
            self.bag_size,
            self.discard[:],
            self.track[:],
            self.ra_count,
            (tiles[0][:], tiles[1][:]),
            self.up,
            self.down,
            self.centre,
            self.fame,
            self.epoch,
            self.phase,
            self.turn_player,
            self.to_move,
            self.auction_kind,
            self.high_bid,
            self.high_bidder,
            self.pending_civs,
            self.pending_monuments,
        )

    # The search protocol.

    def state_key(self) -> int:
        """A hash of the fields that define the state (`bag_size` follows from the bag)."""
        t0, t1 = self.tiles
        return hash(
            (
                tuple(self.bag),
                tuple(self.discard),
                tuple(self.track),
                tuple(t0),
                tuple(t1),
                self.up,
                self.down,
                self.centre,
                self.fame,
                self.epoch,
                self.phase,
                self.turn_player,
                self.to_move,
                self.auction_kind,
                self.high_bid,
                self.high_bidder,
                self.pending_civs,
                self.pending_monuments,
                self.ra_count,
            )
        )

    def current_player(self) -> int:
        """0 or 1 to decide, CHANCE when a tile is drawn, TERMINAL at the end."""
        phase = self.phase
        if phase == OVER:
            return TERMINAL
        return CHANCE if phase == DRAWING else self.to_move

    def is_terminal(self) -> bool:
        """True after the last epoch has been scored."""
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to move; empty at chance and terminal nodes."""
        phase = self.phase
        p = self.to_move
        if phase in (TURN, GODS):
            if phase == GODS:
                actions = [END_TURN]
            elif len(self.track) < TRACK_SIZE:
                actions = [DRAW, INVOKE]
            else:
                actions = [INVOKE]
            if self.tiles[p][GOD]:
                actions += sorted({_GOD_BASE + k for k in self.track if GOLD <= k < FUNERAL})
            return actions
        if phase == AUCTION:
            high = self.high_bid
            if high == 0 and self.auction_kind == VOLUNTARY and p == self.turn_player:
                actions = []  # the invoker must bid
            else:
                actions = [PASS]
            for v in self.up[p]:
                if v > high:
                    actions.append(_BID_BASE + v)
            return actions
        if phase == DISCARD:
            held = self.tiles[p]
            first, last = (ASTRONOMY, ART) if self.pending_civs else (FORTRESS, SPHINX)
            return [_DISCARD_BASE + k for k in range(first, last + 1) if held[k]]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(tile kind, probability) for each kind left in the bag, sorted by kind."""
        size = self.bag_size
        return [(k, n / size) for k, n in enumerate(self.bag) if n]

    def apply(self, action: int) -> None:
        """Applies a decision or a drawn tile kind in place. Assumes it is legal."""
        phase = self.phase
        if phase == DRAWING:
            self._draw(action)
        elif phase == AUCTION:
            if action != PASS:
                self.high_bid = action - _BID_BASE
                self.high_bidder = self.to_move
            if self.to_move != self.turn_player:  # the other bids first, the starter last
                self._starter_bids()
            else:
                self._resolve_auction()
        elif phase in (TURN, GODS):
            if action == DRAW:
                self.phase = DRAWING
            elif action == INVOKE:
                self._start_auction(FULL if len(self.track) == TRACK_SIZE else VOLUNTARY)
            elif action == END_TURN:
                self._end_turn()
            else:
                self._use_god(action - _GOD_BASE)
        elif phase == DISCARD:
            kind = action - _DISCARD_BASE
            self.tiles[self.to_move][kind] -= 1
            self.discard[kind] += 1
            if kind <= ART:
                self.pending_civs -= 1
            else:
                self.pending_monuments -= 1
            self._settle_discards()

    def returns(self) -> tuple[float, ...]:
        """(+1, -1) or (-1, +1) by fame at the end, (0, 0) on a tie or before the end."""
        if self.phase == OVER:
            a, b = self.fame
            if a > b:
                return _FIRST_WINS
            if a < b:
                return _SECOND_WINS
        return _NO_WINNER

    def action_to_string(self, player: int, action: int) -> str:
        """'Draw', 'Bid sun 7', 'God takes Pharaoh', ...; 'Tile Pharaoh' etc. for CHANCE."""
        if player == CHANCE:
            return f"Tile {KIND_NAMES[action]}"
        return self.rules.action_names[action]

    # Rules.

    def _draw(self, kind: int) -> None:
        self.bag[kind] -= 1
        self.bag_size -= 1
        if kind != RA:
            self.track.append(kind)
            self._end_turn()
            return
        self.ra_count += 1
        if self.ra_count == RA_PER_EPOCH:
            self._end_epoch()
        else:
            self._start_auction(DRAWN)

    def _use_god(self, kind: int) -> None:
        tiles = self.tiles[self.turn_player]
        tiles[GOD] -= 1
        self.discard[GOD] += 1
        self.track.remove(kind)
        tiles[kind] += 1
        # Another god is a decision only if one is held and something can be taken.
        if tiles[GOD] and any(GOLD <= k < FUNERAL for k in self.track):
            self.phase = GODS
        else:
            self._end_turn()

    def _start_auction(self, kind: int) -> None:
        self.phase = AUCTION
        self.auction_kind = kind
        self.high_bid = 0
        self.high_bidder = -1
        other = 1 - self.turn_player  # bids first; the starter bids last
        if self._can_bid(other):
            self.to_move = other
        else:
            self._starter_bids()

    def _can_bid(self, player: int) -> bool:
        up = self.up[player]  # sorted: the highest sun is last
        return len(up) > 0 and up[-1] > self.high_bid

    def _starter_bids(self) -> None:
        # The starter always holds a face-up sun, so the invoker's forced bid is always possible.
        if self._can_bid(self.turn_player):
            self.to_move = self.turn_player
        else:
            self._resolve_auction()

    def _resolve_auction(self) -> None:
        winner = self.high_bidder
        track = self.track
        discard = self.discard
        if winner < 0:
            if len(track) == TRACK_SIZE:  # only after an invocation on a full track
                for k in track:
                    discard[k] += 1
                track.clear()
            self._end_turn()
            return
        # The winning sun goes to the centre; the centre sun goes face down to the winner.
        sun = self.high_bid
        up = tuple([v for v in self.up[winner] if v != sun])
        down = tuple(sorted([*self.down[winner], self.centre]))
        if winner == 0:
            self.up = (up, self.up[1])
            self.down = (down, self.down[1])
        else:
            self.up = (self.up[0], up)
            self.down = (self.down[0], down)
        self.centre = sun
        tiles = self.tiles[winner]
        funerals = droughts = 0
        for k in track:
            if k >= FUNERAL:
                discard[k] += 1
                if k == FUNERAL:
                    funerals += 1
                elif k == DROUGHT:
                    droughts += 1
                elif k == UNREST:
                    self.pending_civs += 2
                else:
                    self.pending_monuments += 2
            else:
                tiles[k] += 1
        track.clear()
        if funerals:
            n = min(2 * funerals, tiles[PHARAOH])
            tiles[PHARAOH] -= n
            discard[PHARAOH] += n
        if droughts:
            n = min(2 * droughts, tiles[FLOOD])  # floods first
            tiles[FLOOD] -= n
            discard[FLOOD] += n
            n = min(2 * droughts - n, tiles[NILE])  # then Niles for the remainder
            tiles[NILE] -= n
            discard[NILE] += n
        self.to_move = winner
        self._settle_discards()

    def _settle_discards(self) -> None:
        """Discards what unrest and earthquakes take without a choice; asks when there is one."""
        tiles = self.tiles[self.to_move]
        if self.pending_civs:
            self.pending_civs = self._settle(tiles, ASTRONOMY, ART, self.pending_civs)
            if self.pending_civs:
                self.phase = DISCARD
                return
        if self.pending_monuments:
            self.pending_monuments = self._settle(tiles, FORTRESS, SPHINX, self.pending_monuments)
            if self.pending_monuments:
                self.phase = DISCARD
                return
        self._end_turn()

    def _settle(self, tiles: list[int], first: int, last: int, owed: int) -> int:
        """Discards `owed` tiles of the kinds first..last if that leaves no choice; returns what
        is still owed."""
        held = [k for k in range(first, last + 1) if tiles[k]]
        if len(held) > 1 and sum([tiles[k] for k in held]) > owed:
            return owed  # a real choice: one discard action per tile
        for k in held:
            n = min(owed, tiles[k])
            tiles[k] -= n
            self.discard[k] += n
            owed -= n
        return 0

    def _end_turn(self) -> None:
        """Passes the turn to the next player with a face-up sun, or ends the epoch."""
        p = self.turn_player
        if self.up[1 - p]:
            p = 1 - p
        elif not self.up[p]:
            self._end_epoch()
            return
        self.turn_player = self.to_move = p
        self.phase = TURN

    def _end_epoch(self) -> None:
        discard = self.discard
        for k in self.track:
            discard[k] += 1
        self.track.clear()
        discard[RA] += self.ra_count
        self.ra_count = 0
        t0, t1 = self.tiles
        gain0 = epoch_points(t0, t1)
        gain1 = epoch_points(t1, t0)
        for tiles in (t0, t1):
            for k in _EPOCH_DISCARDS:
                discard[k] += tiles[k]
                tiles[k] = 0
        up0, up1 = self.up
        down0, down1 = self.down
        last = self.epoch == self.rules.epochs
        if last:
            total0 = sun_sum(up0) + sun_sum(down0)
            total1 = sun_sum(up1) + sun_sum(down1)
            gain0 += monument_points(t0) + sun_total_points(total0, total1)
            gain1 += monument_points(t1) + sun_total_points(total1, total0)
        # Fame never drops below 0 (nbogie's reading; fame is physical tablets).
        fame0, fame1 = self.fame
        self.fame = (max(0, fame0 + gain0), max(0, fame1 + gain1))
        if last:
            self.phase = OVER
            return
        self.epoch += 1
        up0 = tuple(sorted(up0 + down0))
        up1 = tuple(sorted(up1 + down1))
        self.up = (up0, up1)
        self.down = _NO_SUNS
        self.turn_player = self.to_move = 0 if up0[-1] > up1[-1] else 1
        self.phase = TURN

    def __str__(self) -> str:
        lines = [
            f"Epoch {self.epoch} of {self.rules.epochs}, Ra track {self.ra_count}/{RA_PER_EPOCH},"
            f" {self.bag_size} tiles in the bag",
            f"Auction track ({len(self.track)}/{TRACK_SIZE}): "
            + (", ".join([KIND_NAMES[k] for k in self.track]) or "-"),
            f"Centre sun: {self.centre}",
        ]
        for p in (0, 1):
            lines.append(
                f"Player {p}: fame {self.fame[p]}, suns {_suns_text(self.up[p])}"
                f" (face down {_suns_text(self.down[p])}), tiles {_tiles_text(self.tiles[p])}"
            )
        phase = self.phase
        if phase == OVER:
            a, b = self.fame
            result = "a draw" if a == b else f"player {0 if a > b else 1} wins"
            lines.append(f"Game over: {result}, {a} to {b}")
        elif phase == DRAWING:
            lines.append(f"Player {self.turn_player} draws a tile")
        else:
            if phase == AUCTION:
                bid = (
                    f"high bid {self.high_bid} by player {self.high_bidder}"
                    if self.high_bidder >= 0
                    else "no bid yet"
                )
                lines.append(
                    f"Auction {_AUCTION_NAMES[self.auction_kind]} player {self.turn_player}: {bid}"
                )
            elif phase == DISCARD:
                owed = (
                    f"{self.pending_civs} civilization(s)"
                    if self.pending_civs
                    else f"{self.pending_monuments} monument(s)"
                )
                lines.append(f"Disaster: player {self.to_move} must discard {owed}")
            lines.append(f"Player {self.to_move} to move ({_PHASE_NAMES[phase]})")
        return "\n".join(lines) + "\n"


# Heuristic. albertszeng's Ra AI (docs/games/ra.md) values a sun by a base plus a modifier for its
# rank. In two-player random games (tests/test_ra.py) a smaller base than that AI's 6 predicts
# results better: a face-up sun is worth 3 points plus (v - 5) / 4 for the rest of the epoch, and
# the sun-total bonus counts half, since suns still change hands before the end.
SUN_BASE: Final = 3.0
SUN_RANK: Final = 0.25
SUN_TOTAL_WEIGHT: Final = 0.5
# Projected lead (in fame points) that maps to tanh(1) ~ 0.76.
HEURISTIC_SCALE: Final = 20.0


def projected_fame(core: RaCore, player: int) -> float:
    """Fame plus what the player's tiles and suns are worth if the epoch ended now."""
    return _projected_fame(core, player, _tile_points(core, player))


def _tile_points(core: RaCore, player: int) -> int:
    """The epoch's and the monuments' points of `player`'s tiles if the epoch ended now."""
    mine = core.tiles[player]
    return epoch_points(mine, core.tiles[1 - player]) + monument_points(mine)


def _projected_fame(core: RaCore, player: int, tile_points: int) -> float:
    """`projected_fame` of `player`, whose `_tile_points` are given."""
    up = core.up[player]
    held = sun_sum(up) + sun_sum(core.down[player])
    other = sun_sum(core.up[1 - player]) + sun_sum(core.down[1 - player])
    face_up = 0.0
    for v in up:
        face_up += SUN_BASE + SUN_RANK * (v - 5)
    return (
        core.fame[player] + tile_points + SUN_TOTAL_WEIGHT * sun_total_points(held, other) + face_up
    )


def ra_heuristic(core: RaCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else the lead in `projected_fame`
    (fame, the current epoch's unrealized points, monuments and half the sun-total bonus as if
    the game ended now, and the value of the suns still face up), squashed by tanh."""
    return _lead_value(core, player, projected_fame(core, player), projected_fame(core, 1 - player))


def _lead_value(core: RaCore, player: int, mine: float, theirs: float) -> float:
    """`ra_heuristic` of `player` whose projected fame is `mine` against `theirs`."""
    if core.phase == OVER:
        return core.returns()[player]
    return math.tanh((mine - theirs) / HEURISTIC_SCALE)


_GROUPS: Final[tuple[tuple[str, tuple[int, ...]], ...]] = (
    ("gods", (GOD,)),
    ("gold", (GOLD,)),
    ("pharaohs", (PHARAOH,)),
    ("niles", (NILE,)),
    ("floods", (FLOOD,)),
    ("civilizations", CIVS),
    ("monuments", MONUMENTS),
    ("disasters", (FUNERAL, DROUGHT, UNREST, EARTHQUAKE)),
)
_PHASES: Final[tuple[int, ...]] = (TURN, GODS, DRAWING, AUCTION, DISCARD)
# The features' phase one-hot of each phase (OVER: none of them), and each kind's group.
_PHASE_ONE_HOT: Final[tuple[tuple[float, ...], ...]] = tuple(
    tuple(1.0 if phase == p else 0.0 for p in _PHASES) for phase in range(OVER + 1)
)
_GROUP_OF: Final[tuple[int, ...]] = tuple(  # each kind's group (-1: Ra, in none)
    next((g for g, (_, kinds) in enumerate(_GROUPS) if kind in kinds), -1)
    for kind in range(NUM_KINDS)
)
# The groups are runs of consecutive kinds, each from its start to the next's (summed so).
_GROUP_STARTS: Final[tuple[int, ...]] = (*(kinds[0] for _, kinds in _GROUPS), NUM_KINDS)
assert _GROUP_OF[_GROUP_STARTS[0] :] == tuple(
    g for g in range(len(_GROUPS)) for _ in range(_GROUP_STARTS[g], _GROUP_STARTS[g + 1])
)

RA_FEATURES: Final[tuple[str, ...]] = (
    "my_turn",
    "my_move",
    "epochs_left",
    "ra_track",
    "track_length",
    *(f"phase_{_PHASE_NAMES[p]}" for p in _PHASES),
    "my_fame",
    "their_fame",
    "my_projected",
    "their_projected",
    "heuristic",
    "my_track_gain",
    "their_track_gain",
    "my_suns_up",
    "their_suns_up",
    "my_sun_total_up",
    "their_sun_total_up",
    "my_best_sun",
    "their_best_sun",
    "centre_sun",
    "high_bid",
    "my_high_bid",
    "their_high_bid",
    *(f"track_{name}" for name, _ in _GROUPS),
    *(f"my_{name}" for name, _ in _GROUPS),
    *(f"their_{name}" for name, _ in _GROUPS),
)


def ra_feature_key(core: RaCore) -> int:
    """A hash of what `ra_features` reads: `state_key` without the bag and the discards, and
    the track's tiles in any order (a position's features do not depend on them)."""
    t0, t1 = core.tiles
    return hash(
        (
            tuple(sorted(core.track)),
            tuple(t0),
            tuple(t1),
            core.up,
            core.down,
            core.centre,
            core.fame,
            core.epoch,
            core.phase,
            core.turn_player,
            core.to_move,
            core.high_bid,
            core.high_bidder,
            core.ra_count,
        )
    )


# Kinds the rules treat alike (civilizations score by how many types a player holds, monuments
# by types and by tiles of a type): the group each kind can be exchanged within, -1 if none.
_EXCHANGEABLE: Final[tuple[int, ...]] = tuple(
    0 if kind in CIVS else 1 if kind in MONUMENTS else -1 for kind in range(NUM_KINDS)
)


def ra_symmetric_outcomes(core: RaCore) -> list[int]:
    """For each outcome of a chance node (`chance_outcomes`: the kinds in the bag), the first
    kind whose draw leads to the same position up to renaming kinds: two civilizations (or two
    monuments) as many in the bag, on the track and in each hand are exchangeable, so their
    draws lead to positions whose features, and whose futures, differ only by the names of the
    two kinds."""
    bag = core.bag
    track = core.track
    first, second = core.tiles
    classes: list[int] = []
    seen: dict[tuple[int, int, int, int, int], int] = {}
    for kind in range(NUM_KINDS):
        if not bag[kind]:
            continue
        group = _EXCHANGEABLE[kind]
        if group < 0:
            classes.append(kind)
            continue
        laid = 0
        for k in track:
            if k == kind:
                laid += 1
        key = (group, bag[kind], laid, first[kind], second[kind])
        found = seen.get(key)
        if found is None:
            seen[key] = kind
            found = kind
        classes.append(found)
    return classes


def _track_gain(core: RaCore, player: int, tile_points: int) -> float:
    """What winning the auction track would add to `player`'s epoch and monument points as if
    the epoch ended now (disasters left out: their losses depend on the winner's choices), from
    those points without it (`_tile_points`)."""
    theirs = core.tiles[1 - player]
    taken = core.tiles[player].copy()
    for kind in core.track:
        taken[kind] += 1
    return float(epoch_points(taken, theirs) + monument_points(taken) - tile_points)


def ra_features(core: RaCore, player: int) -> list[float]:
    """The position as `player` sees it, for a learned value (RA_FEATURES names them): whose
    turn and move it is, the epoch and the Ra track, the phase, fame and projected fame
    (`projected_fame`), the heuristic, what the auction track would add to each side, both
    sides' face-up suns, the sun in the centre and the standing bid, and tile counts by group
    on the track and in each side's hand."""
    other = 1 - player
    my_points = _tile_points(core, player)
    their_points = _tile_points(core, other)
    mine = _projected_fame(core, player, my_points)
    theirs = _projected_fame(core, other, their_points)
    return _features_of(
        core,
        player,
        (mine, theirs, _lead_value(core, player, mine, theirs)),
        (_track_gain(core, player, my_points), _track_gain(core, other, their_points)),
        (_laid_groups(core), _group_counts(core.tiles[player]), _group_counts(core.tiles[other])),
    )


def ra_feature_pair(core: RaCore) -> tuple[list[float], list[float]]:
    """`ra_features` of both players from one call: what the two views share (each side's
    tile points, projected fame, track gain and tile counts by group) computed once."""
    points = (_tile_points(core, 0), _tile_points(core, 1))
    first = _projected_fame(core, 0, points[0])
    second = _projected_fame(core, 1, points[1])
    gains = (_track_gain(core, 0, points[0]), _track_gain(core, 1, points[1]))
    laid = _laid_groups(core)
    hands = (_group_counts(core.tiles[0]), _group_counts(core.tiles[1]))
    return (
        _features_of(
            core,
            0,
            (first, second, _lead_value(core, 0, first, second)),
            gains,
            (laid, hands[0], hands[1]),
        ),
        _features_of(
            core,
            1,
            (second, first, _lead_value(core, 1, second, first)),
            (gains[1], gains[0]),
            (laid, hands[1], hands[0]),
        ),
    )


def _laid_groups(core: RaCore) -> list[float]:
    """Tiles of each group of _GROUPS on the auction track, as floats."""
    laid = [0] * len(_GROUPS)
    for kind in core.track:
        laid[_GROUP_OF[kind]] += 1
    return [float(total) for total in laid]


def _group_counts(tiles: list[int]) -> list[float]:
    """Tiles of each group of _GROUPS, as floats, from counts by kind."""
    out = []
    for g in range(len(_GROUPS)):
        total = 0
        for kind in range(_GROUP_STARTS[g], _GROUP_STARTS[g + 1]):
            total += tiles[kind]
        out.append(float(total))
    return out


def _features_of(
    core: RaCore,
    player: int,
    fame: tuple[float, float, float],
    gains: tuple[float, float],
    groups: tuple[list[float], list[float], list[float]],
) -> list[float]:
    """`ra_features` of `player` from what it shares with the other's: the projected fame of
    `player` and of the other and the heuristic, the track gain of both (`player`'s first),
    and the tiles by group on the track and in the hands (`player`'s first)."""
    other = 1 - player
    mine_up = core.up[player]
    theirs_up = core.up[other]
    high_bid = core.high_bid
    features = [
        1.0 if core.turn_player == player else 0.0,
        1.0 if core.to_move == player else 0.0,
        float(core.rules.epochs - core.epoch),
        core.ra_count / RA_PER_EPOCH,
        len(core.track) / TRACK_SIZE,
    ]
    features.extend(_PHASE_ONE_HOT[core.phase])
    features += [
        core.fame[player] / 50.0,
        core.fame[other] / 50.0,
        fame[0] / 50.0,
        fame[1] / 50.0,
        fame[2],
        gains[0] / 10.0,
        gains[1] / 10.0,
        float(len(mine_up)),
        float(len(theirs_up)),
        sun_sum(mine_up) / 16.0,
        sun_sum(theirs_up) / 16.0,
        (mine_up[-1] if mine_up else 0) / 16.0,  # suns are sorted: the last is the highest
        (theirs_up[-1] if theirs_up else 0) / 16.0,
        core.centre / 16.0,
        high_bid / 16.0,
        1.0 if high_bid and core.high_bidder == player else 0.0,
        1.0 if high_bid and core.high_bidder == other else 0.0,
    ]
    features.extend(groups[0])
    features.extend(groups[1])
    features.extend(groups[2])
    return features
