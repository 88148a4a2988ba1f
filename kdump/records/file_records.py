"""Walk a ``.log`` (or KRaft ``.checkpoint``) file batch by batch, through damage.

clients/src/main/java/org/apache/kafka/common/record/FileLogInputStream.java frames a
file the same way: 17 header bytes, ``size`` at byte 8, ``magic`` at byte 16, entry
length ``12 + size``.  Kafka stops (or throws) at the first entry it cannot frame;
:func:`iter_log` reports the bad stretch as a :class:`~kdump.findings.Problem`, scans
forward for the next intact batch (plausible header and a matching checksum), and
carries on, so every intact batch after a fault is still read.

Size: over 600 lines, as it is one reader: the framing, the resynchronisation, and the
buffered fast path both native walks (verify-crc's and size-report's) run through.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Generator, Iterator

from .. import layouts as L
from ..checksums import crc32, crc32c
from ..codecs import decompress
from ..errors import KdumpError, LimitExceeded
from ..findings import ERROR, INFO, WARNING, Problem
from ..source import FileSource, ReadAhead, Window, WindowReads
from .batch import Batch
from .faults import max_headers
from .legacy import LegacyBatch
from .native import speedups
from .record import Record
from .v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch

LogItem = Batch | Problem

_native_run = None if speedups is None else speedups.verify_run
#: the fast path's read buffer (see LogReader.skip_clean_batches): small enough that
#: the bytes just read are still in the CPU's cache when the walk checks them
FAST_CHUNK = 1 << 20
#: verify-crc's native walk reads a local file itself (pread in C, a POSIX thread reading
#: ahead: no Python between stretches, issue 49); False: Python reads it into
#: FAST_CHUNK buffers for the walk (a remote file always is; tests run both)
NATIVE_READS = True
#: the native reads return to Python after this many bytes (the progress count moves)
NATIVE_STEP = 64 << 20
#: whether the native reads use a thread reading ahead: None decides by the machine
#: (:func:`read_ahead_pays`); tests set it
READ_AHEAD: bool | None = None
_NONZERO = re.compile(rb"[^\x00]")
_MAGIC_BYTE = re.compile(rb"[\x00-\x02]")
_SCAN_CHUNK = 4 << 20


def make_batch(path: str, position: int, data: bytes, index: int) -> Batch:
    if data[index + L.MAGIC_OFFSET] >= 2:
        return RecordBatch(path, position, data, index)
    return LegacyBatch(path, position, data, index)


def _too_large(b: Batch, limit: int) -> LimitExceeded:
    return LimitExceeded(
        f"batch of {b.size} bytes is larger than the limit of {limit} bytes "
        "(--max-batch-bytes): its records are not read",
        path=b.path, position=b.position, base_offset=b.first_offset,
    )


class OversizedRecordBatch(RecordBatch):
    """A v2 batch stored larger than ``--max-batch-bytes``: its header, and its CRC-32C
    computed a chunk at a time; the batch is never held in memory and its records are
    not read (they raise :class:`LimitExceeded`, reported as ``batch-too-large``)."""

    __slots__ = ("computed_crc", "limit")

    def __init__(self, path: str, position: int, header: bytes, computed_crc: int,
                 limit: int) -> None:
        super().__init__(path, position, header, 0)
        self.computed_crc = computed_crc
        self.limit = limit

    def compute_crc(self) -> int:
        return self.computed_crc

    def payload(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> tuple[bytes, int, int]:
        raise _too_large(self, self.limit)

    def decode_records(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> tuple[list, None]:
        raise _too_large(self, self.limit)


class OversizedLegacyBatch(LegacyBatch):
    """A v0/v1 entry stored larger than ``--max-batch-bytes`` (as above, CRC-32)."""

    __slots__ = ("computed_crc", "limit")

    def __init__(self, path: str, position: int, header: bytes, computed_crc: int,
                 limit: int) -> None:
        super().__init__(path, position, header, 0)
        self.computed_crc = computed_crc
        self.limit = limit

    def compute_crc(self) -> int:
        return self.computed_crc

    def records(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[Record]:
        raise _too_large(self, self.limit)


class LogReader:
    """Frames one log file.  ``end`` bounds the read (DumpLogSegments' ``--max-bytes``);
    ``active`` marks the partition's active segment, whose unfinished last batch is
    in flight rather than truncated."""

    def __init__(
        self,
        source: FileSource,
        *,
        start: int = 0,
        end: int | None = None,
        active: bool = False,
        resync: bool = True,
        check_lengths: bool = True,
        max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
        chunk: int | None = None,
    ) -> None:
        self.source = source
        self.path = source.path
        self.start = start
        self.end = source.size if end is None else max(0, min(end, source.size))
        self.active = active
        self.resync = resync
        self.check_lengths = check_lengths
        self.max_batch_bytes = max_batch_bytes
        self.window = Window(source) if chunk is None else Window(source, chunk)
        #: reading stops before the end of the file (``--max-bytes``): a batch crossing
        #: the limit is simply not read, as with FileRecords.slice
        self.limited = self.end < source.size
        #: position after the last intact batch framed so far (Kafka's ``validBytes``)
        self.valid_end = start
        #: bytes found unreadable
        self.unreadable_bytes = 0
        self._prev_last_offset: int | None = None
        #: optional fast path, called with the position of each batch before it is
        #: framed: returns the position after the batches it consumed (itself keeping
        #: ``valid_end`` and ``_prev_last_offset`` up to date), or the same position
        self.skip: Callable[[int], int] | None = None
        self._reads: ReadAhead | WindowReads | None = None

    def close(self) -> None:
        """Stop the fast path's read-ahead thread, if any (before the file is closed), and
        let go of the buffers: the fast path's closure holds this reader in a reference
        cycle, which kept a worker's windows (up to 8 MiB each) until the cyclic
        collector ran, ~100 MB in a worker of ``verify-crc --jobs 2`` over 4 MiB ranges."""
        if self._reads is not None:
            self._reads.close()
            self._reads = None
        self.skip = None
        self.window.data = b""
        self.window.view = memoryview(self.window.data)

    @property
    def last_offset(self) -> int | None:
        """The last offset of the last intact batch framed so far."""
        return self._prev_last_offset

    def skip_clean_batches(self, prev_last: Callable[[], int | None],
                           segment_base: int | None, deep: bool,
                           on_run: Callable[[int, int, int], None],
                           limit: int | None = None, gaps: bool = False) -> bool:
        """``verify-crc``'s fast path: the native walker (``verify_run`` in
        kdump/_speedups_runs.c) consumes every run of batches, v2 and v0/v1, it would report
        nothing about (CRC, offsets and, with ``deep``, the records) after the last
        offset ``prev_last()`` (or, first, from ``segment_base``), calling
        ``on_run(batches, records, last offset)`` for each run.  A local file it reads
        itself (:meth:`skip_native_reads`: pread in C, no Python between stretches, issue
        49); a remote one, or with :data:`NATIVE_READS` off, is read by Python into
        buffers handed to it (:meth:`skip_batches`).  ``gaps``: stop at a batch whose first
        offset does not follow the one before too (a gap in a delete-policy topic's offsets
        is lost data: kdump.ops.verdict).  False (and nothing changed) when the extension
        is not built."""
        if _native_run is None:
            return False
        headers, max_bytes = max_headers(self.max_batch_bytes), self.max_batch_bytes
        payload = walk_decompress if deep else None

        def run(data: object, i: int, stop: int, end_index: int) -> tuple[int, int, int | None]:
            j, batches, records, last = _native_run(
                data, i, stop, prev_last(), segment_base, deep, headers, max_bytes, payload,
                gaps)
            if batches:
                on_run(batches, records, last)
            return j, batches, last

        def run_file(fd: int, pos: int, stop: int, soft: int,
                     ahead: bool) -> tuple[int, int, int | None]:
            j, batches, records, last = _native_run(
                fd, pos, stop, prev_last(), segment_base, deep, headers, max_bytes, payload,
                soft, FAST_CHUNK, ahead, gaps)
            if batches:
                on_run(batches, records, last)
            return j, batches, last

        if NATIVE_READS and self.source.fd >= 0:
            self.skip_native_reads(run_file, limit)
        else:
            self.skip_batches(run, limit)
        return True

    skip_clean_v2_batches = skip_clean_batches  # its name before v0/v1 batches joined

    def skip_native_reads(self, run: Callable[[int, int, int, int, bool],
                                              tuple[int, int, int | None]],
                          limit: int | None) -> None:
        """Install :attr:`skip` for a walk that reads the file itself: ``run(fd, pos, stop,
        soft, ahead)`` reads from ``pos`` and consumes a run of batches that end by
        ``stop`` and start before ``soft`` (position after them, batches, last offset),
        with a thread reading ahead when ``ahead``.  Python frames the batch a run stops at
        (with its own reads: a file that shrank is a short read there)."""
        end = self.end if limit is None else min(self.end, limit)
        source = self.source
        ahead = read_ahead_pays(end - self.start)
        source.advise_sequential()

        def skip(pos: int) -> int:
            while end - pos >= L.HEADER_SIZE_UP_TO_MAGIC:
                j, batches, last = run(source.fd, pos, end, min(pos + NATIVE_STEP, end), ahead)
                if not batches:
                    return pos  # something to report (or cut short): Python's
                source.note_read(pos, j - pos)
                self._prev_last_offset = last
                pos = self.valid_end = j
            return pos

        self.skip = skip

    def skip_batches(self, run: Callable[..., tuple[int, int, int | None]],
                   limit: int | None) -> None:
        """Install :attr:`skip`: the file read into a reused :class:`~kdump.source.ReadBuffer`,
        each stretch handed to ``run(data, i, stop, end_index)`` (indices of the position,
        the stretch's end, the reader's end), which consumes a run of batches: (index
        after them, batches, last offset).  Python frames the batch a run stops at; with
        ``limit``, only batches that end by that position are run."""
        end = self.end if limit is None else min(self.end, limit)
        chunk = min(self.window.chunk, FAST_CHUNK)
        # a thread reads the next stretch while this one is walked, for logs of several
        # stretches; a batch cut by a stretch's end is carried into the next one when it
        # is no larger than a stretch (head), else read again
        reads: ReadAhead | WindowReads
        if self.source.fd < 0:  # a remote file: one window, each read a request
            chunk = self.window.chunk
            reads = WindowReads(self.window)
        else:
            reads = ReadAhead(self.source, chunk, end, head=chunk,
                              ahead=end - self.start > 2 * chunk)
        self._reads = reads
        self.source.advise_sequential()
        largest = self.max_batch_bytes + L.RECORD_BATCH_OVERHEAD

        def skip(pos: int) -> int:
            buf = reads.current
            while end - pos >= L.HEADER_SIZE_UP_TO_MAGIC:
                i = buf.index(pos)
                stop = buf.index(min(buf.end, end))
                if pos < buf.start or stop - i < L.HEADER_SIZE_UP_TO_MAGIC:
                    buf = reads.fill(pos, min(chunk, end - pos))
                    if buf.end - pos < L.HEADER_SIZE_UP_TO_MAGIC:
                        return pos  # the file shrank: Python says how
                    continue
                j, batches, last = run(buf.data, i, stop, i + self.end - pos)
                if batches:
                    self._prev_last_offset = last
                    pos = self.valid_end = pos + j - i
                    continue
                total = L.LOG_OVERHEAD + L.LOG_HEADER.unpack_from(buf.data, i)[1]
                if pos + total <= buf.end or buf.end >= end:
                    return pos  # whole here, or cut by the end: Python frames and reports
                if pos > buf.start:  # it may go on past the buffer: read from it
                    held = (buf.start, buf.length)
                    buf = reads.fill(pos, min(chunk, end - pos))
                    if (buf.start, buf.length) == held:
                        return pos  # nothing more to read here (a window that held it)
                    continue
                # larger than the buffer: read whole when it is whole in the file and
                # within --max-batch-bytes (else Python reports it)
                if chunk < total <= min(largest, end - pos):
                    buf = reads.fill(pos, total)
                    if buf.end - pos >= total:
                        continue
                return pos
            return pos

        self.skip = skip

    # --- helpers -------------------------------------------------------------------------
    def _is_zero(self, start: int, end: int) -> bool:
        pos = start
        while pos < end:
            pos = max(pos, min(self.source.next_data(pos), end))  # holes are zeros
            if pos >= end:
                break
            n = min(_SCAN_CHUNK, end - pos)
            view, i = self.window.get(pos, n)
            if _NONZERO.search(view, i, i + n):
                return False
            pos += n
        return True

    def _plausible(self, p: int, *, need_crc: bool = True) -> bool:
        """Does an intact batch start at ``p``?  Header sanity first, then the checksum."""
        end = self.end
        if end - p <= L.HEADER_SIZE_UP_TO_MAGIC:
            return False
        view, i = self.window.get(p, L.RECORD_BATCH_OVERHEAD)
        if len(view) - i < L.HEADER_SIZE_UP_TO_MAGIC:
            return False
        offset, size = L.LOG_HEADER.unpack_from(view, i)
        magic = view[i + L.MAGIC_OFFSET]
        if offset < 0 or size < L.RECORD_OVERHEAD_V0 or p + L.LOG_OVERHEAD + size > end:
            return False
        if size + L.LOG_OVERHEAD > self.max_batch_bytes + L.RECORD_BATCH_OVERHEAD:
            return False
        prev = self._prev_last_offset
        if prev is not None and offset <= prev:
            return False
        if magic == 2:
            if size < L.V2_MIN_BATCH_LENGTH or len(view) - i < L.RECORD_BATCH_OVERHEAD:
                return False
            attributes, last_delta = L.V2_HEADER.unpack_from(view, i)[5:7]
            count = L.INT32.unpack_from(view, i + L.V2_RECORDS_COUNT_OFFSET)[0]
            if attributes & ~0x7F or (attributes & 7) > 4 or last_delta < 0 or count < 0:
                return False
            if not need_crc:
                return True
            (stored,) = L.UINT32.unpack_from(view, i + L.V2_CRC_OFFSET)
            view, i = self.window.get(p, L.LOG_OVERHEAD + size)
            return stored == crc32c(view[i + L.V2_ATTRIBUTES_OFFSET : i + L.LOG_OVERHEAD + size])
        if magic in (0, 1):
            if len(view) - i <= L.LEGACY_ATTRIBUTES_OFFSET:
                return False  # cut short while being read
            attributes = view[i + L.LEGACY_ATTRIBUTES_OFFSET]
            if attributes & (0xF8 if magic == 0 else 0xF0) or (attributes & 7) > 3:
                return False
            if magic == 1 and size < L.RECORD_OVERHEAD_V1:
                return False
            if not need_crc:
                return True
            (stored,) = L.UINT32.unpack_from(view, i + L.LEGACY_CRC_OFFSET)
            view, i = self.window.get(p, L.LOG_OVERHEAD + size)
            return stored == crc32(view[i + L.MAGIC_OFFSET : i + L.LOG_OVERHEAD + size])
        return False

    def _scan(self, start: int, stop: int | None = None) -> int | None:
        """First position in ``[start, stop)`` where an intact batch starts, or None.

        Candidates are found with C-speed searches: the byte at +16 must be a magic
        (0, 1 or 2) and the size field at +8..+11 cannot be all zero, so zero runs are
        skipped whole.  Only candidates with a sane header get their checksum computed.
        """
        end = self.end if stop is None else min(stop, self.end)
        last = end - L.HEADER_SIZE_UP_TO_MAGIC  # a batch needs more than 17 bytes
        p = start
        while p < last:
            # no batch starts in a hole of a sparse file: skip it unread
            p = max(p, self.source.next_data(p))
            if p >= last:
                break
            n = min(_SCAN_CHUNK, self.end - p)
            view, i = self.window.get(p, n)
            m = _MAGIC_BYTE.search(view, i + L.MAGIC_OFFSET, i + n)
            if m is None:
                p += max(1, n - L.MAGIC_OFFSET)
                continue
            p += m.start() - i - L.MAGIC_OFFSET
            if p >= last:
                break
            view, i = self.window.get(p, L.HEADER_SIZE_UP_TO_MAGIC)
            if view[i + 8 : i + 12] == b"\x00\x00\x00\x00":
                z = _NONZERO.search(view, i + 8, len(view))
                if z is None:
                    p += max(1, len(view) - i - 12)
                else:
                    p = max(p + 1, z.start() - i + p - 11)
                continue
            if self._plausible(p):
                return p
            p += 1
        return None

    # --- the walk ------------------------------------------------------------------------
    def __iter__(self) -> Iterator[LogItem]:
        pos = self.start
        end = self.end
        path = self.path
        window = self.window
        skip = self.skip
        while pos < end:
            if skip is not None:
                pos = skip(pos)
                if pos >= end:
                    return
            remaining = end - pos
            if remaining <= L.HEADER_SIZE_UP_TO_MAGIC:
                yield from self._tail(pos, remaining)
                return
            view, i = window.get(pos, L.RECORD_BATCH_OVERHEAD)
            if len(view) - i < min(remaining, L.RECORD_BATCH_OVERHEAD):
                end = self._shrunk(pos, len(view) - i)
                continue
            offset, size = L.LOG_HEADER.unpack_from(view, i)
            magic = view[i + L.MAGIC_OFFSET]
            min_size = L.V2_MIN_BATCH_LENGTH if magic == 2 else L.RECORD_OVERHEAD_V0
            if size < min_size or magic > 2:
                nxt = yield from self._damage(pos, offset, size, magic)
                if nxt is None:
                    return
                pos = nxt
                continue
            total = L.LOG_OVERHEAD + size
            if total > remaining:
                nxt = yield from self._overrun(pos, offset, total, remaining)
                if nxt is None:
                    return
                pos = nxt
                continue
            if total > self.max_batch_bytes + L.RECORD_BATCH_OVERHEAD:
                big = self._oversized(pos, total, magic)  # never held whole
                if big is None:
                    end = self._shrunk(pos, 0)
                    continue
                batch = big
            else:
                view, i = window.get(pos, total)
                if len(view) - i < total:
                    end = self._shrunk(pos, len(view) - i)
                    continue
                batch = make_batch(path, pos, window.data, i)
            if self.check_lengths and self.resync and not self._next_ok(pos + total):
                # the size field is not under any checksum: when the batch fails its
                # CRC and no batch follows it, look for an intact batch inside it
                if not batch.crc_valid:
                    inner = self._scan(pos + 1, pos + total)
                    if inner is not None:
                        self.unreadable_bytes += inner - pos
                        yield Problem(
                            path, pos, "bad-length",
                            f"batch header claims {total} bytes and fails its checksum; an "
                            f"intact batch starts at byte {inner}; {inner - pos} bytes unreadable",
                            base_offset=offset, length=inner - pos,
                        )
                        pos = inner
                        continue
            yield batch
            self._prev_last_offset = batch.last_offset if magic == 2 else offset
            pos += total
            self.valid_end = pos

    def _shrunk(self, pos: int, available: int) -> int:
        """The file is shorter than when it was opened (cut short while being read):
        what is left is all there is.  Returns the new end."""
        self.end = min(self.end, pos + max(0, available))
        return self.end

    def _oversized(self, pos: int, total: int, magic: int) -> Batch | None:
        """A batch larger than ``max_batch_bytes``: its header, and its checksum
        computed over the file a chunk at a time (None: the file was cut short)."""
        header = self.source.pread(pos, L.RECORD_BATCH_OVERHEAD)
        if len(header) < L.RECORD_BATCH_OVERHEAD:
            return None
        p = pos + (L.V2_ATTRIBUTES_OFFSET if magic == 2 else L.MAGIC_OFFSET)
        end = pos + total
        import crc32c  # the package computes CRC-32C incrementally

        value = 0
        while p < end:
            n = min(_SCAN_CHUNK, end - p)
            view, i = self.window.get(p, n)
            chunk = view[i : i + n]
            value = crc32c.crc32c(chunk, value) if magic == 2 else zlib.crc32(chunk, value)
            p += n
        value &= 0xFFFFFFFF
        if magic == 2:
            return OversizedRecordBatch(self.path, pos, header, value, self.max_batch_bytes)
        return OversizedLegacyBatch(self.path, pos, header, value, self.max_batch_bytes)

    def _next_ok(self, p: int) -> bool:
        """Is ``p`` the end of data, or the start of something shaped like a batch?"""
        if p >= self.end:
            return True
        if self.end - p <= L.HEADER_SIZE_UP_TO_MAGIC:
            return False
        view, i = self.window.get(p, L.HEADER_SIZE_UP_TO_MAGIC)
        if len(view) - i < L.HEADER_SIZE_UP_TO_MAGIC:
            return False  # cut short while being read
        _, size = L.LOG_HEADER.unpack_from(view, i)
        magic = view[i + L.MAGIC_OFFSET]
        return magic <= 2 and size >= L.RECORD_OVERHEAD_V0 and p + L.LOG_OVERHEAD + size <= self.end

    def _tail(self, pos: int, remaining: int) -> Iterator[Problem]:
        if self.limited:
            return
        if self._is_zero(pos, pos + remaining):
            yield self._zero_tail(pos, remaining)
            return
        self.unreadable_bytes += remaining
        yield Problem(
            self.path, pos, "in-flight" if self.active else "trailing-bytes",
            f"{remaining} bytes at the end are too short for a batch header",
            length=remaining, severity=INFO if self.active else ERROR,
        )

    def _zero_tail(self, pos: int, length: int) -> Problem:
        self.unreadable_bytes += length
        return Problem(
            self.path, pos, "zero-tail",
            f"{length} zero bytes from here to the end of the file"
            + (" (active segment: preallocation or an unfinished write)" if self.active else
               " (preallocated file or unclean shutdown)"),
            length=length, severity=INFO if self.active else WARNING,
        )

    def _damage(
        self, pos: int, offset: int, size: int, magic: int
    ) -> Generator[LogItem, None, int | None]:
        """A header that cannot start a batch.  Returns where to go on (None: stop)."""
        if self._is_zero(pos, self.end):
            yield self._zero_tail(pos, self.end - pos)
            return None
        if magic > 2 and size >= L.V2_MIN_BATCH_LENGTH and pos + L.LOG_OVERHEAD + size <= self.end \
                and size <= self.max_batch_bytes + L.V2_MIN_BATCH_LENGTH:
            # only the magic byte is off: the v2 CRC does not cover it, so check the rest
            view, i = self.window.get(pos, L.LOG_OVERHEAD + size)
            whole = len(view) - i >= L.LOG_OVERHEAD + size  # not cut short while being read
            (stored,) = L.UINT32.unpack_from(view, i + L.V2_CRC_OFFSET) if whole else (None,)
            if whole and stored == crc32c(view[i + L.V2_ATTRIBUTES_OFFSET : i + L.LOG_OVERHEAD + size]):
                yield Problem(
                    self.path, pos, "bad-magic",
                    f"magic byte is {magic}, but the rest is an intact v2 batch (its CRC-32C "
                    "matches): read as magic 2",
                    base_offset=offset,
                )
                batch = RecordBatch(self.path, pos, self.window.data, i)
                yield batch
                self._prev_last_offset = batch.last_offset
                self.valid_end = pos + batch.size
                return pos + batch.size
        if magic > 2:
            kind, why = "bad-magic", f"magic byte {magic} is not 0, 1 or 2"
        else:
            kind, why = "bad-length", (
                f"size field {size} is below the minimum of "
                f"{L.V2_MIN_BATCH_LENGTH if magic == 2 else L.RECORD_OVERHEAD_V0} for magic {magic}"
            )
        if not self.resync:
            self.unreadable_bytes += self.end - pos
            yield Problem(self.path, pos, kind, why + "; reading stops here",
                          base_offset=offset, length=self.end - pos)
            return None
        nxt = self._scan(pos + 1)
        yield from self._region(pos, nxt, kind, why, offset)
        return nxt

    def _region(
        self, pos: int, nxt: int | None, kind: str, why: str, offset: int | None
    ) -> Iterator[Problem]:
        stop = self.end if nxt is None else nxt
        # split off a zero tail, so "garbage then zeros" says both
        zero_from = self._zero_suffix(pos, stop) if nxt is None else stop
        length = zero_from - pos
        if length > 0:
            zeros = self._zero_run(pos, zero_from)
            if kind == "bad-length" and zeros >= L.HEADER_SIZE_UP_TO_MAGIC:
                kind = "zeroed-region"
                why = (f"{length} zero bytes" if zeros == length else
                       f"{zeros} zero bytes where a batch header should be, then "
                       f"{length - zeros} bytes that start no batch")
            self.unreadable_bytes += length
            resume = f"an intact batch starts at byte {nxt}" if nxt is not None and zero_from == nxt \
                else "no intact batch follows"
            yield Problem(
                self.path, pos, kind, f"{why}; {length} bytes unreadable; {resume}",
                length=length,
            )
        if zero_from < stop:
            yield self._zero_tail(zero_from, stop - zero_from)

    def _zero_run(self, start: int, end: int) -> int:
        """Length of the run of zeros at ``start`` (at most ``end - start``)."""
        p = start
        while p < end:
            p = max(p, min(self.source.next_data(p), end))  # holes are zeros
            if p >= end:
                break
            n = min(_SCAN_CHUNK, end - p)
            view, i = self.window.get(p, n)
            m = _NONZERO.search(view, i, i + n)
            if m is not None:
                return p + (m.start() - i) - start
            p += n
        return end - start

    def _zero_suffix(self, start: int, end: int) -> int:
        """Start of the run of zeros that ends the range (``end`` if none)."""
        p = self.source.data_end(start, end)  # a trailing hole is zeros, unread
        while p > start:
            n = min(_SCAN_CHUNK, p - start)
            view, i = self.window.get(p - n, n)
            chunk = bytes(view[i : i + n])
            stripped = len(chunk.rstrip(b"\x00"))
            if stripped:
                return p - n + stripped
            p -= n
        return start

    def _overrun(
        self, pos: int, offset: int, total: int, remaining: int
    ) -> Generator[LogItem, None, int | None]:
        """A header whose batch runs past the end: cut short, or a bad size field."""
        if self.limited:
            return None
        if self.resync:
            nxt = self._scan(pos + 1)
            if nxt is not None:
                yield from self._region(
                    pos, nxt, "bad-length",
                    f"size field claims {total} bytes but only {remaining} remain", offset,
                )
                return nxt
        missing = total - remaining
        self.unreadable_bytes += remaining
        if self.active:
            yield Problem(
                self.path, pos, "in-flight",
                f"last batch of the active segment is incomplete: {remaining} of {total} bytes "
                f"written, {missing} to come",
                base_offset=offset, length=remaining, severity=INFO,
            )
        else:
            yield Problem(
                self.path, pos, "truncated",
                f"batch of {total} bytes is cut short by the end of the file: {missing} bytes "
                f"missing",
                base_offset=offset, length=remaining,
            )
        return None


def native_walk_available() -> bool:
    """Does verify-crc's fast path run natively here (the extension is built)?"""
    return _native_run is not None


