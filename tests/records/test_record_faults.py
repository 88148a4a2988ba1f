"""Every record-level fault, named alike by ``dump`` and ``verify-crc``.

One batch per fault code of :mod:`kdump.records.faults` (CRC valid, records malformed
with the project's encoder), after one intact batch.  Both commands, on the native
walker and on the pure-Python one (``KDUMP_PURE_PYTHON=1``), must report the same
finding: same kind, byte position, batch base offset and words, and exactly the words
written here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdump.records.cheader import main as cheader_main
from kdump.records.faults import MESSAGES, Fault
from tests.support.writer import ZSTD, Rec, encode_record_v2, v2_batch, varint, varlong

TS = 1_700_000_000_000
RECORD_KINDS = {"invalid-record", "record-count", "record-too-large"}


def _rec(i: int) -> bytes:
    return encode_record_v2(Rec(f"k{i}".encode(), b"value"), TS, i)


def _body(*parts: bytes) -> bytes:
    """A record: its length varint, then the parts as given."""
    body = b"".join(parts)
    return varint(len(body)) + body


_HEAD = bytes([0]) + varlong(0) + varint(1)  # attributes, timestampDelta, offsetDelta 1

#: code -> (records area, records_count, codec, extra options, expected detail)
CASES: dict[Fault, tuple[bytes, int, int, list[str], str]] = {
    Fault.COUNT_SHORT: (_rec(0) + _rec(1) + _rec(2), 5, 0, [],
                        "record 3 (byte 187): batch declares 5 records but its data ends "
                        "after 3"),
    Fault.BYTES_REMAIN: (_rec(0) + _rec(1) + _rec(2), 2, 0, [],
                         "record 2 (byte 173): 14 bytes remain after the 2 records the "
                         "batch declares"),
    Fault.COUNT_NEGATIVE: (_rec(0), -1, 0, [],
                           "record 0 (byte 145): negative records count -1"),
    Fault.LENGTH_INVALID: (_rec(0) + varint(3) + b"abc", 2, 0, [],
                           "record 1 (byte 159): invalid record length 3"),
    Fault.LENGTH_PAST_END: (_rec(0) + varint(100) + bytes(10), 2, 0, [],
                            "record 1 (byte 159): record length 100 runs past the end of "
                            "the records (10 bytes left)"),
    Fault.VARINT_PAST_END: (_rec(0) + _body(bytes([0]) + b"\x80" * 6), 2, 0, [],
                            "record 1 (byte 159): varint runs past the end of the record"),
    Fault.VARINT_TOO_LONG: (_rec(0) + _body(bytes([0]) + b"\xff" * 11), 2, 0, [],
                            "record 1 (byte 159): varint is longer than 10 bytes"),
    Fault.KEY_PAST_END: (_rec(0) + _body(_HEAD + varint(63) + b"abc" + varint(-1) + varint(0)),
                         2, 0, [], "record 1 (byte 159): key length 63 runs past the record"),
    Fault.VALUE_PAST_END: (_rec(0) + _body(_HEAD + varint(-1) + varint(40) + b"abc"), 2, 0,
                           [], "record 1 (byte 159): value length 40 runs past the record"),
    Fault.HEADER_COUNT_NEGATIVE: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1)
                                                  + varint(-2)), 2, 0, [],
                                  "record 1 (byte 159): invalid number of record headers -2"),
    Fault.HEADER_KEY_NEGATIVE: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1) + varint(1)
                                                + varint(-3) + varint(-1)), 2, 0, [],
                                "record 1 (byte 159): invalid header key length -3"),
    Fault.HEADER_KEY_PAST_END: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1) + varint(1)
                                                + varint(50) + b"h"), 2, 0, [],
                                "record 1 (byte 159): header key length 50 runs past the "
                                "record"),
    Fault.HEADER_VALUE_PAST_END: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1) + varint(1)
                                                  + varint(1) + b"h" + varint(9) + b"v"),
                                  2, 0, [],
                                  "record 1 (byte 159): header value length 9 runs past the "
                                  "record"),
    Fault.BODY_SIZE: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1) + varint(0) + b"xy"),
                      2, 0, [],
                      "record 1 (byte 159): record body declares 8 bytes but its fields "
                      "take 6"),
    Fault.TOO_MANY_HEADERS: (_rec(0) + _body(_HEAD + varint(-1) + varint(-1) + varint(9)
                                             + (varint(0) + varint(-1)) * 9), 2, 0,
                             ["--max-batch-bytes", "256"],
                             "record 1 (byte 159): the batch's records hold more than 8 "
                             "headers, the most --max-batch-bytes 256 allows (32 bytes "
                             "each); raise --max-batch-bytes to read them"),
}

#: the same faults inside a compressed batch: positions in the decompressed payload
COMPRESSED = {
    Fault.COUNT_SHORT: "record 3 (decompressed byte 42): batch declares 5 records but its "
                       "data ends after 3",
    Fault.KEY_PAST_END: "record 1 (decompressed byte 14): key length 63 runs past the record",
}


def test_every_fault_has_a_case_and_words() -> None:
    assert set(CASES) == set(Fault) == set(MESSAGES)


def test_c_header_is_current() -> None:
    """kdump/_layouts.h is what python -m kdump.records.cheader writes."""
    assert cheader_main(["--check"]) == 0


def _write(root: Path, fault: Fault, codec: int) -> Path:
    area, count, _, _, _ = CASES[fault]
    part = root / "orders-0"
    part.mkdir(parents=True)
    good = v2_batch([Rec(b"k", b"v"), Rec(b"k2", b"value")])
    bad = v2_batch([Rec(b"k", b"v")] * 2, base_offset=2, raw_records=area, records_count=count,
                   codec=codec, last_offset_delta=1)
    (part / "00000000000000000000.log").write_bytes(good + bad)
    return part


def _findings(argv: list[str], pure: bool) -> tuple[int, list[tuple[object, ...]]]:
    env = dict(os.environ)
    env.pop("KDUMP_PURE_PYTHON", None)
    if pure:
        env["KDUMP_PURE_PYTHON"] = "1"
    proc = subprocess.run([sys.executable, "-m", "kdump", *argv, "--format", "json"],
                          capture_output=True, text=True, env=env, check=False)
    out = []
    for line in proc.stdout.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "problem" and obj["kind"] in RECORD_KINDS:
            out.append((obj["kind"], obj["position"], obj["base_offset"], obj["detail"]))
    return proc.returncode, out


_PARAMS = [pytest.param(f, 0, id=f.name) for f in Fault] + [
    pytest.param(f, ZSTD, id=f"{f.name}-zstd") for f in COMPRESSED]


@pytest.mark.parametrize("pure", [False, True], ids=["native", "pure-python"])
@pytest.mark.parametrize(("fault", "codec"), _PARAMS)
def test_dump_and_verify_name_a_fault_alike(tmp_path: Path, fault: Fault, codec: int,
                                            pure: bool) -> None:
    part = _write(tmp_path, fault, codec)
    extra = CASES[fault][3]
    want_detail = COMPRESSED[fault] if codec else CASES[fault][4]
    # the intact batch takes 84 bytes; the bad one's records start at 84 + 61 = 145 and
    # each record of _rec is 14 bytes
    want = [(MESSAGES[fault][0], 84, 2, want_detail)]
    rc_dump, dumped = _findings(["dump", "--print-data-log", *extra, str(part)], pure)
    rc_verify, verified = _findings(["verify-crc", *extra, str(part)], pure)
    assert dumped == want
    assert verified == want
    assert rc_dump == rc_verify == 1
