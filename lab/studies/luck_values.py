"""Matches needed for a +-3-point interval, raw and luck-corrected with each value function.

Explains what a value function is worth to the luck correction (the control variates of
gnubg's variance-reduced rollouts and of AIVAT), as a Figure: per game, the matches a +-3-point
interval needs without correction and with each value function, on the same records.

For every game and pairing in the record files, each value function's luck correction
(`evaluation.luck`: control variates over the chance nodes, beta cross-fitted per pairing) is
applied to the same whole matches. Per game, the variance of a match's score is pooled over
its pairings (weighted by matches), and the matches a 95% interval of +-3 points needs are
(1.96 / 0.03)^2 times it; the variance ratio raw / corrected is the factor of matches saved,
with a bootstrap interval (matches resampled within pairings).

The records must not be those a learned value was trained on (the model file names its
training records; this experiment refuses files it finds there).

Each record's luck (and drift) under each value function is a task whose row is appended to
`terms.jsonl` as it finishes, so a value that searches (hours for a deep one) runs in chunks
(`--max-minutes`) and on several processes (`--workers`): the same command resumes, and the
summaries are written once every term is there.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import math
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chancespiel.evaluation.figures import save_figure
from chancespiel.evaluation.luck import (
    LuckError,
    cross_fitted,
    match_rates,
    record_correction,
    record_luck_and_drift,
    value_function,
    value_names,
    whole_matches,
)
from chancespiel.evaluation.match import (
    GameKey,
    PairKey,
    Record,
    RecordFileError,
    canonical_game,
    game_key,
    package_version,
    read_records,
)
from chancespiel.evaluation.resumable import (
    Row,
    log_command,
    logged_commands,
    read_rows,
    run_directory,
    run_tasks,
)
from chancespiel.evaluation.stats import Z95
from chancespiel.evaluation.usage import (
    Bounded,
    UsageError,
    command_text,
    minutes_arg,
    seed_arg,
    write_text,
)
from chancespiel.files import (
    NATURAL,
    NUMBER,
    TEXT,
    field_problem,
    file_digest,
    map_of,
    open_output,
)
from chancespiel.studies import Experiment

HALF_WIDTH = 0.03
BOOTSTRAP = 1000
DEFAULT_VALUES = ("heuristic", "lookahead", "learned", "learned_lookahead", "exact")


def needed(variance: float) -> int:
    """Matches for a 95% interval of +-HALF_WIDTH given one match's score variance."""
    return math.ceil((Z95 / HALF_WIDTH) ** 2 * variance)


def _training_records(game: str) -> set[str]:
    """Resolved paths of the record files the game's learned model was trained on."""
    from chancespiel.evaluation.match import load_game_cached
    from chancespiel.games.learned import ModelError, game_model

    try:
        found = game_model(load_game_cached(game))
    except ModelError:
        return set()
    return {str(Path(p).resolve()) for p in found.training.get("records", [])}


def pairing_scores(
    matches: Sequence[tuple[Record, Record]],
    values: Sequence[str],
    terms: dict[tuple[int, str], Row],
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, list[dict[str, float]]]]:
    """A's raw score in each whole match of one pairing, the corrected scores by value
    function, and by value function each match's drift of V by kind of node (where the terms
    have it: `luck.record_luck_and_drift`, its changes across the players' moves and at
    chance nodes apart from the draws, in score units; their sum is what a correction with
    beta = 1 leaves). `terms` holds each record's row by (id of the record, value name)."""
    raw = np.asarray(match_rates(matches), dtype=float)
    corrected: dict[str, np.ndarray] = {}
    drift: dict[str, list[dict[str, float]]] = {}
    for name in values:
        luck = [(terms[id(a), name]["luck"] + terms[id(b), name]["luck"]) / 2 for a, b in matches]
        corrected[name], _ = cross_fitted(raw, luck)
        if all("drift" in terms[id(r), name] for match in matches for r in match):
            drift[name] = [
                _match_drift([terms[id(r), name]["drift"] for r in match]) for match in matches
            ]
    return raw, corrected, drift


