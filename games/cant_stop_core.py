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
classic search pays for every outcome of a chance node and sampling does not. The columns'
heights must fit 63 bits, 2s - 1 columns of the highest's bit length each (a core keeps a row
in a machine integer): sides up to 7 with the default shortest and height_step (7 sides: 13
columns of 4 bits), any sides with lower columns (12 sides, shortest=1, height_step=0: 23 of
1 bit); other variants are refused with the bits they would need. A game small enough for
exhaustive search:
`python_cant_stop(sides=2,shortest=1,height_step=1,columns_to_win=2,horizon=8)` has columns
2,3,4 of heights 1,2,1, 5 distinct rolls, and a full game tree of 43,281 nodes (expectimax value
0.9212 for player 0; each 2 more moves of horizon multiply the tree by about 9).

Returns: +1 to the winner, -1 to the loser, 0 to both at the horizon.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any, Final, final

import numpy as np
import pyspiel
from librt.strings import read_f64_le, read_i64_le
from librt.vecs import vec
from mypy_extensions import i64

from chancespiel.games.core import (
    CHANCE,
    TERMINAL,
    Core,
    ParamBounds,
    SharedRules,
    check_bool_param,
    check_int_param,
    check_param,
)

ROLL: Final = 0
STOP: Final = 1
PASS: Final = 2
FIRST_MOVE: Final = 3  # the first "use sums" action id
NUM_RUNNERS: Final = 3
NUM_DICE: Final = 4

# Phases of a core; the roll is the only chance node.
ROLLING: Final = 0  # chance node: the dice are about to be rolled
CHOOSING: Final = 1  # the player picks how to use the roll
DECIDING: Final = 2  # the player rolls again or stops
PASSING: Final = 3  # bust on the turn's first roll: the only action is PASS
OVER: Final = 4

# Typed as variable-length tuples: compiled, they stay the same shared objects (a fixed-length
# tuple type would be unboxed, and boxed anew each time a method returns it).
_ROLL_OR_STOP: Final[tuple[int, ...]] = (ROLL, STOP)
_STOP_ONLY: Final[tuple[int, ...]] = (STOP,)
_PASS_ONLY: Final[tuple[int, ...]] = (PASS,)
_NO_ACTIONS: Final[tuple[int, ...]] = ()
_FIRST_WINS: Final[tuple[float, ...]] = (1.0, -1.0)
_SECOND_WINS: Final[tuple[float, ...]] = (-1.0, 1.0)
_NO_WINNER: Final[tuple[float, ...]] = (0.0, 0.0)
PHASE_NAMES: Final[tuple[str, ...]] = ("roll", "choose", "decide", "pass")

ROW_BITS: Final = 63  # bits of a packed row of heights (an i64 that stays >= 0)
# Columns per digit table of a roll class (`CantStopRules.moves_for_class`): the real game's 11
# columns take two lookups per mask, and a class's tables 2 * 64 entries.
CHUNK_BITS: Final = 6
CHUNK_MASK: Final = (1 << CHUNK_BITS) - 1
RUNNER_SLOTS: Final = 4096  # progresses with runners kept (`CantStopRules.runner_progress`)
FOLD_MASK: Final = (1 << 31) - 1
LOW_32: Final = (1 << 32) - 1
MIX_MARKS: Final = 0x9E3779B1  # odd 32-bit constants (golden ratio, murmur3's)
MIX_SQUARES: Final = 0x85EBCA77


CANT_STOP_BOUNDS: Final[ParamBounds] = {
    "sides": (2, 12),
    "shortest": (1, 99),
    "height_step": (0, 10),
    "columns_to_win": (1, 12),  # and at most `sides`
    "horizon": (1, 100_000),
}


