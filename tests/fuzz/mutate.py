"""Mutators: hostile variants of the files in the seed corpus.

Every mutator takes a :class:`random.Random` and the file's bytes (and, where the
structure matters, what kind of file it is) and returns the new bytes and a short
description.  Log mutators know where batches, header fields and record fields are
(framed here, independently of kdump), so truncations land on interesting boundaries
and lengths can be replaced by huge, negative or overlong values; ``synth_*`` build a
fresh batch with the writer, damage its records *before* compression and fix the
checksum, so damage hides behind a valid CRC.  All of it is deterministic for a given
``Random``.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import crc32c

from tests.support import writer as w

# ---------------------------------------------------------------------------------------
# interesting values
# ---------------------------------------------------------------------------------------
I8 = [0, 1, -1, 2, 3, 0x7F, -0x80, 0x40, 0x20, 0x10, 0x08, 0x07, 0x05]
I16 = [0, 1, -1, 2, 3, 4, 5, 7, 0x7F, 0xFF, 0x7FFF, -0x8000, 0x40, 0x30, 0x27, 0x20]
I32 = [0, 1, -1, 2, 7, 8, 12, 13, 14, 16, 17, 21, 22, 26, 34, 46, 48, 49, 60, 61, 62, 127,
       128, 255, 256, 4095, 4096, 65535, 65536, 1 << 20, 1 << 24, 1 << 30, (1 << 31) - 1,
       -(1 << 31), -2, -100, (1 << 31) - 12, (1 << 31) - 61]
I64 = [0, 1, -1, 2, (1 << 63) - 1, -(1 << 63), 1 << 32, (1 << 31) - 1, 1 << 31, -2,
       w.DEFAULT_TIMESTAMP, w.DEFAULT_TIMESTAMP + 1, (1 << 62), -(1 << 62)]
#: raw varint byte strings: huge, negative, overlong, unterminated
RAW_VARINTS = [b"\xff\xff\xff\xff\x0f", b"\xfe\xff\xff\xff\x0f", b"\xff" * 5, b"\xff" * 10,
               b"\x80" * 9 + b"\x01", b"\x80" * 4 + b"\x10", b"\x81\x80\x80\x80\x00",
               b"\xff\xff\xff\xff\x7f", b"\x80", b"\xff"]
CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
VARINT_VALUES = [0, 1, -1, -2, 2, 5, 6, 7, 8, 127, 128, 255, 4096, 65535, 1 << 20,
                 (1 << 31) - 1, -(1 << 31), 1 << 30, -(1 << 30)]


def _int_values(fmt: str, data_len: int) -> list[int]:
    base = {"b": I8, "B": [0, 1, 2, 3, 0xFF], "h": I16, "H": [0, 0xFFFF, 0x7F, 0x40],
            "i": I32, "I": [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000], "q": I64}[fmt]
    extra = [data_len, data_len - 1, data_len + 1, data_len - 12, data_len - 11, data_len * 2]
    lo, hi = {"b": (-128, 127), "B": (0, 255), "h": (-(1 << 15), (1 << 15) - 1),
              "H": (0, 0xFFFF), "i": (-(1 << 31), (1 << 31) - 1), "I": (0, 0xFFFFFFFF),
              "q": (-(1 << 63), (1 << 63) - 1)}[fmt]
    return base + [v for v in extra if lo <= v <= hi]


def pick_int(rng: random.Random, fmt: str, old: int, data_len: int) -> int:
    r = rng.random()
    lo, hi = {"b": (-128, 127), "B": (0, 255), "h": (-(1 << 15), (1 << 15) - 1),
              "H": (0, 0xFFFF), "i": (-(1 << 31), (1 << 31) - 1), "I": (0, 0xFFFFFFFF),
              "q": (-(1 << 63), (1 << 63) - 1)}[fmt]
    if r < 0.6:
        return rng.choice(_int_values(fmt, data_len))
    if r < 0.85:  # off by a little
        return max(lo, min(hi, old + rng.choice([-3, -2, -1, 1, 2, 3, 8, -8, 61, -61])))
    return rng.randint(lo, hi)


# ---------------------------------------------------------------------------------------
# framing, independent of kdump
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Span:
    start: int
    end: int
    magic: int

    @property
    def size(self) -> int:
        return self.end - self.start


def frame(data: bytes) -> list[Span]:
    """Whole log entries from the start, until something does not frame."""
    out = []
    pos = 0
    while len(data) - pos >= 17:
        size = struct.unpack_from(">i", data, pos + 8)[0]
        magic = data[pos + 16]
        if size < 14 or magic > 2 or pos + 12 + size > len(data):
            break
        out.append(Span(pos, pos + 12 + size, magic))
        pos += 12 + size
    return out


V2_FIELDS = [("offset", 0, "q"), ("length", 8, "i"), ("leader_epoch", 12, "i"),
             ("magic", 16, "b"), ("crc", 17, "I"), ("attributes", 21, "h"),
             ("last_offset_delta", 23, "i"), ("base_timestamp", 27, "q"),
             ("max_timestamp", 35, "q"), ("producer_id", 43, "q"), ("producer_epoch", 51, "h"),
             ("base_sequence", 53, "i"), ("records_count", 57, "i")]


def legacy_fields(data: bytes, s: Span) -> list[tuple[str, int, str]]:
    f = [("offset", 0, "q"), ("size", 8, "i"), ("crc", 12, "I"), ("magic", 16, "b"),
         ("attributes", 17, "b")]
    key_at = 18
    if s.magic == 1:
        f.append(("timestamp", 18, "q"))
        key_at = 26
    if key_at + 4 <= s.size:
        f.append(("key_length", key_at, "i"))
        klen = struct.unpack_from(">i", data, s.start + key_at)[0]
        v_at = key_at + 4 + max(klen, 0)
        if 0 <= klen and v_at + 4 <= s.size:
            f.append(("value_length", v_at, "i"))
    return f


def _read_uvarint(buf: bytes, pos: int, end: int) -> tuple[int, int] | None:
    result = shift = 0
    for _ in range(10):
        if pos >= end:
            return None
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
    return None


def _zz(u: int) -> int:
    return (u >> 1) ^ -(u & 1)


def record_fields(buf: bytes, start: int, end: int) -> list[tuple[str, int, int]]:
    """(name, position, varint length) of every varint field of v2 records in
    ``buf[start:end]`` (an uncompressed records area), as far as they parse."""
    out: list[tuple[str, int, int]] = []
    pos = start
    while pos < end:
        r = _read_uvarint(buf, pos, end)
        if r is None:
            break
        length, body = _zz(r[0]), r[1]
        out.append(("record_length", pos, body - pos))
        limit = body + length
        if length < 6 or limit > end:
            break
        p = body + 1  # attributes
        names = ["timestamp_delta", "offset_delta", "key_length"]
        ok = True
        for name in names:
            r = _read_uvarint(buf, p, limit)
            if r is None:
                ok = False
                break
            out.append((name, p, r[1] - p))
            p = r[1]
        if not ok:
            break
        klen = _zz(r[0])
        p += max(klen, 0)
        r = _read_uvarint(buf, p, limit)
        if r is None:
            break
        out.append(("value_length", p, r[1] - p))
        p = r[1] + max(_zz(r[0]), 0)
        r = _read_uvarint(buf, p, limit)
        if r is None:
            break
        out.append(("header_count", p, r[1] - p))
        n = _zz(r[0])
        p = r[1]
        for _ in range(max(0, min(n, 64))):
            r = _read_uvarint(buf, p, limit)
            if r is None:
                break
            out.append(("header_key_length", p, r[1] - p))
            p = r[1] + max(_zz(r[0]), 0)
            r = _read_uvarint(buf, p, limit)
            if r is None:
                break
            out.append(("header_value_length", p, r[1] - p))
            p = r[1] + max(_zz(r[0]), 0)
        pos = limit
    return out


def fix_v2(batch: bytearray, *, length: bool = True, crc: bool = True) -> None:
    """Make a (damaged) v2 batch's length field and CRC-32C agree with its bytes."""
    if len(batch) < 21:
        return
    if length:
        struct.pack_into(">i", batch, 8, len(batch) - 12)
    if crc and len(batch) >= 21:
        struct.pack_into(">I", batch, 17, crc32c.crc32c(bytes(batch[21:])))


