"""Exit codes, in one place."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a kdump process exits with."""

    #: everything read, nothing wrong
    OK = 0
    #: the data has problems (corruption, mismatches, not found ...)
    PROBLEMS = 1
    #: usage error, or an input that cannot be opened or read
    ERROR = 2