@final
class CantStopRules(SharedRules):
    """Constants of one Can't Stop variant: board, roll table, action encoding. Shared."""

    # Parameters are typed Any: they come from a params dict, and are checked here (compiled,
    # an int annotation would reject a float before the check could name the parameter).
    def __init__(
        self,
        sides: Any = 6,
        shortest: Any = 3,
        height_step: Any = 2,
        columns_to_win: Any = 3,
        horizon: Any = 1000,
        ordered_dice: Any = False,
    ):
        self.ordered_dice: bool = check_bool_param("ordered_dice", ordered_dice)
        self.sides = s = check_param(CANT_STOP_BOUNDS, "sides", sides)
        self.shortest = low = check_param(CANT_STOP_BOUNDS, "shortest", shortest)
        self.height_step = step = check_param(CANT_STOP_BOUNDS, "height_step", height_step)
        self.num_columns = n = 2 * s - 1
        # At most s = (n + 1) / 2: with w - 1 columns won by each player at least one column
        # is open, and each player can still win the columns they lack (see the docstring).
        check_param(CANT_STOP_BOUNDS, "columns_to_win", columns_to_win)
        # Machine integers, as `apply` compares them at every move.
        self.columns_to_win: i64 = check_int_param("columns_to_win", columns_to_win, 1, s)
        self.horizon: i64 = check_param(CANT_STOP_BOUNDS, "horizon", horizon)
        # Column index i holds the sum i + 2.
        self.heights: tuple[int, ...] = tuple(
            low + step * (s - 1 - abs(s - 1 - i)) for i in range(n)
        )
        self.max_height = max(self.heights)
        self.no_runners: tuple[int, ...] = (0,) * n
        self.no_squares: tuple[int, ...] = (0,) * n
        # A core packs a row of heights (a player's squares, the runners) into one machine
        # integer, column i's height in `cell_bits` bits at bit i * cell_bits (44 bits in the
        # real game): a move or a stop changes a few bits, where tuples of heights were
        # rebuilt, and a clone copies no containers. Variants whose rows need more than
        # ROW_BITS bits are refused.
        self.cell_bits: i64 = self.max_height.bit_length()
        self.cell_mask: i64 = (1 << self.cell_bits) - 1
        if n * self.cell_bits > ROW_BITS:
            raise ValueError(
                f"{n} columns of heights up to {self.max_height} need {n * self.cell_bits} "
                f"bits per row, more than the {ROW_BITS} a row packs (fewer sides or lower "
                "columns)"
            )
        self.all_columns: i64 = (1 << n) - 1

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
        # What a move does, for `apply` as 64-bit little-endian integers (compiled, a
        # tuple's item is a boxed int to check): per action two steps of (column bit, the
        # column's cells in a packed row), a double's column twice, zeros for no step.
        # With the heights packed (`top_row`), a step reads no column index or shift.
        cell = int(self.cell_mask)
        fields = [self.pack([cell if j == i else 0 for j in range(n)]) for i in range(n)]
        self.move_cells = struct.pack(
            f"<{4 * len(cols)}q",
            *(
                x
                for a in cols
                for i in (*a, -1, -1)[:2]
                for x in ((1 << i, fields[i]) if i >= 0 else (0, 0))
            ),
        )
        self.top_row: i64 = self.pack(self.heights)
        # Each column's lowest cell bit, for `occupied_cells`.
        self.low_cells: i64 = self.pack([1] * n)
        # pair_actions[(i, j)] at 64-bit integer i * n + j (i <= j), for `generate_moves`.
        self.pair_cells = struct.pack(
            f"<{n * n}q", *(self.pair_actions.get((i, j), -1) for i in range(n) for j in range(n))
        )
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
        class_doubles: list[int] = []
        for dice in itertools.combinations_with_replacement(range(1, s + 1), NUM_DICE):
            ways = math.factorial(NUM_DICE)
            for face in set(dice):
                ways //= math.factorial(dice.count(face))
            a, b, c, d = dice
            pairs: set[tuple[int, int]] = set()
            for x, y in ((a + b, c + d), (a + c, b + d), (a + d, b + c)):
                pairs.add((min(x, y) - 2, max(x, y) - 2))
            mask = doubles = 0
            for i, j in pairs:
                mask |= (1 << i) | (1 << j)
                if i == j:
                    doubles |= 1 << i
            classes.append(dice)
            class_probs.append(ways / total)
            class_pairings.append(tuple(sorted(pairs)))
            class_masks.append(mask)
            class_doubles.append(doubles)
        self.class_probs: tuple[float, ...] = tuple(class_probs)
        self.class_pairings: tuple[tuple[tuple[int, int], ...], ...] = tuple(class_pairings)
        self.class_masks: tuple[int, ...] = tuple(class_masks)
        # The columns of a class's doubles (pairings i == j). A double's sum is in no other
        # pairing of its class (a + b = c + d = a + c forces b + d to the same sum), so a
        # column of the class is read either for its two free cells or for its runner.
        self.class_doubles: tuple[int, ...] = tuple(class_doubles)
        self.double_masks = struct.pack(f"<{len(classes)}q", *class_doubles)
        self._class_index = {dice: r for r, dice in enumerate(classes)}
        # Chance outcomes: the classes themselves, or every ordered roll of four dice.
        rolls: list[tuple[int, ...]]
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
        self.roll_classes = struct.pack(f"<{len(roll_class)}q", *roll_class)  # read by `apply`
        self.outcomes: tuple[tuple[int, float], ...] = tuple(outcomes)
        self.roll_pairings: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            class_pairings[r] for r in roll_class
        )
        self.roll_masks: tuple[int, ...] = tuple(class_masks[r] for r in roll_class)
        self.roll_names: tuple[str, ...] = tuple(
            "Roll " + "-".join(map(str, dice)) for dice in rolls
        )
        self._roll_index = {dice: r for r, dice in enumerate(rolls)}
        self._bust_cache: dict[int, float] = {}
        # The distinct columns of each class's sums.
        self.class_columns: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i in range(n) if mask >> i & 1) for mask in class_masks
        )
        # Legal moves by roll class and the turn masks they read (see `moves_for_class`):
        # the tables of moves filled lazily, the digit tables made now.
        self.class_moves: list[list[tuple[int, ...] | None]] = [[] for _ in classes]
        self.chunks: i64 = -(-n // CHUNK_BITS)  # digit tables per class
        digits: list[int] = []
        for columns in self.class_columns:
            weight = {i: 3 ** (k + 1) for k, i in enumerate(columns)}
            for start in range(0, CHUNK_BITS * self.chunks, CHUNK_BITS):
                sums = [0]
                for i in range(start, start + CHUNK_BITS):
                    sums += [x + weight.get(i, 0) for x in sums]
                digits.extend(sums)
        self.class_digits = struct.pack(f"<{len(digits)}q", *digits)
        # The heuristic's tables and scratch space (`progress`): a column's fraction at each
        # height as little-endian doubles at byte (i << cell_bits | x) * 8, each column's
        # height as a double, and vectors of machine floats it reuses (every column's value,
        # the best so far).
        table = bytearray(8 * n << self.cell_bits)
        for i, h in enumerate(self.heights):
            for x in range(h + 1):
                struct.pack_into("<d", table, 8 * (i << self.cell_bits | x), float(x) / h)
        self.fractions = bytes(table)
        self.height_floats = struct.pack(f"<{n}d", *map(float, self.heights))
        self._values: vec[float] = vec[float]([0.0] * n)
        self._best: vec[float] = vec[float]([0.0] * self.columns_to_win)
        # The two banked progresses last asked for (`banked_progress`): the cores of a turn
        # share both players' squares, so most leaves of a tree search match one of them.
        self._last_squares: i64 = -1
        self._last_blocked: i64 = -1
        self._last_progress = 0.0
        self._other_squares: i64 = -1
        self._other_blocked: i64 = -1
        self._other_progress = 0.0
        # The progresses with runners (`runner_progress`) last computed, by slot: their
        # squares, runners and tag (won columns and whether the roll is pending), and value.
        self._slot_squares: vec[i64] = vec[i64]([0] * RUNNER_SLOTS)
        self._slot_marks: vec[i64] = vec[i64]([-1] * RUNNER_SLOTS)  # -1: empty
        self._slot_tags: vec[i64] = vec[i64]([0] * RUNNER_SLOTS)
        self._slot_values: vec[float] = vec[float]([0.0] * RUNNER_SLOTS)

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

    def pack(self, heights: Sequence[int]) -> int:
        """The heights by column index packed into one int (see `cell_bits`)."""
        word = 0
        for i, h in enumerate(heights):
            word |= h << i * self.cell_bits
        return word

    def unpack(self, word: int) -> tuple[int, ...]:
        """The heights by column index of the packed `word`."""
        bits, cell = self.cell_bits, self.cell_mask
        return tuple(word >> i * bits & cell for i in range(self.num_columns))

    # --- Cached facts the rules and the heuristic read -----------------------------------

    def moves_for_class(
        self, klass: i64, usable: i64, rmask: i64, two_steps: i64, nrun: i64
    ) -> tuple[int, ...]:
        """Sorted legal moves for the roll class `klass` in a turn with the masks of usable
        columns, runner columns and columns with two free cells, and `nrun` runners out;
        empty for a bust.

        Tabulated by all they depend on, as digits in base 3: the free runners (0, 1, or 2
        or more: a pair of new columns needs two), then, for each column of the class's sums
        (at most six), whether it is unusable (0), usable (1), or usable with two free cells
        (a double's column) or with a runner (the others') (2). The class's table is a list
        (at most 3 ** 7 entries, made on the class's first roll): compiled, an index of
        machine integers, where a dict would box and hash a key per roll. The digits of the
        columns come from tables of `CHUNK_BITS` columns at a time (`class_digits`, 64-bit
        little-endian integers, `chunks` tables of 2 ** CHUNK_BITS per class): the entry at
        x of the table of columns c.. is the sum over the bits j of x of column c + j's
        weight (3 ** (k + 1) for the class's k-th column, 0 for a column not in the class),
        so that the usable mask's entries add 1 per usable column, the marked mask's 1
        more; looked up, not gathered column by column, as interpreted code pays for every
        operation."""
        doubles = read_i64_le(self.double_masks, 8 * klass)
        marked = usable & (two_steps & doubles | rmask & ~doubles)
        free = NUM_RUNNERS - nrun
        index = free
        if free > 2:
            index = 2
        digits = self.class_digits
        at = 8 * klass * self.chunks << CHUNK_BITS
        rest = usable
        while rest:  # `marked` is within `rest`; the entries at 0 are 0
            index += read_i64_le(digits, at + 8 * (rest & CHUNK_MASK))
            index += read_i64_le(digits, at + 8 * (marked & CHUNK_MASK))
            rest >>= CHUNK_BITS
            marked >>= CHUNK_BITS
            at += 8 << CHUNK_BITS
        table = self.class_moves[klass]
        if not table:
            table = [None] * 3 ** (len(self.class_columns[klass]) + 1)
            self.class_moves[klass] = table
        moves = table[index]
        if moves is None:
            moves = table[index] = generate_moves(self, klass, usable, rmask, two_steps, free)
        return moves

    def bust_probability(self, usable: int) -> float:
        """Probability that a roll makes no sum in the column-index bitmask `usable`."""
        p = self._bust_cache.get(usable)
        if p is None:
            # Summed over the classes in either encoding, so both give the same float.
            masks = self.class_masks
            p = sum(prob for r, prob in enumerate(self.class_probs) if not masks[r] & usable)
            self._bust_cache[usable] = p
        return p

    def banked_progress(self, squares: i64, blocked: i64) -> float:
        """`player_progress` of a player with the banked (packed) `squares` and no runners
        when the columns in `blocked` are won. It changes only when someone stops, so the
        two last asked for are kept, and the others in `runner_progress`'s slots (as
        progresses without runners: a rollout's leaves have the squares of its stops)."""
        if squares == self._last_squares and blocked == self._last_blocked:
            return self._last_progress
        if squares == self._other_squares and blocked == self._other_blocked:
            progress = self._other_progress
        else:
            progress = self.runner_progress(squares, blocked, 0, 0, 0, False)
        self._other_squares, self._other_blocked = self._last_squares, self._last_blocked
        self._other_progress = self._last_progress
        self._last_squares, self._last_blocked, self._last_progress = squares, blocked, progress
        return progress

    def runner_progress(
        self, squares: i64, blocked: i64, marks: i64, rmask: i64, usable: i64, rolling: bool
    ) -> float:
        """`player_progress` of the turn player with the packed `squares` and runners `marks`
        (in the columns of `rmask`, `usable` the columns a sum can use), when the columns in
        `blocked` are won; with `rolling`, the runners count with the weight of not busting
        on the pending roll.

        Kept in a table of `RUNNER_SLOTS` slots, by a mix of the squares and runners (a
        search reaches the same runners on many paths, a tree search's leaves mostly the
        squares of one turn); a slot holds the last value whose key it was, checked in full
        (the usable columns follow from the squares, the won columns and the runners).
        Progresses without runners (`banked_progress`) are kept here too, as `marks` 0.
        The mix multiplies 31-bit folds by 32-bit constants, so no product exceeds 63 bits
        (the engines agree) and no key is boxed."""
        tag = blocked << 1 | rolling
        folded_marks = (marks ^ marks >> 31) & FOLD_MASK
        folded_squares = (squares ^ squares >> 31) & FOLD_MASK
        mixed = folded_marks * MIX_MARKS ^ folded_squares * MIX_SQUARES ^ tag
        slot = mixed >> 18 & RUNNER_SLOTS - 1
        if (
            self._slot_marks[slot] == marks
            and self._slot_squares[slot] == squares
            and self._slot_tags[slot] == tag
        ):
            return self._slot_values[slot]
        keep = 1.0
        if rolling:
            keep -= self.bust_probability(usable)
        if keep:
            progress = self.progress(squares, blocked, marks, rmask, keep)
        else:  # a certain bust: the runners are worth nothing
            progress = self.banked_progress(squares, blocked)
        self._slot_marks[slot] = marks
        self._slot_squares[slot] = squares
        self._slot_tags[slot] = tag
        self._slot_values[slot] = progress
        return progress

    def progress(self, squares: i64, blocked: i64, marks: i64, rmask: i64, keep: float) -> float:
        """The mean of the `columns_to_win` best column values of a player with the packed
        `squares` when the columns in `blocked` are won (`player_progress`): a column is
        worth the fraction of its height climbed, 1 if won and 0 if the opponent won it; in
        the columns of `rmask` the runner (in `marks`) counts with weight `keep`.

        Summed from the largest: the float of `sum(sorted(values, reverse=True)[:w]) / w`
        (equal values are equal floats, so their order does not matter). The best values so
        far are kept by insertion in a vector of machine floats (compiled, a list would box
        every float, and sorting it costs more than picking the few best). Only the columns
        with a square or a runner are looked at (the others are worth 0, never among the
        best), up to the last of them; their values are left in the rules' vector, which
        `column_values` zeroes first. The vectors are the shared
        rules': compiled, the call holds the interpreter throughout, but interpreted threads
        evaluating one game's positions at once could interleave (nothing here does)."""
        values, best = self._values, self._best
        fractions, heights = self.fractions, self.height_floats
        bits, cell = self.cell_bits, self.cell_mask
        w: i64 = len(best)
        last = w - 1
        # Values are >= 0 and there are at least w columns: best starts at w zeros, which
        # the columns worth 0 need not be inserted to fill (x + 0.0 is x, so the sum is the
        # same float).
        for k in range(w):
            best[k] = 0.0
        low = 0.0  # best[last]
        column: i64 = 0
        shift: i64 = 0
        rest = squares | marks  # the cells from `column` on, shifted down
        while rest:
            if not rest & cell:
                rest >>= bits
                column += 1
                shift += bits
                continue
            h = squares >> shift & cell
            if rmask >> column & 1:
                runner = marks >> shift & cell
                if keep == 1.0:  # (h + 1.0 * (runner - h)) / height is runner / height exactly
                    value = read_f64_le(fractions, 8 * (column << bits | runner))
                else:
                    value = (float(h) + keep * float(runner - h)) / read_f64_le(heights, 8 * column)
            else:
                value = read_f64_le(fractions, 8 * (column << bits | h))
                if blocked >> column & 1 and value < 1.0:
                    value = 0.0  # the opponent won the column
            values[column] = value
            if value > low:
                k = last
                while k > 0:
                    above = best[k - 1]
                    if above >= value:
                        break
                    best[k] = above
                    k -= 1
                best[k] = value
                low = best[last]
            rest >>= bits
            column += 1
            shift += bits
        total = 0.0
        for k in range(w):
            total += best[k]
        return total / float(w)

    def column_values(self, squares: i64, blocked: i64) -> list[float]:
        """Each column's banked value to `progress`, by column index, for a player with the
        packed `squares` when the columns in `blocked` are won."""
        values = self._values
        for column in range(len(values)):
            values[column] = 0.0
        self.progress(squares, blocked, 0, 0, 0.0)
        return list(values)

    # --- States ------------------------------------------------------------------------

    def initial_core(self) -> CantStopCore:
        """The state before the first roll: empty board, player 0 to roll."""
        return self.position()

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
        core = CantStopCore(
            self,
            squares0=self.pack(rows[0]),
            squares1=self.pack(rows[1]),
            won0=won[0],
            won1=won[1],
            blocked=blocked,
            marks=self.pack(marks),
            nrun=nrun,
            player=player,
            phase=ROLLING,
            roll=-1,
            options=_NO_ACTIONS,
            moves=check_int_param("moves", moves, 0, self.horizon - 1),
            winner=-1,
            start0=0,  # the derived fields, filled by `derive`
            start1=0,
            usable=0,
            two_steps=0,
            rmask=0,
        )
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
            ("phase", (len(PHASE_NAMES),)),  # all zero at the end
            ("roll", (len(self.outcomes),)),  # the roll being used, while choosing or passing
        ]

    def fill_observation(
        self, core: CantStopCore, player: int, views: dict[str, np.ndarray]
    ) -> None:
        """Writes the one-hot encoding of `core` into the zeroed `views`."""
        cols = np.arange(self.num_columns)
        squares = core.squares
        for p in (0, 1):
            views["squares"][p, cols, squares[p]] = 1.0
            for i in range(self.num_columns):
                if core.blocked >> i & 1 and squares[p][i] == self.heights[i]:
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