def record_terms(task: tuple[Record, str, bool, tuple[int, int]]) -> list[Row]:
    """One record's luck under one value function (and with `decompose`, its drift by kind):
    the row of terms.jsonl, keyed by (file, record) index, with the CPU seconds it took."""
    record, name, decompose, (file, index) = task
    start = time.process_time()
    _, fn = value_function(canonical_game(record["game"]), name)
    row: Row = {"file": file, "record": index, "value": name}
    if decompose:
        row["luck"], row["drift"] = record_luck_and_drift(record, fn)
    else:
        row["luck"] = record_correction(record, fn)
    row["cpu_s"] = round(time.process_time() - start, 4)
    return [row]


def _match_drift(games: Sequence[dict[str, float]]) -> dict[str, float]:
    """A match's drift by kind: the mean of its games' (a match's score is their mean)."""
    kinds = {kind for game in games for kind in game}
    return {kind: sum(game.get(kind, 0.0) for game in games) / len(games) for kind in kinds}


def drift_by_kind(pairs: Sequence[list[dict[str, float]]]) -> dict[str, float]:
    """Each kind's share of the drift's variance, pooled over pairings (each a list of
    matches' drift by kind): its covariance with the total drift over the total's variance,
    about each pairing's means, so that the shares add up to 1 (a kind may have a negative
    share when it offsets the others)."""
    kinds = sorted({kind for pair in pairs for match in pair for kind in match})
    total_ss = 0.0
    cross = dict.fromkeys(kinds, 0.0)
    for pair in pairs:
        table = np.array([[match.get(kind, 0.0) for kind in kinds] for match in pair])
        table -= table.mean(axis=0)
        total = table.sum(axis=1)
        total_ss += float(total @ total)
        for k, kind in enumerate(kinds):
            cross[kind] += float(table[:, k] @ total)
    return {kind: cross[kind] / total_ss if total_ss > 0 else math.nan for kind in kinds}


def pooled_variances(
    blocks: Sequence[Sequence[np.ndarray]], rng: np.random.Generator | None = None
) -> list[float]:
    """Each column's match-score variance pooled over pairings: each block is one pairing's
    aligned score arrays (raw, corrected, ...), their sums of squares taken about the
    pairing's own means. With `rng`, the matches are resampled within each pairing, the same
    matches for every column (a paired bootstrap)."""
    sums = [0.0] * len(blocks[0]) if blocks else []
    n = 0
    for columns in blocks:
        if rng is not None:
            pick = rng.integers(0, len(columns[0]), len(columns[0]))
            columns = [column[pick] for column in columns]
        for k, column in enumerate(columns):
            sums[k] += float(np.sum((column - column.mean()) ** 2))
        n += len(columns[0]) - 1
    return [total / max(n, 1) for total in sums]


def pooled_ratio(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], rng: np.random.Generator | None = None
) -> tuple[float, float]:
    """Pooled raw and corrected match variances over pairings (each (raw, corrected) array
    pair one pairing; with `rng`, matches resampled within each pairing)."""
    raw, corrected = pooled_variances(pairs, rng)
    return raw, corrected


def variance_ratio(raw: float, corrected: float) -> float:
    """raw / corrected, infinite when the correction removed all of raw's variance, nan when
    there was none to remove."""
    if corrected > 0:
        return raw / corrected
    return math.inf if raw > 0 else math.nan


def ratio_text(ratio: float, interval: tuple[float, float]) -> str:
    """A variance ratio and its interval as the tables print them: "inf" where the correction
    removed all of the variance, and a sentence, not "nan", where no match score varied (a
    pairing one side won every match of), so that there was nothing to correct."""
    if math.isnan(ratio):
        return "undefined: no match score varied"
    if math.isinf(ratio):
        return "inf"
    return f"{ratio:.2f} ({interval[0]:.2f}-{interval[1]:.2f})"


