"""``kdump spark`` against a real Spark standalone cluster: a master and one worker
(2 cores) started on 127.0.0.1 with the pip pyspark package's own launcher
(``bin/spark-class``; tests/support/sparkcluster.py), driven by real ``kdump spark`` processes
with ``--master spark://127.0.0.1:PORT``.

Every command runs on three log dirs at once: tests/writer.py's sample, a damaged copy
of it (a flipped CRC byte, a zeroed stretch, a truncated segment) and two brokers'
log dirs of several partitions and many segments (test_spark.write_fleet).  Its output
must be the local command's, byte for byte (size-report, verify-crc), or, for export,
the Parquet dataset must hold exactly what the local-mode ``kdump spark export`` wrote
and what ``kdump dump --format json`` says the records are.

Each command runs twice, at the same time, as two applications sharing the worker
(``--conf spark.cores.max=1`` each):

* ``--ship``: executors run a Python that has kdump's dependencies but not kdump (a
  node where kdump is not installed): they can only run the zip the driver ships;
* ``--no-ship``: executors run the venv's Python, where kdump is installed (with its
  native speed-ups), from relative paths in the driver's working directory.

Skipped only when Java is missing or the JVM cannot start; the cluster, the drivers and
their JVMs are stopped at the end, on failure and on Ctrl-C (process groups, and
``PR_SET_PDEATHSIG`` should this process die without cleaning up).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import subprocess_env
from tests.spark.test_spark import write_fleet
from tests.support import sparkcluster as sc
from tests.support import writer as w

pytestmark = pytest.mark.slow

KDUMP = [sys.executable, "-m", "kdump"]
#: one kdump spark run against the cluster, on a loaded 2-core machine (16 s when idle)
RUN_TIMEOUT = 900.0
MODES = ("ship", "no-ship")
#: export's options: segments cut into 2 KiB ranges (many tasks), a crc_valid column
EXPORT_ARGS = ["--split-bytes", "2K", "--verify", "--format", "json"]


# --- the cluster and the data ------------------------------------------------------------
@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            request: pytest.FixtureRequest) -> sc.Cluster:
    root = tmp_path_factory.mktemp("spark-standalone")
    try:
        cluster = sc.start_cluster(root, cores=2)
    except sc.ClusterUnavailable as e:
        pytest.skip(f"no Spark standalone cluster: {e}")
    request.addfinalizer(cluster.stop)
    return cluster


@pytest.fixture(scope="session")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sample/`` (tests/writer.py's), ``damaged/`` (a copy of it, damaged in three
    partitions) and ``fleet/logs1``, ``fleet/logs2`` (two brokers, several partitions)."""
    root = tmp_path_factory.mktemp("standalone-data")
    w.write_sample_logdir(root / "sample")
    shutil.copytree(root / "sample", root / "damaged")
    d = root / "damaged"
    # orders-0: a byte of the second batch's CRC field (batch bytes 17..20) flipped
    seg = d / "orders-0" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    second = 12 + int.from_bytes(data[8:12], "big")
    data[second + 18] ^= 0xFF
    seg.write_bytes(bytes(data))
    # orders-1: 300 bytes zeroed from the third batch of the active segment on (the
    # reader resynchronises at the next intact batch)
    seg = d / "orders-1" / "00000000000000000031.log"
    data = bytearray(seg.read_bytes())
    third = 0
    for _ in range(2):
        third += 12 + int.from_bytes(data[third + 8 : third + 12], "big")
    data[third : third + 300] = bytes(300)
    seg.write_bytes(bytes(data))
    # customers-0: the first (inactive) segment cut short
    seg = d / "customers-0" / "00000000000000000000.log"
    seg.write_bytes(seg.read_bytes()[:-10])
    write_fleet(root / "fleet")
    return root


#: the inputs, relative to ``data`` (--no-ship runs from there) or absolute (--ship)
INPUTS = ("sample", "damaged", "fleet/logs1", "fleet/logs2")


def _paths(data: Path, mode: str) -> list[str]:
    return list(INPUTS) if mode == "no-ship" else [str(data / p) for p in INPUTS]


