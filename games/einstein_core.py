"""EinStein würfelt nicht! (Ingo Althöfer, 2004) with OpenSpiel's conventions.

Rules (Ingo Althoefer's EinStein wuerfelt nicht!, 2004, with OpenSpiel's conventions): a 5x5
board; each player has six cubes numbered 1..6 in their corner triangle. A turn is a die roll,
then a move of the cube with the rolled number, or, if it is gone, of the next-lower or
next-higher remaining cube (the player chooses). A cube moves one cell toward the opponent's
corner and removes any cube on the target cell, its own included. Reaching the opponent's corner
cell, or removing the opponent's last cube, wins.

Conventions follow OpenSpiel's C++ `einstein_wurfelt_nicht`, so that the default game equals it
move for move (tests/test_einstein.py checks this over random games):

- Coordinates are (row, col), row 0 at the top; cell index = 5 * row + col.
- Player 0 is Black: home cells r + c <= 2 (top left), moves down, right or diagonally
  down-right, goal (4, 4). Player 1 is White: home cells r + c >= 6, moves up, left or
  diagonally up-left, goal (0, 0). **White moves first.**
- Setup chance nodes (`setup=random`, the default): first Black's arrangement, then White's,
  720 outcomes each at 1/720. Outcome `a` is the `a`-th permutation of (1..6) in lexicographic
  order, written on the player's home cells in row-major order: Black (0,0) (0,1) (0,2) (1,0)
  (1,1) (2,0); White (2,4) (3,3) (3,4) (4,2) (4,3) (4,4).
- Then every turn is a die roll, chance outcome `x` (0..5) = face `x + 1`, probability 1/6,
  followed by the move of the player after the previous mover.
- Move actions: `action = ((5 * row + col) * 6 + dir) * 2 + capture`, 300 ids, where (row, col)
  is the source cell, `dir` 0 = diag (+1,+1), 1 = down (+1,0), 2 = right (0,+1) for Black and
  3 = up (-1,0), 4 = diag (-1,-1), 5 = left (0,-1) for White, and `capture` is 1 when the target
  cell holds any cube. Strings as in C++: "B3-down", "W6-diag*", "roll 3", "Placing black
  cubes on the board - action 120".
- Returns: +1 to the winner, -1 to the loser. There are no draws. `max_game_length` is 112
  decision moves, the C++ value (a true bound: each player makes at most 35 moves).

Parameter `setup` (string): `random` (default, the OpenSpiel game) or `free`, the official rule
where players arrange their own cubes. With `free`, Black places all six cubes first, then White
(who therefore sees Black's arrangement), one action per cube in the order 1, 2, ..., 6: action
`300 + slot` puts the next cube on home cell `slot` (0..5, the row-major order above). These ids
lie after the move ids, so the game has 306 distinct actions and 124 as maximum length, and the
only chance nodes are die rolls.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, ClassVar, Final, final

import numpy as np
import pyspiel
from librt.vecs import vec
from mypy_extensions import i64

from chancespiel.games.core import CHANCE, TERMINAL, Core, SharedRules

BLACK: Final = 0
WHITE: Final = 1
SIZE: Final = 5
NUM_CELLS: Final = SIZE * SIZE
NUM_CUBES: Final = 6
NUM_MOVE_ACTIONS: Final = NUM_CELLS * 6 * 2  # 300, as the C++ game
PLACE_BASE: Final = NUM_MOVE_ACTIONS  # first placement action of setup=free
MAX_MOVES: Final = (SIZE - 1) * (SIZE - 1) * (NUM_CUBES + 1)  # 112, the C++ game's MaxGameLength

# (row, col) offsets by direction id; 0..2 are Black's, 3..5 White's (the C++ order).
_DIRECTIONS: Final = ((1, 1), (1, 0), (0, 1), (-1, 0), (-1, -1), (0, -1))
_DIRECTION_NAMES: Final = ("diag", "down", "right", "up", "diag", "left")
_HOME: Final = (
    tuple(r * SIZE + c for r in range(SIZE) for c in range(SIZE) if r + c <= 2),
    tuple(r * SIZE + c for r in range(SIZE) for c in range(SIZE) if r + c >= 6),
)
_GOAL: Final = (NUM_CELLS - 1, 0)
_OFF: Final = NUM_CELLS  # an extra board entry that stays empty: the target of missing directions
_POS: Final = NUM_CELLS + 1  # board[_POS + code] is the cell of cube `code` (see EinsteinCore)
_COLOR: Final = ("B", "W")
_BLACK_WINS: Final[tuple[float, ...]] = (1.0, -1.0)
_WHITE_WINS: Final[tuple[float, ...]] = (-1.0, 1.0)
_NO_WINNER: Final[tuple[float, ...]] = (0.0, 0.0)
_SETUPS: Final = ("random", "free")

# Stages of a game. Cube codes on the board: 0 empty, 1..6 Black's cubes, 7..12 White's.
_BLACK_SETUP: Final = 0
_WHITE_SETUP: Final = 1
_PLAY: Final = 2


def _selectable(mask: int, face: int) -> tuple[int, ...]:
    """Cube numbers that may move on `face` when the cubes in `mask` (bit v-1 = cube v) remain."""
    if mask >> (face - 1) & 1:
        return (face,)
    lower = [v for v in range(1, face) if mask >> (v - 1) & 1]
    higher = [v for v in range(face + 1, NUM_CUBES + 1) if mask >> (v - 1) & 1]
    return tuple(([lower[-1]] if lower else []) + ([higher[0]] if higher else []))


def cell_name(cell: int) -> str:
    """'(row,col)' of a cell index."""
    return f"({cell // SIZE},{cell % SIZE})"


@final
class EinsteinRules(SharedRules):
    """Move tables, selection and mobility tables of EWN. Shared by all states, never copied."""

    def __init__(self, setup: str = "random"):
        if setup not in _SETUPS:
            raise ValueError(f"parameter setup must be one of {list(_SETUPS)}, got {setup!r}")
        self.setup = setup
        self.free_setup = setup == "free"
        # moves[player][cell] = (t0, t1, t2, by_occupancy): the cells the cube can move to, in
        # direction order, padded with the always-empty cell _OFF; by_occupancy[k] is the sorted
        # tuple of move ids when bit i of k says whether target i holds a cube (the capture
        # bit). Move generation is then three lookups and one index.
        moves: list[list[tuple[Any, ...]]] = [[], []]
        # move_table[action] = (source, target, target is the mover's goal).
        move_table: list[tuple[int, int, bool]] = [(-1, -1, False)] * NUM_MOVE_ACTIONS
        for player in (BLACK, WHITE):
            for cell in range(NUM_CELLS):
                r, c = divmod(cell, SIZE)
                steps: list[tuple[int, int]] = []  # (target, action id without capture)
                for d in range(3 * player, 3 * player + 3):
                    r2, c2 = r + _DIRECTIONS[d][0], c + _DIRECTIONS[d][1]
                    if 0 <= r2 < SIZE and 0 <= c2 < SIZE:
                        target = r2 * SIZE + c2
                        action = (cell * 6 + d) * 2
                        steps.append((target, action))
                        for a in (action, action + 1):
                            move_table[a] = (cell, target, target == _GOAL[player])
                by_occupancy = tuple(
                    tuple(a + (k >> i & 1) for i, (_, a) in enumerate(steps)) for k in range(8)
                )
                padded = [t for t, _ in steps] + [_OFF] * (3 - len(steps))
                moves[player].append((*padded, by_occupancy))
        self.moves = (tuple(moves[0]), tuple(moves[1]))
        self.move_table = tuple(move_table)
        # The same tables flat, for move generation and moves (`cube_moves`, `_move`): one
        # index into a vector of machine integers or a tuple of shared tuples each, where
        # compiled code unpacks a nested or mixed tuple item by item.
        # targets[3 * (NUM_CELLS * player + cell) + i] is the target i of `moves`,
        # by_occupancy[8 * (NUM_CELLS * player + cell) + k] its by_occupancy[k]; move_source,
        # move_target and move_wins split `move_table`.
        self.targets = vec[i64](t for side in moves for m in side for t in m[:3])
        self.by_occupancy: tuple[tuple[int, ...], ...] = tuple(
            ids for side in moves for m in side for ids in m[3]
        )
        self.move_source = vec[i64](m[0] for m in move_table)
        self.move_target = vec[i64](m[1] for m in move_table)
        self.move_wins = vec[bool](m[2] for m in move_table)
        # select[player][mask][face]: board indexes (_POS + code) of the cells of the cubes that
        # may move, sorted by number.
        self.select = tuple(
            tuple(
                ((), *(tuple(_POS + 6 * p + v for v in _selectable(m, f)) for f in range(1, 7)))
                for m in range(64)
            )
            for p in (BLACK, WHITE)
        )
        # selectable[7 * (64 * player + mask) + face]: select[player][mask][face], flat.
        self.selectable: tuple[tuple[int, ...], ...] = tuple(
            codes for side in self.select for by_face in side for codes in by_face
        )
        # mobility[mask][v]: on how many of the 6 faces cube v may move (0 if v is gone).
        self.mobility = tuple(
            tuple(
                sum(v in _selectable(m, f) for f in range(1, 7)) if v and m >> (v - 1) & 1 else 0
                for v in range(NUM_CUBES + 1)
            )
            for m in range(64)
        )
        # distance[player][cell]: king-move (Chebyshev) distance to the player's goal.
        self.distance = tuple(
            tuple(
                max(abs(cell // SIZE - _GOAL[p] // SIZE), abs(cell % SIZE - _GOAL[p] % SIZE))
                for cell in range(NUM_CELLS)
            )
            for p in (BLACK, WHITE)
        )
        # mobile[player][mask]: (board index of the cube's cell, mobility) of each cube on the
        # board that can move, by number: the terms of einstein_heuristic's pace.
        self.mobile = tuple(
            tuple(
                tuple((_POS + 6 * p + v, m) for v, m in enumerate(self.mobility[mask]) if m)
                for mask in range(64)
            )
            for p in (BLACK, WHITE)
        )
        # order_rank[action]: winning moves 0-1, then captures, then the rest (move ordering).
        self.order_rank = tuple(
            2 * (not move_table[a][2]) + (not a & 1) for a in range(NUM_MOVE_ACTIONS)
        )
        self.permutations = tuple(itertools.permutations(range(1, NUM_CUBES + 1)))
        self.setup_outcomes = tuple((a, 1.0 / len(self.permutations)) for a in range(720))
        self.roll_outcomes = tuple((x, 1.0 / 6) for x in range(6))

    def params(self) -> dict[str, str]:
        """The game parameters these rules were built from."""
        return {"setup": self.setup}

    def cube_moves(self, board: vec[i64], player: i64, cell: i64) -> tuple[int, ...]:
        """The sorted moves of `player`'s cube on `cell` (a shared tuple): its targets'
        occupancy, one bit each, picks them from `by_occupancy`."""
        # Machine integers and a vector of targets: compiled, no tagged arithmetic (a multiply
        # of ints is a function call) and no boxed item to check and unbox.
        at = NUM_CELLS * player + cell
        targets = self.targets
        t = 3 * at
        occupied: i64 = 0
        if board[targets[t]]:
            occupied = 1
        if board[targets[t + 1]]:
            occupied |= 2
        if board[targets[t + 2]]:
            occupied |= 4
        return self.by_occupancy[8 * at + occupied]

    def initial_core(self) -> EinsteinCore:
        """The empty board before setup."""
        return EinsteinCore(self)

    def position(
        self,
        black: dict[int, tuple[int, int]],
        white: dict[int, tuple[int, int]],
        to_move: int,
        die: int | None = None,
    ) -> EinsteinCore:
        """A play-stage state from cube placements {number: (row, col)}, as C++'s SetState.

        With `die` (1..6) it is `to_move`'s decision; without, the chance node before their roll.
        """
        core = EinsteinCore(self)
        core.stage = _PLAY
        masks = [0, 0]
        for player, cubes in ((BLACK, black), (WHITE, white)):
            for value, (r, c) in cubes.items():
                cell = r * SIZE + c
                if not (1 <= value <= NUM_CUBES and 0 <= r < SIZE and 0 <= c < SIZE):
                    raise ValueError(f"bad cube {value} at {(r, c)}")
                if core.board[cell]:
                    raise ValueError(f"two cubes at {(r, c)}")
                if cell == _GOAL[player]:
                    raise ValueError(f"cube {value} is on its goal {(r, c)}: the game is over")
                code = 6 * player + value
                core.board[cell] = code
                core.board[_POS + code] = cell
                masks[player] |= 1 << (value - 1)
        if not masks[0] or not masks[1]:
            raise ValueError("each player needs at least one cube")
        core.masks = (masks[0], masks[1])
        if to_move not in (BLACK, WHITE):
            raise ValueError(f"to_move must be 0 (Black) or 1 (White), got {to_move}")
        if die is None:
            core.player = 1 - to_move  # the previous mover
            core.cur = CHANCE
        else:
            if not 1 <= die <= 6:
                raise ValueError(f"die must be in 1..6, got {die}")
            core.player = to_move
            core.die = die
            core.cur = to_move
        return core

    def game_info(self) -> pyspiel.GameInfo:
        """OpenSpiel's size facts for these parameters."""
        free = self.free_setup
        return pyspiel.GameInfo(
            num_distinct_actions=NUM_MOVE_ACTIONS + (NUM_CUBES if free else 0),
            max_chance_outcomes=6 if free else len(self.permutations),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_MOVES + (2 * NUM_CUBES if free else 0),
        )

    # Observation: "cubes" equals the C++ game's 300-value tensor, including its order
    # [number - 1, player, col, row] (the C++ loop swaps row and column; harmless on a square
    # board, kept so tensors compare equal). The C++ tensor lacks the die and the mover, so
    # "die" (one-hot face, zero at chance nodes) and "to_move" (one-hot player who moves or
    # rolls next, zero at the end) follow.
    def observation_pieces(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and shapes of the observation tensor's pieces."""
        return [
            ("cubes", (NUM_CUBES, 2, SIZE, SIZE)),
            ("die", (6,)),
            ("to_move", (2,)),
        ]

    def fill_observation(
        self, core: EinsteinCore, player: int, views: dict[str, np.ndarray]
    ) -> None:
        """Writes the encoding of `core` into the zeroed `views`."""
        cubes = views["cubes"]
        for code in range(1, 13):
            cell = core.board[_POS + code]
            if cell >= 0:
                p, v = divmod(code - 1, 6)
                cubes[v, p, cell % SIZE, cell // SIZE] = 1.0
        if core.die:
            views["die"][core.die - 1] = 1.0
        mover = core.next_mover()
        if mover >= 0:
            views["to_move"][mover] = 1.0

    def observation_string(self, core: EinsteinCore, player: int) -> str:
        """The whole state as text: the board as in C++, then whose turn and the die."""
        return str(core)


@final
class EinsteinCore(Core):
    """Mutable EWN state implementing the search protocol (`Core`)."""

    __slots__ = ("board", "cur", "die", "masks", "owned", "player", "rules", "stage", "winner")
    BOOKKEEPING: ClassVar[tuple[str, ...]] = ("owned",)  # not state (see `fields_of`)

    def __init__(
        self,
        rules: EinsteinRules,
        board: vec[i64] | None = None,
        masks: tuple[int, int] = (0, 0),
        stage: int = _BLACK_SETUP,
        player: int = BLACK,
        die: int = 0,
        winner: int = -1,
        cur: int | None = None,
    ) -> None:
        self.rules = rules
        # board[cell] for cells 0..24: cube code, 0 empty, 1..6 Black's, 7..12 White's;
        # board[_OFF] stays 0; board[_POS + code]: the cell of cube `code`, -1 once removed.
        # One vector rather than two makes a copy cheaper; a vector of machine integers
        # (`librt.vecs`): compiled, each read and write is native, where a list item is a boxed
        # int to check and unbox. Copies share the vector, and it is never changed once
        # shared: a core writes only to a vector of its own (`own_board`), so a roll's child
        # and a clone copy nothing, and the moves of a random game after its first copy
        # nothing either. Pickled as a list (a vector does not pickle).
        self.board = vec[i64]([0] * (_POS + 1) + [-1] * 12) if board is None else board
        self.owned = False  # `board` is this core's alone (copied by it, never shared since)
        self.masks = masks  # cubes on the board per player, bit v-1 for cube v
        self.stage = stage
        self.player = player  # the last mover; the first roll goes to the other one (White)
        self.die = die  # the rolled face at decision nodes, 0 otherwise
        self.winner = winner
        # current_player(), kept up to date
        self.cur = (BLACK if rules.free_setup else CHANCE) if cur is None else cur

    def clone(self) -> EinsteinCore:
        """An independent copy sharing the rules (and the board, written only as a copy)."""
        self.owned = False  # the board is shared from now on
        return EinsteinCore(
            self.rules,
            self.board,
            self.masks,
            self.stage,
            self.player,
            self.die,
            self.winner,
            self.cur,
        )

    def own_board(self) -> vec[i64]:
        """The board, first copied unless this core alone holds it: the vector to write to."""
        if self.owned:
            return self.board
        board = self.board = self.board[:]
        self.owned = True
        return board

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["board"] = list(self.board)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__({**state, "board": vec[i64](state["board"])})
        self.owned = False  # (copied again before its first write, as any board)

    def mask(self, player: int) -> int:
        """The cubes of `player` on the board. (Indexing `masks` by a variable would make a
        compiled core box the pair into a new tuple first.)"""
        masks = self.masks
        return masks[1] if player else masks[0]

    def state_key(self) -> int:
        """A hash of the fields that define the state (`masks` follows from the board)."""
        return hash((tuple(self.board), self.stage, self.player, self.die, self.winner, self.cur))

    def current_player(self) -> int:
        """0 (Black) or 1 (White) to decide, CHANCE for setups and rolls, TERMINAL at the end."""
        return self.cur

    def is_terminal(self) -> bool:
        """True once someone has won."""
        return self.winner >= 0

    def next_mover(self) -> int:
        """The player who moves (or places) now or right after the pending chance node; -1 at
        the end and during random setup."""
        if self.winner >= 0:
            return -1
        if self.stage != _PLAY:
            return self.cur if self.cur >= 0 else -1
        return self.player if self.die else 1 - self.player

    def legal_actions(self) -> tuple[int, ...]:
        """Sorted legal actions of the player to move (a shared tuple); empty at chance and
        terminal nodes."""
        p: i64 = self.cur
        if p < 0:
            return ()
        board = self.board
        if self.stage != _PLAY:  # free setup: the free home cells
            return tuple(PLACE_BASE + i for i, cell in enumerate(_HOME[p]) if not board[cell])
        rules = self.rules
        mask: i64 = self.mask(p)
        die: i64 = self.die
        codes = rules.selectable[7 * (64 * p + mask) + die]
        cell = board[codes[0]]
        if len(codes) == 2:
            other = board[codes[1]]
            if other < cell:  # ids grow with the source cell
                cell, other = other, cell
            return rules.cube_moves(board, p, cell) + rules.cube_moves(board, p, other)
        return rules.cube_moves(board, p, cell)

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """(outcome, probability) pairs; shared, do not mutate."""
        if self.stage == _PLAY:
            return self.rules.roll_outcomes
        return self.rules.setup_outcomes

    def apply(self, action: int) -> None:
        """Applies a move, placement or chance outcome in place. Assumes it is legal."""
        p = self.cur
        if p == CHANCE:
            if self.stage == _PLAY:
                self.die = action + 1
                self.player = p = 1 - self.player
                self.cur = p
            else:
                self._place_all(self.stage, self.rules.permutations[action])
                self.stage += 1
            return
        if action >= PLACE_BASE:
            self._place_one(p, action - PLACE_BASE)
            return
        self._move(p, action)

    def _move(self, p: int, action: int) -> None:
        """Player `p` makes the move `action`: the cube steps, captures, maybe wins."""
        board = self.own_board()
        rules = self.rules
        src = rules.move_source[action]
        dst = rules.move_target[action]
        wins = rules.move_wins[action]
        code = board[src]
        victim = board[dst]
        if victim:
            board[_POS + victim] = -1
            m0, m1 = self.masks
            if victim <= 6:
                m0 &= ~(1 << (victim - 1))
            else:
                m1 &= ~(1 << (victim - 7))
            self.masks = (m0, m1)
            if not (m1 if p == BLACK else m0):  # the opponent's last cube is gone
                wins = True
        board[dst] = code
        board[src] = 0
        board[_POS + code] = dst
        self.die = 0
        if wins:
            self.winner = p
            self.cur = TERMINAL
        else:
            self.cur = CHANCE

    def _place_all(self, player: int, numbers: tuple[int, ...]) -> None:
        """Random setup: cube numbers[i] on the player's i-th home cell."""
        board = self.own_board()
        for cell, value in zip(_HOME[player], numbers, strict=True):
            code = 6 * player + value
            board[cell] = code
            board[_POS + code] = cell
        m0, m1 = self.masks
        self.masks = (63, m1) if player == BLACK else (m0, 63)

    def _place_one(self, player: int, slot: int) -> None:
        """Free setup: the player's next cube (lowest unplaced number) on home cell `slot`."""
        mask = self.mask(player)
        value = bin(mask).count("1") + 1
        code = 6 * player + value
        cell = _HOME[player][slot]
        board = self.own_board()
        board[cell] = code
        board[_POS + code] = cell
        mask |= 1 << (value - 1)
        m0, m1 = self.masks
        self.masks = (mask, m1) if player == BLACK else (m0, mask)
        if mask == 63:
            self.stage += 1
            self.cur = WHITE if player == BLACK else CHANCE

    def returns(self) -> tuple[float, ...]:
        """(+1, -1) if Black won, (-1, +1) if White won, (0, 0) before the end."""
        if self.winner == BLACK:
            return _BLACK_WINS
        if self.winner == WHITE:
            return _WHITE_WINS
        return _NO_WINNER

    def action_to_string(self, player: int, action: int) -> str:
        """The C++ game's strings ("W2-left", "B6-diag*", "roll 3", "Placing black cubes on
        the board - action 120"), and "place B3 (1,1)" for free setup."""
        if player == CHANCE:
            if self.stage == _PLAY:
                return f"roll {action + 1}"
            color = "black" if self.stage == _BLACK_SETUP else "white"
            return f"Placing {color} cubes on the board - action {action}"
        if action >= PLACE_BASE:
            p = player if player in (BLACK, WHITE) else self.cur
            value = bin(self.mask(p)).count("1") + 1
            return f"place {_COLOR[p]}{value} {cell_name(_HOME[p][action - PLACE_BASE])}"
        direction = (action >> 1) % 6
        mover = direction // 3  # the direction tells the colour
        code = self.board[self.rules.move_table[action][0]]
        # The number comes from the board; "?" if the action's source holds no cube of that
        # colour (C++ prints garbage there; it only happens for illegal actions).
        number = str((code - 1) % 6 + 1) if code and (code - 1) // 6 == mover else "?"
        capture = "*" if action & 1 else ""
        return f"{_COLOR[mover]}{number}-{_DIRECTION_NAMES[direction]}{capture}"

    def board_string(self) -> str:
        """The board exactly as the C++ game's ToString(): rows of '|b2||__||w5|...'."""
        rows = []
        for r in range(SIZE):
            cells = []
            for code in self.board[r * SIZE : (r + 1) * SIZE]:
                if code:
                    cells.append(f"|{'bw'[(code - 1) // 6]}{(code - 1) % 6 + 1}|")
                else:
                    cells.append("|__|")
            rows.append("".join(cells) + "\n")
        return "".join(rows)

    def status(self) -> str:
        """Whose turn it is and the die, or the winner: the part the board does not show."""
        names = ("Black", "White")
        if self.winner >= 0:
            return f"{names[self.winner]} wins"
        if self.stage != _PLAY:
            if self.cur == CHANCE:
                return f"Chance: {names[self.stage]}'s setup"
            value = bin(self.mask(self.cur)).count("1") + 1
            return f"{names[self.cur]} to place cube {value}"
        if self.die:
            return f"{names[self.player]} to move, die {self.die}"
        return f"Chance: roll for {names[1 - self.player]}"

    def __str__(self) -> str:
        return f"{self.board_string()}{self.status()}\n"


# The side to move next is this much faster: exp(0.125), the tempo term of the logistic fit
# described in einstein_heuristic's docstring.
_TEMPO: Final = 1.13


def einstein_heuristic(core: EinsteinCore, player: int) -> float:
    """Evaluation for `player` in [-1, 1]: exact (+1/-1) at the end, 0 during setup.

    Each side's pace is R = sum over its cubes of mobility / distance, where mobility is the
    number of die faces that let the cube move (docs/games/einstein.md) and distance the king-move
    distance to the goal; mobility / 6 is the chance the cube moves this turn, so a term is
    roughly the rate at which that cube closes in on a win. (The Schwarz score keeps only the
    best cube; summing over cubes predicted outcomes better in our self-play data.) The side
    that moves next gets R * 1.13. The value is (R_me^2 - R_opp^2) / (R_me^2 + R_opp^2), which
    is tanh(log(R_me / R_opp)): a logistic fit of outcomes on log(R_me / R_opp), over 50 000
    chance-node positions of greedy and noisy-greedy self-play, gave a slope of 2.0 on the win
    probability's logit and the 1.13 tempo factor. So the value is calibrated as an expected
    return; tests/test_einstein.py checks that it predicts self-play results.
    """
    winner = core.winner
    if winner >= 0:
        return 1.0 if winner == player else -1.0
    if core.stage != _PLAY:
        return 0.0
    m0, m1 = core.masks
    rules = core.rules
    board = core.board
    # Each side's terms in order of cube number, as a loop over numbers 1..6 with mobility > 0
    # adds them (the same floats).
    distance = rules.distance[BLACK]
    black = 0.0
    for index, m in rules.mobile[BLACK][m0]:
        black += m / distance[board[index]]
    distance = rules.distance[WHITE]
    white = 0.0
    for index, m in rules.mobile[WHITE][m1]:
        white += m / distance[board[index]]
    if (core.player if core.die else 1 - core.player) == BLACK:
        black *= _TEMPO
    else:
        white *= _TEMPO
    if player == BLACK:
        mine, theirs = black * black, white * white
    else:
        mine, theirs = white * white, black * black
    return (mine - theirs) / (mine + theirs)


def einstein_move_ordering(core: EinsteinCore, actions: Sequence[int]) -> Sequence[int]:
    """Winning moves first, then captures, then the rest (for pruning searches)."""
    if not actions or actions[0] >= NUM_MOVE_ACTIONS:
        return actions  # free-setup placements: no order is better than another
    # Sorting by rank is stable, as by the pair (not winning, not capture) it stands for.
    return sorted(actions, key=core.rules.order_rank.__getitem__)


EINSTEIN_FEATURES: Final[tuple[str, ...]] = (
    "playing",
    "my_move_next",
    "die_known",
    "my_cubes",
    "their_cubes",
    "my_pace",
    "their_pace",
    "my_nearest",
    "their_nearest",
    "my_at_1",
    "their_at_1",
    "my_at_2",
    "their_at_2",
    "my_selected_nearest",
    "their_selected_nearest",
    "heuristic",
    *(f"my_face_{face}" for face in range(1, 7)),
    *(f"their_face_{face}" for face in range(1, 7)),
)


def _side_features(core: EinsteinCore, side: int) -> tuple[float, float, float, float, float]:
    """(cubes, pace, nearest distance, cubes one step from the goal, two steps) of `side`."""
    rules = core.rules
    board = core.board
    distance = rules.distance[side]
    pace = 0.0
    nearest = SIZE
    at_1 = at_2 = 0
    mobile = rules.mobile[side][core.mask(side)]
    for index, m in mobile:
        d = distance[board[index]]
        pace += m / d
        if d < nearest:
            nearest = d
        if d == 1:
            at_1 += 1
        elif d == 2:
            at_2 += 1
    return len(mobile) / NUM_CUBES, pace, nearest / (SIZE - 1), float(at_1), float(at_2)


def _face_features(core: EinsteinCore, side: int, out: list[float]) -> None:
    """For each die face, how near its goal the nearest cube of `side` that the face selects
    stands (1 at the goal's neighbour, 0 if none): what each roll would give the side."""
    rules = core.rules
    board = core.board
    distance = rules.distance[side]
    select = rules.select[side][core.mask(side)]
    for face in range(1, 7):
        nearest = SIZE
        for index in select[face]:
            d = distance[board[index]]
            if d < nearest:
                nearest = d
        out.append((SIZE - nearest) / (SIZE - 1))


def einstein_features(core: EinsteinCore, player: int) -> list[float]:
    """The position as `player` sees it, for a learned value (EINSTEIN_FEATURES names them):
    each side's cubes, pace (einstein_heuristic's sum of mobility / distance), nearest
    distance to its goal and cubes one and two steps away; whose move comes next; once the die
    is known, how near the goal the nearest cube it selects stands (what the die gave); the
    heuristic; and what each face would give each side. Zeros during setup."""
    if core.stage != _PLAY or core.winner >= 0:
        return [0.0] * len(EINSTEIN_FEATURES)
    mine = _side_features(core, player)
    theirs = _side_features(core, 1 - player)
    mover = core.next_mover()
    selected = 0.0
    if core.die:
        distance = core.rules.distance[mover]
        board = core.board
        nearest = SIZE
        for index in core.rules.select[mover][core.mask(mover)][core.die]:
            d = distance[board[index]]
            if d < nearest:
                nearest = d
        selected = nearest / (SIZE - 1)
    features = [
        1.0,
        1.0 if mover == player else 0.0,
        1.0 if core.die else 0.0,
        mine[0],
        theirs[0],
        mine[1],
        theirs[1],
        mine[2],
        theirs[2],
        mine[3],
        theirs[3],
        mine[4],
        theirs[4],
        selected if mover == player else 0.0,
        0.0 if mover == player else selected,
        einstein_heuristic(core, player),
    ]
    _face_features(core, player, features)
    _face_features(core, 1 - player, features)
    return features
