"""Playing strength at equal time per move: our `mcts` against OpenSpiel's Python MCTS.

Seat-swapped matches (two games with the same dice, evaluation.play.play_match), one JSON line
per match appended to `--out` as it finishes, so a stopped run resumes where it left off.
Prints the win rate of the first agent with its Wilson 95% interval (a draw counts half).

    .venv/bin/python lab/benchmarks/strength_mcts.py --game python_pig --matches 100 \
        --out lab/results/matches/mcts_strength/mcts_vs_openspiel_python_pig.jsonl

Without `--out`, a new file in results/mcts_strength/. A measurement (lab/results/matches/), not a
test: 200 games at 100 ms per move take about an hour.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pyspiel

import chancespiel.agents  # noqa: F401  (registers the agents and games)
from chancespiel.evaluation.play import GameRecord, play_match, score_of
from chancespiel.evaluation.stats import wilson_interval
from chancespiel.evaluation.usage import fresh_output


def searched_move_times(game: pyspiel.Game, record: GameRecord) -> tuple[list[float], ...]:
    """Each player's times of moves with a choice (forced moves are not searched) in `record`,
    found by replaying its history."""
    times: tuple[list[float], ...] = ([], [])
    state = game.new_initial_state()
    moves = iter(record.move_seconds)
    for action in record.history:
        player = state.current_player()
        if player >= 0:
            seconds = next(moves)
            if len(state.legal_actions()) > 1:
                times[player].append(seconds)
        state.apply_action(action)
    return times


def run(game_string: str, spec_a: str, spec_b: str, matches: int, seed: int, out: Path) -> None:
    """Plays the missing matches of the run in `out`, then prints the summary."""
    game = pyspiel.load_game(game_string)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = []
    if out.exists():
        done = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
        for row in done:
            if (row["game"], row["a"], row["b"]) != (game_string, spec_a, spec_b):
                raise SystemExit(f"{out} holds another run: {row['game']} {row['a']} {row['b']}")
    finished = {row["seed"] for row in done}
    start = time.perf_counter()
    for index in range(matches):
        match_seed = seed + 2 * index  # play_match seeds B with seed + 1
        if match_seed in finished:
            continue
        first, second = play_match(game, spec_a, spec_b, match_seed)
        a_times = b_times = 0.0
        a_moves = b_moves = 0
        for record, seat_a in ((first, 0), (second, 1)):
            times = searched_move_times(game, record)
            searched_a, searched_b = times[seat_a], times[1 - seat_a]
            a_times += sum(searched_a)
            b_times += sum(searched_b)
            a_moves += len(searched_a)
            b_moves += len(searched_b)
        row = {
            "game": game_string,
            "a": spec_a,
            "b": spec_b,
            "seed": match_seed,
            "a_scores": [score_of(first.returns, 0), score_of(second.returns, 1)],
            "moves": [first.moves, second.moves],
            "a_mean_move_s": a_times / max(a_moves, 1),
            "b_mean_move_s": b_times / max(b_moves, 1),
        }
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done.append(row)
        score = sum(sum(r["a_scores"]) for r in done)
        print(
            f"{len(done)}/{matches} matches, A scores {score:g}/{2 * len(done)}, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
    summarize(done)


def summarize(rows: list[dict]) -> None:
    """Prints N, the win rate of A with its Wilson 95% interval, and the mean move times."""
    if not rows:
        print("no games")
        return
    games = 2 * len(rows)
    score = sum(sum(r["a_scores"]) for r in rows)
    low, high = wilson_interval(score, games)
    a_time = sum(r["a_mean_move_s"] for r in rows) / len(rows)
    b_time = sum(r["b_mean_move_s"] for r in rows) / len(rows)
    print(
        f"{rows[0]['game']}: {rows[0]['a']} vs {rows[0]['b']}: N = {games} games "
        f"({len(rows)} seat-swapped matches), A scores {score:g}, win rate "
        f"{score / games:.3f}, 95% interval [{low:.3f}, {high:.3f}]; mean time per searched "
        f"move: A {1000 * a_time:.1f} ms, B {1000 * b_time:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="python_pig")
    parser.add_argument("--time-ms", type=float, default=100.0)
    parser.add_argument("--a", default=None, help="agent A (default: mcts at --time-ms)")
    parser.add_argument("--b", default=None, help="agent B (default: openspiel_mcts)")
    parser.add_argument("--matches", type=int, default=100, help="seat-swapped pairs of games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    spec_a = args.a or f"mcts(time_ms={args.time_ms:g})"
    spec_b = args.b or f"openspiel_mcts(time_ms={args.time_ms:g})"
    out = args.out or fresh_output("mcts_strength", f"-{args.game}.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    run(args.game, spec_a, spec_b, args.matches, args.seed, out)


if __name__ == "__main__":
    main()
