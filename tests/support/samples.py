"""The sample data: the sample log dir (orders-0, orders-1, customers-0), one big
segment, a tiered-storage copy, and the command line ``python tests/writer.py`` runs
(sample, big, replicas, schemas)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.support.batches import Rec, end_txn_marker_batch, legacy_compressed, legacy_message, v2_batch
from tests.support.encoding import _INT32_MAX, GZIP, LZ4, NONE, SNAPPY, TS0, ZSTD, uuid_str
from tests.support.files import leader_epoch_checkpoint, meta_properties, offset_checkpoint, producer_snapshot
from tests.support.logdirs import replicas_pair
from tests.support.segments import PartitionWriter

# --------------------------------------------------------------------------------------------
# Sample log dir and big segment
# --------------------------------------------------------------------------------------------

ORDERS_TOPIC_ID = bytes.fromhex("6f726465727300000000000000000001")
CUSTOMERS_TOPIC_ID = bytes.fromhex("637573746f6d65727300000000000002")
CLUSTER_ID = uuid_str(bytes.fromhex("4b646d7053616d706c65436c75737472"))
DIRECTORY_ID = uuid_str(bytes.fromhex("4b646d704c6f674469725f3030303031"))


def _order_value(n: int) -> bytes:
    return (
        f'{{"order_id":{n},"customer":"c-{n % 7:03d}","amount_cents":{(n * 137) % 10000},'
        f'"items":["sku-{n % 13}","sku-{(n * 3) % 17}"],"note":"{"x" * (n % 23)}"}}'
    ).encode()


class _Producer:
    """Small helper that assigns offsets / sequences the way a broker + producer would."""

    def __init__(self, writer: PartitionWriter) -> None:
        self.w = writer
        self.seq: dict[int, int] = {}

    @property
    def next_offset(self) -> int:
        return self.w.log_end_offset

    def batch(self, records: list[Rec], *, pid: int = -1, epoch: int = -1, **kw: Any) -> int:
        base = self.next_offset
        seq = -1
        if pid >= 0:
            seq = self.seq.get(pid, 0)
            self.seq[pid] = seq + len(records)
        data = v2_batch(
            records,
            base_offset=base,
            producer_id=pid,
            producer_epoch=epoch,
            base_sequence=seq,
            **kw,
        )
        self.w.append(data)
        return base

    def marker(self, commit: bool, *, pid: int, epoch: int, coord: int, ple: int, ts: int) -> int:
        base = self.next_offset
        self.w.append(
            end_txn_marker_batch(
                commit,
                base_offset=base,
                producer_id=pid,
                producer_epoch=epoch,
                coordinator_epoch=coord,
                partition_leader_epoch=ple,
                timestamp=ts,
            )
        )
        return base


def _orders_records(start: int, n: int, ts: int, *, headers: bool = True) -> list[Rec]:
    recs = []
    for i in range(n):
        k = start + i
        hdrs: list[tuple[bytes | str, bytes | None]] = []
        if headers:
            hdrs = [("source", b"web" if k % 2 else b"mobile"), ("trace-id", f"t-{k:06x}".encode())]
            if k % 5 == 0:
                hdrs.append(("retry", None))
        recs.append(
            Rec(
                key=f"order-{k}".encode(),
                value=_order_value(k),
                headers=hdrs,
                timestamp=ts + i * 10,
            )
        )
    return recs


def _write_orders_0(root: Path) -> tuple[int, int]:
    d = root / "orders-0"
    w = PartitionWriter(d, segment_bytes=8192, snapshot_on_roll=True)
    p = _Producer(w)
    ts = TS0
    # plain batches, epoch 0
    for b in range(12):
        recs = _orders_records(p.next_offset, 5, ts)
        if b == 3:
            recs[1].key = None  # null key
        if b == 4:
            recs[2].value = None  # tombstone
            recs[3].headers = []
        p.batch(recs, partition_leader_epoch=0)
        ts += 1000
    # one batch of each codec
    p.batch(_orders_records(p.next_offset, 8, ts), codec=GZIP, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=LZ4, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=ZSTD, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=SNAPPY, partition_leader_epoch=0)
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        codec=SNAPPY,
        snappy_framing="raw",
        partition_leader_epoch=0,
    )
    ts += 1000
    # leader epoch 1: idempotent producer, a late batch (older timestamps), LogAppendTime
    for _ in range(3):
        p.batch(_orders_records(p.next_offset, 6, ts), pid=2000, epoch=0, partition_leader_epoch=1)
        ts += 1000
    p.batch(_orders_records(p.next_offset, 3, TS0 - 60000), partition_leader_epoch=1)
    p.batch(
        _orders_records(p.next_offset, 3, ts - 500), log_append_time=ts, partition_leader_epoch=1
    )
    ts += 1000
    # transactions, leader epoch 3 (epoch 2 never appended anything here)
    ple = 3
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        codec=LZ4,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.marker(True, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)  # COMMIT
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )  # txn to be aborted
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 2, ts),
        pid=1001,
        epoch=7,
        transactional=True,
        partition_leader_epoch=ple,
    )  # another producer's txn, still open at the abort
    ts += 100
    p.batch(_orders_records(p.next_offset, 3, ts), partition_leader_epoch=ple)
    ts += 100
    p.marker(False, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)  # ABORT -> txnindex, LSO = 1001's
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 2, ts),
        pid=1001,
        epoch=7,
        transactional=True,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.marker(True, pid=1001, epoch=7, coord=6, ple=ple, ts=ts)
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )  # aborted with no concurrent txn -> LSO = marker + 1
    ts += 100
    p.marker(False, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)
    ts += 1000
    for _ in range(3):
        p.batch(_orders_records(p.next_offset, 5, ts), partition_leader_epoch=ple)
        ts += 1000
    w.write_producer_snapshot()
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(ORDERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 0


def _write_orders_1(root: Path) -> tuple[int, int]:
    """Format-upgrade history: magic 0, then magic 1, then v2 batches."""
    d = root / "orders-1"
    w = PartitionWriter(d, segment_bytes=8192, index_interval_bytes=1024)
    off = 0

    def msgs(n: int, ts: int | None) -> list[Rec]:
        return [
            Rec(
                key=f"legacy-{off + i}".encode(),
                value=_order_value(off + i),
                timestamp=None if ts is None else ts + i,
            )
            for i in range(n)
        ]

    for _ in range(3):
        w.append(legacy_message(0, f"legacy-{off}".encode(), _order_value(off), offset=off))
        off += 1
    w.append(legacy_message(0, None, b"v0 message with null key", offset=off))
    off += 1
    w.append(legacy_compressed(0, msgs(4, None), last_offset=off + 3, codec=GZIP))
    off += 4
    w.append(legacy_compressed(0, msgs(3, None), last_offset=off + 2, codec=LZ4))  # broken HC
    off += 3
    w.append(legacy_compressed(0, msgs(3, None), last_offset=off + 2, codec=SNAPPY))
    off += 3
    ts = TS0 - 3_600_000
    for _ in range(3):
        w.append(
            legacy_message(1, f"legacy-{off}".encode(), _order_value(off), offset=off, timestamp=ts)
        )
        off += 1
        ts += 1000
    w.append(
        legacy_message(
            1, b"lat", b"stamped by the broker", offset=off, timestamp=ts, log_append_time=True
        )
    )
    off += 1
    ts += 1000
    w.append(legacy_compressed(1, msgs(5, ts), last_offset=off + 4, codec=SNAPPY))
    off += 5
    ts += 1000
    w.append(legacy_compressed(1, msgs(4, ts), last_offset=off + 3, codec=GZIP))
    off += 4
    ts += 1000
    w.append(
        legacy_compressed(
            1,
            msgs(4, ts),
            last_offset=off + 3,
            codec=LZ4,
            wrapper_timestamp=ts + 5000,
            log_append_time=True,
        )
    )
    off += 4
    w.roll()  # the upgrade to message format v2 happened with a restart
    p = _Producer(w)
    ts = TS0
    for b in range(10):
        p.batch(
            _orders_records(p.next_offset, 4, ts, headers=b % 2 == 0),
            partition_leader_epoch=2 if b < 6 else 4,
            codec=[NONE, GZIP, ZSTD][b % 3],
        )
        ts += 1000
    w.write_producer_snapshot()  # no producers: the 10-byte empty snapshot
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(ORDERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 2  # log start offset moved by DeleteRecords


def _write_customers_0(root: Path) -> tuple[int, int]:
    """A compacted, partially cleaned partition: offset gaps, an empty batch, a delete horizon."""
    d = root / "customers-0"
    w = PartitionWriter(d, segment_bytes=4096, index_interval_bytes=512)
    ts = TS0

    def cust(n: int, v: bytes | None, t: int, od: int | None = None) -> Rec:
        return Rec(key=f"customer-{n}".encode(), value=v, timestamp=t, offset_delta=od)

    # cleaned segment: surviving records keep their offsets (gaps inside and between batches)
    w.append(
        v2_batch(
            [cust(1, b'{"name":"Ada"}', ts, 0), cust(2, b'{"name":"Bob"}', ts + 5, 3)],
            base_offset=0,
            last_offset_delta=4,
        )
    )
    w.append(
        v2_batch(
            [],
            base_offset=5,
            last_offset_delta=2,
            producer_id=3000,
            producer_epoch=1,
            base_sequence=0,
            max_timestamp=ts + 20,
        )
    )  # emptied by the cleaner
    w.append(
        v2_batch(
            [cust(3, None, ts + 30, 1)],
            base_offset=8,
            last_offset_delta=1,
            delete_horizon_ms=ts + 86_400_000,
        )
    )  # tombstone kept until the horizon
    w.append(v2_batch([cust(4, b'{"name":"Dee"}', ts + 40)], base_offset=12))
    p = _Producer(w)
    w.roll()
    ts += 60_000
    for b in range(30):
        n = b % 6
        val = None if b % 11 == 10 else f'{{"name":"customer {n}","rev":{b}}}'.encode()
        p.batch([cust(n, val, ts)], partition_leader_epoch=0)
        ts += 250
    w.write_producer_snapshot()
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(CUSTOMERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 0


def write_sample_logdir(root: Path) -> None:
    """Write a small but representative (deterministic) broker log dir under ``root``."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    leo0, _ = _write_orders_0(root)
    leo1, lso1 = _write_orders_1(root)
    leoc, _ = _write_customers_0(root)
    ends = [("orders", 0, leo0), ("orders", 1, leo1), ("customers", 0, leoc)]
    (root / "meta.properties").write_bytes(
        meta_properties(
            {
                "cluster.id": CLUSTER_ID,
                "directory.id": DIRECTORY_ID,
                "node.id": "1",
                "version": "1",
            }
        )
    )
    (root / "recovery-point-offset-checkpoint").write_bytes(offset_checkpoint(ends))
    (root / "replication-offset-checkpoint").write_bytes(offset_checkpoint(ends))
    (root / "log-start-offset-checkpoint").write_bytes(offset_checkpoint([("orders", 1, lso1)]))
    (root / "cleaner-offset-checkpoint").write_bytes(offset_checkpoint([("customers", 0, 13)]))
    (root / ".lock").write_bytes(b"")
    (root / ".kafka_cleanshutdown").write_bytes(b'{"version":0,"brokerEpoch":42}')