def fix_legacy(entry: bytearray) -> None:
    if len(entry) < 17:
        return
    struct.pack_into(">i", entry, 8, len(entry) - 12)
    struct.pack_into(">I", entry, 12, zlib.crc32(bytes(entry[16:])) & 0xFFFFFFFF)


def random_varint(rng: random.Random) -> bytes:
    if rng.random() < 0.35:
        return rng.choice(RAW_VARINTS)
    return w.varint(rng.choice(VARINT_VALUES))


# ---------------------------------------------------------------------------------------
# byte-level mutators (any file)
# ---------------------------------------------------------------------------------------
def bitflip(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    if not data:
        return b"\x01", "bitflip(empty -> 01)"
    b = bytearray(data)
    n = rng.choice([1, 1, 2, 3, 8])
    where = []
    for _ in range(n):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
        where.append(i)
    return bytes(b), f"bitflip{where}"


def byteset(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    if not data:
        return b"\xff", "byteset(empty)"
    b = bytearray(data)
    i = rng.randrange(len(b))
    n = rng.choice([1, 1, 2, 4, 8])
    v = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x01, 0x02, rng.getrandbits(8)])
    b[i : i + n] = bytes([v]) * len(b[i : i + n])
    return bytes(b), f"byteset(@{i}x{n}={v:#x})"