def read_ahead_pays(n: int) -> bool:
    """Does a thread reading ahead pay for a walk over ``n`` bytes?  When they span
    several stretches and a second CPU is free for it (this process may run on two, and
    no other task is runnable now: :func:`runnable_others`; where that is unknown, the
    load average leaves at least half of one idle): the copy from the page cache
    then costs no time of its own.  On a machine whose CPUs are all busy it would only
    add the handing over (issue 49: about 5% more CPU time), and so in a worker of
    ``--jobs``.  :data:`READ_AHEAD` decides instead when set."""
    import os
    import sys

    if READ_AHEAD is not None:
        return READ_AHEAD and n > 2 * FAST_CHUNK
    mp = sys.modules.get("multiprocessing")  # imported in a worker of --jobs, not here
    if mp is not None and mp.parent_process() is not None:
        return False  # a worker of a pool: the pool has the CPUs busy already
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    others = runnable_others()
    if others is not None:  # now: another task runnable takes the second CPU
        return n > 2 * FAST_CHUNK and others + 1 < cpus
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return n > 2 * FAST_CHUNK and cpus > 1 and busy < cpus - 0.5


#: where Linux says how many tasks are runnable now (its fourth field: "runnable/total")
LOADAVG = "/proc/loadavg"


def runnable_others() -> int | None:
    """Tasks runnable at this moment besides this process (Linux), None where unknown.
    The 1-minute load average is no measure of a CPU free now: it counts this very
    process's last seconds, and a command run again at once (a benchmark's rounds, a
    script's loop) read its own load as another's and left the second CPU idle."""
    try:
        with open(LOADAVG, "rb") as f:
            running = int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0, running - 1)


def walk_decompress(codec: int, data: bytes, limit: int) -> bytes | None:
    """A v2 payload decompressed for the native walks (verify_run, size_run), as
    RecordBatch.payload does it; None where that raises (the batch is Python's)."""
    try:
        return decompress(codec, data, limit, magic=2)
    except KdumpError:
        return None


def iter_log(source: FileSource, **options: object) -> Iterator[LogItem]:
    """Batches and problems of one log file, in file order (see :class:`LogReader`)."""
    return iter(LogReader(source, **options))  # type: ignore[arg-type]
