"""Can't Stop (Sid Sackson, 1980) for two players, with explicit chance nodes.

Rules (Sid Sackson's Can't Stop, 1980, as in the Parker Brothers rulebook). Columns are labelled
by the dice sums 2..2s (s = die sides) and have heights 3,5,7,9,11,13,11,9,7,5,3 in the real
game. A turn starts with a roll of four dice, which the player splits into two pairs. The player
picks a pairing and must use both of its sums if that is legal, else picks one sum of it that is
legal alone. Using a sum moves the runner (neutral marker) in that column up one cell, or places
a new runner one cell above the player's square (the bottom cell if none) while fewer than three
runners are out. A runner never passes the top, and columns won by anyone are blocked for
everyone. A roll with no legal move is a bust: the runners come off and the turn passes. After
every other roll the player rolls again or stops; stopping moves the player's squares up to the
runners and wins every column whose top a runner reached (removing the opponent's squares
there). The first player to win `columns_to_win` columns wins. Player 0 starts. Squares of both
players may share a cell.

Turn structure and decisions (the rulebook leaves these to the implementation):

- A turn starts at a chance node: the roll of four dice. Outcomes are the distinct multisets
  of four faces, numbered in lexicographic order of their sorted faces (with six sides,
  0 = 1-1-1-1, 1 = 1-1-1-2, ..., 125 = 6-6-6-6), each with probability
  (number of orderings) / sides**4 ("Roll 1-4-5-6").
- After a roll the player chooses a move (phase "choose"), then roll or stop (phase "decide").
- A bust is resolved inside the chance step: runners removed, the turn passes, and the next
  player's turn starts at a chance node. One exception: a bust on a turn's first roll (no
  runners out yet; possible once an even column is won, e.g. 1-1-1-1 with column 2 won)
  leaves the player one legal action, `pass`. Without it, busts on both players' first rolls
  would chain chance nodes without end, and a search that counts only decision plies would
  never leave that path. With it, at most two chance nodes follow each other, and no
  decision node has zero legal actions.
- When stopping wins the game, `stop` is the only legal action (rolling on is dominated; the
  same rule as OpenSpiel's `pig`). The player still has to take it: nothing stops on its own.
- After `horizon` decision moves (choices, rolls, stops and passes) the game ends in a draw,
  even at a chance node, so `max_game_length` is finite (a player who never stops never ends
  the game). The default of 1000 is about three times the longest of 2000 games of random
  self-play (202 moves, mean 133) and of rule_of_28 self-play (322 moves, mean 155).

Actions: a fixed encoding independent of the roll, with n = 2s - 1 columns.

- 0 `roll`, 1 `stop`, 2 `pass`.
- 3 + (a - 2) for a in 2..2s: use the single sum a ("use 9").
- 3 + n + k: use both sums a <= b ("use 5 and 9", "use 7 and 7"), k numbering the pairs in
  lexicographic order: (2,2), (2,3), ..., (2,2s), (3,3), ... So the real game has 3 + 11 + 66
  = 80 distinct actions. legal_actions() lists the moves of every pairing, merged and sorted.

Parameters: `sides` (die faces, 2..12, default 6), `shortest` (height of columns 2 and 2s,
default 3), `height_step` (extra height per column towards the middle, default 2), so column a
has height shortest + height_step * (s - 1 - |s + 1 - a|); `columns_to_win` (default 3, at
most s, so that a player can always still win the columns needed), `horizon` (default 1000),
all integers; and `ordered_dice` (boolean, default false): true enumerates the roll as the
s**4 ordered outcomes of four distinguishable dice (1296 with six sides, numbered in
lexicographic order of (d1, d2, d3, d4), each 1 / s**4, "Roll 4-1-6-5" in the order drawn)
instead of the merged multisets: the same game with the same probabilities, offered because
classic search pays for every outcome of a chance node and sampling does not. A game small
enough for exhaustive search:
`python_cant_stop(sides=2,shortest=1,height_step=1,columns_to_win=2,horizon=8)` has columns
2,3,4 of heights 1,2,1, 5 distinct rolls, and a full game tree of 43,281 nodes (expectimax value
0.9212 for player 0; each 2 more moves of horizon multiply the tree by about 9).

Returns: +1 to the winner, -1 to the loser, 0 to both at the horizon.
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate
from operator import getitem
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games._adapter import (
    CHANCE,
    TERMINAL,
    CoreGame,
    CoreState,
    chance_game_type,
    register_game,
)
from chancespiel.games.core import Core, SharedRules, check_bool_param, check_int_param
from chancespiel.games.registry import (
    GameEntry,
    register_entry,
    register_heuristic,
    register_move_note,
)

ROLL = 0
STOP = 1
PASS = 2
FIRST_MOVE = 3  # the first "use sums" action id
NUM_RUNNERS = 3
NUM_DICE = 4

# Phases of a core; the roll is the only chance node.
ROLLING = 0  # chance node: the dice are about to be rolled
CHOOSING = 1  # the player picks how to use the roll
DECIDING = 2  # the player rolls again or stops
PASSING = 3  # bust on the turn's first roll: the only action is PASS
OVER = 4

_ROLL_OR_STOP = (ROLL, STOP)
_STOP_ONLY = (STOP,)
_PASS_ONLY = (PASS,)
_PHASE_NAMES = ("roll", "choose", "decide", "pass")

_DEFAULTS = {
    "sides": 6,
    "shortest": 3,
    "height_step": 2,
    "columns_to_win": 3,
    "horizon": 1000,
    "ordered_dice": False,
}
MAX_CACHED = 200_000  # entries of a rules cache (move tables, player summaries) before a reset
MAX_RUNNER_VALUES = 4096  # runner tuples whose progress one player summary keeps

_GAME_TYPE = chance_game_type("python_cant_stop", "Python Can't Stop", _DEFAULTS)


class CantStopRules(SharedRules):
    """Constants of one Can't Stop variant: board, roll table, action encoding. Shared."""

    def __init__(
        self,
        sides: int = 6,
        shortest: int = 3,
        height_step: int = 2,
        columns_to_win: int = 3,
        horizon: int = 1000,
        ordered_dice: bool = False,
    ):
        self.ordered_dice = check_bool_param("ordered_dice", ordered_dice)
        self.sides = s = check_int_param("sides", sides, 2, 12)
        self.shortest = check_int_param("shortest", shortest, 1, 99)
        self.height_step = check_int_param("height_step", height_step, 0, 10)
        self.num_columns = n = 2 * s - 1
        # At most s = (n + 1) / 2: with w - 1 columns won by each player at least one column
        # is open, and each player can still win the columns they lack (see the docstring).
        self.columns_to_win = check_int_param("columns_to_win", columns_to_win, 1, s)
        self.horizon = check_int_param("horizon", horizon, 1, 100_000)
        # Column index i holds the sum i + 2.
        self.heights: tuple[int, ...] = tuple(
            shortest + height_step * (s - 1 - abs(s - 1 - i)) for i in range(n)
        )
        self.max_height = max(self.heights)
        self.no_runners: tuple[int, ...] = (0,) * n
        self.no_squares: tuple[int, ...] = (0,) * n

        # Actions: singles, then unordered pairs (i <= j) in lexicographic order.
        cols: list[tuple[int, ...]] = [(), (), ()]
        names = ["roll", "stop", "pass"]
        for i in range(n):
            cols.append((i,))
            names.append(f"use {i + 2}")
        self.pair_actions: dict[tuple[int, int], int] = {}
        for i in range(n):
            for j in range(i, n):
                self.pair_actions[(i, j)] = len(cols)
                cols.append((i, j))
                names.append(f"use {i + 2} and {j + 2}")
        self.action_columns: tuple[tuple[int, ...], ...] = tuple(cols)
        self.action_names: tuple[str, ...] = tuple(names)
        self.num_actions = len(cols)

        # Roll classes: distinct multisets of four faces with exact probabilities, their
        # pairings as column-index pairs (i <= j, duplicates merged), and the mask of every sum
        # they make. The rules only ever look at a roll's class.
        total = s**NUM_DICE
        classes: list[tuple[int, ...]] = []
        class_probs: list[float] = []
        class_pairings: list[tuple[tuple[int, int], ...]] = []
        class_masks: list[int] = []
        for dice in itertools.combinations_with_replacement(range(1, s + 1), NUM_DICE):
            ways = math.factorial(NUM_DICE)
            for face in set(dice):
                ways //= math.factorial(dice.count(face))
            a, b, c, d = dice
            pairs = set()
            for x, y in ((a + b, c + d), (a + c, b + d), (a + d, b + c)):
                pairs.add((min(x, y) - 2, max(x, y) - 2))
            mask = 0
            for i, j in pairs:
                mask |= (1 << i) | (1 << j)
            classes.append(dice)
            class_probs.append(ways / total)
            class_pairings.append(tuple(sorted(pairs)))
            class_masks.append(mask)
        self.class_probs: tuple[float, ...] = tuple(class_probs)
        self.class_pairings = tuple(class_pairings)
        self.class_masks: tuple[int, ...] = tuple(class_masks)
        self._class_index = {dice: r for r, dice in enumerate(classes)}
        # Chance outcomes: the classes themselves, or every ordered roll of four dice.
        if ordered_dice:
            rolls = list(itertools.product(range(1, s + 1), repeat=NUM_DICE))
            roll_class = [self._class_index[tuple(sorted(dice))] for dice in rolls]
            outcomes = [(r, 1.0 / total) for r in range(len(rolls))]
        else:
            rolls = classes
            roll_class = list(range(len(classes)))
            outcomes = list(enumerate(class_probs))
        self.rolls: tuple[tuple[int, ...], ...] = tuple(rolls)
        self.roll_class: tuple[int, ...] = tuple(roll_class)
        self.outcomes: tuple[tuple[int, float], ...] = tuple(outcomes)
        self.roll_pairings = tuple(class_pairings[r] for r in roll_class)
        self.roll_masks: tuple[int, ...] = tuple(class_masks[r] for r in roll_class)
        self.roll_names: tuple[str, ...] = tuple(
            "Roll " + "-".join(map(str, dice)) for dice in rolls
        )
        self._roll_index = {dice: r for r, dice in enumerate(rolls)}
        # For samplers: outcome ids and cumulative probabilities (the form bisection needs).
        self.outcome_ids: tuple[int, ...] = tuple(o for o, _ in outcomes)
        self.outcome_cum: list[float] = list(accumulate(p for _, p in outcomes))
        self._bust_cache: dict[int, float] = {}
        # Legal moves by roll class and the turn masks they read (see `_moves_for_class`),
        # and per-player summaries of the banked board (see `player_summary`). Both fill
        # lazily.
        self._class_moves: dict[int, tuple[int, ...]] = {}
        self._columns: dict[int, tuple[int, ...]] = {}  # runner masks: at most 3 bits set
        self.class_bits = len(classes).bit_length()
        # For the rollout loop: the class of each outcome by its index in `outcome_ids`; the
        # free-runner part of a move-cache key by runners out; and each action's cells as
        # (column, bit, first height with fewer than two free cells above, top).
        self.outcome_class: tuple[int, ...] = tuple(roll_class[o] for o in self.outcome_ids)
        self.free_keys: tuple[int, ...] = tuple(
            min(NUM_RUNNERS - r, 2) << self.class_bits + 3 * n for r in range(NUM_RUNNERS + 1)
        )
        self.action_cells: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
            tuple((i, 1 << i, self.heights[i] - 1, self.heights[i]) for i in columns)
            for columns in cols
        )
        # Everything `CantStopCore.random_rollout` reads, fetched in one step.
        self.rollout_tables = (
            self.outcome_ids,
            self.outcome_cum,
            self.outcome_class,
            self.class_masks,
            self._class_moves,
            self.action_cells,
            self.heights,
            self.horizon,
            self.columns_to_win,
            n,
            self.class_bits,
            self.free_keys,
        )
        self._summaries: dict[tuple[tuple[int, ...], int], tuple[Any, ...]] = {}
        # fraction_rows[i][x]: a square at height x in column i as a fraction of the column.
        self.fraction_rows = tuple(tuple(float(x) / h for x in range(h + 1)) for h in self.heights)

    def params(self) -> dict[str, Any]:
        """The game parameters these rules were built from."""
        return {
            "sides": self.sides,
            "shortest": self.shortest,
            "height_step": self.height_step,
            "columns_to_win": self.columns_to_win,
            "horizon": self.horizon,
            "ordered_dice": self.ordered_dice,
        }

    # --- Encodings a person (or a test) can use ------------------------------------------

    def height(self, column: int) -> int:
        """Height of the column labelled `column` (a sum in 2..2s)."""
        return self.heights[self._index(column)]

    def roll_id(self, dice: Sequence[int]) -> int:
        """Chance outcome id of the four dice `dice`: in any order, or with `ordered_dice` the
        outcome of exactly that order."""
        key = tuple(dice) if self.ordered_dice else tuple(sorted(dice))
        if key not in self._roll_index:
            raise ValueError(f"not a roll of {NUM_DICE} dice with {self.sides} sides: {dice}")
        return self._roll_index[key]

    def move_id(self, *sums: int) -> int:
        """Action id of using one sum (`move_id(9)`) or two (`move_id(5, 9)`)."""
        cols = sorted(self._index(a) for a in sums)
        if len(cols) == 1:
            return FIRST_MOVE + cols[0]
        if len(cols) == 2:
            return self.pair_actions[(cols[0], cols[1])]
        raise ValueError(f"a move uses one or two sums, got {sums}")

    def _index(self, column: int) -> int:
        if not 2 <= column <= 2 * self.sides:
            raise ValueError(f"no column {column}; columns are 2..{2 * self.sides}")
        return column - 2

    def bust_probability(self, usable: int) -> float:
        """Probability that a roll makes no sum in the column-index bitmask `usable`."""
        p = self._bust_cache.get(usable)
        if p is None:
            # Summed over the classes in either encoding, so both give the same float.
            masks = self.class_masks
            p = sum(prob for r, prob in enumerate(self.class_probs) if not masks[r] & usable)
            self._bust_cache[usable] = p
        return p

    def columns_of(self, mask: int) -> tuple[int, ...]:
        """The column indices in the bitmask `mask`, in increasing order (cached)."""
        columns = self._columns.get(mask)
        if columns is None:
            columns = self._columns[mask] = tuple(
                i for i in range(self.num_columns) if mask >> i & 1
            )
        return columns

    def player_summary(
        self, squares: tuple[int, ...], blocked: int
    ) -> tuple[list[float], list[float], float, dict[Any, float], dict[Any, float]]:
        """What a player's banked squares are worth to the heuristic, given the won columns:
        (each column's fraction, the fractions in decreasing order, their progress, and two
        caches of the progress with the player's runners by runner tuple: runners counted in
        full, and discounted by the bust risk of a pending roll).

        The progress is the mean of the `columns_to_win` best fractions (`player_progress`
        without runners). It changes only when someone stops, so it is cached by
        (squares, blocked) instead of being recomputed at every leaf. The runners alone decide
        the rest (the usable columns, hence the bust risk, follow from them, the squares and
        the won columns), so a search's many leaves with the same runners share one value.
        Do not mutate.
        """
        summary = self._summaries.get((squares, blocked))
        return self._new_summary(squares, blocked) if summary is None else summary

    def _new_summary(
        self, squares: tuple[int, ...], blocked: int
    ) -> tuple[list[float], list[float], float, dict[Any, float], dict[Any, float]]:
        """`player_summary` computed and cached, for a key not in the cache."""
        # operator.getitem is a plain builtin: mapped, it costs half of tuple.__getitem__.
        fracs = list(map(getitem, self.fraction_rows, squares))
        bits = blocked
        while bits:
            low = bits & -bits
            i = low.bit_length() - 1
            bits ^= low
            fracs[i] = 1.0 if squares[i] == self.heights[i] else 0.0
        ranked = sorted(fracs, reverse=True)
        w = self.columns_to_win
        if len(self._summaries) >= MAX_CACHED:
            self._summaries.clear()
        summary = self._summaries[(squares, blocked)] = (
            fracs,
            ranked,
            sum(ranked[:w]) / w,
            {},
            {},
        )
        return summary

    # --- States ------------------------------------------------------------------------

    def initial_core(self) -> CantStopCore:
        """The state before the first roll: empty board, player 0 to roll."""
        return CantStopCore(self)

    def position(
        self,
        squares: Sequence[Mapping[int, int]] = ({}, {}),
        runners: Mapping[int, int] | None = None,
        player: int = 0,
        moves: int = 0,
    ) -> CantStopCore:
        """A core at a chance node (the roll of `player`) set up from readable facts.

        Args:
          squares: for each player, {column: height of the square}; a square on the top cell
            means the column is won by that player.
          runners: {column: height of the runner} of `player`'s turn so far.
          player: whose turn it is.
          moves: decision moves already made (for the horizon).

        Raises:
          ValueError: if the position is impossible.
        """
        if len(squares) != 2 or player not in (0, 1):
            raise ValueError("need squares for two players and a player 0 or 1")
        core = CantStopCore(self)
        rows = [list(self.no_squares), list(self.no_squares)]
        blocked = 0
        won = [0, 0]
        for p in (0, 1):
            for column, h in squares[p].items():
                i = self._index(column)
                if not 0 <= h <= self.heights[i]:
                    raise ValueError(f"square height {h} outside column {column}")
                rows[p][i] = h
                if h == self.heights[i]:
                    if blocked >> i & 1:
                        raise ValueError(f"column {column} won by both players")
                    blocked |= 1 << i
                    won[p] += 1
        if max(won) >= self.columns_to_win:
            raise ValueError("a player has already won; give a position before the end")
        marks = list(self.no_runners)
        for column, h in (runners or {}).items():
            i = self._index(column)
            if blocked >> i & 1 or not rows[player][i] < h <= self.heights[i]:
                raise ValueError(f"runner at {h} impossible in column {column}")
            marks[i] = h
        nrun = sum(1 for h in marks if h)
        if nrun > NUM_RUNNERS:
            raise ValueError(f"at most {NUM_RUNNERS} runners, got {nrun}")
        core.squares = (tuple(rows[0]), tuple(rows[1]))
        core.won = (won[0], won[1])
        core.blocked = blocked
        core.runners = tuple(marks)
        core.nrun = nrun
        core.player = player
        core.moves = check_int_param("moves", moves, 0, self.horizon - 1)
        core.derive()
        return core

    # --- OpenSpiel facts -----------------------------------------------------------------

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        return pyspiel.GameInfo(
            num_distinct_actions=self.num_actions,
            max_chance_outcomes=len(self.outcomes),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.horizon,
        )

    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the observation tensor's pieces (all one-hot)."""
        n, h = self.num_columns, self.max_height + 1
        return [
            ("squares", (2, n, h)),  # each player's square height per column (0 = none)
            ("runners", (n, h)),  # runner height per column (0 = none)
            ("won", (2, n)),  # columns won by each player
            ("turn_player", (2,)),
            ("phase", (len(_PHASE_NAMES),)),  # all zero at the end
            ("roll", (len(self.outcomes),)),  # the roll being used, while choosing or passing
        ]

    def fill_observation(
        self, core: CantStopCore, player: int, views: dict[str, np.ndarray]
    ) -> None:
        """Writes the one-hot encoding of `core` into the zeroed `views`."""
        cols = np.arange(self.num_columns)
        for p in (0, 1):
            views["squares"][p, cols, core.squares[p]] = 1.0
            for i in range(self.num_columns):
                if core.blocked >> i & 1 and core.squares[p][i] == self.heights[i]:
                    views["won"][p, i] = 1.0
        views["runners"][cols, core.runners] = 1.0
        views["turn_player"][core.player] = 1.0
        if core.phase != OVER:
            views["phase"][core.phase] = 1.0
        if core.roll >= 0:
            views["roll"][core.roll] = 1.0

    def observation_string(self, core: CantStopCore, player: int) -> str:
        """The whole state as text (no hidden information)."""
        return str(core)


