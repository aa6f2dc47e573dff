"""Reading files without surprises: only regular files, and never more than asked for.

A FIFO would block an open or a read, /dev/zero would never end, and a huge file would fill the
memory; every file a user names (records, regressions, models) is read through these, so each
of those is an OSError with a message instead.

Every reader here also reads gzip (`.jsonl.gz`, any number of members) transparently, known by
its first bytes rather than its name: committed raw data is stored compressed.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import json
import os
import stat
import zlib
from collections.abc import Iterator
from typing import Any, TextIO

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20  # bytes read (and, from gzip, inflated) at a time


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


def is_gzip(fd: int) -> bool:
    """Whether the file open at `fd` starts as gzip does."""
    return os.pread(fd, len(GZIP_MAGIC), 0) == GZIP_MAGIC


def read_chunks(fd: int, chunk: int = CHUNK) -> Iterator[bytes]:
    """The bytes of the file open at `fd` from its start, `chunk` at a time, inflated when it is
    gzip: every member in turn; a member cut short ends the bytes where it was cut (as a torn
    last line of a plain file does). No chunk is longer than `chunk`, whatever the ratio."""
    offset = 0
    if not is_gzip(fd):
        while data := os.pread(fd, chunk, offset):
            offset += len(data)
            yield data
        return
    inflater = zlib.decompressobj(wbits=31)
    while data := os.pread(fd, chunk, offset):
        offset += len(data)
        while data:
            try:
                out = inflater.decompress(data, chunk)
            except zlib.error as e:
                raise OSError(errno.EINVAL, f"not valid gzip ({e})") from None
            if out:
                yield out
            if inflater.eof:  # the next member, if any, starts in the unused bytes
                data = inflater.unused_data
                inflater = zlib.decompressobj(wbits=31)
            else:
                data = inflater.unconsumed_tail


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file `path` (inflated if gzip), at most `limit` of them.

    Raises:
      OSError: as open_regular, with strerror "larger than N bytes", or "not valid gzip".
    """
    fd = open_regular(path)
    parts: list[bytes] = []
    size = 0
    try:
        for part in read_chunks(fd, min(CHUNK, limit + 1)):
            parts.append(part)
            size += len(part)
            if size > limit:
                raise OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    finally:
        os.close(fd)
    return b"".join(parts)


def read_json(path: str | os.PathLike[str], limit: int) -> Any:
    """The JSON value in the regular file `path` of at most `limit` bytes.

    Raises:
      OSError: as read_bounded.
      ValueError: if the bytes are not JSON in UTF-8 (json.JSONDecodeError or
        UnicodeDecodeError).
    """
    return json.loads(read_bounded(path, limit))


def open_text(path: str | os.PathLike[str], newline: str | None = None) -> TextIO:
    """`open(path, encoding="utf-8", newline=newline)` for reading (inflating gzip), refusing
    what is not a regular file.

    Raises:
      OSError: as open_regular; reading a gzip file cut short raises EOFError.
    """
    fd = open_regular(path)
    if not is_gzip(fd):
        return os.fdopen(fd, encoding="utf-8", newline=newline)
    raw = gzip.GzipFile(fileobj=os.fdopen(fd, "rb"))
    return io.TextIOWrapper(raw, encoding="utf-8", newline=newline)


def stored(path: str | os.PathLike[str]) -> str:
    """`path`, or `path.gz` where only the compressed copy exists (committed raw data)."""
    name = os.fspath(path)
    return name + ".gz" if not os.path.exists(name) and os.path.exists(name + ".gz") else name


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
