"""kdump on Spark: ``kdump spark size-report | verify-crc | export`` and the ``kafka_log``
data source, against the local commands on the same data.

One local Spark session (``local[2]``, UI off) serves the whole run; the CLI commands
run in-process and borrow it.  Skipped only when pyspark or Java is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KdumpRunner, subprocess_env
from tests.support import writer as w

REPO = Path(__file__).resolve().parents[2]


def _spark_missing() -> str | None:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as e:
        return f"pyspark/pyarrow not installed ({e})"
    from kdump.spark.session import find_java

    if find_java() is None:
        return "no Java runtime"
    return None


_MISSING = _spark_missing()
needs_spark = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")


# --- fixtures ----------------------------------------------------------------------------
@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one Spark session of the test run, started the way the CLI starts one."""
    if _MISSING is not None:
        pytest.skip(_MISSING)
    from kdump.spark.session import start

    ks = start("local[2]", app_name="kdump-tests",
               conf={"spark.sql.shuffle.partitions": "2"})
    assert ks.owned
    assert ks.spark.sparkContext.getConf().get("spark.ui.enabled") == "false"
    yield ks.spark
    ks.stop()


TS = 1_700_000_000_000


def _events_batch(off: int, b: int, n: int) -> bytes:
    codec = [w.NONE, w.GZIP, w.LZ4, w.ZSTD, w.SNAPPY][b % 5]
    recs = []
    for i in range(n):
        o = off + i
        recs.append(w.Rec(
            key=None if (i == 0 and b % 3 == 0) else b"k%d" % o,
            value=None if (i == 1 and b % 7 == 0) else (b"value-%d-" % o) * (1 + i % 4),
            headers=[("trace", b"t%d" % o), ("null", None)] if i % 2 else [],
            timestamp=TS + o * 10 + (5 if i == 2 else 0),
        ))
    pid = 3000 + b % 2 if b % 4 == 1 else -1
    return w.v2_batch(recs, base_offset=off, codec=codec, producer_id=pid,
                      producer_epoch=0 if pid >= 0 else -1,
                      base_sequence=off if pid >= 0 else -1, partition_leader_epoch=b // 10)


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet")
    write_fleet(root)
    return root


def write_fleet(root: Path) -> None:
    """Two brokers' log dirs (``root/logs1``, ``root/logs2``) built with PartitionWriter:
    several topics and partitions, many small segments, every codec, headers, nulls,
    producers, legacy v0/v1 data, a preallocated active segment."""
    for broker in (1, 2):
        logdir = root / f"logs{broker}"
        for part in range(3):
            pw = w.PartitionWriter(logdir / f"events-{part}", segment_bytes=1200,
                                   index_interval_bytes=400,
                                   preallocate_active_index=(part == 2 and broker == 1),
                                   active_index_slots=64)
            off = 0
            for b in range(18 + part * 3):
                n = 2 + (b + part) % 5
                pw.append(_events_batch(off, b, n))
                off += n
            pw.write_leader_epoch_checkpoint()
            pw.close()
        lw = w.PartitionWriter(logdir / "legacy-0", segment_bytes=400)
        off = 0
        for i in range(20):
            if i % 4 == 3:
                msgs = [w.Rec(key=b"lk%d" % (off + j), value=b"lv%d" % (off + j), timestamp=TS + j)
                        for j in range(3)]
                lw.append(w.legacy_compressed(1, msgs, last_offset=off + 2, codec=w.GZIP))
                off += 3
            else:
                lw.append(w.legacy_message(i % 2, b"lk%d" % off, b"lv%d" % off, offset=off,
                                           timestamp=TS + off))
                off += 1
        lw.close()
        (logdir / "meta.properties").write_bytes(w.meta_properties({"node.id": str(broker),
                                                                   "version": "1"}))


@pytest.fixture(scope="session")
def damaged(tmp_path_factory: pytest.TempPathFactory, fleet: Path) -> Path:
    """A copy of one broker with a flipped CRC byte, a zeroed region and a truncated
    segment, in three different partitions."""
    root = tmp_path_factory.mktemp("damaged") / "logs"
    shutil.copytree(fleet / "logs1", root)

    def logs(part: str) -> list[Path]:
        return sorted((root / part).glob("*.log"))

    # events-0: flip a byte of the second batch's CRC field (bytes 17..20)
    seg = logs("events-0")[0]
    data = bytearray(seg.read_bytes())
    second = 12 + int.from_bytes(data[8:12], "big")
    data[second + 18] ^= 0xFF
    seg.write_bytes(bytes(data))
    # events-1: zero 300 bytes in the middle of the second segment
    seg = logs("events-1")[1]
    data = bytearray(seg.read_bytes())
    mid = len(data) // 3
    data[mid : mid + 300] = bytes(300)
    seg.write_bytes(bytes(data))
    # legacy-0: cut the first (inactive) segment short
    seg = logs("legacy-0")[0]
    seg.write_bytes(seg.read_bytes()[:-10])
    return root


@pytest.fixture(scope="session")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 3 MB segment with a dense index (split into byte ranges at 256 KiB)."""
    d = tmp_path_factory.mktemp("big") / "big-0"
    w.big_segment(d, 3 << 20, records_per_batch=20, value_size=40, index_interval_bytes=4096)
    return d


# --- CLI: same output as the local commands ------------------------------------------------
@needs_spark
@pytest.mark.parametrize("args", [
    ["--by", "partition"],
    ["--by", "segment"],
    ["--by", "topic", "--shallow"],
    ["--by", "segment", "--top", "3"],
])
@pytest.mark.slow
def test_size_report_json_matches_local(spark: Any, kdump: KdumpRunner, sample_dir: Path,
                                        fleet: Path, args: list[str]) -> None:
    for paths in ([sample_dir], [fleet / "logs1", fleet / "logs2"]):
        local = kdump("size-report", *paths, *args, "--format", "json")
        dist = kdump("spark", "size-report", *paths, *args, "--format", "json")
        assert local.rc == 0
        assert (dist.rc, dist.out) == (local.rc, local.out)
        rows = [json.loads(line) for line in dist.lines]
        assert rows[-1]["type"] == "total" and rows[-1]["records"] > 0


@needs_spark
def test_size_report_text_and_damage_match_local(spark: Any, kdump: KdumpRunner, fleet: Path,
                                                 damaged: Path) -> None:
    paths = [fleet / "logs2", damaged]
    local = kdump("size-report", *paths, "--by", "segment")
    dist = kdump("spark", "size-report", *paths, "--by", "segment")
    assert (dist.rc, dist.out, dist.err) == (local.rc, local.out, local.err)
    assert "truncated" in local.err


@needs_spark
def test_size_report_relative_paths(spark: Any, kdump: KdumpRunner, fleet: Path,
                                    damaged: Path) -> None:
    local = kdump("size-report", "logs", "--format", "json", cwd=damaged.parent)
    dist = kdump("spark", "size-report", "logs", "--format", "json", cwd=damaged.parent)
    assert (dist.rc, dist.out) == (local.rc, local.out)
    assert '"file":"logs/legacy-0/' in dist.out  # problems name the path as given


@needs_spark
@pytest.mark.parametrize("args", [[], ["--shallow"], ["--strict"]])
def test_verify_crc_matches_local(spark: Any, kdump: KdumpRunner, fleet: Path, damaged: Path,
                                  args: list[str]) -> None:
    paths = [damaged, fleet / "logs2", damaged / "nonexistent"]
    local = kdump("verify-crc", *paths, *args, "--format", "json")
    dist = kdump("spark", "verify-crc", *paths, *args, "--format", "json")
    assert (dist.rc, dist.out) == (local.rc, local.out)
    kinds = {json.loads(line).get("kind") for line in local.lines}
    assert {"crc-mismatch", "truncated", "unreadable-file"} <= kinds
    assert ("zeroed-region" in kinds) == (args != ["--strict"])  # strict stops there
    assert local.rc == 2  # the missing path


@needs_spark
def test_verify_crc_text_matches_local(spark: Any, kdump: KdumpRunner, fleet: Path,
                                       damaged: Path) -> None:
    local = kdump("verify-crc", damaged)
    dist = kdump("spark", "verify-crc", damaged)
    assert (dist.rc, dist.out, dist.err) == (local.rc, local.out, local.err) and local.rc == 1
    clean = kdump("spark", "verify-crc", fleet)
    assert clean.rc == 0 and clean.out == "" and ": clean" in clean.err


# --- the kafka_log data source -----------------------------------------------------------
def _local_records(paths: list[Path]) -> list[tuple[Any, ...]]:
    """(file, batch position, offset, timestamp, key, value, headers) of every record
    of every .log segment, from the local dump."""
    from kdump.ops.dump import DumpOptions, dump
    from kdump.ops.events import BatchEvent, FileStart

    out = []
    current = None
    for ev in dump([str(p) for p in paths], DumpOptions(deep_iteration=True)):
        if isinstance(ev, FileStart):
            current = ev.file
        if isinstance(ev, BatchEvent) and current is not None and current.kind == "log":
            for r in ev.records or []:
                rec = r.record
                out.append((ev.batch.path, ev.batch.position, rec.offset, rec.timestamp,
                            rec.key, rec.value,
                            [(k.decode(), v) for k, v in rec.headers]))
    return sorted(out, key=lambda t: (t[0], t[2], t[1]))


def _rows(df: Any) -> list[tuple[Any, ...]]:
    def b(v: Any) -> bytes | None:
        return None if v is None else bytes(v)

    out = [(r["file"], r["position"], r["offset"], r["timestamp"], b(r["key"]), b(r["value"]),
            [(h["key"], b(h["value"])) for h in r["headers"]]) for r in df.collect()]
    return sorted(out, key=lambda t: (t[0], t[2], t[1]))


def _read(spark: Any, path: Path | list[Path], **options: str) -> Any:
    import kdump.spark

    kdump.spark.register(spark)
    reader = spark.read.format("kafka_log").options(**options)
    if isinstance(path, list):
        return reader.load([str(p) for p in path])
    return reader.load(str(path))


@pytest.mark.slow
@needs_spark
def test_datasource_rows_equal_local_dump(spark: Any, sample_dir: Path, fleet: Path) -> None:
    for paths in ([sample_dir], [fleet / "logs1", fleet / "logs2"]):
        df = _read(spark, paths)
        got = _rows(df)
        want = _local_records(paths)
        assert len(got) > 100
        assert got == want


@needs_spark
def test_datasource_columns(spark: Any, fleet: Path) -> None:
    df = _read(spark, fleet / "logs1", verify="true", decoder="string")
    fields = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    assert fields["headers"] == "array<struct<key:string,value:binary>>"
    assert fields["key"] == fields["value"] == "binary"
    assert fields["crc_valid"] == "boolean" and fields["key_decoded"] == "string"
    row = df.where("topic = 'events' and partition = 1 and offset = 7").collect()
    assert len(row) == 1
    r = row[0]
    assert r["key_decoded"] == "k7" and bytes(r["key"]) == b"k7" and r["crc_valid"] is True
    assert r["segment"] == "00000000000000000000" and r["file"].endswith(".log")
    assert r["base_offset"] <= 7 <= r["last_offset"]
    legacy = df.where("topic = 'legacy'").select("magic", "compression").distinct().collect()
    assert {(x["magic"], x["compression"]) for x in legacy} == {(0, "none"), (1, "none"),
                                                                (1, "gzip")}


@needs_spark
def test_datasource_batch_level_and_verify(spark: Any, damaged: Path, kdump: KdumpRunner) -> None:
    df = _read(spark, damaged, level="batch", verify="true")
    assert "count" in df.columns and "offset" not in df.columns
    bad = df.where("not crc_valid").collect()
    local = [json.loads(line) for line in kdump("verify-crc", damaged, "--format", "json").lines]
    crc = [p for p in local if p.get("kind") == "crc-mismatch"]
    assert [(r["file"], r["position"]) for r in bad] == [(p["file"], p["position"]) for p in crc]
    summary = local[-1]
    assert df.count() == summary["batches"]


@needs_spark
def test_datasource_damaged_rows_equal_local_dump(spark: Any, damaged: Path) -> None:
    assert _rows(_read(spark, damaged)) == _local_records([damaged])


@needs_spark
def test_datasource_errors(spark: Any, sample_dir: Path, tmp_path: Path) -> None:
    from kdump.cli.spark import _spark_error

    with pytest.raises(Exception) as e:
        _read(spark, tmp_path / "nope").count()
    assert _spark_error(e.value) == (
        f"ValueError: kafka_log: cannot read {tmp_path / 'nope'}: unreadable-file: no such file "
        "or directory; option ignore_unreadable=true skips such paths")
    both = _read(spark, [tmp_path / "nope", sample_dir], ignore_unreadable="true")
    assert both.count() == _read(spark, sample_dir).count() > 0
    with pytest.raises(Exception) as e:
        _read(spark, sample_dir, level="bogus").count()
    assert _spark_error(e.value) == "ValueError: kafka_log: level='bogus': use record or batch"


def test_spark_error_line() -> None:
    from kdump.cli.spark import _spark_error

    text = ("[PYTHON_DATA_SOURCE_ERROR] Failed: Traceback (most recent call last):\n"
            '  File "x.py", line 1, in f\n    raise ValueError(m)\n'
            "ValueError: kafka_log: bad\n SQLSTATE: 38000")
    assert _spark_error(Exception(text)) == "ValueError: kafka_log: bad"
    assert _spark_error(Exception("one line\nmore")) == "one line"


def test_split_points_are_batch_starts(big: Path) -> None:
    from kdump.files.logdir import walk
    from kdump.files.splits import split_points
    from kdump.findings import Problem
    from kdump.records.file_records import LogReader
    from kdump.source import FileSource

    seg = next(f for f in walk([str(big)]) if not isinstance(f, Problem) and f.kind == "log")
    size = os.path.getsize(seg.path)
    points = split_points(seg, size, 256 << 10)
    assert len(points) >= 10 and points[0] == 0 and points == sorted(set(points))
    with FileSource(seg.path) as src:
        starts = {b.position for b in LogReader(src)}
    assert set(points) <= starts
    assert split_points(seg, size, size) == [0]


@pytest.mark.slow
@needs_spark
def test_split_segment_yields_each_record_once(spark: Any, big: Path, tmp_path: Path) -> None:
    whole = _read(spark, big)
    split = _read(spark, big, split_bytes="256K")
    assert whole.rdd.getNumPartitions() == 1
    assert split.rdd.getNumPartitions() >= 10
    want = _local_records([big])
    got = _rows(split)
    assert got == want
    assert [t[2] for t in got] == list(range(len(want)))
    # damage just before a boundary: the range before it resynchronises up to it, the
    # range after starts there; still every intact record once
    copy = tmp_path / "big-0"
    shutil.copytree(big, copy)
    log = next(copy.glob("*.log"))
    from kdump.files.logdir import classify
    from kdump.files.splits import split_points

    points = split_points(classify(str(log)), log.stat().st_size, 256 << 10)
    data = bytearray(log.read_bytes())
    b = points[3]
    data[b - 3000 : b - 100] = bytes(2900)
    log.write_bytes(bytes(data))
    got = _rows(_read(spark, copy, split_bytes="256K"))
    want = _local_records([copy])
    assert got == want and len(got) < len(_local_records([big]))
    assert len({t[2] for t in got}) == len(got)


@pytest.mark.slow
@needs_spark
def test_export_parquet(spark: Any, kdump: KdumpRunner, fleet: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    r = kdump("spark", "export", fleet / "logs1", "--output", out, "--split-bytes", "1K",
              "--format", "json")
    assert r.rc == 0, r.err
    result = json.loads(r.lines[-1])
    assert result["type"] == "export" and result["tasks"] > result["segments"] > 5
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["topic=events", "topic=legacy"]
    assert (out / "topic=events" / "partition=2").is_dir()
    back = spark.read.parquet(str(out))
    assert back.count() == result["rows"] == len(_local_records([fleet / "logs1"]))
    assert _rows(back) == _local_records([fleet / "logs1"])
    again = kdump("spark", "export", fleet / "logs1", "--output", out)
    assert again.rc == 2 and "already exists" in again.err
    nothing = kdump("spark", "export", tmp_path / "nope", "--output", tmp_path / "none")
    # no input exists: said before Spark is asked to do anything
    assert (nothing.rc, nothing.out, nothing.err) == (
        2, "", f"kdump: {tmp_path / 'nope'}: no such file or directory\n")
    assert not (tmp_path / "none").exists()
    r = kdump("spark", "export", fleet / "logs1", "--output", out, "--mode", "overwrite",
              "--level", "batch", "--topic", "legacy")
    assert r.rc == 0 and r.out.startswith("exported ") and "batches" in r.out
    assert [p.name for p in out.iterdir() if p.is_dir()] == ["topic=legacy"]


# --- what Spark needs, handled for the user ----------------------------------------------
def test_no_java_is_one_line(kdump: KdumpRunner, sample_dir: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    r = kdump("spark", "size-report", sample_dir)
    assert r.rc == 2 and r.out == ""
    assert r.err_lines == [
        "kdump: Spark needs a Java runtime (17 or later) and none was found: no java on PATH "
        "and JAVA_HOME is not set"]
    monkeypatch.setenv("JAVA_HOME", "/nonexistent")
    r = kdump("spark", "verify-crc", sample_dir)
    assert r.rc == 2 and "JAVA_HOME is set but $JAVA_HOME/bin/java is not there" in r.err


def test_no_pyspark_is_one_line(kdump: KdumpRunner, sample_dir: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)
    r = kdump("spark", "export", sample_dir, "--output", "x")
    assert r.rc == 2 and r.err_lines == [
        "kdump: pyspark is not installed: the spark commands need it (pip install 'kdump[spark]')"]


def test_core_never_imports_pyspark() -> None:
    code = ("import sys, kdump.cli, kdump.ops.dump, kdump.ops.verify_crc, kdump.ops.size_report, "
            "kdump.cli.spark, kdump.spark\n"
            "try:\n    kdump.cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "try:\n    kdump.cli.main(['spark', '--help'])\nexcept SystemExit:\n    pass\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'pyarrow'))\n"
            "print(bad, file=sys.stderr)\nsys.exit(1 if bad else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    # and in the sources: only kdump/spark/ names pyspark in an import
    for py in (REPO / "kdump").rglob("*.py"):
        if "spark" in py.relative_to(REPO / "kdump").parts[:1]:
            continue
        for line in py.read_text().splitlines():
            s = line.strip()
            assert not (s.startswith(("import pyspark", "from pyspark"))), f"{py}: {s}"


def test_package_zip_for_executors(tmp_path: Path) -> None:
    from kdump.spark.session import package_zip

    with zipfile.ZipFile(package_zip(str(tmp_path))) as z:
        names = set(z.namelist())
    assert {"kdump/__init__.py", "kdump/spark/tasks.py", "kdump/ops/size_report/__init__.py"} <= names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


@pytest.fixture(scope="module", autouse=True)
def own_session_run(sample_dir: Path) -> Iterator[subprocess.Popen[str] | None]:
    """``kdump spark size-report --master local[1]`` in a process of its own (its own
    JVM), started when this module starts so its start-up overlaps the other tests."""
    if _MISSING is not None:
        yield None
        return
    tmp = sample_dir.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    env = subprocess_env()
    env["TMPDIR"] = str(tmp)
    env.pop("PYSPARK_PYTHON", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kdump", "spark", "size-report", "--master", "local[1]",
         str(sample_dir), "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


@needs_spark
def test_own_session_subprocess_is_quiet(own_session_run: subprocess.Popen[str] | None,
                                         sample_dir: Path) -> None:
    """A real run in its own process: its own JVM on local[1], nothing on stderr, the
    same JSON as the local command, and no temporary files left behind."""
    assert own_session_run is not None
    out, err = own_session_run.communicate(timeout=300)
    local = subprocess.run([sys.executable, "-m", "kdump", "size-report", str(sample_dir),
                            "--format", "json"], capture_output=True, text=True,
                           env=subprocess_env(), timeout=120)
    assert (own_session_run.returncode, err) == (0, "")
    assert out == local.stdout
    tmp = sample_dir.parent / "tmp"
    assert [p.name for p in tmp.iterdir() if p.name.startswith("kdump-spark-")] == []


@needs_spark
def test_datasource_decodes_schema_registry_payloads(spark: Any,
                                                     tmp_path_factory: pytest.TempPathFactory
                                                     ) -> None:
    """decoder=auto with the registry's _schemas beside the topics: value_decoded holds
    the decoded JSON, as dump's decoded.value (tests/support/registry_writer.py's sample)."""
    pytest.importorskip("fastavro", reason="the schemas extra is not installed")
    from tests.support import registry_writer

    root = tmp_path_factory.mktemp("spark-schemas")
    logdir = registry_writer.sample_logdir(root)
    df = _read(spark, logdir, decoder="auto", topics="orders,events")
    rows = df.orderBy("topic", "offset").select("topic", "offset", "value_decoded",
                                                "decode_error").collect()
    got = [(r["topic"], r["offset"], json.loads(r["value_decoded"])["data"],
            r["decode_error"]) for r in rows]
    assert got[0] == ("events", 0, {"id": "o1", "price": {"currency": "EUR",
                                                          "units": "1099511627776"}}, None)
    assert got[3] == ("orders", 0, {"id": 0, "customer": "c0", "amount": "0.50",
                                    "at": "2024-01-02T03:04:05+00:00", "note": "gift",
                                    "address": {"city": "Oslo"}}, None)
    assert len(got) == 6


@needs_spark
def test_datasource_kafka_version(spark: Any, tmp_path: Path) -> None:
    """kafka_version: internal topics read with that release's layouts, as dump
    --kafka-version reads them (a 4.0 ShareSnapshot does not fit 4.1's layout)."""
    from tests.decoders.test_kafka4_records import _share_snapshot

    pw = w.PartitionWriter(tmp_path / "__share_group_state-0")
    key, value, _ = _share_snapshot("4.0")
    pw.append(w.v2_batch([w.Rec(key, value)]))
    pw.close()
    got = {}
    for version in ("4.0", "4.1"):
        (r,) = _read(spark, tmp_path, decoder="auto", kafka_version=version).collect()
        got[version] = (json.loads(r["value_decoded"])["data"]["startOffset"]
                        if r["decode_error"] is None else r["decode_error"])
    assert got == {"4.0": 100, "4.1": (
        "Error at offset 0, skipping. Could not read record with version 0 from value's "
        "buffer due to: non-nullable field stateBatches was serialized as null (read as "
        "ShareSnapshotValue (Kafka 4.1+)).")}


def test_starvation_is_relayed_once(tmp_path: Path) -> None:
    """kdump keeps Spark's log off the terminal; the one line that says why a job waits
    for ever (no executor takes it: no worker, or none big enough) is passed on, once,
    from the log of a session kdump started, and nothing from a borrowed session's."""
    from kdump.spark.session import KdumpSpark, relay_starvation

    log = tmp_path / "spark.log"
    log.write_text("26/11/26 13:49:00 WARN Utils: something else\n")
    said: list[str] = []
    ks = KdumpSpark(None, True, str(log), None)
    import time

    with relay_starvation(ks, said.append, interval=0.05):
        with log.open("a") as f:
            for _ in range(2):
                f.write("26/11/26 13:49:34 WARN TaskSchedulerImpl: Initial job has not accepted "
                        "any resources; check your cluster UI to ensure that workers are "
                        "registered and have sufficient resources\n")
                f.flush()
                deadline = time.monotonic() + 60  # the watcher's pace: a hang guard only
                while not said and time.monotonic() < deadline:
                    time.sleep(0.01)
                time.sleep(0.2)  # four intervals more: a second line, if it said one
    assert said == [
        'no executor has taken the job yet: Spark says "Initial job has not accepted any '
        "resources; check your cluster UI to ensure that workers are registered and have "
        f'sufficient resources" (still waiting; Ctrl-C to stop; Spark\'s log: {log})']
    borrowed: list[str] = []
    with relay_starvation(KdumpSpark(None, False, None, None), borrowed.append):
        pass
    assert borrowed == []


@needs_spark
def test_timeline_matches_local(spark: Any, kdump: KdumpRunner, tmp_path: Path) -> None:
    """kdump spark timeline: each partition's replicas and each coordinator partition
    read on the executors, the same events as the local command (the three-broker
    cluster of tests/support/timeline_fixture.py, a diverged replica and a lost segment
    among them)."""
    from tests.support.timeline_fixture import write_cluster

    dirs = write_cluster(tmp_path / "c")
    w.write_replica(dirs[0] / "solo-0", w.replica_batches([(0, 5, 0), (5, 5, 2)]))
    w.write_replica(dirs[1] / "solo-0", w.replica_batches([(0, 8, 0)]))
    w.write_replica(dirs[2] / "gap-0", w.replica_batches([(0, 5, 0), (5, 5, 0), (10, 5, 0)]),
                    roll_before={1, 2})
    (dirs[2] / "gap-0" / "00000000000000000005.log").unlink()  # data lost
    local = kdump("timeline", *dirs, "--format", "json")
    dist = kdump("spark", "timeline", *dirs, "--format", "json")
    assert (dist.rc, dist.out) == (local.rc, local.out)
    assert local.rc == 1
    kinds = {json.loads(line).get("kind") for line in local.out.splitlines()}
    assert {"truncation", "txn-abort", "group-rebalance", "broker-fenced",
            "data-lost"} <= kinds


def _cut_logdir(root: Path) -> Path:
    """A log dir of four topics, each with the batch at offset 25 cut from its segment
    (offsets 0-49, the high watermark 50): ``cmp`` compacted only by --config, ``kcmp``
    by the KRaft metadata, ``kdel`` compacted by the metadata but delete by --config,
    ``del`` delete (Kafka's default)."""
    topics = ("cmp", "kcmp", "kdel", "del")
    ld = root / "ld"
    ld.mkdir(parents=True)
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "kdump-test-cluster"}))
    (ld / "replication-offset-checkpoint").write_bytes(
        w.offset_checkpoint([(t, 0, 50) for t in topics]))
    for t in topics:
        pw = w.PartitionWriter(ld / f"{t}-0")
        for o in range(0, 50, 5):
            pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
        pw.close()
        for p in (ld / f"{t}-0").iterdir():
            if p.suffix in (".index", ".timeindex"):
                p.unlink()
        log = ld / f"{t}-0" / "00000000000000000000.log"
        data = log.read_bytes()
        starts = [0]
        for e in w._iter_entries(data):
            starts.append(starts[-1] + e.size)
        log.write_bytes(data[:starts[5]] + data[starts[6]:])
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    lw.append([w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": t, "name": "cleanup.policy",
        "value": "compact"}) for t in ("kcmp", "kdel")], timestamp=TS)
    lw.close()
    return ld


