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

Parameters (all integers): `sides` (die faces, 2..12, default 6), `shortest` (height of columns
2 and 2s, default 3), `height_step` (extra height per column towards the middle, default 2),
so column a has height shortest + height_step * (s - 1 - |s + 1 - a|); `columns_to_win`
(default 3, at most s, so that a player can always still win the columns needed) and
`horizon` (default 1000). A game small enough for exhaustive search:
`python_cant_stop(sides=2,shortest=1,height_step=1,columns_to_win=2,horizon=8)` has columns
2,3,4 of heights 1,2,1, 5 distinct rolls, and a full game tree of 43,281 nodes (expectimax value
0.9212 for player 0; each 2 more moves of horizon multiply the tree by about 9).

Returns: +1 to the winner, -1 to the loser, 0 to both at the horizon.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from chancespiel.games._adapter import (
    CHANCE,
    TERMINAL,
    CoreGame,
    CoreState,
    SharedRules,
    SlotsCore,
    chance_game_type,
    check_int_param,
    register_game,
)
from chancespiel.games.registry import GameEntry, register_entry, register_heuristic

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

_DEFAULTS = {"sides": 6, "shortest": 3, "height_step": 2, "columns_to_win": 3, "horizon": 1000}

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
    ):
        self.sides = s = check_int_param("sides", sides, 2, 12)
        self.shortest = check_int_param("shortest", shortest, 1, 99)
        self.height_step = check_int_param("height_step", height_step, 0, 10)
        self.num_columns = n = 2 * s - 1
        # At most s = (n + 1) / 2: with w - 1 columns won by each player at least one column
        # is open, and each player can still win the columns they lack (see the docstring).
        self.columns_to_win = check_int_param("columns_to_win", columns_to_win, 1, s)
        self.horizon = check_int_param("horizon", horizon, 1)
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

        # Rolls: distinct multisets of four faces with exact probabilities, their pairings as
        # column-index pairs (i <= j, duplicates merged), and the mask of every sum they make.
        total = s**NUM_DICE
        rolls: list[tuple[int, ...]] = []
        outcomes: list[tuple[int, float]] = []
        pairings: list[tuple[tuple[int, int], ...]] = []
        masks: list[int] = []
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
            outcomes.append((len(rolls), ways / total))
            rolls.append(dice)
            pairings.append(tuple(sorted(pairs)))
            masks.append(mask)
        self.rolls: tuple[tuple[int, ...], ...] = tuple(rolls)
        self.outcomes: tuple[tuple[int, float], ...] = tuple(outcomes)
        self.roll_pairings: tuple[tuple[tuple[int, int], ...], ...] = tuple(pairings)
        self.roll_masks: tuple[int, ...] = tuple(masks)
        self.roll_names: tuple[str, ...] = tuple(
            "Roll " + "-".join(map(str, dice)) for dice in rolls
        )
        self._roll_index = {dice: r for r, dice in enumerate(rolls)}
        self._bust_cache: dict[int, float] = {}

    def params(self) -> dict[str, int]:
        """The game parameters these rules were built from."""
        return {
            "sides": self.sides,
            "shortest": self.shortest,
            "height_step": self.height_step,
            "columns_to_win": self.columns_to_win,
            "horizon": self.horizon,
        }

    # --- Encodings a person (or a test) can use ------------------------------------------

    def height(self, column: int) -> int:
        """Height of the column labelled `column` (a sum in 2..2s)."""
        return self.heights[self._index(column)]

    def roll_id(self, dice: Sequence[int]) -> int:
        """Chance outcome id of the four dice `dice`, in any order."""
        key = tuple(sorted(dice))
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
            masks = self.roll_masks
            p = sum(prob for r, prob in self.outcomes if not masks[r] & usable)
            self._bust_cache[usable] = p
        return p

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


