"""Files without surprises: what a user names is read within bounds and checked, what a command
writes is written whole and only where it may, and a run's lock dies with the run.

Reading: only regular files (a FIFO would block, /dev/zero never end), never more than asked
for, and JSON through one checked reader (`loads`): bounded nesting and integers, one-line
errors. `Kind` and `field_problem` check the type of every field a reader uses.

Writing: a file is written to a temporary file beside it and renamed into place, so a failed or
interrupted write leaves nothing (neither half a file nor an empty one). An output directory
carries a mark file (MARK) that lists the files chancespiel wrote there; `write_output` writes
over those only, never over a file someone else put there.

Locking: `lock` takes an flock, which the kernel releases when the holder dies (a killed run
leaves no stale lock); the descriptor is closed in forked children, so a worker never holds
its parent's lock, and a refusal names the holder's pid.

Every reader here also reads gzip (`.jsonl.gz`, any number of members) transparently, known
by its first bytes rather than its name: committed raw data is stored compressed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import hashlib
import io
import json
import math
import os
import reprlib
import secrets
import stat
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TextIO

MAX_DEPTH = 32  # nesting of JSON containers: ours go four deep
MAX_INT_DIGITS = 30  # digits of a JSON integer: seeds, counts and ids are far shorter

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20  # bytes read (and, from gzip, inflated) at a time

# --- Reading --------------------------------------------------------------------------------


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
    gzip (every member in turn, by the standard library's reader); a member cut short ends the
    bytes where it was cut (as a torn last line of a plain file does). No chunk is longer than
    `chunk`, whatever the ratio.

    Raises:
      OSError: with strerror "not valid gzip (...)" for a gzip stream that is not one.
    """
    offset = 0
    if not is_gzip(fd):
        while data := os.pread(fd, chunk, offset):
            offset += len(data)
            yield data
        return
    with os.fdopen(os.dup(fd), "rb") as raw, gzip.GzipFile(fileobj=raw) as inflated:
        try:  # read1: one inflation at a time, so a cut cannot drop what came before it
            while data := inflated.read1(chunk):
                yield data
        except EOFError:  # the last member cut short: what came before it stands
            return
        except (gzip.BadGzipFile, zlib.error) as e:
            raise OSError(errno.EINVAL, f"not valid gzip ({e})") from None


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


class JsonError(ValueError):
    """Bytes that are not JSON of ours: not UTF-8, not JSON, nested too deep or holding an
    integer too long for any field (one line)."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonError(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _depth(value: Any) -> int:
    """The nesting depth of decoded JSON, without recursion (stops past MAX_DEPTH)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                break
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (list, dict)))
    return deepest


