"""The two checksums Kafka uses: CRC-32 (legacy messages) and CRC-32C (v2 batches,
producer snapshots).  clients/src/main/java/org/apache/kafka/common/utils/Crc32C.java"""

from __future__ import annotations

import zlib
from typing import Any

from .native import speedups

if speedups is not None:
    # the extension's own CRC-32C (hardware instructions where the CPU has them): the
    # same values, and no import of the crc32c package (which costs start-up time)
    _crc32c = speedups.crc32c
    _crc32c_range = speedups.crc32c
else:
    from crc32c import crc32c as _crc32c

    def _crc32c_range(data: Any, start: int, end: int) -> int:
        return int(_crc32c(memoryview(data)[start:end]))


def crc32(data: Any) -> int:
    """CRC-32 (IEEE 802.3, zlib's) of a bytes-like object, unsigned."""
    return zlib.crc32(data) & 0xFFFFFFFF


def crc32c(data: Any) -> int:
    """CRC-32C (Castagnoli) of a bytes-like object, unsigned."""
    return int(_crc32c(data))


def crc32c_range(data: Any, start: int, end: int) -> int:
    """CRC-32C of ``data[start:end]`` without copying or slicing."""
    return int(_crc32c_range(data, start, end))
