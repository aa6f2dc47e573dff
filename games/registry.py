"""What chancespiel knows about each game, declared once per game: `register_game(GameSpec(...))`.

A `GameSpec` names everything a game offers: its pyspiel type and class, the entry `chancespiel
games` lists, its heuristics, static move ordering and move notes, the features of a learned
value, and OpenSpiel's versions of it that agents read into its core. The registry keeps one
table of specs by short name, and agents, commands and the luck correction look things up in it
(`evaluation_for`, `move_ordering_for`, `read_core`, ...): a heuristic is available for every
game that declares one, ours or OpenSpiel's (through the search-protocol adapter).

A plugin declares a game of its own the same way, and adds to a game declared elsewhere (or to
any pyspiel game) with `register_heuristic` or `register_value_model`. Heuristics that every
game may have under one name (the learned value) register a `HeuristicFactory`; this module
imports none of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pyspiel

from chancespiel.games._adapter import CoreGame
from chancespiel.games.contract import TOLERANCE, GameContractError, where
from chancespiel.games.core import MAX_INT_PARAM, Heuristic, Ordering
from chancespiel.games.value_model import FeatureKey, FeaturePair, Features

CoreReader = Callable[[pyspiel.State], Any]
"""reader(state) -> a fresh core of one of our games equal move for move to a foreign state
(actions, chance outcomes, returns), or None for a variant it cannot read."""

SymmetricOutcomes = Callable[[Any], list[int]]
"""classes(chance node) -> for each of its outcomes, the first outcome of its class (see
`GameSpec.symmetric_outcomes`)."""

MoveNote = Callable[[Any, int, int], "str | None"]
"""note(state, player, action) -> a few words on what the move does, or None (a bust)."""

DEFAULT_HEURISTIC = "default"  # the game's declared heuristic (0 if it has none)
ZERO_HEURISTIC = "zero"  # 0 everywhere but at terminal states, for every game
DEFAULT_ORDERING = "default"  # the game's declared move ordering (none if it has none)


@dataclass(frozen=True)
class GameSpec:
    """Everything chancespiel knows about one game; all but `short_name` optional.

    The hooks (heuristics, ordering, note, features) are called with one of our cores on a
    game that has one (ours, or one read from OpenSpiel's version by `reader`), and with the
    game's own state objects otherwise, as their author wrote them.

    Attributes:
      short_name: the game's pyspiel name.
      game_type, game_class: registered with pyspiel by `register_game`; None for a game
        pyspiel knows already (OpenSpiel's, or one a plugin registered itself).
      description, chance, status: the entry `chancespiel games` lists: a game with a
        description is listed (and tests/test_conformance.py checks it).
      heuristic: the evaluation agents use by default; `variants` more, by name
        (`heuristic=NAME` in agent specs).
      ordering: the static move ordering of the searches.
      note: what `chancespiel play` says about a move whose name does not say it (a bust).
      features, feature_names: the position as each player sees it, for a learned value
        (`features(state, player)`, as many floats as `feature_names` names).
      feature_pair: both players' features from one call, `(features(state, 0),
        features(state, 1))`, for a game whose two views share their work (a learned value
        needs both at every leaf).
      feature_key: a hash of what the features read of a state (equal keys, equal features),
        where that is less than the state: a learned value keeps its values by it instead of
        by `state_key`, so that positions the features do not tell apart share one.
      symmetric_outcomes: at a chance node, for each outcome (in `chance_outcomes`' order) the
        first outcome whose child is the same position up to a symmetry of the rules that the
        features do not see (a renaming of interchangeable pieces): equal features there and
        below, with the same probabilities, so a learned value's lookahead values one child
        of each class.
      reader: for another implementation of one of our games (OpenSpiel's), reads its states
        into our core, so that agents search them at the core's speed.
      openspiel_versions: specs of OpenSpiel's versions of this game, each with a reader,
        declared with it.
      value_model: a model file for the learned value, instead of the one the package ships.
      trusted_core: for a plugin's game built on a core (`CoreGame`), agents search the core
        directly and call its hooks unchecked, as they do chancespiel's own games, instead of
        through the adapter that checks the game's contract at every node (several times
        slower). Declare it once `chancespiel check` passes; played moves are checked anyway.
    """

    short_name: str
    game_type: pyspiel.GameType | None = None
    game_class: type[pyspiel.Game] | None = None
    description: str | None = None
    chance: str = ""
    status: str = ""
    heuristic: Heuristic | None = None
    variants: Mapping[str, Heuristic] = field(default_factory=dict)
    ordering: Ordering | None = None
    note: MoveNote | None = None
    features: Features | None = None
    feature_names: tuple[str, ...] = ()
    feature_pair: FeaturePair | None = None
    feature_key: FeatureKey | None = None
    symmetric_outcomes: SymmetricOutcomes | None = None
    reader: CoreReader | None = None
    openspiel_versions: tuple[GameSpec, ...] = ()
    value_model: str | None = None
    trusted_core: bool = False

    def __post_init__(self) -> None:
        # copies, so that the caller's list or dict cannot change a declared game
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "variants", MappingProxyType(dict(self.variants)))
        if (self.game_type is None) != (self.game_class is None):
            raise ValueError(f"{self.short_name}: game_type and game_class come together")
        if self.game_type is not None and self.game_type.short_name != self.short_name:
            raise ValueError(
                f"{self.short_name}: the game type is named {self.game_type.short_name!r}"
            )
        if (self.features is None) != (not self.feature_names):
            raise ValueError(f"{self.short_name}: features and feature_names come together")
        if self.features is None and (
            self.feature_pair or self.feature_key or self.symmetric_outcomes
        ):
            raise ValueError(
                f"{self.short_name}: a feature pair, a feature key and symmetric outcomes need "
                "the features"
            )
        for version in self.openspiel_versions:
            if version.reader is None or version.game_class is not None:
                raise ValueError(
                    f"{self.short_name}: OpenSpiel's version {version.short_name} needs a "
                    "reader into our core, and no game class"
                )
        for name in self.variants:
            _check_variant_name(name)
        if self.trusted_core and not (
            self.game_class is not None and issubclass(self.game_class, CoreGame)
        ):
            raise ValueError(f"{self.short_name}: a trusted core needs a game class on a CoreGame")


@dataclass(frozen=True)
class HeuristicFactory:
    """A heuristic every game may have under one name, made for each game from what its spec
    declares (the learned value: a model over the game's features)."""

    name: str
    make: Callable[[pyspiel.Game], Heuristic]  # raises ValueError naming what the game lacks
    fits: Callable[[pyspiel.Game], bool]  # True where `make` succeeds


_SPECS: dict[str, GameSpec] = {}  # short name -> what chancespiel knows about the game
_FACTORIES: dict[str, HeuristicFactory] = {}


def register_game(spec: GameSpec) -> None:
    """Declares a game and OpenSpiel's versions of it, registering its type with pyspiel.

    Raises:
      ValueError: for a game declared already, or a name pyspiel knows already (chancespiel
        does not shadow a game); nothing is registered then.
    """
    specs = (spec, *spec.openspiel_versions)
    for declared in specs:
        if declared.short_name in _SPECS:
            raise ValueError(f"game {declared.short_name!r} is declared already")
    if spec.game_type is not None and spec.game_class is not None:
        if spec.short_name in pyspiel.registered_names():
            raise ValueError(
                f"a game named {spec.short_name!r} is already registered with pyspiel; "
                "chancespiel will not shadow it"
            )
        pyspiel.register_game(spec.game_type, spec.game_class)
    for declared in specs:
        _SPECS[declared.short_name] = declared


def _update(short_name: str, **changes: Any) -> None:
    """The game's spec with `changes` (a bare spec for a game nobody declared)."""
    spec = _SPECS.get(short_name) or GameSpec(short_name)
    _SPECS[short_name] = dataclasses.replace(spec, **changes)


def register_heuristic(
    short_name: str, heuristic: Heuristic, name: str = DEFAULT_HEURISTIC
) -> None:
    """Makes `heuristic` the evaluation agents use on the game `short_name` (declared or any
    pyspiel game), or, with another `name`, a variant agents use when asked for it
    (`heuristic=NAME` in their specs): how a plugin adds a heuristic to a game."""
    if name == DEFAULT_HEURISTIC:
        _update(short_name, heuristic=heuristic)
        return
    _check_variant_name(name)
    spec = _SPECS.get(short_name)
    variants = dict(spec.variants) if spec is not None else {}
    variants[name] = heuristic
    _update(short_name, variants=variants)


def _check_variant_name(name: str) -> None:
    """Refuses the names every game has (`default`, `zero`, those of factories)."""
    if name in (DEFAULT_HEURISTIC, ZERO_HEURISTIC) or name in _FACTORIES:
        raise ValueError(f"heuristic name {name!r} is reserved")


def register_heuristic_factory(factory: HeuristicFactory) -> None:
    """Makes `heuristic=factory.name` available on every game `factory` fits."""
    if factory.name in (DEFAULT_HEURISTIC, ZERO_HEURISTIC) or any(
        factory.name in spec.variants for spec in _SPECS.values()
    ):
        raise ValueError(f"heuristic name {factory.name!r} is taken")
    _FACTORIES[factory.name] = factory


def register_value_model(short_name: str, path: str | None) -> None:
    """Makes the model file `path` the learned value of `short_name` (instead of the one that
    ships with the package, if any); None goes back to that one."""
    _update(short_name, value_model=path)


def listed_games() -> list[GameSpec]:
    """The games `chancespiel games` lists (those declared with a description), in the order
    they were declared."""
    return [spec for spec in _SPECS.values() if spec.description is not None]


def is_declared(short_name: str) -> bool:
    """True for a game with a spec (declared, or given a heuristic or a model)."""
    return short_name in _SPECS


def plugin_games() -> list[GameSpec]:
    """The games plugins declared with a game class (`register_game`), in the order they were
    declared: `chancespiel games` lists them too, with their modules."""
    return [
        spec
        for spec in _SPECS.values()
        if spec.game_class is not None and not _is_ours(spec.game_class)
    ]


def plugin_module(spec: GameSpec) -> str | None:
    """Where a plugin's game comes from: the file of its class's module (relative to the
    current directory when under it), or the module's name; None for chancespiel's own."""
    if spec.game_class is None or _is_ours(spec.game_class):
        return None
    name = spec.game_class.__module__
    file = getattr(sys.modules.get(name), "__file__", None)
    if file is None:
        return name
    path = Path(file).resolve()
    with contextlib.suppress(ValueError):
        path = path.relative_to(Path.cwd())
    return str(path)


def features_for(short_name: str) -> tuple[Features, tuple[str, ...]]:
    """The declared features of a game and their names.

    Raises:
      ValueError: if the game has none.
    """
    spec = _SPECS.get(short_name)
    if spec is None or spec.features is None:
        known = ", ".join(sorted(s.short_name for s in _SPECS.values() if s.features)) or "none"
        raise ValueError(
            f"game {short_name} defines no features for a learned value (GameSpec.features); "
            f"games that do: {known}"
        )
    # a game without one of our cores gets its own state objects, as its heuristics do
    features = spec.features if _has_core(spec) else _on_own_states(spec.features)
    return features, spec.feature_names


def feature_pair_for(short_name: str) -> FeaturePair | None:
    """The game's `feature_pair`, if it declares one (for the states `features_for`'s
    features take)."""
    spec = _SPECS.get(short_name)
    if spec is None or spec.feature_pair is None:
        return None
    return spec.feature_pair if _has_core(spec) else _on_own_states(spec.feature_pair)


def feature_key_for(short_name: str) -> FeatureKey | None:
    """The game's `feature_key`, if it declares one on a core of ours (a learned value keeps
    no values of other states)."""
    spec = _SPECS.get(short_name)
    return spec.feature_key if _has_core(spec) and spec is not None else None


def symmetric_outcomes_for(short_name: str) -> SymmetricOutcomes | None:
    """The game's `symmetric_outcomes`, if it declares them (for the states `features_for`'s
    features take)."""
    spec = _SPECS.get(short_name)
    if spec is None or spec.symmetric_outcomes is None:
        return None
    hook = spec.symmetric_outcomes
    return hook if _has_core(spec) else _on_own_states(hook)


def value_model_file(short_name: str) -> str | None:
    """The model file registered for a game, if a plugin registered one."""
    spec = _SPECS.get(short_name)
    return None if spec is None else spec.value_model


def _short_name(game: pyspiel.Game | str) -> str:
    return game if isinstance(game, str) else game.get_type().short_name


def heuristic_for(game: pyspiel.Game | str) -> Heuristic:
    """The declared heuristic of `game` (a pyspiel.Game or a short name), for any state.

    The function returned takes a `pyspiel.State` of the game (ours or OpenSpiel's), our core
    inside one, or an agent's search state, so bots of one's own can use our evaluations.
    Agents searching many leaves use `evaluation_for`, which skips the unwrapping.

    Raises:
      KeyError: if the game has no heuristic.
    """
    name = _short_name(game)
    spec = _SPECS.get(name)
    if spec is None or spec.heuristic is None:
        known = sorted(s.short_name for s in _SPECS.values() if s.heuristic is not None)
        raise KeyError(f"no heuristic registered for game {name!r}; known: {known}")
    return on_any_state(spec.heuristic)


def on_any_state(heuristic: Heuristic) -> Heuristic:
    """`heuristic` (written for search states: our cores, or adapters of foreign states) made
    to accept pyspiel states as well."""

    def evaluate(state: Any, player: int) -> float:
        return heuristic(_core_or_state(state), player)

    evaluate.__doc__ = heuristic.__doc__
    evaluate.__name__ = getattr(heuristic, "__name__", "heuristic")
    return evaluate


def read_core(state: pyspiel.State) -> Any | None:
    """A fresh core equal to a foreign pyspiel `state`, or None if its game has no reader."""
    spec = _SPECS.get(state.get_game().get_type().short_name)
    return None if spec is None or spec.reader is None else spec.reader(state)


def _core_or_state(state: Any) -> Any:
    """The core a game's hooks are written for: the one inside our pyspiel state, one read from
    a foreign state whose game has a reader, or `state` itself (a search state already, or a
    state of a game without a core)."""
    core = getattr(state, "core", None)
    if core is None and isinstance(state, pyspiel.State):
        core = read_core(state)
    return state if core is None else core


def has_heuristic(game: pyspiel.Game | str) -> bool:
    """True if `game` declares a heuristic."""
    spec = _SPECS.get(_short_name(game))
    return spec is not None and spec.heuristic is not None


def heuristic_variants(short_name: str) -> list[str]:
    """The names of the variants declared for a game (besides default and zero)."""
    spec = _SPECS.get(short_name)
    return [] if spec is None else sorted(spec.variants)


def heuristic_names(game: pyspiel.Game) -> list[str]:
    """The names `evaluation_for` accepts for `game`."""
    made = [name for name, factory in _FACTORIES.items() if factory.fits(game)]
    short_name = game.get_type().short_name
    return [DEFAULT_HEURISTIC, ZERO_HEURISTIC, *made, *heuristic_variants(short_name)]


def _zero_heuristic(state: Any, player: int) -> float:
    """0 (the midpoint of a zero-sum game) everywhere but at terminal states."""
    return state.returns()[player] if state.is_terminal() else 0.0


def _has_core(spec: GameSpec | None) -> bool:
    """True for games agents search on one of our cores (ours, or read from OpenSpiel's)."""
    if spec is None:
        return False
    return spec.reader is not None or (
        spec.game_class is not None and issubclass(spec.game_class, CoreGame)
    )


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


def has_trusted_core(short_name: str) -> bool:
    """True for a game whose core agents search directly (`GameSpec.trusted_core`)."""
    spec = _SPECS.get(short_name)
    return spec is not None and spec.trusted_core


def _unchecked(hook: Any, spec: GameSpec | None) -> bool:
    """True for a hook called as it is: chancespiel's own on one of its cores, or any hook of
    a game with a trusted core."""
    return (_is_ours(hook) and _has_core(spec)) or (spec is not None and spec.trusted_core)


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


def _checked_ordering(ordering: Ordering, short_name: str) -> Ordering:
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


def evaluation_for(game: pyspiel.Game, name: str | Heuristic = DEFAULT_HEURISTIC) -> Heuristic:
    """The heuristic `name` of `game`: by default the declared one, or 0 at non-terminal
    states if it has none; 'zero' for 0 in every game; one made by a factory (`learned`); or
    a variant declared under `name`. On a game without one of our cores (a user's pyspiel
    game, or OpenSpiel's), a declared heuristic is called with the game's own state objects,
    as its author wrote it for; it, and a plugin's heuristic on any game, is checked at every
    call (`_checked_heuristic`), unless the game's core is trusted (`GameSpec.trusted_core`).
    `name` may also be a function h(state, player) (an agent made in Python,
    `chancespiel.agents.star2(heuristic=h)`): called and checked as a plugin's.

    Raises:
      ValueError: for a name the game does not know, listing the known ones, or what a
        factory's game lacks.
    """
    if callable(name):
        return _checked_heuristic(name, game)
    short_name = game.get_type().short_name
    spec = _SPECS.get(short_name)
    if name == DEFAULT_HEURISTIC:
        if spec is None or spec.heuristic is None:
            _warn_no_heuristic(short_name)
            return _zero_heuristic
        found = spec.heuristic
    elif name == ZERO_HEURISTIC:
        return _zero_heuristic
    elif name in _FACTORIES:
        found = _FACTORIES[name].make(game)
    else:
        variant = None if spec is None else spec.variants.get(name)
        if variant is None:
            known = ", ".join(heuristic_names(game))
            raise ValueError(f"no heuristic {name!r} for {short_name}; known: {known}")
        found = variant
    if _unchecked(found, spec):
        return found  # compiled, on a tested core: not slowed down
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


def move_ordering_for(
    game: pyspiel.Game, ordering: str | Ordering = DEFAULT_ORDERING
) -> Ordering | None:
    """The declared static move ordering of `game`, if any (on a game without one of our
    cores, or a plugin's, called with the game's own state objects and checked, as
    evaluation_for's heuristics); or `ordering`, a function ordering(state, actions) (an agent
    made in Python, `chancespiel.agents.star2(ordering=f)`), called and checked as a plugin's.

    Raises:
      ValueError: for a name other than 'default'.
    """
    short_name = game.get_type().short_name
    if callable(ordering):
        return _checked_ordering(ordering, short_name)
    if ordering != DEFAULT_ORDERING:
        raise ValueError(
            f"no move ordering {ordering!r} for {short_name}: 'default' (the game's) or, from "
            "Python, a function ordering(state, actions)"
        )
    spec = _SPECS.get(short_name)
    declared = None if spec is None else spec.ordering
    if declared is None or _unchecked(declared, spec):
        return declared
    return _checked_ordering(declared, short_name)


def move_note(state: pyspiel.State, player: int, action: int) -> str | None:
    """The declared note on `action` in `state`, if the game has one and it says anything.
    The note gets the state before the move (our core on games that have one, else the
    game's own state), the player and the action."""
    spec = _SPECS.get(state.get_game().get_type().short_name)
    if spec is None or spec.note is None:
        return None
    return spec.note(_core_or_state(state), player, action)


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