def truncate(rng: random.Random, data: bytes, points: list[int] | None = None) -> tuple[bytes, str]:
    cands = list(points or [])
    if data:
        cands += [rng.randrange(len(data) + 1), 0, len(data) - 1, len(data) // 2]
    at = max(0, min(len(data), rng.choice(cands) if cands else 0))
    return data[:at], f"truncate(@{at}/{len(data)})"


def zero_region(rng: random.Random, data: bytes, points: list[int] | None = None) -> tuple[bytes, str]:
    if not data:
        return bytes(rng.choice([1, 17, 4096])), "zero-file"
    start = rng.choice(points) if points and rng.random() < 0.6 else rng.randrange(len(data))
    n = rng.choice([1, 4, 8, 12, 17, 61, 100, 4096, len(data)])
    b = bytearray(data)
    end = min(len(b), start + n)
    b[start:end] = bytes(end - start)
    return bytes(b), f"zero(@{start}..{end})"


def insert(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    at = rng.randrange(len(data) + 1)
    what = rng.choice([bytes(rng.choice([1, 7, 17])),
                       bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 40))),
                       b"\xff" * rng.choice([1, 4, 12])])
    return data[:at] + what + data[at:], f"insert(@{at},{len(what)})"


def delete(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    if not data:
        return data, "delete(empty)"
    at = rng.randrange(len(data))
    n = rng.choice([1, 2, 4, 8, 13, 61, 200])
    return data[:at] + data[at + n :], f"delete(@{at},{n})"


def splice(rng: random.Random, data: bytes, donor: bytes) -> tuple[bytes, str]:
    """Copy a region of ``donor`` (another file, or this one) over or into ``data``."""
    src = donor or data
    if not src:
        return data, "splice(empty)"
    a = rng.randrange(len(src))
    n = rng.choice([8, 17, 61, 128, 1024, len(src)])
    piece = src[a : a + n]
    at = rng.randrange(len(data) + 1)
    if rng.random() < 0.5:
        out = data[:at] + piece + data[at + len(piece) :]
        how = "over"
    else:
        out = data[:at] + piece + data[at:]
        how = "into"
    return out, f"splice({how} @{at}, {len(piece)} bytes from @{a})"


def append(rng: random.Random, data: bytes, kind: str) -> tuple[bytes, str]:
    r = rng.random()
    if r < 0.3:
        tail, what = bytes(rng.choice([1, 16, 17, 61, 4096, 70000])), "zeros"
    elif r < 0.55:
        tail, what = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 5, 17, 60, 300]))), "random"
    elif r < 0.8 and kind in ("log", "kraft-snapshot"):
        # a header claiming a huge batch, with (almost) nothing behind it
        size = rng.choice([(1 << 31) - 1, 1 << 30, 1 << 24, 49, 100])
        tail = struct.pack(">qi", rng.choice([0, 10**6, -1]), size) + struct.pack(">i", 0) + bytes([2])
        tail += bytes(rng.choice([0, 4, 44, 100]))
        what = f"header(size={size})"
    else:
        n = rng.randint(1, max(1, len(data)))
        tail, what = data[:n], f"copy of first {n} bytes"
    return data + tail, f"append({what}, {len(tail)})"


