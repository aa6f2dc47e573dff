"""One registry for every agent, made from OpenSpiel-style spec strings.

    bot = make_bot("star2(samples=15,time_ms=200)", game, player=0)

A spec is `name` or `name(key=value,...)`, parsed by OpenSpiel's own parameter parser. Specs,
not bots, cross process boundaries (bots do not pickle). Every agent accepts `seed` (an int,
or none for fresh entropy); unknown names and parameters are errors that list what is known.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from chancespiel.games.core import MAX_INT_PARAM
from chancespiel.games.registry import parse_parameters

_NONE_WORDS = {"none", "None"}


def bound_text(value: float) -> str:
    """A bound as a spec would write it: whole numbers without a fraction or an exponent."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class Param:
    """A parameter of an agent: its default, its type, a one-line description, and for a
    number its range: `high`, the largest value that keeps one move bounded in time and
    memory (every numeric parameter of chancespiel's agents has one), and `low`; a bound
    itself is excluded where `open_low` (`open_high`) says so."""

    default: Any
    help: str
    type: type | None = None  # defaults to type(default); needed when the default is None
    allow_none: bool = False
    high: float | None = None
    low: float | None = None
    open_low: bool = False
    open_high: bool = False
    hook: bool = False  # also takes a Python function (agents made in Python, not by specs)

    @property
    def numeric(self) -> bool:
        """True for an int or float parameter (bools are not numbers here)."""
        return (self.type or type(self.default)) in (int, float)

    def range_text(self) -> str:
        """The range as `chancespiel agents` shows it ('' without one)."""
        if self.low is not None and self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            return f"in {left}{bound_text(self.low)}, {bound_text(self.high)}{right}"
        if self.high is not None:
            return f"{'below' if self.open_high else 'at most'} {bound_text(self.high)}"
        if self.low is None:
            return ""
        return f"{'above' if self.open_low else 'at least'} {bound_text(self.low)}"

    def coerce(self, agent: str, name: str, value: Any) -> Any:
        """`value` converted to this parameter's type, or a ValueError naming the problem."""
        if self.hook and callable(value):
            return value
        if value is None or (isinstance(value, str) and value in _NONE_WORDS):
            if self.allow_none or self.default is None:
                return None
            raise ValueError(f"{agent}: parameter {name} cannot be none")
        kind = self.type or type(self.default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is float and isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{agent}: parameter {name} must be a finite number, got {value!r}")
        if kind is float and isinstance(value, str):  # spec strings write 1000.0, not 1e3
            raise ValueError(
                f"{agent}: parameter {name} must be a number such as 200 or 200.5, got {value!r}"
            )
        if kind is not None and not isinstance(value, kind):
            raise ValueError(
                f"{agent}: parameter {name} must be of type {kind.__name__}, got {value!r}"
            )
        if kind is int and isinstance(value, bool):
            raise ValueError(f"{agent}: parameter {name} must be an integer, got {value!r}")
        if isinstance(value, (int, float)) and not (
            (self.low is None or value > self.low or (value == self.low and not self.open_low))
            and (
                self.high is None
                or value < self.high
                or (value == self.high and not self.open_high)
            )
        ):
            raise ValueError(f"{agent}: parameter {name} must be {self.range_text()}, got {value}")
        return value


SEED = Param(
    None,
    "seed of the agent's own random generator (none: fresh entropy)",
    int,
    high=MAX_INT_PARAM,
    low=0,
)
HEURISTIC = Param(
    "default",
    "evaluation at the search horizon: the game's heuristic (default), zero (0 but at the "
    "end), or a variant the game registers (chancespiel games)",
    hook=True,
)
ORDERING = Param(
    "default",
    "static move ordering: the game's (default); from Python, a function (docs/python.md)",
    hook=True,
)

Factory = Callable[..., pyspiel.Bot]
"""factory(game, player, **params) -> pyspiel.Bot"""


@dataclass(frozen=True)
class AgentInfo:
    """A registered agent."""

    name: str
    factory: Factory
    help: str
    params: Mapping[str, Param] = field(default_factory=dict)


AGENTS: dict[str, AgentInfo] = {}


def register_agent(
    name: str, help: str, params: Mapping[str, Param] | None = None
) -> Callable[[Factory], Factory]:
    """Decorator registering `factory(game, player, **params)` under `name`.

    Every agent also gets the `seed` parameter.
    """

    def decorate(factory: Factory) -> Factory:
        if name in AGENTS:
            raise ValueError(f"agent {name!r} is already registered")
        AGENTS[name] = AgentInfo(name, factory, help, {**(params or {}), "seed": SEED})
        return factory

    return decorate


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Splits `name(key=value,...)` into the name and the typed parameters."""
    spec = spec.strip()
    if not spec:
        raise ValueError("empty agent spec")
    try:
        params = parse_parameters(spec)
    except ValueError as e:
        raise ValueError(f"malformed agent spec {e}") from None
    name = params.pop("name")
    return name, params


def resolve_spec(spec: str) -> tuple[AgentInfo, dict[str, Any]]:
    """The agent and its full parameters (defaults filled in) for `spec`, all checked."""
    return resolve(*parse_spec(spec))


def resolve(name: str, given: Mapping[str, Any]) -> tuple[AgentInfo, dict[str, Any]]:
    """The agent `name` and its full parameters (defaults filled in) from the `given` ones,
    all checked: what a spec string's parameters, or the keywords of an agent made in Python
    (agents.configured), become."""
    info = AGENTS.get(name)
    if info is None:
        close = difflib.get_close_matches(name, AGENTS, n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"unknown agent {name!r}{hint}; known agents: {', '.join(sorted(AGENTS))}")
    unknown = sorted(set(given) - set(info.params))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {unknown} for agent {name}; "
            f"known: {', '.join(sorted(info.params))}"
        )
    params = {key: p.default for key, p in info.params.items()}
    for key, value in given.items():
        params[key] = info.params[key].coerce(name, key, value)
    return info, params


def _spec_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def canonical_spec(spec: str) -> str:
    """One spelling per agent: the name and, sorted, only the parameters that differ from
    their defaults ('hold(n=20)' -> 'hold', 'star2(time_ms=200.0, max_depth=3)' ->
    'star2(max_depth=3,time_ms=200.0)'), so one agent under two spellings is one entrant.

    Raises:
      ValueError: as resolve_spec.
    """
    info, params = resolve_spec(spec)
    changed = [
        f"{key}={_spec_value(value)}"
        for key, value in sorted(params.items())
        if value != info.params[key].default
    ]
    return f"{info.name}({','.join(changed)})" if changed else info.name


def make_bot(
    spec: str, game: pyspiel.Game | str, player: int, seed: int | None = None
) -> pyspiel.Bot:
    """A bot for `player` in `game` (a pyspiel.Game or a game string) from a spec string such
    as 'hold(n=25)'.

    `seed` seeds the bot unless the spec sets its own `seed`.

    Raises:
      ValueError: for an unknown agent or parameter, a value of the wrong type or range, or a
        game the agent does not support.
    """
    if not isinstance(spec, str):
        raise ValueError(f"spec must be an agent spec string such as 'hold(n=25)', got {spec!r}")
    game = seat_game(game, player, seed)
    return build_bot(*resolve_spec(spec), game, player, seed)


def seat_game(game: pyspiel.Game | str, player: int, seed: int | None) -> pyspiel.Game:
    """`game` (loaded if a string), once it, the player and the seed are checked for a bot.

    Raises:
      ValueError: naming what is wrong.
    """
    if isinstance(game, str):
        try:
            game = pyspiel.load_game(game)
        except pyspiel.SpielError as e:
            reason = str(e).strip().splitlines()[0].split(". Available")[0]  # not every game
            raise ValueError(f"game {game!r} does not load: {reason}") from None
    if not isinstance(game, pyspiel.Game):
        raise ValueError(f"game must be a pyspiel.Game or a game string, got {game!r}")
    check_game(game)
    if isinstance(player, bool) or not isinstance(player, int):
        raise ValueError(f"player must be an integer, got {player!r}")
    if player not in range(game.num_players()):
        raise ValueError(f"player must be in [0, {game.num_players()}), got {player}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed must be an integer >= 0 or None, got {seed!r}")
    return game


def build_bot(
    info: AgentInfo, params: dict[str, Any], game: pyspiel.Game, player: int, seed: int | None
) -> pyspiel.Bot:
    """The bot of agent `info` with its full, checked `params` (resolve) for a seat checked by
    seat_game; `seed` seeds it unless the parameters set their own."""
    if params["seed"] is None:
        params = {**params, "seed": seed}
    return info.factory(game, player, **params)


_TWO_SIDED = (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)


def seat_problems(game: pyspiel.Game) -> list[str]:
    """What keeps two seated agents from taking turns in `game`: its player count and
    simultaneous moves (each as 'what it has (what is needed)')."""
    problems = []
    if game.num_players() != 2:
        count = game.num_players()
        problems.append(f"{count} player{'' if count == 1 else 's'} (needs 2)")
    if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append("simultaneous moves (needs sequential)")
    return problems


def check_game(game: pyspiel.Game) -> None:
    """Raises ValueError, naming each requirement that fails, unless `game` is one every agent
    here can take a seat in: sequential moves, two players, zero-sum or constant-sum. (Searching
    agents also need perfect information and check it themselves.)"""
    game_type = game.get_type()
    problems = seat_problems(game)
    if game_type.utility not in _TWO_SIDED:
        problems.append(f"{game_type.utility.name.lower()} utility (needs zero- or constant-sum)")
    if problems:
        raise ValueError(f"game {game} is not supported: {'; '.join(problems)}")


def check_spec(spec: str, game: pyspiel.Game) -> None:
    """Raises ValueError now if `spec` cannot make a bot for `game` (builds one and drops it)."""
    make_bot(spec, game, 0)
