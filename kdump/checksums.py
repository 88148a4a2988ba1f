"""The two checksums Kafka uses: CRC-32 (legacy messages) and CRC-32C (v2 batches,
producer snapshots).  clients/src/main/java/org/apache/kafka/common/utils/Crc32C.java"""

from __future__ import annotations

import zlib
from typing import Any

from crc32c import crc32c as _crc32c


def crc32(data: Any) -> int:
    """CRC-32 (IEEE 802.3, zlib's) of a bytes-like object, unsigned."""
    return zlib.crc32(data) & 0xFFFFFFFF


def crc32c(data: Any) -> int:
    """CRC-32C (Castagnoli) of a bytes-like object, unsigned."""
    return int(_crc32c(data))