def ratio_interval(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], seed: int
) -> tuple[float, float]:
    """A 95% percentile bootstrap interval of the pooled variance ratio; (nan, nan) when no
    resample varies at all (a handful of matches with equal scores)."""
    rng = np.random.default_rng(seed)
    return percentile_interval(variance_ratio(*pooled_ratio(pairs, rng)) for _ in range(BOOTSTRAP))


def percentile_interval(draws: Iterable[float]) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap draws, leaving out undefined (nan) ones;
    (nan, nan) when none is defined."""
    found = [draw for draw in draws if not math.isnan(draw)]
    if not found:
        return math.nan, math.nan
    if any(math.isinf(draw) for draw in found):  # interpolating to an infinity is undefined
        low = np.percentile(found, 2.5, method="lower")
        high = np.percentile(found, 97.5, method="higher")
    else:
        low, high = np.percentile(found, [2.5, 97.5])
    return float(low), float(high)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("records", nargs="+", help="record files (any games; grouped by game)")
    parser.add_argument(
        "--values",
        default=",".join(DEFAULT_VALUES),
        help="comma-separated value functions, e.g. 'lookahead,search(depth=3)' (those that do "
        "not apply to a game are skipped)",
    )
    parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the bootstrap")
    parser.add_argument(
        "--decompose",
        action="store_true",
        help="also the share of the score's variance in each value's drift: its changes "
        "across the players' moves and at chance nodes apart from the draws, which the "
        "correction cannot remove",
    )
    parser.add_argument("--workers", type=Bounded(int, 1, 64), default=1, help="worker processes")
    parser.add_argument(
        "--max-minutes", type=minutes_arg, help="stop cleanly after about this long (resumable)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--out",
        help="directory for terms.jsonl, pairings.csv, README.md, matches_needed.png (the same "
        "command resumes a run stopped there)",
    )


TERMS = "terms.jsonl"  # one line per (record, value function): its luck and drift


OUTPUTS = ("pairings.csv", "README.md", "matches_needed.png")  # the summaries, rewritten


def _output(given: str | None, settings: dict[str, Any]) -> Path:
    """The run's directory (held until the command ends): a new one, or `given` holding a
    run of the same settings."""
    hint = "record files, --values and --decompose (and the same models)"
    return run_directory(given, "luck_values", settings, hint, OUTPUTS)


Pairings = dict[str, dict[tuple[str, str], list[Record]]]  # game -> (a, b) -> records
Matches = dict[tuple[str, tuple[str, str]], list[tuple[Record, Record]]]  # whole, 2 or more


def read_pairings(
    paths: Sequence[str], refuse_training: bool = True
) -> tuple[Pairings, dict[int, tuple[int, int]], list[str]]:
    """The records of the files by game and pairing, each record's (file, record) index by
    its id, and each file's SHA-256.

    Raises:
      UsageError: for a file that is not a record file or changed while it was read, a game
        found in two places, or (with `refuse_training`) records that trained the game's
        learned value.
    """
    by_game: Pairings = {}
    index: dict[int, tuple[int, int]] = {}
    digests = []
    seen: dict[GameKey, tuple[int, int]] = {}
    labels: dict[PairKey, tuple[str, str]] = {}  # a pairing's first spelling
    for file, path in enumerate(paths):
        try:
            # hashed before and after the read: a file still being appended to would
            # otherwise be pinned with records that were not read
            digest = file_digest(path)
            records = read_records(path)
            if file_digest(path) != digest:
                raise UsageError(f"{path} changed while it was read: run again once it is complete")
            digests.append(digest)
        except RecordFileError as e:  # it names the file
            raise UsageError(str(e)) from None
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        games = set()
        for number, record in enumerate(records):
            key = game_key(record)
            game = key.game
            games.add(game)
            if key in seen:  # the matches of a pairing are told apart by their dice
                where = "twice in" if seen[key][0] == file else f"also in {paths[seen[key][0]]} and"
                raise UsageError(
                    f"game {record['game_index']} of match {record['match']} of "
                    f"{record['a']} vs {record['b']} is {where} {path}"
                )
            seen[key] = (file, number)
            label = labels.get(key.pair)
            if label is None:  # one spec with two models: two pairings, their models named
                label = (record["a"], record["b"])
                if label in by_game.get(game, {}):
                    label = (key.a.label(label[0]), key.b.label(label[1]))
                labels[key.pair] = label
            by_game.setdefault(game, {}).setdefault(label, []).append(record)
            index[id(record)] = (file, number)
        for game in sorted(games if refuse_training else ()):
            if str(Path(path).resolve()) in _training_records(game):
                raise UsageError(f"{path} trained the learned value of {game}: use other records")
    return by_game, index, digests


def measured_matches(by_game: Pairings) -> Matches:
    """The whole matches of each game's pairings that have two or more (a pairing's variance
    needs two).

    Raises:
      UsageError: if no pairing has two.
    """
    matches: Matches = {
        (game, pair): whole_matches(records)[0]
        for game, pairings in by_game.items()
        for pair, records in pairings.items()
    }
    matches = {key: found for key, found in matches.items() if len(found) >= 2}
    if not matches:
        raise UsageError("no pairing with two whole matches in these records")
    return matches


def _models(games: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of each game's learned model file, for the games that have one: a run's
    learned values stay those of its first chunk."""
    from chancespiel.evaluation.match import load_game_cached
    from chancespiel.games.learned import ModelError, game_model

    found = {}
    for game in games:
        try:
            found[game] = file_digest(game_model(load_game_cached(game)).path)
        except (ModelError, OSError):
            continue
    return found


