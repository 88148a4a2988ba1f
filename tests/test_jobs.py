"""``--jobs N``: the same output, byte for byte, and the same exit code as ``--jobs 1``,
on a log dir of many segments with damage in some of them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

try:
    from tests import writer as w
    from tests.conftest import KdumpRunner
except ImportError:  # pragma: no cover
    import writer as w  # type: ignore[no-redef, unused-ignore]
    from conftest import KdumpRunner  # type: ignore[no-redef, unused-ignore]

from kdump.parallel import default_jobs, ordered_map


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log dir plus 3 partitions of 5 segments each; one segment with a bad
    CRC, one cut short, one index pointing past its log."""
    root = tmp_path_factory.mktemp("jobs") / "logdir"
    w.write_sample_logdir(root)
    for p in range(3):
        pw = w.PartitionWriter(root / f"events-{p}", segment_bytes=1500, index_interval_bytes=500)
        for b in range(40):
            recs = [w.Rec(key=b"k%d" % (b * 5 + i), value=b"v" * (20 + i), timestamp=w.TS0 + b)
                    for i in range(5)]
            pw.append(w.v2_batch(recs, base_offset=b * 5, codec=(w.NONE, w.LZ4, w.ZSTD)[p]))
        pw.close()
    logs = sorted((root / "events-0").glob("*.log"))
    assert len(logs) >= 5
    data = bytearray(logs[1].read_bytes())
    data[100] ^= 0xFF
    logs[1].write_bytes(bytes(data))
    logs2 = sorted((root / "events-2").glob("*.log"))
    logs2[2].write_bytes(logs2[2].read_bytes()[:-30])
    idx = sorted((root / "events-1").glob("*.index"))[1]
    shutil.copy(sorted((root / "events-1").glob("*.index"))[0], idx)
    return root


CASES = [
    ["verify-crc", "--format", "json"],
    ["verify-crc", "--format", "text"],
    ["verify-crc", "--format", "text", "--shallow"],
    ["verify-index", "--format", "json"],
    ["verify-index", "--format", "text"],
    ["size-report", "--format", "json", "--by", "segment"],
    ["size-report", "--format", "text"],
    ["dump", "--format", "json"],
    ["dump", "--format", "json", "--print-data-log", "--payload-encoding", "hex"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a) for a in CASES])
def test_jobs_output_identical(kdump: KdumpRunner, many: Path, args: list[str]) -> None:
    one = kdump(*args, "--jobs", "1", str(many))
    assert one.out
    for n in ("2", "3"):
        other = kdump(*args, "--jobs", n, str(many))
        assert (other.rc, other.out, other.err) == (one.rc, one.out, one.err)
    # the default (the number of cores) too
    default = kdump(*args, str(many))
    assert (default.rc, default.out) == (one.rc, one.out)
    if args[0] in ("verify-crc", "verify-index"):
        assert one.rc == 1


def test_jobs_rejects_zero(kdump: KdumpRunner, many: Path) -> None:
    r = kdump("verify-crc", "--jobs", "0", str(many))
    assert r.rc == 2 and "--jobs" in r.err


def _square(x: int) -> int:
    return x * x


def test_ordered_map_keeps_order_and_passes_others_through() -> None:
    items: list[object] = ["a", 1, 2, "b", 3, 4, 5, 6, 7, "c", 8, 9, 10, 11]
    want = [x * x if isinstance(x, int) else x for x in items]
    for jobs in (1, 2, 3):
        got = list(ordered_map(_square, items, jobs, lambda x: isinstance(x, int)))
        assert got == want
    # a single unit of work: no pool
    assert list(ordered_map(_square, ["x", 3, "y"], 4, lambda x: isinstance(x, int))) == ["x", 9, "y"]
    # work done in this process (jobs 1, or a single item) takes the streaming variant
    assert list(ordered_map(_square, ["x", 3], 4, lambda x: isinstance(x, int),
                            inline=lambda x: -x)) == ["x", -3]
    assert list(ordered_map(_square, [2, 3], 1, lambda x: True, inline=lambda x: -x)) == [-2, -3]
    assert list(ordered_map(_square, [2, 3], 2, lambda x: True, inline=lambda x: -x)) == [4, 9]
    assert default_jobs() >= 1


def test_spilled_findings_come_back_in_order_and_leave_no_file(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """A worker's findings past SPILL_AFTER go to a private temporary file, not memory."""
    import kdump.parallel as par

    monkeypatch.setattr(par, "SPILL_AFTER", 3)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    s = par.Spilled(iter(range(10)))
    assert s.count == 10 and len(s.head) == 3
    assert len(list(tmp_path.iterdir())) == 1
    assert list(s) == list(range(10))
    assert list(tmp_path.iterdir()) == []
