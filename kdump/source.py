"""Read-only access to input files, bounded in memory.

A :class:`FileSource` opens a file read-only (``O_NOATIME`` when the kernel allows it,
so not even the access time changes), remembers its size at open (a segment still
being appended to is read up to that size), and serves byte ranges with ``pread``.
:class:`Window` keeps one reusable stretch of the file in memory and hands out
zero-copy ``memoryview`` slices of it; it grows only to hold one batch, so memory is
bounded by the largest batch read, whatever the file size.  (``mmap`` would be
zero-copy too, but a file truncated under a live broker turns an mmap read into
SIGBUS; ``pread`` turns it into a short read, which is data.)
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
from types import TracebackType
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # imported when a read-ahead thread starts (kdump --version loads none)
    import queue
    import threading

from .errors import InputError

DEFAULT_CHUNK = 8 << 20
#: windows this large or larger prefetch the next stretch of the file
_PREFETCH_MIN = 1 << 20
_FADV_WILLNEED = getattr(os, "POSIX_FADV_WILLNEED", None)
_FADV_SEQUENTIAL = getattr(os, "POSIX_FADV_SEQUENTIAL", None)


_SEEK_DATA = hasattr(os, "SEEK_DATA") and hasattr(os, "SEEK_HOLE")


class ReadCounter:
    """Bytes read by every :class:`FileSource` of this process (for progress bars)."""

    total = 0
    #: how far into each file reading has got (re-reading a part does not count twice):
    #: the sum moves with the work, as a progress bar should
    furthest: ClassVar[dict[str, int]] = {}
    covered = 0

    @classmethod
    def new_pass(cls) -> None:
        """Work that reads the inputs again from the start (``kdump report`` runs one
        check after another): from here on, reading counts as covering new ground."""
        cls.furthest.clear()


def _open_readonly(path: str) -> int:
    # O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; it changes
    # nothing for regular files, and anything else is refused after the fstat below
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    noatime = getattr(os, "O_NOATIME", 0)
    try:
        if noatime:
            try:
                return os.open(path, flags | noatime)
            except PermissionError:
                pass  # O_NOATIME needs ownership; fall back to a plain read-only open
        return os.open(path, flags)
    except FileNotFoundError:
        raise InputError("no such file or directory", path=path) from None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=path) from None
    except OSError as e:
        raise InputError(os.strerror(e.errno or errno.EIO).lower(), path=path) from None


_FILE_TYPES = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device"}


class FileSource:
    """One input file, opened read-only; ``size`` is frozen at open.  A URL
    (``s3://...``) gives a :class:`RemoteSource` (ranged reads through
    :mod:`kdump.fs`); a local path stays on the ``pread`` path below."""

    def __new__(cls, path: str) -> FileSource:
        if cls is FileSource and "://" in path:
            from .fs import is_url

            if is_url(path):
                return super().__new__(RemoteSource)
        return super().__new__(cls)

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = _open_readonly(path)
        try:
            st = os.fstat(self.fd)
        except OSError as e:
            os.close(self.fd)
            raise InputError(os.strerror(e.errno or errno.EIO).lower(), path=path) from None
        if stat.S_ISDIR(st.st_mode):
            os.close(self.fd)
            raise InputError("is a directory, not a file", path=path)
        if not stat.S_ISREG(st.st_mode):
            os.close(self.fd)
            what = _FILE_TYPES.get(stat.S_IFMT(st.st_mode), "special file")
            raise InputError(f"not a regular file ({what})", path=path)
        self.size: int = st.st_size
        #: bytes actually read from the file (for "bytes touched" reports)
        self.bytes_read = 0

    def next_data(self, position: int) -> int:
        """Where data resumes at or after ``position``: ``position`` itself unless it lies
        in a hole of a sparse file (``SEEK_DATA``), the file's size when only a hole
        follows.  A hole reads as zeros, so the log reader skips it instead of reading
        gigabytes of them."""
        if position >= self.size or not _SEEK_DATA:
            return position
        try:
            return min(os.lseek(self.fd, position, os.SEEK_DATA), self.size)
        except OSError as e:
            if e.errno == errno.ENXIO:  # nothing but a hole up to the end
                return self.size
            return position  # SEEK_DATA unsupported here: read as usual

    def data_end(self, start: int, end: int) -> int:
        """The end of the last data in ``[start, end)``: where a trailing hole starts
        (``end`` when none is known)."""
        if not _SEEK_DATA or end <= start:
            return end
        last = start
        pos = start
        try:
            while pos < end:
                d = os.lseek(self.fd, pos, os.SEEK_DATA)
                if d >= end:
                    break
                h = os.lseek(self.fd, d, os.SEEK_HOLE)
                last = min(h, end)
                pos = h
        except OSError as e:
            if e.errno != errno.ENXIO:
                return end
        return last

    def pread(self, position: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``position``; short only at the frozen end of file."""
        n = max(0, min(n, self.size - position))
        if n == 0:
            return b""
        try:
            data = os.pread(self.fd, n, position)
        except OSError as e:
            raise InputError(
                f"read failed: {os.strerror(e.errno or errno.EIO).lower()}",
                path=self.path,
                position=position,
            ) from None
        while len(data) < n:  # pread may return less than asked; finish or hit a real EOF
            try:
                more = os.pread(self.fd, n - len(data), position + len(data))
            except OSError as e:
                raise InputError(
                    f"read failed: {os.strerror(e.errno or errno.EIO).lower()}",
                    path=self.path,
                    position=position + len(data),
                ) from None
            if not more:
                break  # the file shrank under us: the caller sees a short read
            data += more
        self._count(position, len(data))
        return data

    def pread_into(self, position: int, buf: memoryview) -> int:
        """Read up to ``len(buf)`` bytes at ``position`` into ``buf`` (no new object):
        the count, short only at the frozen end of file or where the file shrank."""
        n = max(0, min(len(buf), self.size - position))
        got = 0
        while got < n:
            try:
                k = os.preadv(self.fd, [buf[got:n]], position + got)
            except OSError as e:
                raise InputError(
                    f"read failed: {os.strerror(e.errno or errno.EIO).lower()}",
                    path=self.path,
                    position=position + got,
                ) from None
            if k == 0:
                break  # the file shrank under us: a short read
            got += k
        self._count(position, got)
        return got

    def note_read(self, position: int, n: int) -> None:
        """``n`` bytes at ``position`` were read from :attr:`fd` by native code (the
        walk of ``verify-crc``, which reads the file itself): counted as read here."""
        self._count(position, n)

    def _count(self, position: int, n: int) -> None:
        self.bytes_read += n
        ReadCounter.total += n
        end = position + n
        seen = ReadCounter.furthest.get(self.path, 0)
        if end > seen:
            ReadCounter.furthest[self.path] = end
            ReadCounter.covered += end - seen

    def advise_sequential(self) -> None:
        """Tell the kernel the file is read from start to end (a larger readahead)."""
        if _FADV_SEQUENTIAL is None:
            return
        try:
            os.posix_fadvise(self.fd, 0, 0, _FADV_SEQUENTIAL)
        except OSError:
            pass

    def fill(self, position: int, n: int, want: int) -> bytes:
        """The bytes a :class:`Window` holds after a miss: ``want`` bytes at ``position``
        (at least ``n`` unless the file ends first)."""
        return self.pread(position, want)

    def prefetch(self, position: int, n: int) -> None:
        """Ask the kernel to start reading ``[position, position+n)`` now, so a cold read
        overlaps with the work on the bytes already read (a hint: errors are ignored)."""
        if _FADV_WILLNEED is None or position >= self.size:
            return
        try:
            os.posix_fadvise(self.fd, position, min(n, self.size - position), _FADV_WILLNEED)
        except OSError:
            pass

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> FileSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class RemoteSource(FileSource):
    """A file behind a URL (see :mod:`kdump.fs`): ``size`` from one metadata request at
    open, bytes by ranged reads.  A window's fill starts small at a new position and
    doubles while reads follow each other, up to the window's size: a lookup fetches
    kilobytes, a scan streams in full windows."""

    def __init__(self, path: str) -> None:
        from . import fs as kfs

        self.path = path
        self.fd = -1
        self._fs, self._inner = kfs.filesystem(path)
        known = kfs.known_size(path)
        if known is None:
            info = kfs.remote_info(path)
            if info.get("type") == "directory":
                raise InputError("is a directory, not a file", path=path)
            known = int(info.get("size") or 0)
        self.size: int = known
        self.bytes_read = 0
        self._start = self._next = -1
        self._readahead = kfs.READAHEAD_MIN

    def pread(self, position: int, n: int) -> bytes:
        from .fs import read_range

        n = max(0, min(n, self.size - position))
        if n == 0:
            return b""
        data = read_range(self._fs, self._inner, self.path, position, n)
        self.bytes_read += len(data)
        ReadCounter.total += len(data)
        self._start, self._next = position, position + len(data)
        return data

    def fill(self, position: int, n: int, want: int) -> bytes:
        from .fs import READAHEAD_MIN

        if self._start <= position <= self._next:  # the next stretch of a scan
            self._readahead = min(self._readahead * 2, want)
        else:
            self._readahead = READAHEAD_MIN
        return self.pread(position, max(n, min(want, self._readahead)))

    def pread_into(self, position: int, buf: memoryview) -> int:
        data = self.pread(position, len(buf))
        buf[: len(data)] = data
        return len(data)

    def advise_sequential(self) -> None:
        return None

    def next_data(self, position: int) -> int:
        return position  # object stores have no holes

    def data_end(self, start: int, end: int) -> int:
        return end

    def prefetch(self, position: int, n: int) -> None:
        return None

    def close(self) -> None:
        return None


