"""``kdump browse``'s search inside a partition (``/``, ``n``, ``N``): the records' keys,
values and headers, as stored (decompressed), matched against plain text, a regular
expression (``re:``) or bytes (``hex:``).

A plain iterator over the partition's segments, on the same reader as every command
(:class:`~kdump.records.file_records.LogReader`): one batch at a time, each compressed
one decompressed within ``--max-batch-bytes``, nothing of the partition kept.  A batch
whose records area (decompressed) cannot hold the text or bytes is passed over without
its records being parsed, so a search runs at the speed of a scan.  It yields
:class:`Progress` as it reads (a consumer stops it by no longer iterating) and the
:class:`Match` it finds.  Damaged stretches are read past as the reader resynchronises;
a batch whose records do not parse is searched up to its fault.

The text searched is the stored bytes, not ``dump``'s decoding of them (an Avro value
decoded through a schema registry is searched as its binary encoding).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ... import layouts as L
from ...errors import KdumpError
from ...files.index import OffsetIndex
from ...findings import Problem
from ...records.file_records import LogReader
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource
from .renderings import key_text
from .tree import SegmentInfo

#: the first window :meth:`Search.last_in` reads back from a place
BACK_WINDOW = 1 << 20
#: a Progress at least this many bytes of the partition apart
PROGRESS_BYTES = 1 << 20
#: the reader's window
SEARCH_CHUNK = 1 << 20
#: regular expressions whose match in a record area does not imply a match in one field
#: (anchors, word boundaries, look-arounds): no pass-over of batches for them
_CONTEXTUAL = re.compile(r"\^|\$|\\[AbBZz]|\(\?<?[=!]")

#: str.translate table folding ASCII letters only (as bytes.lower() does)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

#: a record key that sorts before / after every record of the partition
FIRST: tuple[int, int, int] = (-1, -1, -1)
LAST: tuple[int, int, int] = (1 << 62, 1 << 62, 1 << 62)


class QueryError(ValueError):
    """What was typed is not a query (a bad regular expression, odd hex digits)."""


@dataclass(frozen=True, slots=True)
class Query:
    """What ``/`` searches for.  ``kind``: "text" (UTF-8; case folded for ASCII letters
    when typed all in lower case), "re" (a Python regular expression over the bytes,
    UTF-8), or "hex" (bytes)."""

    typed: str
    kind: str
    needle: bytes = b""
    fold: bool = False
    pattern: re.Pattern[bytes] | None = None

    def matches(self, data: bytes) -> bool:
        if self.pattern is not None:
            return self.pattern.search(data) is not None
        if self.fold:
            return self.needle in data.lower()
        return self.needle in data

    def may_hold(self, buf: bytes, start: int, end: int) -> bool:
        """Can a field inside ``buf[start:end]`` match?  False only when none can."""
        if self.pattern is not None:
            if _CONTEXTUAL.search(self.pattern.pattern.decode("utf-8", "replace")):
                return True
            return self.pattern.search(buf, start, end) is not None
        if self.fold:
            return self.needle in buf[start:end].lower()
        return buf.find(self.needle, start, end) >= 0

    def span_in(self, shown: str) -> tuple[int, int] | None:
        """Where the match is in ``shown``, a field as the interface shows it (text, or
        ``0x`` and hex for bytes that are not UTF-8: :func:`key_text`), to mark it; None
        where the shown text does not hold it (a value shown through a decoder, a
        pattern that needs bytes)."""
        if self.kind == "re":
            assert self.pattern is not None
            try:
                m = re.search(self.pattern.pattern.decode("utf-8"), shown)
            except (re.error, UnicodeDecodeError):
                return None
            return m.span() if m is not None and m.end() > m.start() else None
        if self.kind == "hex":
            if shown.startswith("0x"):  # bytes shown in hex: the digits, whole bytes
                digits = self.needle.hex()
                at = shown.find(digits, 2)
                while at >= 0 and at % 2:
                    at = shown.find(digits, at + 1)
                return (at, at + len(digits)) if at >= 0 else None
            try:
                text = self.needle.decode("utf-8")
            except UnicodeDecodeError:
                return None
            at = shown.find(text)
        else:
            text = self.needle.decode("utf-8")
            # folded as bytes.lower() folds what is searched: ASCII letters only, so
            # every position stays where it is
            at = (shown.translate(_ASCII_LOWER) if self.fold else shown).find(text)
        return (at, at + len(text)) if at >= 0 else None

    def __str__(self) -> str:
        return self.typed


def parse_query(typed: str) -> Query:
    """``text``, ``re:REGEX`` or ``hex:BYTES`` (spaces allowed between hex digits)."""
    if typed.startswith("re:"):
        body = typed[3:]
        if not body:
            raise QueryError("re: needs a regular expression")
        try:
            pattern = re.compile(body.encode("utf-8"))
        except re.error as e:
            raise QueryError(f"not a regular expression: {e}") from None
        return Query(typed, "re", pattern=pattern)
    if typed.startswith("hex:"):
        digits = "".join(typed[4:].split())
        try:
            needle = binascii.unhexlify(digits.removeprefix("0x"))
        except (binascii.Error, ValueError):
            raise QueryError(f"hex: needs pairs of hex digits, not {typed[4:]!r}") from None
        if not needle:
            raise QueryError("hex: needs at least one byte")
        return Query(typed, "hex", needle=needle)
    if not typed:
        raise QueryError("nothing to search for")
    fold = typed == typed.lower()
    return Query(typed, "text", needle=typed.encode("utf-8"), fold=fold)


@dataclass(frozen=True, slots=True)
class Place:
    """A record of the partition: its segment (an index into the partition's
    segments), its batch's byte position and its offset (None: before the batch's
    first record)."""

    segment: int
    position: int
    offset: int | None = None

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.segment, self.position, -1 if self.offset is None else self.offset)


@dataclass(frozen=True, slots=True)
class Match:
    """A record that matches: where it is and in which field ("key", "value",
    "header NAME")."""

    segment: int
    position: int
    offset: int
    field: str
    #: found past the partition's end (or start, backwards), from the other side
    wrapped: bool = False


@dataclass(frozen=True, slots=True)
class Progress:
    """How far a search has read: the batch it is at, bytes read of the partition."""

    segment: int
    position: int
    offset: int | None
    scanned: int
    total: int
    wrapped: bool = False


Item = Progress | Match


def _field(rec_key: bytes | None, rec_value: bytes | None,
           headers: Sequence[tuple[bytes | str, bytes | None]], q: Query) -> str | None:
    if rec_key is not None and q.matches(rec_key):
        return "key"
    if rec_value is not None and q.matches(rec_value):
        return "value"
    for hk, hv in headers:
        kb = hk.encode("utf-8", "surrogateescape") if isinstance(hk, str) else hk
        if q.matches(kb) or (hv is not None and q.matches(hv)):
            return f"header {key_text(kb)}"
    return None


class Search:
    """One query over a partition's segments.  :meth:`forward` and :meth:`backward`
    are iterators; :attr:`bytes_read` counts what they read (the files are opened
    read-only, one at a time)."""

    def __init__(self, segments: list[SegmentInfo], query: Query, *,
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 progress_bytes: int = PROGRESS_BYTES) -> None:
        self.segments = segments
        self.query = query
        self.max_batch_bytes = max_batch_bytes
        self.progress_bytes = progress_bytes
        self.bytes_read = 0
        self.scanned = 0
        self._reported = 0
        self.total = sum(s.size for s in segments)

    # --- one segment -------------------------------------------------------------------
    def walk(self, seg: int, start: int, lo: tuple[int, int, int], hi: tuple[int, int, int],
             *, wrapped: bool = False, first: bool = True) -> Iterator[Item]:
        """The matches of segment ``seg`` read from byte ``start``, of records whose
        place (segment, batch position, offset) is after ``lo`` and at most ``hi``; the
        first only when ``first``, else every one.  Progress in between."""
        q = self.query
        try:
            src = FileSource(self.segments[seg].path)
        except KdumpError:
            return  # a segment that vanished or cannot be read: nothing to search in it
        reader = LogReader(src, start=start, active=self.segments[seg].active,
                           max_batch_bytes=self.max_batch_bytes, chunk=SEARCH_CHUNK)
        before = src.bytes_read
        last = start
        try:
            for item in reader:
                if isinstance(item, Problem):  # a damaged stretch: read past, counted
                    if item.position is not None and item.length:
                        self.scanned += max(0, item.position + item.length - last)
                        last = max(last, item.position + item.length)
                    continue
                if (seg, item.position) > hi[:2]:
                    break
                self.scanned += item.position + item.size - last
                last = item.position + item.size
                if self.scanned - self._reported >= self.progress_bytes:
                    self._reported = self.scanned
                    self.bytes_read += src.bytes_read - before
                    before = src.bytes_read
                    yield Progress(seg, item.position, item.first_offset, self.scanned,
                                   self.total, wrapped)
                if (seg, item.position, item.last_offset) <= lo or item.is_control:
                    continue
                try:
                    if isinstance(item, RecordBatch):
                        buf, a, b = item.payload(self.max_batch_bytes)
                        if not q.may_hold(buf, a, b):
                            continue
                    for rec in item.records(self.max_batch_bytes):
                        key = (seg, item.position, rec.offset)
                        if key <= lo or key > hi:
                            continue
                        where = _field(rec.key, rec.value, rec.headers or [], q)
                        if where is not None:
                            yield Match(seg, item.position, rec.offset, where, wrapped)
                            if first:
                                return
                except KdumpError:
                    continue  # records past a fault, a batch too large: not searchable
        except KdumpError:
            return  # the file cannot be read on: the rest of the segment is not searched
        finally:
            self.bytes_read += src.bytes_read - before
            reader.close()
            src.close()

    # --- the partition -------------------------------------------------------------------
    def forward(self, after: Place, *, wrap: bool = True) -> Iterator[Item]:
        """The first match after ``after`` (to the partition's end, then, with ``wrap``,
        from its start up to ``after`` itself)."""
        for seg in range(after.segment, len(self.segments)):
            start = after.position if seg == after.segment else 0
            for item in self.walk(seg, start, after.key, LAST):
                yield item
                if isinstance(item, Match):
                    return
        if not wrap:
            return
        for seg in range(0, min(after.segment + 1, len(self.segments))):
            for item in self.walk(seg, 0, FIRST, after.key, wrapped=True):
                yield item
                if isinstance(item, Match):
                    return

    def backward(self, before: Place, *, wrap: bool = True) -> Iterator[Item]:
        """The last match before ``before`` (the nearest segment first, each read back
        from its end in windows: :meth:`last_in`); then, with ``wrap``, from the
        partition's end down to ``before`` itself."""
        below = (before.key[0], before.key[1], before.key[2] - 1)
        for seg in range(min(before.segment, len(self.segments) - 1), -1, -1):
            hi = below if seg == before.segment else LAST
            for item in self.last_in(seg, FIRST, hi):
                yield item
                if isinstance(item, Match):
                    return
        if not wrap:
            return
        for seg in range(len(self.segments) - 1, before.segment - 1, -1):
            lo = below if seg == before.segment else FIRST
            for item in self.last_in(seg, lo, LAST, wrapped=True):
                yield item
                if isinstance(item, Match):
                    return

    def last_in(self, seg: int, lo: tuple[int, int, int], hi: tuple[int, int, int],
                *, wrapped: bool = False) -> Iterator[Item]:
        """The last match of segment ``seg`` between ``lo`` and ``hi``, read back from
        ``hi`` in windows of batches that double (1 MiB, 2 MiB ...), each starting at an
        offset index entry (a batch start): a match near ``hi`` is found by reading
        near it, not the segment from its start."""
        end = self.segments[seg].size if hi[0] > seg else hi[1] + 1
        window = BACK_WINDOW
        while end > 0:
            start = self.batch_start_before(seg, end - window) if end > window else 0
            top = min(hi, (seg, end - 1, LAST[2]))
            found: Match | None = None
            for item in self.walk(seg, start, lo, top, wrapped=wrapped, first=False):
                if isinstance(item, Match):
                    found = item
                else:
                    yield item
            if found is not None:
                yield found
                return
            if start <= 0 or (seg, start) <= lo[:2]:
                return
            end, window = start, window * 2

    def batch_start_before(self, seg: int, position: int) -> int:
        """The position of the segment's offset index entry at or before ``position``
        (entries point at batch starts), else 0."""
        path = self.segments[seg].path
        if not path.endswith(L.LOG_SUFFIX):
            return 0
        try:
            with FileSource(path[: -len(L.LOG_SUFFIX)] + L.INDEX_SUFFIX) as src:
                idx = OffsetIndex(src, self.segments[seg].base_offset, chunk=4 << 10)
                lo, hi, best = 0, idx.used_slots() - 1, 0
                while lo <= hi:
                    mid = (lo + hi) // 2
                    pos = idx.entry(mid).position
                    if pos <= position:
                        best = max(best, pos)
                        lo = mid + 1
                    else:
                        hi = mid - 1
                self.bytes_read += src.bytes_read
        except KdumpError:
            return 0
        return best

    def matches(self, after: Place | None = None) -> Iterator[Match]:
        """Every match from ``after`` (default: the partition's start) to the end."""
        start = after or Place(0, 0)
        lo = start.key if after is not None else FIRST
        for seg in range(start.segment, len(self.segments)):
            pos = start.position if seg == start.segment else 0
            for item in self.walk(seg, pos, lo, LAST, first=False):
                if isinstance(item, Match):
                    yield item
