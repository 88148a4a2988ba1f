"""Decompression of batch payloads as Kafka stores them, bounded in size.

Sources: clients/src/main/java/org/apache/kafka/common/compress/{Gzip,Snappy,Lz4,Zstd}
Compression.java, Lz4BlockInputStream.java; snappy-java's SnappyInputStream for the
xerial framing; librdkafka's rdkafka_msgset_writer.c for raw snappy.

Every function takes ``limit``: the most decompressed bytes the caller accepts.  Output
beyond it raises :class:`~kdump.errors.LimitExceeded` *before* it is produced (streams
are read in bounded steps), so a decompression bomb costs at most ``limit`` bytes.
The codec libraries are imported on first use: ``kdump --version`` stays fast.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from typing import Any

from . import layouts as L
from .errors import DecompressionError, LimitExceeded

_U32_LE = struct.Struct("<I")
_U32_BE = struct.Struct(">I")
_STEP = 1 << 20
#: compressed input handed to zlib at a time (its unconsumed tail is copied per step)
_IN_STEP = 1 << 16


def _too_big(limit: int) -> LimitExceeded:
    return LimitExceeded(f"decompressed payload exceeds the limit of {limit} bytes")


class _Output:
    """Decompressed bytes, at most ``limit`` of them, held once: ``io.BytesIO`` hands
    its buffer over without a copy (a ``bytearray`` would be copied into ``bytes`` at the
    end, doubling the peak)."""

    __slots__ = ("buf", "limit", "n")

    def __init__(self, limit: int) -> None:
        self.buf = io.BytesIO()
        self.limit = limit
        self.n = 0

    def add(self, part: bytes) -> None:
        self.n += len(part)
        if self.n > self.limit:
            raise _too_big(self.limit)
        self.buf.write(part)

    def value(self) -> bytes:
        return self.buf.getvalue()


def gunzip(data: bytes, limit: int) -> bytes:
    """gzip stream(s), as GZIPInputStream reads them (concatenated members allowed).

    Input goes to zlib ``_IN_STEP`` bytes at a time and output comes back at most
    ``_STEP`` bytes at a time, so neither a bomb (tiny input, huge output) nor a long
    stream costs more than ``limit`` bytes plus a step."""
    out = _Output(limit)
    mv = memoryview(data)
    end = len(mv)
    start = 0
    while start < end:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pos = start
        tail: bytes | memoryview = b""
        try:
            while not d.eof:
                if not tail:
                    if pos >= end:
                        part = d.decompress(b"", _STEP)  # output still held by zlib
                        if not part:
                            break
                        out.add(part)
                        continue
                    tail = mv[pos : pos + _IN_STEP]
                    pos += len(tail)
                out.add(d.decompress(tail, _STEP))
                tail = d.unconsumed_tail
        except zlib.error as e:
            raise DecompressionError(f"gzip: {e}") from None
        if not d.eof:
            raise DecompressionError("gzip: stream ends before the end of its last member")
        start = pos - len(d.unused_data) - len(d.unconsumed_tail)
        # GZIPInputStream stops at trailing garbage that is not another member
        if start < end and bytes(mv[start : start + len(L.GZIP_MAGIC)]) != L.GZIP_MAGIC:
            break
    return out.value()


def _uvarint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 28:
            raise DecompressionError("snappy: bad uncompressed-length prefix")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _snappy_block(block: bytes, limit: int, configured: int | None = None) -> bytes:
    import snappy

    size, _ = _uvarint(block, 0)
    if size > limit:  # the message names the configured limit, not what is left of it
        raise _too_big(limit if configured is None else configured)
    try:
        return bytes(snappy.uncompress(block))
    except Exception as e:  # snappy.UncompressError and cramjam's errors
        raise DecompressionError(f"snappy: {e}") from None


def unsnappy(data: bytes, limit: int) -> bytes:
    """snappy-java's xerial stream framing when the input starts with its magic,
    otherwise one raw snappy block (what librdkafka writes)."""
    if len(data) < L.XERIAL_HEADER_SIZE or not data.startswith(L.XERIAL_MAGIC):
        return _snappy_block(data, limit)
    out = _Output(limit)
    pos = L.XERIAL_HEADER_SIZE
    end = len(data)
    while pos < end:
        if end - pos < 4:
            raise DecompressionError(f"snappy: truncated chunk length at payload byte {pos}")
        (n,) = _U32_BE.unpack_from(data, pos)
        if data.startswith(L.XERIAL_MAGIC, pos):  # a concatenated stream's header
            pos += L.XERIAL_HEADER_SIZE
            continue
        pos += 4
        if n > end - pos:
            raise DecompressionError(
                f"snappy: chunk of {n} bytes at payload byte {pos - 4} runs past the end"
            )
        out.add(_snappy_block(data[pos : pos + n], limit - out.n, limit))
        pos += n
    return out.value()


def unlz4(data: bytes, limit: int, *, magic: int = 2) -> bytes:
    """An LZ4 frame as Kafka's Lz4BlockOutputStream writes it.

    The frame is walked by hand and each block decoded on its own, so the header
    checksum is never checked: Kafka 0.8/0.9 wrote a wrong one under magic 0 (KAFKA-1493)
    and Kafka itself skips the check there.  For magic 1 and 2 a wrong header checksum
    is reported, as Kafka's reader rejects it.
    """
    import lz4.block

    if len(data) < 7 or not data.startswith(L.LZ4_MAGIC):
        raise DecompressionError("lz4: not an LZ4 frame (bad magic)")
    flg, bd = data[4], data[5]
    if flg & L.LZ4_FLG_VERSION_MASK != 0x40:
        raise DecompressionError(f"lz4: unsupported frame version (FLG 0x{flg:02x})")
    if flg & L.LZ4_FLG_DICT_ID:
        raise DecompressionError("lz4: dictionary frames are not supported")
    block_max = L.LZ4_BLOCK_SIZES.get((bd & L.LZ4_BD_BLOCK_SIZE_MASK) >> 4)
    if block_max is None or bd & 0x8F:
        raise DecompressionError(f"lz4: bad block descriptor (BD 0x{bd:02x})")
    pos = 6 + (8 if flg & L.LZ4_FLG_CONTENT_SIZE else 0)
    if pos >= len(data):
        raise DecompressionError("lz4: truncated frame header")
    if magic > 0:
        expected = _header_checksum(data[4:pos])
        if data[pos] != expected:
            raise DecompressionError(
                f"lz4: frame header checksum 0x{data[pos]:02x} is wrong (expected 0x{expected:02x})"
            )
    pos += 1
    checksummed = bool(flg & L.LZ4_FLG_BLOCK_CHECKSUM)
    # a frame of one block (a batch's usual frame) returns that block as it is; more
    # blocks go through _Output
    out: _Output | None = None
    first: bytes | None = None
    end = len(data)
    while True:
        if end - pos < 4:
            raise DecompressionError("lz4: frame ends without an end mark")
        (word,) = _U32_LE.unpack_from(data, pos)
        pos += 4
        if word == 0:
            break
        stored = bool(word & L.LZ4_BLOCK_UNCOMPRESSED)
        n = word & ~L.LZ4_BLOCK_UNCOMPRESSED
        if n > block_max or n > end - pos:
            raise DecompressionError(f"lz4: block of {n} bytes is larger than allowed or than the frame")
        block = data[pos : pos + n]
        pos += n + (4 if checksummed else 0)
        if stored:
            part = block
        else:
            try:
                part = lz4.block.decompress(block, uncompressed_size=block_max)
            except Exception as e:  # LZ4BlockError
                raise DecompressionError(f"lz4: {e}") from None
        if out is None and first is None:
            if len(part) > limit:
                raise _too_big(limit)
            first = part
            continue
        if out is None:
            out = _Output(limit)
            if first is not None:
                out.add(first)
        out.add(part)
    if out is not None:
        return out.value()
    return b"" if first is None else first


_HEADER_CHECKSUMS: dict[bytes, int] = {}


def _header_checksum(descriptor: bytes) -> int:
    """The LZ4 frame header checksum byte of a frame descriptor (FLG, BD and the
    optional content size).  Kafka's frames repeat a handful of descriptors: each is
    hashed once."""
    hc = _HEADER_CHECKSUMS.get(descriptor)
    if hc is None:
        if len(_HEADER_CHECKSUMS) > 4096:
            _HEADER_CHECKSUMS.clear()
        hc = _HEADER_CHECKSUMS[descriptor] = (_xxh32(descriptor) >> 8) & 0xFF
    return hc


_ZSTD: Any = None


def _zstd_decompressor() -> Any:
    """One ZstdDecompressor per process: each stream_reader resets its context, and
    creating one costs more than decompressing a typical batch (20 us against 5 us)."""
    global _ZSTD
    if _ZSTD is None:
        import zstandard

        _ZSTD = zstandard.ZstdDecompressor()
    return _ZSTD


def unzstd(data: bytes, limit: int) -> bytes:
    """Zstandard frame(s), read as a stream so the frame need not declare its size."""
    import zstandard

    out = _Output(limit)
    try:
        reader = _zstd_decompressor().stream_reader(data, read_across_frames=True)
        while True:
            part = reader.read(min(_STEP, limit + 1 - out.n) or 1)
            if not part:
                break
            out.add(part)
    except zstandard.ZstdError as e:
        raise DecompressionError(f"zstd: {e}") from None
    return out.value()


_DECOMPRESSORS: dict[int, Callable[[bytes, int], bytes]] = {
    L.CODEC_GZIP: gunzip,
    L.CODEC_SNAPPY: unsnappy,
    L.CODEC_ZSTD: unzstd,
}


def decompress(codec: int, data: bytes, limit: int, *, magic: int = 2) -> bytes:
    """Decompress one batch payload stored with ``codec`` (a CompressionType id)."""
    if codec == L.CODEC_NONE:
        return bytes(data)
    if codec == L.CODEC_LZ4:
        return unlz4(bytes(data), limit, magic=magic)
    if codec == L.CODEC_ZSTD and magic < 2:
        raise DecompressionError("zstd is not allowed with magic 0 or 1")
    fn = _DECOMPRESSORS.get(codec)
    if fn is None:
        raise DecompressionError(f"unknown compression codec id {codec}")
    return fn(bytes(data), limit)


# xxHash32, for the LZ4 frame header checksum (one or two bytes of input: speed is moot).
_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
_M = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _xxh32(data: bytes, seed: int = 0) -> int:
    n = len(data)
    pos = 0
    if n >= 16:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed & _M, (seed - _P1) & _M]
        while pos <= n - 16:
            for i in range(4):
                (lane,) = struct.unpack_from("<I", data, pos)
                v[i] = (_rotl((v[i] + lane * _P2) & _M, 13) * _P1) & _M
                pos += 4
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while pos + 4 <= n:
        (lane,) = struct.unpack_from("<I", data, pos)
        h = (_rotl((h + lane * _P3) & _M, 17) * _P4) & _M
        pos += 4
    while pos < n:
        h = (_rotl((h + data[pos] * _P5) & _M, 11) * _P1) & _M
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _M
    h ^= h >> 13
    h = (h * _P3) & _M
    h ^= h >> 16
    return h
