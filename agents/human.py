"""A human seat: a person picks each move from a numbered menu, for `chancespiel play` and
OpenSpiel's own evaluators (`evaluate_bots`).

    chancespiel play python_cant_stop human star2ss

The bot prints the position and the legal moves, numbered from 0 in legal-action order, and
reads a line from standard input: a menu number, or a move's name as the game prints it
(numbers are read as menu numbers first; names as `action_named` reads them). A line that is
neither is refused and asked again. The end of input raises `InputEndedError`, which
`chancespiel play` reports as an abandoned game.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable

import pyspiel

from chancespiel.agents.registry import register_agent

HUMAN = "human"


MAX_LINE = 1000  # characters of one answer; a longer line is not a person typing a move
MAX_TRIES = 100  # answers in a row that are not moves before the seat is abandoned


# A roll's name: "Roll" and the dice, joined by one separator ("Roll 3+4", "Roll 1-4-5-6").
_ROLL = re.compile(r"(roll) (\d+)((?: ?([-+]) ?\d+)+)")


def _normal(name: str) -> str:
    return " ".join(name.split()).casefold()


def _dice_key(name: str) -> tuple[str, str, tuple[int, ...]] | None:
    """A roll's name without the order of its dice (None for a name that is no roll)."""
    found = _ROLL.fullmatch(name)
    if found is None:
        return None
    separator = found.group(4)
    rest = found.group(3).replace(" ", "").split(separator)[1:]
    if any(not part.isdigit() for part in rest):  # two separators mixed: no roll
        return None
    return found.group(1), separator, tuple(sorted(int(d) for d in [found.group(2), *rest]))


def action_named(named: Iterable[tuple[int, str]], text: str) -> int | None:
    """The action whose printed name is `text` (case and spaces aside), or None.

    A roll may give its dice in any order ("Roll 4+3" for "Roll 3+4") where that names one
    outcome only: a name printed exactly as given wins (ordered dice print both orders), and
    a text that fits two outcomes in some order names neither.
    """
    wanted = _normal(text)
    names = [(action, _normal(name)) for action, name in named]
    exact = [action for action, name in names if name == wanted]
    if exact:
        return exact[0] if len(exact) == 1 else None
    key = _dice_key(wanted)
    if key is None:
        return None
    reordered = [action for action, name in names if _dice_key(name) == key]
    return reordered[0] if len(reordered) == 1 else None


class InputEndedError(EOFError):
    """Standard input ended before the human chose a move."""


class HumanBot(pyspiel.Bot):
    """Asks a person on stdin/stdout for each move."""

    def __init__(self, game: pyspiel.Game, player: int):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player

    def step(self, state: pyspiel.State) -> int:
        """The move the person picks in `state`, which must be this seat's turn."""
        if state.current_player() != self.player:
            raise ValueError(
                f"human plays player {self.player} but it is player {state.current_player()}'s turn"
            )
        actions = state.legal_actions()
        names = [state.action_to_string(self.player, a) for a in actions]
        print(str(state).rstrip())
        print(f"Player {self.player}, your move:")
        for number, name in enumerate(names):
            print(f"  {number:>3}: {name}")
        for _ in range(MAX_TRIES):
            print(f"move (0-{len(actions) - 1} or a name): ", end="", flush=True)
            line = sys.stdin.readline(MAX_LINE + 1)  # bounded: stdin may be /dev/zero
            if not line:
                print()
                raise InputEndedError("input ended before a move was chosen")
            if len(line) > MAX_LINE:
                print()
                raise InputEndedError(f"a line of more than {MAX_LINE} characters is no move")
            text = line.strip()
            if text.isdigit() and int(text) < len(actions):
                return actions[int(text)]
            named = action_named(zip(actions, names, strict=True), text) if text else None
            if named is not None:
                return named
            print(f"  {text!r} is not a legal move here; type its number or its name")
        raise InputEndedError(f"{MAX_TRIES} answers in a row were not moves (is stdin a person?)")

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """The chosen move as a deterministic policy, and the move."""
        action = self.step(state)
        return [(action, 1.0)], action

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """The person sees the position at their next move."""


@register_agent(HUMAN, "a person at the keyboard: a numbered menu of legal moves on stdin", {})
def _make_human(game: pyspiel.Game, player: int, seed: int | None) -> HumanBot:
    del seed  # a person needs no seed
    return HumanBot(game, player)