class CantStopCore(Core):
    """Mutable Can't Stop state implementing the search protocol of DESIGN.md.

    Squares and runners are tuples indexed by column index (sum - 2) holding heights in cells
    (0 = not on the board); a player's square at the column's height means the column is won.
    The other fields are derived and kept up to date by `apply`, so that move generation and
    the heuristic read them instead of scanning the columns: `starts` (for each player, the
    usable and two-step masks a turn of theirs starts with), and for the turn player `usable`
    (columns a sum can be used in now),
    `two_steps` (columns with two free cells above the marker) and `rmask` (columns with a
    runner; a runner column is usable until the runner reaches the top).
    """

    __slots__ = (
        "blocked",
        "moves",
        "nrun",
        "options",
        "phase",
        "player",
        "rmask",
        "roll",
        "rules",
        "runners",
        "squares",
        "starts",
        "two_steps",
        "usable",
        "winner",
        "won",
    )

    def __init__(self, rules: CantStopRules):
        self.rules = rules
        self.squares: tuple[tuple[int, ...], tuple[int, ...]] = (
            rules.no_squares,
            rules.no_squares,
        )
        self.won = (0, 0)  # columns won by each player
        self.blocked = 0  # bitmask of won column indices
        self.runners = rules.no_runners
        self.nrun = 0  # runners out this turn
        self.player = 0  # whose turn it is
        self.phase = ROLLING
        self.roll = -1  # the roll being used while CHOOSING or PASSING, else -1
        self.options: tuple[int, ...] = ()  # legal actions at decision nodes
        self.moves = 0  # decision moves made, for the horizon
        self.winner = -1
        self.derive()

    def derive(self) -> None:
        """Recomputes the derived fields from squares, blocked, runners and the player."""
        heights = self.rules.heights
        blocked = self.blocked
        starts = []
        for base in self.squares:
            usable = two_steps = 0
            for i, h in enumerate(heights):
                if not blocked >> i & 1:
                    if base[i] < h:
                        usable |= 1 << i
                    if base[i] + 2 <= h:
                        two_steps |= 1 << i
            starts += (usable, two_steps)
        self.starts = tuple(starts)
        usable, two_steps = starts[2 * self.player], starts[2 * self.player + 1]
        rmask = 0
        for i, h in enumerate(self.runners):
            if h:
                rmask |= 1 << i
                if h >= heights[i]:
                    usable &= ~(1 << i)
                if h + 2 > heights[i]:
                    two_steps &= ~(1 << i)
        if self.nrun >= NUM_RUNNERS:
            usable &= rmask
        self.usable, self.two_steps, self.rmask = usable, two_steps, rmask

    def clone(self) -> CantStopCore:
        """An independent copy sharing the rules (every other field is immutable)."""
        c = self._copy_turn()
        c.phase = self.phase
        c.roll = self.roll
        c.options = self.options
        c.moves = self.moves
        return c

    def _copy_turn(self) -> CantStopCore:
        """A copy of every field but the phase, roll, options and move count."""
        c = CantStopCore.__new__(CantStopCore)
        c.rules = self.rules
        c.squares = self.squares
        c.won = self.won
        c.blocked = self.blocked
        c.runners = self.runners
        c.nrun = self.nrun
        c.player = self.player
        c.winner = self.winner
        c.starts = self.starts
        c.usable = self.usable
        c.two_steps = self.two_steps
        c.rmask = self.rmask
        return c

    def child(self, action: int) -> CantStopCore:
        """A copy with `action` applied: `clone()` then `apply(action)` in one step for a
        choice of sums, a roll that is not a bust or a decision to roll (every child on the
        path of a simulation that goes on rolling), each changed field written once."""
        phase = self.phase
        if phase != CHOOSING:
            if phase == ROLLING:
                # The moves of the roll: `_moves_for_class`'s cache looked up in place (the
                # hottest path of a classic search), the method only on a miss.
                rules = self.rules
                klass = rules.roll_class[action]
                n = rules.num_columns
                b = rules.class_bits
                usable = self.usable & rules.class_masks[klass]
                free = NUM_RUNNERS - self.nrun
                options = rules._class_moves.get(
                    klass
                    | usable << b
                    | (self.rmask & usable) << b + n
                    | (self.two_steps & usable) << b + 2 * n
                    | (free if free < 2 else 2) << b + 3 * n
                )
                if options is None:
                    options = self._moves_for_class(klass)
                if options:
                    c = self._copy_turn()
                    c.phase = CHOOSING
                    c.roll = action
                    c.options = options
                    c.moves = self.moves
                    return c
            elif action == ROLL and self.moves + 1 < self.rules.horizon:
                c = self._copy_turn()
                c.phase = ROLLING
                c.roll = -1
                c.options = ()
                c.moves = self.moves + 1
                return c
            c = self.clone()
            c.apply(action)
            return c
        rules = self.rules
        player = self.player
        runners, nrun, rmask, usable, two_steps = _runners_after(self, action)
        c = CantStopCore.__new__(CantStopCore)
        c.rules = rules
        c.squares = self.squares
        c.won = self.won
        c.blocked = self.blocked
        c.runners = runners
        c.nrun = nrun
        c.player = player
        c.roll = -1
        c.winner = self.winner
        c.starts = self.starts
        c.usable = usable
        c.two_steps = two_steps
        c.rmask = rmask
        c.moves = moves = self.moves + 1
        if moves >= rules.horizon:
            c.phase = OVER
            c.options = ()
        else:
            c.phase = DECIDING
            # As in `_advance`: stopping wins once the columns won and the topped runners
            # reach the goal.
            if self.won[player] + (rmask & ~usable).bit_count() >= rules.columns_to_win:
                c.options = _STOP_ONLY
            else:
                c.options = _ROLL_OR_STOP
        return c

    # --- Search protocol ------------------------------------------------------------------

    def state_key(self) -> int:
        """A hash of the fields that define the state (the others follow from these)."""
        fields = (self.squares, self.won, self.runners, self.player, self.phase, self.roll)
        return hash((*fields, self.moves, self.winner))

    def current_player(self) -> int:
        """0 or 1 to decide, CHANCE before a roll, TERMINAL at the end."""
        phase = self.phase
        if phase == ROLLING:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.player

    def is_terminal(self) -> bool:
        """True once someone has won or the horizon is reached."""
        return self.phase == OVER

    def legal_actions(self) -> tuple[int, ...]:
        """Sorted legal actions; empty at chance and terminal nodes. Shared, do not mutate."""
        return self.options

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The roll's (outcome, probability) pairs; shared, do not mutate."""
        return self.rules.outcomes

    def apply(self, action: int) -> None:
        """Applies a decision or a chance outcome in place. Assumes it is legal."""
        phase = self.phase
        if phase == ROLLING:
            # Searches make the children of a roll with `child`, which looks the cached moves
            # up in place; here only a bust (and play outside searches) comes.
            options = self._moves_for_class(self.rules.roll_class[action])
            if options:
                self.phase = CHOOSING
                self.roll = action
                self.options = options
            elif self.nrun:
                self._end_turn()  # bust: the turn's progress is lost
            else:
                self.phase = PASSING
                self.roll = action
                self.options = _PASS_ONLY
            return
        self.moves += 1
        if phase == CHOOSING:
            self._advance(action)
        elif action == ROLL:
            self.phase = ROLLING
            self.options = ()
        elif action == STOP:
            self._stop()
        else:  # PASS
            self._end_turn()
        if self.moves >= self.rules.horizon and self.phase != OVER:
            self.phase = OVER
            self.options = ()

    def random_rollout(
        self, max_moves: int, rand: Callable[[], float], evaluate: Callable[[Any, int], float]
    ) -> float:
        """Player 0's value after up to `max_moves` uniformly random decision moves (-1: to the
        end): the return at the end, else `evaluate(self, 0)`.

        The fast path of agents.mcts.rollout: the same rules and the same draws from `rand`
        (one per decision, forced ones included, and one per roll, found by bisection of the
        cumulative probabilities), so a search gives the same result either way. The turn is
        played on local variables and written back to the core before the value is taken.
        """
        rules = self.rules
        (
            ids,
            cum,
            outcome_class,
            class_masks,
            class_moves,
            action_cells,
            heights,
            horizon,
            need,
            n,
            b,
            free_keys,
        ) = rules.rollout_tables
        total = cum[-1]
        b1, b2 = b + n, b + 2 * n
        phase, player = self.phase, self.player
        # One count of decision moves: `made` reaches `left` at the horizon.
        start_moves = self.moves
        left = horizon - start_moves
        options, winner, blocked = self.options, self.winner, self.blocked
        nrun, rmask = self.nrun, self.rmask
        usable, two_steps = self.usable, self.two_steps
        marks = list(self.runners)
        # Squares, won columns and turn-start masks stay tuples, replaced by a stop.
        squares, won, starts = self.squares, self.won, self.starts
        # Stopping wins once `topped` (runner columns at the top, the runner columns no longer
        # usable) reaches `room`; counting them as they top out spares a popcount per move.
        room = need - won[player]
        topped = (rmask & ~usable).bit_count()
        index = -1  # of the last roll in `ids`; the roll itself is only read at the end
        made = 0
        while True:
            if phase == ROLLING:
                index = bisect_right(cum, rand() * total)
                klass = outcome_class[index]
                used = usable & class_masks[klass]
                # The key of `_moves_for_class`.
                key = klass | used << b | (rmask & used) << b1 | (two_steps & used) << b2
                key |= free_keys[nrun]
                options = class_moves.get(key)
                if options is None:
                    options = generate_moves(
                        rules, klass, usable, rmask, two_steps, NUM_RUNNERS - nrun
                    )
                    if len(class_moves) >= MAX_CACHED:
                        class_moves.clear()
                    class_moves[key] = options
                if options:
                    phase = CHOOSING
                elif nrun:
                    # A bust: the runners come off and the turn passes.
                    marks = [0] * n
                    nrun = rmask = topped = 0
                    player = 1 - player
                    usable, two_steps = starts[2 * player], starts[2 * player + 1]
                    room = need - won[player]
                    continue
                else:
                    phase = PASSING
                    options = _PASS_ONLY
            elif phase == OVER:
                break
            if made == max_moves:
                break
            action = options[int(rand() * len(options))]
            made += 1
            if phase == CHOOSING:
                base = squares[player]
                for i, bit, almost, top in action_cells[action]:
                    h = marks[i]
                    if h:
                        h += 1
                    else:
                        h = base[i] + 1
                        nrun += 1
                        rmask |= bit
                    marks[i] = h
                    if h >= almost:  # fewer than two free cells above
                        two_steps &= ~bit
                        if h >= top:
                            usable &= ~bit
                            topped += 1
                if nrun >= NUM_RUNNERS:
                    usable &= rmask
                if made >= left:
                    phase = OVER
                    break
                # Roll or stop, decided at once (the loop would come back here).
                if made == max_moves:
                    phase = DECIDING
                    options = _STOP_ONLY if topped >= room else _ROLL_OR_STOP
                    break
                made += 1
                # options[int(rand() * 2)] of (ROLL, STOP): u * 2 < 1 is u < 0.5 exactly.
                if rand() < 0.5 and topped < room:
                    if made >= left:
                        phase = OVER
                        break
                    phase = ROLLING
                    continue
                action = STOP
            # Deciding or passing: roll, stop or pass.
            if action == ROLL:
                phase = ROLLING
            else:
                if action == STOP:
                    mine = list(squares[player])
                    theirs = None
                    start_usable, start_two = starts[2 * player], starts[2 * player + 1]
                    newly_won = 0
                    bits = rmask
                    while bits:
                        low = bits & -bits
                        i = low.bit_length() - 1
                        bits ^= low
                        h = mine[i] = marks[i]
                        if h == heights[i]:
                            newly_won |= low
                            start_usable &= ~low
                            if squares[1 - player][i]:  # the opponent's square leaves
                                if theirs is None:
                                    theirs = list(squares[1 - player])
                                theirs[i] = 0
                        if h + 2 > heights[i]:
                            start_two &= ~low
                    other_usable, other_two = starts[2 - 2 * player], starts[3 - 2 * player]
                    mine_t = tuple(mine)
                    theirs_t = squares[1 - player] if theirs is None else tuple(theirs)
                    if newly_won:
                        blocked |= newly_won
                        other_usable &= ~newly_won
                        other_two &= ~newly_won
                        gained = newly_won.bit_count()
                        if player == 0:
                            won = (won[0] + gained, won[1])
                        else:
                            won = (won[0], won[1] + gained)
                    if player == 0:
                        squares = (mine_t, theirs_t)
                        starts = (start_usable, start_two, other_usable, other_two)
                    else:
                        squares = (theirs_t, mine_t)
                        starts = (other_usable, other_two, start_usable, start_two)
                    if won[player] >= need:
                        marks = [0] * n
                        nrun = rmask = 0
                        winner = player
                        phase = OVER
                        break
                # The turn passes (after a stop or a pass).
                marks = [0] * n
                nrun = rmask = topped = 0
                player = 1 - player
                usable, two_steps = starts[2 * player], starts[2 * player + 1]
                room = need - won[player]
                phase = ROLLING
            if made >= left:
                phase = OVER
                break
        # Fields the loop keeps only where it needs them: the roll being used, the options.
        # (Compared one by one: `in` would build a tuple of the globals at every rollout.)
        if phase == CHOOSING or phase == PASSING:  # noqa: SIM109
            self.roll = ids[index] if index >= 0 else self.roll
            self.options = options
        else:
            self.roll = -1
            self.options = () if phase == ROLLING or phase == OVER else options  # noqa: SIM109
        self.phase, self.player, self.moves = phase, player, start_moves + made
        self.winner, self.blocked = winner, blocked
        self.nrun, self.rmask = nrun, rmask
        self.usable, self.two_steps = usable, two_steps
        self.runners = tuple(marks) if nrun else rules.no_runners
        self.squares, self.won, self.starts = squares, won, starts
        if phase == OVER:
            return 1.0 if winner == 0 else -1.0 if winner == 1 else 0.0
        return evaluate(self, 0)

    def returns(self) -> tuple[float, float]:
        """(+1, -1) or (-1, +1) for a win, (0, 0) at the horizon or before the end."""
        if self.winner == 0:
            return (1.0, -1.0)
        if self.winner == 1:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    def action_to_string(self, player: int, action: int) -> str:
        """'Roll 1-4-5-6' for CHANCE; 'roll', 'stop', 'pass', 'use 9', 'use 5 and 9'."""
        if player == CHANCE:
            return self.rules.roll_names[action]
        return self.rules.action_names[action]

    # --- Rules -----------------------------------------------------------------------------

    def moves_for_roll(self, roll: int) -> tuple[int, ...]:
        """Sorted legal moves for the roll `roll` in the current turn (empty: a bust)."""
        return self._moves_for_class(self.rules.roll_class[roll])

    def _moves_for_class(self, klass: int) -> tuple[int, ...]:
        """Sorted legal moves for the roll class `klass`, cached by all they depend on: the
        class, the usable columns among its sums, which of those hold a runner or have two
        free cells (for doubles), and the free runners (0, 1, or 2 or more: a pair of new
        columns needs two). The key recurs across boards, so the cache stays small."""
        rules = self.rules
        n = rules.num_columns
        b = rules.class_bits
        usable = self.usable & rules.class_masks[klass]
        free = NUM_RUNNERS - self.nrun
        key = (
            klass
            | usable << b
            | (self.rmask & usable) << b + n
            | (self.two_steps & usable) << b + 2 * n
            | (free if free < 2 else 2) << b + 3 * n
        )
        cache = rules._class_moves
        moves = cache.get(key)
        if moves is None:
            if len(cache) >= MAX_CACHED:
                cache.clear()
            moves = cache[key] = generate_moves(
                rules, klass, self.usable, self.rmask, self.two_steps, free
            )
        return moves

    def usable_mask(self) -> int:
        """Bitmask of column indices where the turn player could use a sum right now."""
        return self.usable

    def _advance(self, action: int) -> None:
        rules = self.rules
        runners, nrun, rmask, usable, two_steps = _runners_after(self, action)
        self.runners, self.nrun, self.rmask, self.usable, self.two_steps = (
            runners,
            nrun,
            rmask,
            usable,
            two_steps,
        )
        self.roll = -1
        self.phase = DECIDING
        # Stopping wins once the columns won and the runners on top (runner columns no longer
        # usable) reach the goal.
        if self.won[self.player] + (rmask & ~usable).bit_count() >= rules.columns_to_win:
            self.options = _STOP_ONLY
        else:
            self.options = _ROLL_OR_STOP

    def _stop(self) -> None:
        p = self.player
        rules = self.rules
        heights = rules.heights
        mine = list(self.squares[p])
        theirs = self.squares[1 - p]
        won = self.won[p]
        blocked = self.blocked
        starts = self.starts
        usable, two_steps = starts[2 * p], starts[2 * p + 1]
        rmask = self.rmask
        runners = self.runners
        while rmask:
            low = rmask & -rmask
            i = low.bit_length() - 1
            rmask ^= low
            h = mine[i] = runners[i]
            if h == heights[i]:
                won += 1
                blocked |= low
                usable &= ~low
                if theirs[i]:  # the opponent's square leaves a won column
                    theirs = (*theirs[:i], 0, *theirs[i + 1 :])
            if h + 2 > heights[i]:
                two_steps &= ~low
        mine_t = tuple(mine)
        # Columns won now are closed to the opponent too.
        closed = ~(blocked ^ self.blocked)
        self.blocked = blocked
        if p == 0:
            self.squares = (mine_t, theirs)
            self.won = (won, self.won[1])
            self.starts = (usable, two_steps, starts[2] & closed, starts[3] & closed)
        else:
            self.squares = (theirs, mine_t)
            self.won = (self.won[0], won)
            self.starts = (starts[0] & closed, starts[1] & closed, usable, two_steps)
        if won >= rules.columns_to_win:
            self.runners = rules.no_runners
            self.nrun = 0
            self.rmask = 0
            self.winner = p
            self.phase = OVER
            self.options = ()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.runners = self.rules.no_runners
        self.nrun = 0
        self.roll = -1
        self.player = 1 - self.player
        self.phase = ROLLING
        self.options = ()
        self._start_turn()

    def _start_turn(self) -> None:
        """Derived fields of a turn with no runners out, for `self.player`."""
        p = self.player
        self.usable = self.starts[2 * p]
        self.two_steps = self.starts[2 * p + 1]
        self.rmask = 0

    def __str__(self) -> str:
        rules = self.rules
        n = rules.num_columns

        def row(label: str, values: Sequence[Any]) -> str:
            return f"{label:<8}" + "".join(f"{v:>3}" for v in values)

        def marks(values: Sequence[int]) -> list[str]:
            return [str(v) if v else "." for v in values]

        owners = []
        for i in range(n):
            if self.blocked >> i & 1:
                owners.append("0" if self.squares[0][i] == rules.heights[i] else "1")
            else:
                owners.append(".")
        lines = [
            row("column", range(2, n + 2)),
            row("height", rules.heights),
            row("p0", marks(self.squares[0])),
            row("p1", marks(self.squares[1])),
            row("runners", marks(self.runners)),
            row("won by", owners),
        ]
        p = self.player
        if self.phase == OVER:
            status = f"Player {self.winner} won" if self.winner >= 0 else "Draw at the horizon"
        elif self.phase == ROLLING:
            status = f"Player {p} to roll"
        elif self.phase == CHOOSING:
            status = f"Player {p} rolled {rules.roll_names[self.roll][5:]}, chooses a move"
        elif self.phase == DECIDING:
            status = f"Player {p} decides: roll or stop"
        else:
            status = f"Player {p} rolled {rules.roll_names[self.roll][5:]}: bust, must pass"
        lines.append(
            f"{status}. Columns won: {self.won[0]}-{self.won[1]}. "
            f"Moves: {self.moves}/{rules.horizon}"
        )
        return "\n".join(lines) + "\n"


