"""Issue 18: small crafted inputs that expand to many objects stay under 300 MB.

A 572-byte zstd batch holding one record with 7.8 million empty headers (15.6 MB
decompressed, under the 16 MiB --max-batch-bytes), and a few-hundred-byte
``__transaction_state`` batch whose one value declares millions of partitions.  Each
command runs in a fresh child of a fresh Python, whose RUSAGE_CHILDREN peak RSS is
then exactly that command's.  Both are reported as ``record-too-large`` (exit 1),
naming --max-batch-bytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import message_writer as sw
from tests.support.writer import ZSTD, Rec, v2_batch, varint, varlong

LIMIT_MB = 300
HEADERS = 7_800_000
PARTITIONS = 3_900_000

_MEASURE = """
import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + "\\n")
sys.stdout.write(str(p.returncode) + "\\n")
sys.stdout.write(p.stdout.decode("utf-8", "replace"))
"""

TXN_VALUE = sw.parse_many(
    """
TransactionLogValue versions=0-1 flexible=1+
  producerId int64
  producerEpoch int16
  transactionTimeoutMs int32
  transactionStatus int8
  transactionPartitions [] null=0+
    topic string
    partitionIds []int32
  transactionLastUpdateTimestampMs int64
  transactionStartTimestampMs int64
"""
)["TransactionLogValue"]


def _run(argv: list[str]) -> tuple[int, int, str]:
    """(peak RSS in MB, exit code, stdout) of ``kdump argv``."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "kdump", *argv],
                         capture_output=True, text=True, check=True).stdout
    rss_kb, rc, rest = out.split("\n", 2)
    return int(rss_kb) // 1024, int(rc), rest


@pytest.fixture(scope="module")
def header_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    body = (bytes([0]) + varlong(0) + varint(0) + varint(-1) + varint(-1) + varint(HEADERS)
            + b"\x00\x00" * HEADERS)  # each header: empty key, empty value
    batch = v2_batch([Rec(None, None)], codec=ZSTD, raw_records=varint(len(body)) + body)
    assert len(batch) < 1024 and len(body) < 16 << 20
    part = tmp_path_factory.mktemp("bomb") / "orders-0"
    part.mkdir()
    (part / "00000000000000000000.log").write_bytes(batch)
    return part


@pytest.fixture(scope="module")
def txn_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # TransactionLogValue v0 (Ongoing) with one topic of PARTITIONS partition ids:
    # partitionIds is written as its int32 count then PARTITIONS zero int32s
    small = sw.encode(TXN_VALUE, {
        "producerId": 1000, "producerEpoch": 2, "transactionTimeoutMs": 60000,
        "transactionStatus": 1, "transactionPartitions": [{"topic": "t", "partitionIds": []}],
        "transactionLastUpdateTimestampMs": 1, "transactionStartTimestampMs": 1}, 0)
    empty_ids = (0).to_bytes(4, "big") + (1).to_bytes(8, "big") * 2  # count 0, timestamps
    head = small[: len(small) - len(empty_ids)]
    value = (0).to_bytes(2, "big") + head + PARTITIONS.to_bytes(4, "big") \
        + bytes(4 * PARTITIONS) + (1).to_bytes(8, "big") * 2
    key = (0).to_bytes(2, "big") + sw.encode(
        sw.parse("TransactionLogKey versions=0\n  transactionalId string v=0\n"),
        {"transactionalId": "txn"}, 0)
    batch = v2_batch([Rec(key, value)], codec=ZSTD)
    assert len(batch) < 1024
    part = tmp_path_factory.mktemp("txn") / "__transaction_state-0"
    part.mkdir()
    (part / "00000000000000000000.log").write_bytes(batch)
    return part


def _too_large(stdout: str) -> list[str]:
    return [o["detail"] for o in map(json.loads, stdout.splitlines())
            if o.get("type") == "problem" and o["kind"] == "record-too-large"]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["dump", "--print-data-log"],
    ["dump", "--print-data-log", "--format", "json"],
], ids=["dump-text", "dump-json"])
def test_header_bomb_dump(header_bomb: Path, argv: list[str]) -> None:
    rss, rc, out = _run([*argv, str(header_bomb)])
    assert rss < LIMIT_MB, rss
    assert rc == 1
    if "json" in argv:
        assert _too_large(out) == [
            "record 0 (decompressed byte 0): the batch's records hold more than 524288 "
            "headers, the most --max-batch-bytes 16777216 allows (32 bytes each); raise "
            "--max-batch-bytes to read them"]


@pytest.mark.slow
def test_header_bomb_find_offset(header_bomb: Path) -> None:
    """The record cannot be read (exit 1), and a note says why."""
    rss, rc, out = _run(["find-offset", str(header_bomb), "0", "--print-data-log",
                         "--format", "json"])
    assert rss < LIMIT_MB, rss
    assert rc == 1
    (answer,) = map(json.loads, out.splitlines())
    assert answer["notes"][-1] == (
        "records of the batch at byte 0 cannot be read: record 0 (decompressed byte 0): the batch's "
        "records hold more than 524288 headers, the most --max-batch-bytes 16777216 allows "
        "(32 bytes each); raise --max-batch-bytes to read them")


@pytest.mark.slow
def test_header_bomb_verify(header_bomb: Path) -> None:
    rss, rc, out = _run(["verify-crc", "--format", "json", str(header_bomb)])
    assert rss < LIMIT_MB, rss
    assert rc == 1
    assert len(_too_large(out)) == 1


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_transaction_state_bomb(txn_bomb: Path, fmt: str) -> None:
    rss, rc, out = _run(["dump", "--print-data-log", "--transaction-log-decoder",
                         "--format", fmt, str(txn_bomb)])
    assert rss < LIMIT_MB, rss
    assert rc == 1
    if fmt == "json":
        assert _too_large(out) == [
            "the record decodes to more than 524288 elements, the most --max-batch-bytes "
            "16777216 allows (32 bytes each; an array declares 3900000); raise "
            "--max-batch-bytes to read it"]