@final
class CantStopCore(Core):
    """Mutable Can't Stop state implementing the search protocol (`Core`).

    Every field is an int (or a shared tuple), so a clone copies no containers. Heights are
    packed by the rules (`CantStopRules.pack`): `squares0` and `squares1` hold each player's
    squares and `marks` the turn player's runners, column i's height (0 = not on the board) at
    bit i * cell_bits; a player's square at the column's height means the column is won. The
    packed rows (at most `ROW_BITS` bits) and the other fields but the rules and the options
    (masks of at most 2 * 23 bits, counts, phase, player) are `i64`, machine integers in
    compiled code, where a tagged `int` field costs reference counts and overflow checks at
    every use (in pure Python `i64` is `int`). The `squares`, `runners` and `won` properties
    read them as tuples. The derived fields are kept up to date by `apply`, so that move
    generation and the heuristic read them instead of scanning the columns: `start0` and
    `start1` (the usable and two-step masks a turn of that player starts with, as usable |
    two_steps << num_columns), and for the turn player `usable` (columns a sum can be used in
    now), `two_steps` (columns with two free cells above the marker) and `rmask` (columns with
    a runner; a runner column is usable until the runner reaches the top).
    """

    __slots__ = (
        "blocked",
        "marks",
        "moves",
        "nrun",
        "options",
        "phase",
        "player",
        "rmask",
        "roll",
        "rules",
        "squares0",
        "squares1",
        "start0",
        "start1",
        "two_steps",
        "usable",
        "winner",
        "won0",
        "won1",
    )

    def __init__(
        self,
        rules: CantStopRules,
        squares0: i64,
        squares1: i64,
        won0: i64,
        won1: i64,
        blocked: i64,
        marks: i64,
        nrun: i64,
        player: i64,
        phase: i64,
        roll: i64,
        options: tuple[int, ...],
        moves: i64,
        winner: i64,
        start0: i64,
        start1: i64,
        usable: i64,
        two_steps: i64,
        rmask: i64,
    ) -> None:
        """Every field, as `clone` copies them: the rules' `position` and `initial_core` make
        a consistent core from readable facts."""
        self.rules = rules
        self.squares0 = squares0  # player 0's squares, packed
        self.squares1 = squares1
        self.won0 = won0  # columns won by player 0
        self.won1 = won1
        self.blocked = blocked  # bitmask of won column indices
        self.marks = marks  # the runners, packed
        self.nrun = nrun  # runners out this turn
        self.player = player  # whose turn it is
        self.phase = phase
        self.roll = roll  # the roll being used while CHOOSING or PASSING, else -1
        self.options = options  # legal actions at decision nodes
        self.moves = moves  # decision moves made, for the horizon
        self.winner = winner  # 0 or 1 once someone has won, else -1
        self.start0 = start0
        self.start1 = start1
        self.usable = usable
        self.two_steps = two_steps
        self.rmask = rmask

    @property
    def squares(self) -> tuple[tuple[int, ...], ...]:
        """Each player's square heights by column index (0 = none)."""
        return (self.rules.unpack(self.squares0), self.rules.unpack(self.squares1))

    @property
    def runners(self) -> tuple[int, ...]:
        """The runner heights by column index (0 = none)."""
        return self.rules.unpack(self.marks)

    @property
    def won(self) -> tuple[int, ...]:
        """The number of columns each player has won."""
        return (self.won0, self.won1)

    def squares_of(self, player: int) -> i64:
        """`player`'s packed squares."""
        return self.squares0 if player == 0 else self.squares1

    def derive(self) -> None:
        """Recomputes the derived fields from squares, blocked, runners and the player."""
        rules = self.rules
        heights = rules.heights
        bits, cell, n = rules.cell_bits, rules.cell_mask, rules.num_columns
        blocked = self.blocked
        starts: list[int] = []
        for base in (self.squares0, self.squares1):
            usable = two_steps = 0
            for i, h in enumerate(heights):
                if not blocked >> i & 1:
                    x = base >> i * bits & cell
                    if x < h:
                        usable |= 1 << i
                    if x + 2 <= h:
                        two_steps |= 1 << i
            starts.append(usable | two_steps << n)
        self.start0, self.start1 = starts[0], starts[1]
        start = starts[self.player]
        usable, two_steps = start & rules.all_columns, start >> n
        rmask = 0
        for i, h in enumerate(heights):
            x = self.marks >> i * bits & cell
            if x:
                rmask |= 1 << i
                if x >= h:
                    usable &= ~(1 << i)
                if x + 2 > h:
                    two_steps &= ~(1 << i)
        if self.nrun >= NUM_RUNNERS:
            usable &= rmask
        self.usable, self.two_steps, self.rmask = usable, two_steps, rmask

    def clone(self) -> CantStopCore:
        """An independent copy sharing the rules (every other field is an int or immutable)."""
        return CantStopCore(
            self.rules,
            self.squares0,
            self.squares1,
            self.won0,
            self.won1,
            self.blocked,
            self.marks,
            self.nrun,
            self.player,
            self.phase,
            self.roll,
            self.options,
            self.moves,
            self.winner,
            self.start0,
            self.start1,
            self.usable,
            self.two_steps,
            self.rmask,
        )

    # --- Search protocol ------------------------------------------------------------------

    def state_key(self) -> int:
        """A hash of the fields that define the state (the others follow from these).

        Mixed in machine integers, without a tuple of boxed fields: each field's low 32 and
        high 31 bits multiplied by odd constants below 2 ** 31 and 2 ** 32 (no product
        exceeds 63 bits, so both engines compute the same number), the products combined by
        exclusive or."""
        small = (
            self.moves << 17
            | (self.roll + 1) << 6
            | self.phase << 3
            | self.player << 2
            | (self.winner + 1)
        )
        key = (
            _mix(self.squares0, 0x5BD1E995, 0x85EBCA77)
            ^ _mix(self.squares1, 0x27D4EB2F, 0xC2B2AE3D)
            ^ _mix(self.marks, 0x165667B1, 0x9E3779B1)
            ^ _mix(small, 0x1B873593, 0xCC9E2D51)
        )
        return key ^ key >> 29  # the high bits into the low ones, which dicts index by

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
            rules = self.rules  # `moves_for_roll`, without the call
            options = rules.moves_for_class(
                read_i64_le(rules.roll_classes, 8 * action),
                self.usable,
                self.rmask,
                self.two_steps,
                self.nrun,
            )
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
            self.options = _NO_ACTIONS
        elif action == STOP:
            self._stop()
        else:  # PASS
            self._end_turn()
        if self.moves >= self.rules.horizon and self.phase != OVER:
            self.phase = OVER
            self.options = _NO_ACTIONS

    def returns(self) -> tuple[float, ...]:
        """(+1, -1) or (-1, +1) for a win, (0, 0) at the horizon or before the end."""
        winner = self.winner
        if winner == 0:
            return _FIRST_WINS
        if winner == 1:
            return _SECOND_WINS
        return _NO_WINNER

    def action_to_string(self, player: int, action: int) -> str:
        """'Roll 1-4-5-6' for CHANCE; 'roll', 'stop', 'pass', 'use 9', 'use 5 and 9'."""
        if player == CHANCE:
            return self.rules.roll_names[action]
        return self.rules.action_names[action]

    # --- Rules -----------------------------------------------------------------------------

    def moves_for_roll(self, roll: int) -> tuple[int, ...]:
        """Sorted legal moves for the roll `roll` in the current turn (empty: a bust)."""
        rules = self.rules
        return rules.moves_for_class(
            rules.roll_class[roll], self.usable, self.rmask, self.two_steps, self.nrun
        )

    def usable_mask(self) -> int:
        """Bitmask of column indices where the turn player could use a sum right now."""
        return self.usable

    def _advance(self, action: int) -> None:
        """Places the sums of the move `action`: runners up one cell, or new ones one cell
        above the player's squares. Each step (`move_cells`) is a column's bit and cells:
        a new runner takes the square's height, then the runner climbs by the cells' lowest
        bit, and the column's top (`top_row`) is compared in place."""
        rules = self.rules
        cells, tops = rules.move_cells, rules.top_row
        base = self.squares0 if self.player == 0 else self.squares1
        marks = self.marks
        nrun, rmask, usable, two_steps = self.nrun, self.rmask, self.usable, self.two_steps
        at: i64 = 32 * action  # compiled, a machine integer (`action` is a tagged int)
        end = at + 32
        while at < end:
            bit = read_i64_le(cells, at)
            if not bit:
                break
            field = read_i64_le(cells, at + 8)
            if not rmask & bit:
                marks += base & field
                nrun += 1
                rmask |= bit
            marks += field & -field
            x = marks & field
            top = tops & field
            if x + (field & -field) >= top:  # fewer than two free cells above
                two_steps &= ~bit
                if x == top:
                    usable &= ~bit
            at += 16
        if nrun >= NUM_RUNNERS:
            usable &= rmask
        self.marks = marks
        self.nrun, self.rmask, self.usable, self.two_steps = nrun, rmask, usable, two_steps
        self.roll = -1
        self.phase = DECIDING
        # Stopping wins once the columns won and the runners on top (runner columns no longer
        # usable) reach the goal: never with no runner on top, as the game would be over.
        options = _ROLL_OR_STOP
        topped = rmask & ~usable
        if topped:
            won = self.won0 if self.player == 0 else self.won1
            if won + bits_set(topped) >= rules.columns_to_win:
                options = _STOP_ONLY
        self.options = options

    def _stop(self) -> None:
        """Moves the squares up to the runners, wins the columns topped, and ends the turn or
        the game.

        No column is walked: the runners' columns are masks kept by `_advance` (those at the
        top are the runner columns no longer usable, those with two free cells left are
        still in `two_steps`), the squares take the runners' cells at once (`occupied_cells`),
        and the next turn's masks are the turn's start with the runner columns replaced."""
        p = self.player
        rules = self.rules
        n: i64 = rules.num_columns
        if p == 0:
            mine, theirs, won, start = self.squares0, self.squares1, self.won0, self.start0
        else:
            mine, theirs, won, start = self.squares1, self.squares0, self.won1, self.start1
        rmask, marks = self.rmask, self.marks
        topped = rmask & ~self.usable
        bits, low, cell = rules.cell_bits, rules.low_cells, rules.cell_mask
        runners = occupied_cells(marks, bits, low, cell)
        mine = mine & ~runners | marks
        usable = start & rules.all_columns & ~topped
        two_steps = start >> n & ~rmask | self.two_steps & rmask
        blocked = self.blocked
        if topped:
            won += bits_set(topped)
            blocked |= topped
            # The opponent's squares leave the won columns: the runners' cells but those
            # short of the top.
            short = occupied_cells((marks ^ rules.top_row) & runners, bits, low, cell)
            theirs &= ~(runners & ~short)
        # Columns won now are closed to the opponent too (both masks of their turn start).
        closed = ~(topped | topped << n)
        self.blocked = blocked
        if p == 0:
            self.squares0, self.squares1, self.won0 = mine, theirs, won
            self.start0 = usable | two_steps << n
            self.start1 &= closed
        else:
            self.squares1, self.squares0, self.won1 = mine, theirs, won
            self.start1 = usable | two_steps << n
            self.start0 &= closed
        if won >= rules.columns_to_win:
            self.marks = 0
            self.nrun = 0
            self.rmask = 0
            self.winner = p
            self.phase = OVER
            self.options = _NO_ACTIONS
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        """The runners come off and the other player's turn starts at a roll."""
        p = 1 - self.player
        start = self.start0 if p == 0 else self.start1
        n: i64 = self.rules.num_columns
        self.marks = 0
        self.nrun = 0
        self.roll = -1
        self.player = p
        self.phase = ROLLING
        self.options = _NO_ACTIONS
        self.usable = start & self.rules.all_columns
        self.two_steps = start >> n
        self.rmask = 0

    def __str__(self) -> str:
        rules = self.rules
        n = rules.num_columns
        squares = self.squares
        owners = []
        for i in range(n):
            if self.blocked >> i & 1:
                owners.append("0" if squares[0][i] == rules.heights[i] else "1")
            else:
                owners.append(".")
        lines = [
            _row("column", [str(a) for a in range(2, n + 2)]),
            _row("height", [str(h) for h in rules.heights]),
            _row("p0", _marks(squares[0])),
            _row("p1", _marks(squares[1])),
            _row("runners", _marks(self.runners)),
            _row("won by", owners),
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
            f"{status}. Columns won: {self.won0}-{self.won1}. Moves: {self.moves}/{rules.horizon}"
        )
        return "\n".join(lines) + "\n"