def _runners_after(core: CantStopCore, action: int) -> tuple[tuple[int, ...], int, int, int, int]:
    """The turn's runners, runner count, runner mask, usable-column mask and two-step mask
    after the sums of `action` are placed (shared by `apply` and `child`)."""
    rules = core.rules
    heights = rules.heights
    base = core.squares[core.player]
    marks = list(core.runners)
    nrun, rmask, usable, two_steps = core.nrun, core.rmask, core.usable, core.two_steps
    for i in rules.action_columns[action]:
        h = marks[i]
        if h:
            h += 1
        else:
            h = base[i] + 1
            nrun += 1
            rmask |= 1 << i
        marks[i] = h
        if h >= heights[i]:
            usable &= ~(1 << i)
        if h + 2 > heights[i]:
            two_steps &= ~(1 << i)
    if nrun >= NUM_RUNNERS:
        usable &= rmask
    return tuple(marks), nrun, rmask, usable, two_steps


def generate_moves(
    rules: CantStopRules, klass: int, usable: int, rmask: int, two_steps: int, free: int
) -> tuple[int, ...]:
    """Sorted legal moves for the roll class `klass`, read from the turn's masks: `usable`
    columns, those with a runner (`rmask`) or two free cells (`two_steps`), `free` runners."""
    found: set[int] = set()
    for i, j in rules.class_pairings[klass]:
        ok_i = usable >> i & 1
        if i == j:
            if ok_i:
                if two_steps >> i & 1:
                    found.add(rules.pair_actions[(i, i)])
                else:  # one cell below the top: a single step only
                    found.add(FIRST_MOVE + i)
            continue
        ok_j = usable >> j & 1
        if ok_i and ok_j and (not rmask >> i & 1) + (not rmask >> j & 1) <= free:
            found.add(rules.pair_actions[(i, j)])  # both usable: the only option
        else:
            if ok_i:
                found.add(FIRST_MOVE + i)
            if ok_j:
                found.add(FIRST_MOVE + j)
    return tuple(sorted(found))


