"""Custody of evidence: SHA-256 of the files kdump reads and writes, and UTC times.

Every command that hands back a record of what it read (``kdump report``'s chain of
custody, ``kdump repair``'s and ``kdump export``'s manifests) hashes through here:
streamed through :class:`kdump.source.FileSource` (read-only, O_NOATIME, bounded
memory), never a whole file in memory.  :class:`HashingSource` lets a log be read once
for both its batches and its hash.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from .errors import KdumpError
from .source import FileSource

HASH_CHUNK = 1 << 20


def utc_iso(ms: float) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds."""
    t = time.gmtime(ms / 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(ms) % 1000:03d}Z"


Digest = tuple[str | None, int, str | None]


def file_digest(path: str) -> Digest:
    """SHA-256 (hex) of a file, the bytes hashed, and the error that stopped it."""
    try:
        with FileSource(path) as src:
            return _finish(src, hashlib.sha256(), 0)
    except (KdumpError, OSError) as e:
        return None, 0, getattr(e, "message", None) or str(e)


def _finish(src: FileSource, h: Any, done: int) -> Digest:
    """Hash ``src`` from ``done`` (the bytes ``h`` has seen) to its end."""
    n = done
    try:
        while n < src.size:
            chunk = src.pread(n, min(HASH_CHUNK, src.size - n))
            if not chunk:
                break
            h.update(chunk)
            n += len(chunk)
    except (KdumpError, OSError) as e:
        return None, n, getattr(e, "message", None) or str(e)
    return h.hexdigest(), n, None


class HashingSource:
    """A :class:`FileSource` seen by the log reader that hashes the bytes it reads, as
    long as they come in order (a log read front to back: the usual case); what the
    reader skipped (a hole, a resync) is read for the hash afterwards (:meth:`digest`).
    So a log is read once for its batches and its SHA-256."""

    def __init__(self, src: FileSource) -> None:
        self.src = src
        self.path = src.path
        self.size = src.size
        self.hash = hashlib.sha256()
        self.done = 0

    def _seen(self, position: int, data: bytes) -> bytes:
        end = position + len(data)
        if position <= self.done < end:
            self.hash.update(memoryview(data)[self.done - position:])
            self.done = end
        return data

    def pread(self, position: int, n: int) -> bytes:
        return self._seen(position, self.src.pread(position, n))

    def fill(self, position: int, n: int, want: int) -> bytes:
        return self._seen(position, self.src.fill(position, n, want))

    def next_data(self, position: int) -> int:
        return self.src.next_data(position)

    def data_end(self, start: int, end: int) -> int:
        return self.src.data_end(start, end)

    def prefetch(self, position: int, n: int) -> None:
        self.src.prefetch(position, n)

    def digest(self) -> Digest:
        return _finish(self.src, self.hash, self.done)


def resume_digest(path: str, hashing: HashingSource | None) -> Digest:
    """SHA-256 of ``path``: the bytes ``hashing`` saw while its reader read (a range that
    ended before the file did), then the rest, read again from a new source; the whole
    file when nothing was hashed yet."""
    if hashing is None:
        return file_digest(path)
    try:
        with FileSource(path) as src:
            return _finish(src, hashing.hash, hashing.done)
    except (KdumpError, OSError) as e:
        return None, hashing.done, getattr(e, "message", None) or str(e)
