"""Log dirs in object storage: every command on an ``s3://`` URL against a REAL S3 API
server (moto's standalone server, a subprocess on 127.0.0.1, authentication on) gives
the same output, byte for byte, as on the local copy (paths aside: the output names the
URLs given).  Faults: a missing object, HTTP 500s (a fault-injecting proxy in front of
the server), a truncated object, wrong credentials, a backend not installed.

Skipped (with the reason) only when the server cannot start.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kdump import fs as kfs
from tests.conftest import KdumpRunner
from tests.support import s3server
from tests.support import writer as w


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[s3server.S3Server]:
    server = s3server.start_or_skip(tmp_path_factory.mktemp("moto"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log dir plus a truncated segment and a big segment, written by
    tests/writer.py."""
    root = tmp_path_factory.mktemp("remote") / "logdir"
    w.write_sample_logdir(root)
    return root


@pytest.fixture(scope="module")
def url(s3: s3server.S3Server, local: Path) -> str:
    return s3.upload(local, "fleet/broker-1/logdir")


@pytest.fixture
def s3env(s3: s3server.S3Server, monkeypatch: pytest.MonkeyPatch) -> s3server.S3Server:
    for k, v in s3.env().items():
        monkeypatch.setenv(k, v)
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(k, raising=False)
    kfs.clear_cache()
    yield s3
    kfs.clear_cache()


def _same(kdump: KdumpRunner, args: list[str], local: Path, url: str, local_arg: str,
          remote_arg: str) -> tuple[int, str]:
    a = kdump(*args, local_arg.format(root=local))
    kfs.clear_cache()
    b = kdump(*args, remote_arg.format(root=url))
    assert b.rc == a.rc, b.err
    assert b.out.replace(url, str(local)) == a.out
    assert b.err.replace(url, str(local)) == a.err
    return a.rc, a.out


COMMANDS = [
    (["verify-crc", "--format", "text"], "{root}"),
    (["verify-crc", "--format", "json"], "{root}"),
    (["verify-index", "--format", "json"], "{root}"),
    (["verify-index", "--format", "text"], "{root}"),
    (["size-report", "--format", "json"], "{root}"),
    (["size-report", "--format", "text"], "{root}"),
    (["dump", "--format", "json"], "{root}"),
    (["dump", "--format", "text", "--print-data-log"], "{root}"),
    (["dump", "--format", "json", "--deep-iteration"], "{root}/orders-0/00000000000000000000.log"),
    (["dump", "--format", "json"], "{root}/orders-1/00000000000000000000.index"),
    (["dump", "--format", "json"], "{root}/meta.properties"),
    (["find-offset", "--format", "json"], "{root}/orders-0"),
    (["find-time", "--format", "json"], "{root}/orders-1"),
    (["timeline", "--format", "json"], "{root}"),
    (["timeline", "--format", "text"], "{root}"),
]


@pytest.mark.parametrize(("args", "path"), COMMANDS, ids=[" ".join(a) + " " + p for a, p in COMMANDS])
def test_every_command_same_output(kdump: KdumpRunner, s3env: s3server.S3Server, local: Path,
                                   url: str, args: list[str], path: str) -> None:
    extra = {"find-offset": ["5"], "find-time": [str(w.TS0 + 10)]}.get(args[0], [])
    a = kdump(*args, path.format(root=local), *extra)
    kfs.clear_cache()
    b = kdump(*args, path.format(root=url), *extra)
    assert a.out + a.err
    if args[0] == "size-report":
        # an object store keeps no block counts: its disk_bytes are null ("-" in text),
        # the local copy's what du counts
        a = _unallocated(a, args[2])
        assert '"disk_bytes":null' in b.out or " - " in b.out.splitlines()[-1]
    assert (b.rc, b.out.replace(url, str(local)), b.err.replace(url, str(local))) == \
        (a.rc, a.out, a.err)
    # these name no files (verify-index is silent on the healthy sample: issue 15)
    if args[0] not in ("find-time", "size-report", "verify-index"):
        assert url in b.out + b.err


