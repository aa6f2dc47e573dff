"""Playing Figure 2's plans: every pairing's matches at once, or look by look until the
sequential rule settles it. Both resume from the record files: a game already there is not
played again."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from chancespiel.evaluation.luck import CachedCorrections
from chancespiel.evaluation.run_options import run_games, speed_line
from chancespiel.evaluation.sequential import SequentialRule
from chancespiel.studies.figure2.plan import GamePlan, plan_records
from chancespiel.studies.figure2.stats import answer


def play_all(plans: Sequence[GamePlan], max_minutes: float | None = None) -> None:
    """Plays the matches of every planned pairing, one game after the other; no game starts
    after `max_minutes`, and the same command resumes."""
    stop_at = None if max_minutes is None else time.monotonic() + 60 * max_minutes
    for setup, chosen, config in plans:
        if stop_at is not None and time.monotonic() > stop_at:
            print(f"stopped after {max_minutes:g} minutes; the same command resumes")
            return
        print(f"{setup.title} ({setup.game}): {', '.join(p.label for p in chosen)}")
        print(speed_line(run_games(dataclasses.replace(config, stop_at=stop_at))), flush=True)


def play_sequential(
    plans: Sequence[GamePlan],
    rule: SequentialRule,
    max_minutes: float | None,
    corrections: CachedCorrections,
) -> bool:
    """Plays each game's open pairings look by look until the rule stops them all; False if
    `max_minutes` ran out first: no game starts after it, and the same command resumes."""
    start = time.monotonic()
    for plan in plans:
        setup, chosen, config = plan
        while True:
            records = plan_records(plan)
            open_ = [
                (p, d)
                for p in chosen
                if (d := answer(setup, p, records, rule, corrections).decision).reason is None
            ]
            if not open_:
                break
            if max_minutes is not None and time.monotonic() - start > 60 * max_minutes:
                print(f"stopped after {max_minutes:g} minutes; the same command resumes")
                return False
            n = min(d.matches for _, d in open_)
            group = [p for p, d in open_ if d.matches == n]
            print(
                f"{setup.title}: {', '.join(p.label for p in group)} up to {n} matches",
                flush=True,
            )
            stop_at = None if max_minutes is None else start + 60 * max_minutes
            pairs = [(p.a, p.b) for p in group]
            run = dataclasses.replace(config, pairs=pairs, matches=n, stop_at=stop_at)
            print(speed_line(run_games(run)), flush=True)
    return True
