#!/bin/bash
# Ra's value by rounds of self-play: round k plays 1000 matches of one ply of expectimax on the
# value of round k-1 (for round 1 the first model, lab/results/values/ra_first_model.json) against
# the same with two sampled outcomes at its chance nodes, and 500 matches of the latter against
# two plies of MCMS's expectimax on the hand-written heuristic; then trains the value of round k on the outcomes
# of every round's games so far and the first model's training records. Each round ends
# with a check: 100 matches of one ply on the new value against one ply on the hand-written
# heuristic. Run from the repository:
#   bash lab/results/values/selfplay_rounds/rounds.sh FIRST LAST RECORDS_DIR
# RECORDS_DIR keeps the rounds' records (a few MB a round; the seeds make them again).
set -euo pipefail
first=$1 last=$2 records=$3
here=lab/results/values/selfplay_rounds
mkdir -p "$records"
cs() { chancespiel --import $here/../../../plugins/use_round.py "$@"; }
export RA_ROUND_MODEL=lab/results/values/ra_first_model.json
if [ "$first" -gt 1 ]; then export RA_ROUND_MODEL=$here/ra_round$((first - 1)).json; fi
for k in $(seq "$first" "$last"); do
  cs match python_ra "expectimax(max_depth=1,heuristic=learned)" "expss(max_depth=1,samples=2,heuristic=learned)" \
    --matches 1000 --seed $((3000000 + k * 10000)) --workers 1 --no-progress --out "$records/r$k-self.jsonl" | grep scored
  cs match python_ra "expss(max_depth=1,samples=2,heuristic=learned)" "expss(max_depth=2,samples=3)" \
    --matches 500 --seed $((3100000 + k * 10000)) --workers 1 --no-progress --out "$records/r$k-hand.jsonl" | grep scored
  games=()
  for j in $(seq 1 "$k"); do games+=("$records/r$j-self.jsonl" "$records/r$j-hand.jsonl"); done
  cs value train lab/results/values/selfplay/ra.jsonl.gz lab/results/figure2/paper_200ms/ra.jsonl.gz "${games[@]}" \
    --keep 0.1 --seed 0 --out $here/ra_round$k.json | tail -8
  export RA_ROUND_MODEL=$here/ra_round$k.json
  cs match python_ra "expectimax(max_depth=1,heuristic=learned)" "expectimax(max_depth=1)" \
    --matches 100 --seed 2100000 --workers 1 --no-progress --out "$records/check$k.jsonl" | grep scored
done
