"""Decompression bombs and lying length fields: memory stays bounded.

Each bomb is a writer-built batch (v2, or a magic 0/1 wrapper) whose compressed
records are swapped for a small payload that inflates to ``BOMB_BYTES`` (512 MiB):
gzip, zstd, lz4 (64 KiB blocks repeated), snappy in snappy-java's xerial framing
(32 KiB chunks repeated) and raw snappy (a block whose length preamble claims 512 MiB).
An intact batch follows each bomb.  kdump runs in a subprocess; its peak RSS (the
process's own VmHWM) must stay under ``RSS_LIMIT_MB`` while it reports the bomb
(``batch-too-large``, or a decompression error) and still reads the batch after it.

Then inputs whose length fields claim far more than exists (2 GiB batches, records,
keys, values, headers, record counts, snapshot entry counts): nothing may be
allocated for bytes that are not there.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import zstandard

from tests.support import writer as w

BOMB_BYTES = 512 << 20
RSS_LIMIT_MB = 300
#: a lying length must not cost more than the interpreter and kdump's modules
SMALL_RSS_LIMIT_MB = 100
_CHUNK = 1 << 20
REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------
# bomb payloads, built in bounded memory
# ---------------------------------------------------------------------------------------
def gzip_bomb(n: int) -> bytes:
    """What w.gzip_compress(bytes(n)) writes, compressed a chunk at a time."""
    header = w.gzip_compress(b"")[:10]
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    zero = bytes(_CHUNK)
    parts = [header]
    crc = 0
    for _ in range(n // _CHUNK):
        parts.append(co.compress(zero))
        crc = zlib.crc32(zero, crc)
    parts.append(co.flush())
    parts.append(struct.pack("<II", crc & 0xFFFFFFFF, n & 0xFFFFFFFF))
    return b"".join(parts)


def zstd_bomb(n: int) -> bytes:
    cobj = zstandard.ZstdCompressor(level=3, write_content_size=False).compressobj()
    zero = bytes(_CHUNK)
    return b"".join([*(cobj.compress(zero) for _ in range(n // _CHUNK)), cobj.flush()])


def lz4_bomb(n: int, *, broken_hc: bool = False) -> bytes:
    """w.lz4_frame of one 64 KiB zero block, the block repeated n / 64 KiB times."""
    frame = w.lz4_frame(bytes(1 << 16), broken_hc=broken_hc)
    header, block, end = frame[:7], frame[7:-4], frame[-4:]
    return header + block * (n >> 16) + end


def xerial_bomb(n: int) -> bytes:
    """w.snappy_compress of one 32 KiB zero chunk, the chunk repeated."""
    one = w.snappy_compress(bytes(w.XERIAL_BLOCK_SIZE))
    header, chunk = one[:16], one[16:]
    return header + chunk * (n // w.XERIAL_BLOCK_SIZE)


def raw_snappy_bomb(n: int) -> bytes:
    """A raw snappy block whose length preamble claims ``n`` bytes."""
    block = w.snappy_compress(bytes(1 << 16), "raw")
    preamble_end = next(i for i, b in enumerate(block) if b < 0x80) + 1
    return w.uvarint(n) + block[preamble_end:]


BOMBS = {
    "gzip": (w.GZIP, gzip_bomb),
    "zstd": (w.ZSTD, zstd_bomb),
    "lz4": (w.LZ4, lz4_bomb),
    "snappy-xerial": (w.SNAPPY, xerial_bomb),
    "snappy-raw": (w.SNAPPY, raw_snappy_bomb),
}


def v2_bomb(codec: int, area: bytes) -> bytes:
    """w.v2_batch's batch with its records area replaced (length and CRC fixed)."""
    b = bytearray(w.v2_batch([w.Rec(None, b"x")], base_offset=0, codec=codec)[:61] + area)
    struct.pack_into(">i", b, 8, len(b) - 12)
    import crc32c

    struct.pack_into(">I", b, 17, crc32c.crc32c(bytes(b[21:])))
    return bytes(b)


def legacy_bomb(magic: int, codec: int, area: bytes) -> bytes:
    return w.legacy_message(magic, None, area, offset=0, timestamp=w.DEFAULT_TIMESTAMP,
                            codec=codec)


AFTER = w.v2_batch([w.Rec(b"after", b"the bomb")], base_offset=1)