@pytest.fixture(scope="session")
def nodes_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Python standing for a node where kdump is not installed (tests/support/sparkcluster.py)."""
    return sc.python_without_kdump(tmp_path_factory.mktemp("nodes-python"))


def test_nodes_python_has_no_kdump(nodes_python: str, tmp_path: Path) -> None:
    """The --ship runs prove something only if their executors cannot import an
    installed kdump: this interpreter cannot, but has kdump's dependencies, and finds
    kdump in a zip on its path."""
    env = subprocess_env()
    env.pop("PYTHONPATH", None)
    r = subprocess.run([nodes_python, "-c", "import kdump"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 1 and r.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: No module named 'kdump'")
    r = subprocess.run([nodes_python, "-c", "import crc32c, lz4, zstandard, snappy, pyarrow, "
                        "pyspark, click"], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    from kdump.spark.session import package_zip

    env["PYTHONPATH"] = package_zip(str(tmp_path))
    r = subprocess.run([nodes_python, "-c", "import kdump.spark.tasks, kdump.native as n; "
                        "print(kdump.__file__, n.speedups)"], capture_output=True, text=True,
                       env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{tmp_path}/kdump.zip/kdump/__init__.py None\n"


# --- running the commands ----------------------------------------------------------------
def _env(cluster: sc.Cluster, mode: str, nodes_python: str) -> dict[str, str]:
    env = cluster.driver_env(subprocess_env())
    env.pop("PYTHONPATH", None)
    # where the executors' Python is: a node without kdump (--ship), or this venv's, which
    # has kdump installed (--no-ship); kdump keeps a PYSPARK_PYTHON set for a cluster
    env["PYSPARK_PYTHON"] = nodes_python if mode == "ship" else sys.executable
    return env


def _app(command: str, mode: str) -> str:
    return f"kdump-test-{command}-{mode}"


def _on_cluster(cluster: sc.Cluster, data: Path, nodes_python: str,
                runs: dict[str, list[str]]) -> dict[str, sc.Run]:
    """``kdump spark ARGS --master URL`` for each mode at the same time, as two
    applications sharing the worker (one core each); every run's exit code, output
    and whether its JVM was left behind."""
    groups: dict[str, sc.Group] = {}
    try:
        for mode, args in runs.items():
            cmd = [*KDUMP, "spark", *args, "--master", cluster.master_url,
                   f"--{mode}", "--conf", "spark.cores.max=1",
                   "--conf", f"spark.app.name={_app(args[0], mode)}"]
            groups[mode] = sc.Group(cmd, env=_env(cluster, mode, nodes_python),
                                    cwd=data if mode == "no-ship" else data.parent)
        return {mode: g.result(RUN_TIMEOUT) for mode, g in groups.items()}
    finally:
        for g in groups.values():
            g.stop()


def _local(args: list[str], cwd: Path) -> sc.Run:
    return sc.run_group([*KDUMP, *args], env=subprocess_env(), cwd=cwd, timeout=RUN_TIMEOUT)


def _check_app(cluster: sc.Cluster, command: str, mode: str) -> None:
    """The run was one application on the cluster, its executor ran on the worker, and
    kdump reached it as the shipped zip (--ship) or not at all (--no-ship)."""
    apps = cluster.apps(_app(command, mode))
    assert [(a["state"], a["cores"]) for a in apps] == [("FINISHED", 1)]
    executors = sorted(p for p in cluster.app_dir(apps[0]["id"]).iterdir() if p.is_dir())
    assert executors, f"no executor ran for {apps[0]['id']}"
    shipped = [(e / "kdump.zip").is_file() for e in executors]
    assert shipped == [mode == "ship"] * len(executors)


def _check_clean(cluster: sc.Cluster, runs: dict[str, sc.Run]) -> None:
    for mode, r in runs.items():
        assert not r.left_behind, f"{mode}: the driver's JVM outlived kdump"
        assert "Traceback" not in r.err, r.err
    left = [p.name for p in (cluster.root / "driver-tmp").iterdir()
            if p.name.startswith("kdump-spark-")]
    assert left == []


def test_cluster_is_standalone(local_export: tuple[sc.Group, Path], cluster: sc.Cluster) -> None:
    # (local_export first: the local-mode export starts while the cluster does)
    state = cluster.state()
    assert state["status"] == "ALIVE" and cluster.master_url == state["url"]
    assert cluster.master_url.startswith("spark://127.0.0.1:")
    assert [(x["host"], x["state"], x["cores"]) for x in state["workers"]] == [
        ("127.0.0.1", "ALIVE", 2)]


def test_size_report_same_as_local(cluster: sc.Cluster, data: Path, nodes_python: str) -> None:
    args = {"ship": ["size-report", "--by", "segment", "--format", "json"],
            "no-ship": ["size-report", "--by", "partition"]}
    runs = _on_cluster(cluster, data, nodes_python,
                       {m: [*a, *_paths(data, m)] for m, a in args.items()})
    for mode, r in runs.items():
        local = _local([*args[mode], *_paths(data, mode)],
                       data if mode == "no-ship" else data.parent)
        assert local.rc == 1 and "truncated" in local.out + local.err
        assert (r.rc, r.out, r.err) == (local.rc, local.out, local.err), mode
        _check_app(cluster, "size-report", mode)
    rows = [json.loads(line) for line in runs["ship"].out.splitlines()]
    assert {(r["topic"], r["partition"]) for r in rows if r["type"] == "segment"} == {
        ("orders", 0), ("orders", 1), ("customers", 0), ("events", 0), ("events", 1),
        ("events", 2), ("legacy", 0)}
    _check_clean(cluster, runs)


def test_verify_crc_same_as_local(cluster: sc.Cluster, data: Path, nodes_python: str) -> None:
    args = {"ship": ["verify-crc", "--format", "json"], "no-ship": ["verify-crc"]}
    runs = _on_cluster(cluster, data, nodes_python,
                       {m: [*a, *_paths(data, m)] for m, a in args.items()})
    for mode, r in runs.items():
        local = _local([*args[mode], *_paths(data, mode)],
                       data if mode == "no-ship" else data.parent)
        assert local.rc == 1
        assert (r.rc, r.out, r.err) == (local.rc, local.out, local.err), mode
        _check_app(cluster, "verify-crc", mode)
    found = [json.loads(line) for line in runs["ship"].out.splitlines()]
    assert {p.get("kind") for p in found} >= {"crc-mismatch", "zeroed-region", "truncated"}
    assert found[-1]["type"] == "summary" and found[-1]["batches"] > 100
    assert "crc-mismatch" in runs["no-ship"].out + runs["no-ship"].err
    _check_clean(cluster, runs)


# --- export ------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def local_export(data: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[tuple[sc.Group, Path]]:
    """``kdump spark export --master local[2]`` of the same inputs, in the background:
    the first cluster test asks for it, so its JVM starts while the cluster's do."""
    out = tmp_path_factory.mktemp("local-export") / "dataset"
    # as a user runs it: none of the PYSPARK_* an in-process session of this test run
    # (tests/spark/test_spark.py) may have left in the environment
    env = {k: v for k, v in subprocess_env().items()
           if not k.startswith("PYSPARK_") and k != "PYTHONPATH"}
    group = sc.Group([*KDUMP, "spark", "export", *_paths(data, "ship"), "--output", str(out),
                      "--master", "local[2]", *EXPORT_ARGS], env=env, cwd=data)
    yield group, out
    group.stop()


