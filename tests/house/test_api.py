"""The public library API (kdump/__init__.py): its docstring example runs as written."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import kdump
from tests.support.writer import ZSTD, Rec, v2_batch


@pytest.fixture
def orders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    part = tmp_path / "orders-0"
    part.mkdir()
    first = v2_batch([Rec(b"k0", b"v0"), Rec(b"k1", b"v1")])
    second = v2_batch([Rec(b"k2", b"v2")], base_offset=2, codec=ZSTD)
    (part / "00000000000000000000.log").write_bytes(first + second)
    monkeypatch.chdir(tmp_path)
    return part


def test_the_docstring_example_runs(orders: Path) -> None:
    result = doctest.testmod(kdump, optionflags=doctest.ELLIPSIS, raise_on_error=False)
    assert result.attempted == 5
    assert result.failed == 0


def test_damage_is_a_problem_not_an_exception(orders: Path) -> None:
    log = orders / "00000000000000000000.log"
    data = bytearray(log.read_bytes())
    data[70] ^= 0xFF  # inside the first batch's records: its CRC-32C fails
    log.write_bytes(bytes(data))
    items = list(kdump.iter_batches(str(orders)))
    assert [type(i).__name__ for i in items] == ["RecordBatch", "RecordBatch"]
    result = kdump.verify(str(orders))
    assert not result.clean
    assert [(p.kind, p.position, p.detail) for p in result.problems] == [
        ("crc-mismatch", 0, "stored CRC-32C 3648801381 does not match the computed 3655528022")]
