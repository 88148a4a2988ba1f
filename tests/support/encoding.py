"""What every file is made of: the constants, varints and Kafka's compact encodings,
xxHash32 and the compression framings (gzip, snappy xerial/raw, LZ4 frames, zstd)
as Kafka writes them."""

from __future__ import annotations

import base64
import struct
import zlib

import lz4.block
import snappy
import zstandard

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4

DEFAULT_TIMESTAMP = 1700000000000  # 2023-11-14T22:13:20Z

# v2 batch attribute bits
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
ATTR_DELETE_HORIZON = 0x40

# control record types
CONTROL_ABORT, CONTROL_COMMIT = 0, 1
CONTROL_LEADER_CHANGE, CONTROL_SNAPSHOT_HEADER, CONTROL_SNAPSHOT_FOOTER = 2, 3, 4
CONTROL_KRAFT_VERSION, CONTROL_KRAFT_VOTERS = 5, 6

V2_HEADER_SIZE = 61
LOG_OVERHEAD = 12
INDEX_ENTRY_SIZE = 8
TIME_INDEX_ENTRY_SIZE = 12
TXN_INDEX_ENTRY_SIZE = 34
PRODUCER_ENTRY_SIZE = 46
DEFAULT_MAX_INDEX_BYTES = 10485760  # segment.index.bytes / log.index.size.max.bytes

XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_BLOCK_SIZE = 32 * 1024  # snappy-java SnappyOutputStream default block size
LZ4_MAGIC = b"\x04\x22\x4d\x18"  # 0x184D2204 little-endian
LZ4_INCOMPRESSIBLE = 0x80000000

_INT32_MAX = (1 << 31) - 1
_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


TS0 = DEFAULT_TIMESTAMP

# --------------------------------------------------------------------------------------------
# Primitive encodings
# --------------------------------------------------------------------------------------------


def uvarint(n: int) -> bytes:
    """Unsigned base-128 varint (low groups first)."""
    if n < 0:
        raise ValueError(f"uvarint must be >= 0, got {n}")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def varint(n: int) -> bytes:
    """ZigZag-encoded signed 32-bit varint."""
    if not -(1 << 31) <= n <= _INT32_MAX:
        raise ValueError(f"varint out of int32 range: {n}")
    return uvarint(((n << 1) ^ (n >> 31)) & _U32)


def varlong(n: int) -> bytes:
    """ZigZag-encoded signed 64-bit varlong."""
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(f"varlong out of int64 range: {n}")
    return uvarint(((n << 1) ^ (n >> 63)) & _U64)


def _read_uvarint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _read_varint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    u, pos = _read_uvarint(buf, pos)
    return (u >> 1) ^ -(u & 1), pos


def _vbytes(b: bytes | None) -> bytes:
    """varint length + bytes; null -> length -1."""
    if b is None:
        return varint(-1)
    return varint(len(b)) + b


def _compact_str(s: str) -> bytes:
    raw = s.encode("utf-8")
    return uvarint(len(raw) + 1) + raw


def _compact_array(items: list[bytes]) -> bytes:
    return uvarint(len(items) + 1) + b"".join(items)


NO_TAGGED_FIELDS = b"\x00"


def uuid_str(raw16: bytes) -> str:
    """Kafka's Uuid text form: URL-safe base64 without padding (22 chars)."""
    if len(raw16) != 16:
        raise ValueError("a Uuid is 16 bytes")
    return base64.urlsafe_b64encode(raw16).rstrip(b"=").decode("ascii")


# --------------------------------------------------------------------------------------------
# xxHash32 (public algorithm, needed for LZ4 frame header / block checksums)
# --------------------------------------------------------------------------------------------

_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _U32


def xxhash32(data: bytes | bytearray | memoryview, seed: int = 0) -> int:
    """xxHash32 of ``data`` (little-endian lanes), as an unsigned 32-bit int."""
    mv = memoryview(data).cast("B")
    n = len(mv)
    pos = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _U32
        v2 = (seed + _P2) & _U32
        v3 = seed & _U32
        v4 = (seed - _P1) & _U32
        limit = n - 16
        while pos <= limit:
            a, b, c, d = struct.unpack_from("<4I", mv, pos)
            v1 = (_rotl32((v1 + a * _P2) & _U32, 13) * _P1) & _U32
            v2 = (_rotl32((v2 + b * _P2) & _U32, 13) * _P1) & _U32
            v3 = (_rotl32((v3 + c * _P2) & _U32, 13) * _P1) & _U32
            v4 = (_rotl32((v4 + d * _P2) & _U32, 13) * _P1) & _U32
            pos += 16
        h = (_rotl32(v1, 1) + _rotl32(v2, 7) + _rotl32(v3, 12) + _rotl32(v4, 18)) & _U32
    else:
        h = (seed + _P5) & _U32
    h = (h + n) & _U32
    while pos + 4 <= n:
        (lane,) = struct.unpack_from("<I", mv, pos)
        h = (_rotl32((h + lane * _P3) & _U32, 17) * _P4) & _U32
        pos += 4
    while pos < n:
        h = (_rotl32((h + mv[pos] * _P5) & _U32, 11) * _P1) & _U32
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _U32
    h ^= h >> 13
    h = (h * _P3) & _U32
    h ^= h >> 16
    return h


