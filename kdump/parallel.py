"""``--jobs N``: the files of a walk processed in N worker processes, results in the
walk's order.

The walk itself stays in the calling process (it only reads names); each file's work
(:func:`ordered_map`'s ``fn``) runs in a :class:`concurrent.futures.ProcessPoolExecutor`
and its result comes back pickled.  Results are yielded in input order, so the output
is the same, byte for byte, as with ``--jobs 1``.  At most ``2 * jobs`` files are in
flight: memory is bounded by what ``fn`` keeps for one file, per worker, plus the
results waiting for an earlier file to finish.  ``jobs == 1``, or a walk with a single
file, runs in the calling process with no pool at all: multiprocessing and
concurrent.futures are imported only when a pool starts (a command without ``--jobs``
never loads them).

Without ``--jobs`` the number of jobs is kdump's choice (:class:`DefaultJobs`, the
cores the load average leaves idle: :func:`default_jobs`), and a pool starts only when
the work pays for its start-up (:func:`pool_pays`): a segment of a few tens of MB is
read in this process.  ``--jobs N`` is the user's choice and always honoured.

Bounded by the work and by the machine: a pool never has more workers than units of
work (the first ``jobs`` wanted items are held until the pool is started, and size it),
and :func:`cap_jobs` lowers a ``--jobs`` past :data:`JOBS_PER_CORE` times the cores
(the CLI says so in a note).  Spills go to one private directory per pool
(:mod:`kdump.tempfiles`), removed when the pool ends, whatever ends it.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeVar

from . import tempfiles
from .source import ReadCounter

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")


class DefaultJobs(int):
    """A number of jobs kdump chose (``--jobs`` not given), not one the user asked for:
    an int everywhere, and a pool starts for it only when :func:`pool_pays`."""


def cores() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_jobs() -> int:
    """The workers kdump starts of its own accord (a :class:`DefaultJobs`): the cores
    the load average leaves idle, as ``make -l`` and ``xargs`` users do by hand.  On a
    busy machine a pool only competes with the work already there: on this project's
    2-core machine, with the second core taken, size-report's pool of two took 1.7x the
    time of one process (bench/README.md, issue 33).  All the cores on an idle machine;
    1 (no pool) when fewer than ~1.5 are idle on two."""
    n = cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return DefaultJobs(n)
    return DefaultJobs(max(1, min(n, int(n - load + 0.5))))


#: bytes of logs that pay for a pool kdump starts of its own accord: starting one costs
#: ~0.1 s on a 2-core machine (forking the workers, importing multiprocessing, pickling
#: the results, reading each range's first batch twice), about what verify-crc takes
#: over 64 MiB of uncompressed log in one process (bench/startup_bench.py)
MIN_POOL_BYTES = 64 << 20

#: items :func:`pool_pays` reads ahead at most: so many files are work enough for a pool
#: whatever their size, and the look-ahead stays bounded (walk items are small objects)
MAX_AHEAD = 1024


def pool_pays(items: Iterable[T], jobs: int, size: Callable[[T], int]
              ) -> tuple[bool, Iterator[T]]:
    """Whether to run ``items`` in a pool of ``jobs`` workers, and the items (all of them,
    in order).  ``jobs`` the user asked for (a plain int above 1): yes.  ``jobs`` kdump
    chose (:class:`DefaultJobs`): only when the items' ``size`` (the bytes of work in
    each; 0 for items that are no work) adds up to :data:`MIN_POOL_BYTES`, or there are
    :data:`MAX_AHEAD` items; the items are read ahead until then or their end (a walk's
    items are names, not data)."""
    it = iter(items)
    if jobs <= 1 or not isinstance(jobs, DefaultJobs):
        return jobs > 1, it
    ahead: list[T] = []
    total = 0
    for item in it:
        ahead.append(item)
        total += size(item)
        if total >= MIN_POOL_BYTES or len(ahead) >= MAX_AHEAD:
            return True, chain(ahead, it)
    return False, iter(ahead)


#: how many times cheaper a log of uncompressed batches is to read than its size says
#: (pool_pays counts bytes of work) when a native walk reads it (verify-crc's, and
#: size-report's for v2): ~1 GB/s in one process, its read-ahead thread already on the
#: second core, where a pool costs more to start (~0.1 s, more under load) than it saves
#: below ~1 GiB (issue 33: on this project's 2-core machine, size-report's pool of two
#: over a 100 MB or 512 MB plain segment took 1.1-1.7x one process; over lz4, 0.8x)
PLAIN_LOG_DISCOUNT = 16

#: the same for verify-crc, whose native walk reads a local file itself (issue 49:
#: pread in C, a read-ahead thread, the CRC folded by VPCLMULQDQ where the CPU has it):
#: ~5 GB/s in one process over a log in the page cache, so that a pool of two over a
#: 1 GiB plain segment took 1.4x one process (bench/README.md, floor_bench of 2026-11-29
#: 08:51: 0.292 s against 0.204 s); a pool it starts of its own accord pays from ~4 GiB
VERIFY_PLAIN_LOG_DISCOUNT = 64


def log_work_bytes(path: str, size: int, *, legacy: bool,
                   discount: int = PLAIN_LOG_DISCOUNT) -> int:
    """The bytes of work in a log of ``size`` bytes for :func:`pool_pays`: its size, or
    its size over ``discount`` when it is local and its first batch is uncompressed, v2
    (or v0/v1 too, with ``legacy``: the walk reads those natively)."""
    from . import fs as kfs
    from . import layouts as L
    from .errors import KdumpError
    from .source import FileSource

    if kfs.is_url(path):
        return size
    try:
        with FileSource(path) as src:
            head = src.pread(0, L.RECORD_BATCH_OVERHEAD)
    except KdumpError:
        return size
    if len(head) < L.RECORD_BATCH_OVERHEAD:
        return size
    if head[L.MAGIC_OFFSET] == 2:
        plain = not head[L.V2_ATTRIBUTES_OFFSET + 1] & L.V2_COMPRESSION_MASK
    else:
        plain = legacy and head[L.MAGIC_OFFSET] < 2 and \
            not head[L.LEGACY_ATTRIBUTES_OFFSET] & L.LEGACY_COMPRESSION_MASK
    return size // discount if plain else size


#: the most workers ``--jobs`` may start, per core this process may run on: the work is
#: reading files, a few workers per core keep the disks busy, more only add processes
JOBS_PER_CORE = 4


def max_jobs() -> int:
    """The most worker processes kdump starts on this machine."""
    return JOBS_PER_CORE * cores()


def cap_jobs(jobs: int) -> int:
    """``jobs`` lowered to :func:`max_jobs` (the caller notes when it was lowered)."""
    return max(1, min(jobs, max_jobs()))


#: the directory this worker spills to (set by the pool's initializer)
_spill_dir: str | None = None


def _worker_init(spill_dir: str) -> None:
    global _spill_dir
    _spill_dir = spill_dir
    # Ctrl-C is the parent's to handle (it stops the workers): no KeyboardInterrupt
    # traceback from a worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGHUP too (a closed terminal reaches the whole group); SIGTERM, the parent's
    # terminate(), ends a worker at once: what it was writing is in the parent's staging
    # area or its spill directory, both removed by the parent
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's workers (their results are not wanted any more)."""
    processes = getattr(pool, "_processes", None) or {}
    for proc in list(processes.values()):
        try:
            proc.terminate()
        except (OSError, ValueError, AttributeError):
            pass


