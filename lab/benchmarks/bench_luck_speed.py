"""CPU seconds of `report --luck`'s corrections, per record and extrapolated to a whole record
file, and what one leaf of a learned value's lookahead costs, part by part.

The correction of a record replays it and, at each chance node, values every child with the
game's default value (Pig's exact values; the learned value under one ply of expectimax
elsewhere): for a learned lookahead that is h at every leaf below the children, about 500
leaves a chance node in Ra, fewer where the game's symmetric outcomes share a child's value,
each child's leaves through the network at once. The first `--records` clean records of each
file are corrected (a fresh value function each, so no values kept from another run), timed by
the process's CPU clock, which other processes on a shared machine disturb much less than the
wall clock.

    .venv/bin/python lab/benchmarks/bench_luck_speed.py [--records 20] [--games ra cant_stop]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import chancespiel.games  # noqa: F401  (registers the games)
from chancespiel.evaluation.luck import record_correction, value_function
from chancespiel.evaluation.match import canonical_game, load_game_cached, read_records
from chancespiel.evaluation.positions import replay
from chancespiel.games.core import CHANCE
from chancespiel.games.learned import has_learned_value, learned_heuristic

FILES = ("pig", "ewn", "cant_stop", "ra")


def leaf_parts(game_string: str, records: list, count: int = 3000) -> str:
    """Microseconds per leaf below the first chance nodes of a record: both sides' features
    (from one call where the game declares a feature pair), the network's pass over their two
    rows alone, and the key of the values kept (the game's feature key, or the state key)."""
    game = load_game_cached(game_string)
    if not has_learned_value(game):
        return "(no learned value)"
    h = learned_heuristic(game)
    states = []
    for _, state, _ in replay(game, records[0]["history"]):
        if state.current_player() == CHANCE:
            for outcome, _ in state.chance_outcomes():
                child = state.child(outcome)
                if not child.is_terminal():
                    states.extend(child.child(a) for a in child.legal_actions())
        if len(states) >= count:
            break
    states = [s for s in states[:count] if not s.is_terminal()]
    rows = [h.rows(s, 0) for s in states]

    def features() -> None:  # rows dropped at once, as a call drops them
        for s in states:
            h.rows(s, 0)

    def network() -> None:
        for mine, theirs in rows:
            h.model.logit_difference(mine, theirs)

    def key() -> None:
        for s in states:
            h.cache_key(s, 0)

    out = []
    for name, run in (("features", features), ("network", network), ("key", key)):
        start = time.process_time()
        run()
        out.append(f"{name} {(time.process_time() - start) / len(states) * 1e6:.1f}")
    return "us a leaf: " + ", ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="lab/results/figure2/paper_mcms")
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--games", nargs="*", default=list(FILES))
    args = parser.parse_args()
    print(f"{'game':<10} {'value':<18} {'s/record':>8} {'file':>6} {'whole file (s)':>14}  leaf")
    for name in args.games:
        records = read_records(Path(args.dir) / f"{name}.jsonl.gz")
        clean = [r for r in records if r.get("error") is None]
        game_string = canonical_game(clean[0]["game"])
        value_function.cache_clear()  # a fresh learned value: nothing kept from a run before
        value, fn = value_function(game_string)
        sample = clean[: args.records]
        start = time.process_time()
        for record in sample:
            record_correction(record, fn)
        per = (time.process_time() - start) / len(sample)
        print(
            f"{name:<10} {value:<18} {per:>8.3f} {len(clean):>6} {per * len(clean):>14.0f}  "
            f"{leaf_parts(game_string, clean) if value.startswith('learned') else ''}"
        )


if __name__ == "__main__":
    main()
