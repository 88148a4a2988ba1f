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
number of cores), and a pool starts only when the work pays for its start-up
(:func:`pool_pays`): a segment of a few tens of MB is read in this process.  ``--jobs
N`` is the user's choice and always honoured.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeVar

from .source import ReadCounter

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")


class DefaultJobs(int):
    """A number of jobs kdump chose (``--jobs`` not given), not one the user asked for:
    an int everywhere, and a pool starts for it only when :func:`pool_pays`."""


def default_jobs() -> int:
    """The number of cores this process may run on (a :class:`DefaultJobs`)."""
    try:
        return DefaultJobs(max(1, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return DefaultJobs(max(1, os.cpu_count() or 1))


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
    if jobs <= 1:
        for item in items:
            yield run_here(item) if wanted(item) else item
        return
    pool: ProcessPoolExecutor | None = None
    pending: deque[tuple[bool, Any]] = deque()  # (is a future, future or item)
    first: Any = None  # the first wanted item, held until a second one shows a pool pays
    have_first = False
    try:
        it = iter(items)
        for item in it:
            if not wanted(item):
                if have_first or pending:
                    pending.append((False, item))
                else:
                    yield item
                continue
            if pool is None and not have_first:
                first, have_first = item, True
                continue
            if pool is None:
                from concurrent.futures import ProcessPoolExecutor

                pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_context())
                pending.appendleft((True, pool.submit(_counted, fn, first)))
                first, have_first = None, False
            pending.append((True, pool.submit(_counted, fn, item)))
            while sum(1 for is_f, _ in pending if is_f) > 2 * jobs or (
                    pending and (not pending[0][0] or pending[0][1].done())):
                yield from _pop(pending)
        if have_first:  # one file only: no pool
            out: list[Any] = [run_here(first)]
            out.extend(x for _, x in pending)
            pending.clear()
            yield from out
        while pending:
            yield from _pop(pending)
    finally:
        if pool is not None:
            for is_f, x in pending:
                if is_f:
                    x.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


#: findings a worker holds in memory before it spills the rest of a file's to disk
SPILL_AFTER = 10_000


class Spilled:
    """A worker's findings for one file, held in memory up to :data:`SPILL_AFTER` and
    pickled to a private temporary file past that, so a file with millions of findings
    costs its worker (and the parent that waits for it) kilobytes, not gigabytes.
    Iterating yields them in order, once; the file is removed as it is read."""

    def __init__(self, items: Iterable[Any]) -> None:
        import pickle
        import tempfile

        self.head: list[Any] = []
        self.path: str | None = None
        it = iter(items)
        for x in it:
            self.head.append(x)
            if len(self.head) >= SPILL_AFTER:
                break
        else:
            self.count = len(self.head)
            return
        self.count = len(self.head)
        fd, self.path = tempfile.mkstemp(prefix="kdump-spill-")
        with os.fdopen(fd, "wb") as fh:
            for x in it:
                pickle.dump(x, fh, protocol=pickle.HIGHEST_PROTOCOL)
                self.count += 1

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
            os.unlink(self.path)
            self.path = None


def _pop(pending: deque[tuple[bool, Any]]) -> Iterator[Any]:
    is_future, x = pending.popleft()
    if not is_future:
        yield x
        return
    fut: Future[tuple[Any, int]] = x
    result, read = fut.result()
    ReadCounter.total += read  # the progress bar counts the workers' bytes too
    yield result


__all__ = ["MAX_AHEAD", "MIN_POOL_BYTES", "DefaultJobs", "Spilled", "default_jobs", "ordered_map",
           "pool_pays"]
