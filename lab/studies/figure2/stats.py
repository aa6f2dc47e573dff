"""Figure 2's statistics: per pairing and game the left agent's score with its Wilson interval,
the counterpart pairings pooled, and the luck-corrected answers to the paper's claims under the
sequential rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chancespiel.evaluation.luck import CachedCorrections, LuckSummary, luck_summary
from chancespiel.evaluation.match import Record, canonical_agent, game_key
from chancespiel.evaluation.report import pair_summaries
from chancespiel.evaluation.sequential import Decision, SequentialRule, decide, verdict
from chancespiel.evaluation.stats import MatchInterval, wilson_interval
from chancespiel.studies import mcms_setup
from chancespiel.studies.figure2.plan import (
    ALL_LABELS,
    MCTS,
    PAIRING_LABELS,
    GamePlan,
    Pairing,
    pairing_label,
    plan_records,
)


@dataclass
class Row:
    """One bar of the figure: the left agent's results in one pairing and game."""

    game: str  # the paper's name of the game
    game_string: str
    pairing: str
    a: str
    b: str
    matches: int
    games: int
    wins: int
    draws: int
    losses: int
    unscored: int
    rate: float
    low: float
    high: float


def summarise(
    records_by_game: Mapping[str, Sequence[Record]],
    setups: Mapping[str, mcms_setup.GameSetup] = mcms_setup.SETUPS,
) -> list[Row]:
    """One row per (game, pairing) found in the records, in the paper's order of both."""
    order = {label: i for i, label in enumerate(ALL_LABELS)}
    for label in PAIRING_LABELS:  # the DPW names sort with their MCTS twins
        order[label.replace(MCTS, "DPW")] = order[label]
    rows = []
    for key, records in records_by_game.items():
        title = setups[key].title
        game_rows = []
        for s in pair_summaries(records):
            label = pairing_label(s.a, s.b)
            counts = (s.matches, s.games, s.wins, s.draws, s.losses, s.unscored)
            game_rows.append(Row(title, s.game, label, s.a, s.b, *counts, s.rate, *s.interval))
        rows.extend(sorted(game_rows, key=lambda r: order.get(r.pairing, len(order))))
    return rows


# The pairings of an MCMS variant against its own classic algorithm, pooled by `pooled`.
COUNTERPARTS = ("ExpSS-Exp", "Star1SS-Star1", "Star2SS-Star2")
POOLED_LABEL = "MCMS-classic (pooled)"


def pooled(rows: Sequence[Row]) -> list[Row]:
    """Per game, the games of its COUNTERPARTS rows added up: the paper's claim that each MCMS
    variant beats its classic counterpart, tested with three times the games of one pairing."""
    rows_by_game: dict[str, list[Row]] = {}
    for r in rows:
        if r.pairing in COUNTERPARTS:
            rows_by_game.setdefault(r.game, []).append(r)
    result = []
    for title, game_rows in rows_by_game.items():
        games = sum(r.games for r in game_rows)
        if not games:
            continue
        wins, draws, losses, unscored, matches = (
            sum(getattr(r, field) for r in game_rows)
            for field in ("wins", "draws", "losses", "unscored", "matches")
        )
        score = wins + draws / 2
        a, b = ("+".join(getattr(r, side) for r in game_rows) for side in ("a", "b"))
        counts = (matches, games, wins, draws, losses, unscored)
        low, high = wilson_interval(score, games)
        result.append(
            Row(
                title,
                game_rows[0].game_string,
                POOLED_LABEL,
                a,
                b,
                *counts,
                score / games,
                low,
                high,
            )
        )
    return result


# The rates section 4.4 states: "an 85.0% win rate for star2SS vs Star2 in Can't Stop", and
# "roughly 60% wins against its classic *-Minimax counterparts" in Ra. Of the other pairings
# the paper claims only that the MCMS variant wins ("in every case").
PAPER_RATES: dict[tuple[str, str], float] = {
    ("cant_stop", "Star2SS-Star2"): 0.85,
    **{("ra", label): 0.60 for label in COUNTERPARTS},
}


def paper_rate(key: str, label: str) -> float | None:
    """The rate the paper states for a pairing in the game `key`, None if it states none."""
    return PAPER_RATES.get((key, label))


@dataclass
class Answer:
    """One pairing's luck-corrected answer to the paper under the sequential rule."""

    key: str  # setup key of the game
    game: str  # the paper's name of the game
    game_string: str
    pairing: str
    a: str
    b: str
    paper: float | None  # the rate the paper states, None: it claims only > 50%
    decision: Decision
    summary: LuckSummary | None  # raw and corrected, over the decision's matches

    @property
    def in_paper(self) -> bool:
        """Whether the paper played this pairing (the hybrid ones are beyond it)."""
        return self.pairing in PAIRING_LABELS

    @property
    def verdict(self) -> str:
        """Against the paper's claim; for a pairing beyond the paper, which side is ahead."""
        if self.in_paper:
            return verdict(self.decision.sequential, self.paper)
        low, high = self.decision.sequential
        if low > 0.5:
            return "left agent ahead"
        return "right agent ahead" if high < 0.5 else "undecided"


def _pair_records(records: Sequence[Record], pairing: Pairing) -> list[Record]:
    """The records of `pairing`, by canonical spec (as the run that resumes its file)."""
    specs = (canonical_agent(pairing.a), canonical_agent(pairing.b))
    return [r for r in records if (game_key(r).a.spec, game_key(r).b.spec) == specs]


def answer(
    setup: mcms_setup.GameSetup,
    pairing: Pairing,
    records: Sequence[Record],
    rule: SequentialRule,
    corrections: CachedCorrections,
) -> Answer:
    """Where `pairing` stands under `rule`, from the records of its game."""
    mine = _pair_records(records, pairing)
    played = {(r["match"], r["game_index"]) for r in mine}
    summaries: dict[int, LuckSummary] = {}

    def interval_at(n: int) -> MatchInterval | None:
        if any((m, i) not in played for m in range(n) for i in (0, 1)):
            return None
        summaries[n] = luck_summary([r for r in mine if r["match"] < n], correction=corrections)
        return summaries[n].corrected

    paper = paper_rate(setup.key, pairing.label)
    decision = decide(rule, interval_at, [0.5] if paper is None else [0.5, paper])
    summary = summaries.get(decision.matches) or (summaries[max(summaries)] if summaries else None)
    return Answer(
        setup.key,
        setup.title,
        setup.game,
        pairing.label,
        pairing.a,
        pairing.b,
        paper,
        decision,
        summary,
    )


def answers_for(
    plans: Sequence[GamePlan], rule: SequentialRule, corrections: CachedCorrections
) -> list[Answer]:
    """The answer of each planned pairing, from the records of its game so far.

    Raises:
      RecordFileError: if a record file is corrupt.
    """
    answers = []
    for plan in plans:
        records = plan_records(plan)
        answers += [answer(plan.setup, p, records, rule, corrections) for p in plan.chosen]
    return answers
