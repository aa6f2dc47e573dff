"""chancespiel from Python: matches, tournaments and reports, with typed results.

    import chancespiel
    from chancespiel import agents

    result = chancespiel.match("python_pig", agents.star2(max_depth=3), "hold", matches=20)
    print(result)  # what `chancespiel match` prints
    result.rate, result.interval  # A's score rate and its 95% Wilson interval
    print(chancespiel.report(result, luck=True))  # what `chancespiel report --luck` prints

`chancespiel.match`, `tournament` and `report` are these functions (loaded when first used:
`import chancespiel` stays light). Games and records are the commands' own: the same runner,
workers, record format and text (docs/python.md).

Agents are spec strings, agents made with keywords (`chancespiel.agents.star2(...)`, an
AgentConfig), `pyspiel.Bot` objects, or bot factories `factory(game, player, seed) -> Bot`.
Records name each agent by a string:

- a spec string, or an AgentConfig without functions, by its spec (as the commands do);
- anything else by its given name (`named(agent, "name")`, or a tournament's dict keys), or
  without one: an AgentConfig with a function by its agent and parameters
  ('star2:heuristic=my_fn;max_depth=3'), a factory by its `__name__`, a bot by its class name.
  A name is no spec (no parentheses, not a registered agent's name), and it is the agent's
  identity in the records: resuming a file plays on with whatever now bears the name.

Such agents are registered under their names while the run plays (and removed after), and
never pickled: local workers are forked from this process and inherit them, so closures,
lambdas and bots holding native state play on any number of workers. The Ray backend, and
platforms without fork, cannot have them: a one-line ValueError before anything is played.
A `pyspiel.Bot` object plays all its games as it is (restarted before each, seated as player
0 or 1): its own random choices then depend on the games its worker played before it, so a
factory, which gets each game's seed, is the way to results that repeat.

Errors are one-line `ValueError`s (Ctrl-C is KeyboardInterrupt; the file keeps every finished
game, and the same call resumes).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import pyspiel

from chancespiel.agents.configured import AgentConfig
from chancespiel.agents.registry import AGENTS, SEED, AgentInfo, canonical_spec
from chancespiel.evaluation.cli.common import gathered, read_all, two_player_game
from chancespiel.evaluation.luck import CachedCorrections, LuckError, LuckSummary, value_function
from chancespiel.evaluation.match import (
    DEFAULT_MOVE_TIMEOUT_S,
    DEFAULT_OVERRUN_MS,
    Record,
    RecordFileError,
    checked_record,
    error_line,
    run_agent,
)
from chancespiel.evaluation.parallel import BACKENDS
from chancespiel.evaluation.ratings import Ratings
from chancespiel.evaluation.report import (
    AgentStats,
    PairSummary,
    agent_stats,
    fit_ratings,
    format_agent_stats,
    format_engines,
    format_luck,
    format_pair,
    format_ratings,
    format_report,
    format_table,
    pair_luck,
    pair_summaries,
    records_by_game,
    specs_in_order,
)
from chancespiel.evaluation.run_options import (
    MOVE_TIMEOUT_S,
    OVERRUN_MS,
    run_config,
    run_games,
    speed_line,
)
from chancespiel.evaluation.runner import RunConfig, RunResult
from chancespiel.evaluation.sprt import SprtParams, SprtResult
from chancespiel.evaluation.stats import MatchInterval
from chancespiel.evaluation.usage import (
    Bounded,
    RunInterruptedError,
    UsageError,
    checked_specs,
    matches_arg,
    seed_arg,
    workers_arg,
)
from chancespiel.games.registry import parse_parameters

Factory = Callable[[pyspiel.Game, int, int | None], pyspiel.Bot]
AgentLike = Any  # str | AgentConfig | pyspiel.Bot | Factory | Named
GameLike: TypeAlias = "str | pyspiel.Game"
T = TypeVar("T")


@dataclass(frozen=True)
class Named:
    """An agent with the name its records give it (see the module docstring)."""

    agent: Any
    name: str


def named(agent: AgentLike, name: str) -> Named:
    """`agent` (an AgentConfig, a pyspiel.Bot or a bot factory) named `name` in the records."""
    return Named(agent, name)


# Agents -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entrant:
    """One agent of a run: how records name it, and its factory when it is not a spec."""

    name: str
    factory: Factory | None = None  # None: a spec string, built by the registry
    source: Any = None  # the object it was made from


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"an agent's name must be a non-empty string, got {name!r}")
    try:
        plain = parse_parameters(name) == {"name": name}
    except ValueError:
        plain = False
    if not plain or name != name.strip() or not name.isprintable():
        raise ValueError(
            f"agent name {name!r} is not a plain name (no parentheses, commas or spaces at "
            "the ends): records could not tell it from a spec"
        )
    if name in AGENTS:
        raise ValueError(
            f"agent name {name!r} is a registered agent's: records would read it as that "
            "spec; give another name"
        )
    return name


def _bot_of(what: str, made: Any) -> pyspiel.Bot:
    if not isinstance(made, pyspiel.Bot):
        raise ValueError(f"{what} returned {made!r}, not a pyspiel.Bot")
    return made


def _entrant(agent: AgentLike, name: str | None = None) -> _Entrant:
    """How records name `agent` and how workers make it (module docstring)."""
    if isinstance(agent, Named):
        return _entrant(agent.agent, agent.name)
    if isinstance(agent, str):
        if name is not None and name != agent:
            raise ValueError(f"a spec string names itself: {agent!r} cannot be named {name!r}")
        return _Entrant(agent)
    if isinstance(agent, AgentConfig):
        if name in (None, agent.spec) and agent.spec is not None:
            return _Entrant(agent.spec)
        return _Entrant(_check_name(name or agent.label), agent, agent)
    if isinstance(agent, pyspiel.Bot):
        bot = agent

        def seated(game: pyspiel.Game, player: int, seed: int | None) -> pyspiel.Bot:
            return bot

        return _Entrant(_check_name(name or type(agent).__name__), seated, agent)
    if callable(agent):
        factory = agent
        label = name or str(getattr(agent, "__name__", type(agent).__name__))

        def made(game: pyspiel.Game, player: int, seed: int | None) -> pyspiel.Bot:
            try:
                bot = factory(game, player, seed)
            except Exception as e:  # the user's code: one line, as a bad spec's
                raise ValueError(f"agent {label}: {type(e).__name__}: {error_line(e)}") from e
            return _bot_of(f"agent {label}", bot)

        return _Entrant(_check_name(label), made, agent)
    raise ValueError(
        "an agent is a spec string, chancespiel.agents.NAME(...), a pyspiel.Bot or a "
        f"factory(game, player, seed) -> pyspiel.Bot, got {agent!r}"
    )


@contextmanager
def _registered(entrants: Sequence[_Entrant], backend: str) -> Iterator[None]:
    """The entrants that are not specs, registered under their names while the run plays
    (forked workers inherit them), removed after."""
    objects = [e for e in entrants if e.factory is not None]
    if objects and (backend != "local" or "fork" not in multiprocessing.get_all_start_methods()):
        where = "the ray backend" if backend != "local" else "a platform without fork"
        raise ValueError(
            f"agent {objects[0].name} is a Python object, which {where} cannot play (workers "
            "get agents by inheriting this process): give spec strings"
        )
    added: list[str] = []
    try:
        for entrant in objects:
            if entrant.name in added or entrant.factory is None:
                continue  # self-play: one agent in both seats
            # called as the registry calls factories: factory(game, player, seed=...)
            info = AgentInfo(entrant.name, entrant.factory, "made in Python", {"seed": SEED})
            AGENTS[entrant.name] = info
            added.append(entrant.name)
        yield
    finally:
        for name in added:
            AGENTS.pop(name, None)


def _distinct(entrants: Sequence[_Entrant]) -> None:
    """ValueError if two agents share a name but are not one spec, or one factory or keyword
    agent (self-play; a bot object cannot sit in both seats of a game)."""
    seen: dict[str, _Entrant] = {}
    for entrant in entrants:
        other = seen.setdefault(entrant.name, entrant)
        same = other.source is entrant.source and not isinstance(entrant.source, pyspiel.Bot)
        if other is not entrant and not same:
            raise ValueError(
                f"two agents are named {entrant.name!r}: name them (chancespiel.named(agent, "
                "'name'), or a dict of agents)"
            )


# Errors and options -------------------------------------------------------------------------


def _errors_as_values(function: Callable[..., T]) -> Callable[..., T]:
    """The commands' errors (UsageError, one line) raised as ValueError; Ctrl-C as
    KeyboardInterrupt."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> T:
        try:
            return function(*args, **kwargs)
        except RunInterruptedError as e:
            raise KeyboardInterrupt(str(e)) from None
        except (UsageError, RecordFileError) as e:
            raise ValueError(str(e)) from None

    return call