class Window:
    """A sliding in-memory stretch of a :class:`FileSource`.

    ``get(position, n)`` returns ``(buffer, index)`` such that ``buffer[index:index+n]``
    holds the file's bytes at ``position`` (fewer when the file ends first).
    """

    def __init__(self, source: FileSource, chunk: int = DEFAULT_CHUNK) -> None:
        self.source = source
        self.chunk = chunk
        self.start = 0
        self.data = b""
        self.view = memoryview(self.data)

    @property
    def end(self) -> int:
        return self.start + len(self.data)

    def get(self, position: int, n: int) -> tuple[memoryview, int]:
        if position < self.start or position + n > self.end:
            if position >= self.source.size:
                return memoryview(b""), 0
            want = max(n, self.chunk)
            self.data = self.source.fill(position, n, want)
            self.start = position
            self.view = memoryview(self.data)
            if want >= _PREFETCH_MIN:
                self.source.prefetch(position + len(self.data), want)
        return self.view, position - self.start

    def bytes_at(self, position: int, n: int) -> bytes:
        view, i = self.get(position, n)
        return bytes(view[i : i + n])


class ReadBuffer:
    """One reusable buffer a file is read into, ``pread`` style (``readinto``: no new
    object per read, no page faults after the first fill), for a native walk that is
    done with the bytes before the next fill (``verify-crc``'s fast path, issue 33).

    The memory is an anonymous mapping, page-aligned: the kernel's copy from the page
    cache into a buffer 16 bytes off a 32-byte boundary (where ``bytearray`` puts its
    data) ran 3x slower on this project's test machine.  It maps no input: the file is
    still read with ``pread``, so a file cut short while it is read is a short read,
    never SIGBUS.  ``data[base:base+length]`` holds the file's bytes from ``start``;
    reads land at ``data[head:]``, so that up to ``head`` bytes of the stretch before
    can be put in front of them (:class:`ReadAhead`)."""

    def __init__(self, source: FileSource, capacity: int, head: int = 0) -> None:
        self.source = source
        self.head = head
        self.data = mmap.mmap(-1, max(head + capacity, mmap.PAGESIZE))
        self.view = memoryview(self.data)
        self.start = 0
        self.base = head
        self.length = 0
        #: bytes the last fill asked for (fewer came: the file ended, or shrank)
        self.wanted = 0

    @property
    def capacity(self) -> int:
        """Bytes one read may bring."""
        return len(self.data) - self.head

    @property
    def end(self) -> int:
        return self.start + self.length

    def index(self, position: int) -> int:
        """Where the file's byte at ``position`` is in ``data``."""
        return self.base + position - self.start

    def fill(self, position: int, n: int) -> int:
        """Read up to ``n`` bytes of the file from ``position`` (a larger ``n`` than the
        capacity grows the buffer first).  Returns the bytes held."""
        if n > self.capacity:
            self.view.release()
            self.data = mmap.mmap(-1, self.head + n)
            self.view = memoryview(self.data)
        self.start = position
        self.base = self.head
        self.wanted = n
        self.length = 0  # nothing valid while (or if) the read fails
        self.length = self.source.pread_into(position, self.view[self.head : self.head + n])
        return self.length

    def close(self) -> None:
        """Unmap the memory now (the buffer is not used after): a reader held in a
        reference cycle would otherwise keep it until the cyclic collector runs, and a
        worker reading many ranges or segments grew by two buffers per range."""
        try:
            self.view.release()
            self.data.close()
        except BufferError:
            pass  # a slice of it is still alive: the collector unmaps it with the slice


