#!/usr/bin/env python3
"""Recursive Avro schemas (issue 24 follow-up): ``kdump dump --format json`` of linked
lists against the bare fastavro loop.

    .venv/bin/python bench/schemas_recursive_bench.py [RECORDS] [ROUNDS]   # default 100000 3

Writes (once) ``bench/data/schemas-recursive-RECORDS/``: the registry's ``_schemas-0``
with one recursive Avro schema (``Node {value: int, label: string, next: [null, Node]}``)
and ``lists-0``: RECORDS values, each a list of 8 nodes, fastavro-encoded, batches of
100; beside it the same framed values for the peer.  Then, in rounds, times whole
processes: ``kdump dump lists-0 --print-data-log --format json --jobs 1`` (recursive
schemas are read by fastavro's Python reader, whose depth Python bounds) and
``bench/peers/schema_loop.py avro`` (fastavro's compiled reader, which has no depth
bound).  Reports median wall and CPU time, the largest peak RSS, and the ratio: what
reading recursive values safely costs.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schemas_bench import DATA, KDUMP, PEER, rw, timed, w

from kdump.schemaregistry.wire import frame

NODE = {"type": "record", "name": "Node", "namespace": "bench", "fields": [
    {"name": "value", "type": "int"},
    {"name": "label", "type": "string"},
    {"name": "next", "type": ["null", "bench.Node"], "default": None}]}
LENGTH = 8


def generate(d: Path, n: int) -> None:
    import fastavro

    t0 = time.monotonic()
    rw.write_partition(d / "logdir" / "_schemas-0", [
        w.Rec(rw.schema_key("lists-value", 1),
              rw.schema_value("lists-value", 1, 1, json.dumps(NODE)))])
    parsed = fastavro.parse_schema(NODE)
    (d / "node.avsc").write_text(json.dumps(NODE))
    pw = w.PartitionWriter(d / "logdir" / "lists-0")
    with open(d / "lists.payloads", "wb") as fh:
        for base in range(0, n, 100):
            recs = []
            for i in range(base, min(n, base + 100)):
                node = None
                for k in range(LENGTH):
                    node = {"value": i + k, "label": f"n{k}", "next": node}
                v = frame(1, rw.avro_bytes(parsed, node))
                fh.write(len(v).to_bytes(4, "big") + v)
                recs.append(w.Rec(f"k{i}".encode(), v))
            pw.append(w.v2_batch(recs, base_offset=base, first_timestamp=rw.TS))
    pw.close()
    (d / "done").write_text("ok")
    print(f"wrote {d} in {time.monotonic() - t0:.1f} s", file=sys.stderr)


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 100_000
    rounds = int(argv[1]) if len(argv) > 1 else 3
    d = DATA / f"schemas-recursive-{n}"
    if not (d / "done").exists():
        generate(d, n)
    runs = {
        "kdump dump (Python reader)": [str(KDUMP), "dump", str(d / "logdir" / "lists-0"),
                                       "--print-data-log", "--format", "json", "--jobs", "1"],
        "loop (compiled reader)": [sys.executable, str(PEER), "avro", str(d / "lists.payloads"),
                                   str(d / "node.avsc")],
    }
    got: dict[str, list[tuple[float, float, int]]] = {k: [] for k in runs}
    for _ in range(rounds):
        for name, cmd in runs.items():
            got[name].append(timed(cmd))
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
               max(x[2] for x in v)) for k, v in got.items()}
    print(f"{n:,} records of {LENGTH} nodes, {rounds} rounds (median wall / CPU, largest "
          "peak RSS)")
    print("| run | wall s | CPU s | peak RSS MiB |")
    print("|---|---:|---:|---:|")
    for k, (wall, cpu, rss) in med.items():
        print(f"| {k} | {wall:.2f} | {cpu:.2f} | {rss / 1024:.0f} |")
    a, b = med["kdump dump (Python reader)"], med["loop (compiled reader)"]
    print(f"kdump / loop = {a[0] / b[0]:.2f}x wall, {a[1] / b[1]:.2f}x CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