@needs_spark
@pytest.mark.parametrize("command", ["verify-crc", "size-report"])
def test_cleanup_policies_reach_the_executors(spark: Any, kdump: KdumpRunner, tmp_path: Path,
                                              command: str) -> None:
    """--config and the KRaft metadata's cleanup policies are read on the driver and
    what they decide travels to the executors (the compacted partition directories):
    a batch cut from a compacted topic is the cleaner's gap on Spark as locally, one cut
    from a delete-policy topic data-lost, whichever of them says the policy."""
    ld = _cut_logdir(tmp_path)
    config = ["--config", "cmp:cleanup.policy=compact", "--config", "kdel:cleanup.policy=delete"]
    local = kdump(command, ld, *config, "--format", "json")
    dist = kdump("spark", command, ld, *config, "--format", "json")
    assert (dist.rc, dist.out) == (local.rc, local.out)
    objs = [json.loads(line) for line in local.out.splitlines()]
    lost = sorted((o["file"].rsplit("/", 1)[-1], o["lost_offsets"]) for o in objs
                  if o.get("type") == "problem" and o["kind"] == "data-lost")
    assert lost == [("del-0", [25, 29]), ("kdel-0", [25, 29])]
    assert local.rc == 1
    # without --config: cmp is delete too, kdel compacted
    local = kdump(command, ld, "--format", "json")
    dist = kdump("spark", command, ld, "--format", "json")
    assert (dist.rc, dist.out) == (local.rc, local.out)
    objs = [json.loads(line) for line in local.out.splitlines()]
    lost = sorted((o["file"].rsplit("/", 1)[-1], o["lost_offsets"]) for o in objs
                  if o.get("type") == "problem" and o["kind"] == "data-lost")
    assert lost == [("cmp-0", [25, 29]), ("del-0", [25, 29])]
