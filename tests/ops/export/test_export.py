"""``kdump export``: the dataset read back with DuckDB and pyarrow, record for record
against ``kdump dump --format json``; decoded columns; the guarantees (read-only inputs,
a new output directory, staged files and a manifest written last, damage skipped and
named, secrets, remote inputs, --jobs)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KDUMP_BIN, KdumpRunner, subprocess_env
from tests.support import report_fixture
from tests.support import writer as w

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("fastavro", reason="the schemas extra is not installed")

#: the batch fields every row carries, named as in dump's batch objects
BATCH_COLUMNS = {"base_offset": "base_offset", "last_offset": "last_offset", "batch_size": "size",
                 "magic": "magic", "compression": "compression",
                 "partition_leader_epoch": "partition_leader_epoch", "producer_id": "producer_id",
                 "producer_epoch": "producer_epoch", "base_sequence": "base_sequence",
                 "is_transactional": "is_transactional", "is_control": "is_control",
                 "crc": "crc"}


# --- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def k4(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 4.x log dir with internal topics and the schema registry's _schemas."""
    return report_fixture.kafka4_logdir(tmp_path_factory.mktemp("k4"))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two brokers' log dirs holding replicas of the same partitions (every codec,
    headers, nulls, producers, legacy v0/v1 messages)."""
    from tests.spark.test_spark import write_fleet
    root = tmp_path_factory.mktemp("fleet")
    write_fleet(root)
    return root


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log dir with a flipped CRC byte (orders-0's second batch), a zeroed
    stretch (orders-0, third segment) and a cut segment (customers-0, first segment)."""
    root = tmp_path_factory.mktemp("damaged") / "logdir"
    w.write_sample_logdir(root)
    seg = sorted((root / "orders-0").glob("*.log"))[0]
    data = bytearray(seg.read_bytes())
    second = 12 + int.from_bytes(data[8:12], "big")
    data[second + 18] ^= 0xFF
    seg.write_bytes(bytes(data))
    seg = sorted((root / "orders-0").glob("*.log"))[2]
    data = bytearray(seg.read_bytes())
    mid = len(data) // 3
    data[mid: mid + 200] = bytes(200)
    seg.write_bytes(bytes(data))
    seg = sorted((root / "customers-0").glob("*.log"))[0]
    seg.write_bytes(seg.read_bytes()[:-7])
    return root


# --- what dump prints ------------------------------------------------------------------------
def _bytes(value: str | None, encoding: str | None) -> bytes | None:
    if value is None:
        return None
    assert encoding == "base64", encoding
    return base64.b64decode(value)


def dump_rows(kdump: KdumpRunner, *paths: Path) -> list[dict[str, Any]]:
    """Every record ``kdump dump --format json --print-data-log`` prints, with its batch's
    fields, as export rows (raw bytes, headers as (key, value) pairs)."""
    r = kdump("dump", "--format", "json", "--print-data-log", "--payload-encoding", "base64",
              *paths)
    batches: dict[tuple[str, int], dict[str, Any]] = {}
    out = []
    for line in r.lines:
        o = json.loads(line)
        if o["type"] == "batch":
            batches[(o["file"], o["position"])] = o
        elif o["type"] == "record" and o["file"].endswith(".log"):
            b = batches[(o["file"], o["batch_position"])]
            row = {"file": o["file"], "topic": o["topic"], "partition": o["partition"],
                   "position": o["batch_position"], "offset": o["offset"],
                   "timestamp": o["timestamp"], "timestamp_type": o["timestamp_type"],
                   "key": _bytes(o["key"], o["key_encoding"]),
                   "value": _bytes(o["value"], o["value_encoding"]),
                   "headers": [(h["key"], _bytes(h["value"], h["value_encoding"]))
                               for h in o["headers"]],
                   "sequence": o.get("sequence", -1),
                   "crc_valid": b["crc_valid"]}
            for col, name in BATCH_COLUMNS.items():
                row[col] = b.get(name, {"partition_leader_epoch": -1, "base_sequence": -1,
                                        "is_transactional": False, "is_control": False}.get(name))
            for name in ("producer_id", "producer_epoch", "is_transactional", "is_control"):
                row[name] = o[name]  # the record's copy of its batch's (v0/v1 too)
            if b["magic"] < 2:  # a legacy wrapper: its inner records' first offset
                row["base_offset"] = b["base_offset"]
            out.append(row)
    return sorted(out, key=lambda x: (x["file"], x["offset"], x["position"]))


COLUMNS = ["file", "topic", "partition", "position", "offset", "timestamp", "timestamp_type",
           "key", "value", "headers", "sequence", *BATCH_COLUMNS]


def duck_rows(out: Path, where: str = "true") -> list[dict[str, Any]]:
    """The dataset read back by DuckDB (hive partitioning, files of every schema)."""
    sql = (f"select * from read_parquet('{out}/**/*.parquet', hive_partitioning=true, "
           f"union_by_name=true) where {where}")
    rel = duckdb.sql(sql)
    names = rel.columns
    rows = []
    for t in rel.fetchall():
        d = dict(zip(names, t, strict=True))
        row = {c: d[c] for c in COLUMNS if c != "headers"}
        row["headers"] = [(h["key"], None if h["value"] is None else bytes(h["value"]))
                          for h in d["headers"]]
        for c in ("key", "value"):
            row[c] = None if row[c] is None else bytes(row[c])
        rows.append(row)
    return sorted(rows, key=lambda x: (x["file"], x["offset"], x["position"]))


