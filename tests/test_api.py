"""The Python API: chancespiel.match, tournament and report, and agents made with keywords.

What the commands write and print, the API writes and prints (the same records, the same text);
agents that are Python objects play on forked workers under the names the records give them.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import chancespiel
from chancespiel import agents
from chancespiel.agents import AGENTS, AgentConfig, make_bot
from chancespiel.agents.configured import AgentModule
from chancespiel.agents.registry import resolve_spec
from chancespiel.evaluation import cli
from chancespiel.evaluation.match import read_records
from chancespiel.games.contract import GameContractError
from chancespiel.games.registry import evaluation_for

ROOT = Path(__file__).parent.parent
BOT = pyspiel.make_uniform_random_bot(0, 1)  # one bot object: it cannot sit in both seats
GAME = "python_pig(winscore=20)"
# what differs between two plays of the same games: their clocks and the machine's load
TIMED = ("move_ms", "seconds", "load", "version")


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main([*argv, *(["--no-progress"] if argv[0] != "report" else [])]) == 0
    return capsys.readouterr().out


def _untimed(records: list[dict]) -> list[dict]:
    return sorted(
        ({k: v for k, v in r.items() if k not in TIMED} for r in records),
        key=lambda r: (r["match"], r["game_index"]),
    )


def zero(state, player):
    """The `zero` heuristic, written in Python."""
    return state.returns()[player] if state.is_terminal() else 0.0


def test_a_match_writes_the_commands_records_and_prints_its_text(tmp_path, capsys):
    specs = ["star2(max_depth=2)", "hold(n=15)"]
    argv = ["--matches", "3", "--seed", "4", "--workers", "2"]
    _cli(["match", GAME, *specs, *argv, "--out", str(tmp_path / "cli.jsonl")], capsys)
    result = chancespiel.match(
        GAME, *specs, matches=3, seed=4, workers=2, out=tmp_path / "api.jsonl"
    )
    assert _untimed(read_records(tmp_path / "api.jsonl")) == _untimed(
        read_records(tmp_path / "cli.jsonl")
    )
    assert _untimed(result.records) == _untimed(read_records(tmp_path / "api.jsonl"))
    # resumed from one file, the command and the result print the same text, times included
    again = chancespiel.match(GAME, *specs, matches=3, seed=4, out=tmp_path / "cli.jsonl")
    assert again.run.played == 0
    text = _cli(["match", GAME, *specs, *argv, "--out", str(tmp_path / "cli.jsonl")], capsys)
    assert str(again) == text.rstrip("\n")
    summary = again.summary
    assert summary is not None and summary.wins + summary.draws + summary.losses == 6
    assert (again.games, again.rate, again.interval) == (6, summary.rate, summary.interval)
    assert (again.wins, again.draws, again.losses) == (summary.wins, summary.draws, summary.losses)


def test_luck_and_sprt_are_the_commands(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    argv = ["--matches", "6", "--seed", "1", "--workers", "2", "--sprt=-10,10", "--luck"]
    command = ["match", GAME, "star2(max_depth=2)", "hold", *argv, "--out", str(out)]
    _cli(command, capsys)
    result = chancespiel.match(
        GAME, "star2(max_depth=2)", "hold", matches=6, seed=1, out=out, sprt="-10,10", luck=True
    )
    assert str(result) == _cli(command, capsys).rstrip("\n")  # both resumed from the file
    assert result.sprt is not None and result.sprt.pairs > 0
    assert result.luck is not None and result.corrected is result.luck.corrected
    assert "luck-corrected (value exact" in str(result) and "SPRT elo0=-10" in str(result)
    report = chancespiel.report(out, luck=True)
    assert str(report) == _cli(["report", "--luck", str(out)], capsys).rstrip("\n")
    (game,) = report.games
    assert game.luck is not None and game.luck[0].corrected.mean == result.luck.corrected.mean
    assert game.pairs[0].rate == result.rate
    assert str(chancespiel.report(result, luck=True)) == str(report)


def test_a_tournament_prints_the_commands_text(tmp_path, capsys):
    specs = ["star2(max_depth=1)", "hold", "random"]
    out = str(tmp_path / "t.jsonl")
    command = ["tournament", GAME, *specs, "--matches", "2", "--out", out]
    _cli(command, capsys)
    result = chancespiel.tournament(GAME, specs, matches=2, out=out)
    assert result.run.played == 0 and str(result) == _cli(command, capsys).rstrip("\n")
    assert result.names == specs and len(result.pairs) == 3
    assert result.ratings is not None and result.ratings.anchor == specs[0]
    lucky = chancespiel.tournament(GAME, specs, matches=2, out=out, luck=True)
    assert lucky.luck is not None and len(lucky.luck) == 3
    assert str(lucky) == _cli([*command, "--luck"], capsys).rstrip("\n")


def test_python_agents_play_under_the_names_their_records_give_them(tmp_path):
    class Lowest(pyspiel.Bot):  # a bot that plays for whichever seat is on move
        def step(self, state):
            return state.legal_actions()[0]

        def restart_at(self, state):
            pass

    def first_action(game, player, seed):
        return Lowest()

    lowest = Lowest()
    result = chancespiel.tournament(
        GAME,
        {
            "star2(max_depth=1)": agents.star2(max_depth=1),
            "zero": agents.star2(max_depth=2, heuristic=zero),
            "lowest-bot": lowest,
        },
        matches=2,
        workers=2,
        out=tmp_path / "t.jsonl",
    )
    records = read_records(tmp_path / "t.jsonl")
    assert {r["a"] for r in records} | {r["b"] for r in records} == {
        "star2(max_depth=1)", "zero", "lowest-bot",
    }  # fmt: skip
    assert all(r["error"] is None for r in records)
    assert "zero" not in AGENTS and "lowest-bot" not in AGENTS  # registered for the run only
    assert result.names == ["star2(max_depth=1)", "zero", "lowest-bot"]
    # unnamed: a factory by its __name__, a keyword agent with a function by its parameters
    match = chancespiel.match(
        GAME, agents.star2(max_depth=2, heuristic=zero), first_action, matches=1
    )
    assert (match.a, match.b) == ("star2:heuristic=zero;max_depth=2", "first_action")
    assert "first_action" not in AGENTS
    selfplay = chancespiel.match(GAME, first_action, first_action, matches=1)
    assert selfplay.summary is not None and selfplay.summary.self_play


def test_a_heuristic_function_is_what_the_search_evaluates_with():
    """star2 with the zero heuristic written in Python plays the games of heuristic=zero."""
    python = chancespiel.match(
        GAME, agents.star2(max_depth=2, heuristic=zero), "hold", matches=3, seed=2
    )
    named = chancespiel.match(GAME, "star2(max_depth=2,heuristic=zero)", "hold", matches=3, seed=2)
    default = chancespiel.match(GAME, "star2(max_depth=2)", "hold", matches=3, seed=2)

    def games(result):
        return [(r["match"], r["game_index"], r["history"]) for r in _untimed(result.records)]

    assert games(python) == games(named) != games(default)


def test_an_ordering_function_orders_the_search_and_is_checked():
    game = pyspiel.load_game(GAME)
    state = game.new_initial_state()
    seen = []

    def reverse(core, actions):
        seen.append((type(core).__name__, list(actions)))
        return list(reversed(actions))

    agents.star2(max_depth=2, ordering=reverse)(game, 0, seed=1).step(state)
    assert seen and all(name == "PigCore" and actions == [0, 1] for name, actions in seen)

    def drops(core, actions):
        return list(actions)[:1]

    with pytest.raises(GameContractError, match="move ordering drops"):
        agents.star2(max_depth=2, ordering=drops)(game, 0, seed=1).step(state)
    with pytest.raises(ValueError, match="no move ordering 'best'"):
        make_bot("star2(ordering=best)", game, 0)


def test_a_heuristic_outside_the_utilities_stops_the_game():
    game = pyspiel.load_game(GAME)

    def wild(state, player):
        return 7.0

    bot = agents.star2(max_depth=2, heuristic=wild)(game, 0, seed=1)
    with pytest.raises(GameContractError, match="heuristic wild"):
        bot.step(game.new_initial_state())
    assert evaluation_for(game, zero)(game.new_initial_state().core, 0) == 0.0


def test_every_agent_is_made_with_keywords_from_the_registry():
    for name, info in AGENTS.items():
        made = getattr(agents, name)()
        assert isinstance(made, AgentConfig) and made.spec == name
        assert info.help in (getattr(agents, name).__doc__ or "") or isinstance(
            getattr(agents, name), AgentModule
        )
    assert agents.hold(n=25).spec == "hold(n=25)" and agents.hold(n=20).spec == "hold"
    assert agents.star2(time_ms=100, max_depth=3).spec == "star2(max_depth=3,time_ms=100.0)"
    assert callable(agents.mcts) and agents.mcts.MCTSBot  # a module, and its agent
    for keywords, spec in (({"n": 10**9}, "hold(n=1000000000)"), ({"m": 1}, "hold(m=1)")):
        with pytest.raises(ValueError) as from_keywords:
            agents.hold(**keywords)
        with pytest.raises(ValueError) as from_spec:
            resolve_spec(spec)
        assert str(from_keywords.value) == str(from_spec.value)
    with pytest.raises(ValueError, match="must be of type int"):
        agents.star2(max_depth=lambda: 3)  # functions only where a hook is taken
    with pytest.raises(AttributeError):
        agents.no_such_agent  # noqa: B018


def test_bad_input_is_one_line_and_plays_nothing(tmp_path):
    out = tmp_path / "m.jsonl"

    def f(game, player, seed):
        return pyspiel.make_uniform_random_bot(player, 1)

    def g(game, player, seed):
        return None

    def broken(game, player, seed):
        return {}["no such key"]

    cases = [
        (dict(a="star2", b="hold", matches=0), "matches must be >= 1"),
        (dict(a="star2", b="nope"), "unknown agent 'nope'"),
        (dict(a=f, b=chancespiel.named(g, "f")), "two agents are named 'f'"),
        (dict(a=BOT, b=BOT), "two agents are named"),
        (dict(a=chancespiel.named(f, "a(b)"), b="hold"), "is not a plain name"),
        (dict(a=chancespiel.named(f, "hold"), b="star2"), "is a registered agent's"),
        (dict(a=g, b="hold"), "returned None, not a pyspiel.Bot"),
        (dict(a=broken, b="hold"), "agent broken: KeyError: 'no such key'"),
        (dict(a=f, b="hold", backend="ray"), "f is a Python object"),
        (dict(a=3, b="hold"), "an agent is a spec string"),
        (dict(a="hold", b="random", value="exact"), "--value needs --luck"),
        (dict(a="hold", b="random", backend="cloud"), "backend must be one of local, ray"),
        (dict(a="hold", b="random", overrun_ms=-1.0), "overrun_ms must be >= 0"),
        (dict(a="hold", b="random", move_timeout_s=float("nan")), "move_timeout_s must be in"),
        (dict(a="hold", b="random", seed=True), "seed must be an integer"),
        (dict(a="hold", b="random", sprt=5), "sprt must be 'ELO0,ELO1,ALPHA,BETA'"),
        (dict(a="hold", b="random", luck="no"), "luck must be True or False, got 'no'"),
        (dict(a="hold", b="random", progress=0), "progress must be True or False, got 0"),
        (dict(a="hold", b="random", out=5), "out must be a file's path or None, got 5"),
        (dict(a="hold", b="random", luck=True, value=5), "value must be a value function's"),
        (dict(a="hold", b="random", backend="ray", address=5), "address must be a Ray"),
        (dict(a="hold", b="random", sprt="0,1e9"), "elo1 must be in [-2000, 2000]"),
    ]
    for arguments, message in cases:
        arguments = {"matches": 2, "out": out, **arguments}
        with pytest.raises(ValueError) as error:
            chancespiel.match(GAME, **arguments)
        assert message in str(error.value) and "\n" not in str(error.value), arguments
        assert not out.exists() and not {"f", "g"} & set(AGENTS)
    with pytest.raises(ValueError, match="at least two"):
        chancespiel.tournament(GAME, ["hold"], matches=1)
    with pytest.raises(ValueError, match="are the same agent"):
        chancespiel.tournament(GAME, ["hold", "hold(n=20)"], matches=1)
    with pytest.raises(ValueError, match="cannot read"):
        chancespiel.report(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="the list is empty"):
        chancespiel.report([])
    with pytest.raises(ValueError, match="value must be a value function's name"):
        chancespiel.report(tmp_path / "missing.jsonl", luck=True, value=2)
    with pytest.raises(ValueError, match="luck must be True or False"):
        chancespiel.report(tmp_path / "missing.jsonl", luck="no")
    with pytest.raises(ValueError, match="agents must be a list or a dict"):
        chancespiel.tournament(GAME, "hold", matches=1)


def test_records_given_in_memory_are_checked_as_a_files_lines_are():
    """A record made or edited in Python is counted as it says: one that cannot be right is
    refused in one line (the file's reader would refuse it too), never miscounted."""
    played = chancespiel.match(GAME, "hold", "random", matches=1, workers=1).records
    edits = [
        ({"returns": [5.0, 5.0]}, "record 0: returns [5.0, 5.0] outside the game's utilities"),
        ({"history": [99, 99]}, "record 0: history move 1 (99) is not legal there"),
        ({"returns": None}, "record 0: returns missing without an error"),
    ]
    for edit, message in edits:
        with pytest.raises(ValueError) as error:
            chancespiel.report([{**played[0], **edit}, played[1]])
        assert message in str(error.value), edit
    lacking = {k: v for k, v in played[0].items() if k != "game"}
    with pytest.raises(ValueError, match="record 0 is not a chancespiel game record"):
        chancespiel.report([lacking])
    first = played[0]
    seats = ["hold(n=20)" if seat == "hold" else seat for seat in first["seats"]]
    respelled = [dict(first, a="hold(n=20)", seats=seats), *played[1:]]
    (pig,) = chancespiel.report(respelled).games  # one agent under two spellings: one pair
    assert [p.games for p in pig.pairs] == [2] and played[0]["a"] == "hold"


def test_unpicklable_agents_play_on_many_workers():
    bias = 0.0
    result = chancespiel.match(
        GAME,
        chancespiel.named(agents.star2(max_depth=1, heuristic=lambda s, p: bias), "closure"),
        chancespiel.named(lambda game, player, seed: make_bot("random", game, player, seed), "rnd"),
        matches=2,
        workers=2,
    )
    assert result.games == 4 and not any(r["error"] for r in result.records)
    assert math.isfinite(result.rate)


def test_the_notebook_example_runs():
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "notebook.py"), "--matches", "2"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    out = done.stdout
    assert "star2:heuristic=lead;max_depth=2;ordering=stop_first (A) vs hold_at_15 (B)" in out
    assert "luck-corrected (value exact" in out and "round robin of 3 agents" in out
    policy = re.search(r"MCTS visit policy: roll ([0-9.]+), stop ([0-9.]+)", out)
    assert policy and math.isclose(float(policy[1]) + float(policy[2]), 1.0, abs_tol=0.011)


def _code_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_python_guide_runs(tmp_path, monkeypatch):
    """Every Python block of docs/python.md, run in order in one namespace (a notebook)."""
    blocks = _code_blocks(ROOT / "docs" / "python.md")
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "guide"}
    for block in blocks:
        exec(compile(block, "docs/python.md", "exec"), namespace)
    assert namespace["checked"] is True
