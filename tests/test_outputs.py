"""Outputs are owned: a command writes only files it made (listed in its directory's mark) or
record files it checked, never into the current directory by accident, and whole or not at
all; what it cannot write is one line on stderr before the work, with the right status."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chancespiel import files
from chancespiel.evaluation import cli
from chancespiel.evaluation.usage import UsageError, output_dir, release_outputs
from chancespiel.studies import pig_regret

RECORDS = Path(__file__).parent.parent / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"
PIG = "python_pig(winscore=10)"
MATCH = ["match", PIG, "hold(n=5)", "random", "--matches", "1", "--workers", "1", "--no-progress"]
LIMITED = (  # the command under a file size limit: every write past 200 bytes fails (EFBIG)
    "import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200)); "
    "from chancespiel.evaluation.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _one_line(err: str) -> str:
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "content",
    [b'{"v": 2, "name": "my config"}', b'{"v":2,"name":"my config"}', b'{"v":3}', b"{"],
)
def test_a_one_line_json_file_named_as_out_is_not_taken_for_a_torn_record(
    tmp_path, capsys, content
):
    """A file without a final newline is cut only where its tail is our own record cut short:
    someone's one-line JSON file is refused, byte for byte as it was."""
    config = tmp_path / "config.json"
    config.write_bytes(content)
    assert cli.main([*MATCH, "--out", str(config)]) == 2
    assert "line 1 is not a chancespiel game record" in _one_line(capsys.readouterr().err)
    assert config.read_bytes() == content