# ---------------------------------------------------------------------------------------
# log mutators
# ---------------------------------------------------------------------------------------
def _boundaries(spans: list[Span]) -> list[int]:
    pts = []
    for s in spans:
        for d in (0, 1, 8, 12, 16, 17, 21, 57, 61, 62):
            if s.start + d <= s.end:
                pts.append(s.start + d)
        pts += [s.end - 1, s.end]
    return pts


def log_header_int(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str]:
    s = rng.choice(spans)
    fields = V2_FIELDS if s.magic == 2 else legacy_fields(data, s)
    name, off, fmt = rng.choice(fields)
    b = bytearray(data)
    old = struct.unpack_from(">" + fmt, b, s.start + off)[0]
    new = pick_int(rng, fmt, old, len(data) - s.start)
    struct.pack_into(">" + fmt, b, s.start + off, new)
    fixed = ""
    if name not in ("crc", "length", "size") and rng.random() < 0.6:
        entry = bytearray(b[s.start : s.end])
        if s.magic == 2:
            fix_v2(entry, length=False)
        else:
            struct.pack_into(">I", entry, 12, zlib.crc32(bytes(entry[16:])) & 0xFFFFFFFF)
        b[s.start : s.end] = entry
        fixed = "+crc"
    return bytes(b), f"header[{s.start}].{name}={new}{fixed}"


def log_record_varint(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str] | None:
    cands = [s for s in spans if s.magic == 2 and len(data) >= s.start + 23
             and struct.unpack_from(">h", data, s.start + 21)[0] & 7 == 0]
    if not cands:
        return None
    s = rng.choice(cands)
    fields = record_fields(data, s.start + 61, s.end)
    if not fields:
        return None
    name, pos, n = rng.choice(fields)
    new = random_varint(rng)
    entry = bytearray(data[s.start : s.end])
    rel = pos - s.start
    entry[rel : rel + n] = new
    fix = rng.random()
    how = ""
    if fix < 0.7:
        fix_v2(entry, length=True, crc=True)
        how = "+len+crc"
    elif fix < 0.85:
        fix_v2(entry, length=False, crc=True)
        how = "+crc"
    return data[: s.start] + bytes(entry) + data[s.end :], f"record[{pos}].{name}={new.hex()}{how}"


def log_records_count(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str] | None:
    """recordsCount / lastOffsetDelta huge or negative, CRC fixed."""
    v2 = [s for s in spans if s.magic == 2]
    if not v2:
        return None
    s = rng.choice(v2)
    entry = bytearray(data[s.start : s.end])
    field = rng.choice([57, 23])
    v = rng.choice([(1 << 31) - 1, -1, -(1 << 31), 1 << 24, 0, 1000])
    struct.pack_into(">i", entry, field, v)
    fix_v2(entry, length=False)
    return data[: s.start] + bytes(entry) + data[s.end :], f"batch[{s.start}].@{field}={v}+crc"


