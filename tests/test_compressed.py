"""Raw data stored as gzip is read exactly as the plain file would be, and never appended to."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

from chancespiel.evaluation import cli
from chancespiel.evaluation.match import RecordFileError, RecordWriter, read_records
from chancespiel.evaluation.resumable import read_rows
from chancespiel.files import read_bounded, stored

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "lab" / "results" / "figure2" / "pig_lead" / "pig.jsonl.gz"


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    path = tmp_path / "pig.jsonl"
    path.write_bytes(gzip.decompress(COMMITTED.read_bytes()))
    return path


def test_committed_raw_data_is_compressed_and_small():
    raw = [p for p in (ROOT / "lab" / "results").rglob("*") if p.suffix in (".jsonl", ".gz")]
    assert raw and all(p.suffix == ".gz" for p in raw), [p for p in raw if p.suffix != ".gz"]
    stored = sum(p.stat().st_size for p in raw)
    # Records compress about sevenfold; a fifth would mean a file stored without it. The
    # total is the repository's budget for raw results (18.5 MB before the hybrid's matches,
    # 24 MB before the equal-node maps of its options and their matches, 24.4 MB after them,
    # 25.9 MB after the one setting's equal-node rows and matches, 28.7 MB after the 0.4.0
    # defaults' maps and matches, 29.8 MB after se_gap's equal-node rows and the last two
    # Can't Stop cells of the 0.4.0 defaults).
    assert stored < sum(len(gzip.decompress(p.read_bytes())) for p in raw) / 5
    assert stored < 32e6


def test_gzip_records_read_as_the_plain_file(plain: Path):
    assert read_records(COMMITTED) == read_records(plain)


def test_several_members_and_chunk_boundaries_read_as_one_file(plain: Path, tmp_path: Path):
    data = plain.read_bytes()
    members = tmp_path / "members.jsonl.gz"
    cut = data.index(b"\n", len(data) // 3) + 1
    members.write_bytes(gzip.compress(data[:cut]) + gzip.compress(data[cut:]))
    assert read_records(members) == read_records(plain)


def test_a_member_cut_short_keeps_the_whole_lines_before_it(plain: Path, tmp_path: Path):
    whole = read_records(plain)
    cut = tmp_path / "cut.jsonl.gz"
    packed = gzip.compress(plain.read_bytes())
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.warns(UserWarning, match="incomplete"):
        kept = read_records(cut)
    assert 0 < len(kept) < len(whole) and kept == whole[: len(kept)]


def test_a_bomb_is_refused_by_the_bounded_read(tmp_path: Path):
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (50 << 20)))  # 50 MiB of blanks in about 50 KiB
    with pytest.raises(OSError, match="larger than"):
        read_bounded(bomb, 1 << 20)


def test_corrupt_gzip_is_one_error_naming_the_file(tmp_path: Path):
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b" + zlib.compress(b"not a gzip stream"))
    with pytest.raises(RecordFileError, match=str(bad)):
        read_records(bad)


def test_records_are_never_appended_to_a_compressed_file(plain: Path, tmp_path: Path):
    named = tmp_path / "new.jsonl.gz"
    with pytest.raises(RecordFileError, match="gunzip"):
        RecordWriter(named)
    assert not named.exists()  # refused before anything was created
    disguised = tmp_path / "disguised.jsonl"
    disguised.write_bytes(COMMITTED.read_bytes())
    with pytest.raises(RecordFileError, match="gunzip"):
        RecordWriter(disguised)
    assert disguised.read_bytes() == COMMITTED.read_bytes()


def test_rows_of_a_run_are_found_compressed(tmp_path: Path):
    rows = [{"config": "a", "position": i} for i in range(5)]
    raw = tmp_path / "raw.jsonl"
    (tmp_path / "raw.jsonl.gz").write_bytes(
        gzip.compress("".join(f'{{"config": "a", "position": {i}}}\n' for i in range(5)).encode())
    )
    assert stored(raw) == str(raw) + ".gz"
    assert read_rows(raw) == rows


def test_report_reads_a_committed_gzip_file(plain: Path, capsys):
    assert cli.main(["report", "--json", str(COMMITTED)]) == 0
    compressed = capsys.readouterr().out
    assert cli.main(["report", "--json", str(plain)]) == 0
    assert capsys.readouterr().out == compressed.replace(str(COMMITTED), str(plain))
