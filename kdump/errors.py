"""One error hierarchy.  Every error knows which file and byte position it is about.

Raw ``struct.error``/``IndexError``/codec exceptions are translated into these at the
boundaries of the core (see :func:`kdump.source.bounds`) and never reach callers.
"""

from __future__ import annotations


class KdumpError(Exception):
    """Base of every error kdump raises."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        position: int | None = None,
        base_offset: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.position = position
        self.base_offset = base_offset

    def __str__(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.position is not None:
            where.append(f"byte {self.position}")
        if self.base_offset is not None:
            where.append(f"batch base offset {self.base_offset}")
        return f"{': '.join([', '.join(where), self.message]) if where else self.message}"


class InputError(KdumpError):
    """A path cannot be opened or read: missing, permission denied, not a file ..."""


class UsageError(KdumpError):
    """The request itself makes no sense (bad option value, wrong kind of file)."""


class OutputError(KdumpError):
    """kdump cannot write what it was asked to write (``--rebuild-into``: disk full, or a
    target that would touch an input): the run stops, exit 2."""


class CorruptDataError(KdumpError):
    """Bytes that do not parse as what they claim to be."""


class DecompressionError(CorruptDataError):
    """A compressed payload that cannot be decompressed."""


class LimitExceeded(CorruptDataError):
    """A payload larger than the configured bound (``--max-batch-bytes``)."""


class RecordTooLarge(KdumpError):
    """A record that expands to more objects (headers, decoded collections) than
    ``--max-batch-bytes`` allows.  Not a :class:`CorruptDataError`: the bytes may be
    fine, and decoders, which turn corrupt data into notes, let it through."""


class Interrupted(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the process is (as Ctrl-C raises
    KeyboardInterrupt), so the same unwinding cleans up: staged outputs removed
    (kdump/output.py), workers stopped (kdump/parallel.py).  The command line says it in
    one line and exits 128 + the signal's number (143, 129)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
