"""Playing games between bots, with chance outcomes from a seeded stream.

The i-th chance node of a game uses the i-th uniform number of `random.Random(seed)`, so the
two games of a seat-swapped match with one seed share their dice as far as they go alike
(common random numbers, docs/evaluation.md). Bots get their own seeds, derived from the match
seed by `bot_seed`, so that no bot's random choices are correlated with the dice.
"""

from __future__ import annotations

import hashlib
import random
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import pyspiel

from chancespiel.agents import make_bot
from chancespiel.agents.bot import PolicyBot
from chancespiel.agents.result import SearchResult
from chancespiel.agents.search_common import CLOCKS
from chancespiel.games.contract import GameContractError, Referee
from chancespiel.games.core import CHANCE
from chancespiel.plugins import located, print_traceback

TERMINAL = int(pyspiel.PlayerId.TERMINAL)

MoveObserver = Callable[[pyspiel.State, int, int], None]
"""observer(state_before, player, action), called before every move (chance included)."""


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The outcome whose cumulative probability interval contains `u` in [0, 1)."""
    total = 0.0
    for outcome, prob in outcomes:
        total += prob
        if u < total:
            return outcome
    return outcomes[-1][0]  # u within rounding error of 1


def bot_seed(match_seed: int, side: str) -> int:
    """The seed of side 'a' or 'b' of the match with `match_seed` (63 bits, any process).

    A hash, not `match_seed + 1`: the dice use `random.Random(match_seed)`, and a bot seeded
    with the same number would draw from the very same stream as the dice.
    """
    digest = hashlib.sha256(f"chancespiel-bot:{match_seed}:{side}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class MoveWatch(Protocol):
    """Told when each bot move starts and ends, so that another process can stop a move that
    the in-process alarm cannot (parallel.LocalPool kills the worker)."""

    def started(self, player: int) -> None:
        """The bot of `player` starts a move."""

    def ended(self) -> None:
        """The move has ended (returned or raised)."""


class MoveTimeoutError(Exception):
    """A bot's move took longer than the hard limit of `play_game(move_timeout_s=...)`."""


class IllegalActionError(Exception):
    """A bot chose an action that is not legal (never applied: not every game checks)."""


@dataclass
class BotFailure:
    """Why a game stopped early: the bot of `player` raised or ran out of its hard limit."""

    player: int
    kind: str  # the exception's class name, e.g. 'ValueError' or 'MoveTimeoutError'
    message: str


@dataclass
class GameRecord:
    """The result of one game.

    `move_seconds`, `move_players`, `move_nodes`, `move_evaluations` and `move_depths` have one
    entry per decision move. A move's seconds are measured by its player's entry of `clocks`
    (`move_clock`: the clock of the bot's time budget), so that a move is judged against its
    budget on the clock that budget is spent by; nodes, heuristic evaluations and the depth
    reached are None for a move whose bot does not report them (`PolicyBot.last_result.nodes`,
    `.evaluations`, `.depth`). After a `failure` the game is a forfeit: `returns` are -1 for
    the failing player, +1 for the other.
    """

    returns: list[float]
    moves: int  # decision moves
    history: list[int]
    move_seconds: list[float] = field(default_factory=list)
    move_players: list[int] = field(default_factory=list)
    move_nodes: list[int | None] = field(default_factory=list)
    move_evaluations: list[int | None] = field(default_factory=list)
    move_depths: list[int | None] = field(default_factory=list)
    clocks: list[str] = field(default_factory=list)  # per player, a name of CLOCKS
    failure: BotFailure | None = None


def _watched_step(
    bot: pyspiel.Bot,
    state: pyspiel.State,
    timeout_s: float | None,
    player: int,
    watch: MoveWatch | None,
) -> int:
    """_timed_step, with the move's start and end told to `watch`."""
    if watch is None:
        return _timed_step(bot, state, timeout_s)
    watch.started(player)
    try:
        return _timed_step(bot, state, timeout_s)
    finally:
        watch.ended()