# ---------------------------------------------------------------------------------------
# running kdump with its peak RSS measured
# ---------------------------------------------------------------------------------------
#: runs kdump's entry point and, at exit, writes the process's own peak RSS (VmHWM of
#: /proc/self/status).  ru_maxrss from wait4 would not do: Linux carries the high-water
#: mark of the image that exec replaced, i.e. the forking pytest process, into the child.
_LAUNCH = (
    "import atexit, os, runpy, sys\n"
    "def _hwm():\n"
    "    with open('/proc/self/status') as f:\n"
    "        kb = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))\n"
    "    with open(os.environ['KDUMP_TEST_HWM'], 'w') as f:\n"
    "        f.write(str(kb))\n"
    "atexit.register(_hwm)\n"
    "sys.argv[0] = 'kdump'\n"
    "runpy.run_module('kdump', run_name='__main__', alter_sys=True)\n"
)


def run_measured(args: list[str], cwd: Path, env: dict[str, str] | None = None
                 ) -> tuple[int, str, str, float]:
    """``kdump ARGS`` in a subprocess: exit status, stdout, stderr, peak RSS in MB."""
    hwm = cwd / ".hwm"
    p = subprocess.run([sys.executable, "-c", _LAUNCH, *args], cwd=cwd, capture_output=True,
                       text=True, env={**os.environ, **(env or {}), "KDUMP_TEST_HWM": str(hwm)})
    rss = int(hwm.read_text()) / 1024
    hwm.unlink()
    return p.returncode, p.stdout, p.stderr, rss


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One partition directory per bomb: the bomb batch, then an intact batch."""
    root = tmp_path_factory.mktemp("bombs")
    out: dict[str, Path] = {}
    for name, (codec, build) in BOMBS.items():
        area = build(BOMB_BYTES)
        entries = {f"v2-{name}": v2_bomb(codec, area)}
        if name != "zstd":  # zstd does not exist below magic 2
            for magic in (0, 1):
                legacy_area = lz4_bomb(BOMB_BYTES, broken_hc=True) if (
                    name == "lz4" and magic == 0) else area
                entries[f"v{magic}-{name}"] = legacy_bomb(magic, codec, legacy_area)
        for key, entry in entries.items():
            d = root / key / "bomb-0"
            d.mkdir(parents=True)
            (d / "00000000000000000000.log").write_bytes(entry + AFTER)
            out[key] = d
    return out


CASES = [f"v2-{n}" for n in BOMBS] + [f"v{m}-{n}" for m in (0, 1) for n in BOMBS if n != "zstd"]
MEASURED: dict[str, float] = {}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_bomb_dump_print_data_log(case: str, bombs: dict[str, Path]) -> None:
    d = bombs[case]
    rc, out, err, rss = run_measured(["dump", "--print-data-log", str(d)], d.parent)
    MEASURED[f"{case} dump"] = rss
    print(f"{case}: dump --print-data-log peak RSS {rss:.0f} MB")
    assert rc == 1, (rc, err)
    assert "Traceback" not in err and "internal error" not in err
    assert "batch-too-large" in err or "decompression-error" in err, err
    assert "position: 0" in err or "position 0" in err, err
    assert "key: after payload: the bomb" in out, out[-2000:]  # and reading went on
    assert rss < RSS_LIMIT_MB, f"{case}: peak RSS {rss:.0f} MB"


@pytest.mark.slow
@pytest.mark.parametrize("case", ["v2-gzip", "v2-zstd", "v2-lz4", "v2-snappy-xerial",
                                  "v1-gzip", "v0-lz4"])
@pytest.mark.parametrize("command", [["verify-crc"], ["size-report"],
                                     ["dump", "--format", "json", "--deep-iteration"],
                                     ["find-offset", "--print-data-log"]])
def test_bomb_other_commands(case: str, command: list[str], bombs: dict[str, Path]) -> None:
    d = bombs[case]
    args = [*command, str(d)] + (["0"] if command[0] == "find-offset" else [])
    rc, out, err, rss = run_measured(args, d.parent)
    print(f"{case}: {' '.join(command)} peak RSS {rss:.0f} MB")
    assert rc in (0, 1), (rc, err)
    assert "Traceback" not in err and "internal error" not in err
    if command[0] in ("verify-crc", "dump"):
        assert rc == 1 and "batch-too-large" in out + err, out + err
    assert rss < RSS_LIMIT_MB, f"{case} {command}: peak RSS {rss:.0f} MB"


def test_a_smaller_limit_is_honoured(bombs: dict[str, Path]) -> None:
    d = bombs["v2-gzip"]
    rc, _out, err, rss = run_measured(["verify-crc", "--max-batch-bytes", "8M", str(d)], d.parent)
    assert rc == 1 and "exceeds the limit of 8388608 bytes" in err + _out
    assert rss < SMALL_RSS_LIMIT_MB, rss


@pytest.mark.slow
@pytest.mark.parametrize("value", [b"v", b"\xff", "\u20ac".encode()], ids=["ascii", "invalid-utf8", "euro"])
def test_a_payload_that_fits_is_read(tmp_path: Path, value: bytes) -> None:
    """A real value just under the default limit, printed every way: read whole, and
    memory still bounded (the payload, the value, its text and the output line)."""
    from kdump.records.v2 import DEFAULT_MAX_BATCH_BYTES

    big = value * ((DEFAULT_MAX_BATCH_BYTES - 4096) // len(value))
    d = tmp_path / "big-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(
        w.v2_batch([w.Rec(b"k", big)], codec=w.ZSTD) + AFTER)
    size_mb = len(big) >> 20
    del big
    for args in (["dump", "--print-data-log"], ["dump", "--format", "json", "--print-data-log"],
                 ["dump", "--format", "json", "--print-data-log", "--payload-encoding", "hex"],
                 ["dump", "--format", "table", "--print-data-log"],
                 ["dump", "--print-data-log", "--value-decoder", "hex"], ["verify-crc"]):
        rc, _out, err, rss = run_measured([*args, str(d)], tmp_path)
        print(f"{size_mb} MiB value ({value!r}): {' '.join(args)} peak RSS {rss:.0f} MB")
        assert rc == 0, err
        assert rss < RSS_LIMIT_MB, f"{args}: {rss:.0f} MB"


# ---------------------------------------------------------------------------------------
# record amplification: a small batch holding very many tiny records
# ---------------------------------------------------------------------------------------
TINY_RECORDS = 150_000


@pytest.fixture(scope="module")
def tiny_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 KB gzip batch of 150,000 seven-byte records (all at offset delta 0, so every
    record is also a non-consecutive offset), then an intact batch."""
    import crc32c

    one = w.encode_record_v2(w.Rec(None, b""), w.DEFAULT_TIMESTAMP, 0)
    b = bytearray(w.v2_batch([w.Rec(None, b"")], codec=w.GZIP)[:61]
                  + w.gzip_compress(one * TINY_RECORDS))
    struct.pack_into(">i", b, 8, len(b) - 12)
    struct.pack_into(">i", b, 57, TINY_RECORDS)
    struct.pack_into(">I", b, 17, crc32c.crc32c(bytes(b[21:])))
    d = tmp_path_factory.mktemp("tiny") / "tiny-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(bytes(b) + AFTER)
    return d