def log_batches(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str]:
    parts = [data[s.start : s.end] for s in spans]
    rest = data[spans[-1].end :] if spans else data
    op = rng.choice(["dup", "swap", "drop", "reverse", "dup-all"])
    if op == "dup" or len(parts) < 2:
        i = rng.randrange(len(parts))
        parts.insert(i + rng.choice([0, 1, len(parts) - i]), parts[i])
        desc = f"dup batch {i}"
    elif op == "swap":
        i, j = rng.sample(range(len(parts)), 2)
        parts[i], parts[j] = parts[j], parts[i]
        desc = f"swap batches {i},{j}"
    elif op == "drop":
        i = rng.randrange(len(parts))
        del parts[i]
        desc = f"drop batch {i}"
    elif op == "reverse":
        parts.reverse()
        desc = "reverse batches"
    else:
        parts = parts + parts
        desc = "all batches twice"
    return b"".join(parts) + rest, desc


def log_truncate(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str]:
    return truncate(rng, data, _boundaries(spans))


def log_zero(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str]:
    return zero_region(rng, data, [s.start for s in spans])


# --- synthesized batches, damaged behind a valid checksum ------------------------------
def _rand_bytes(rng: random.Random, allow_none: bool = True) -> bytes | None:
    if allow_none and rng.random() < 0.15:
        return None
    n = rng.choice([0, 1, 3, 8, 30, 200])
    return bytes(rng.getrandbits(8) for _ in range(n))


def random_records(rng: random.Random, n: int | None = None) -> list[w.Rec]:
    n = rng.randint(1, 6) if n is None else n
    recs = []
    for i in range(n):
        hdrs: list[tuple[bytes | str, bytes | None]] = [
            (_rand_bytes(rng, False) or b"", _rand_bytes(rng)) for _ in range(rng.choice([0, 0, 1, 3]))]
        recs.append(w.Rec(_rand_bytes(rng), _rand_bytes(rng), hdrs,
                          timestamp=w.DEFAULT_TIMESTAMP + rng.randint(-5, 50) if rng.random() < 0.7 else None,
                          offset_delta=None if rng.random() < 0.9 else i * 2))
    return recs


def mutate_raw(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    """Damage an uncompressed records area (or inner message set)."""
    r = rng.random()
    fields = record_fields(raw, 0, len(raw))
    if r < 0.5 and fields:
        name, pos, n = rng.choice(fields)
        new = random_varint(rng)
        return raw[:pos] + new + raw[pos + n :], f"inner {name}@{pos}={new.hex()}"
    if r < 0.65:
        return truncate(rng, raw)
    if r < 0.8:
        return bitflip(rng, raw)
    if r < 0.9:
        return raw + bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 20))), "inner trailing bytes"
    return insert(rng, raw)


def compress(rng: random.Random, codec: int, raw: bytes, magic: int) -> tuple[bytes, str]:
    framing = rng.choice(["xerial", "raw"]) if codec == w.SNAPPY else "xerial"
    area = w.compress(codec, raw, snappy_framing=framing, lz4_broken_hc=magic == 0,
                      lz4_block_checksum=rng.random() < 0.3)
    return area, CODEC_NAMES[codec] + (f"/{framing}" if codec == w.SNAPPY else "")


def replace_area(template: bytes, area: bytes) -> bytes:
    """A writer-built v2 batch with its records area swapped for ``area``; length and
    CRC fixed."""
    b = bytearray(template[:61] + area)
    fix_v2(b)
    return bytes(b)


def synth_v2(rng: random.Random, base_offset: int) -> tuple[bytes, str]:
    recs = random_records(rng)
    codec = rng.choice([w.NONE, w.GZIP, w.SNAPPY, w.LZ4, w.ZSTD])
    kw = dict(base_offset=base_offset, partition_leader_epoch=rng.choice([0, 3, -1]),
              producer_id=rng.choice([-1, 5, 1 << 40]), producer_epoch=rng.choice([-1, 0, 2]),
              base_sequence=rng.choice([-1, 0, (1 << 31) - 2]),
              transactional=rng.random() < 0.2, control=rng.random() < 0.1,
              log_append_time=w.DEFAULT_TIMESTAMP if rng.random() < 0.1 else None)
    template = w.v2_batch(recs, **kw)  # type: ignore[arg-type]
    raw = template[61:]
    desc = "synth v2"
    if rng.random() < 0.85:
        raw, d = mutate_raw(rng, raw)
        desc += f" [{d}]"
    area, cdesc = compress(rng, codec, raw, 2) if codec != w.NONE else (raw, "none")
    b = bytearray(replace_area(template, area))
    struct.pack_into(">h", b, 21, (struct.unpack_from(">h", b, 21)[0] & ~7) | codec)
    fix_v2(b)
    return bytes(b), f"{desc} codec={cdesc}"