def _counted(fn: Callable[[T], R], item: T) -> tuple[R, int]:
    before = ReadCounter.total
    result = fn(item)
    return result, ReadCounter.total - before


def _context() -> Any:
    # fork: workers start in milliseconds with kdump already imported.  Where fork does
    # not exist, the platform's default.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def ordered_map(fn: Callable[[T], R], items: Iterable[T | Any], jobs: int,
                wanted: Callable[[Any], bool], inline: Callable[[T], Any] | None = None
                ) -> Iterator[R | Any]:
    """``fn(item)`` for every item ``wanted`` says yes to (in worker processes), every
    other item as it is; all in the order of ``items``.  ``fn`` must be picklable (a
    module-level function, or a :func:`functools.partial` of one).  Where the work runs
    in this process (``jobs`` 1, or a single item), ``inline(item)`` replaces
    ``fn(item)`` when given: a streaming equivalent (e.g. a generator, where ``fn``
    returns a list)."""
    run_here = inline if inline is not None else fn
    jobs = cap_jobs(jobs)
    if jobs <= 1:
        for item in items:
            yield run_here(item) if wanted(item) else item
        return
    pool: ProcessPoolExecutor | None = None
    spill_dir: str | None = None
    # (kind, x): _ITEM passed through, _HELD wanted but no pool yet, _FUTURE submitted
    pending: deque[tuple[int, Any]] = deque()
    held = 0
    try:
        for item in items:
            if not wanted(item):
                if pending:
                    pending.append((_ITEM, item))
                else:
                    yield item
                continue
            if pool is None:
                # held until ``jobs`` of them show how many workers pay (never more
                # workers than work), or until the walk ends
                pending.append((_HELD, item))
                held += 1
                if held < jobs:
                    continue
                spill_dir = tempfiles.private_dir("kdump-spill-")
                pool = _start(fn, pending, jobs, spill_dir)
            else:
                pending.append((_FUTURE, pool.submit(_counted, fn, item)))
            while sum(1 for k, _ in pending if k == _FUTURE) > 2 * jobs or (
                    pending and (pending[0][0] == _ITEM or pending[0][1].done())):
                yield from _pop(pending)
        if pool is None and held == 1:  # one unit of work: no pool
            out = [run_here(x) if k == _HELD else x for k, x in pending]
            pending.clear()
            yield from out
        elif pool is None and held:
            spill_dir = tempfiles.private_dir("kdump-spill-")
            pool = _start(fn, pending, held, spill_dir)
        while pending:
            yield from _pop(pending)
    except BaseException:
        # Ctrl-C, an error, or the consumer gone (``| head``): the workers' results are
        # not wanted any more; they are stopped rather than waited for
        if pool is not None:
            _stop_workers(pool)
        raise
    finally:
        if pool is not None:
            # the futures still waiting are cancelled by the pool's own thread
            # (cancel_futures), never from here: CPython 3.11's thread, finding its
            # workers stopped, sets an exception on every future it holds and dies with
            # InvalidStateError, a traceback on stderr, on one cancelled from another
            # thread (concurrent/futures/process.py, terminate_broken; fixed in 3.12,
            # python/cpython#107219)
            pool.shutdown(wait=True, cancel_futures=True)
        tempfiles.remove(spill_dir)