@pytest.mark.slow
@pytest.mark.parametrize("args", [["dump", "--deep-iteration"],
                                  ["dump", "--print-data-log", "--format", "json"],
                                  ["verify-crc"], ["size-report"], ["find-offset", "--print-data-log"]])
def test_many_tiny_records_cost_a_chunk_not_a_batch(args: list[str], tiny_records: Path) -> None:
    """dump built every record of a batch (and every finding about them) before showing
    any: this 2 KB batch took 1.8 GB with two million records.  Records now go to the
    renderer RECORD_CHUNK at a time and DumpLogSegments' deferred lists are capped."""
    extra = ["0"] if args[0] == "find-offset" else []
    rc, out, err, rss = run_measured([*args, str(tiny_records), *extra], tiny_records.parent)
    print(f"{TINY_RECORDS} tiny records: {' '.join(args)} peak RSS {rss:.0f} MB")
    assert rc in (0, 1) and "Traceback" not in err and "internal error" not in err, err
    if args[0] == "dump":
        assert out.count("offset") >= TINY_RECORDS or out.count('"record"') >= TINY_RECORDS
        assert "baseOffset: 1 " in out or '"base_offset":1,' in out  # the batch after it
    assert rss < SMALL_RSS_LIMIT_MB, f"{args}: {rss:.0f} MB"


