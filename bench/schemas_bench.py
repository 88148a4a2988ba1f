#!/usr/bin/env python3
"""Schema-registry payloads (issue 24): ``kdump dump --format json`` against a bare loop.

    .venv/bin/python bench/schemas_bench.py [RECORDS] [ROUNDS]   # default 200000 3

Writes (once) ``bench/data/schemas-RECORDS/``: a log dir with the registry's
``_schemas-0`` (an Avro and a Protobuf schema), ``orders-0`` (RECORDS Avro values,
fastavro-encoded) and ``events-0`` (RECORDS Protobuf values, from protoc-generated
classes), batches of 100 records, uncompressed; beside it the same framed values as
length-prefixed files for the peer.  Then, in rounds (one run of each per round, so a
shared machine's load falls alike on all), times whole processes (start-up included):

- ``kdump dump TOPIC --print-data-log --format json --jobs 1`` (one core, as the loop);
- ``bench/peers/schema_loop.py``: fastavro ``schemaless_reader`` + ``json.dumps`` per
  payload / the generated class's ``FromString`` + ``MessageToDict`` + ``json.dumps``.

Reports median wall and CPU (user + system, ``wait4``) time and the largest peak RSS,
and the ratio kdump / loop (target: at most 2x, memory flat).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from kdump.schemaregistry.wire import frame  # noqa: E402
from tests.support import registry_writer as rw  # noqa: E402
from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = Path(sys.executable).parent / "kdump"
PEER = ROOT / "bench" / "peers" / "schema_loop.py"

ORDER = {
    "type": "record", "name": "Order", "namespace": "bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {"name": "amount", "type": "double"},
        {"name": "paid", "type": "boolean"},
        {"name": "status", "type": {"type": "enum", "name": "Status",
                                    "symbols": ["NEW", "PAID", "SHIPPED"]}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "items", "type": {"type": "array", "items": "string"}},
        {"name": "created", "type": "long"},
    ],
}
EVENT_PROTO = """syntax = "proto3";
package bench;
message Event {
  int64 id = 1;
  string customer = 2;
  double amount = 3;
  bool paid = 4;
  enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
  Status status = 5;
  string note = 6;
  repeated string items = 7;
  int64 created = 8;
}
"""


def generate(d: Path, n: int) -> None:
    import fastavro

    t0 = time.monotonic()
    rw.write_partition(d / "logdir" / "_schemas-0", [
        w.Rec(rw.schema_key("orders-value", 1),
              rw.schema_value("orders-value", 1, 1, json.dumps(ORDER))),
        w.Rec(rw.schema_key("events-value", 1),
              rw.schema_value("events-value", 1, 2, EVENT_PROTO, "PROTOBUF")),
    ])
    parsed = fastavro.parse_schema(ORDER)
    (d / "order.avsc").write_text(json.dumps(ORDER))
    src = d / "proto"
    src.mkdir(parents=True, exist_ok=True)
    (src / "bench_event.proto").write_text(EVENT_PROTO)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{src}",
                    f"--python_out={src}", "bench_event.proto"], check=True)
    sys.path.insert(0, str(src))
    import bench_event_pb2  # type: ignore[import-not-found]

    statuses = ["NEW", "PAID", "SHIPPED"]
    for topic, make in (
        ("orders", lambda i: frame(1, rw.avro_bytes(parsed, {
            "id": i, "customer": f"customer-{i % 5000}", "amount": i * 0.25,
            "paid": bool(i % 2), "status": statuses[i % 3],
            "note": None if i % 3 else f"note {i}", "items": [f"sku-{i % 97}", "sku-1"],
            "created": 1_700_000_000_000 + i}))),
        ("events", lambda i: frame(2, bench_event_pb2.Event(
            id=i, customer=f"customer-{i % 5000}", amount=i * 0.25, paid=bool(i % 2),
            status=i % 3, note="" if i % 3 else f"note {i}",
            items=[f"sku-{i % 97}", "sku-1"], created=1_700_000_000_000 + i,
        ).SerializeToString(), [0])),
    ):
        pw = w.PartitionWriter(d / "logdir" / f"{topic}-0")
        with open(d / f"{topic}.payloads", "wb") as fh:
            for base in range(0, n, 100):
                recs = []
                for i in range(base, min(n, base + 100)):
                    v = make(i)
                    fh.write(len(v).to_bytes(4, "big") + v)
                    recs.append(w.Rec(f"k{i}".encode(), v))
                pw.append(w.v2_batch(recs, base_offset=base, first_timestamp=rw.TS))
        pw.close()
    (d / "done").write_text("ok")
    print(f"wrote {d} in {time.monotonic() - t0:.1f} s", file=sys.stderr)


def timed(cmd: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one child, stdout to /dev/null."""
    with open(os.devnull, "w") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        err = p.stderr.read().decode() if p.stderr else ""
        if os.waitstatus_to_exitcode(status) not in (0,):
            raise SystemExit(f"{cmd} failed: {err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 200_000
    rounds = int(argv[1]) if len(argv) > 1 else 3
    d = DATA / f"schemas-{n}"
    if not (d / "done").exists():
        generate(d, n)
    logdir = d / "logdir"
    runs = {
        "kdump dump avro": [str(KDUMP), "dump", str(logdir / "orders-0"), "--print-data-log",
                            "--format", "json", "--jobs", "1"],
        "loop avro": [sys.executable, str(PEER), "avro", str(d / "orders.payloads"),
                      str(d / "order.avsc")],
        "kdump dump protobuf": [str(KDUMP), "dump", str(logdir / "events-0"),
                                "--print-data-log", "--format", "json", "--jobs", "1"],
        "loop protobuf": [sys.executable, str(PEER), "protobuf", str(d / "events.payloads"),
                          str(d / "proto"), "bench_event_pb2", "Event"],
    }
    got: dict[str, list[tuple[float, float, int]]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, cmd in runs.items():
            got[name].append(timed(cmd))
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
               max(x[2] for x in v)) for k, v in got.items()}
    print(f"{n:,} records, {rounds} rounds (median wall / CPU, largest peak RSS)")
    print("| run | wall s | CPU s | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for k, (wall, cpu, rss) in med.items():
        print(f"| {k} | {wall:.2f} | {cpu:.2f} | {rss / 1024:.0f} |")
    ok = True
    for fmt in ("avro", "protobuf"):
        wr = med[f"kdump dump {fmt}"][0] / med[f"loop {fmt}"][0]
        cr = med[f"kdump dump {fmt}"][1] / med[f"loop {fmt}"][1]
        ok &= cr <= 2.0
        print(f"{fmt}: kdump / loop = {wr:.2f}x wall, {cr:.2f}x CPU (target: at most 2x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