def arrow_rows(out: Path, fmt: str = "parquet") -> list[dict[str, Any]]:
    """The dataset read back by pyarrow (hive partitioning)."""
    import pyarrow.dataset as ds

    kind = {"parquet": "parquet", "arrow": "ipc"}[fmt]
    files = sorted(str(p) for p in out.rglob(f"*.{fmt}"))
    rows = []
    for f in files:
        data = ds.dataset(f, format=kind, partitioning="hive").to_table()
        rel = os.path.relpath(f, out).split(os.sep)
        topic, partition = rel[0].split("=", 1)[1], int(rel[1].split("=", 1)[1])
        for d in data.to_pylist():
            row = {c: d.get(c) for c in COLUMNS if c not in ("topic", "partition", "headers")}
            row["topic"], row["partition"] = topic, partition
            row["headers"] = [(h["key"], h["value"]) for h in d["headers"]]
            rows.append(row)
    return sorted(rows, key=lambda x: (x["file"], x["offset"], x["position"]))


def _want(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{c: r[c] for c in COLUMNS} for r in rows]


def export(kdump: KdumpRunner, *args: Any, watch: list[Path] | None = None) -> Any:
    return kdump("export", *args, watch=watch)


# --- every record, as dump prints it -----------------------------------------------------------
def test_sample_every_record_as_dump_prints_it(kdump: KdumpRunner, sample_dir: Path,
                                               tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = export(kdump, sample_dir, "-o", out, watch=[sample_dir])
    assert (r.rc, r.err) == (0, "")
    assert r.out == (f"exported 267 records from 7 segments to 7 parquet files in {out}, "
                     "partitioned by topic and partition\n")
    want = _want(dump_rows(kdump, sample_dir))
    assert len(want) == 267 and sum(x["is_control"] for x in want) == 4
    assert duck_rows(out) == want
    assert arrow_rows(out) == want
    # hive layout as kdump spark export writes it; the partition columns only in the path
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.parquet")) == [
        "topic=customers/partition=0/broker-1-00000000000000000000.parquet",
        "topic=customers/partition=0/broker-1-00000000000000000013.parquet",
        "topic=orders/partition=0/broker-1-00000000000000000000.parquet",
        "topic=orders/partition=0/broker-1-00000000000000000050.parquet",
        "topic=orders/partition=0/broker-1-00000000000000000120.parquet",
        "topic=orders/partition=1/broker-1-00000000000000000000.parquet",
        "topic=orders/partition=1/broker-1-00000000000000000031.parquet"]
    import pyarrow.parquet as pq

    one = pq.read_schema(out / "topic=orders/partition=0/broker-1-00000000000000000000.parquet")
    from kdump.model import spark_fields

    # the kafka_log source's columns, in its order, minus the partition columns; no
    # decoded columns for plain topics
    assert one.names == [n for n, _ in spark_fields("record") if n not in ("topic", "partition")]
    assert str(one.field("headers").type) == "list<element: struct<key: string, value: binary>>"
    logdirs = duckdb.sql(f"select distinct log_dir, broker_id from read_parquet('{out}/**/*.parquet')"
                         ).fetchall()
    assert logdirs == [(str(sample_dir), 1)]


