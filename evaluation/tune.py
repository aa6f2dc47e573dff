"""Parameter tuning by an elimination tournament (the MCMS paper, section 4.2).

Every combination of the given parameter values is a candidate spec. Candidates are paired in
the order they are listed (first with second, third with fourth, ...); each pairing plays N
seat-swapped matches, the higher score rate advances (a tie advances the earlier candidate),
an odd candidate out gets a bye, and rounds repeat until one champion is left. The paper found
this more consistent than a round robin with more games in total.

Every step is judged by a 95% interval of A's score rate over whole matches (raw, or
luck-corrected), or by an SPRT: a step whose interval contains 50% (or whose SPRT did not
decide) is undecided. The higher rate still advances, so the bracket completes, but a
tournament with an undecided step has no champion, only a provisional winner.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from chancespiel.agents import parse_spec
from chancespiel.evaluation.match import Record, canonical_agent
from chancespiel.evaluation.report import PairSummary, pair_summaries, records_by_pair
from chancespiel.evaluation.stats import match_interval

PlayRound = Callable[[list[tuple[str, str]]], list[Record]]
"""play_round(pairs) -> the records of N matches of every pair."""


@dataclass(frozen=True)
class Verdict:
    """How one step came out: A's rate, its 95% interval, and whether it is significant."""

    rate: float
    low: float
    high: float
    decided: bool
    method: str  # e.g. 'whole matches', 'luck-corrected (exact)', 'SPRT: H1'
    a_advances: bool | None = None  # a decision that overrides the rate (an SPRT's)


Judge = Callable[[str, str, list[Record], PairSummary], Verdict]
"""judge(a, b, records of the pair, summary) -> the step's verdict."""


def interval_verdict(a: str, b: str, records: list[Record], summary: PairSummary) -> Verdict:
    """Decided when the match-level 95% interval of A's rate excludes 50%."""
    interval = match_interval(summary.match_scores)
    decided = not (interval.low <= 0.5 <= interval.high) and interval.matches >= 2
    return Verdict(summary.rate, interval.low, interval.high, decided, "whole matches")


OnRound = Callable[[int, list["Bout"], "str | None"], None]
"""on_round(round_number, bouts, bye), called after each round."""


def parse_param(text: str) -> tuple[str, list[str]]:
    """'name=v1,v2,...' -> (name, [v1, v2, ...])."""
    name, sep, values = text.partition("=")
    name = name.strip()
    items = [v.strip() for v in values.split(",")]
    if not sep or not name or not all(items):
        raise ValueError(f"--param: expected name=v1,v2,..., got {text!r}")
    if len(set(items)) != len(items):
        raise ValueError(f"--param {name}: a value is listed twice in {text!r}")
    return name, items


def candidate_specs(agent: str, params: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """The specs of every combination of parameter values, the first parameter slowest.

    `agent` may carry fixed parameters, e.g. 'star2ss(time_ms=50)'; a tuned parameter must
    not be one of them.
    """
    name, fixed = parse_spec(agent)
    names = [p for p, _ in params]
    if len(set(names)) != len(names):
        raise ValueError(f"--param: a parameter is given twice: {names}")
    clash = sorted(set(names) & set(fixed))
    if clash:
        raise ValueError(f"parameter(s) {clash} are both fixed in {agent!r} and tuned")
    inner = agent.strip()
    fixed_text = inner[inner.index("(") + 1 : -1].strip() if "(" in inner else ""
    specs = []
    for values in itertools.product(*(v for _, v in params)):
        items = ([fixed_text] if fixed_text else []) + [
            f"{p}={v}" for p, v in zip(names, values, strict=True)
        ]
        specs.append(f"{name}({','.join(items)})" if items else name)
    return specs


@dataclass
class Bout:
    """One pairing of a round and its outcome."""

    a: str
    b: str
    summary: PairSummary
    winner: str
    verdict: Verdict | None = None

    @property
    def decided(self) -> bool:
        """True if the step is significant (see Verdict)."""
        return self.verdict is not None and self.verdict.decided


@dataclass
class TuneResult:
    """The rounds (bouts and byes) and the champion."""

    rounds: list[list[Bout]] = field(default_factory=list)
    byes: list[str | None] = field(default_factory=list)
    champion: str = ""  # the last one left (provisional when `decided` is False)

    @property
    def undecided(self) -> list[Bout]:
        """The steps that were not significant."""
        return [bout for bouts in self.rounds for bout in bouts if not bout.decided]

    @property
    def decided(self) -> bool:
        """True if every step was significant: the champion is one."""
        return not self.undecided


def eliminate(
    candidates: Sequence[str],
    play_round: PlayRound,
    on_round: OnRound | None = None,
    judge: Judge = interval_verdict,
) -> TuneResult:
    """Runs the elimination tournament among `candidates` (distinct specs); each step is
    judged by `judge`, whose rate decides who advances (a tie advances the earlier)."""
    if len(set(candidates)) != len(candidates) or not candidates:
        raise ValueError(f"need distinct candidates, got {list(candidates)}")
    result = TuneResult()
    alive = list(candidates)
    while len(alive) > 1:
        pairs = [(alive[i], alive[i + 1]) for i in range(0, len(alive) - 1, 2)]
        bye = alive[-1] if len(alive) % 2 else None
        records = play_round(pairs)
        # by canonical spec: a resumed file may spell a candidate otherwise
        summaries = {(s.key[1].spec, s.key[2].spec): s for s in pair_summaries(records)}
        by_pair = {(k[1].spec, k[2].spec): pair for k, pair in records_by_pair(records).items()}
        bouts = []
        for a, b in pairs:
            specs = (canonical_agent(a), canonical_agent(b))
            summary = summaries.get(specs)
            if summary is None:
                raise RuntimeError(f"no records of {a} vs {b}")
            verdict = judge(a, b, by_pair[specs], summary)
            # rate is nan without scored games: the earlier candidate advances then too
            if verdict.a_advances is not None:
                winner = a if verdict.a_advances else b
            else:
                winner = b if summary.games and verdict.rate < 0.5 else a
            bouts.append(Bout(a, b, summary, winner, verdict))
        result.rounds.append(bouts)
        result.byes.append(bye)
        if on_round is not None:
            on_round(len(result.rounds), bouts, bye)
        alive = [bout.winner for bout in bouts] + ([bye] if bye is not None else [])
    result.champion = alive[0]
    return result
