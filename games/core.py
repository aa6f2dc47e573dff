"""Bases of every game's rules and core: the search protocol, once.

Compiled with the rest of the engine where a C compiler is present (see `chancespiel.engine`);
a compiled search calls these methods through the class's method table, so it runs at native
speed on compiled cores and still works on interpreted ones (a game of a plugin, the pyspiel
adapter), which subclass `Core` as ordinary Python classes.

Nothing here imports pyspiel: the OpenSpiel layer is `games._adapter`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

CHANCE: Final = -1  # pyspiel.PlayerId.CHANCE
TERMINAL: Final = -4  # pyspiel.PlayerId.TERMINAL
# OpenSpiel's integer parameters are C++ ints: the largest value a game or agent string holds
# (seeds included).
MAX_INT_PARAM: Final = 2**31 - 1


ParamBounds = dict[str, tuple[int, int]]
"""A game's declared parameter ranges, name -> (lowest, highest): what its rules accept, and what
`chancespiel games` lists. Every integer parameter of our games has one."""


def check_param(bounds: ParamBounds, name: str, value: Any) -> int:
    """`value` as an int within the declared bounds of the parameter `name` (check_int_param)."""
    low, high = bounds[name]
    return check_int_param(name, value, low, high)


Heuristic = Callable[[Any, int], float]
"""h(state, player) -> value in [-1, 1] for `player`, exact (+1/-1/0) at terminal states."""

Ordering = Callable[[Any, Sequence[int]], Sequence[int]]
"""ordering(state, legal_actions) -> the same actions, most promising for the mover first."""


def check_int_param(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Returns `value` as an int if it lies in [low, high], else raises a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"parameter {name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"parameter {name} must be {bound}, got {value}")
    return value


def check_bool_param(name: str, value: Any) -> bool:
    """Returns `value` if it is a bool, else raises a ValueError naming the parameter."""
    if not isinstance(value, bool):
        raise ValueError(f"parameter {name} must be a boolean, got {value!r}")
    return value


def _rebuild_rules(cls: type, params: dict[str, Any]) -> Any:
    return cls(**params)


@mypyc_attr(allow_interpreted_subclasses=True)
class SharedRules:
    """Base of a game's Rules: shared by every state, so never copied; pickled as parameters.

    Subclasses implement `params()`, the keyword arguments that rebuild them.
    """

    def params(self) -> dict[str, Any]:
        """The game parameters these rules were built from."""
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_rules, (type(self), self.params()))

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedRules:
        return self


_FIELDS: dict[type, tuple[str, ...]] = {}


def fields_of(cls: type) -> tuple[str, ...]:
    """The instance fields of a core class that make its state: a compiled class lists its
    fields in `__mypyc_attrs__`, an interpreted one in the `__slots__` of its classes; the
    names in the class's `BOOKKEEPING` (fields about its storage, such as whether a list is
    its own, that no copy or pickle carries) are left out."""
    names = _FIELDS.get(cls)
    if names is None:
        found: list[str] = list(cls.__dict__.get("__mypyc_attrs__", ()))
        for klass in cls.__mro__:
            found.extend(klass.__dict__.get("__slots__", ()))
        skipped = getattr(cls, "BOOKKEEPING", ())
        names = _FIELDS[cls] = tuple(n for n in dict.fromkeys(found) if n not in skipped)
    return names


def _hashable(value: Any) -> Any:
    """`value` with lists (also inside tuples and lists) turned into tuples, to be hashed."""
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _restore_core(cls: type[Core], state: dict[str, Any]) -> Core:
    """A core of class `cls` with the pickled fields `state`. A compiled class cannot be made
    without its constructor, so the rules' initial core is the blank (every one of our cores
    has one); other classes are made without `__init__`, as pickle does."""
    rules = state.get("rules")
    initial = getattr(rules, "initial_core", None)
    core = initial() if initial is not None else None
    if type(core) is not cls:
        core = cls.__new__(cls)
    core.__setstate__(state)
    return core


@mypyc_attr(allow_interpreted_subclasses=True)
class Core:
    """Base of a game's core: all mutable state, implementing the search protocol.

    Subclasses keep their fields in `__slots__` (or compiled attributes) and write `clone`
    by hand; deepcopy is `clone()` and pickling stores the fields by name (OpenSpiel
    deep-copies and pickles the states that hold cores).
    """

    __slots__ = ()

    def current_player(self) -> int:
        """The player to move: 0 or 1, CHANCE or TERMINAL."""
        raise NotImplementedError

    def legal_actions(self) -> Sequence[int]:
        """Sorted legal actions of the player to move (empty at chance and terminal nodes)."""
        raise NotImplementedError

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        """(outcome, probability) pairs at a chance node, sorted; shared, never mutated."""
        raise NotImplementedError

    def apply(self, action: int) -> None:
        """Applies a legal decision or chance outcome in place."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.current_player() == TERMINAL

    def returns(self) -> Sequence[float]:
        """Both players' utilities (zeros before the end)."""
        raise NotImplementedError

    def action_to_string(self, player: int, action: int) -> str:
        """A readable name of `action` taken by `player` (CHANCE for outcomes)."""
        return str(action)

    def clone(self) -> Core:
        """An independent copy; subclasses write it by hand for speed."""
        raise NotImplementedError

    def child(self, action: int) -> Core:
        """A copy with `action` applied (searches make every child this way); a subclass may
        write it as one step, without setting each changed field twice."""
        child = self.clone()
        child.apply(action)
        return child

    def state_key(self) -> int:
        """A hash of the whole state (the shared rules excluded): equal states, reached by
        any path, get equal keys. Searches key their best-move tables by it (a transposition
        table for move ordering); a collision can only cost ordering, never a wrong move.
        Cores may override it with a cheaper hash of the fields that define the state."""
        values = tuple(getattr(self, n) for n in fields_of(type(self)) if n != "rules")
        try:
            return hash(values)
        except TypeError:  # a list among the fields
            return hash(_hashable(values))

    def has_state_key(self) -> bool:
        """True if `state_key` is a hash of the state's own fields; false for a class whose
        fields do not define the state (the pyspiel adapter), whose searches key their
        tables by path instead."""
        return True

    def __deepcopy__(self, memo: dict[int, Any]) -> Core:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore_core, (type(self), self.__getstate__()))

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in fields_of(type(self))}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