def _needed(matches: Matches, applies: dict[str, list[str]]) -> Iterator[tuple[Record, str]]:
    """(record, value) for every game of every whole match, under each value that applies."""
    for (game, _), found in matches.items():
        for name in applies[game]:
            for match in found:
                for record in match:
                    yield record, name


def read_terms(path: Path) -> dict[tuple[int, int, str], Row]:
    """The rows of terms.jsonl by (file, record, value).

    Raises:
      UsageError: for a row that is not one of ours.
    """
    rows = {}
    for number, row in enumerate(read_rows(path), start=1):
        problem = field_problem(row, TERM_FIELDS, ("file", "record", "value", "luck"))
        if problem is not None:
            raise UsageError(f"{path}:{number}: not a term of this experiment ({problem})")
        rows[row["file"], row["record"], row["value"]] = row
    return rows


TERM_FIELDS = {  # what a row of terms.jsonl holds (record_terms)
    "file": NATURAL,
    "record": NATURAL,
    "value": TEXT,
    "luck": NUMBER,
    "drift": map_of(NUMBER),
    "cpu_s": NUMBER,
}


def _run(args: argparse.Namespace) -> None:
    values = value_names(args.values)
    by_game, index, digests = read_pairings(args.records)
    applies = {game: _applying(game, values) for game in by_game}
    matches = measured_matches(by_game)
    if not any(applies[game] for game, _ in matches):
        raise UsageError(f"none of the value functions {values} applies to these games")
    settings = {
        "records": list(args.records),  # as given: the same command resumes, on any clone
        "sha256": digests,
        "values": values,
        "decompose": bool(args.decompose),
        "models": _models(sorted(by_game)),
        "version": package_version(),
    }
    out = _output(args.out, settings)
    for game in by_game:
        skipped = [name for name in values if name not in applies[game]]
        print(f"{game}: {len(by_game[game])} pairings; skipped (do not apply): {skipped}")
    terms_path = out / TERMS
    done = read_terms(terms_path)
    tasks = [
        (record, name, bool(args.decompose), index[id(record)])
        for record, name in _needed(matches, applies)
        if (*index[id(record)], name) not in done
    ]
    print(f"luck-values: {len(done)} (record, value) terms done, {len(tasks)} to go; {out}")
    if tasks:
        log_command(out, args.command_line)
        deadline = None if args.max_minutes is None else time.monotonic() + 60 * args.max_minutes
        try:
            complete = run_tasks(
                record_terms,
                tasks,
                terms_path,
                args.workers,
                deadline,
                not args.no_progress,
                len(tasks),
            )
        except LuckError as e:  # it names the record
            raise UsageError(f"{e} (the terms before it are kept in {terms_path})") from None
        if not complete:
            again = "the same command" if args.out else f"the same command with --out {out}"
            print(f"stopped at --max-minutes; {again} resumes")
            return
        done = read_terms(terms_path)
    terms = {(id(r), name): done[(*index[id(r)], name)] for r, name in _needed(matches, applies)}
    _summarise(out, by_game, matches, applies, terms, args)


