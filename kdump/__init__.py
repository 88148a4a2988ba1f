"""kdump: a forensic reader of Apache Kafka's on-disk data (no broker, no JVM).

The library API is small, and lazy: nothing is read before it is asked for, and
corruption is data (:class:`~kdump.findings.Problem` objects), never an exception.

>>> import kdump
>>> for item in kdump.iter_batches("orders-0"):      # a log dir, a partition dir or a .log
...     if isinstance(item, kdump.Problem):
...         print("problem:", item.kind, item.position)
...     else:
...         print(item.base_offset, item.last_offset, item.compression_name)
0 1 none
2 2 zstd
>>> [(r.offset, r.key, r.value) for r in kdump.iter_records("orders-0")]
[(0, b'k0', b'v0'), (1, b'k1', b'v1'), (2, b'k2', b'v2')]
>>> result = kdump.verify("orders-0")
>>> result.clean, result.summary.records, result.problems
(True, 3, [])
"""

from __future__ import annotations

from .limits import DEFAULT_MAX_BATCH_BYTES as _DEFAULT_MAX_BATCH_BYTES
from .version import __version__

#: the package imports nothing heavy (no typing, dataclasses or enum at run time):
#: ``kdump --version`` loads this module alone (issue 33); ``Problem`` is loaded when
#: first named (PEP 562 ``__getattr__`` below), and mypy reads the imports under
#: TYPE_CHECKING, a name it takes as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from .files.logdir import KafkaFile
    from .findings import Problem
    from .ops.verify_crc import Summary
    from .records.batch import Batch
    from .records.record import Record

_LOG_KINDS = ("log", "kraft-snapshot", "bootstrap-snapshot")


def logs(path: str) -> Iterator[KafkaFile]:
    """The record logs under ``path`` (segments and KRaft snapshots), in Kafka's order."""
    from .files.logdir import KafkaFile, walk

    for item in walk([path]):
        if isinstance(item, KafkaFile) and item.kind in _LOG_KINDS:
            yield item


def iter_batches(path: str, *, max_batch_bytes: int = _DEFAULT_MAX_BATCH_BYTES
            ) -> Iterator[Batch | Problem]:
    """Every batch of every log under ``path``, and a :class:`Problem` for every
    damaged region (the walk resynchronises after it).  A batch's records are read
    only when asked: ``batch.records()``."""
    from .errors import KdumpError
    from .findings import Problem
    from .records.file_records import LogReader
    from .source import FileSource

    for f in logs(path):
        try:
            with FileSource(f.path) as src:
                yield from LogReader(src, active=f.active, max_batch_bytes=max_batch_bytes)
        except KdumpError as e:
            yield Problem(e.path or f.path, e.position, "unreadable-file", e.message)


def iter_records(path: str, *, max_batch_bytes: int = _DEFAULT_MAX_BATCH_BYTES) -> Iterator[Record]:
    """Every record of every readable batch under ``path``, in log order (batches or
    records that do not parse are skipped: :func:`verify` names them)."""
    from .errors import KdumpError
    from .findings import Problem

    for item in iter_batches(path, max_batch_bytes=max_batch_bytes):
        if isinstance(item, Problem):
            continue
        try:
            yield from item.records(max_batch_bytes)
        except KdumpError:
            continue


class Verification:
    """What :func:`verify` found: every problem, and the totals."""

    __slots__ = ("problems", "summary")

    def __init__(self, summary: Summary, problems: list[Problem] | None = None) -> None:
        self.summary = summary
        self.problems: list[Problem] = [] if problems is None else problems

    @property
    def clean(self) -> bool:
        return self.summary.clean

    def __repr__(self) -> str:
        return f"Verification(summary={self.summary!r}, problems={self.problems!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verification):
            return NotImplemented
        return (self.summary, self.problems) == (other.summary, other.problems)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was


def __getattr__(name: str) -> object:
    if name == "Problem":
        from .findings import Problem

        return Problem
    raise AttributeError(f"module 'kdump' has no attribute {name!r}")


def verify(path: str, *, deep: bool = True,
           max_batch_bytes: int = _DEFAULT_MAX_BATCH_BYTES) -> Verification:
    """``kdump verify-crc`` as a function: checksums, framing and (``deep``) every
    record's consistency, for every log under ``path``."""
    from .findings import Problem
    from .ops.verify_crc import FileResult, VerifyOptions, verify_crc

    problems: list[Problem] = []
    summary: Summary | None = None
    for item in verify_crc([path], VerifyOptions(deep=deep, max_batch_bytes=max_batch_bytes)):
        if isinstance(item, Problem):
            problems.append(item)
        elif not isinstance(item, FileResult):
            summary = item
    assert summary is not None  # verify_crc always ends with its summary
    return Verification(summary, problems)


__all__ = ["Problem", "Verification", "__version__", "iter_batches", "iter_records", "logs", "verify"]