def test_manifest_and_findings_written_last(kdump: KdumpRunner, sample_dir: Path,
                                            tmp_path: Path) -> None:
    import hashlib

    out = tmp_path / "out"
    r = export(kdump, sample_dir, "-o", out, "--json")
    assert r.rc == 0
    objs = [json.loads(x) for x in r.lines]
    assert [o["type"] for o in objs] == ["export_file"] * 7 + ["export_end"]
    end = objs[-1]
    assert end == {"type": "export_end", "output": str(out), "format": "parquet",
                   "partitioned_by": ["topic", "partition"], "level": "record", "rows": 267,
                   "files": 7, "segments": 7, "findings": 0,
                   "manifest": str(out / "_manifest.json")}
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["rows"] == 267 and manifest["inputs"] == [str(sample_dir)]
    for f in manifest["files"]:
        assert hashlib.sha256((out / f["file"]).read_bytes()).hexdigest() == f["sha256"]
        assert (out / f["file"]).stat().st_size == f["size"]
    assert [f["file"] for f in manifest["files"]] == [o["file"] for o in objs[:-1]]
    # every segment read is listed with the SHA-256 of its bytes
    for src in manifest["read"]:
        assert hashlib.sha256(Path(src["file"]).read_bytes()).hexdigest() == src["sha256"]
    assert len(manifest["read"]) == 7
    assert (out / "_findings").read_text() == ""
    assert manifest["findings"] == {"file": "_findings", "size": 0, "findings": 0,
                                    "sha256": hashlib.sha256(b"").hexdigest()}
    # the manifest was the last file written
    mtimes = {p.name: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert mtimes["_manifest.json"] == max(mtimes.values())
    assert not [p for p in out.rglob(".*")]  # no temporary file left
    assert not list(out.parent.glob(".kdump-staging-*"))  # nor the staging area


def test_two_brokers_stay_apart(kdump: KdumpRunner, fleet: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = export(kdump, fleet / "logs1", fleet / "logs2", "-o", out, "--jobs", "2")
    assert r.rc == 0, r.err
    want = _want(dump_rows(kdump, fleet / "logs1", fleet / "logs2"))
    assert duck_rows(out) == want
    names = {p.name.split("-0000")[0] for p in out.rglob("*.parquet")}
    assert names == {"broker-1", "broker-2"}
    per = duckdb.sql(f"""select broker_id, log_dir, count(*) from
        read_parquet('{out}/**/*.parquet', hive_partitioning=true)
        where topic = 'events' and partition = 1 group by all order by 1""").fetchall()
    assert per == [(1, str(fleet / "logs1"), per[0][2]), (2, str(fleet / "logs2"), per[0][2])]


def test_jobs_write_the_same_files(kdump: KdumpRunner, fleet: Path, tmp_path: Path) -> None:
    digests = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out{jobs}"
        assert export(kdump, fleet / "logs1", "-o", out, "--jobs", jobs).rc == 0
        m = json.loads((out / "_manifest.json").read_text())
        digests.append([(f["file"], f["sha256"]) for f in m["files"]])
    assert digests[0] == digests[1] == digests[2] and len(digests[0]) > 10


def test_split_bytes_has_one_default() -> None:
    """kdump export, kdump spark export and the kafka_log data source cut big segments at
    the same size, kdump.limits.SPLIT_BYTES (128M): export's CLI once said 256M."""
    from kdump.cli.export import export_command
    from kdump.cli.options import parse_size
    from kdump.cli.spark import spark_export
    from kdump.limits import SPLIT_BYTES
    from kdump.ops.export import ReadOptions
    from kdump.spark.segments import parse_options

    defaults = [next(p.default for p in c.params if p.name == "split_bytes")
                for c in (export_command, spark_export)]
    assert defaults == ["128M", "128M"] and SPLIT_BYTES == parse_size("128M") == 128 << 20
    assert ReadOptions(paths=()).split_bytes == SPLIT_BYTES
    assert parse_options({"path": "x"}).split_bytes == SPLIT_BYTES


def test_format_is_the_deprecated_name_of_file_format(kdump: KdumpRunner, sample_dir: Path,
                                                     tmp_path: Path) -> None:
    """--file-format names the files' format; the old --format still writes the same
    files, saying on stderr that it is deprecated; an output format given to it, or a
    --file-format it disagrees with, is a usage error that says what export takes."""
    new = export(kdump, sample_dir, "-o", tmp_path / "new", "--file-format", "jsonl")
    old = export(kdump, sample_dir, "-o", tmp_path / "old", "--format", "jsonl")
    assert (new.rc, new.err, old.rc) == (0, "", 0)
    assert old.err == "kdump export: --format is deprecated: give --file-format jsonl (the same files)\n"
    assert old.out == new.out.replace(str(tmp_path / "new"), str(tmp_path / "old"))

    def digests(d: Path) -> list[tuple[str, str]]:
        return [(f["file"], f["sha256"]) for f in json.loads((d / "_manifest.json").read_text())["files"]]

    assert digests(tmp_path / "old") == digests(tmp_path / "new") and digests(tmp_path / "new")
    r = export(kdump, sample_dir, "-o", tmp_path / "json", "--format", "json")
    assert r.rc == 2 and r.err.endswith(
        "Error: --format json: export's --format was the files' format (parquet, arrow, jsonl), "
        "now --file-format; its answer on stdout is text, or JSON Lines with --json\n")
    r = export(kdump, sample_dir, "-o", tmp_path / "both", "--format", "jsonl", "--file-format", "arrow")
    assert r.rc == 2 and r.err.endswith("Error: --format jsonl and --file-format arrow disagree: "
                                        "give --file-format only (--format is its deprecated old name)\n")
    assert not (tmp_path / "json").exists() and not (tmp_path / "both").exists()


@pytest.mark.parametrize("fmt", ["arrow", "jsonl"])
def test_other_formats(kdump: KdumpRunner, sample_dir: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "out"
    assert export(kdump, sample_dir, "-o", out, "--file-format", fmt).rc == 0
    want = _want(dump_rows(kdump, sample_dir))
    if fmt == "arrow":
        assert arrow_rows(out, "arrow") == want
        return
    rel = duckdb.sql(f"select * from read_json('{out}/**/*.jsonl', hive_partitioning=true, "
                     "format='newline_delimited')")
    assert len(rel.fetchall()) == 267
    rows = []
    for f in out.rglob("*.jsonl"):
        t, p = f.parent.parent.name.split("=")[1], int(f.parent.name.split("=")[1])
        for line in f.read_text().splitlines():
            o = json.loads(line)
            o["topic"], o["partition"] = t, p
            for c in ("key", "value"):
                o[c] = None if o[c] is None else base64.b64decode(o[c])
            o["headers"] = [(h["key"], None if h["value"] is None else base64.b64decode(h["value"]))
                            for h in o["headers"]]
            rows.append({c: o[c] for c in COLUMNS})
    assert sorted(rows, key=lambda x: (x["file"], x["offset"], x["position"])) == want


def test_batch_level(kdump: KdumpRunner, sample_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert export(kdump, sample_dir, "-o", out, "--level", "batch").rc == 0
    r = kdump("dump", "--format", "json", sample_dir)
    want = sorted((o["file"], o["position"], o["base_offset"], o["last_offset"], o["size"],
                   o["crc"], o["attributes"])
                  for o in map(json.loads, r.lines) if o["type"] == "batch")
    got = sorted(duckdb.sql(f"""select file, position, base_offset, last_offset, size, crc,
        attributes from read_parquet('{out}/**/*.parquet')""").fetchall())
    assert got == want


# --- decoded columns ---------------------------------------------------------------------------
def test_internal_topics_and_schema_registry(kdump: KdumpRunner, k4: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = export(kdump, k4, "-o", out, watch=[k4])
    assert r.rc == 0, r.err
    # every record as dump prints it, across files of different schemas
    assert duck_rows(out) == _want(dump_rows(kdump, k4))
    # the JSON text columns hold what dump's decoded objects hold
    dumped = {}
    for line in kdump("dump", "--format", "json", "--print-data-log", k4).lines:
        o = json.loads(line)
        if o["type"] == "record" and "decoded" in o:
            dumped[(o["topic"], o["offset"])] = o["decoded"]
    rel = duckdb.sql(f"""select topic, "offset", key_decoded, value_decoded from
        read_parquet('{out}/**/*.parquet', hive_partitioning=true, union_by_name=true)
        where key_decoded is not null or value_decoded is not null""")
    seen = 0
    for topic, offset, kd, vd in rel.fetchall():
        d = dumped.get((topic, offset), {})
        if "key" in d:
            assert json.loads(kd) == d["key"]
        if "value" in d:
            seen += 1
            v = json.loads(vd)
            v.pop("layout", None)
            assert v == d["value"], (topic, offset)
    assert seen > 30
    # __consumer_offsets: typed structs per record type
    got = duckdb.sql(f"""select key_OffsetCommitKey.group, key_OffsetCommitKey.partition,
        value_OffsetCommitValue.offset, value_version from
        read_parquet('{out}/topic=__consumer_offsets/**/*.parquet')
        where key_record = 'OffsetCommitKey' order by "offset" limit 2""").fetchall()
    assert got == [("billing", 0, 150, 3), ("billing", 1, 200, 3)]
    # __cluster_metadata: one struct per metadata record type
    topics = duckdb.sql(f"""select value_TopicRecord.name from
        read_parquet('{out}/topic=__cluster_metadata/**/*.parquet')
        where value_record = 'TopicRecord' order by 1""").fetchall()
    assert topics == [("events",), ("orders",), ("payments",), ("users",)]
    share = duckdb.sql(f"""select value_ShareSnapshotValue.startOffset from
        read_parquet('{out}/topic=__share_group_state/**/*.parquet')
        where value_record = 'ShareSnapshotValue' order by 1""").fetchall()
    assert share == [(60,), (120,)]
    # Avro: the schema as a struct, logical types as Arrow's
    import datetime
    import decimal

    row = duckdb.sql(f"""select value_schema_id, value_schema_2 from
        read_parquet('{out}/topic=orders/**/*.parquet') order by "offset" limit 1""").fetchall()[0]
    assert row == (2, {"id": 0, "customer": "c0", "amount": decimal.Decimal("0.50"),
                       "at": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                       "note": "gift", "address": {"city": "Oslo"}})
    # Protobuf: a struct per message of the schema; 64-bit integers as integers
    ev = duckdb.sql(f"""select value_schema_4_Created.price.units, value_schema_4_Paid_Line.qty
        from read_parquet('{out}/topic=events/**/*.parquet') order by "offset" """).fetchall()
    assert ev == [(1099511627776, None), (None, None), (None, 1)]
    # every file of a topic has the same schema
    import pyarrow.parquet as pq

    schemas = {str(pq.read_schema(p)) for p in (out / "topic=orders").rglob("*.parquet")}
    assert len(schemas) == 1


def secrets_metadata_logdir(root: Path) -> Path:
    """A log dir whose ``__cluster_metadata-0`` holds a SCRAM credential and a password
    config (their secrets spelled ``...-SECRET-n``); the log dir's path."""
    d = root / "logdir" / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([
        w.metadata_record("UserScramCredentialRecord", {
            "name": "alice", "mechanism": 1, "salt": b"SALT-SECRET-1",
            "storedKey": b"STORED-SECRET-2", "serverKey": b"SERVER-SECRET-3",
            "iterations": 4096}),
        w.metadata_record("ConfigRecord", {"resourceType": 4, "resourceName": "1",
                                           "name": "ssl.keystore.password",
                                           "value": "PASSWORD-SECRET-4"}),
    ])
    lw.close()
    return d.parent


def test_secrets_redacted_unless_asked(kdump: KdumpRunner, tmp_path: Path) -> None:
    d = secrets_metadata_logdir(tmp_path) / "__cluster_metadata-0"
    for flags, leaks in (((), False), (("--show-secrets",), True)):
        out = tmp_path / f"out{len(flags)}"
        assert export(kdump, d.parent, "-o", out, *flags).rc == 0
        blob = b"".join(p.read_bytes() for p in out.rglob("*.parquet"))
        import pyarrow.parquet as pq

        table = pa.concat_tables(pq.read_table(p) for p in out.rglob("*.parquet"))
        text = repr(table.to_pylist())
        for secret in ("SALT-SECRET-1", "STORED-SECRET-2", "SERVER-SECRET-3",
                       "PASSWORD-SECRET-4"):
            assert (secret in text) is leaks, (flags, secret)
            assert (secret.encode() in blob or secret in text) is leaks
        if not leaks:
            rows = table.to_pylist()
            assert rows[0]["value"] == b"[redacted]"
            assert rows[0]["value_UserScramCredentialRecord"]["salt"] == b"[redacted]"
            assert rows[1]["value_ConfigRecord"]["value"] == "[redacted]"


# --- damage --------------------------------------------------------------------------------------
def test_damaged_batches_skipped_and_named(kdump: KdumpRunner, damaged: Path,
                                           tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = export(kdump, damaged, "-o", out, watch=[damaged])
    assert r.rc == 1
    found = [json.loads(x) for x in (out / "_findings").read_text().splitlines()]
    verify = [json.loads(x) for x in kdump("verify-crc", "--format", "json", damaged).lines]
    # what the batches show (export names what it skips); the offsets the witnesses prove
    # lost are verify-crc's, size-report's and the report's to name (data-lost)
    problems = [o for o in verify if o["type"] == "problem" and o["severity"] != "info"
                and o["kind"] != "data-lost"]
    crc = {(p["file"], p["position"]) for p in problems if p["kind"] == "crc-mismatch"}
    # a batch whose checksum fails is skipped whole: named once, its records not read
    problems = [p for p in problems if p["kind"] == "crc-mismatch"
                or (p["file"], p["position"]) not in crc]
    key = ("file", "position", "kind")
    assert sorted(tuple(f[k] for k in key) for f in found) == \
        sorted(tuple(p[k] for k in key) for p in problems)
    assert {f["kind"] for f in found} >= {"crc-mismatch"}
    # each finding is named on stderr, one line each
    assert len(r.err_lines) == len(found)
    for f in found:
        assert any(f["file"] in line and str(f["position"]) in line for line in r.err_lines)
    # the rows are dump's records less those of damaged batches
    bad = {(f["file"], f["position"]) for f in found if f["kind"] == "crc-mismatch"}
    want = [x for x in _want(dump_rows(kdump, damaged)) if (x["file"], x["position"]) not in bad]
    assert duck_rows(out) == want
    assert r.out == (f"exported 256 records from 7 segments to 7 parquet files in {out}, "
                     "partitioned by topic and partition; 4 findings in _findings\n")
    assert (out / "_manifest.json").exists()


# --- the output directory ---------------------------------------------------------------------------
def test_output_checks(kdump: KdumpRunner, sample_dir: Path, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("x")
    cases = [
        (busy, f"kdump: --output {busy} is not empty: kdump writes into a new or empty "
               "directory only\n"),
        (sample_dir / "out", ", inside the input"),
        (sample_dir / "orders-0" / "x", ", inside the input"),
        (busy / "x", f"kdump: --output {busy / 'x'} exists and is not a directory\n"),
    ]
    for target, message in cases:
        r = export(kdump, sample_dir, "-o", target, watch=[sample_dir, busy])
        assert r.rc == 2 and r.out == "", target
        assert message in r.err and r.err.count("\n") == 1, r.err
    # a partition given: its log dir is evidence too
    r = export(kdump, sample_dir / "orders-0", "-o", sample_dir / "exports", watch=[sample_dir])
    assert r.rc == 2 and f"inside the input {sample_dir / 'orders-0'}'s log dir" in r.err
    # DIR holding the input
    r = export(kdump, sample_dir, "-o", sample_dir.parent, watch=[sample_dir])
    assert r.rc == 2 and "holds the input" in r.err
    r = export(kdump, tmp_path / "nope", "-o", tmp_path / "o2")
    assert (r.rc, r.err) == (2, f"kdump: {tmp_path / 'nope'}: no such file or directory\n")
    assert not (tmp_path / "o2").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert export(kdump, sample_dir, "-o", empty).rc == 0


def test_full_disk_leaves_no_file_that_looks_whole(sample_dir: Path, tmp_path: Path) -> None:
    """A 64 KiB tmpfs: the export fails (exit 2, one line) and what it leaves are whole
    files and no manifest."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        big = tmp_path / "big"
        w.big_segment(big / "big-0", 1 << 20)
        r = subprocess.run([sys.executable, "-m", "kdump", "export", str(big), str(sample_dir),
                            "-o", str(mnt / "out"), "--row-group-rows", "2000", "--jobs", "1"],
                           capture_output=True, text=True, env=subprocess_env())
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith("kdump: ") and r.stderr.count("\n") == 1
        assert "No space left on device" in r.stderr
        # DIR left as it was (absent), no staging area left beside it
        assert list(mnt.iterdir()) == []
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


@pytest.fixture(scope="module")
def seg24(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log dir of one 24 MiB segment (about 330,000 records)."""
    big = tmp_path_factory.mktemp("seg24") / "logdir"
    w.big_segment(big / "big-0", 24 << 20)
    return big


def _peak_rss_kb(argv: list[str]) -> int:
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=subprocess_env())
    _, status, ru = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, p.stderr.read() if p.stderr else ""
    return int(ru.ru_maxrss)


def test_memory_bounded_by_the_row_group(seg24: Path, sample_dir: Path, tmp_path: Path) -> None:
    """The peak RSS of a 24 MiB segment's export is that of a 50 KB log dir's, give or
    take a few MB: bounded by the row group, not by the segment (bench/README.md has the
    1 GiB figure)."""
    args = ["--row-group-rows", "4096", "--jobs", "1"]
    small = _peak_rss_kb([sys.executable, "-m", "kdump", "export", str(sample_dir), "-o",
                          str(tmp_path / "a"), *args])
    big = _peak_rss_kb([sys.executable, "-m", "kdump", "export", str(seg24), "-o",
                        str(tmp_path / "b"), *args])
    assert big - small < 48 << 10, (small, big)


def test_interrupt_leaves_no_file_that_looks_whole(seg24: Path, tmp_path: Path) -> None:
    import signal

    from tests.support.pausing import start_paused

    big = seg24
    out = tmp_path / "out"
    proc = start_paused(["export", big, "-o", out, "--row-group-rows", "1000", "--jobs", "1"],
                        "*/topic=*/partition=*/*", tmp_path)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode() == "kdump: interrupted\n"
    assert not out.exists() and not list(tmp_path.glob(".kdump-staging-*"))


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_interrupted_between_row_groups_prints_one_line(sample_dir: Path, tmp_path: Path,
                                                        fmt: str) -> None:
    """Ctrl-C after a row group is written (made certain here: the second row group
    raises it): the writer is finished while its file is open and thrown away with it,
    not by its finalizer at exit, which wrote to the closed file and printed a traceback
    (seen once in four runs of the test above on a loaded machine)."""
    code = (
        "import sys, kdump.ops.export.run as run\n"
        "real = run.arrow_batches\n"
        "def batches(*a, **k):\n"
        "    it = real(*a, **k)\n"
        "    yield next(it)\n"
        "    raise KeyboardInterrupt\n"
        "run.arrow_batches = batches\n"
        "import kdump.cli\n"
        f"sys.exit(kdump.cli.main(['export', {str(sample_dir)!r}, '-o', "
        f"{str(tmp_path / 'o')!r}, '--file-format', {fmt!r}, '--row-group-rows', '5']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "kdump: interrupted\n")
    assert [p for p in (tmp_path / "o").rglob("*") if p.is_file()] == []


def test_no_pyarrow_is_one_line(sample_dir: Path, tmp_path: Path) -> None:
    code = ("import sys; sys.modules['pyarrow'] = None; import kdump.cli; "
            f"sys.exit(kdump.cli.main(['export', {str(sample_dir)!r}, '-o', "
            f"{str(tmp_path / 'o')!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env())
    assert (r.returncode, r.stdout, r.stderr) == (
        2, "", "kdump: kdump export needs pyarrow: pip install 'kdump[export]'\n")
    assert not (tmp_path / "o").exists()


# --- remote inputs ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.support import s3server

    server = s3server.start_or_skip(tmp_path_factory.mktemp("moto"))
    yield server
    server.stop()


def test_remote_input(kdump: KdumpRunner, s3: Any, sample_dir: Path, tmp_path: Path,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kdump import fs as kfs

    url = s3.upload(sample_dir, "fleet/broker-1/logdir")
    for k, v in s3.env().items():
        monkeypatch.setenv(k, v)
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(k, raising=False)
    kfs.clear_cache()
    try:
        out = tmp_path / "out"
        r = export(kdump, url, "-o", out)
        assert r.rc == 0, r.err
    finally:
        kfs.clear_cache()
    want = _want(dump_rows(kdump, sample_dir))
    for x in want:
        x["file"] = x["file"].replace(str(sample_dir), url)
    assert duck_rows(out) == want
    assert duckdb.sql(f"select distinct log_dir, broker_id from read_parquet('{out}/**/*.parquet')"
                      ).fetchall() == [(url, 1)]


def test_startup_imports_only_its_module() -> None:
    code = ("import sys, kdump.cli; kdump.cli.cli.get_command(None, 'export'); "
            "print(sorted(m for m in sys.modules if m.startswith('kdump.cli.') ))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env())
    assert "kdump.cli.export" in r.stdout and "kdump.cli.dump" not in r.stdout, r.stdout


def test_copy_of_fixture_unchanged(sample_dir: Path, tmp_path: Path) -> None:
    """The output may be a directory beside the input with a similar name."""
    twin = tmp_path / "logdir"
    shutil.copytree(sample_dir, twin)
    r = subprocess.run([sys.executable, "-m", "kdump", "export", str(twin), "-o",
                        str(tmp_path / "logdir-export")], capture_output=True, text=True,
                       env=subprocess_env())
    assert r.returncode == 0, r.stderr


# --- the same dataset as kdump spark export ------------------------------------------------------------
def _all_rows(out: Path, columns: list[str] | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
    rel = duckdb.sql(f"select * from read_parquet('{out}/**/*.parquet', hive_partitioning=true, "
                     "union_by_name=true)")
    names = columns or sorted(rel.columns)
    rel = rel.select(", ".join(f'"{n}"' for n in names))
    return names, sorted(rel.fetchall(), key=repr)


def _spark_export(*args: Any) -> subprocess.CompletedProcess[str]:
    """``kdump spark export`` as its own process: its JVM (and the environment its Python
    workers inherit) goes with it.  Run in this process, the JVM would outlive the test
    and serve every later in-process session, with the environment of its start (the S3
    credentials test_remote sets would not reach its workers)."""
    return subprocess.run([str(KDUMP_BIN), "spark", "export", *map(str, args)],
                          capture_output=True, text=True, env=subprocess_env(), timeout=600)


@pytest.mark.slow
def test_same_dataset_as_spark_export(kdump: KdumpRunner, sample_dir: Path, k4: Path,
                                      damaged: Path, tmp_path: Path) -> None:
    """Read back, a dataset kdump export writes and one kdump spark export writes (local
    mode) are the same rows and columns; with --decoder auto, the same decoded text."""
    try:
        from kdump.spark.session import find_java

        find_java()
        import pyspark  # noqa: F401
    except Exception as e:
        pytest.skip(f"no Spark here: {e}")
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    assert export(kdump, sample_dir, "-o", ours).rc == 0
    r = _spark_export(sample_dir, "--output", theirs, "--master", "local[2]")
    assert r.returncode == 0, r.stderr
    a, b = _all_rows(ours), _all_rows(theirs)
    assert a[0] == b[0] and len(a[0]) == 26
    assert a == b and len(a[1]) == 267
    ours2, theirs2 = tmp_path / "ours2", tmp_path / "theirs2"
    assert export(kdump, k4, "-o", ours2).rc == 0
    r = _spark_export(k4, "--output", theirs2, "--master", "local[2]", "--decoder", "auto")
    assert r.returncode == 0, r.stderr
    names, got = _all_rows(ours2, [*_all_rows(theirs)[0], "key_decoded", "value_decoded",
                                   "decode_error"])
    _, want = _all_rows(theirs2, names)
    assert got == want and len(got) == 460  # report_fixture: legacy-0 has a record whose header names id 99
    # damaged batches: rows of neither (kdump spark export skips them unless --verify)
    ours3, theirs3, flagged = tmp_path / "ours3", tmp_path / "theirs3", tmp_path / "flagged"
    assert export(kdump, damaged, "-o", ours3).rc == 1
    r = _spark_export(damaged, "--output", theirs3, "--master", "local[2]")
    assert r.returncode == 0, r.stderr
    a, b = _all_rows(ours3), _all_rows(theirs3)
    assert a == b and 0 < len(a[1]) < 267
    r = _spark_export(damaged, "--output", flagged, "--master", "local[2]", "--verify")
    assert r.returncode == 0, r.stderr
    rel = duckdb.sql(f"select crc_valid, count(*) from read_parquet('{flagged}/**/*.parquet', "
                     "hive_partitioning=true) group by crc_valid order by crc_valid")
    # the rows of the damaged batches, read as far as they go, beside every intact row
    assert rel.fetchall() == [(False, 6), (True, len(a[1]))]


def test_payloads_not_framed_beside_a_registry_have_no_decoded_text(
        kdump: KdumpRunner, k4: Path, tmp_path: Path) -> None:
    """A real Confluent log dir: the registry's _schemas beside Control Center's Streams
    changelogs (LZ4 batches of binary Protobuf values, text keys).  Those payloads are not
    framed: their key_decoded/value_decoded are null, as dump --format json shows nothing
    under decoded for them, not the bytes as text full of U+FFFD; framed payloads beside
    them keep their decoded JSON."""
    from tests.support import writer as w

    ld = tmp_path / "ld"
    shutil.copytree(k4, ld)
    values = [b"\x7f\n\x97\x01\x08\x01\x12\x27connector-producer-%d\xe8\xb3\xb4\xef1" % o
              for o in range(6)]
    w.write_replica(ld / "store-changelog-0", [w.v2_batch(
        [w.Rec(key=b"~4MkU3OEVBNTcw%d" % o, value=v, timestamp=w.TS0 + o)
         for o, v in enumerate(values)], codec=w.LZ4)])
    out = tmp_path / "out"
    r = export(kdump, ld, "-o", out)
    assert r.rc == 0, r.err
    got = duckdb.sql(f"""select "offset", key, value, key_decoded, value_decoded, decode_error
        from read_parquet('{out}/topic=store-changelog/**/*.parquet') order by 1""").fetchall()
    assert [(o, v) for o, _, v, *_ in got] == list(enumerate(values))
    assert [x[3:] for x in got] == [(None, None, None)] * 6
    # dump agrees: nothing under decoded for them
    for line in kdump("dump", "--format", "json", "--print-data-log",
                      ld / "store-changelog-0").lines:
        o = json.loads(line)
        assert o["type"] != "record" or "decoded" not in o, o
    # every decoded cell of the export is what dump shows under decoded, and no more
    dumped = {}
    for line in kdump("dump", "--format", "json", "--print-data-log", ld).lines:
        o = json.loads(line)
        if o["type"] == "record" and o.get("topic") not in (None, "__cluster_metadata"):
            dumped[(o["topic"], o["partition"], o["offset"])] = o.get("decoded", {})
    rel = duckdb.sql(f"""select topic, "partition", "offset", key_decoded, value_decoded from
        read_parquet('{out}/**/*.parquet', hive_partitioning=true, union_by_name=true)
        where topic <> '__cluster_metadata' and not is_control""").fetchall()
    framed = 0
    for topic, partition, offset, kd, vd in rel:
        d = dumped[(topic, partition, offset)]
        assert (kd is None) == (d.get("key") is None), (topic, offset, kd, d)
        assert (vd is None) == (d.get("value") is None), (topic, offset, vd, d)
        framed += vd is not None and '"schema_id"' in vd
    assert framed == 9  # report_fixture's framed Avro and Protobuf payloads


def test_a_segment_copied_under_another_name_is_a_finding(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    """A botched copy (a segment again under a higher base offset): its batches are intact
    and exported as read, so a query sees those offsets twice; the finding says so, as
    verify-crc does (below-segment-base), on stderr and in _findings, exit 1."""
    from tests.support import writer as w

    part = tmp_path / "ld" / "t-0"
    w.write_replica(part, [w.v2_batch(w.numbered_records(o, 5), base_offset=o)
                           for o in range(0, 20, 5)])
    seg0 = part / "00000000000000000000.log"
    (part / "00000000000000000012.log").write_bytes(seg0.read_bytes())
    out = tmp_path / "out"
    r = export(kdump, part, "-o", out)
    assert r.rc == 1, r.err
    found = [json.loads(line) for line in (out / "_findings").read_text().splitlines()]
    assert [(f["file"], f["position"], f["kind"], f["base_offset"]) for f in found] == [
        (str(part / "00000000000000000012.log"), 0, "below-segment-base", 0)]
    assert "below-segment-base" in r.err
    got = duckdb.sql(f"""select "offset", count(*) from read_parquet('{out}/**/*.parquet')
        group by 1 order by 1""").fetchall()
    assert got == [(o, 2) for o in range(20)]
    v = kdump("verify-crc", part, "--format", "json")
    assert v.rc == 1 and '"below-segment-base"' in v.out


# --- docs/export.md's recipes -----------------------------------------------------------------------------
EXPORT_DOC = (Path(__file__).resolve().parents[3] / "docs" / "export.md").read_text(
    encoding="utf-8")
RECIPE = re.compile(r"<!-- export-recipe -->\n```python\n(?P<code>.*?)```\n\n```text\n(?P<out>.*?)```",
                    re.S)
RECIPES = [(m["code"], m["out"]) for m in RECIPE.finditer(EXPORT_DOC)]


def test_export_doc_has_three_recipes() -> None:
    assert len(RECIPES) == 3
    assert "pandas" in RECIPES[1][0] and "polars" in RECIPES[1][0]
    assert "__consumer_offsets" in RECIPES[2][0]


@pytest.fixture(scope="module")
def k4_export(k4: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("recipes") / "k4-export"
    r = subprocess.run([sys.executable, "-m", "kdump", "export", str(k4), "-o", str(out)],
                       capture_output=True, text=True, env=subprocess_env())
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize(("code", "expected"), RECIPES, ids=["duckdb", "frames", "lag"])
def test_export_doc_recipe_prints_what_it_shows(code: str, expected: str, k4_export: Path) -> None:
    import contextlib
    import io

    assert '"/tmp/k4-export"' in code
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code.replace('"/tmp/k4-export"', repr(str(k4_export))), "docs/export.md", "exec"),
             {"__name__": "recipe"})
    assert buf.getvalue() == expected


def test_big_segment_in_ranges(seg24: Path, tmp_path: Path, kdump: KdumpRunner) -> None:
    """A segment past --split-bytes is written as ranges cut at batch boundaries: every
    record once, the same files for any --jobs, the segment hashed once."""
    import hashlib

    digests = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        r = export(kdump, seg24, "-o", out, "--split-bytes", "4M", "--jobs", jobs)
        assert r.rc == 0, r.err
        m = json.loads((out / "_manifest.json").read_text())
        digests.append([(f["file"], f["sha256"], f["rows"]) for f in m["files"]])
        seg = seg24 / "big-0" / "00000000000000000000.log"
        assert m["read"] == [{"file": str(seg), "size": seg.stat().st_size,
                              "sha256": hashlib.sha256(seg.read_bytes()).hexdigest()}]
    assert digests[0] == digests[1] and len(digests[0]) >= 6
    assert digests[0][1][0] == "topic=big/partition=0/logdir-00000000000000000000-" \
        f"{int(digests[0][1][0].rsplit('-', 1)[1].split('.')[0]):010d}.parquet"
    n, distinct, top = duckdb.sql(f"""select count(*), count(distinct "offset"), max("offset")
        from read_parquet('{tmp_path}/out1/**/*.parquet')""").fetchall()[0]
    assert n == distinct == top + 1 == sum(x[2] for x in digests[0]) > 300_000