def _finite(value: Any) -> Any:
    """`value` with every NaN and infinity, however deep, as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps(value: Any, indent: int | None = None) -> str:
    """`value` as strict JSON: a number that has none (the rate of no games, NaN) is null,
    where json.dumps would write NaN, which strict readers (jq, JavaScript) refuse."""
    return json.dumps(_finite(value), indent=indent, allow_nan=False)


def loads(data: bytes | str) -> Any:
    """The JSON value in `data`, checked: UTF-8, at most MAX_DEPTH containers deep, integers
    of at most MAX_INT_DIGITS digits. Every JSON file and line chancespiel reads goes
    through here, so no input reaches a RecursionError or a number too large to use.

    Raises:
      JsonError: saying what is wrong, in one line.
    """
    try:  # UTF-8 only (json.loads would guess UTF-16 or -32 from the first bytes)
        value = json.loads(
            data.decode("utf-8") if isinstance(data, bytes) else data, parse_int=_bounded_int
        )
    except JsonError:
        raise
    except RecursionError:
        raise JsonError(f"nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as e:
        raise JsonError(f"not UTF-8 (byte {e.start})") from None
    except ValueError as e:  # json.JSONDecodeError among them
        raise JsonError(str(e).splitlines()[0] if str(e) else "not JSON") from None
    if isinstance(value, (list, dict)) and _needs_depth_check(data) and _depth(value) > MAX_DEPTH:
        raise JsonError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _needs_depth_check(data: bytes | str) -> bool:
    """False when `data` has too few brackets to nest past MAX_DEPTH (a record's line: no walk)."""
    if isinstance(data, bytes):
        return data.count(b"[") + data.count(b"{") > MAX_DEPTH
    return data.count("[") + data.count("{") > MAX_DEPTH


def read_json(path: str | os.PathLike[str], limit: int) -> Any:
    """The JSON value in the regular file `path` of at most `limit` bytes (checked by `loads`).

    Raises:
      OSError: as read_bounded.
      JsonError: as loads.
    """
    return loads(read_bounded(path, limit))


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


# --- Checking fields ------------------------------------------------------------------------

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 60, 60
_SHOWN.maxlist = _SHOWN.maxdict = 6


def shown(value: Any) -> str:
    """A short repr of a value read from a file, for an error message: bounded in length and
    depth, control characters escaped."""
    return _SHOWN.repr(value)


@dataclass(frozen=True)
class Kind:
    """What a field of a file must hold: a test, and its name for an error message."""

    name: str
    test: Callable[[Any], bool]

    def __call__(self, value: Any) -> bool:
        return self.test(value)


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


INT = Kind("an integer", lambda v: type(v) is int)
NATURAL = Kind("an integer >= 0", lambda v: type(v) is int and v >= 0)
NUMBER = Kind("a finite number", _is_number)  # an integer too (1, 1e12 and 1.0 alike)
TEXT = Kind("a string", lambda v: type(v) is str)
FLAG = Kind("true or false", lambda v: type(v) is bool)
OBJECT = Kind("an object", lambda v: type(v) is dict)


def list_of(kind: Kind, length: int | None = None) -> Kind:
    """A list of values of `kind` (of `length` of them, if given)."""
    size = "" if length is None else f"{length} "
    return Kind(
        f"a list of {size}values each {kind.name}",
        lambda v: type(v) is list and (length is None or len(v) == length) and all(map(kind, v)),
    )


def map_of(kind: Kind) -> Kind:
    """An object whose every value is of `kind`."""
    return Kind(
        f"an object of values each {kind.name}",
        lambda v: type(v) is dict and all(map(kind, v.values())),
    )


def maybe(kind: Kind) -> Kind:
    """`kind`, or null."""
    return Kind(f"{kind.name} or null", lambda v: v is None or kind(v))


def field_problem(
    data: Mapping[str, Any], fields: Mapping[str, Kind], required: tuple[str, ...] = ()
) -> str | None:
    """What is wrong with the fields of a decoded object (None if nothing): a field of
    `required` missing, or a field of `fields` present with a value not of its kind."""
    for key in required:
        if key not in data:
            return f"{key} missing"
    for key, kind in fields.items():
        if key in data and not kind(data[key]):
            return f"{key} must be {kind.name}, got {shown(data[key])}"
    return None


# --- Writing --------------------------------------------------------------------------------

MARK = ".chancespiel"  # in an output directory: the names of the files chancespiel wrote there
MARK_HEADER = "chancespiel output: the files below were written by chancespiel, one a line\n"
MAX_MARK_BYTES = 1 << 20
_TEMPORARY = ".tmp-"  # prefix of a file being written (its name's suffix is the target's)


class NotOursError(FileExistsError):
    """A file is in the way that chancespiel did not write: it is not written over."""


def _open_mark(folder: Path, flags: int) -> int:
    """The mark of `folder` opened with `flags`: a regular file, never through a symlink (a
    mark linked to someone's file would have it appended to)."""
    return open_regular(folder / MARK, flags | getattr(os, "O_NOFOLLOW", 0))


def marked_names(folder: Path) -> set[str] | None:
    """The names of the files chancespiel wrote in `folder` (its MARK), or None if `folder`
    carries no mark of ours.

    Raises:
      OSError: if the mark cannot be read.
    """
    try:
        fd = _open_mark(folder, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        data = os.read(fd, MAX_MARK_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_MARK_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_MARK_BYTES:,} bytes", str(folder / MARK))
    text = data.decode("utf-8", "replace")
    if not text.startswith(MARK_HEADER):
        return None
    return set(text[len(MARK_HEADER) :].splitlines())


def mark_folder(folder: Path, names: tuple[str, ...] = ()) -> None:
    """Marks `folder` as an output directory of chancespiel's (if it is not yet) and adds
    `names` to the files it wrote there.

    Raises:
      OSError: if the mark cannot be written (an unwritable or full device, say).
    """
    known = marked_names(folder)
    new = [n for n in dict.fromkeys(names) if known is None or n not in known]
    if known is not None and not new:
        return
    text = (MARK_HEADER if known is None else "") + "".join(f"{n}\n" for n in new)
    fd = _open_mark(folder, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        _write_all(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def is_temporary(name: str) -> bool:
    """True for the name of a file `written` was writing (left by a killed process)."""
    return name.startswith(_TEMPORARY)


@contextlib.contextmanager
def written(path: str | os.PathLike[str], *, overwrite: bool = False) -> Iterator[Path]:
    """A temporary path beside `path` to write the file to (with the same suffix, for writers
    that go by it); once the block ends, the file is synced and renamed to `path`, and if the
    block raises it is removed: `path` is never half written, nor left empty.

    A file already at `path` is left alone (FileExistsError), unless `overwrite` is given and
    chancespiel wrote it (its folder's mark lists it). In a marked output directory the name
    is added to the mark.

    Raises:
      OSError: from writing; FileExistsError (NotOursError) for a file in the way.
    """
    target = Path(path)
    folder = target.parent
    _check_free(target, overwrite)
    tmp = folder / f"{_TEMPORARY}{secrets.token_hex(4)}-{target.name}"
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if _exists(target):
            _check_free(target, overwrite)  # (again: it may have come meanwhile)
            os.replace(tmp, target)  # one of ours, listed already
        else:
            _link_new(tmp, target)
            if marked_names(folder) is not None:  # listed once it is ours
                mark_folder(folder, (target.name,))
        with contextlib.suppress(OSError):  # the rename itself made durable where it can be
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _check_free(target: Path, overwrite: bool) -> None:
    """FileExistsError unless `target` is absent or, with `overwrite`, a regular file its
    folder's mark lists (one chancespiel wrote)."""
    if not _exists(target):
        return
    if not overwrite:
        raise FileExistsError(errno.EEXIST, "exists: a result is not written over", str(target))
    names = marked_names(target.parent)
    if target.is_symlink() or not target.is_file() or names is None or target.name not in names:
        raise NotOursError(
            errno.EEXIST, "is not a file chancespiel wrote: it is not written over", str(target)
        )


@contextlib.contextmanager
def open_output(
    path: str | os.PathLike[str], mode: str = "w", newline: str | None = None
) -> Iterator[IO[Any]]:
    """`open(path, mode)` for writing a result whole (as `written` with `overwrite`): text
    modes in UTF-8."""
    with written(path, overwrite=True) as tmp:
        encoding = None if "b" in mode else "utf-8"
        with open(tmp, mode, encoding=encoding, newline=newline) as f:
            yield f


def _link_new(tmp: Path, target: Path) -> None:
    """Gives `tmp` the name `target` unless something has that name by now (a hard link
    refuses an existing name atomically; a rename after a check where links are not
    supported)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileExistsError(
            errno.EEXIST, "exists: a result is not written over", str(target)
        ) from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if target.exists() or target.is_symlink():
            raise FileExistsError(
                errno.EEXIST, "exists: a result is not written over", str(target)
            ) from None
        os.rename(tmp, target)


def write_output(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Writes `data` (text as UTF-8) to `path` whole, through a temporary file: a new file,
    or one that chancespiel wrote before (listed in its folder's mark).

    Raises:
      OSError: from writing; NotOursError for a file in the way that is not ours.
    """
    with written(path, overwrite=True) as tmp:
        tmp.write_bytes(data.encode() if isinstance(data, str) else data)


def hold_folder(folder: Path, names: tuple[str, ...] = ()) -> int:
    """Marks `folder` (`mark_folder`, with `names`) and locks its mark for this process
    (`lock`); returns the descriptor to `unlock`.

    Raises:
      LockedError: naming the holder, if another process holds the folder.
      OSError: if it cannot be marked.
    """
    mark_folder(folder, names)
    fd = _open_mark(folder, os.O_RDONLY)
    try:
        lock(fd, folder / MARK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def claim_name(path: str | os.PathLike[str]) -> None:
    """Adds `path` to the files chancespiel wrote in its folder, for a file a command appends
    to (whose format its writer checks before it appends), in a marked folder.

    Raises:
      OSError: if the mark cannot be written.
    """
    target = Path(path)
    if marked_names(target.parent) is not None:
        mark_folder(target.parent, (target.name,))


# --- Locking --------------------------------------------------------------------------------

_HELD: set[int] = set()  # lock descriptors of this process, closed in forked children


def _close_held_in_child() -> None:
    """In a forked child: close the parent's lock descriptors. A flock belongs to the open
    file, which a child would share: a worker outliving its parent would hold the lock."""
    for fd in _HELD:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_held_in_child)


class LockedError(OSError):
    """Another process holds the lock (its pid in `holder` where the system tells it)."""

    def __init__(self, path: str, holder: int | None):
        who = f"process {holder}" if holder is not None else "another process"
        super().__init__(errno.EWOULDBLOCK, f"in use by {who}", path)
        self.holder = holder


def lock(fd: int, path: str | os.PathLike[str]) -> None:
    """Takes an exclusive flock on the open file `fd` without waiting, for this process only:
    `fd` is closed in forked children (so that no worker holds it), and the kernel releases
    it when this process dies or closes `fd` (`unlock`).

    Raises:
      LockedError: naming the holder's pid, if another process holds it.
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LockedError(str(path), lock_holder(fd)) from None
    _HELD.add(fd)


def unlock(fd: int) -> None:
    """Closes a descriptor `lock` locked (releasing the lock)."""
    _HELD.discard(fd)
    os.close(fd)


def lock_holder(fd: int) -> int | None:
    """The pid of the process holding an flock on the file open at `fd`, from /proc/locks
    (Linux); None where the system does not say."""
    info = os.fstat(fd)
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
                    return int(fields[4])
    except (OSError, ValueError):
        pass
    return None