class ReadAhead:
    """A file read front to back through two :class:`ReadBuffer`: while the caller
    walks one, a thread reads the next stretch into the other (``pread`` releases the
    GIL, and so does the native walk), so that on two cores the copy from the page
    cache costs no time of its own.  ``fill(position, n)`` gives a buffer holding the
    file from ``position``: the stretch read ahead, when it follows on (the bytes from
    ``position`` to where the previous stretch ended, at most ``head`` of them, are
    put in front of it), else one read now.  Reads stop at ``stop``.  A failed read
    ahead is forgotten: the read made when the bytes are needed raises, where and when
    a plain read would.  ``close()`` waits for the thread (before the file is closed)."""

    def __init__(self, source: FileSource, capacity: int, stop: int, *,
                 head: int = 0, ahead: bool = True) -> None:
        self.source = source
        self.stop = stop
        self.current = ReadBuffer(source, capacity, head)
        self._spare = ReadBuffer(source, capacity, head) if ahead else None
        self._pending = False
        self._thread: threading.Thread | None = None
        self._requests: queue.SimpleQueue[_Request | None] | None = None
        self._results: queue.SimpleQueue[int | BaseException] | None = None

    def fill(self, position: int, n: int) -> ReadBuffer:
        cur, spare = self.current, self._spare
        if self._pending and spare is not None:
            got = self._wait()
            tail = cur.end - position
            if isinstance(got, int) and 0 <= tail <= spare.head and n <= tail + got \
                    and spare.start == cur.end:
                spare.base = spare.head - tail
                if tail:
                    i = cur.index(position)
                    spare.data[spare.base : spare.head] = cur.data[i : i + tail]
                spare.start = position
                spare.length = tail + got
                spare.wanted = tail + spare.wanted
                self.current, self._spare = spare, cur
                self._ahead()
                return spare
        cur.fill(position, n)
        self._ahead()
        return cur

    def _ahead(self) -> None:
        """Start reading the stretch after the current one."""
        cur, spare = self.current, self._spare
        if spare is None or cur.end >= self.stop or cur.length < cur.wanted:
            return  # the end (or the file shrank: nothing follows)
        n = min(spare.capacity, self.stop - cur.end)
        spare.start = cur.end
        spare.base = spare.head
        spare.length = 0
        spare.wanted = n
        if self._requests is None or self._results is None:
            import queue
            import threading

            self._requests = queue.SimpleQueue()
            self._results = queue.SimpleQueue()
            self._thread = threading.Thread(target=_read_ahead,
                                            args=(self._requests, self._results),
                                            name="kdump-read-ahead", daemon=True)
            self._thread.start()
        self._requests.put((self.source, spare.start, spare.view[spare.head : spare.head + n]))
        self._pending = True

    def _wait(self) -> int | BaseException:
        self._pending = False
        assert self._results is not None
        return self._results.get()

    def close(self) -> None:
        if self._pending:
            self._wait()
        if self._thread is not None and self._requests is not None:
            self._requests.put(None)
            self._thread.join()
            self._thread = None
        self.current.close()
        if self._spare is not None:
            self._spare.close()


