"""Summaries of game records: score rates, per-move times, failures, tables, ratings.

Scoring: a win is 1, a draw 1/2, a loss 0. A game a bot lost by raising or by exceeding the
hard move limit is a forfeit: it scores as a loss for that bot and a win for its opponent, and
is counted among the failures. A game whose worker process died is not scored at all (no side
can be blamed) and is counted apart.
"""

from __future__ import annotations

import csv
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chancespiel import files
from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.match import (
    Agent,
    GameKey,
    PairKey,
    Record,
    a_score,
    canonical_agent,
    canonical_game,
    game_key,
    match_dice,
    record_seats,
)
from chancespiel.evaluation.play import score_of
from chancespiel.evaluation.ratings import Ratings, bradley_terry, mle_exists
from chancespiel.evaluation.stats import Z95, match_interval, wilson_interval

# a record's luck correction under a value function (evaluation.luck.record_correction, or
# a CachedCorrections that computes each once)
Correction = Callable[[Record, Any], float]

MOVE_SAMPLE = 100_000  # move times kept per agent for the p99


@dataclass
class PairSummary:
    """A's results against B in one game (in self-play, A and B the same agent, the first
    seat's results are what tells something)."""

    game: str
    a: str
    b: str
    games: int = 0  # scored games
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unscored: int = 0
    matches: int = 0  # distinct match indices
    # whole matches (both games scored) by A's points 0, 0.5, 1, 1.5, 2: the pentanomial counts
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    pending: dict[int, float | None] = field(default_factory=dict, repr=False)  # first games
    engines: Counter[str] = field(default_factory=Counter)  # games by the engine that played
    pair: PairKey | None = field(default=None, repr=False)  # the pairing's game and agents
    # the results of player 0 (the first seat): wins, draws, losses
    first_seat: list[int] = field(default_factory=lambda: [0, 0, 0], repr=False)

    @property
    def key(self) -> PairKey:
        """The pairing's game and agents (made from game, a and b where `pair` is not set)."""
        if self.pair is not None:
            return self.pair
        return (self.game, Agent(canonical_agent(self.a)), Agent(canonical_agent(self.b)))

    @property
    def first_seat_score(self) -> tuple[float, int]:
        """The first seat's points (wins + draws / 2) and scored games."""
        wins, draws, losses = self.first_seat
        return wins + draws / 2, wins + draws + losses

    @property
    def self_play(self) -> bool:
        """True if A and B are one agent (its canonical spec and value model)."""
        return self.key[1] == self.key[2]

    def add(self, record: Record) -> None:
        """Counts one game (records of one game and pair; memory: the unfinished matches)."""
        engine = record.get("engine")  # format 3 on
        if isinstance(engine, str):
            self.engines[engine] += 1
        if record["returns"] is not None:
            seat0 = score_of(record["returns"], 0)
            self.first_seat[0 if seat0 == 1.0 else 1 if seat0 == 0.5 else 2] += 1
        score = a_score(record)
        match = match_dice(record)  # runs with other seeds reuse the match numbers
        if match in self.pending:
            first = self.pending.pop(match)
            if first is not None and score is not None:
                self.pentanomial[round(2 * (first + score))] += 1
        else:
            self.pending[match] = score
            self.matches += 1
        if score is None:
            self.unscored += 1
            return
        self.games += 1
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def match_scores(self) -> list[float]:
        """A's mean score in each whole match (ordered by score, not by match)."""
        return [k / 4 for k, count in enumerate(self.pentanomial) for _ in range(count)]

    @property
    def pentanomial_interval(self) -> tuple[float, float]:
        """Normal 95% interval of the rate from whole matches (both games scored), as
        fastchess and OpenBench compute it from pentanomial counts ((nan, nan) below two, and
        where every match scored alike: an interval of no width would claim certainty)."""
        interval = match_interval(self.match_scores)
        if interval.variance == 0.0:
            return math.nan, math.nan
        return interval.low, interval.high

    @property
    def score(self) -> float:
        """A's points: wins + draws / 2."""
        return self.wins + 0.5 * self.draws

    @property
    def rate(self) -> float:
        """A's score rate (nan without games)."""
        return self.score / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95% interval of the rate ((nan, nan) without games)."""
        return wilson_interval(self.score, self.games) if self.games else (math.nan, math.nan)

    def as_dict(self) -> dict[str, Any]:
        """For JSON (self-play adds "self_play" and the first seat's results; agents with a
        value model add "models", A's and B's digests)."""
        low, high = self.interval
        extra: dict[str, Any] = {}
        _, a, b = self.key
        if a.model is not None or b.model is not None:
            extra["models"] = [a.model, b.model]
        if self.self_play:
            wins, draws, losses = self.first_seat
            score, games = self.first_seat_score
            extra["self_play"] = True
            extra["first_seat"] = {
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": score,
                "rate": score / games if games else math.nan,
                "wilson95": list(wilson_interval(score, games) if games else (math.nan,) * 2),
            }
        return {
            "game": self.game,
            "a": self.a,
            "b": self.b,
            "matches": self.matches,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "unscored": self.unscored,
            "score": self.score,
            "rate": self.rate,
            "wilson95": [low, high],
            "whole_matches": len(self.match_scores),
            "pentanomial95": list(self.pentanomial_interval),
            **extra,
            "engines": dict(self.engines),
        }


def pair_summaries(records: Iterable[Record]) -> list[PairSummary]:
    """One summary per pairing (the game, A and B of the records' keys), in order of first
    appearance; equivalent game strings are one game (named by the loaded game's string), two
    spellings of an agent one agent, one spec with two value models two agents."""
    tally = Tally()
    for record in records:
        tally.add_pair(record)
    return tally.pairs()


@dataclass
class AgentStats:
    """Per-move times, nodes and failures of one agent spec in one game."""

    game: str
    spec: str  # how the report names the agent (Tally.name)
    games: int = 0
    moves: int = 0
    total_ms: float = 0.0
    max_ms: float | None = None
    # the move times, or a uniform sample of MOVE_SAMPLE of them (Algorithm R) for p99
    move_ms: list[float] = field(default_factory=list, repr=False)
    node_moves: int = 0
    total_nodes: int = 0
    node_ms: float = 0.0  # the time of the moves with a node count
    depth_moves: int = 0
    total_depth: int = 0
    limit_ms: float | None = None
    overrun_ms: float | None = None  # the tolerance of the records
    overruns: int = 0
    worst_overrun_ms: float | None = None  # max(move time - limit) over all moves
    clocks: set[str] = field(default_factory=set)  # what the move times were measured on
    failures: Counter[str] = field(default_factory=Counter)  # 'Kind: message' -> games
    model: str | None = None  # the digest of its value model, where its records name one

    def add_moves(self, times: Sequence[float]) -> None:
        """Counts move times, keeping at most MOVE_SAMPLE of them."""
        for ms in times:
            self.moves += 1
            self.total_ms += ms
            if self.max_ms is None or ms > self.max_ms:
                self.max_ms = ms
            if len(self.move_ms) < MOVE_SAMPLE:
                self.move_ms.append(ms)
            else:  # seeded per agent: a report is the same every time
                rng = self.__dict__.setdefault("_rng", random.Random(self.spec))
                slot = rng.randrange(self.moves)
                if slot < MOVE_SAMPLE:
                    self.move_ms[slot] = ms

    def as_dict(self) -> dict[str, Any]:
        """For JSON (p99 is exact up to MOVE_SAMPLE moves, from a uniform sample beyond)."""
        times = np.asarray(self.move_ms) if self.move_ms else None
        return {
            "game": self.game,
            "spec": self.spec,
            **({"model": self.model} if self.model is not None else {}),
            "games": self.games,
            "moves": self.moves,
            "mean_ms": self.total_ms / self.moves if self.moves else None,
            "p99_ms": float(np.percentile(times, 99)) if times is not None else None,
            "max_ms": self.max_ms,
            "mean_nodes": self.total_nodes / self.node_moves if self.node_moves else None,
            "mean_depth": self.total_depth / self.depth_moves if self.depth_moves else None,
            "nodes_per_s": 1000 * self.total_nodes / self.node_ms if self.node_ms else None,
            "limit_ms": self.limit_ms,
            "overrun_ms": self.overrun_ms,
            "overruns": self.overruns,
            "worst_overrun_ms": self.worst_overrun_ms,
            # only where some moves were timed on the CPU (format 5 on): older reports stay
            **({"clocks": sorted(self.clocks)} if "cpu" in self.clocks else {}),
            "failures": sum(self.failures.values()),
            "failure_kinds": dict(self.failures),
        }


def agent_stats(records: Iterable[Record]) -> list[AgentStats]:
    """One AgentStats per (game, spec), in order of first appearance."""
    tally = Tally()
    for record in records:
        tally.add_agents(record)
    return tally.agents()


class Tally:
    """Pair summaries and agent statistics fed one record at a time: a run can summarize any
    number of games in memory bounded by the agents, pairs and unfinished matches.

    Records are counted by their keys (`game_key`): an agent is its canonical spec and value
    model, named by its first spelling (or the one `names` gives) and, where one spec played
    with two models (or with one and, in records older than format 4, an unnamed one), by its
    model's digest too."""

    def __init__(self, names: dict[Agent, str] | None = None) -> None:
        self._pairs: dict[PairKey, PairSummary] = {}
        self._agents: dict[tuple[str, Agent], AgentStats] = {}
        self._names: dict[Agent, str] = dict(names or {})

    def add(self, record: Record) -> None:
        """Counts one game record."""
        key = game_key(record)
        self.add_pair(record, key)
        self.add_agents(record, key)

    def name(self, agent: Agent) -> str:
        """How reports name `agent`: its first spelling, and its model's digest where another
        agent of the tally has the same spec."""
        spelling = self._names[agent]
        if all(other.spec != agent.spec or other == agent for other in self._names):
            return spelling
        return agent.label(spelling)

    def _learn_names(self, record: Record, agents: Sequence[Agent]) -> None:
        for agent, spelling in zip(agents, record_seats(record), strict=True):
            self._names.setdefault(agent, spelling)

    def add_pair(self, record: Record, key: GameKey | None = None) -> None:
        """Counts a record (whose key is `key`, if given) in its pair's summary."""
        if key is None:
            key = game_key(record)
        self._learn_names(record, key.seats)
        summary = self._pairs.get(key.pair)
        if summary is None:
            summary = self._pairs[key.pair] = PairSummary(key.game, "", "", pair=key.pair)
        summary.add(record)

    def pairs(self) -> list[PairSummary]:
        """One summary per pairing, in order of first appearance."""
        for (_, a, b), summary in self._pairs.items():
            summary.a, summary.b = self.name(a), self.name(b)
        return list(self._pairs.values())

    def agents(self) -> list[AgentStats]:
        """One AgentStats per agent of each game, in order of first appearance."""
        for (_, agent), stats in self._agents.items():
            stats.spec = self.name(agent)
        return list(self._agents.values())

    def add_agents(self, record: Record, key: GameKey | None = None) -> None:
        """Counts a record's moves, nodes and failures per agent (its key: as add_pair)."""
        stats = self._agents
        if key is None:
            key = game_key(record)
        self._learn_names(record, key.seats)
        for seat, agent in enumerate(key.seats):
            entry = stats.get((key.game, agent))
            if entry is None:  # named by the spelling now; by `name` when it is shown
                entry = AgentStats(key.game, record_seats(record)[seat], model=agent.model)
                stats[(key.game, agent)] = entry
            entry.games += 1
            entry.add_moves(record["move_ms"][seat])
            entry.clocks.add(record.get("clocks", ["wall", "wall"])[seat])  # format 5 on
            if record["nodes"][seat] is not None:
                for count, ms in zip(record["nodes"][seat], record["move_ms"][seat], strict=False):
                    if count is not None:
                        entry.node_moves += 1
                        entry.total_nodes += count
                        entry.node_ms += ms
            depths = record.get("depths", [None, None])[seat]  # format 3 on
            if depths is not None:
                reached = [d for d in depths if d is not None]
                entry.depth_moves += len(reached)
                entry.total_depth += sum(reached)
            limit = record["limit_ms"][seat]
            if limit is not None:
                entry.limit_ms = limit
                entry.overrun_ms = record["overrun_ms"]
                entry.overruns += record["overruns"][seat]
                if record["move_ms"][seat]:
                    worst = max(record["move_ms"][seat]) - limit
                    if entry.worst_overrun_ms is None or worst > entry.worst_overrun_ms:
                        entry.worst_overrun_ms = worst
            error = record["error"]
            # (records may leave out an error's seat: a crash is no seat's failure)
            if error is not None and error.get("seat") == seat:
                first_line = error["message"].splitlines()[0] if error["message"] else ""
                entry.failures[f"{error['kind']}: {first_line}"] += 1


def _pct(x: float) -> str:
    return "  n/a" if math.isnan(x) else f"{100 * x:.1f}%"


def format_self_play(summary: PairSummary) -> str:
    """The first seat's score line of an agent against itself."""
    wins, draws, losses = summary.first_seat
    score, games = summary.first_seat_score
    low, high = wilson_interval(score, games) if games else (math.nan, math.nan)
    text = (
        f"self-play of {summary.a}: the first seat scored {score:g} of {games} games: "
        f"{_pct(score / games if games else math.nan)} (95% Wilson interval {_pct(low)} to "
        f"{_pct(high)}; {wins} wins, {draws} draws, {losses} losses)"
    )
    if summary.unscored:
        text += f"; CRASHED: {summary.unscored} unscored games (their worker process died)"
    return text


def format_pair(summary: PairSummary) -> str:
    """A's score line (the first seat's in self-play)."""
    if summary.self_play:
        return format_self_play(summary)
    low, high = summary.interval
    text = (
        f"{summary.a} scored {summary.score:g} of {summary.games} games against {summary.b}: "
        f"{_pct(summary.rate)} (95% Wilson interval {_pct(low)} to {_pct(high)}; "
        f"{summary.wins} wins, {summary.draws} draws, {summary.losses} losses)"
    )
    low, high = summary.pentanomial_interval
    matches = summary.match_scores
    if not math.isnan(low):
        text += f"; from {len(matches)} whole matches (pentanomial): {_pct(low)} to {_pct(high)}"
    elif len(matches) > 1:
        text += (
            f"; all {len(matches)} whole matches scored {_pct(matches[0]).strip()} alike: no "
            "spread to give a pentanomial interval"
        )
    if summary.unscored:
        text += f"; CRASHED: {summary.unscored} unscored games (their worker process died)"
    return text


def format_agent_stats(stats: Sequence[AgentStats]) -> str:
    """A table of per-move times, nodes, depths and search rates (nodes per second of the
    moves that counted nodes), then the failures of each agent."""
    width = max([len(s.spec) for s in stats] + [5])
    lines = [
        f"  {'agent':<{width}}  {'moves':>7}  {'mean ms':>9}  {'p99 ms':>9}  {'max ms':>9}  "
        f"{'limit ms':>8}  {'overruns':>8}  {'worst overrun ms':>16}  {'mean nodes':>10}  "
        f"{'mean depth':>10}  {'nodes/s':>11}"
    ]
    for s in stats:
        d = s.as_dict()

        def num(value: float | None, fmt: str = ".2f") -> str:
            return "-" if value is None else format(value, fmt)

        lines.append(
            f"  {s.spec:<{width}}  {d['moves']:>7}  {num(d['mean_ms']):>9}  "
            f"{num(d['p99_ms']):>9}  {num(d['max_ms']):>9}  {num(s.limit_ms, 'g'):>8}  "
            f"{s.overruns if s.limit_ms is not None else '-':>8}  "
            f"{num(s.worst_overrun_ms):>16}  {num(d['mean_nodes'], '.0f'):>10}  "
            f"{num(d['mean_depth']):>10}  {num(d['nodes_per_s'], ',.0f'):>11}"
        )
    tolerances = {s.overrun_ms for s in stats if s.overrun_ms is not None}
    if tolerances:
        shown = ", ".join(f"{t:g}" for t in sorted(tolerances))
        lines.append(f"  (an overrun is a move longer than limit + {shown} ms)")
    on_cpu = [
        s.spec if s.clocks == {"cpu"} else f"{s.spec} (partly)" for s in stats if "cpu" in s.clocks
    ]
    if on_cpu:
        lines.append(f"  (times and nodes/s on the CPU clock, as the budget: {', '.join(on_cpu)})")
    for s in stats:
        for failure, count in s.failures.most_common():
            lines.append(f"  FAILED: {s.spec} forfeited {count} game(s): {failure}")
    return "\n".join(lines)


def format_engines(summaries: Sequence[PairSummary]) -> str | None:
    """Lines flagging the games of one game played by more than one engine, with each pair's
    counts (None if one engine played them all): their times, search rates and any result
    under a time budget are not comparable."""
    engines = sorted({engine for s in summaries for engine in s.engines})
    if len(engines) < 2:
        return None
    lines = [
        f"  MIXED ENGINES: these games were played by the {' and the '.join(engines)} engines; "
        "times, nodes/s and results under time budgets are not comparable across them"
    ]
    for s in summaries:
        counts = ", ".join(f"{n} {engine}" for engine, n in sorted(s.engines.items()))
        mixed = "  <- mixed" if len(s.engines) > 1 else ""
        lines.append(f"    {s.a} vs {s.b}: {counts or 'engine not recorded'}{mixed}")
    return "\n".join(lines)


def specs_in_order(summaries: Iterable[PairSummary]) -> list[str]:
    """The agents of pair summaries, in order of first appearance."""
    names: list[str] = []
    for s in summaries:
        for spec in (s.a, s.b):
            if spec not in names:
                names.append(spec)
    return names


def fit_ratings(
    summaries: Sequence[PairSummary], names: Sequence[str] | None = None
) -> Ratings | None:
    """Bradley-Terry Elo of the agents of one game's pairs (one virtual draw per pair when the
    maximum-likelihood estimate does not exist); None with fewer than two agents."""
    names = list(names) if names is not None else specs_in_order(summaries)
    if len(names) < 2:
        return None
    results: dict[tuple[str, str], tuple[float, int]] = {}
    for s in summaries:
        if s.self_play or s.games == 0:
            continue
        key, score, games = (s.a, s.b), s.score, s.games
        if (s.b, s.a) in results:  # the same pair played both ways round
            key = (s.b, s.a)
            score = results[key][0] + (s.games - s.score)
            games += results[key][1]
        elif key in results:
            score += results[key][0]
            games += results[key][1]
        results[key] = (score, games)
    try:
        prior = 0.0 if mle_exists(names, results) else 1.0
        return bradley_terry(names, results, prior_draws=prior)
    except ValueError:
        return None


def format_table(summaries: Sequence[PairSummary], names: Sequence[str]) -> str:
    """The round-robin table: the row agent's score rate against the column agent."""
    index = {name: i for i, name in enumerate(names)}
    cells = [["" if i != j else "-" for j in names] for i in names]
    for s in summaries:
        if s.self_play:
            continue
        low, high = s.interval
        i, j = index[s.a], index[s.b]
        cells[i][j] = f"{_pct(s.rate)} [{_pct(low).strip()}, {_pct(high).strip()}]"
        cells[j][i] = f"{_pct(1 - s.rate)} [{_pct(1 - high).strip()}, {_pct(1 - low).strip()}]"
    width = max([len(c) for row in cells for c in row] + [6])
    lines = ["  agents:"]
    lines += [f"    {k + 1}  {name}" for k, name in enumerate(names)]
    lines.append("  score rate of the row agent against the column agent [95% Wilson interval]:")
    lines.append("     " + "".join(f"  {k + 1:^{width}}" for k in range(len(names))))
    for k, row in enumerate(cells):
        lines.append(f"  {k + 1:>3}" + "".join(f"  {c:^{width}}" for c in row))
    return "\n".join(lines)


def format_ratings(ratings: Ratings) -> str:
    """Elo with 95% intervals, best first."""
    width = max(len(n) for n in ratings.names)
    order = sorted(range(len(ratings.names)), key=lambda i: -ratings.elo[i])
    head = (
        f"  Elo (Bradley-Terry maximum likelihood, relative to {ratings.anchor}; "
        f"+- {Z95:.2f} standard errors)"
    )
    if ratings.prior_draws:
        head += f"; {ratings.prior_draws:g} virtual draw per pair added (a perfect score)"
    lines = [head + ":"]
    for i in order:
        name, elo, se = ratings.names[i], ratings.elo[i], ratings.se[i]
        spread = "(anchor)" if name == ratings.anchor else f"+- {Z95 * se:6.1f}"
        lines.append(f"    {name:<{width}}  {elo:8.1f}  {spread}")
    return "\n".join(lines)


def records_by_game(records: Iterable[Record]) -> dict[str, list[Record]]:
    """Records grouped by game, equivalent game strings as one (the loaded game's string)."""
    games: dict[str, list[Record]] = {}
    for record in records:
        games.setdefault(game_key(record).game, []).append(record)
    return games


def records_by_pair(records: Iterable[Record]) -> dict[PairKey, list[Record]]:
    """Records grouped by pairing (their keys' game, A and B), in order of first appearance."""
    pairs: dict[PairKey, list[Record]] = {}
    for record in records:
        pairs.setdefault(game_key(record).pair, []).append(record)
    return pairs


def pair_luck(
    game_records: Sequence[Record], value: str | None = None, corrections: Correction | None = None
) -> dict[PairKey, Any]:
    """LuckSummary of each pairing of one game's records (see evaluation.luck), with the
    records' corrections from `corrections` (a CachedCorrections) when given."""
    from chancespiel.evaluation.luck import luck_summary

    return {
        key: luck_summary(pair, value, correction=corrections)
        for key, pair in records_by_pair(game_records).items()
    }


def format_luck(a: str, b: str, luck: Any) -> str:
    """Raw and luck-corrected match-level rates of A side by side, with the games saved."""
    raw, cor = luck.raw, luck.corrected
    text = (
        f"{a} vs {b}, luck-corrected (value {luck.value}, {luck.matches} whole matches): "
        f"raw {_pct(raw.mean)} [{_pct(raw.low).strip()}, {_pct(raw.high).strip()}], "
        f"corrected {_pct(cor.mean)} [{_pct(cor.low).strip()}, {_pct(cor.high).strip()}]"
    )
    ratio = luck.variance_ratio
    if not luck.used:
        text += "; the correction does not lower the variance here: raw scores kept"
    elif not math.isnan(ratio):
        text += (
            f"; variance ratio {ratio:.2f} (a corrected match is worth {ratio:.1f} raw ones: "
            f"{100 * (1 - 1 / ratio):.1f}% fewer games for the same interval)"
        )
    excluded = []
    if luck.forfeits:
        excluded.append(f"{luck.forfeits} forfeited")
    if luck.crashes:
        excluded.append(f"{luck.crashes} crashed")
    if luck.excluded_matches:
        what = ", ".join(excluded) if excluded else "incomplete"
        text += f"; {luck.excluded_matches} matches left out ({what} games)"
    return text


def format_lucks(
    pairs: Sequence[PairSummary],
    game_records: Sequence[Record],
    value: str | None = None,
    corrections: Correction | None = None,
) -> list[str]:
    """`format_luck` of each of `pairs` (one game's) from its records in `game_records`."""
    lucks = pair_luck(game_records, value, corrections)
    return ["  " + format_luck(s.a, s.b, lucks[s.key]) for s in pairs]


def summarize(
    records: Sequence[Record],
    luck: bool = False,
    value: str | None = None,
    corrections: Correction | None = None,
) -> dict[str, Any]:
    """Everything `report --json` prints: per game, the pairs, the agents and the ratings;
    with `luck`, each pair gets a "luck" object (evaluation.luck.LuckSummary.as_dict).
    `corrections`: as in pair_luck."""
    out: dict[str, Any] = {"games": []}
    for game, game_records in records_by_game(records).items():
        pairs = pair_summaries(game_records)
        ratings = fit_ratings(pairs)
        pair_dicts = [p.as_dict() for p in pairs]
        if luck:
            lucks = pair_luck(game_records, value, corrections)
            for entry, summary in zip(pair_dicts, pairs, strict=True):
                entry["luck"] = lucks[summary.key].as_dict()
        out["games"].append(
            {
                "game": game,
                "records": len(game_records),
                "engines": dict(sum((p.engines for p in pairs), Counter())),
                "pairs": pair_dicts,
                "agents": [a.as_dict() for a in agent_stats(game_records)],
                "ratings": None
                if ratings is None
                else {
                    "anchor": ratings.anchor,
                    "prior_draws": ratings.prior_draws,
                    "elo": {n: {"elo": e, "se": s} for n, (e, s) in ratings.as_dict().items()},
                },
            }
        )
    return out


def format_report(
    records: Sequence[Record],
    luck: bool = False,
    value: str | None = None,
    corrections: Correction | None = None,
) -> str:
    """The text of `chancespiel report`: per game, the pairs or the table, times, failures;
    with `luck`, raw and luck-corrected rates of every pair. `corrections`: as in pair_luck."""
    blocks = []
    for game, game_records in records_by_game(records).items():
        pairs = pair_summaries(game_records)
        names = specs_in_order(pairs)
        lines = [f"{game}: {len(game_records)} games"]
        if len(pairs) == 1:
            lines.append("  " + format_pair(pairs[0]))
        else:
            lines.append(format_table(pairs, names))
            ratings = fit_ratings(pairs, names)
            if ratings is not None:
                lines.append(format_ratings(ratings))
            lines += ["  " + format_self_play(s) for s in pairs if s.self_play]
        mixed = format_engines(pairs)
        if mixed is not None:
            lines.append(mixed)
        if luck:
            lines += format_lucks(pairs, game_records, value, corrections)
        lines.append("  per-move time and nodes:")
        lines.append(format_agent_stats(agent_stats(game_records)))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) if blocks else "no game records"


def _flat(entry: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested dict as one row: keys joined by '.', lists as JSON."""
    row: dict[str, Any] = {}
    for key, value in entry.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            row.update(_flat(value, f"{name}."))
        elif isinstance(value, (list, tuple)):
            row[name] = json.dumps(value)
        else:
            row[name] = value
    return row


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    with files.open_output(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def running_scores(
    pair_records: Sequence[Record],
    luck: bool = False,
    value: str | None = None,
    corrections: Correction | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """A's score of each clean whole match in match order, and with `luck` the luck-corrected
    scores of the same matches (value function `value`, default the game's best; as in
    luck_summary). `corrections`: as in pair_luck."""
    from chancespiel.evaluation.luck import (
        corrected_rates,
        match_rates,
        record_correction,
        value_function,
        whole_matches,
    )

    matches, *_ = whole_matches(pair_records)
    if not luck or len(matches) < 2:
        return np.array(match_rates(matches)), None
    _, fn = value_function(canonical_game(pair_records[0]["game"]), value)
    raw, corrected, _ = corrected_rates(matches, fn, corrections or record_correction)
    return np.array(raw), corrected


def pairings(records: Sequence[Record]) -> list[tuple[tuple[str, str], list[Record]]]:
    """Every pairing's agents (A, B, as the report names them) and records, game by game."""
    labels = {s.key: (s.a, s.b) for s in pair_summaries(records)}
    return [
        (labels[pair], pair_records)
        for game_records in records_by_game(records).values()
        for pair, pair_records in records_by_pair(game_records).items()
    ]


def write_score_plot(
    by_pair: Sequence[tuple[tuple[str, str], Sequence[Record]]],
    path: Path,
    luck: bool = False,
    value: str | None = None,
    corrections: Correction | None = None,
) -> None:
    """A's running score rate over the matches of each pairing of `by_pair` (`pairings`),
    with its 95% interval, raw and with `luck` corrected, as a PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for (a, b), pair_records in by_pair:
        raw, corrected = running_scores(pair_records, luck, value, corrections)
        for scores, style, label in ((raw, ":", "raw"), (corrected, "-", "luck-corrected")):
            if scores is None or len(scores) < 2:
                continue
            n = np.arange(1, len(scores) + 1)
            mean = np.cumsum(scores) / n
            sd = np.array([scores[:k].std(ddof=1) if k > 1 else np.nan for k in n])
            half = Z95 * sd / np.sqrt(n)
            (line,) = ax.plot(n, mean, style, label=f"{a} vs {b} ({label})")
            ax.fill_between(
                n, np.clip(mean - half, 0, 1), np.clip(mean + half, 0, 1),
                color=line.get_color(), alpha=0.15,
            )  # fmt: skip
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.set_xlabel("whole matches")
    ax.set_ylabel("A's score rate (95% interval)")
    ax.set_ylim(0, 1)
    if ax.lines[1:]:
        ax.legend(fontsize=7)
    save_figure(fig, path, dpi=110)


def write_report_files(
    records: Sequence[Record],
    out: Path,
    luck: bool = False,
    value: str | None = None,
    made: dict[str, Any] | None = None,
    corrections: Correction | None = None,
) -> list[str]:
    """report.json (as `report --json`, with `made`: the command, version, engine and date
    that made it), pairs.csv and agents.csv (one row per pair and per agent of every game),
    score.png (A's running score rate over the matches of each pair with its 95% interval,
    raw and with `luck` corrected) and elo.png (ratings with 95% intervals, per game with
    three agents or more); returns the names written. Each record's correction is computed
    once for the files and the plot, in `corrections` if given (a CachedCorrections shared
    with format_report, say)."""
    import matplotlib

    from chancespiel.evaluation.luck import CachedCorrections

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    if corrections is None:
        corrections = CachedCorrections()
    summary = summarize(records, luck, value, corrections)
    if made is not None:
        summary = {"made": made, **summary}
    files.write_output(out / "report.json", files.dumps(summary, indent=1) + "\n")
    pairs = [{"game": g["game"], **_flat(p)} for g in summary["games"] for p in g["pairs"]]
    agents = [{"game": g["game"], **_flat(a)} for g in summary["games"] for a in g["agents"]]
    _write_csv(out / "pairs.csv", pairs)
    _write_csv(out / "agents.csv", agents)
    written = ["report.json", "pairs.csv", "agents.csv"]

    write_score_plot(pairings(records), out / "score.png", luck, value, corrections)
    written.append("score.png")

    rated = [g for g in summary["games"] if g["ratings"] and len(g["ratings"]["elo"]) >= 3]
    if rated:
        height = 1 + 0.5 * sum(len(g["ratings"]["elo"]) for g in rated)
        fig, axes = plt.subplots(len(rated), 1, figsize=(10, height), squeeze=False)
        for ax, g in zip(axes[:, 0], rated, strict=True):
            names = list(g["ratings"]["elo"])
            elo = [g["ratings"]["elo"][n]["elo"] for n in names]
            se = [g["ratings"]["elo"][n]["se"] for n in names]
            ax.errorbar(elo, range(len(names)), xerr=[Z95 * s for s in se], fmt="o", capsize=3)
            ax.set_yticks(range(len(names)), names, fontsize=7)
            ax.axvline(0.0, color="grey", linewidth=0.8)
            ax.set_xlabel("Elo, 95% interval (0: the first agent of the file, the anchor)")
            ax.set_title(g["game"], fontsize=7, loc="left")
        save_figure(fig, out / "elo.png", dpi=110)
        written.append("elo.png")
    return written