def _number(option: str, value: Any, bounded: Bounded) -> Any:
    """`value` checked as the command's option `option` (its argparse type)."""
    kinds = (int, float) if bounded.kind is float else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        kind = "a number" if bounded.kind is float else "an integer"
        raise ValueError(f"{option} must be {kind}, got {value!r}")
    try:
        return bounded(str(value))
    except argparse.ArgumentTypeError as e:
        raise ValueError(f"{option} {e}") from None


def _flag(option: str, value: Any) -> bool:
    """`value` checked as a switch: a string such as "no" would be taken as true."""
    if not isinstance(value, bool):
        raise ValueError(f"{option} must be True or False, got {value!r}")
    return value


def _value_name(value: Any) -> str | None:
    """`value` checked as a value function's name (as `report --value` takes it) or None."""
    if value is not None and not isinstance(value, str):
        raise ValueError(f"value must be a value function's name or None, got {value!r}")
    return value


def _game_string(game: GameLike) -> str:
    if isinstance(game, pyspiel.Game):
        return str(game)
    if not isinstance(game, str):
        raise ValueError(f"game must be a game string or a pyspiel.Game, got {game!r}")
    return game


def _run_options(
    game: str,
    pairs: list[tuple[str, str]],
    *,
    matches: int,
    seed: int,
    workers: int | None,
    out: str | os.PathLike[str] | None,
    backend: str,
    address: str | None,
    overrun_ms: float,
    move_timeout_s: float | None,
    progress: bool,
    label: str,
    **extra: Any,
) -> RunConfig:
    """The RunConfig the commands make of the same options (run_options.run_config)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise ValueError(f"out must be a file's path or None, got {out!r}")
    if address is not None and not isinstance(address, str):
        raise ValueError(f"address must be a Ray cluster's address or None, got {address!r}")
    options = argparse.Namespace(
        matches=_number("matches", matches, matches_arg),
        seed=_number("seed", seed, seed_arg),
        workers=None if workers is None else _number("workers", workers, workers_arg),
        backend=backend,
        address=address,
        out=None if out is None else os.fspath(out),
        overrun_ms=_number("overrun_ms", overrun_ms, OVERRUN_MS),
        move_timeout_s=_number("move_timeout_s", move_timeout_s or 0.0, MOVE_TIMEOUT_S),
        no_progress=not progress,
    )
    config = run_config(options, game, pairs, label=label, **extra)
    # with no file, the records are kept in memory (they are the result's)
    return dataclasses.replace(config, out=options.out, keep_records=True)


# Match ----------------------------------------------------------------------------------------


def match_header(game: str, a: str, b: str, seed: int, matches: int, out: str | None) -> str:
    """The first line `chancespiel match` prints, before any game is played."""
    where = f"records in {out}" if out else "records kept in memory"
    return (
        f"{game}: {a} (A) vs {b} (B), seed {seed}, {matches} matches of two games, seats "
        f"swapped, same dice; {where}"
    )


@dataclass
class MatchResult:
    """A match of A against B: `str()` is what `chancespiel match` prints."""

    game: str
    a: str  # A and B as the records name them
    b: str
    seed: int
    matches: int
    out: str | None  # the record file (None: the records are in `records` only)
    run: RunResult
    luck: LuckSummary | None = None  # with luck=True: raw and corrected match-level rates

    @property
    def records(self) -> list[Record]:
        """The games of the match (the file's and this call's), as the file holds them."""
        return self.run.records

    @property
    def summary(self) -> PairSummary | None:
        """A's results against B (None before any game is scored)."""
        pairs = self.run.tally.pairs()
        return pairs[0] if pairs else None

    @property
    def games(self) -> int:
        """Scored games."""
        return 0 if self.summary is None else self.summary.games

    @property
    def wins(self) -> int:
        """A's wins (forfeits of B included)."""
        return 0 if self.summary is None else self.summary.wins

    @property
    def draws(self) -> int:
        """Drawn games."""
        return 0 if self.summary is None else self.summary.draws

    @property
    def losses(self) -> int:
        """A's losses (its forfeits included)."""
        return 0 if self.summary is None else self.summary.losses

    @property
    def rate(self) -> float:
        """A's score rate (a win 1, a draw 1/2), nan without games."""
        return float("nan") if self.summary is None else self.summary.rate

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of A's score rate."""
        return (float("nan"),) * 2 if self.summary is None else self.summary.interval

    @property
    def corrected(self) -> MatchInterval | None:
        """With luck=True, A's luck-corrected rate and its 95% interval."""
        return None if self.luck is None else self.luck.corrected

    @property
    def sprt(self) -> SprtResult | None:
        """The SPRT's state with sprt=..., else None."""
        return self.run.sprt

    @property
    def agents(self) -> list[AgentStats]:
        """Per-move times, nodes, depths and failures of A and B."""
        return self.run.tally.agents()

    def body(self) -> str:
        """What `chancespiel match` prints after the games."""
        lines = [speed_line(self.run)]
        summary = self.summary
        if summary is not None:
            lines.append("  " + format_pair(summary))
            if (mixed := format_engines([summary])) is not None:  # resumed on another engine
                lines.append(mixed)
        if self.run.sprt is not None:
            lines.append("  " + self.run.sprt.describe())
            beyond = len(summary.match_scores) - self.run.sprt.pairs if summary is not None else 0
            if self.run.sprt.decision is not None and beyond > 0:
                lines.append(
                    f"  ({beyond} more whole match(es) were under way when the test decided: "
                    "recorded and counted in the rates above, not in the test)"
                )
        if self.luck is not None and summary is not None:
            lines.append("  " + format_luck(summary.a, summary.b, self.luck))
        lines.append("  per-move time and nodes:")
        lines.append(format_agent_stats(self.agents))
        if self.run.extra:
            lines.append(
                f"  ({len(self.run.extra)} games of matches beyond {self.matches} in the file "
                "are not counted)"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        header = match_header(self.game, self.a, self.b, self.seed, self.matches, self.out)
        return f"{header}\n{self.body()}"


def match_luck(records: Sequence[Record], summary: PairSummary, value: str | None) -> LuckSummary:
    """The luck summary of the match's pair over `records` (report --luck's)."""
    return tournament_luck(records, [summary], value)[0]


def tournament_luck(
    records: Sequence[Record], pairs: Sequence[PairSummary], value: str | None
) -> list[LuckSummary]:
    """The luck summary of each of `pairs` over `records` (report --luck's)."""
    try:
        lucks = pair_luck(records, value)
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None
    return [lucks[pair.key] for pair in pairs]


def check_luck(game: str, luck: bool, value: str | None) -> None:
    """UsageError for a value without luck, or a value function the game lacks."""
    if value is not None and not luck:
        raise UsageError("--value needs --luck")
    if luck:
        try:
            value_function(game, value)
        except LuckError as e:
            raise UsageError(f"--luck: {e}") from None


@_errors_as_values
def match(
    game: GameLike,
    a: AgentLike,
    b: AgentLike,
    *,
    matches: int,
    seed: int = 0,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    sprt: str | SprtParams | None = None,
    luck: bool = False,
    value: str | None = None,
    backend: str = "local",
    address: str | None = None,
    overrun_ms: float = DEFAULT_OVERRUN_MS,
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S,
    progress: bool = False,
) -> MatchResult:
    """`chancespiel match`: `matches` seat-swapped matches of A against B on shared dice.

    Args:
      game: a game string ('python_pig(winscore=50)') or a pyspiel.Game.
      a, b: agents (module docstring).
      matches, seed, workers, backend, address, overrun_ms, move_timeout_s: as the
        command's options (move_timeout_s None or 0: no limit).
      out: a record file to append to (resumed: only missing games are played); None keeps
        the records in memory only.
      sprt: 'ELO0,ELO1,ALPHA,BETA' or SprtParams: stop when the test decides.
      luck, value: the luck-corrected rate (and with sprt, a test of corrected scores).
      progress: a progress bar on stderr.

    Raises:
      ValueError: for bad input, in one line, before any game is played.
    """

    game_string = _game_string(game)
    luck, progress = _flag("luck", luck), _flag("progress", progress)
    value = _value_name(value)
    loaded = two_player_game(game_string)
    sides = [_entrant(a), _entrant(b)]
    _distinct(sides)
    if isinstance(sprt, str):
        try:
            sprt = SprtParams.parse(sprt)
        except ValueError as e:
            raise UsageError(f"sprt: {e}") from None
    elif sprt is not None and not isinstance(sprt, SprtParams):
        raise UsageError(f"sprt must be 'ELO0,ELO1,ALPHA,BETA' or SprtParams, got {sprt!r}")
    check_luck(str(loaded), luck, value)
    with _registered(sides, backend):
        names = [side.name for side in sides]
        checked_specs(loaded, names, unattended=True)
        config = _run_options(
            game_string,
            [(names[0], names[1])],
            matches=matches,
            seed=seed,
            workers=workers,
            out=out,
            backend=backend,
            address=address,
            overrun_ms=overrun_ms,
            move_timeout_s=move_timeout_s,
            progress=progress,
            label="match",
            sprt=sprt,
            luck=luck,
            value=value,
        )
        run = run_games(config)
    result = MatchResult(
        game_string, names[0], names[1], config.seed, config.matches, config.out, run
    )
    if luck and result.summary is not None:
        result.luck = match_luck(run.records, result.summary, value)
    return result


# Tournament -------------------------------------------------------------------------------


def tournament_header(game: str, agents: int, seed: int, matches: int, out: str | None) -> str:
    """The first line `chancespiel tournament` prints, before any game is played."""
    where = f"records in {out}" if out else "records kept in memory"
    return (
        f"{game}: round robin of {agents} agents, {matches} matches (two games, seats "
        f"swapped, same dice) per pair, seed {seed}; {where}"
    )


@dataclass
class TournamentResult:
    """A round robin: `str()` is what `chancespiel tournament` prints."""

    game: str
    agents: list[str]  # as the records name them, in the order given (the first: Elo anchor)
    seed: int
    matches: int
    out: str | None
    run: RunResult
    luck: list[LuckSummary] | None = None  # with luck=True: one per pair, as `pairs`

    @property
    def records(self) -> list[Record]:
        """The games of the tournament (the file's and this call's)."""
        return self.run.records

    @property
    def names(self) -> list[str]:
        """The agents as the tables name them (a value model's digest added where one spec
        played with two)."""
        return [self.run.tally.name(run_agent(self.game, agent)) for agent in self.agents]

    @property
    def pairs(self) -> list[PairSummary]:
        """Each pair's results (A is the earlier agent): rate, Wilson interval, games."""
        return self.run.tally.pairs()

    @property
    def ratings(self) -> Ratings | None:
        """Bradley-Terry Elo with standard errors, relative to the first agent."""
        return fit_ratings(self.pairs, self.names)

    @property
    def agent_stats(self) -> list[AgentStats]:
        """Per-move times, nodes, depths and failures of each agent."""
        return self.run.tally.agents()

    def body(self) -> str:
        """What `chancespiel tournament` prints after the games."""
        summaries, names = self.pairs, self.names
        lines = [speed_line(self.run), format_table(summaries, names)]
        if (ratings := fit_ratings(summaries, names)) is not None:
            lines.append(format_ratings(ratings))
        if (mixed := format_engines(summaries)) is not None:  # resumed on another engine
            lines.append(mixed)
        if self.luck is not None:
            pairs = zip(summaries, self.luck, strict=True)
            lines += ["  " + format_luck(s.a, s.b, luck) for s, luck in pairs]
        lines.append("  per-move time and nodes:")
        lines.append(format_agent_stats(self.agent_stats))
        return "\n".join(lines)

    def __str__(self) -> str:
        header = tournament_header(self.game, len(self.agents), self.seed, self.matches, self.out)
        return f"{header}\n{self.body()}"


@_errors_as_values
def tournament(
    game: GameLike,
    agents: Sequence[AgentLike] | Mapping[str, AgentLike],
    *,
    matches: int,
    seed: int = 0,
    workers: int | None = None,
    out: str | os.PathLike[str] | None = None,
    luck: bool = False,
    value: str | None = None,
    backend: str = "local",
    address: str | None = None,
    overrun_ms: float = DEFAULT_OVERRUN_MS,
    move_timeout_s: float | None = DEFAULT_MOVE_TIMEOUT_S,
    progress: bool = False,
) -> TournamentResult:
    """`chancespiel tournament`: `matches` matches of every pair of agents.

    `agents` is a list, or a dict of name -> agent (its keys name the agents that are not
    specs; a spec's key is the spec itself). The first agent is the Elo anchor; the other
    arguments are match's (luck, value: each pair's luck-corrected rate).

    Raises:
      ValueError: for bad input, in one line, before any game is played.
    """

    game_string = _game_string(game)
    luck, progress = _flag("luck", luck), _flag("progress", progress)
    value = _value_name(value)
    loaded = two_player_game(game_string)
    if isinstance(agents, str):  # (a sequence of letters, each taken for an agent)
        raise UsageError(f"agents must be a list or a dict of agents, got {agents!r}")
    if isinstance(agents, Mapping):
        entrants = [_entrant(agent, key) for key, agent in agents.items()]
    else:
        entrants = [_entrant(agent) for agent in agents]
    if len(entrants) < 2:
        raise UsageError("a tournament needs at least two distinct agents")
    _distinct(entrants)
    check_luck(str(loaded), luck, value)
    with _registered(entrants, backend):
        names = [e.name for e in entrants]
        checked_specs(loaded, names, unattended=True)
        canonical = [canonical_spec(name) for name in names]
        for i, agent in enumerate(canonical):
            if (first := canonical.index(agent)) != i:
                raise UsageError(
                    f"a tournament needs distinct agents: {names[first]} and {names[i]} are "
                    "the same agent"
                )
        pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        config = _run_options(
            game_string,
            pairs,
            matches=matches,
            seed=seed,
            workers=workers,
            out=out,
            backend=backend,
            address=address,
            overrun_ms=overrun_ms,
            move_timeout_s=move_timeout_s,
            progress=progress,
            label="tournament",
        )
        run = run_games(config)
    result = TournamentResult(game_string, names, config.seed, config.matches, config.out, run)
    if luck and result.pairs:
        result.luck = tournament_luck(run.records, result.pairs, value)
    return result


# Report -------------------------------------------------------------------------------------


@dataclass
class GameReport:
    """The report of one game's records."""

    game: str
    records: list[Record]
    pairs: list[PairSummary]
    agents: list[AgentStats]
    ratings: Ratings | None
    luck: list[LuckSummary] | None  # with luck=True: one per pair, in the order of `pairs`


@dataclass
class ReportResult:
    """A report of records: `str()` is what `chancespiel report` prints (`--luck` with
    luck=True)."""

    records: list[Record]
    luck: bool
    value: str | None
    games: list[GameReport]
    corrections: Any = dataclasses.field(repr=False, default=None)

    def __str__(self) -> str:
        return format_report(self.records, self.luck, self.value, self.corrections)


@_errors_as_values
def report(
    source: Any,
    luck: bool = False,
    value: str | None = None,
) -> ReportResult:
    """`chancespiel report`: score rates, tables, ratings, times and failures of records.

    Args:
      source: a MatchResult or TournamentResult, a list of records, or the path of a record
        file or a list of paths (read as the command reads them).
      luck: add the luck-corrected rate of every pair.
      value: the value function of the correction (default: the game's best).

    Raises:
      ValueError: for records that cannot be read or corrected, in one line.
    """

    luck, value = _flag("luck", luck), _value_name(value)
    if value is not None and not luck:
        raise UsageError("--value needs --luck")
    if isinstance(source, (MatchResult, TournamentResult)):
        records = list(source.records)
    elif isinstance(source, (str, os.PathLike)):
        records = read_all([os.fspath(source)])
    elif isinstance(source, Sequence) and not source:
        raise UsageError("no game records to report: the list is empty")
    elif isinstance(source, Sequence) and all(isinstance(s, (str, os.PathLike)) for s in source):
        records = read_all([os.fspath(s) for s in source])
    elif isinstance(source, Sequence) and all(isinstance(r, dict) for r in source):
        # checked as a file's lines are: a record made or edited in memory is counted as
        # it says, so one that cannot be right is refused rather than miscounted (copies:
        # gathering names each agent by its first spelling)
        checked = [checked_record(dict(r), f"record {i}") for i, r in enumerate(source)]
        records = gathered(checked, "the records")
    else:
        raise UsageError(
            "report takes a match or tournament result, records, or record file paths, "
            f"got {type(source).__name__}"
        )
    if not records:
        raise UsageError("no game records to report")
    corrections = CachedCorrections()
    games = []
    try:
        for game, game_records in records_by_game(records).items():
            pairs = pair_summaries(game_records)
            lucky = pair_luck(game_records, value, corrections) if luck else None
            games.append(
                GameReport(
                    game,
                    game_records,
                    pairs,
                    agent_stats(game_records),
                    fit_ratings(pairs, specs_in_order(pairs)),
                    None if lucky is None else [lucky[s.key] for s in pairs],
                )
            )
    except LuckError as e:
        raise UsageError(f"--luck: {e}") from None
    return ReportResult(records, luck, value, games, corrections)


__all__ = [  # what `chancespiel` exposes
    "GameReport",
    "MatchResult",
    "Named",
    "ReportResult",
    "TournamentResult",
    "match",
    "named",
    "report",
    "tournament",
]
