"""What the opt-in additions to the sampled search change where samples are narrowest: EWN
with one die drawn per chance node (the paper's expSS/star1SS width), star1ss at 200 ms.

One die per chance node makes a sampled tree deterministic and often exhausted above the
horizon. Per option set, on the same contested positions of the early and middle game: how many
searches stop before 90% of the budget, how many return a root value of +-1 (a 'proof' about
dice drawn once), and of those how many a classic Star1 at depth 4 finds not decided.

    .venv/bin/python lab/benchmarks/sampled_options_ewn.py [--positions 30] [--seed 5]
"""

from __future__ import annotations

import argparse

import pyspiel

import chancespiel.agents  # noqa: F401  (registers the games and agents)
from chancespiel.agents import make_bot, search_state
from chancespiel.agents.star_minimax import search
from chancespiel.evaluation.positions import random_decision_positions

OPTION_SETS = {
    "the paper's (default)": "",
    "resample": ",resample=true",
    "resample, distrust_decided": ",resample=true,distrust_decided=true",
    "all four (the former default)": (
        ",resample=true,distrust_decided=true,solve_exhausted=true,table=path"
    ),
}
TIME_MS = 200.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    game = pyspiel.load_game("python_einstein_wurfelt_nicht")
    positions = [
        state
        for state in random_decision_positions(game, 4 * args.positions, args.seed, max_moves=16)
        if len(state.legal_actions()) > 1
    ][: args.positions]
    decided = [
        abs(search(search_state(state), game, "star1", max_depth=4).value) == 1.0
        for state in positions
    ]
    print(f"{len(positions)} positions, {sum(decided)} decided for Star1 at depth 4")
    print("| options | searches under 90% of the budget | least budget used | +-1 root values |"
          " of which Star1 at depth 4 finds not decided |")  # fmt: skip
    print("|---|---:|---:|---:|---:|")
    for name, options in OPTION_SETS.items():
        short = least = wins = unconfirmed = 0
        least = 1.0
        for index, state in enumerate(positions):
            spec = f"star1ss(samples=1,time_ms={TIME_MS:g},seed={index}{options})"
            result = make_bot(spec, game, state.current_player()).analyse(state)
            used = result.time_s / (TIME_MS / 1000)
            short += used < 0.9
            least = min(least, used)
            if abs(result.value) == 1.0:
                wins += 1
                unconfirmed += not decided[index]
        print(f"| {name} | {short} | {100 * least:.0f}% | {wins} | {unconfirmed} |", flush=True)


if __name__ == "__main__":
    main()