def _unallocated(r: Any, fmt: str) -> Any:
    """A local size-report's output with its allocated bytes unknown, as a store's are."""
    import re
    from types import SimpleNamespace

    if fmt == "json":
        out = re.sub(r'"(replica_)?disk_bytes":\d+', lambda m: f'"{m[1] or ""}disk_bytes":null',
                     r.out)
    else:
        out = "".join(" ".join([*f[:2], "-", *f[3:]]) + "\n" if i else line + "\n"
                      for i, (line, f) in enumerate((x, x.split()) for x in r.out.splitlines()))
    return SimpleNamespace(rc=r.rc, out=out, err=r.err)


def test_file_url_same_output(kdump: KdumpRunner, local: Path) -> None:
    a = kdump("verify-index", "--format", "json", str(local))
    b = kdump("verify-index", "--format", "json", f"file://{local}")
    assert b.rc == a.rc == 0
    assert b.out.replace(f"file://{local}", str(local)) == a.out


def test_listing_is_one_walk(kdump: KdumpRunner, s3env: s3server.S3Server, url: str) -> None:
    """One paginated listing for the whole log dir; no metadata request per file (the
    listing gave the sizes); every other request is a ranged read of a file."""
    before = (kfs.RemoteStats.listings, kfs.RemoteStats.requests)
    r = kdump("verify-crc", "--format", "json", "--jobs", "1", url)  # requests counted here
    assert r.rc == 0, r.err
    files = json.loads(r.lines[-1])["files"]
    assert kfs.RemoteStats.listings - before[0] == 1
    assert files == 7
    # the sample's logs are small: one ranged read each
    assert kfs.RemoteStats.requests - before[1] == files