def _mix(value: i64, low_factor: i64, high_factor: i64) -> i64:
    """`value` >= 0 (below 2 ** 63) mixed for `state_key`: its low 32 bits times
    `low_factor` (< 2 ** 31) and its high bits times `high_factor` (< 2 ** 32), exclusive-ored:
    both products are below 2 ** 63."""
    return (value & LOW_32) * low_factor ^ (value >> 32) * high_factor


def occupied_cells(row: i64, bits: i64, low: i64, cell: i64) -> i64:
    """The cells of the nonzero heights in the packed `row` (`bits` a cell, `low` each cell's
    lowest bit, `cell` a cell's mask): each cell's bits are ored into its lowest, which
    times the cell's mask fills the cell (no carry leaves a cell)."""
    seen = row
    shift: i64 = 1
    while shift < bits:
        seen |= row >> shift
        shift += 1
    return (seen & low) * cell


def bits_set(mask: i64) -> i64:
    """The number of bits set in `mask` >= 0 (int.bit_count, which compiled code would call
    as a Python method; here at most three runner bits)."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


def _row(label: str, values: Sequence[str]) -> str:
    return f"{label:<8}" + "".join(f"{v:>3}" for v in values)


def _marks(values: Sequence[int]) -> list[str]:
    return [str(v) if v else "." for v in values]


def generate_moves(
    rules: CantStopRules, klass: i64, usable: i64, rmask: i64, two_steps: i64, free: i64
) -> tuple[int, ...]:
    """Sorted legal moves for the roll class `klass`, read from the turn's masks: `usable`
    columns, those with a runner (`rmask`) or two free cells (`two_steps`), `free` runners."""
    pairs, n = rules.pair_cells, rules.num_columns
    found: list[int] = []  # at most two moves a pairing, three pairings
    for i, j in rules.class_pairings[klass]:
        ok_i = usable >> i & 1
        ok_j = usable >> j & 1
        if i == j:
            if not ok_i:
                continue
            # both steps, or one cell below the top a single step only
            move = read_i64_le(pairs, 8 * (i * n + i)) if two_steps >> i & 1 else FIRST_MOVE + i
        elif ok_i and ok_j and (not rmask >> i & 1) + (not rmask >> j & 1) <= free:
            move = read_i64_le(pairs, 8 * (i * n + j))  # both usable: the only option
        else:
            if ok_i and FIRST_MOVE + i not in found:
                found.append(FIRST_MOVE + i)
            if not ok_j:
                continue
            move = FIRST_MOVE + j
        if move not in found:
            found.append(move)
    found.sort()
    return tuple(found)


# --- Heuristics ------------------------------------------------------------------------------


def bust_probability(core: CantStopCore) -> float:
    """Probability that the turn player's next roll is a bust in `core`'s position."""
    return core.rules.bust_probability(core.usable)


def player_progress(core: CantStopCore, player: int, risk: bool = True) -> float:
    """How close `player` is to winning, in [0, 1]: the mean of their best column fractions.

    A column counts as the fraction of its height the player has climbed (1 if won, 0 if the
    opponent won it), so a cell is worth more in a short column. For the turn player the
    runners count too: fully when the player can stop now or is choosing, and, if `risk`,
    weighted by the chance of not busting when the next roll is pending. The
    `columns_to_win` best columns are averaged.
    """
    # The field picked here rather than by `squares_of`: a call per leaf costs the interpreter.
    squares = core.squares0 if player == 0 else core.squares1
    rules = core.rules
    if player != core.player or not core.nrun:
        return rules.banked_progress(squares, core.blocked)
    rolling = risk and core.phase == ROLLING
    return rules.runner_progress(
        squares, core.blocked, core.marks, core.rmask, core.usable, rolling
    )


def cant_stop_heuristic(core: CantStopCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else the difference in progress.

    Progress is `player_progress` (column fractions, runners discounted by the bust risk of
    the pending roll), so the value is cheap: a 126-roll bust probability is cached by the
    set of usable columns, and the best columns are picked from a vector of machine floats.
    """
    if core.phase == OVER:
        return core.returns()[player]
    mover = core.player
    ours = player_progress(core, mover)
    squares = core.squares1 if mover == 0 else core.squares0
    theirs = core.rules.banked_progress(squares, core.blocked)
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