class CantStopState(CoreState):
    """OpenSpiel state of python_cant_stop; everything lives in `self.core`."""


class CantStopGame(CoreGame):
    """OpenSpiel game python_cant_stop."""

    game_type = _GAME_TYPE
    state_class = CantStopState
    rules_class = CantStopRules


def bust_probability(core: CantStopCore) -> float:
    """Probability that the turn player's next roll is a bust in `core`'s position."""
    return core.rules.bust_probability(core.usable_mask())


def player_progress(core: CantStopCore, player: int, risk: bool = True) -> float:
    """How close `player` is to winning, in [0, 1]: the mean of their best column fractions.

    A column counts as the fraction of its height the player has climbed (1 if won, 0 if the
    opponent won it), so a cell is worth more in a short column. For the turn player the
    runners count too: fully when the player can stop now or is choosing, and, if `risk`,
    weighted by the chance of not busting when the next roll is pending. The
    `columns_to_win` best columns are averaged.
    """
    summary = core.rules.player_summary(core.squares[player], core.blocked)
    if player != core.player or not core.nrun:
        return summary[2]
    return _with_runners(core, summary, risk and core.phase == ROLLING)


def _with_runners(core: CantStopCore, summary: tuple[Any, ...], rolling: bool) -> float:
    """`player_progress` of the turn player with runners out, cached in `summary` by the
    runners; with `rolling`, the runners count with the weight of not busting on the roll."""
    cache = summary[4] if rolling else summary[3]
    progress = cache.get(core.runners)
    return _new_with_runners(core, summary, rolling, cache) if progress is None else progress