@pytest.fixture(scope="module")
def big_url(s3: s3server.S3Server, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    part = tmp_path_factory.mktemp("big") / "events-0"
    w.big_segment(part, 24 << 20)
    return part, s3.upload(part, "big/events-0")


def test_find_offset_fetches_kilobytes(kdump: KdumpRunner, s3env: s3server.S3Server,
                                       big_url: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    part, url = big_url
    proxy = s3server.FaultProxy(s3env.endpoint).start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        kfs.clear_cache()
        a = kdump("find-offset", "--format", "json", str(part), "123456")
        b = kdump("find-offset", "--format", "json", url, "123456")
        assert b.rc == a.rc == 0, b.err
        assert b.out.replace(url, str(part)) == a.out
        size = (part / "00000000000000000000.log").stat().st_size
        assert size > 24 << 20
        # counted at the server side: bytes of every GET answer (listing included)
        assert proxy.get_bytes < 256 << 10, proxy.get_bytes
    finally:
        proxy.stop()


@pytest.mark.parametrize("command", ["size-report", "verify-crc"])
def test_ranges_of_a_remote_segment(kdump: KdumpRunner, s3env: s3server.S3Server,
                                    big_url: tuple[Path, str], command: str) -> None:
    """--jobs cuts the 24 MiB remote segment into ranges (its index read from the bucket)
    and workers read them with ranged GETs: the output of one local process."""
    from kdump.files.logdir import classify
    from kdump.files.splits import SPLIT_BYTES, split_points

    part, url = big_url
    log = part / "00000000000000000000.log"
    kfs.clear_cache()
    assert len(split_points(classify(url + "/00000000000000000000.log"), log.stat().st_size,
                            SPLIT_BYTES)) >= 5
    a = kdump(command, "--format", "json", "--jobs", "1", str(part))
    if command == "size-report":
        a = _unallocated(a, "json")  # a store keeps no block counts
    kfs.clear_cache()
    b = kdump(command, "--format", "json", "--jobs", "2", url)
    # size-report names the log dir (the partition directory's parent) too
    got = b.out.replace(url, str(part)).replace(kfs.dirname(url), str(part.parent))
    assert (b.rc, got, b.err) == (a.rc, a.out, a.err)
    assert a.rc == 0


def test_missing_object(kdump: KdumpRunner, s3env: s3server.S3Server, url: str, local: Path) -> None:
    for cmd in (["dump"], ["verify-crc"], ["size-report"]):
        path = f"{url}/orders-0/00000000000000000099.log"
        r = kdump(*cmd, "--format", "text", path)
        a = kdump(*cmd, "--format", "text", str(local / "orders-0/00000000000000000099.log"))
        assert r.rc == a.rc == 2, r.err
        assert path in r.out + r.err
        assert "no such file" in (r.out + r.err)
    r = kdump("verify-crc", "--format", "json", "s3://kdump-test/no/such/prefix")
    assert r.rc == 2 and "no such file or directory" in r.out


def test_http_500_is_bounded_and_named(kdump: KdumpRunner, s3env: s3server.S3Server, url: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = s3server.FaultProxy(s3env.endpoint, fail_key="orders-1/00000000000000000031.log",
                                failures=-1).start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        kfs.clear_cache()
        r = kdump("verify-crc", "--format", "text", url)
        assert r.rc == 2
        bad = f"{url}/orders-1/00000000000000000031.log"
        line = [ln for ln in r.out.splitlines() if bad in ln]
        assert line and "read of bytes 0..4166 failed: HTTP 500 InternalError injected by the test" \
            in line[0], r.out
        # the other files were read: the walk went on
        assert r.err.startswith("verify-crc: 7 files, 84 batches: 1 error"), r.err
        # bounded: botocore's 2 attempts, times kdump's 1 + RETRIES
        assert 0 < proxy.hits <= 2 * (1 + kfs.RETRIES)
    finally:
        proxy.stop()


def test_transient_500_is_retried(kdump: KdumpRunner, s3env: s3server.S3Server, url: str,
                                  local: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = s3server.FaultProxy(s3env.endpoint, fail_key="orders-1/00000000000000000031.log",
                                failures=3).start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        kfs.clear_cache()
        a = kdump("verify-crc", "--format", "json", str(local))
        b = kdump("verify-crc", "--format", "json", url)
        assert (b.rc, b.out.replace(url, str(local))) == (a.rc, a.out)
        assert proxy.failures == 0
    finally:
        proxy.stop()


def test_truncated_object(kdump: KdumpRunner, s3env: s3server.S3Server, local: Path,
                          tmp_path: Path) -> None:
    part = tmp_path / "orders-0"
    shutil.copytree(local / "orders-0", part)
    log = part / "00000000000000000000.log"
    log.write_bytes(log.read_bytes()[:-37])
    url = s3env.upload(part, "truncated/orders-0")
    for cmd in (["verify-crc", "--format", "json"], ["dump", "--format", "text"],
                ["verify-index", "--format", "json"]):
        a = kdump(*cmd, str(part))
        kfs.clear_cache()
        b = kdump(*cmd, url)
        assert a.rc == 1 or cmd[0] == "dump"
        assert (b.rc, _without_witnesses(b.out.replace(url, str(part)))) == (
            a.rc, _without_witnesses(a.out))
        if cmd[0] == "dump":
            continue
        # the tail is one finding (issue 46), naming the offsets it loses in both; its
        # witnesses read from files (checkpoints, indexes, .txnindex) in local
        # directories only: an object store would pay a request per file for them, so
        # there only the listing's names witness (segment and snapshot names)
        local, remote = (_tail(x.out.replace(url, str(part))) for x in (a, b))
        assert local["lost_offsets"] == remote["lost_offsets"] == [45, 49]
        assert '"data-lost"' not in a.out + b.out  # not named twice
        assert {w["witness"] for w in local["witnesses"]} >= {
            "leader-epoch-checkpoint", "offset-index", "time-index", "txnindex"}
        assert remote["witnesses"] == [w for w in local["witnesses"]
                                       if w["witness"] in ("producer-snapshot", "segment-name")]
        assert remote["witnesses"]


def _tail(out: str) -> dict:
    """The one truncated finding of the output."""
    (p,) = [o for o in map(json.loads, out.splitlines())
            if o["type"] == "problem" and o["kind"] == "truncated"]
    return p


def _without_witnesses(out: str) -> list[dict]:
    """JSON lines less the data-lost findings and the findings' witnesses, and summaries
    less what counts them."""
    objs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if not objs:
        return [{"text": out}]
    kept = [o for o in objs if o.get("kind") != "data-lost"]
    for o in kept:
        o.pop("witnesses", None)
    for o in kept:
        if o["type"] == "summary":
            for k in ("problems", "errors", "by_kind"):
                o.pop(k)
    return kept


def test_wrong_credentials(kdump: KdumpRunner, s3env: s3server.S3Server, url: str,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    kfs.clear_cache()
    for cmd in ("verify-crc", "dump", "size-report"):
        r = kdump(cmd, "--format", "text", url)
        assert r.rc == 2, (r.out, r.err)
        text = r.out + r.err
        assert url in text
        assert "SignatureDoesNotMatch" in text or "access denied" in text or "Forbidden" in text
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAUNKNOWNKEY000000")
    kfs.clear_cache()
    r = kdump("find-offset", url + "/orders-0", "3")
    assert r.rc == 2 and url in r.out + r.err


def test_missing_backend_names_the_extra(kdump: KdumpRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    kfs.clear_cache()
    for scheme, module, extra in (("gs", "gcsfs", "gcs"), ("abfs", "adlfs", "azure")):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as when not installed
        r = kdump("verify-crc", "--format", "text", f"{scheme}://bucket/logdir")
        assert r.rc == 2
        assert f"pip install 'kdump[{extra}]'" in r.out + r.err, r.out + r.err
    r = kdump("dump", "ftp2://host/x.log")
    assert r.rc == 2 and "unsupported URL scheme ftp2://" in r.out + r.err


# --- Spark: the same URLs, executors reading byte ranges ---------------------------------
def _spark_missing() -> str | None:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as e:
        return f"pyspark/pyarrow not installed ({e})"
    from kdump.spark.session import find_java

    return "no Java runtime" if find_java() is None else None


@pytest.fixture(scope="module")
def spark_s3(s3: s3server.S3Server, url: str) -> Iterator[object]:
    """A local[2] session whose executors (Python workers forked by this process) see
    the same AWS_* environment as the driver."""
    why = _spark_missing()
    if why is not None:
        pytest.skip(why)
    mp = pytest.MonkeyPatch()
    for k, v in s3.env().items():
        mp.setenv(k, v)
    kfs.clear_cache()
    from kdump.spark.session import start

    ks = start("local[2]", app_name="kdump-remote-tests", conf={"spark.sql.shuffle.partitions": "2"})
    yield ks.spark
    if ks.owned:
        ks.stop()
    mp.undo()
    kfs.clear_cache()


@pytest.mark.parametrize("args", [["size-report", "--by", "segment"], ["verify-crc"]])
def test_spark_reads_the_bucket(spark_s3: object, kdump: KdumpRunner, local: Path, url: str,
                                args: list[str]) -> None:
    a = kdump(*args, "--format", "json", str(local))
    if args[0] == "size-report":
        a = _unallocated(a, "json")  # a store keeps no block counts
    b = kdump("spark", *args, "--format", "json", url)
    assert (b.rc, b.out.replace(url, str(local))) == (a.rc, a.out), b.err
    assert a.rc == 0


def test_spark_datasource_on_s3(spark_s3: object, local: Path, url: str) -> None:
    import kdump.spark
    from kdump.ops.dump import DumpOptions, dump
    from kdump.ops.events import BatchEvent

    spark: object = spark_s3
    kdump.spark.register(spark)
    df = spark.read.format("kafka_log").load(url)  # type: ignore[attr-defined]
    got = sorted((r["file"], r["position"], r["offset"], bytes(r["value"] or b""))
                 for r in df.collect())
    want = sorted((ev.batch.path.replace(str(local), url), ev.batch.position, r.record.offset,
                   r.record.value or b"")
                  for ev in dump([str(local)], DumpOptions(deep_iteration=True))
                  if isinstance(ev, BatchEvent) and ev.batch.path.endswith(".log")
                  for r in ev.records or [])
    assert len(got) > 100
    assert got == want


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two brokers' log dirs after an unclean election (orders-0 diverges at 20), and a
    KRaft __cluster_metadata-0 log, written by tests/writer.py."""
    root = tmp_path_factory.mktemp("brokers")
    common = [(0, 10, 0), (10, 10, 0)]
    b1 = w.broker_logdir(root / "b1", 1, high_watermarks=[("orders", 0, 20)])
    b2 = w.broker_logdir(root / "b2", 2, high_watermarks=[("orders", 0, 30)])
    w.write_replica(b1 / "orders-0", w.replica_batches([*common, (20, 10, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches(common)
                    + w.replica_batches([(20, 5, 1), (25, 5, 1)], tag="w"))
    commit = w.Rec(w.offset_commit_key("app", "orders", 0),
                   w.offset_commit_value_v3(12, w.DEFAULT_TIMESTAMP))
    w.write_replica(b2 / "__consumer_offsets-7", [w.v2_batch([commit], base_offset=0)])
    lw = w.MetadataLogWriter(b1 / "__cluster_metadata-0")
    lw.append([w.metadata_record("FeatureLevelRecord", {"Name": "metadata.version",
                                                        "FeatureLevel": 20})],
              timestamp=w.DEFAULT_TIMESTAMP)
    lw.close()
    return root


@pytest.mark.parametrize("args", [
    ["compare-replicas", "--format", "json", "{root}/b1", "{root}/b2"],
    ["compare-replicas", "--format", "text", "--print-data-log", "{root}/b1", "{root}/b2"],
    ["lag", "--format", "json", "{root}/b1", "{root}/b2"],
    ["metadata", "--format", "json", "{root}/b1"],
    ["metadata", "--format", "text", "{root}/b1/__cluster_metadata-0"],
], ids=lambda a: " ".join(a))
def test_new_commands_same_output(kdump: KdumpRunner, s3env: s3server.S3Server, brokers: Path,
                                  args: list[str]) -> None:
    """compare-replicas, lag and metadata read URLs too, with the same answers."""
    base = s3env.upload(brokers, "fleet/incident")
    a = kdump(*[x.format(root=brokers) for x in args])
    kfs.clear_cache()
    b = kdump(*[x.format(root=base) for x in args])
    assert a.out, a.err
    assert (b.rc, b.out.replace(base, str(brokers)), b.err.replace(base, str(brokers))) == \
        (a.rc, a.out, a.err)


def test_schema_registry_of_a_log_dir_in_s3(kdump: KdumpRunner, s3env: s3server.S3Server,
                                            tmp_path: Path) -> None:
    """The registry's topic is found in a log dir in S3 as in its local copy (one
    listing, not the local filesystem's calls): kdump schemas lists the same subjects
    and dump decodes the same payloads."""
    from tests.support import registry_writer as rw
    local = rw.sample_logdir(tmp_path)
    remote = s3env.upload(local, "registry/broker-1")
    here = kdump("schemas", "--format", "json", local)
    there = kdump("schemas", "--format", "json", remote)
    assert there.rc == here.rc == 0, there.err
    assert '"subject":"orders-value"' in there.out.replace(" ", "")
    assert there.out.replace(remote, "X") == here.out.replace(str(local), "X")
    dumped = kdump("dump", "--print-data-log", "--format", "json", remote + "/orders-0")
    assert dumped.rc == 0 and '"subject":"orders-value"' in dumped.out.replace(" ", "")