class CantStopCore(SlotsCore):
    """Mutable Can't Stop state implementing the search protocol of DESIGN.md.

    Squares and runners are tuples indexed by column index (sum - 2) holding heights in cells
    (0 = not on the board); a player's square at the column's height means the column is won.
    """

    __slots__ = (
        "blocked",
        "moves",
        "nrun",
        "options",
        "phase",
        "player",
        "roll",
        "rules",
        "runners",
        "squares",
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

    def clone(self) -> CantStopCore:
        """An independent copy sharing the rules (every other field is immutable)."""
        c = CantStopCore.__new__(CantStopCore)
        c.rules = self.rules
        c.squares = self.squares
        c.won = self.won
        c.blocked = self.blocked
        c.runners = self.runners
        c.nrun = self.nrun
        c.player = self.player
        c.phase = self.phase
        c.roll = self.roll
        c.options = self.options
        c.moves = self.moves
        c.winner = self.winner
        return c

    # --- Search protocol ------------------------------------------------------------------

    def current_player(self) -> int:
        """0 or 1 to decide, CHANCE before a roll, TERMINAL at the end."""
        if self.phase == ROLLING:
            return CHANCE
        if self.phase == OVER:
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
            self._apply_roll(action)
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
        rules = self.rules
        heights = rules.heights
        runners = self.runners
        base = self.squares[self.player]
        blocked = self.blocked
        free = NUM_RUNNERS - self.nrun
        found: set[int] = set()
        for i, j in rules.roll_pairings[roll]:
            pos_i = runners[i] or base[i]
            ok_i = not blocked >> i & 1 and pos_i < heights[i] and (runners[i] or free)
            if i == j:
                if ok_i:
                    if pos_i + 2 <= heights[i]:
                        found.add(rules.pair_actions[(i, i)])
                    else:  # one cell below the top: a single step only
                        found.add(FIRST_MOVE + i)
                continue
            pos_j = runners[j] or base[j]
            ok_j = not blocked >> j & 1 and pos_j < heights[j] and (runners[j] or free)
            if ok_i and ok_j and (not runners[i]) + (not runners[j]) <= free:
                found.add(rules.pair_actions[(i, j)])  # both usable: the only option
            else:
                if ok_i:
                    found.add(FIRST_MOVE + i)
                if ok_j:
                    found.add(FIRST_MOVE + j)
        return tuple(sorted(found))

    def usable_mask(self) -> int:
        """Bitmask of column indices where the turn player could use a sum right now."""
        heights = self.rules.heights
        runners = self.runners
        base = self.squares[self.player]
        mask = 0
        if self.nrun < NUM_RUNNERS:
            for i in range(self.rules.num_columns):
                if not self.blocked >> i & 1 and (runners[i] or base[i]) < heights[i]:
                    mask |= 1 << i
        else:
            for i, h in enumerate(runners):
                if h and h < heights[i]:
                    mask |= 1 << i
        return mask

    def _apply_roll(self, roll: int) -> None:
        options = self.moves_for_roll(roll)
        if options:
            self.phase = CHOOSING
            self.roll = roll
            self.options = options
        elif self.nrun:
            self._end_turn()  # bust: the turn's progress is lost
        else:
            self.phase = PASSING
            self.roll = roll
            self.options = _PASS_ONLY

    def _advance(self, action: int) -> None:
        base = self.squares[self.player]
        marks = list(self.runners)
        for i in self.rules.action_columns[action]:
            if marks[i]:
                marks[i] += 1
            else:
                marks[i] = base[i] + 1
                self.nrun += 1
        self.runners = tuple(marks)
        self.roll = -1
        self.phase = DECIDING
        self.options = _STOP_ONLY if self._stop_wins() else _ROLL_OR_STOP

    def _stop_wins(self) -> bool:
        won = self.won[self.player]
        need = self.rules.columns_to_win
        if won + self.nrun < need:  # cheap exit: not enough runners to top
            return False
        heights = self.rules.heights
        topped = sum(1 for i, h in enumerate(self.runners) if h == heights[i])
        return won + topped >= need

    def _stop(self) -> None:
        p = self.player
        heights = self.rules.heights
        mine = list(self.squares[p])
        theirs = list(self.squares[1 - p])
        won = self.won[p]
        for i, h in enumerate(self.runners):
            if h:
                mine[i] = h
                if h == heights[i]:
                    won += 1
                    self.blocked |= 1 << i
                    theirs[i] = 0  # the opponent's square leaves a won column
        mine_t, theirs_t = tuple(mine), tuple(theirs)
        self.squares = (mine_t, theirs_t) if p == 0 else (theirs_t, mine_t)
        self.won = (won, self.won[1]) if p == 0 else (self.won[0], won)
        if won >= self.rules.columns_to_win:
            self.runners = self.rules.no_runners
            self.nrun = 0
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
    rules = core.rules
    heights = rules.heights
    base = core.squares[player]
    fracs = []
    keep = 0.0
    if player == core.player and core.nrun:
        keep = 1.0 - bust_probability(core) if risk and core.phase == ROLLING else 1.0
    for i, h in enumerate(heights):
        if core.blocked >> i & 1:
            fracs.append(1.0 if base[i] == h else 0.0)
            continue
        height = float(base[i])
        if keep and core.runners[i]:
            height += keep * (core.runners[i] - base[i])
        fracs.append(height / h)
    fracs.sort(reverse=True)
    w = rules.columns_to_win
    return sum(fracs[:w]) / w


def cant_stop_heuristic(core: CantStopCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact at the end, else the difference in progress.

    Progress is `player_progress` (column fractions, runners discounted by the bust risk of
    the pending roll), so the value is cheap: a 126-roll bust probability is cached by the
    set of usable columns.
    """
    if core.phase == OVER:
        return core.returns()[player]
    return player_progress(core, player) - player_progress(core, 1 - player)


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
register_heuristic(_GAME_TYPE.short_name, cant_stop_heuristic)
register_heuristic(_GAME_TYPE.short_name, cant_stop_progress_heuristic, name="progress")
register_entry(
    GameEntry(
        short_name=_GAME_TYPE.short_name,
        description="Can't Stop (Sackson): 11 columns, 4 dice, 3 runners; win 3 columns",
        chance="a roll of 4 dice before every move: 126 distinct multisets",
        status="done",
    )
)
