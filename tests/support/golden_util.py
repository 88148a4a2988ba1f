"""Golden outputs of ``kdump dump``: fixtures, how they are run, how they are compared.

Every golden fixture is a directory built only with ``tests/writer.py`` (deterministic:
no clock, no randomness).  ``kdump dump`` runs with that directory as the working
directory and relative paths, so file names in the output are stable; absolute paths
(the stderr blocks DumpLogSegments keys by ``getAbsolutePath``) are replaced by ``<DIR>``.

``golden/dump/<fixture>.<format>`` holds stdout, then stderr and the exit code::

    <stdout>
    --- stderr ---
    <stderr>
    --- exit 0 ---

Run ``pytest tests --update-golden`` to rewrite them (then review the diff).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import writer as w

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "golden" / "dump"
FORMATS = ("text", "json", "table")

TS = w.DEFAULT_TIMESTAMP
#: KRaft FeatureLevelRecord frame (metadata.version = 21), FORMATS.md §16.7
FEATURE_LEVEL_FRAME = bytes.fromhex("010c00116d657461646174612e76657273696f6e001500")
VOTER_DIR_ID = bytes(range(16))


def seg(offset: int) -> str:
    return f"{offset:020d}"


# --------------------------------------------------------------------------------------
# fixture builders
# --------------------------------------------------------------------------------------


def build_sample(root: Path) -> None:
    w.write_sample_logdir(root)


def _plain_partition(d: Path, n_batches: int = 6, recs: int = 3) -> list[bytes]:
    """A partition whose .index has an entry for every batch after the first."""
    pw = w.PartitionWriter(d, index_interval_bytes=1)
    batches = []
    off = 0
    for b in range(n_batches):
        batch = w.v2_batch(
            [w.Rec(f"k{off + i}".encode(), f"v{off + i}".encode(), timestamp=TS + 10 * (off + i))
             for i in range(recs)],
            base_offset=off,
        )
        pw.append(batch)
        batches.append(batch)
        off += recs
        del b
    pw.close()
    return batches


def build_offset_index(root: Path) -> None:
    """Offset indexes: clean, preallocated (zero slots), mismatching, empty."""
    clean = root / "clean-0"
    _plain_partition(clean)
    # the same log with a preallocated index (trailing zero slots) and wrong entries
    bad = root / "bad-0"
    batches = _plain_partition(bad)
    sizes = [len(b) for b in batches]
    pos = [sum(sizes[:i]) for i in range(len(sizes))]
    (bad / f"{seg(0)}.index").write_bytes(
        w.offset_index([(5, pos[1]), (7, pos[2]), (11, pos[3]), (14, pos[5])],
                       preallocated_slots=4)
    )
    (bad / f"{seg(0)}.timeindex").unlink()
    (root / "empty-0").mkdir()
    (root / "empty-0" / f"{seg(0)}.index").write_bytes(b"")
    (root / "empty-0" / f"{seg(0)}.log").write_bytes(b"")


def build_time_index(root: Path) -> None:
    """Time indexes: clean, and one with every DumpLogSegments error."""
    clean = root / "clean-0"
    _plain_partition(clean)
    bad = root / "bad-0"
    _plain_partition(bad)
    # batches hold offsets 0-2, 3-5, ... 15-17 at timestamps TS + 10 * offset
    (bad / f"{seg(0)}.timeindex").write_bytes(
        w.time_index(
            [
                (TS + 20, 2),  # right
                (TS + 55, 5),  # timestamp mismatch (batch max is TS + 50)
                (TS + 40, 8),  # mismatch and out of order (not above TS + 55)
                (TS + 100, 10),  # 10 is not the last offset of a batch
                (TS + 170, 17),  # right
            ],
            preallocated_slots=2,
        )
    )


def build_txn_index(root: Path) -> None:
    d = root / "txn-0"
    d.mkdir(parents=True)
    (d / f"{seg(0)}.txnindex").write_bytes(
        w.txn_index([(1000, 10, 42, 10), (1001, 43, 50, 51), (7, 0, 9223372036854775807, -1)])
        + b"\x00" * 5  # a trailing partial entry (ignored by Kafka)
    )
    (d / f"{seg(100)}.txnindex").write_bytes(b"")


def build_producer_snapshot(root: Path) -> None:
    d = root / "snap-0"
    d.mkdir(parents=True)
    entries = [
        # FORMATS.md §16.6 entry: batch metadata, no transaction
        w.ProducerEntry(1000, epoch=2, last_sequence=9, last_offset=41, offset_delta=9,
                        timestamp=TS, coordinator_epoch=5, current_txn_first_offset=-1),
        # an ongoing transaction
        w.ProducerEntry(1001, epoch=0, last_sequence=4, last_offset=60, offset_delta=4,
                        timestamp=TS + 1, coordinator_epoch=-1, current_txn_first_offset=56),
        # no batch metadata (lastOffset -1): only the first part of the line
        w.ProducerEntry(1002, epoch=3, last_sequence=-1, last_offset=-1, offset_delta=0,
                        timestamp=TS + 2, coordinator_epoch=7, current_txn_first_offset=-1),
        # sequence wrapped past 2^31-1: firstSequence = lastSequence - offsetDelta, wrapping
        w.ProducerEntry(1003, epoch=1, last_sequence=2, last_offset=70, offset_delta=5,
                        timestamp=TS + 3, coordinator_epoch=-1, current_txn_first_offset=-1),
    ]
    (d / f"{seg(71)}.snapshot").write_bytes(w.producer_snapshot(entries))
    (d / f"{seg(0)}.snapshot").write_bytes(w.producer_snapshot([]))
    bad = w.producer_snapshot(entries[:1])
    (d / f"{seg(80)}.snapshot").write_bytes(bad[:-1] + bytes([bad[-1] ^ 0xFF]))


def build_kraft(root: Path) -> None:
    """A __cluster_metadata-0 partition, a snapshot, and bootstrap.checkpoint."""
    d = root / "__cluster_metadata-0"
    d.mkdir(parents=True)
    log = (
        w.kraft_control_batch(
            [(w.CONTROL_LEADER_CHANGE, w.leader_change_value(1, [1, 2, 3], [1, 2]))],
            base_offset=0, partition_leader_epoch=1)
        + w.kraft_control_batch(
            [(w.CONTROL_KRAFT_VERSION, w.kraft_version_value(1)),
             (w.CONTROL_KRAFT_VOTERS,
              w.voters_value([(1, VOTER_DIR_ID, [("CONTROLLER", "localhost", 9093)], 0, 1)]))],
            base_offset=1, partition_leader_epoch=1)
        + w.v2_batch([w.Rec(None, FEATURE_LEVEL_FRAME)], base_offset=3, partition_leader_epoch=1)
        + w.kraft_control_batch([(42, b"\x00\x00")], base_offset=4, partition_leader_epoch=1)
    )
    (d / f"{seg(0)}.log").write_bytes(log)
    snapshot = (
        w.kraft_control_batch([(w.CONTROL_SNAPSHOT_HEADER, w.snapshot_header_value(TS))],
                              partition_leader_epoch=3)
        + w.v2_batch([w.Rec(None, FEATURE_LEVEL_FRAME)], base_offset=1, partition_leader_epoch=3)
        + w.kraft_control_batch([(w.CONTROL_SNAPSHOT_FOOTER, w.snapshot_footer_value())],
                                base_offset=2, partition_leader_epoch=3)
    )
    (d / f"{seg(5)}-0000000003.checkpoint").write_bytes(snapshot)
    (root / "bootstrap.checkpoint").write_bytes(snapshot)


def build_metadata_files(root: Path) -> None:
    """Checkpoints, properties, markers, leftovers and an unknown file."""
    w.PartitionWriter(root / "topic-a-0").close()
    (root / "topic-a-0" / "leader-epoch-checkpoint").write_bytes(
        w.leader_epoch_checkpoint([(0, 0), (2, 17), (5, 40)]))
    (root / "topic-a-0" / "partition.metadata").write_bytes(
        w.partition_metadata(bytes.fromhex("0123456789abcdef0123456789abcdef")))
    ends = [("topic-a", 0, 0), ("other.topic", 12, 345)]
    for name in ("recovery-point-offset-checkpoint", "replication-offset-checkpoint",
                 "log-start-offset-checkpoint", "cleaner-offset-checkpoint"):
        (root / name).write_bytes(w.offset_checkpoint(ends))
    (root / "meta.properties").write_bytes(w.meta_properties(
        {"version": "0", "broker.id": "3", "cluster.id": "lRaQCIBoRh2xRKLuP9CAQg"}))
    (root / ".lock").write_bytes(b"")
    (root / ".kafka_cleanshutdown").write_bytes(b"")
    (root / "notes.txt").write_bytes(b"not Kafka's\n")


def build_damaged(root: Path) -> None:
    """One log with each kind of damage the walker resynchronises past."""
    d = root / "dmg-0"
    d.mkdir(parents=True)
    batches = [
        w.v2_batch([w.Rec(f"k{i}".encode(), f"v{i}".encode())], base_offset=i) for i in range(6)
    ]
    b = [bytearray(x) for x in batches]
    b[1][17] ^= 0xFF  # flipped CRC byte: framed, isvalid: false
    data = bytes(b[0] + b[1] + b[2]) + bytes(40) + bytes(b[3] + b[4]) + bytes(b[5][:30])
    (d / f"{seg(0)}.log").write_bytes(data)
    # a zero-filled tail (preallocated segment / unclean shutdown)
    (d / f"{seg(6)}.log").write_bytes(w.v2_batch([w.Rec(b"k", b"v")], base_offset=6) + bytes(100))


def build_kafka41(root: Path) -> None:
    """A Kafka 4.1 log dir's internal topics (tests/support/kafka4_fixtures.py)."""
    from tests.support import kafka4_fixtures as k4
    k4.build_kafka41(root)