def _dataset(path: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The Parquet dataset read back with pyarrow: its partition directories and its
    rows (partition columns included), sorted."""
    import pyarrow.dataset as ds

    parts = sorted(str(p.relative_to(path)) for p in path.glob("topic=*/partition=*"))
    table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table()
    names = table.column_names
    rows = [tuple(_plain(r[n]) for n in names) for r in table.to_pylist()]
    return parts, sorted(rows, key=lambda t: tuple((x is None, str(x)) for x in t))


def _plain(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _plain(x)) for k, x in v.items()))
    return v


def _raw(text: str | None, encoding: str | None) -> bytes | None:
    if text is None:
        return None
    if encoding == "base64":
        return base64.b64decode(text)
    if encoding == "hex":
        return bytes.fromhex(text)
    assert encoding == "utf8", encoding
    return text.encode()


def _dumped(paths: list[str], cwd: Path) -> list[tuple[Any, ...]]:
    """Every record of every .log segment as ``kdump dump --format json`` gives it:
    (file, batch position, offset, timestamp, key, value, headers)."""
    r = _local(["dump", "--format", "json", "--print-data-log", "--decoder", "none", *paths], cwd)
    assert r.rc in (0, 1), r.err
    out = []
    for line in r.out.splitlines():
        o = json.loads(line)
        if o.get("type") != "record" or not o["file"].endswith(".log"):
            continue
        headers = tuple((h["key"], _raw(h["value"], h["value_encoding"])) for h in o["headers"])
        out.append((o["file"], o["batch_position"], o["offset"], o["timestamp"],
                    _raw(o["key"], o["key_encoding"]), _raw(o["value"], o["value_encoding"]),
                    headers))
    return sorted(out, key=lambda t: (t[0], t[2], t[1]))


def _exported_records(path: Path) -> list[tuple[Any, ...]]:
    import pyarrow.dataset as ds

    table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table(
        columns=["file", "position", "offset", "timestamp", "key", "value", "headers"])
    out = [(r["file"], r["position"], r["offset"], r["timestamp"], r["key"], r["value"],
            tuple((h["key"], h["value"]) for h in r["headers"])) for r in table.to_pylist()]
    return sorted(out, key=lambda t: (t[0], t[2], t[1]))


def test_export_same_as_local_mode_and_dump(local_export: tuple[sc.Group, Path],
                                            cluster: sc.Cluster,
                                            data: Path, nodes_python: str,
                                            tmp_path: Path) -> None:
    outputs = {"ship": str(tmp_path / "ship"), "no-ship": "exported-no-ship"}
    runs = _on_cluster(cluster, data, nodes_python, {
        m: ["export", *_paths(data, m), "--output", outputs[m], *EXPORT_ARGS] for m in MODES})
    try:
        local = local_export[0].result(RUN_TIMEOUT)
        assert local.rc == 0, local.err
        want = _dataset(local_export[1])
        summary = json.loads(local.out.splitlines()[-1])
        assert summary["type"] == "export" and summary["tasks"] > summary["segments"] > 20
        assert summary["rows"] == len(want[1])
        for mode, r in runs.items():
            assert (r.rc, r.err) == (0, ""), f"{mode}: {r.err}"
            # the same closing object (rows, segments, tasks) as the local-mode run
            assert json.loads(r.out.splitlines()[-1]) == {**summary, "output": outputs[mode]}
            # relative --output: written in the driver's working directory
            got = _dataset(Path(outputs[mode]) if mode == "ship" else data / outputs[mode])
            assert got == want, mode
            _check_app(cluster, "export", mode)
        # and the records are those the local dump reads, damaged segments included
        dumped = _dumped(_paths(data, "ship"), data)
        assert _exported_records(Path(outputs["ship"])) == dumped
        assert len(dumped) == summary["rows"]
        assert sorted(p.split("/")[0] for p in want[0]) == sorted(
            ["topic=customers", "topic=events", "topic=events", "topic=events",
             "topic=legacy", "topic=orders", "topic=orders"])
        _check_clean(cluster, runs)
    finally:
        shutil.rmtree(data / outputs["no-ship"], ignore_errors=True)


def test_waiting_for_executors_is_said(cluster: sc.Cluster, data: Path,
                                       nodes_python: str) -> None:
    """An application no worker can take (more executor memory than the worker has, as
    with no worker at all): Spark waits for ever and says why only in its log, which
    kdump keeps off the terminal.  kdump passes that line on, once, while it waits."""
    cmd = [*KDUMP, "spark", "size-report", "sample", "--master", cluster.master_url,
           "--no-ship", "--conf", "spark.executor.memory=64g",
           "--conf", "spark.app.name=kdump-test-starving"]
    group = sc.Group(cmd, env=_env(cluster, "no-ship", nodes_python), cwd=data)
    try:
        line = _first_line(group.proc.stderr, 300.0)  # the note comes 15 s into the job
        assert group.proc.poll() is None  # still waiting
    finally:
        group.stop()
    assert line.startswith(
        'kdump: note: no executor has taken the job yet: Spark says "Initial job has not '
        "accepted any resources; check your cluster UI to ensure that workers are "
        'registered and have sufficient resources" (still waiting; Ctrl-C to stop; '
        "Spark's log: "), line
    assert len(cluster.apps("kdump-test-starving")) == 1  # it did reach the cluster


def _first_line(stream: Any, timeout: float) -> str:
    import selectors

    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if sel.select(timeout=1.0):
                return str(stream.readline())
    raise AssertionError(f"nothing on stderr within {timeout:g} s")


def test_stop_leaves_no_process(cluster: sc.Cluster) -> None:
    """Last: stopping the cluster while an application runs leaves no process behind:
    the master, the worker, the application's executor (a JVM the worker started) and
    its Python workers (pyspark.daemon makes a process group of its own: found by the
    mark every process of the cluster carries in its environment) are all gone (the
    fixture's own stop is then a no-op)."""
    code = ("import sys, time\n"
            "from pyspark.sql import SparkSession\n"
            "s = SparkSession.builder.master(sys.argv[1]).appName('kdump-test-sleeper')"
            ".config('spark.ui.enabled', 'false').getOrCreate()\n"
            "s.sparkContext.parallelize([1], 1).map(lambda x: time.sleep(3600)).collect()\n")
    env = cluster.driver_env(subprocess_env())
    env["PYSPARK_PYTHON"] = sys.executable
    driver = sc.Group([sys.executable, "-c", code, cluster.master_url], env=env,
                      cwd=cluster.root)
    try:
        # wait (bounded) until the task runs: an executor JVM and a Python worker
        deadline = time.monotonic() + RUN_TIMEOUT
        while True:
            running = " ".join(_cmdline(p) for p in sc.marked(cluster.mark))
            if "CoarseGrainedExecutorBackend" in running and "-m pyspark.daemon" in running:
                break
            assert driver.proc.poll() is None, driver.proc.communicate()
            assert time.monotonic() < deadline, "the sleeping task never started"
            time.sleep(0.5)
        assert len(sc.marked(cluster.mark)) >= 4  # master, worker, executor, Python
        cluster.stop()
        assert [_cmdline(p) for p in sc.marked(cluster.mark)] == []
        assert cluster.procs == {}
    finally:
        driver.stop()
    assert sc.marked(driver.mark) == []


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
