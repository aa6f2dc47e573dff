"""What every game the agents play keeps to, checked where the game enters: the match player
checks every played move of every game (ours, OpenSpiel's, a plugin's), and the searches check
every node of a game whose code is not ours (agents.protocol.PyspielAdapter); our compiled
cores, tested against oracles, are searched unchecked.

The contract, from the game's own declarations (its GameInfo):
- the current player is a player of the game, chance or terminal, and says so consistently
  (`current_player()` is terminal exactly when `is_terminal()`);
- a decision node has at least one legal action, each listed once;
- a chance node lists each outcome once, with a probability that is finite and positive, and
  the probabilities sum to 1 (within TOLERANCE);
- returns are finite, one per player, within [min_utility, max_utility], and sum to the
  utility sum of a zero- or constant-sum game;
- a game has at most `max_game_length` decision moves and `max_chance_nodes_in_history`
  chance moves (OpenSpiel's bounds), and those bounds are at most MAX_GAME_LENGTH.

A violation is a `GameContractError`: one line naming the game, the problem and the state
(its history of action ids, which `chancespiel analyse --history` takes back). Nothing is
recorded for a game that breaks its contract: its result would mean nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

from chancespiel.games.core import CHANCE, TERMINAL

TOLERANCE = 1e-9  # on probability sums and utility bounds: rounding, not a fault
MAX_GAME_LENGTH = 1_000_000  # moves of either kind; OpenSpiel's longest game (chess) has 17,695
_STATE_CHARS = 160  # how much of a state's text a message quotes


class GameContractError(Exception):
    """A game broke its contract (module docstring): its own fault, not an agent's. Not a
    ValueError, which agents raise for their own problems."""


def _one_line(text: str, limit: int = _STATE_CHARS) -> str:
    flat = " / ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def where(state: Any) -> str:
    """The state named in one line: its history of action ids (a pyspiel state's) and the
    start of its text."""
    try:
        text = _one_line(str(state))
        if not isinstance(state, pyspiel.State):
            return f"at state: {text}"
        history = " ".join(map(str, state.history()))
    except Exception as e:  # a state too broken to print is named by that
        return f"in a state that cannot be shown ({type(e).__name__})"
    return f"after history [{history}] (state: {text})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Contract:
    """One game's contract, read from its declarations (`Contract.of`)."""

    game: str
    players: int
    min_utility: float
    max_utility: float
    utility_sum: float | None  # None: the game does not promise one
    max_decisions: int
    max_chances: int | None  # None: OpenSpiel cannot say (a game without explicit chance)

    @classmethod
    def of(cls, game: pyspiel.Game) -> Contract:
        """The contract `game` declares.

        Raises:
          GameContractError: if the declarations themselves are unusable (utilities that are
            not finite or not ordered, no players, a length bound outside [1, MAX_GAME_LENGTH]).
        """
        name = str(game)
        try:
            players = game.num_players()
            low, high = float(game.min_utility()), float(game.max_utility())
            length = game.max_game_length()
            kind = game.get_type()
        except Exception as e:
            raise GameContractError(
                f"game {name} does not declare its sizes: {type(e).__name__}: {_one_line(str(e))}"
            ) from None
        problem = None
        if not _is_int(players) or players < 1:
            problem = f"it declares {players!r} players"
        elif not (math.isfinite(low) and math.isfinite(high) and low <= high):
            problem = f"its utilities [{low}, {high}] are not a finite interval"
        elif not _is_int(length) or not 1 <= length <= MAX_GAME_LENGTH:
            problem = f"max_game_length {length!r} is not in [1, {MAX_GAME_LENGTH}]"
        if problem is not None:
            raise GameContractError(f"game {name} cannot be played: {problem}")
        total = None
        if kind.utility in (
            pyspiel.GameType.Utility.ZERO_SUM,
            pyspiel.GameType.Utility.CONSTANT_SUM,
        ):
            total = float(game.utility_sum())
        chances: int | None = None
        if kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC:
            chances = 0
        else:
            try:
                chances = int(game.max_chance_nodes_in_history())
            except Exception:  # a C++ game that does not implement it
                chances = None
            if chances is not None and not 0 <= chances <= MAX_GAME_LENGTH:
                raise GameContractError(
                    f"game {name} cannot be played: max_chance_nodes_in_history {chances} is "
                    f"not in [0, {MAX_GAME_LENGTH}]"
                )
        return cls(name, players, low, high, total, length, chances)

    def fault(self, problem: str, state: Any) -> GameContractError:
        """The error for `problem` in `state`."""
        return GameContractError(f"game {self.game} breaks its contract: {problem} {where(state)}")

    def raised(self, error: Exception, method: str, state: Any) -> Exception:
        """What to raise for `error`, raised by the game's `method`: a GameContractError
        naming it, unless it is one of chancespiel's own (an alarm that ends a move, a
        contract error already), which is raised as it is."""
        if type(error).__module__.startswith("chancespiel."):
            return error
        return self.fault(
            f"{method} raised {type(error).__name__}: {_one_line(str(error), 120)}", state
        )

    def player(self, player: Any, terminal: bool, state: Any) -> int:
        """`player` (what `current_player()` said) checked, and against `is_terminal()`."""
        if not _is_int(player) or not (0 <= player < self.players or player in (CHANCE, TERMINAL)):
            raise self.fault(
                f"current player {player!r} is no player of {self.players}, chance or terminal",
                state,
            )
        if terminal != (player == TERMINAL):
            said = "terminal" if terminal else "not terminal"
            raise self.fault(f"is_terminal() says {said} but current player is {player}", state)
        return int(player)

    def actions(self, actions: Sequence[Any], state: Any, distinct: bool = True) -> None:
        """Checks the legal actions of a decision node: at least one (each listed once)."""
        if not actions:
            raise self.fault("a decision node has no legal action", state)
        if distinct and len(set(actions)) != len(actions):
            raise self.fault(f"legal actions {_one_line(str(list(actions)))} repeat one", state)

    def outcomes(self, outcomes: Sequence[Any], state: Any) -> None:
        """Checks a chance node's (outcome, probability) pairs."""
        if not outcomes:
            raise self.fault("a chance node has no outcome", state)
        total = 0.0
        seen: set[Any] = set()
        for item in outcomes:
            try:
                outcome, prob = item
                prob = float(prob)
            except (TypeError, ValueError):
                raise self.fault(
                    f"chance outcome {item!r} is not (outcome, probability)", state
                ) from None
            if not (math.isfinite(prob) and prob > 0.0):
                raise self.fault(
                    f"chance outcome {outcome} has probability {prob!r} (must be finite and "
                    "positive)",
                    state,
                )
            if outcome in seen:
                raise self.fault(f"chance outcome {outcome} is listed twice", state)
            seen.add(outcome)
            total += prob
        if abs(total - 1.0) > TOLERANCE:
            raise self.fault(f"chance probabilities sum to {total!r}, not 1", state)

    def returns(self, returns: Sequence[Any], state: Any) -> list[float]:
        """Checks a state's returns (finite, within the utilities, summing to the utility sum
        at a terminal state of a zero- or constant-sum game); returns them as floats."""
        try:
            values = [float(value) for value in returns]
        except (TypeError, ValueError):
            raise self.fault(f"returns {_one_line(repr(returns))} are not numbers", state) from None
        if len(values) != self.players:
            raise self.fault(f"returns {values} are not one per player ({self.players})", state)
        for value in values:
            if not self.min_utility - TOLERANCE <= value <= self.max_utility + TOLERANCE:
                raise self.fault(
                    f"returns {values} are not finite values in the game's utilities "
                    f"[{self.min_utility:g}, {self.max_utility:g}]",
                    state,
                )
        return values

    def final_returns(self, returns: Sequence[Any], state: Any) -> list[float]:
        """`returns` of a terminal state: checked, and summing to the promised utility sum."""
        values = self.returns(returns, state)
        if self.utility_sum is not None and abs(math.fsum(values) - self.utility_sum) > 1e-6:
            raise self.fault(
                f"returns {values} do not sum to the game's utility sum {self.utility_sum:g}",
                state,
            )
        return values

    def length(self, decisions: int, chances: int, state: Any) -> None:
        """Checks the moves made so far against the game's length bounds."""
        if decisions > self.max_decisions:
            raise self.fault(
                f"more than max_game_length = {self.max_decisions} decision moves", state
            )
        if self.max_chances is not None and chances > self.max_chances:
            raise self.fault(
                f"more than max_chance_nodes_in_history = {self.max_chances} chance moves",
                state,
            )


def moves_made(state: pyspiel.State) -> tuple[int, int]:
    """The decision moves and chance moves in `state`'s history."""
    chances = sum(1 for item in state.full_history() if item.player == CHANCE)
    return len(state.history()) - chances, chances


class Referee:
    """Checks one game as it is played, move by move (evaluation.play): every state the game
    reaches, every chance distribution sampled, the length, and the returns. An exception
    raised by the game's own methods is its fault too."""

    def __init__(self, game: pyspiel.Game, state: pyspiel.State):
        self.contract = Contract.of(game)
        self.state = state
        self.decisions, self.chances = self._call(moves_made, state)
        self.legal: list[int] = []

    def _call(self, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except Exception as e:
            name = getattr(method, "__name__", "a method")
            raise self.contract.raised(e, name, self.state) from None

    def player(self) -> int:
        """The current player, checked (and the legal actions, at a decision node)."""
        state = self.state
        player = self._call(state.current_player)
        player = self.contract.player(player, self._call(state.is_terminal), state)
        if player >= 0:
            self.legal = self._call(state.legal_actions)
            self.contract.actions(self.legal, state)
        return player

    def outcomes(self) -> list[tuple[int, float]]:
        """The chance node's outcomes, checked."""
        outcomes = self._call(self.state.chance_outcomes)
        self.contract.outcomes(outcomes, self.state)
        return outcomes

    def apply(self, player: int, action: int) -> None:
        """Applies a chance outcome or a legal action, and counts it against the bounds."""
        self._call(self.state.apply_action, action)
        if player == CHANCE:
            self.chances += 1
        else:
            self.decisions += 1
        self.contract.length(self.decisions, self.chances, self.state)

    def returns(self) -> list[float]:
        """The returns of the terminal state, checked."""
        return self.contract.final_returns(self._call(self.state.returns), self.state)


class CheckedGame(pyspiel.Game):
    """A game seen through its contract, for searches that take pyspiel states rather than our
    search protocol (OpenSpiel's own MCTS bots): its states forward every call to the game's
    and check what it answers, as the match's referee and our adapter do."""

    def __init__(self, inner: pyspiel.Game):
        self.inner = inner
        self.contract = Contract.of(inner)
        info = pyspiel.GameInfo(
            num_distinct_actions=inner.num_distinct_actions(),
            max_chance_outcomes=inner.max_chance_outcomes(),
            num_players=inner.num_players(),
            min_utility=inner.min_utility(),
            max_utility=inner.max_utility(),
            utility_sum=self.contract.utility_sum or 0.0,
            max_game_length=inner.max_game_length(),
        )
        super().__init__(inner.get_type(), info, inner.get_parameters())

    def new_initial_state(self) -> CheckedState:
        """The checked initial state."""
        return self.checked(self.inner.new_initial_state())

    def checked(self, state: pyspiel.State) -> CheckedState:
        """A checked copy of `state`, a state of the inner game."""
        return CheckedState(self, state.clone(), moves_made(state))


class CheckedState(pyspiel.State):
    """A state of a CheckedGame: the inner game's state, checked at every call."""

    def __init__(self, game: CheckedGame, inner: pyspiel.State, moves: tuple[int, int]):
        super().__init__(game)
        self.inner = inner
        self.contract = game.contract
        self.decisions, self.chances = moves

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self.inner, name)(*args)
        except Exception as e:
            raise self.contract.raised(e, name, self.inner) from None

    def current_player(self) -> int:
        """The inner state's, checked."""
        player = self._call("current_player")
        if not (0 <= player < self.contract.players or player in (CHANCE, TERMINAL)):
            self.contract.player(player, player == TERMINAL, self.inner)  # raises
        return int(player)

    def _legal_actions(self, player: int) -> list[int]:
        actions = self._call("legal_actions", player)
        if not actions and player >= 0 and player == self.current_player():
            self.contract.actions(actions, self.inner, distinct=False)  # raises
        return list(actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The inner state's, checked."""
        outcomes = self._call("chance_outcomes")
        self.contract.outcomes(outcomes, self.inner)
        return list(outcomes)

    def _apply_action(self, action: int) -> None:
        if self.current_player() == CHANCE:
            self.chances += 1
        else:
            self.decisions += 1
        self.contract.length(self.decisions, self.chances, self.inner)
        self._call("apply_action", action)

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self._call("action_to_string", player, action))

    def is_terminal(self) -> bool:
        """True at the end of the game (as the checked current player says)."""
        return self.current_player() == TERMINAL

    def returns(self) -> list[float]:
        """The inner state's, checked."""
        values = self._call("returns")
        if self.current_player() == TERMINAL:
            return self.contract.final_returns(values, self.inner)
        return self.contract.returns(values, self.inner)

    def __str__(self) -> str:
        return str(self.inner)


def is_plugin_game(game: pyspiel.Game) -> bool:
    """True for a Python game that is neither ours nor OpenSpiel's (a plugin's)."""
    return not type(game).__module__.startswith(("pyspiel", "chancespiel."))
