"""Fixtures of the search tests (test_search_core.py, test_search.py): small partitions
written by the project's encoder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import writer as w

SEG = "00000000000000000000.log"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """orders-0: three batches (the second gzip), JSON values, one binary key, headers;
    a second segment from offset 9."""
    d = tmp_path / "ld" / "orders-0"
    d.mkdir(parents=True)
    b0 = w.v2_batch([w.Rec(key=b"alpha", value=b'{"item": "apple", "n": 1}',
                           timestamp=w.TS0),
                     w.Rec(key=b"beta", value=b'{"item": "Banana", "n": 2}',
                           headers=[("trace", b"needle-h")], timestamp=w.TS0 + 1),
                     w.Rec(key=b"\xff\x00\x01", value=b"\x00\x01binary\xfe", timestamp=w.TS0 + 2)],
                    base_offset=0)
    b1 = w.v2_batch([w.Rec(key=b"gamma", value=b"a needle in a gzip", timestamp=w.TS0 + 3),
                     w.Rec(key=b"delta", value=b"plain", timestamp=w.TS0 + 4)],
                    base_offset=3, codec=w.GZIP)
    b2 = w.v2_batch([w.Rec(key=b"eps", value=b"needle third", timestamp=w.TS0 + 5)],
                    base_offset=5)
    (d / SEG).write_bytes(b0 + b1 + b2)
    (d / "00000000000000000009.log").write_bytes(
        w.v2_batch([w.Rec(key=b"zeta", value=b"NEEDLE upper", timestamp=w.TS0 + 9)],
                   base_offset=9))
    return d.parent


@pytest.fixture
def shop_damaged(shop: Path) -> dict[str, Any]:
    """shop, with one flipped bit in orders-0's first batch and a second partition with
    40 bytes of garbage over its second batch's header."""
    seg = shop / "orders-0" / SEG
    data = bytearray(seg.read_bytes())
    data[70] ^= 0x10
    seg.write_bytes(bytes(data))
    d = shop / "orders-1"
    d.mkdir()
    one = w.v2_batch([w.Rec(key=b"a", value=b"x" * 50, timestamp=w.TS0)], base_offset=0)
    two = w.v2_batch([w.Rec(key=b"b", value=b"y" * 50, timestamp=w.TS0)], base_offset=1)
    three = w.v2_batch([w.Rec(key=b"c", value=b"z" * 50, timestamp=w.TS0)], base_offset=2)
    junk = bytes(range(100, 140)) + two[40:]
    (d / SEG).write_bytes(one + junk + three)
    return {"dir": shop, "garbage": len(one)}


@pytest.fixture(scope="module")
def big24(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 24 MiB segment: keys k<offset>, 100 records a batch (~7.3 KB)."""
    root = tmp_path_factory.mktemp("bigsearch")
    w.big_segment(root / "big-0", 24 << 20)
    return root
