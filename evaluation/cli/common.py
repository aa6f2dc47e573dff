"""Pieces only the `chancespiel` CLI's commands share: games for matches, histories, reading
record files for reports, default record paths. What experiments share with the commands is in
`evaluation.usage` (errors, checked input, output paths) and `evaluation.run_options` (playing).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import pyspiel

from chancespiel.agents.human import action_named
from chancespiel.evaluation.match import (
    RecordFileError,
    canonical_agent,
    is_known_game,
    numbered_records,
    read_records,
    shared_dice,
    unique_records,
)
from chancespiel.evaluation.usage import UsageError, fresh_output, load_game
from chancespiel.games.contract import Referee
from chancespiel.games.core import TERMINAL

MAX_NAME_WORDS = 8  # the most words of a move's printed name a history reads as one move


def two_player_game(game_string: str) -> pyspiel.Game:
    game = load_game(game_string)
    if game.num_players() != 2:
        raise UsageError(f"{game_string}: matches need a two-player game")
    return game


def apply_history(game: pyspiel.Game, history: str) -> pyspiel.State:
    """The state after `history` (chance outcomes included): action ids or moves as the game
    prints them ("roll", "Roll 3+4", case and spaces aside, a roll's dice in any order where
    that names one outcome), separated by spaces, or by semicolons when a printed move has
    spaces of its own (a single such move ends with one). Separated by spaces, a word that
    names no legal move is read with the words after it, as many as make a legal move's
    name ("Roll 1-2-3-4 use 3 and 7"); a word that names one on its own is always that move.

    Raises:
      UsageError: for a move that is not legal where it is given.
      GameContractError: where the game breaks its contract along the way.
    """
    state = game.new_initial_state()
    referee = Referee(game, state)  # the game's contract, checked along the history
    by_words = ";" not in history
    # an empty item is no move: "Roll 1-4-5-6;" is one move with spaces of its own
    tokens = [t.strip() for t in (history.split() if by_words else history.split(";"))]
    tokens = [t for t in tokens if t]
    at = number = 0
    while at < len(tokens):
        number += 1
        player = referee.player()
        if player == TERMINAL:
            raise UsageError(f"history item {number} ({tokens[at]}): the game is already over")
        legal = referee.legal if player >= 0 else [o for o, _ in referee.outcomes()]
        action, used = _next_move(state, player, legal, tokens, at, by_words)
        if action is None:  # checked here: OpenSpiel's message prints the whole state
            shown = ", ".join(f"{a} ({state.action_to_string(player, a)})" for a in legal[:12]) + (
                ", ..." if len(legal) > 12 else ""
            )
            raise UsageError(
                f"history item {number} ({tokens[at]}) is not legal here; legal: {shown}"
            )
        referee.apply(player, action)
        at += used
    return state


def _next_move(
    state: pyspiel.State,
    player: int,
    legal: Sequence[int],
    tokens: Sequence[str],
    at: int,
    by_words: bool,
) -> tuple[int | None, int]:
    """The legal action named at `tokens[at]` and how many tokens its name takes: the token
    alone, else (`by_words`) the longest run of it and the words after it that names a legal
    move; (None, 1) where none does."""
    action = _history_action(state, player, legal, tokens[at])
    if action is not None or not by_words:
        return action, 1
    for words in range(min(MAX_NAME_WORDS, len(tokens) - at), 1, -1):
        action = _history_action(state, player, legal, " ".join(tokens[at : at + words]))
        if action is not None:
            return action, words
    return None, 1


def _history_action(
    state: pyspiel.State, player: int, legal: Sequence[int], token: str
) -> int | None:
    """The legal action `token` names (its id or its printed name), or None."""
    try:
        action = int(token)
    except ValueError:
        return action_named(((a, state.action_to_string(player, a)) for a in legal), token)
    return action if action in legal else None


def records_of(path: str, line: int | None = None) -> list[dict]:
    """The records of the file `path`, or the one on its line `line` (blank lines counted,
    as an editor numbers them).

    Raises:
      UsageError: for a file that cannot be read or holds no records, or a line that holds
        none.
    """
    try:
        numbered = numbered_records(path)
    except RecordFileError as e:
        raise UsageError(str(e)) from None
    if not numbered:
        raise UsageError(f"{path} holds no game records")
    if line is None:
        return [record for _, record in numbered]
    found = [record for number, record in numbered if number == line]
    if not found:
        first, last = numbered[0][0], numbered[-1][0]
        raise UsageError(
            f"{path} has no game record on line {line} (its {len(numbered)} records are on "
            f"lines {first} to {last})"
        )
    return found


def read_all(paths: Sequence[str]) -> list[dict]:
    """The records of the files `paths`, as `gathered`."""
    records: list[dict] = []
    for path in paths:
        try:
            records.extend(read_records(path))
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        except RecordFileError as e:
            raise UsageError(str(e)) from None
    if not records:
        raise UsageError(f"no game records in {', '.join(paths)}")
    return gathered(records, ", ".join(map(str, paths)))


def gathered(records: list[dict], where: str) -> list[dict]:
    """`records` (checked, from `where`) as reports count them: each agent under its first
    spelling, each game once (warning of repeats and of games on another pairing's dice).

    Raises:
      UsageError: for two different results of one game.
    """
    unknown = {game for game in {str(r["game"]) for r in records} if not is_known_game(game)}
    for game in sorted(unknown):
        warnings.warn(
            f"game {game!r} is not loaded here: its records are read as written, without "
            "replaying them (chancespiel --import MODULE loads it and checks them)",
            stacklevel=2,
        )
    spelling: dict[str, str] = {}  # one entrant per agent, under its first spelling
    for record in records:
        for side in ("a", "b"):
            record[side] = spelling.setdefault(canonical_agent(record[side]), record[side])
        if isinstance(record.get("seats"), list):
            record["seats"] = [spelling[canonical_agent(str(s))] for s in record["seats"]]
    try:
        records, repeats = unique_records(records)
    except RecordFileError as e:
        raise UsageError(f"{where}: {e}") from None
    if repeats:
        warnings.warn(
            f"{repeats} game(s) appear more than once (the same agents, game index and dice: "
            "seed + match); each is counted once",
            stacklevel=2,
        )
    if shared := shared_dice(records):
        warnings.warn(
            f"{shared} game(s) seat the same agents on the same dice as a game of another "
            "pairing (B vs A on the seeds of A vs B): other games, but not independent evidence",
            stacklevel=2,
        )
    return records


def out_or_fresh(args: argparse.Namespace, kind: str) -> None:
    """Sets `args.out` to a fresh `results/<kind>/run-<timestamp>.jsonl` when it is not given."""
    if args.out is None:
        args.out = str(fresh_output(kind, ".jsonl"))  # its folder is made by run_games
