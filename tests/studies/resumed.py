"""A resumable study's run resumed by a library that searches otherwise: refused, unchanged."""

from __future__ import annotations

import json


def refused_when_mixed(out, capsys, run, config, position):
    """Makes `config` of the finished run in `out` look cut short after `position` and its
    stored rows of `position` another search's: the resumed run must refuse to mix them and
    leave the file as it was; with the stored rows as written it resumes to the same file."""
    raw = out / "raw.jsonl"
    lines = raw.read_text().splitlines(keepends=True)
    rows = [json.loads(line) for line in lines]
    kept = [ln for ln, r in zip(lines, rows, strict=True)
            if r["config"] != config or r["position"] <= position]  # fmt: skip
    changed = list(kept)
    at = next(i for i, ln in enumerate(kept) if json.loads(ln)["config"] == config
              and json.loads(ln)["position"] == position)  # fmt: skip
    row = json.loads(kept[at])
    row["value"] += 1e-9  # a search that differs in the last bits is another search
    changed[at] = json.dumps(row) + "\n"
    raw.write_text("".join(changed))
    capsys.readouterr()
    assert run() == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"rows of {config} that this chancespiel" in err
    assert f"position {position} searched again differs" in err
    assert raw.read_text() == "".join(changed)
    raw.write_text("".join(kept))
    assert run() == 0
    assert raw.read_text() == "".join(lines)