@pytest.fixture(scope="module")
def tiny_legacy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A magic 1 gzip wrapper of 150,000 empty inner messages (26 bytes each)."""
    inner = w.legacy_message(1, None, b"", offset=0, timestamp=1) * TINY_RECORDS
    d = tmp_path_factory.mktemp("tinylegacy") / "tiny-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(
        w.legacy_message(1, None, w.gzip_compress(inner), offset=TINY_RECORDS, timestamp=1,
                         codec=w.GZIP) + AFTER)
    return d


@pytest.mark.parametrize("args", [["verify-crc"], ["find-offset"], ["dump", "--deep-iteration"]])
def test_a_wrapper_of_many_tiny_messages_is_read_one_at_a_time(args: list[str],
                                                              tiny_legacy: Path) -> None:
    """The inner messages of a v0/v1 wrapper were all built before the first was
    returned (magic 1 offsets need the last one): 191 MB for a 300,000-message wrapper.  A first
    pass now finds the end and the last offset without building records."""
    extra = ["7"] if args[0] == "find-offset" else []
    rc, _out, err, rss = run_measured([*args, str(tiny_legacy), *extra], tiny_legacy.parent)
    print(f"wrapper of {TINY_RECORDS} messages: {' '.join(args)} peak RSS {rss:.0f} MB")
    assert rc in (0, 1) and "Traceback" not in err and "internal error" not in err, err
    assert rss < 60, f"{args}: {rss:.0f} MB"  # it was 95 MB (verify-crc) to 240 MB (dump)


# ---------------------------------------------------------------------------------------
# a batch stored larger than the limit
# ---------------------------------------------------------------------------------------
def test_a_huge_uncompressed_batch_is_never_held_whole(tmp_path: Path) -> None:
    """A 200 MB uncompressed batch (one value, valid CRC) was read into memory whole by
    every command (425 MB of RSS for a 400 MB batch, 2 GB with --print-data-log).  A
    batch stored larger than --max-batch-bytes is now framed from its header, its CRC
    computed a chunk at a time, and its records reported as batch-too-large."""
    import crc32c

    size = 200 << 20
    d = tmp_path / "huge-0"
    d.mkdir()
    head = bytes([0]) + w.varlong(0) + w.varint(0) + w.varint(-1) + w.varint(size)
    tail = w.varint(0)
    rec = w.varint(len(head) + size + len(tail)) + head
    hdr = bytearray(w.v2_batch([w.Rec(None, b"")])[:61])
    struct.pack_into(">i", hdr, 8, 49 + len(rec) + size + len(tail))
    crc = crc32c.crc32c(rec, crc32c.crc32c(bytes(hdr[21:])))
    zero = bytes(_CHUNK)
    for _ in range(size // _CHUNK):
        crc = crc32c.crc32c(zero, crc)
    struct.pack_into(">I", hdr, 17, crc32c.crc32c(tail, crc))
    with open(d / "00000000000000000000.log", "wb") as fh:
        fh.write(hdr + rec)
        for _ in range(size // _CHUNK):
            fh.write(zero)
        fh.write(tail + AFTER)
    for args in (["dump", "--print-data-log"], ["verify-crc"], ["size-report"],
                 ["verify-index"], ["find-offset", "--print-data-log"]):
        extra = ["1"] if args[0] == "find-offset" else []
        rc, out, err, rss = run_measured([*args, str(d), *extra], tmp_path)
        print(f"200 MB uncompressed batch: {' '.join(args)} peak RSS {rss:.0f} MB")
        assert rc in (0, 1) and "Traceback" not in err and "internal error" not in err, err
        if args[0] in ("dump", "verify-crc"):
            assert rc == 1 and "batch-too-large" in out + err
            assert "crc-mismatch" not in out + err  # the CRC was computed, and it matches
        assert rss < SMALL_RSS_LIMIT_MB, f"{args}: {rss:.0f} MB"
    assert "isvalid: true" in run_measured(["dump", str(d)], tmp_path)[1]


# ---------------------------------------------------------------------------------------
# big indexes
# ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_verify_index_holds_a_big_index_compactly(tmp_path: Path) -> None:
    """verify-index loaded every used index entry as an object, plus a dict of them by
    position: a full 10 MiB .index and .timeindex took 692 MB.  Entries are now two
    arrays per index, merged with the batches by position and offset (94 MB for that
    pair; 250,000 entries each here)."""
    d = tmp_path / "idx-0"
    d.mkdir()
    batches = [w.v2_batch([w.Rec(b"k", b"v")], base_offset=i) for i in range(200)]
    positions = []
    p = 0
    for b in batches:
        positions.append(p)
        p += len(b)
    (d / "00000000000000000000.log").write_bytes(b"".join(batches))
    n = 250_000
    # every entry names a batch: the first 200 where it is, the rest the last one (out of
    # order), so the check is exercised without a finding per entry
    (d / "00000000000000000000.index").write_bytes(w.offset_index(
        [(i, positions[i]) for i in range(200)] + [(199, positions[199])] * (n - 200)))
    (d / "00000000000000000000.timeindex").write_bytes(w.time_index(
        [(w.DEFAULT_TIMESTAMP, i) for i in range(200)] + [(w.DEFAULT_TIMESTAMP, 199)] * (n - 200)))
    rc, _out, err, rss = run_measured(["verify-index", "--format", "json", str(d)], tmp_path)
    print(f"{n} entries per index: verify-index peak RSS {rss:.0f} MB")
    assert rc == 1 and "Traceback" not in err and "internal error" not in err, err
    assert rss < SMALL_RSS_LIMIT_MB, f"{rss:.0f} MB"


@pytest.mark.slow
def test_verify_index_streams_a_big_txn_index(tmp_path: Path) -> None:
    """verify-index read a whole .txnindex into a list of entries and a dict: a 96 MB
    one took 491 MB.  Entries are now streamed twice (those the log's ABORT markers
    explain, then the others).  Here 900,000 copies of the one right entry."""
    d = tmp_path / "txn-0"
    d.mkdir()
    data = (w.v2_batch([w.Rec(b"k", b"v")], producer_id=7, producer_epoch=0, base_sequence=0,
                       transactional=True)
            + w.end_txn_marker_batch(False, base_offset=1, producer_id=7, producer_epoch=0,
                                     coordinator_epoch=1))
    (d / "00000000000000000000.log").write_bytes(data)
    (d / "00000000000000000000.txnindex").write_bytes(w.txn_index([(7, 0, 1, 2)]) * 900_000)
    rc, out, err, rss = run_measured(["verify-index", "--format", "json", str(d)], tmp_path)
    print(f"900,000 txn index entries: verify-index peak RSS {rss:.0f} MB")
    assert rc in (0, 1) and "Traceback" not in err and "internal error" not in err, err
    assert '"kind":"txn-index"' not in out, out[-2000:]
    assert rss < SMALL_RSS_LIMIT_MB, f"{rss:.0f} MB"


@pytest.mark.slow
def test_a_checkpoint_of_millions_of_lines_is_read_a_line_at_a_time(tmp_path: Path) -> None:
    """A 3 MB recovery-point-offset-checkpoint of 500,000 't 0 0' lines: the file was
    decoded whole, split into a list of lines and kept as a list of entries (3.5 GB
    for 58 MB); dump and verify-index now read it a line at a time."""
    lines = 500_000
    (tmp_path / "recovery-point-offset-checkpoint").write_bytes(
        b"0\n%d\n" % lines + b"t 0 0\n" * lines)
    for args in (["dump", "--format", "json", str(tmp_path / "recovery-point-offset-checkpoint")],
                 ["verify-index", "--format", "json", str(tmp_path)]):
        rc, _out, err, rss = run_measured(args, tmp_path)
        print(f"{lines} checkpoint lines: {args[0]} peak RSS {rss:.0f} MB")
        assert rc == 0, err
        assert rss < SMALL_RSS_LIMIT_MB, f"{args}: {rss:.0f} MB"


@pytest.mark.slow
def test_a_big_producer_snapshot_is_not_an_object_per_producer(tmp_path: Path) -> None:
    """A producer snapshot became a list of entry objects: 641 MB for 191 MB.  Entries
    are now unpacked from the file's bytes when asked for, and a snapshot past 128 MiB
    is not read (Kafka reads one whole too).  30 MB here, about 650,000 producers."""
    d = tmp_path / "snap-0"
    d.mkdir()
    n = 30_000_000 // w.PRODUCER_ENTRY_SIZE
    (d / "00000000000000000000.snapshot").write_bytes(
        w.producer_snapshot([w.ProducerEntry(1, 0, 0, 0)] * n))
    (d / "00000000000000000000.log").write_bytes(b"")
    rc, _out, err, rss = run_measured(["verify-index", str(d)], tmp_path)
    print(f"{n} producer entries: verify-index peak RSS {rss:.0f} MB")
    assert rc == 0 and "Traceback" not in err and "internal error" not in err, err
    assert rss < 75, f"{rss:.0f} MB"


# ---------------------------------------------------------------------------------------
# lying lengths: nothing allocated for bytes that are not there
# ---------------------------------------------------------------------------------------
_LAUNCH_MANY = (
    "import io, json, os, sys\n"
    "from contextlib import redirect_stdout, redirect_stderr\n"
    "import kdump.cli\n"
    "codes = []\n"
    "for args in json.loads(sys.argv[1]):\n"
    "    out, err = io.StringIO(), io.StringIO()\n"
    "    try:\n"
    "        with redirect_stdout(out), redirect_stderr(err):\n"
    "            kdump.cli.main(args)\n"
    "    except SystemExit as e:\n"
    "        codes.append([e.code, 'Traceback' in err.getvalue() or 'internal error' in err.getvalue()])\n"
    "with open('/proc/self/status') as f:\n"
    "    kb = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))\n"
    "print(json.dumps([codes, kb]))\n"
)
INT32_MAX = (1 << 31) - 1


def _patched(entry: bytes, at: int, fmt: str, value: int, fix_crc: bool = True) -> bytes:
    import crc32c

    b = bytearray(entry)
    struct.pack_into(fmt, b, at, value)
    if fix_crc and b[16] == 2:
        struct.pack_into(">I", b, 17, crc32c.crc32c(bytes(b[21:])))
    elif fix_crc:
        struct.pack_into(">I", b, 12, zlib.crc32(bytes(b[16:])) & 0xFFFFFFFF)
    return bytes(b)


def _record_varint(value: int, field: int) -> bytes:
    """A batch of one record whose ``field``-th varint (0 length, 1 timestamp delta,
    2 offset delta, 3 key length, 4 value length, 5 header count) claims ``value``."""
    import crc32c

    fields = [w.varlong(0), w.varint(0), w.varint(1), b"k", w.varint(1), b"v", w.varint(0)]
    slot = {1: 0, 2: 1, 3: 2, 4: 4, 5: 6}
    if field in slot:
        fields[slot[field]] = w.varint(value) if field != 1 else w.varlong(value)
    body = b"\x00" + b"".join(fields)
    rec = (w.varint(value) if field == 0 else w.varint(len(body))) + body
    b = bytearray(w.v2_batch([w.Rec(b"k", b"v")])[:61] + rec)
    struct.pack_into(">i", b, 8, len(b) - 12)
    struct.pack_into(">I", b, 17, crc32c.crc32c(bytes(b[21:])))
    return bytes(b)


LIARS = {
    "batch size 2 GiB": _patched(w.v2_batch([w.Rec(b"k", b"v")]), 8, ">i", INT32_MAX),
    "batch size 2 GiB, active": _patched(w.v2_batch([w.Rec(b"k", b"v")]), 8, ">i", INT32_MAX),
    "legacy size 2 GiB": _patched(w.legacy_message(1, b"k", b"v", timestamp=1), 8, ">i", INT32_MAX),
    "records count 2^31-1": _patched(w.v2_batch([w.Rec(b"k", b"v")]), 57, ">i", INT32_MAX),
    "records count 2^31-1, zstd": _patched(w.v2_batch([w.Rec(b"k", b"v")], codec=w.ZSTD), 57,
                                          ">i", INT32_MAX),
    "last offset delta 2^31-1": _patched(w.v2_batch([w.Rec(b"k", b"v")]), 23, ">i", INT32_MAX),
    "record length 2^31-1": _record_varint(INT32_MAX, 0),
    "key length 2^31-1": _record_varint(INT32_MAX, 3),
    "value length 2^31-1": _record_varint(INT32_MAX, 4),
    "header count 2^31-1": _record_varint(INT32_MAX, 5),
    "legacy key length 2^31-1": _patched(w.legacy_message(1, b"k", b"v", timestamp=1), 26, ">i",
                                         INT32_MAX),
    "legacy value length 2^31-1": _patched(w.legacy_message(1, b"k", b"v", timestamp=1), 31,
                                           ">i", INT32_MAX),
    "xerial chunk 2 GiB": v2_bomb(w.SNAPPY, w.snappy_compress(b"x" * 100)[:16]
                                  + struct.pack(">I", 1 << 31) + b"\x00" * 8),
    "lz4 block 2 GiB": v2_bomb(w.LZ4, w.lz4_frame(b"x" * 100)[:7] + struct.pack("<I", INT32_MAX)
                               + b"\x00" * 8),
    "raw snappy claims 2 GiB": v2_bomb(w.SNAPPY, w.uvarint(1 << 31) + b"\x00"),
}


@pytest.mark.parametrize("name", list(LIARS))
def test_a_length_claiming_2_gib_allocates_nothing(tmp_path: Path, name: str) -> None:
    import json

    d = tmp_path / "t-0"
    d.mkdir()
    log = "00000000000000000000.log" if "active" in name else "00000000000000000005.log"
    if "active" not in name:  # an older segment, followed by the active one
        (d / "00000000000000000009.log").write_bytes(w.v2_batch([w.Rec(b"k", b"v")],
                                                                base_offset=9))
    (d / log).write_bytes(LIARS[name] + AFTER)
    if "active" in name:
        (d / log).write_bytes(LIARS[name])
    (d / "00000000000000000009.snapshot").write_bytes(
        _patched(w.producer_snapshot([w.ProducerEntry(1)]), 6, ">i", INT32_MAX, fix_crc=False))
    runs = [["dump", "--print-data-log", str(d)], ["dump", "--format", "json", "--deep-iteration",
                                                   str(d)],
            ["verify-crc", str(d)], ["verify-index", str(d)], ["size-report", str(d)],
            ["find-offset", "--print-data-log", str(d), "1"]]
    p = subprocess.run([sys.executable, "-c", _LAUNCH_MANY, json.dumps(runs)], cwd=tmp_path,
                       capture_output=True, text=True)
    codes, kb = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"{name}: exit {[c for c, _ in codes]}, peak RSS {kb / 1024:.0f} MB")
    assert all(c in (0, 1, 2) and not crashed for c, crashed in codes), codes
    assert kb / 1024 < 60, f"{name}: {kb / 1024:.0f} MB"


@pytest.mark.parametrize("window_log", [27, 31])
def test_a_zstd_frame_with_a_huge_window(tmp_path: Path, window_log: int) -> None:
    """A zstd bomb whose frame declares a 128 MiB window (zstd's default decoding
    limit; a level-22 Kafka producer writes such frames), and one declaring 2 GiB (refused
    by the decoder: a decompression error).  300 MiB of zeros."""
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=27,
                                                            write_content_size=False)
    cobj = zstandard.ZstdCompressor(compression_params=params).compressobj()
    zero = bytes(_CHUNK)
    area = bytearray(b"".join([*(cobj.compress(zero) for _ in range(300)), cobj.flush()]))
    area[5] = (window_log - 10) << 3  # the window descriptor: exponent, no mantissa
    d = tmp_path / "z-0"
    d.mkdir()
    (d / "00000000000000000000.log").write_bytes(v2_bomb(w.ZSTD, bytes(area)) + AFTER)
    rc, out, err, rss = run_measured(["dump", "--print-data-log", str(d)], tmp_path)
    print(f"zstd window 2^{window_log}: peak RSS {rss:.0f} MB")
    assert rc == 1 and "Traceback" not in err and "internal error" not in err, err
    assert ("batch-too-large" if window_log == 27 else "decompression-error") in err
    assert "key: after payload: the bomb" in out
    assert rss < RSS_LIMIT_MB


def test_snappy_limit_message_names_the_configured_limit() -> None:
    """A xerial stream stopped in its fourth 32 KiB chunk: the message names the limit
    given (100,000), not what was left of it (1,696)."""
    from kdump.codecs import unsnappy
    from kdump.errors import LimitExceeded

    with pytest.raises(LimitExceeded) as e:
        unsnappy(xerial_bomb(4 * w.XERIAL_BLOCK_SIZE), 100_000)
    assert e.value.message == "decompressed payload exceeds the limit of 100000 bytes"