def _new_with_runners(
    core: CantStopCore, summary: tuple[Any, ...], rolling: bool, cache: dict[Any, float]
) -> float:
    """`_with_runners` for runners not yet in `cache` (its `summary[4]` or `[3]`): computed
    and stored."""
    keep = 1.0 - core.rules.bust_probability(core.usable) if rolling else 1.0
    progress = _ranked_with_runners(core, summary, keep) if keep else summary[2]
    if len(cache) >= MAX_RUNNER_VALUES:
        cache.clear()
    cache[core.runners] = progress
    return progress


def _ranked_with_runners(core: CantStopCore, summary: tuple[Any, ...], keep: float) -> float:
    """The turn player's progress with runners counted with weight `keep` (> 0).

    The banked fractions with the runners' columns replaced, sorted: the best
    `columns_to_win` of them are summed in the order of sorting every column, so the float is
    the definition's. (Copying and sorting 11 floats costs less than picking the runners'
    banked values out of the ranked ones.)
    """
    rules = core.rules
    w = rules.columns_to_win
    values = summary[0].copy()
    runners = core.runners
    if keep == 1.0:  # (base + 1.0 * (runner - base)) / height is runner / height exactly
        rows = rules.fraction_rows
        for i in rules.columns_of(core.rmask):
            values[i] = rows[i][runners[i]]
    else:
        heights = rules.heights
        base = core.squares[core.player]
        for i in rules.columns_of(core.rmask):
            values[i] = (float(base[i]) + keep * (runners[i] - base[i])) / heights[i]
    values.sort(reverse=True)
    return sum(values[:w]) / w