def test_a_record_cut_short_by_a_kill_is_still_dropped_and_played_again(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert cli.main([*MATCH, "--out", str(out)]) == 0
    whole = out.read_bytes()
    start = whole.rindex(b"\n", 0, len(whole) - 1) + 1  # of the last line
    out.write_bytes(whole[: start + (len(whole) - start) // 2])
    capsys.readouterr()
    assert cli.main([*MATCH, "--out", str(out)]) == 0
    assert "incomplete" in capsys.readouterr().err
    assert [json.loads(line)["history"] for line in out.read_text().splitlines()] == [
        json.loads(line)["history"] for line in whole.decode().splitlines()
    ]


def _user_dir(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in names:
        (folder / name).write_text(f"my own {name}\n")
    return folder


def _positions(folder: Path) -> None:
    """A positions.csv of pig-regret (three positions: no collecting)."""
    with open(folder / "positions.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["index", "mine", "theirs", "turn_total", "mover", "gap", "real"])
        for index, key in enumerate(((0, 0, 8, 1), (40, 62, 14, 0), (85, 90, 6, 1))):
            writer.writerow([index, *key, pig_regret.gap_of(key), 1])


REGRET = ["experiment", "pig-regret", "--positions", "3", "--budgets", "200", "--configs", "base"]
REGRET += ["--workers", "1", "--no-progress", "--out"]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["report", str(RECORDS), "--out"], ("pairs.csv", "notes.md")),
        (["experiment", "figure2", "--games", "pig", "--matches", "1", "--out"], ("table.md",)),
        (
            ["experiment", "figure2", "--summarise-only", "--matches", "1", "--out"],
            ("README.md", "table.md"),
        ),
        (REGRET, ("regret.csv", "README.md")),
        (["experiment", "luck-values", str(RECORDS), "--out"], ("README.md",)),
        (["experiment", "bab-nodes", "--trees", "1", "--out"], ("bab_nodes.md",)),
    ],
    ids=["report", "figure2", "figure2-summarise", "pig-regret", "luck-values", "bab-nodes"],
)
def test_a_directory_holding_a_users_files_is_refused_untouched(tmp_path, capsys, argv, names):
    folder = _user_dir(tmp_path, *names)
    before = _tree(folder)
    assert cli.main([*argv, str(folder)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert "not written over" in err or "holds no record files" in err, err
    assert _tree(folder) == before


def test_a_run_directory_keeps_a_file_the_user_added(tmp_path, capsys):
    """A run's own directory is resumed and its summaries rewritten; a file the user put there
    after it (not in the mark) is never written over: the summary is refused in one line."""
    out = tmp_path / "run"
    out.mkdir()
    _positions(out)
    assert cli.main([*REGRET, str(out)]) == 0
    marked = files.marked_names(out)
    assert marked is not None and {"regret.csv", "README.md", "raw.jsonl"} <= marked
    assert cli.main([*REGRET, str(out), "--summarise-only"]) == 0  # its own files: rewritten
    (out / "regret.png").unlink()
    (out / "regret.png").write_text("my drawing\n")  # the user's now, under an old name
    with open(out / files.MARK) as f:
        text = f.read()
    with open(out / files.MARK, "w") as f:  # as if it had never been ours
        f.write(text.replace("regret.png\n", ""))
    capsys.readouterr()
    assert cli.main([*REGRET, str(out), "--summarise-only"]) == 1
    assert "regret.png: is not a file chancespiel wrote" in _one_line(capsys.readouterr().err)
    assert (out / "regret.png").read_text() == "my drawing\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["report", str(RECORDS), "--out", ""],
        ["experiment", "bab-nodes", "--trees", "1", "--out", " "],
        [*REGRET, ""],
        ["experiment", "node-counts", "--game", PIG, "--depths", "1", "--out", ""],
    ],
)
def test_an_empty_out_is_refused_not_taken_for_the_current_directory(
    tmp_path, monkeypatch, capsys, argv
):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert "--out must name a path" in _one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_nothing_and_the_retry_works(tmp_path):
    """The table is written to a temporary file renamed into place: a write cut short (a file
    size limit standing in for a full disk) leaves no file, so the same command runs again."""
    out = tmp_path / "table.md"
    argv = ["experiment", "node-counts", "--game", PIG, "--depths", "1", "--positions", "3"]
    argv += ["--out", str(out)]
    failed = subprocess.run([sys.executable, "-c", LIMITED, *argv], capture_output=True, text=True)
    assert failed.returncode == 2 and "File too large" in _one_line(failed.stderr)
    assert sorted(os.listdir(tmp_path)) == []  # neither half a table nor a temporary file
    again = subprocess.run([sys.executable, "-m", "chancespiel", *argv], capture_output=True)
    assert again.returncode == 0, again.stderr
    assert out.read_text().startswith("|")


def test_written_is_whole_or_nothing(tmp_path):
    path = tmp_path / "a.txt"
    with pytest.raises(RuntimeError), files.written(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    files.write_output(path, "one")
    with pytest.raises(FileExistsError), files.written(path) as tmp:  # not over a result
        tmp.write_text("two")
    with pytest.raises(files.NotOursError):  # nor, in an unmarked folder, over anyone's
        files.write_output(path, "two")
    assert path.read_text() == "one" and sorted(os.listdir(tmp_path)) == ["a.txt"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_text("x"), "exists and is not a directory"),
        (lambda p: os.symlink("/dev/null", p), "exists and is not a directory"),
        (lambda p: os.mkfifo(p), "exists and is not a directory"),
        (lambda p: (p.mkdir(), p.chmod(0o500)), "not writable"),
        (lambda p: p.parent.chmod(0o500), "not writable"),
    ],
    ids=["file", "symlink-to-device", "fifo", "read-only-dir", "read-only-parent"],
)
def test_an_out_that_cannot_hold_the_results_is_refused_before_the_work(
    tmp_path, capsys, make, message
):
    if os.geteuid() == 0 and "writable" in message:
        pytest.skip("root writes in read-only directories")
    out = tmp_path / "parent" / "out"
    out.parent.mkdir()
    make(out)
    try:
        with pytest.raises(UsageError, match=message):
            output_dir(out, "report")
    finally:
        out.parent.chmod(0o700)
        if out.is_dir():
            out.chmod(0o700)


def test_a_full_device_is_refused_before_the_work(tmp_path, monkeypatch):
    class Full:
        f_bavail, f_frsize, f_blocks, f_flag = 0, 4096, 1000, 0

    monkeypatch.setattr(os, "statvfs", lambda _: Full())
    with pytest.raises(UsageError, match="no space left"):
        output_dir(tmp_path / "out", "report")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("target", ["/", "/dev/null", "/dev/full", "/proc"])
def test_system_paths_as_out_are_refused(capsys, target):
    for argv in (["report", str(RECORDS), "--out", target], [*MATCH, "--out", target]):
        assert cli.main(argv) == 2, argv
        _one_line(capsys.readouterr().err)


def test_a_symlink_to_a_users_file_is_not_written_through(tmp_path, capsys):
    mine = tmp_path / "mine.txt"
    mine.write_text("keep me\n")
    link = tmp_path / "link.md"
    link.symlink_to(mine)
    argv = ["experiment", "node-counts", "--game", PIG, "--depths", "1", "--out", str(link)]
    assert cli.main(argv) == 2
    assert "exists" in _one_line(capsys.readouterr().err)
    assert mine.read_text() == "keep me\n"


def test_stdout_that_cannot_be_written_is_one_line(tmp_path):
    for stdout, fragment, status in (
        (open("/dev/full", "w"), "cannot write the output: No space left on device", 1),  # noqa: SIM115
        (None, "standard output is closed", 2),
    ):
        # a closed stdout: the child's descriptor 1 is closed before Python starts
        closing = [] if stdout is not None else ["sh", "-c", 'exec "$@" >&-', "sh"]
        done = subprocess.run(
            [*closing, sys.executable, "-m", "chancespiel", "games"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert done.returncode == status and fragment in _one_line(done.stderr), done.stderr
        if stdout is not None:
            stdout.close()


def test_control_characters_read_from_records_are_escaped_when_printed(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert cli.main([*MATCH, "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    hostile = lines[0].replace(
        '"error":null',
        '"error":{"seat":0,"spec":"hold(n=5)",'
        '"kind":"X\\u001b[2J","message":"\\u001b]0;owned\\u0007\\r"}',
    )
    (tmp_path / "h.jsonl").write_text(hostile.replace('"returns":[', '"returns":[') + "\n")
    capsys.readouterr()
    cli.main(["replay", str(tmp_path / "h.jsonl")])
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
    assert "X\\x1b[2J" in shown


def test_claims_are_released_when_the_command_ends(tmp_path):
    output_dir(tmp_path / "out", "report")
    release_outputs()
    assert files.marked_names(tmp_path / "out") == set()