def synth_legacy(rng: random.Random, last_offset: int) -> tuple[bytes, str]:
    magic = rng.choice([0, 1])
    codec = rng.choice([w.GZIP, w.SNAPPY, w.LZ4])
    msgs = [w.Rec(_rand_bytes(rng), _rand_bytes(rng), timestamp=w.DEFAULT_TIMESTAMP + i)
            for i in range(rng.randint(1, 5))]
    inner = b"".join(
        w.legacy_message(magic, m.key, m.value, offset=i if magic == 1 else last_offset - len(msgs) + 1 + i,
                         timestamp=m.timestamp or -1)
        for i, m in enumerate(msgs))
    r = rng.random()
    if r < 0.3:
        inner, d = truncate(rng, inner, [len(inner) - 1, 12, 17, 26])
    elif r < 0.5:
        spans = frame(inner)
        if spans:
            s = rng.choice(spans)
            name, off, fmt = rng.choice(legacy_fields(inner, s))
            b = bytearray(inner)
            struct.pack_into(">" + fmt, b, s.start + off, pick_int(rng, fmt, 0, len(inner)))
            inner, d = bytes(b), f"inner {name}"
        else:
            d = "none"
    elif r < 0.6:
        # a compressed inner message (nested wrapper)
        inner = w.legacy_compressed(magic, msgs, last_offset=len(msgs) - 1, codec=codec)
        d = "nested wrapper"
    elif r < 0.7:
        inner, d = b"", "empty inner set"
    elif r < 0.85:
        inner, d = bitflip(rng, inner)
    else:
        d = "intact"
    area, cdesc = compress(rng, codec, inner, magic)
    entry = w.legacy_message(magic, None, area, offset=last_offset,
                             timestamp=w.DEFAULT_TIMESTAMP, codec=codec,
                             log_append_time=magic == 1 and rng.random() < 0.2)
    return entry, f"synth legacy magic {magic} codec={cdesc} [{d}]"


def synth_inflating(rng: random.Random, base_offset: int) -> tuple[bytes, str]:
    """A small compressed batch that inflates a lot (a few MB: fuzz-sized bombs), or
    holds very many tiny records."""
    codec = rng.choice([w.GZIP, w.SNAPPY, w.LZ4, w.ZSTD])
    if rng.random() < 0.5:
        n = rng.choice([1, 3, 6]) << 20
        raw = bytes(n)
        d = f"{n} zero bytes"
        count = 1
    else:
        one = w.encode_record_v2(w.Rec(None, b""), w.DEFAULT_TIMESTAMP, 0)
        count = rng.choice([500, 2000])
        raw = one * count
        d = f"{count} tiny records"
    template = w.v2_batch([w.Rec(None, b"")], base_offset=base_offset, records_count=count,
                          last_offset_delta=0)
    area, cdesc = compress(rng, codec, raw, 2)
    b = bytearray(replace_area(template, area))
    struct.pack_into(">h", b, 21, codec)
    fix_v2(b)
    return bytes(b), f"inflating batch ({d}) codec={cdesc}"


def log_synth(rng: random.Random, data: bytes, spans: list[Span]) -> tuple[bytes, str]:
    """Replace a batch (or append one) by a synthesized, damaged one with a valid CRC."""
    if spans and rng.random() < 0.7:
        i = rng.randrange(len(spans))
        s = spans[i]
        base = struct.unpack_from(">q", data, s.start)[0]
    else:
        s = None
        base = 10**4
    r = rng.random()
    if r < 0.6:
        batch, d = synth_v2(rng, base)
    elif r < 0.9:
        batch, d = synth_legacy(rng, base)
    else:
        batch, d = synth_inflating(rng, base)
    if s is None:
        return data + batch, f"append {d}"
    return data[: s.start] + batch + data[s.end :], f"replace batch at {s.start} by {d}"