def cant_stop_heuristic(core: CantStopCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else the difference in progress.

    Progress is `player_progress` (column fractions, runners discounted by the bust risk of
    the pending roll), so the value is cheap: a 126-roll bust probability is cached by the
    set of usable columns, and the progress by the banked squares and the runners.
    """
    phase = core.phase
    if phase == OVER:
        return core.returns()[player]
    rules = core.rules
    mover = core.player
    squares = core.squares
    blocked = core.blocked
    summaries = rules._summaries  # cache hits looked up in place: this runs at every leaf
    summary = summaries.get((squares[mover], blocked))
    if summary is None:
        summary = rules._new_summary(squares[mover], blocked)
    if core.nrun:
        # `_with_runners` with its cache hit looked up in place.
        rolling = phase == ROLLING
        cache = summary[4] if rolling else summary[3]
        ours = cache.get(core.runners)
        if ours is None:
            ours = _new_with_runners(core, summary, rolling, cache)
    else:
        ours = summary[2]
    other = summaries.get((squares[1 - mover], blocked))
    if other is None:
        other = rules._new_summary(squares[1 - mover], blocked)
    theirs = other[2]
    return ours - theirs if player == mover else theirs - ours


def cant_stop_progress_heuristic(core: CantStopCore, player: int) -> float:
    """A plainer evaluation, `heuristic=progress` in agent specs: the difference in progress
    with the runners counted in full even before a roll, so the risk of busting is left to the
    search. The default folds the exact bust probability of the pending roll into the value,
    an exact one-roll lookahead that a search sampling that roll can only approximate.
    """
    if core.phase == OVER:
        return core.returns()[player]
    return player_progress(core, player, False) - player_progress(core, 1 - player, False)


register_game(_GAME_TYPE, CantStopGame)


def cant_stop_move_note(core: CantStopCore, player: int, action: int) -> str | None:
    """Announces a roll that busts (the turn's progress lost), for `chancespiel play`."""
    if core.phase != ROLLING or core.moves_for_roll(action):
        return None
    if core.nrun:
        return f"bust: player {core.player} loses this turn's progress; the turn passes"
    return f"bust on the turn's first roll: player {core.player} must pass"


register_heuristic(_GAME_TYPE.short_name, cant_stop_heuristic)
register_move_note(_GAME_TYPE.short_name, cant_stop_move_note)
register_heuristic(_GAME_TYPE.short_name, cant_stop_progress_heuristic, name="progress")
register_entry(
    GameEntry(
        short_name=_GAME_TYPE.short_name,
        description="Can't Stop (Sackson): 11 columns, 4 dice, 3 runners; win 3 columns",
        chance="a roll of 4 dice before every move: 126 distinct multisets (or 1296 ordered)",
        status="done",
    )
)