#: a read-ahead request: the file, where, and the memory the bytes go to
_Request = tuple[FileSource, int, memoryview]


def _read_ahead(requests: queue.SimpleQueue[_Request | None],
                results: queue.SimpleQueue[int | BaseException]) -> None:
    """The read-ahead thread: ``(source, position, view)`` requests, each answered with
    the bytes read or the exception raised; None ends it."""
    while True:
        req = requests.get()
        if req is None:
            return
        source, position, view = req
        try:
            results.put(source.pread_into(position, view))
        except BaseException as e:  # handed to the reading thread
            results.put(e)
        finally:
            view.release()


class WindowReads:
    """:class:`ReadAhead`'s interface over a :class:`Window` (a remote file: each read is
    a request, so the native walk and the Python framing share one window, and a file
    is fetched once)."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.current = _WindowView(window)

    def fill(self, position: int, n: int) -> _WindowView:
        self.window.get(position, n)
        self.current.sync()
        return self.current

    def close(self) -> None:
        return None


class _WindowView:
    """A :class:`Window`'s bytes as a :class:`ReadBuffer` shows them."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.base = 0
        self.head = 0
        self.sync()

    def sync(self) -> None:
        self.data = self.window.data
        self.start = self.window.start
        self.length = len(self.window.data)

    @property
    def capacity(self) -> int:
        return self.window.chunk

    @property
    def end(self) -> int:
        return self.start + self.length

    def index(self, position: int) -> int:
        return position - self.start