def big_segment(
    path: Path,
    target_bytes: int,
    *,
    records_per_batch: int = 100,
    value_size: int = 60,
    codec: int = NONE,
    index_interval_bytes: int = 4096,
) -> None:
    """Stream one large segment (``.log`` + ``.index`` + ``.timeindex``) into directory ``path``.

    Batches are written one at a time (bounded memory) until the log reaches ``target_bytes``.
    Keys ``k<offset>``, deterministic values of ``value_size`` bytes, timestamps +1 ms per record.
    """
    if target_bytes > _INT32_MAX - (1 << 24):
        raise ValueError("a segment's positions must fit in an int32 (segment.bytes <= 2 GiB)")
    w = PartitionWriter(
        Path(path), segment_bytes=_INT32_MAX, index_interval_bytes=index_interval_bytes
    )
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    pattern = alphabet * (value_size // len(alphabet) + 2)
    offset = 0
    size = 0
    while size < target_bytes:
        recs = []
        for i in range(records_per_batch):
            o = offset + i
            start = o % len(alphabet)
            recs.append(
                Rec(key=b"k%d" % o, value=pattern[start : start + value_size], timestamp=TS0 + o)
            )
        data = v2_batch(recs, base_offset=offset, codec=codec)
        w.append(data)
        size += len(data)
        offset += records_per_batch
    w.close()


def tiered_storage_copy(partition_dir: Path, storage: Path, topic: str, partition: int,
                        topic_id: bytes, segment_ids: list[bytes]) -> list[dict[str, Any]]:
    """Copy the closed segments of ``partition_dir`` (written by :class:`PartitionWriter`)
    into ``storage`` in the layout of Kafka's LocalTieredStorage
    (RemoteTopicPartitionDirectory / RemoteLogSegmentFileset):
    ``<topic>-<partition>-<topicId>/<startOffset>-<segmentId>.{log,index,timeindex,
    txnindex,leader_epoch_checkpoint,snapshot}`` (start offset in decimal, no padding;
    ids as ``Uuid.toString``).  The active (last) segment stays local, as on a broker.
    Returns one dict per copied segment: start/end offsets, size, ids, leader epochs."""
    logs = sorted(partition_dir.glob("*.log"))
    tp_dir = storage / f"{topic}-{partition}-{uuid_str(topic_id)}"
    tp_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for i, sid in enumerate(segment_ids[: max(0, len(logs) - 1)]):
        log, nxt = logs[i], logs[i + 1]
        start, end = int(log.stem), int(nxt.stem) - 1
        stem = f"{start}-{uuid_str(sid)}"
        (tp_dir / f"{stem}.log").write_bytes(log.read_bytes())
        for suffix in (".index", ".timeindex", ".txnindex"):
            src = log.with_suffix(suffix)
            if src.exists():
                (tp_dir / f"{stem}{suffix}").write_bytes(src.read_bytes())
        (tp_dir / f"{stem}.leader_epoch_checkpoint").write_bytes(leader_epoch_checkpoint([(0, 0)]))
        (tp_dir / f"{stem}.snapshot").write_bytes(producer_snapshot([]))
        out.append({"start": start, "end": end, "size": log.stat().st_size,
                    "topic_id": uuid_str(topic_id), "segment_id": uuid_str(sid),
                    "stem": stem, "dir": tp_dir})
    return out


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _size(text: str) -> int:
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


def _main(argv: list[str]) -> int:
    usage = ("usage: writer.py sample DIR | writer.py big DIR SIZE [CODEC] [TOPIC] | "
             "writer.py replicas DIR SIZE | writer.py schemas DIR | writer.py cluster DIR")
    if len(argv) >= 2 and argv[0] in ("sample", "big", "replicas", "schemas", "cluster"):
        target = Path(argv[1])
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            print(f"refusing to write into non-empty {target}", file=sys.stderr)
            return 1
        if argv[0] == "sample" and len(argv) == 2:
            write_sample_logdir(target)
            return 0
        if argv[0] == "big" and len(argv) in (3, 4, 5):
            codecs = {"none": NONE, "gzip": GZIP, "snappy": SNAPPY, "lz4": LZ4, "zstd": ZSTD}
            if len(argv) >= 4 and argv[3] not in codecs:
                print(f"unknown codec {argv[3]!r}: one of {', '.join(codecs)}", file=sys.stderr)
                return 2
            codec = codecs[argv[3]] if len(argv) >= 4 else NONE
            topic = argv[4] if len(argv) == 5 else "big"
            try:
                size = _size(argv[2])
            except ValueError:
                print(f"{argv[2]!r} is not a size (1073741824, 200M, 1G)", file=sys.stderr)
                return 2
            # a partition directory, as in a broker's log dir (and as ``sample`` writes)
            big_segment(target / f"{topic}-0", size, codec=codec)
            print(target / f"{topic}-0")
            return 0
        if argv[0] == "schemas" and len(argv) == 2:
            # the schema registry's _schemas and Avro / Protobuf / JSON Schema topics
            # (needs the schemas extra: fastavro, protobuf, grpcio-tools)
            import tempfile

            from tests.support import registry_writer

            with tempfile.TemporaryDirectory() as scratch:
                registry_writer.write_sample(target, Path(scratch))
            return 0
        if argv[0] == "cluster" and len(argv) == 2:
            # three brokers' KRaft log dirs with a story (kdump timeline's worked example)
            from tests.support.timeline_fixture import write_cluster

            write_cluster(target)
            return 0
        if argv[0] == "replicas" and len(argv) == 3:
            replicas_pair(target, _size(argv[2]))
            return 0
    print(usage, file=sys.stderr)
    return 2