def _timed_step(bot: pyspiel.Bot, state: pyspiel.State, timeout_s: float | None) -> int:
    """bot.step(state), interrupted by MoveTimeoutError after `timeout_s` (SIGALRM, main thread)."""
    if (
        timeout_s is None
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return bot.step(state)

    def expire(signum: int, frame: object) -> None:
        raise MoveTimeoutError(f"the move took longer than the hard limit of {timeout_s:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        return bot.step(state)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def forfeit_returns(seat: int, players: int = 2) -> list[float]:
    """The returns of a game forfeited by `seat`: -1 for it, +1 for every other player."""
    returns = [1.0] * players
    returns[seat] = -1.0
    return returns


def _restart(bot: pyspiel.Bot, state: pyspiel.State) -> None:
    """bot.restart_at(state), or bot.restart() for a bot that does not implement it (a plain
    pyspiel.Bot subclass, as an OpenSpiel user writes one: OpenSpiel's raises)."""
    if type(bot).restart_at is pyspiel.Bot.restart_at:
        bot.restart()
    else:
        bot.restart_at(state)


def move_clock(bot: pyspiel.Bot) -> str:
    """The clock (a name of CLOCKS) a bot's moves are timed by: that of its time budget, so a
    search on CPU time is judged on CPU time (under load the wall clock also counts the time
    other processes held the core); the wall clock for a bot that keeps no budget."""
    if isinstance(bot, PolicyBot) and bot.limits is not None:
        return bot.limits.clock
    return "wall"


def last_result(bot: pyspiel.Bot) -> SearchResult | None:
    """What the bot's last search found: chancespiel's bots keep it (None after a move played
    without search); other pyspiel bots report nothing."""
    return bot.last_result if isinstance(bot, PolicyBot) else None


def play_game(
    game: pyspiel.Game,
    bots: Sequence[pyspiel.Bot],
    seed: int,
    observer: MoveObserver | None = None,
    *,
    catch_errors: bool = False,
    move_timeout_s: float | None = None,
    watch: MoveWatch | None = None,
    clocks: Sequence[str] | None = None,
) -> GameRecord:
    """Plays one game; chance outcomes come from `random.Random(seed)`.

    Args:
      game: the game.
      bots: one bot per player, in seat order.
      seed: seed of the chance outcomes.
      observer: called before every move.
      catch_errors: if True, an exception raised by a bot, or an illegal action, ends the game
        as a forfeit of that bot's player (see GameRecord.failure) instead of propagating. A
        game that breaks its contract (games.contract) raises GameContractError either way.
      move_timeout_s: hard limit on one move; a bot that exceeds it raises MoveTimeoutError
        (enforced with SIGALRM in the main thread of a POSIX process, ignored elsewhere). The
        alarm cannot stop a bot stuck in native code; only a process watching from outside
        (see `watch`) can.
      watch: told when each bot move starts and ends.
      clocks: the clock (a name of CLOCKS) each bot's moves are timed by; default, each bot's
        own (`move_clock`).
    """
    rng = random.Random(seed)
    state = game.new_initial_state()
    referee = Referee(game, state)  # the game's contract, checked at every move
    names = [move_clock(bot) for bot in bots] if clocks is None else list(clocks)
    record = GameRecord([], 0, [], clocks=names)
    timers = [CLOCKS[name] for name in names]
    culprit = -1  # the player whose bot is running; -1 while no bot is
    try:
        for player, bot in enumerate(bots):
            culprit = player
            _restart(bot, state)
        culprit = -1
        while (player := referee.player()) != TERMINAL:
            if player == CHANCE:
                action = sample_outcome(referee.outcomes(), rng.random())
            else:
                culprit, bot = player, bots[player]
                before = last_result(bot)
                start = timers[player]()
                action = _watched_step(bot, state, move_timeout_s, player, watch)
                record.move_seconds.append(timers[player]() - start)
                record.move_players.append(player)
                after = last_result(bot)
                fresh = after if after is not before else None  # this move's search, if any
                record.move_nodes.append(fresh.nodes if fresh is not None else None)
                record.move_evaluations.append(fresh.evaluations if fresh is not None else None)
                record.move_depths.append(fresh.depth if fresh is not None else None)
                if action not in referee.legal:  # never applied: a game may not check
                    raise IllegalActionError(f"illegal action {action} in state {state}")
            for other, bot in enumerate(bots):
                if other != player:
                    culprit = other
                    bot.inform_action(state, player, action)
            culprit = -1
            if observer is not None:
                observer(state, player, action)
            referee.apply(player, action)
    except GameContractError:
        raise  # the game's fault, wherever found (a search checks foreign games too)
    except Exception as e:
        if not catch_errors or culprit < 0:
            raise
        print_traceback(e, f"the forfeit of player {culprit}")
        record.failure = BotFailure(culprit, type(e).__name__, located(e))
        record.returns = forfeit_returns(culprit, len(bots))
    else:
        record.returns = referee.returns()
    record.moves = len(record.move_seconds)
    record.history = list(state.history())
    return record


def play_match(
    game: pyspiel.Game, spec_a: str, spec_b: str, seed: int
) -> tuple[GameRecord, GameRecord]:
    """Two games with seats swapped and the same dice: A seats 0 then 1.

    Bots are built from their specs for each game and seeded from the match seed
    (`bot_seed(seed, 'a')` and `bot_seed(seed, 'b')` in both games).
    """
    seed_a, seed_b = bot_seed(seed, "a"), bot_seed(seed, "b")
    first = play_game(
        game, [make_bot(spec_a, game, 0, seed_a), make_bot(spec_b, game, 1, seed_b)], seed
    )
    second = play_game(
        game, [make_bot(spec_b, game, 0, seed_b), make_bot(spec_a, game, 1, seed_a)], seed
    )
    return first, second


def score_of(returns: Sequence[float], player: int) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss of `player` in a zero-sum game."""
    value = returns[player]
    return 1.0 if value > 0 else 0.0 if value < 0 else 0.5
