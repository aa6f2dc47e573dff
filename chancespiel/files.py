"""Reading files without surprises: only regular files, and never more than asked for.

A FIFO would block an open or a read, /dev/zero would never end, and a huge file would fill the
memory; every file a user names (records, regressions, models) is read through these, so each
of those is an OSError with a message instead.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from typing import Any, TextIO


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY) -> int:
    """os.open(path, flags), refusing what is not a regular file before reading a byte.

    Raises:
      OSError: from os.open, or with strerror "not a regular file".
    """
    fd = os.open(path, flags | os.O_NONBLOCK, 0o644)  # a FIFO must not block the open
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    os.set_blocking(fd, True)
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them.

    Raises:
      OSError: as open_regular, or with strerror "larger than N bytes".
    """
    fd = open_regular(path)
    try:
        data = os.read(fd, limit + 1)  # one read: a regular file returns what it has
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    return data


def read_json(path: str | os.PathLike[str], limit: int) -> Any:
    """The JSON value in the regular file `path` of at most `limit` bytes.

    Raises:
      OSError: as read_bounded.
      ValueError: if the bytes are not JSON in UTF-8 (json.JSONDecodeError or
        UnicodeDecodeError).
    """
    return json.loads(read_bounded(path, limit))


def open_text(path: str | os.PathLike[str], newline: str | None = None) -> TextIO:
    """`open(path, encoding="utf-8", newline=newline)` for reading, refusing what is not a
    regular file.

    Raises:
      OSError: as open_regular.
    """
    return os.fdopen(open_regular(path), encoding="utf-8", newline=newline)


def file_digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, in hex, read a MiB at a time.

    Raises:
      OSError: as open_regular.
    """
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
