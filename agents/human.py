"""A human seat: a person picks each move from a numbered menu, for `chancespiel play` and
OpenSpiel's own evaluators (`evaluate_bots`).

    chancespiel play python_cant_stop human star2ss

The bot prints the position and the legal moves, numbered from 0 in legal-action order, and
reads a line from standard input: a menu number, or a move's name as the game prints it
(numbers are read as menu numbers first). A line that is neither is refused and asked again.
The end of input raises `InputEndedError`, which `chancespiel play` reports as an abandoned game.
"""

from __future__ import annotations

import sys

import pyspiel

from chancespiel.agents.registry import register_agent

HUMAN = "human"


MAX_LINE = 1000  # characters of one answer; a longer line is not a person typing a move
MAX_TRIES = 100  # answers in a row that are not moves before the seat is abandoned


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
            for action, name in zip(actions, names, strict=True):
                if text and text.casefold() == name.strip().casefold():
                    return action
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