def _column_names(side: str) -> list[str]:
    return [f"{side}_column_{sum_}" for sum_ in range(2, 13)]


# Two-dice columns 2..12 (the standard game); other dice sizes have other columns, and
# cant_stop_features gives them as many column fractions as they have.
CANT_STOP_FEATURES: Final[tuple[str, ...]] = (
    "my_turn",
    "rolling",
    "choosing",
    "deciding",
    "runners_out",
    "bust_probability",
    "my_progress",
    "their_progress",
    "my_progress_with_runners",
    "my_won",
    "their_won",
    "heuristic",
    *_column_names("my"),
    *_column_names("their"),
    *_column_names("my_runner"),
)


def cant_stop_features(core: CantStopCore, player: int) -> list[float]:
    """The position as `player` sees it, for a learned value (CANT_STOP_FEATURES names them,
    for the standard columns): whose turn and which phase it is, the turn player's runners and
    the bust risk of their next roll, both sides' progress (`player_progress`) and won
    columns, the heuristic, each column's banked fraction for both sides, and the turn
    player's runner gains per column (for `player` on their own turn, else zeros)."""
    rules = core.rules
    if core.phase == OVER:
        return [0.0] * (12 + 3 * len(rules.heights))
    me = player
    my_turn = core.player == me
    my_squares, their_squares = core.squares_of(me), core.squares_of(1 - me)
    mine = rules.banked_progress(my_squares, core.blocked)
    theirs = rules.banked_progress(their_squares, core.blocked)
    with_runners = player_progress(core, me, False) if my_turn else mine
    won = core.won
    features = [
        1.0 if my_turn else 0.0,
        1.0 if core.phase == ROLLING else 0.0,
        1.0 if core.phase == CHOOSING else 0.0,
        1.0 if core.phase == DECIDING else 0.0,
        float(core.nrun),
        rules.bust_probability(core.usable),
        mine,
        theirs,
        with_runners,
        float(won[me]),
        float(won[1 - me]),
        cant_stop_heuristic(core, me),
    ]
    features.extend(rules.column_values(my_squares, core.blocked))
    features.extend(rules.column_values(their_squares, core.blocked))
    heights = rules.heights
    base = rules.unpack(core.squares_of(me))
    runners = core.runners
    for i in range(len(heights)):
        gain = runners[i] - base[i] if my_turn and runners[i] else 0
        features.append(gain / heights[i])
    return features
