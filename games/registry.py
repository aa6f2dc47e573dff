"""What chancespiel knows about each game: heuristics and a short description for listings.

Agents look heuristics up here by the game's short name, so a heuristic is available for every
game that registers one, ours or OpenSpiel's (through the search-protocol adapter).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyspiel

from chancespiel.games.contract import TOLERANCE, GameContractError, where
from chancespiel.games.core import MAX_INT_PARAM
from chancespiel.games.value_model import Features

Heuristic = Callable[[Any, int], float]
"""h(state, player) -> value in [-1, 1] for `player`, exact (+1/-1/0) at terminal states."""


@dataclass(frozen=True)
class GameEntry:
    """A game chancespiel provides, for `chancespiel games` and the README table."""

    short_name: str
    description: str
    chance: str
    status: str


MoveOrdering = Callable[[Any, Sequence[int]], Sequence[int]]
"""ordering(state, legal_actions) -> the same actions, most promising first."""

CoreReader = Callable[[pyspiel.State], Any]
"""reader(state) -> a fresh core of one of our games, equal move for move to a foreign state."""

_HEURISTICS: dict[str, Heuristic] = {}
_READERS: dict[str, CoreReader] = {}  # foreign short name -> reader into our core
_VARIANTS: dict[str, dict[str, Heuristic]] = {}  # short name -> other named heuristics
_ORDERINGS: dict[str, MoveOrdering] = {}
GAMES: dict[str, GameEntry] = {}

DEFAULT_HEURISTIC = "default"  # the game's registered heuristic (0 if it has none)
ZERO_HEURISTIC = "zero"  # 0 everywhere but at terminal states, for every game
LEARNED_HEURISTIC = "learned"  # the game's trained value model (games.learned)

_FEATURES: dict[str, tuple[Features, tuple[str, ...]]] = {}
_VALUE_MODELS: dict[str, str] = {}  # short name -> model file registered by a plugin


def register_heuristic(
    short_name: str, heuristic: Heuristic, name: str = DEFAULT_HEURISTIC
) -> None:
    """Makes `heuristic` the evaluation agents use on the game `short_name`, or, with another
    `name`, a variant agents use when asked for it (`heuristic=NAME` in their specs)."""
    if name in (ZERO_HEURISTIC, LEARNED_HEURISTIC):
        raise ValueError(f"heuristic name {name!r} is reserved")
    if name == DEFAULT_HEURISTIC:
        _HEURISTICS[short_name] = heuristic
    else:
        _VARIANTS.setdefault(short_name, {})[name] = heuristic


def register_features(short_name: str, features: Features, names: Sequence[str]) -> None:
    """Gives the game `short_name` features for learned values: `features(core, player)`, the
    position as `player` sees it, as many floats as `names` names. With a model trained on
    them (`chancespiel value train`), agents take `heuristic=learned` and the luck correction
    `--value learned`."""
    _FEATURES[short_name] = (features, tuple(names))


def features_for(short_name: str) -> tuple[Features, tuple[str, ...]]:
    """The registered features of a game and their names.

    Raises:
      ValueError: if the game has none.
    """
    try:
        features, names = _FEATURES[short_name]
    except KeyError:
        known = ", ".join(sorted(_FEATURES)) or "none"
        raise ValueError(
            f"game {short_name} defines no features for a learned value (register_features); "
            f"games that do: {known}"
        ) from None
    # a game without one of our cores gets its own state objects, as its heuristics do
    return (features if _has_core(short_name) else _on_own_states(features)), names


def register_value_model(short_name: str, path: str) -> None:
    """Makes the model file `path` the learned value of `short_name` (instead of the one that
    ships with the package, if any)."""
    _VALUE_MODELS[short_name] = path


def value_model_file(short_name: str) -> str | None:
    """The model file registered for a game, if a plugin registered one."""
    return _VALUE_MODELS.get(short_name)


def heuristic_for(game: pyspiel.Game | str) -> Heuristic:
    """The registered heuristic of `game` (a pyspiel.Game or a short name), for any state.

    The function returned takes a `pyspiel.State` of the game (ours or OpenSpiel's), our core
    inside one, or an agent's search state, so bots of one's own can use our evaluations.
    Agents searching many leaves use `evaluation_for`, which skips the unwrapping.

    Raises:
      KeyError: if no heuristic is registered for the game.
    """
    name = game if isinstance(game, str) else game.get_type().short_name
    try:
        return on_any_state(_HEURISTICS[name])
    except KeyError:
        raise KeyError(
            f"no heuristic registered for game {name!r}; known: {sorted(_HEURISTICS)}"
        ) from None


def on_any_state(heuristic: Heuristic) -> Heuristic:
    """`heuristic` (written for search states: our cores, or adapters of foreign states) made
    to accept pyspiel states as well."""

    def evaluate(state: Any, player: int) -> float:
        return heuristic(_core_or_state(state), player)

    evaluate.__doc__ = heuristic.__doc__
    evaluate.__name__ = getattr(heuristic, "__name__", "heuristic")
    return evaluate


def register_core_reader(short_name: str, reader: CoreReader) -> None:
    """Lets agents search OpenSpiel's game `short_name` on one of our cores, read by `reader`
    from its states (the games must agree move for move: actions, chance outcomes, returns)."""
    _READERS[short_name] = reader


def read_core(state: pyspiel.State) -> Any | None:
    """A fresh core equal to a foreign pyspiel `state`, or None if its game has no reader."""
    reader = _READERS.get(state.get_game().get_type().short_name)
    return None if reader is None else reader(state)


def _core_or_state(state: Any) -> Any:
    """The core a game's hooks are written for: the one inside our pyspiel state, one read from
    a foreign state whose game has a reader, or `state` itself (a search state already, or a
    state of a game without a core)."""
    core = getattr(state, "core", None)
    if core is None and isinstance(state, pyspiel.State):
        core = read_core(state)
    return state if core is None else core


def has_heuristic(game: pyspiel.Game | str) -> bool:
    """True if a heuristic is registered for `game`."""
    name = game if isinstance(game, str) else game.get_type().short_name
    return name in _HEURISTICS


def heuristic_variants(short_name: str) -> list[str]:
    """The names of the variants registered for a game (besides default and zero)."""
    return sorted(_VARIANTS.get(short_name, ()))


def heuristic_names(game: pyspiel.Game) -> list[str]:
    """The names `evaluation_for` accepts for `game`."""
    from chancespiel.games.learned import has_learned_value

    short_name = game.get_type().short_name
    learned = [LEARNED_HEURISTIC] if has_learned_value(game) else []
    return [DEFAULT_HEURISTIC, ZERO_HEURISTIC, *learned, *heuristic_variants(short_name)]


def _zero_heuristic(state: Any, player: int) -> float:
    """0 (the midpoint of a zero-sum game) everywhere but at terminal states."""
    return state.returns()[player] if state.is_terminal() else 0.0


def _has_core(short_name: str) -> bool:
    """True for games agents search on one of our cores (ours, or read from OpenSpiel's)."""
    return short_name in GAMES or short_name in _READERS


def _unwrapped(state: Any) -> Any:
    """The pyspiel state inside an agent's adapter (a search-protocol view of a foreign
    state; the core inside it, for a game built on a core of its own), or `state` itself: a
    user's hook sees the state object the user's game made."""
    inner = getattr(state, "state", None)
    if not isinstance(state, pyspiel.State) and isinstance(inner, pyspiel.State):
        return getattr(inner, "core", inner)
    return state


def _is_ours(hook: Any) -> bool:
    """True for a hook of chancespiel's own (tested with its game)."""
    return str(getattr(hook, "__module__", None) or "").startswith("chancespiel.")


def _checked_heuristic(hook: Heuristic, game: pyspiel.Game) -> Heuristic:
    """A plugin's heuristic, called with the game's own states, whose every value must be a
    number within the game's utilities (a NaN would make every comparison of a search false).

    The wrapper raises GameContractError for a value outside them."""
    low, high = game.min_utility(), game.max_utility()
    label = f"heuristic {getattr(hook, '__name__', 'hook')} of {game.get_type().short_name}"

    def evaluate(state: Any, player: int) -> float:
        own = _unwrapped(state)
        value = hook(own, player)
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not low - TOLERANCE <= number <= high + TOLERANCE:  # NaN too
            raise GameContractError(
                f"{label} returned {value!r}, not a number in the game's utilities "
                f"[{low:g}, {high:g}], {where(own)}"
            )
        return number

    evaluate.__doc__ = hook.__doc__
    evaluate.__name__ = getattr(hook, "__name__", "heuristic")
    return evaluate


def _checked_ordering(ordering: MoveOrdering, short_name: str) -> MoveOrdering:
    """A plugin's move ordering, called with the game's own states, whose every answer must
    be the legal actions it was given, reordered (raises GameContractError otherwise)."""

    def order(state: Any, actions: Sequence[int]) -> Sequence[int]:
        own = _unwrapped(state)
        ordered = list(ordering(own, actions))
        if sorted(ordered) != sorted(actions):
            raise GameContractError(
                f"move ordering {getattr(ordering, '__name__', 'hook')} of {short_name} "
                f"turned the legal actions {list(actions)[:12]} into {ordered[:12]}, {where(own)}"
            )
        return ordered

    order.__doc__ = ordering.__doc__
    order.__name__ = getattr(ordering, "__name__", "ordering")
    return order


def _on_own_states(hook: Callable[..., Any]) -> Callable[..., Any]:
    """`hook(state, ...)` (a heuristic, a move ordering) called with the game's own state
    where agents hand it their adapter."""

    def on_own_state(state: Any, *rest: Any) -> Any:
        return hook(_unwrapped(state), *rest)

    on_own_state.__doc__ = hook.__doc__
    on_own_state.__name__ = getattr(hook, "__name__", "hook")
    return on_own_state


def evaluation_for(game: pyspiel.Game, name: str = DEFAULT_HEURISTIC) -> Heuristic:
    """The heuristic `name` of `game`: by default the registered one, or 0 at non-terminal
    states if it has none; 'zero' for 0 in every game; or a variant registered under `name`.
    On a game without one of our cores (a user's pyspiel game, or OpenSpiel's), a registered
    heuristic is called with the game's own state objects, as its author wrote it for; it,
    and a plugin's heuristic on any game, is checked at every call (`_checked_heuristic`).

    Raises:
      ValueError: for a name the game does not know, listing the known ones.
    """
    short_name = game.get_type().short_name
    if name == DEFAULT_HEURISTIC:
        if short_name not in _HEURISTICS:
            _warn_no_heuristic(short_name)
            return _zero_heuristic
        found = _HEURISTICS[short_name]
    elif name == ZERO_HEURISTIC:
        return _zero_heuristic
    elif name == LEARNED_HEURISTIC:
        from chancespiel.games.learned import learned_heuristic

        found = learned_heuristic(game)
    else:
        try:
            found = _VARIANTS[short_name][name]
        except KeyError:
            known = ", ".join(heuristic_names(game))
            raise ValueError(f"no heuristic {name!r} for {short_name}; known: {known}") from None
    if _is_ours(found) and _has_core(short_name):
        return found  # compiled, on our core: tested, and not slowed down
    return _checked_heuristic(found, game)


_WARNED: set[str] = set()


def _warn_no_heuristic(short_name: str) -> None:
    """Says once per process, on stderr, that agents on `short_name` search without knowledge."""
    if short_name in _WARNED:
        return
    _WARNED.add(short_name)
    print(
        f"chancespiel: warning: no heuristic for {short_name}: agents value every "
        "non-terminal leaf as 0 (register_heuristic adds one; heuristic=zero silences this)",
        file=sys.stderr,
    )


def register_move_ordering(short_name: str, ordering: MoveOrdering) -> None:
    """Makes `ordering` the static move ordering search agents use on `short_name`."""
    _ORDERINGS[short_name] = ordering


def move_ordering_for(game: pyspiel.Game) -> MoveOrdering | None:
    """The registered static move ordering of `game`, if any (on a game without one of our
    cores, or a plugin's, called with the game's own state objects and checked, as
    evaluation_for's heuristics)."""
    short_name = game.get_type().short_name
    ordering = _ORDERINGS.get(short_name)
    if ordering is None or (_is_ours(ordering) and _has_core(short_name)):
        return ordering
    return _checked_ordering(ordering, short_name)


MoveNote = Callable[[Any, int, int], "str | None"]
"""note(state, player, action) -> a few words on what the move does, or None (a bust)."""

_NOTES: dict[str, MoveNote] = {}


def register_move_note(short_name: str, note: MoveNote) -> None:
    """Lets `chancespiel play` announce what a move does where its name does not say it (a
    roll that busts, a turn that passes). `note` gets the state before the move (our core on
    games that have one, else the game's own state), the player and the action."""
    _NOTES[short_name] = note


def move_note(state: pyspiel.State, player: int, action: int) -> str | None:
    """The registered note on `action` in `state`, if the game has one and it says anything."""
    note = _NOTES.get(state.get_game().get_type().short_name)
    return None if note is None else note(_core_or_state(state), player, action)


def register_entry(entry: GameEntry) -> None:
    """Lists a game in `chancespiel games`."""
    GAMES[entry.short_name] = entry


_INTEGER = re.compile(r"[+-]?[0-9]+")  # what OpenSpiel reads as an integer parameter


def parse_parameters(text: str) -> dict[str, Any]:
    """`name(key=value,...)` parsed as pyspiel.game_parameters_from_string does (nested games
    included, the name under "name"), but strictly: OpenSpiel keeps the last of two values of
    one key and ignores text after the closing parenthesis, so a typo would silently change
    or drop a parameter.

    Raises:
      ValueError: for a repeated key (at any nesting level), unbalanced parentheses, text
        after the closing parenthesis, an integer OpenSpiel cannot hold (checked here: its own
        error names nothing), or what OpenSpiel cannot parse.
    """
    keys: list[set[str]] = []  # the keys seen at each open parenthesis
    start = 0  # where the current key=value item starts
    closed_at = None
    value_was_a_game = False  # the item just ended with a nested game's ")"
    for i, char in enumerate(text):
        if closed_at is not None and not char.isspace():
            raise ValueError(f"{text!r}: unexpected text after the closing parenthesis")
        if char == "(":
            keys.append(set())
            start = i + 1
            value_was_a_game = False
        elif char in ",)":
            if not keys:
                raise ValueError(f"{text!r}: unbalanced parentheses")
            item = text[start:i]
            if "=" in item:
                key, value = (part.strip() for part in item.split("=", 1))
                if key in keys[-1]:
                    raise ValueError(f"{text!r}: parameter {key!r} given twice")
                keys[-1].add(key)
                if (
                    _INTEGER.fullmatch(value)
                    and not -MAX_INT_PARAM - 1 <= int(value) <= MAX_INT_PARAM
                ):
                    raise ValueError(
                        f"{text!r}: parameter {key!r} = {value} is outside OpenSpiel's integers "
                        f"[{-MAX_INT_PARAM - 1}, {MAX_INT_PARAM}]"
                    )
            elif item.strip() or not (value_was_a_game or (char == ")" and not keys[-1])):
                raise ValueError(f"{text!r}: expected key=value, got {item.strip()!r}")
            start = i + 1
            value_was_a_game = char == ")"
            if char == ")":
                keys.pop()
                if not keys:
                    closed_at = i
    if keys:
        raise ValueError(f"{text!r}: unbalanced parentheses")
    try:
        with spiel_errors_quiet():
            return dict(pyspiel.game_parameters_from_string(text))
    except pyspiel.SpielError as e:
        raise ValueError(f"{text!r}: {str(e).strip().splitlines()[0]}") from None


@contextlib.contextmanager
def spiel_errors_quiet() -> Iterator[None]:
    """Around a call into OpenSpiel that may fail: OpenSpiel's C++ side prints the message of
    every error it raises on stderr itself, a second copy of the one-line error the caller
    gives; that print is dropped on failure, and what was printed is passed on otherwise."""
    sys.stderr.flush()
    saved = os.dup(2)
    failed = True
    try:
        with tempfile.TemporaryFile() as captured:
            os.dup2(captured.fileno(), 2)
            try:
                yield
                failed = False
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
                if not failed:
                    captured.seek(0)
                    if printed := captured.read():
                        os.write(2, printed)
    finally:
        os.close(saved)