def build_share40(root: Path) -> None:
    """Kafka 4.0-layout share-group state, no metadata (tests/support/kafka4_fixtures.py)."""
    from tests.support import kafka4_fixtures as k4
    k4.build_share40(root)


@dataclass(frozen=True)
class GoldenCase:
    name: str
    build: Callable[[Path], None]
    args: tuple[str, ...]
    formats: tuple[str, ...] = FORMATS
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)


GOLDEN_CASES: list[GoldenCase] = [
    GoldenCase("sample", build_sample, ("--print-data-log", ".")),
    GoldenCase("sample-shallow", build_sample, ("orders-0", "orders-1", "customers-0"),
               formats=("text", "json")),
    GoldenCase("offset-index", build_offset_index,
               ("clean-0/00000000000000000000.index", "bad-0/00000000000000000000.index",
                "empty-0/00000000000000000000.index")),
    GoldenCase("time-index", build_time_index,
               ("clean-0/00000000000000000000.timeindex", "bad-0/00000000000000000000.timeindex")),
    GoldenCase("txn-index", build_txn_index, ("txn-0",)),
    GoldenCase("producer-snapshot", build_producer_snapshot, ("snap-0",)),
    GoldenCase("kraft", build_kraft, ("--deep-iteration", "__cluster_metadata-0",
                                      "bootstrap.checkpoint")),
    GoldenCase("metadata-files", build_metadata_files, (".",)),
    GoldenCase("damaged", build_damaged, ("--deep-iteration", "dmg-0")),
    GoldenCase("kafka41", build_kafka41, ("--print-data-log", ".")),
    GoldenCase("share40", build_share40, ("--print-data-log", "."), formats=("text", "json")),
]


def case(name: str) -> GoldenCase:
    for c in GOLDEN_CASES:
        if c.name == name:
            return c
    raise KeyError(name)


# --------------------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------------------


def render(out: str, err: str, rc: int, root: Path) -> str:
    text = f"{out}--- stderr ---\n{err}--- exit {rc} ---\n"
    for p in {str(root), str(root.resolve())}:
        text = text.replace(p, "<DIR>")
    return text


def check_golden(name: str, actual: str, update: bool) -> None:
    """Compare ``actual`` with golden/dump/``name``; rewrite it under --update-golden."""
    import pytest

    path = GOLDEN_DIR / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"missing golden file {path.relative_to(REPO)}: run pytest --update-golden")
    expected = path.read_text(encoding="utf-8")
    if expected != actual:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"golden/dump/{name}", tofile="actual", n=2))
        pytest.fail(f"output differs from golden/dump/{name} "
                    f"(pytest --update-golden rewrites it):\n{diff}", pytrace=False)