LOG_MUTATORS: list[tuple[float, Callable[..., tuple[bytes, str] | None]]] = [
    (3, log_header_int), (3, log_record_varint), (1, log_records_count), (2, log_batches),
    (3, log_truncate), (1.5, log_zero), (3, log_synth),
]


def mutate_log(rng: random.Random, data: bytes, donor: bytes) -> tuple[bytes, str]:
    spans = frame(data)
    r = rng.random()
    if spans and r < 0.7:
        fn = _weighted(rng, LOG_MUTATORS)
        res = fn(rng, data, spans)
        if res is not None:
            out, desc = res
            if rng.random() < 0.15:  # and one more
                out, d2 = generic(rng, out, donor, "log")
                desc += " ; " + d2
            return out, desc
    return generic(rng, data, donor, "log")


def _weighted(rng: random.Random, table: list[tuple[float, Callable[..., object]]]) -> Callable[..., object]:
    total = sum(wt for wt, _ in table)
    x = rng.random() * total
    for wt, fn in table:
        x -= wt
        if x <= 0:
            return fn
    return table[-1][1]


def generic(rng: random.Random, data: bytes, donor: bytes, kind: str) -> tuple[bytes, str]:
    op = rng.choice(["bitflip", "bitflip", "byteset", "truncate", "zero", "insert", "delete",
                     "splice", "append", "append"])
    if op == "bitflip":
        return bitflip(rng, data)
    if op == "byteset":
        return byteset(rng, data)
    if op == "truncate":
        return truncate(rng, data)
    if op == "zero":
        return zero_region(rng, data)
    if op == "insert":
        return insert(rng, data)
    if op == "delete":
        return delete(rng, data)
    if op == "splice":
        return splice(rng, data, donor if rng.random() < 0.5 else data)
    return append(rng, data, kind)


# ---------------------------------------------------------------------------------------
# indexes, txn index, producer snapshots
# ---------------------------------------------------------------------------------------
ENTRY_LAYOUTS = {
    "offset-index": (8, [(0, "i"), (4, "i")]),
    "time-index": (12, [(0, "q"), (8, "i")]),
    "txn-index": (34, [(0, "h"), (2, "q"), (10, "q"), (18, "q"), (26, "q")]),
}


def mutate_entries(rng: random.Random, data: bytes, kind: str, donor: bytes) -> tuple[bytes, str]:
    size, fields = ENTRY_LAYOUTS[kind]
    n = len(data) // size
    r = rng.random()
    if n and r < 0.45:
        b = bytearray(data)
        k = rng.randrange(n)
        off, fmt = rng.choice(fields)
        old = struct.unpack_from(">" + fmt, b, k * size + off)[0]
        new = pick_int(rng, fmt, old, 100000)
        struct.pack_into(">" + fmt, b, k * size + off, new)
        return bytes(b), f"entry {k} @+{off} = {new}"
    if r < 0.55:
        slots = rng.choice([1, 3, 100, 5000])
        return data + bytes(size * slots), f"append {slots} zero slots"
    if n >= 2 and r < 0.65:
        entries = [data[i * size : (i + 1) * size] for i in range(n)]
        op = rng.choice(["shuffle", "dup", "reverse"])
        if op == "shuffle":
            rng.shuffle(entries)
        elif op == "dup":
            i = rng.randrange(n)
            entries.insert(i, entries[i])
        else:
            entries.reverse()
        return b"".join(entries) + data[n * size :], f"entries {op}"
    if r < 0.75:
        return truncate(rng, data, [k * size + d for k in range(n + 1) for d in (0, 1, size - 1)])
    if r < 0.8:
        # entries pointing everywhere
        k = rng.randint(1, 40)
        out = bytearray()
        for _ in range(k):
            for _off, fmt in fields:
                out += struct.pack(">" + fmt, pick_int(rng, fmt, 0, 10000))
        return bytes(out), f"{k} random entries"
    return generic(rng, data, donor, kind)