def _applying(game: str, values: Sequence[str]) -> list[str]:
    """The value functions of `values` that apply to `game`."""
    applying = []
    for name in values:
        try:
            value_function(game, name)
        except LuckError:
            continue
        applying.append(name)
    return applying


def _summarise(
    out: Path,
    by_game: Pairings,
    matches: Matches,
    applies: dict[str, list[str]],
    terms: dict[tuple[int, str], Row],
    args: argparse.Namespace,
) -> None:
    """pairings.csv, README.md and matches_needed.png from every record's terms."""
    rows: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    for game, pairings in by_game.items():
        per_value: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        per_value_left: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        per_value_kinds: dict[str, list[list[dict[str, float]]]] = {}
        for a, b in pairings:
            if (game, (a, b)) not in matches:
                continue
            raw, corrected, drift = pairing_scores(matches[game, (a, b)], applies[game], terms)
            for name, scores in corrected.items():
                per_value.setdefault(name, []).append((raw, scores))
                row = {
                    "game": game,
                    "a": a,
                    "b": b,
                    "matches": len(raw),
                    "value": name,
                    "raw_variance": float(np.var(raw, ddof=1)),
                    "corrected_variance": float(np.var(scores, ddof=1)),
                }
                if args.decompose:
                    left = np.array([sum(kinds.values()) for kinds in drift[name]])
                    per_value_left.setdefault(name, []).append((raw, left))
                    per_value_kinds.setdefault(name, []).append(drift[name])
                    row["drift_variance"] = float(np.var(left, ddof=1))
                rows.append(row)
        for name, pairs in per_value.items():
            raw_var, corr_var = pooled_ratio(pairs)
            low, high = ratio_interval(pairs, args.seed)
            entry = {
                "game": game,
                "value": name,
                "matches": sum(len(r) for r, _ in pairs),
                "pairings": len(pairs),
                "raw_needed": needed(raw_var),
                "corrected_needed": needed(corr_var),
                "ratio": variance_ratio(raw_var, corr_var),
                "ratio_low": low,
                "ratio_high": high,
                "cpu_s": math.fsum(
                    terms[id(r), name].get("cpu_s", math.nan)
                    for pair, found in matches.items()
                    if pair[0] == game
                    for match in found
                    for r in match
                ),
            }
            if args.decompose:  # pooled like the corrected scores: about each pairing's mean
                _, left_var = pooled_ratio(per_value_left[name])
                entry["drift_share"] = left_var / raw_var if raw_var > 0 else math.nan
                entry["drift_by_kind"] = drift_by_kind(per_value_kinds[name])
            summary.append(entry)
    with open_output(out / "pairings.csv", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_text(out / "README.md", _readme(summary, args, logged_commands(out)))
    _plot(summary, out / "matches_needed.png")
    print("\n".join(_table(summary)))
    print(f"written to {out}: pairings.csv, README.md, matches_needed.png")


def _table(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The main table: matches needed and the variance ratio of each (game, value)."""
    lines = [
        "| game | value | pairings | matches | needed raw | needed corrected | variance ratio "
        "(95% interval) | CPU seconds |",
        "|---|---|---:|---:|---:|---:|---|---:|",
    ]
    for s in summary:
        lines.append(
            f"| {s['game']} | {s['value']} | {s['pairings']} | {s['matches']} | "
            f"{s['raw_needed']} | {s['corrected_needed']} | "
            f"{ratio_text(s['ratio'], (s['ratio_low'], s['ratio_high']))} | {s['cpu_s']:.0f} |"
        )
    return lines


def _readme(
    summary: Sequence[dict[str, Any]], args: argparse.Namespace, chunks: Sequence[str]
) -> str:
    lines = [
        "# Matches needed for +-3 points, raw and luck-corrected",
        "",
        f"Made by `{command_text(args.command_line)}` (chancespiel "
        f"{package_version()}, {datetime.date.today().isoformat()}); the experiment is "
        "`lab/studies/luck_values.py`. Match-score variances pooled over each "
        "game's pairings; the ratio's interval is a 95% bootstrap over matches. CPU seconds: "
        "the replays of every record with the value, summed (a value keeps what it computed "
        "for the records after, so this is the cost of the whole set, not of one record).",
        "",
    ]
    if len(chunks) > 1:  # the terms (terms.jsonl) were computed in several runs
        lines += [f"The terms ({TERMS}) were computed in chunks:", "", "```", *chunks, "```", ""]
    lines += _table(summary)
    if args.decompose:
        lines += [
            "",
            "What a value leaves: a game's return telescopes into V(start) + the chance terms "
            "+ V's drift (its changes across the players' moves, and at each chance node the "
            "mean of its outcomes' V minus V there), so with beta = 1 the corrected score's "
            "variance is the drift's. The drift's variance as a share of the raw score's "
            "(pooled like the scores); at beta = 1 a ratio of 4 is a share of 0.25. Where "
            "the drift is: each kind of node's share of the drift's variance (its covariance "
            "with the drift; the shares add up to 1), the moves by the leading word of their "
            "names and `chance` for the gaps at chance nodes:",
            "",
            "| game | value | drift variance / raw variance | where the drift is |",
            "|---|---|---:|---|",
            *(
                f"| {s['game']} | {s['value']} | "
                f"{'-' if math.isnan(s['drift_share']) else format(s['drift_share'], '.2f')} | "
                f"{_kinds_text(s['drift_by_kind'])} |"
                for s in summary
            ),
        ]
    return "\n".join(lines) + "\n"


def _kinds_text(shares: dict[str, float]) -> str:
    """The kinds by share, largest first: "bid 0.73, chance 0.12, ..."."""
    ordered = sorted(shares.items(), key=lambda item: -abs(item[1]))
    return ", ".join(f"{kind} {share:.2f}" for kind, share in ordered)


def _short(game: str) -> str:
    """A game's name for the figure: python_pig(dice=2,...) -> pig."""
    return game.split("(")[0].removeprefix("python_")


def _plot(summary: Sequence[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(_short(s["game"]) for s in summary))
    names = ["raw", *dict.fromkeys(s["value"] for s in summary)]
    fig, ax = plt.subplots(figsize=(max(7, 2.2 * len(games) + 2), 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        heights = []
        for game in games:
            mine = [s for s in summary if _short(s["game"]) == game]
            if name == "raw":
                heights.append(mine[0]["raw_needed"] if mine else np.nan)
                continue
            found = [s["corrected_needed"] for s in mine if s["value"] == name]
            heights.append(found[0] if found else np.nan)
        ax.bar(np.arange(len(games)) + k * width, heights, width, label=name)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(games)) + (len(names) - 1) * width / 2)
    ax.set_xticklabels(games)
    ax.set_ylabel("matches for a +-3-point 95% interval")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(fig, path, dpi=120)


EXPERIMENT = Experiment.listed(
    "luck-values",
    _add_arguments,
    _run,
)
