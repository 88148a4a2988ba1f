"""Hostile input: live data, Kafka's own leftovers, filesystem trouble, and the
regressions the fuzzer found.  Every fixture comes from tests/writer.py (or from
damaging its output); every command runs in-process through ``kdump.cli.main`` with the
inputs checked unchanged afterwards (the ``kdump`` fixture of conftest.py).
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

try:
    from tests import writer as w
except ImportError:  # pragma: no cover
    import writer as w  # type: ignore[no-redef, unused-ignore]

TS = w.DEFAULT_TIMESTAMP
LOG0 = "00000000000000000000.log"


def batch(base: int, n: int = 3, **kw: object) -> bytes:
    recs = [w.Rec(f"k{base + i}".encode(), f"v{base + i}".encode(), timestamp=TS + base + i)
            for i in range(n)]
    return w.v2_batch(recs, base_offset=base, **kw)  # type: ignore[arg-type]


def jsonl(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def problems(out: str) -> list[dict]:
    return [o for o in jsonl(out) if o.get("type") == "problem"]


def clean(r: object) -> None:
    err = r.err  # type: ignore[attr-defined]
    assert "Traceback" not in err and "internal error" not in err, err
    assert r.rc in (0, 1, 2)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------
# regressions found by the mutation fuzzer (tests/fuzz)
# ---------------------------------------------------------------------------------------
def test_rebuild_with_an_offset_too_far_from_the_segment_base(kdump, tmp_path: Path) -> None:
    """Fuzz case long1:10606: a batch whose offset lies more than 2^31 past its segment's
    base made ``verify-index --rebuild-into`` die packing the relative offset (struct
    error, 'internal error').  Kafka splits such a segment; kdump says so and writes the
    entries that fit."""
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(batch(0) + batch(10) + batch(1 << 40) + batch((1 << 40) + 5))
    out = tmp_path / "rebuilt"
    r = kdump("verify-index", "--rebuild-into", out, "--index-interval-bytes", "1",
              "--format", "json", d, watch=[d])
    clean(r)
    assert r.rc == 1
    p = [x for x in problems(r.out) if "LogSegmentOffsetOverflowException" in x["detail"]]
    assert p and p[0]["severity"] == "warning"
    rebuilt = (out / "t-0" / "00000000000000000000.index").read_bytes()
    assert [struct.unpack_from(">ii", rebuilt, i)[0] for i in range(0, len(rebuilt), 8)] == [12]


def test_a_fifo_is_refused_not_waited_on(kdump, tmp_path: Path) -> None:
    """Fuzz case ci:412: a FIFO with no writer in place of a segment hung every command
    (a blocking open)."""
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(batch(0))
    os.mkfifo(d / "00000000000000000003.log")
    for cmd in (["dump"], ["verify-crc"], ["verify-index"], ["size-report"]):
        r = kdump(*cmd, d, watch=[d])
        clean(r)
        assert r.rc == 2, (cmd, r.out, r.err)
        assert "not a regular file (a FIFO)" in r.out + r.err
    r = kdump("find-offset", d / "00000000000000000003.log", "3")
    clean(r)
    assert r.rc == 2