# --------------------------------------------------------------------------------------------
# Compression framing, as Kafka writes it
# --------------------------------------------------------------------------------------------


def gzip_compress(data: bytes, level: int | None = None) -> bytes:
    """gzip member as java.util.zip.GZIPOutputStream writes it.

    Header: 1f 8b 08, FLG 0, MTIME 0, XFL 0, OS 0xff (JDK 16+ writes OS "unknown"; older JDKs 0).
    Body: raw deflate (zlib, default level unless given). Trailer: CRC-32 and ISIZE little-endian.
    """
    co = zlib.compressobj(-1 if level is None else level, zlib.DEFLATED, -15)
    body = co.compress(data) + co.flush()
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + body + struct.pack("<II", zlib.crc32(data) & _U32, len(data) & _U32)


def snappy_compress(data: bytes, framing: str = "xerial") -> bytes:
    """Snappy as stored by Kafka.

    ``"xerial"``: snappy-java SnappyOutputStream framing (Java clients/brokers): 8-byte magic,
    int32 version 1, int32 compatible version 1, then per 32 KiB of input an int32 BE length and a
    raw snappy block. ``"raw"``: one raw snappy block (librdkafka-based producers).
    """
    if framing == "raw":
        return bytes(snappy.compress(data))
    if framing != "xerial":
        raise ValueError(f"unknown snappy framing {framing!r}")
    out = bytearray(XERIAL_MAGIC + struct.pack(">ii", 1, 1))
    for i in range(0, len(data), XERIAL_BLOCK_SIZE):
        block = bytes(snappy.compress(data[i : i + XERIAL_BLOCK_SIZE]))
        out += struct.pack(">i", len(block))
        out += block
    return bytes(out)


def lz4_frame(
    data: bytes,
    *,
    broken_hc: bool = False,
    block_checksum: bool = False,
    level: int | None = None,
    block_size_id: int = 4,
) -> bytes:
    """LZ4 frame exactly as Kafka's Lz4BlockOutputStream lays it out.

    FLG 0x60 (+0x10 with block checksums), BD = block_size_id << 4 (4 -> 64 KiB blocks), header
    checksum = second byte of xxHash32 over FLG..BD (or over magic..BD with ``broken_hc``, the
    KAFKA-1493 variant written for magic 0). Each block: uint32 LE size word, bit 31 set when the
    block is stored uncompressed (compression did not shrink it); optional xxHash32 of the stored
    bytes; end mark 0. No content size, no content checksum.
    """
    if not 4 <= block_size_id <= 7:
        raise ValueError("block_size_id must be 4..7")
    flg = 0x60 | (0x10 if block_checksum else 0)
    bd = block_size_id << 4
    descriptor = bytes([flg, bd])
    hc = (xxhash32(LZ4_MAGIC + descriptor if broken_hc else descriptor) >> 8) & 0xFF
    out = bytearray(LZ4_MAGIC + descriptor + bytes([hc]))
    max_block = 1 << (2 * block_size_id + 8)
    for i in range(0, len(data), max_block):
        chunk = data[i : i + max_block]
        if level is None or level == 9:  # Kafka's default level -> lz4-java fast compressor
            comp = lz4.block.compress(chunk, mode="default", store_size=False)
        else:
            comp = lz4.block.compress(
                chunk, mode="high_compression", compression=min(level, 12), store_size=False
            )
        if len(comp) >= len(chunk):
            stored, word = chunk, len(chunk) | LZ4_INCOMPRESSIBLE
        else:
            stored, word = comp, len(comp)
        out += struct.pack("<I", word)
        out += stored
        if block_checksum:
            out += struct.pack("<I", xxhash32(stored))
    out += b"\x00\x00\x00\x00"
    return bytes(out)


def zstd_compress(data: bytes, level: int | None = None) -> bytes:
    """One Zstandard frame, streamed-style (no content size, no checksum), default level 3."""
    cctx = zstandard.ZstdCompressor(
        level=3 if level is None else level, write_content_size=False, write_checksum=False
    )
    return bytes(cctx.compress(data))


def compress(
    codec: int,
    data: bytes,
    *,
    snappy_framing: str = "xerial",
    lz4_broken_hc: bool = False,
    lz4_block_checksum: bool = False,
    level: int | None = None,
) -> bytes:
    if codec == NONE:
        return data
    if codec == GZIP:
        return gzip_compress(data, level)
    if codec == SNAPPY:
        return snappy_compress(data, snappy_framing)
    if codec == LZ4:
        return lz4_frame(
            data, broken_hc=lz4_broken_hc, block_checksum=lz4_block_checksum, level=level
        )
    if codec == ZSTD:
        return zstd_compress(data, level)
    raise ValueError(f"unknown codec {codec}")