_ITEM, _HELD, _FUTURE = 0, 1, 2


def _start(fn: Callable[[Any], Any], pending: deque[tuple[int, Any]], workers: int,
           spill_dir: str) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, the held items of ``pending`` submitted to it."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(),
                               initializer=_worker_init, initargs=(spill_dir,))
    for i, (k, x) in enumerate(pending):
        if k == _HELD:
            pending[i] = (_FUTURE, pool.submit(_counted, fn, x))
    return pool


#: findings a worker holds in memory before it spills the rest of a file's to disk
SPILL_AFTER = 10_000


class Spilled:
    """A worker's findings for one file, held in memory up to :data:`SPILL_AFTER` and
    pickled to a private temporary file past that, so a file with millions of findings
    costs its worker (and the parent that waits for it) kilobytes, not gigabytes.
    Iterating yields them in order, once; the file is removed as it is read.  The file
    is made in the pool's spill directory (removed with the pool, whatever ends it), or,
    outside a pool, in a private directory of its own (removed with the file)."""

    def __init__(self, items: Iterable[Any]) -> None:
        import pickle

        self.head: list[Any] = []
        self.path: str | None = None
        self._own_dir: str | None = None
        it = iter(items)
        for x in it:
            self.head.append(x)
            if len(self.head) >= SPILL_AFTER:
                break
        else:
            self.count = len(self.head)
            return
        self.count = len(self.head)
        directory = _spill_dir
        if directory is None or not os.path.isdir(directory):
            directory = self._own_dir = tempfiles.private_dir("kdump-spill-")
        self.path = os.path.join(directory, f"{os.getpid()}-{id(self):x}.pickle")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                for x in it:
                    pickle.dump(x, fh, protocol=pickle.HIGHEST_PROTOCOL)
                    self.count += 1
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> Iterator[Any]:
        import pickle

        yield from self.head
        if self.path is None:
            return
        try:
            with open(self.path, "rb") as fh:
                while True:
                    try:
                        yield pickle.load(fh)
                    except EOFError:
                        break
        finally:
            self.close()

    def close(self) -> None:
        """Remove the spill file (and its own directory), read or not."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
        tempfiles.remove(self._own_dir)
        self._own_dir = None


def _pop(pending: deque[tuple[int, Any]]) -> Iterator[Any]:
    kind, x = pending.popleft()
    if kind != _FUTURE:
        yield x
        return
    fut: Future[tuple[Any, int]] = x
    result, read = fut.result()
    ReadCounter.total += read  # the progress bar counts the workers' bytes too
    yield result


__all__ = ["JOBS_PER_CORE", "MAX_AHEAD", "MIN_POOL_BYTES", "PLAIN_LOG_DISCOUNT",
           "VERIFY_PLAIN_LOG_DISCOUNT", "DefaultJobs",
           "Spilled", "cap_jobs", "cores", "default_jobs", "log_work_bytes", "max_jobs",
           "ordered_map", "pool_pays"]