SNAPSHOT_FIELDS = [(0, "h"), (2, "I"), (6, "i")]
SNAPSHOT_ENTRY = [(0, "q"), (8, "h"), (10, "i"), (14, "q"), (22, "i"), (26, "q"), (34, "i"), (38, "q")]


def mutate_snapshot(rng: random.Random, data: bytes, donor: bytes) -> tuple[bytes, str]:
    r = rng.random()
    b = bytearray(data)
    if r < 0.5 and len(b) >= 10:
        n = (len(b) - 10) // 46
        if n and rng.random() < 0.6:
            k = rng.randrange(n)
            off, fmt = rng.choice(SNAPSHOT_ENTRY)
            at = 10 + 46 * k + off
            desc = f"entry {k} @+{off}"
        else:
            at, fmt = rng.choice(SNAPSHOT_FIELDS)
            desc = f"header @{at}"
        old = struct.unpack_from(">" + fmt, b, at)[0]
        new = pick_int(rng, fmt, old, len(b))
        struct.pack_into(">" + fmt, b, at, new)
        if at != 2 and rng.random() < 0.7:
            struct.pack_into(">I", b, 2, crc32c.crc32c(bytes(b[6:])))
            desc += "+crc"
        return bytes(b), f"{desc} = {new}"
    if r < 0.6 and len(b) >= 10:
        extra = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 45, 46, 92])))
        b += extra
        if rng.random() < 0.5:
            struct.pack_into(">i", b, 6, (len(b) - 10) // 46)
        struct.pack_into(">I", b, 2, crc32c.crc32c(bytes(b[6:])))
        return bytes(b), f"append {len(extra)} bytes +crc"
    return generic(rng, data, donor, "producer-snapshot")


# ---------------------------------------------------------------------------------------
# text files
# ---------------------------------------------------------------------------------------
def mutate_text(rng: random.Random, data: bytes, donor: bytes) -> tuple[bytes, str]:
    r = rng.random()
    lines = data.split(b"\n")
    if r < 0.15:
        i = rng.randrange(len(lines))
        del lines[i]
        return b"\n".join(lines), f"drop line {i}"
    if r < 0.25:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return b"\n".join(lines), f"dup line {i}"
    if r < 0.5:
        import re

        nums = list(re.finditer(rb"-?\d+", data))
        if nums:
            m = rng.choice(nums)
            new = rng.choice([b"-1", b"99999999999999999999999", b"9223372036854775808",
                              b"-9223372036854775809", b"1e9", b"0x10", b"", b"2147483648",
                              b"\xd9\xa3", b"NaN", b"00000000000000000000000001", b"+5"])
            return data[: m.start()] + new + data[m.end() :], f"number@{m.start()}={new!r}"
    if r < 0.6:
        what = rng.choice([b"\x00", b"\xff\xfe", b"\r", b"\r\n", b"\t", b"=", b":", b" ", b"\\",
                           b"\xc3", b"{", b"}", b"\"", b"#"])
        at = rng.randrange(len(data) + 1)
        return data[:at] + what + data[at:], f"insert {what!r}@{at}"
    if r < 0.65:
        return data + b"x" * rng.choice([1000, 200000]), "long line"
    if r < 0.7:
        return b"", "empty"
    if r < 0.75:
        return b"\n" * rng.choice([1, 3, 50000]), "newlines only"
    if r < 0.8:
        return b"0\n" + str(rng.choice([3, 100000, -1])).encode() + b"\n" + b"t 0 1\n0 0\n" * rng.choice(
            [1, 3, 1000]), "forged checkpoint"
    if r < 0.86:
        # what trips parsers: deep nesting, huge numbers, escapes that backtrack
        what = rng.choice([b"[" * 50000, b"{\"a\":" * 20000, b"1" * 6000, b"\\" * 80,
                           b"\\u12", b"\\\n" * 1000, b"=" * 5000, b"\x00" * 100])
        at = rng.randrange(len(data) + 1)
        return data[:at] + what + data[at:], f"parser trap {what[:8]!r}x{len(what)}@{at}"
    return generic(rng, data, donor, "text")
