"""``kdump dump`` as a command: exit codes, error messages, entry points, speed, and the
promise that inputs are never changed.

Exit codes (issue 2): 0 clean, 1 data problems, 2 usage or I/O errors; never a traceback.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import KDUMP_BIN, subprocess_env, tree_state
from tests.support import writer as w

LOG0 = "00000000000000000000.log"
TS = w.DEFAULT_TIMESTAMP


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 120,
            **kw) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run([str(KDUMP_BIN), *args], cwd=cwd, env=subprocess_env(),
                          capture_output=True, text=True, timeout=timeout, **kw)


def good_log(d: Path) -> Path:
    p = d / "t-0" / LOG0
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(w.v2_batch([w.Rec(b"k", b"v")]) + w.v2_batch([w.Rec(b"k", b"w")],
                                                                base_offset=1))
    return p


# ---------------------------------------------------------------------------------------
# exit codes
# ---------------------------------------------------------------------------------------


def test_exit_0_when_clean(kdump, sample_dir: Path) -> None:
    for fmt in ("text", "json", "table"):
        r = kdump("dump", "--format", fmt, "--deep-iteration", ".", cwd=sample_dir)
        assert r.rc == 0, (fmt, r.err)


def test_exit_1_on_a_bad_crc(kdump, tmp_path: Path) -> None:
    p = good_log(tmp_path)
    data = bytearray(p.read_bytes())
    data[17] ^= 0x01  # first batch's stored CRC-32C
    p.write_bytes(bytes(data))
    r = kdump("dump", "t-0", cwd=tmp_path)
    assert r.rc == 1
    assert r.lines[2].endswith("isvalid: false")
    assert r.lines[3].endswith("isvalid: true")


def test_exit_2_on_a_missing_path(kdump, tmp_path: Path) -> None:
    good_log(tmp_path)
    r = kdump("dump", "nothere.log", "t-0", cwd=tmp_path)
    assert r.rc == 2
    assert r.err_lines == ["nothere.log: unreadable-file: no such file or directory"]
    # what can be read is still dumped
    assert r.lines[0] == f"Dumping t-0/{LOG0}"


def test_exit_2_on_a_directory_where_a_file_is_expected(kdump, tmp_path: Path) -> None:
    (tmp_path / "p-0" / LOG0).mkdir(parents=True)
    (tmp_path / "p-0" / "00000000000000000000.index").mkdir()
    for name in (f"p-0/{LOG0}", "p-0/00000000000000000000.index/"):
        r = kdump("dump", name, cwd=tmp_path)
        assert r.rc == 2, name
        assert r.err_lines == [f"{name}: unreadable-file: is a directory, not a file"]
        assert r.out == ""
    r = kdump("dump", "--files", f"p-0/{LOG0}", cwd=tmp_path)
    assert r.rc == 2


def test_exit_2_on_permission_denied(kdump, tmp_path: Path) -> None:
    p = good_log(tmp_path)
    p.chmod(0)
    try:
        try:
            with open(p, "rb") as fh:
                fh.read(1)
            pytest.skip("running as root: a mode-000 file is still readable")
        except PermissionError:
            pass
        r = kdump("dump", f"t-0/{LOG0}", cwd=tmp_path, watch=[])
        assert r.rc == 2
        assert "permission denied" in r.err
        assert f"t-0/{LOG0}" in r.err
        assert len(r.err_lines) == 1
    finally:
        p.chmod(0o644)


def test_exit_2_on_usage_errors(kdump, tmp_path: Path) -> None:
    r = kdump("dump", cwd=tmp_path)
    assert r.rc == 2
    assert "give at least one PATH" in r.err
    r = kdump("dump", "--format", "xml", "x", cwd=tmp_path)
    assert r.rc == 2
    assert "Invalid value for '--format'" in r.err
    r = kdump("dump", "--no-such-option", "x", cwd=tmp_path)
    assert r.rc == 2
    r = kdump("dump", "--max-bytes", "lots", "x", cwd=tmp_path)
    assert r.rc == 2
    assert "is not a size" in r.err


def test_io_error_wins_over_data_problems(kdump, tmp_path: Path) -> None:
    p = good_log(tmp_path)
    data = bytearray(p.read_bytes())
    data[17] ^= 0x01
    p.write_bytes(bytes(data))
    assert kdump("dump", "t-0", "missing", cwd=tmp_path).rc == 2


def test_json_problems_for_missing_paths(kdump, tmp_path: Path) -> None:
    import json

    r = kdump("dump", "--format", "json", "missing.log", cwd=tmp_path)
    assert r.rc == 2
    assert [json.loads(line) for line in r.lines] == [{
        "type": "problem", "file": "missing.log", "position": None, "kind": "unreadable-file",
        "severity": "error", "detail": "no such file or directory", "base_offset": None,
        "length": None}]
    assert r.err == ""


# ---------------------------------------------------------------------------------------
# no traceback, whatever the input
# ---------------------------------------------------------------------------------------

_KAFKA_NAMES = [LOG0, "00000000000000000000.index", "00000000000000000000.timeindex",
                "00000000000000000000.txnindex", "00000000000000000000.snapshot",
                "00000000000000000000-0000000001.checkpoint", "leader-epoch-checkpoint",
                "partition.metadata", "meta.properties", "replication-offset-checkpoint",
                "quorum-state", ".kafka_cleanshutdown", "bootstrap.checkpoint"]


def _corpus_bytes() -> bytes:
    return b"".join([
        w.v2_batch([w.Rec(b"k", b"v" * 30, headers=[("h", b"x")])] * 3, codec=c, base_offset=10 * c)
        for c in range(5)
    ] + [
        w.legacy_compressed(1, [w.Rec(b"a", b"b", timestamp=TS)] * 3, last_offset=60, codec=w.LZ4),
        w.legacy_compressed(0, [w.Rec(b"a", b"b")] * 3, last_offset=63, codec=w.SNAPPY),
        w.end_txn_marker_batch(False, base_offset=64, producer_id=1, producer_epoch=0,
                               coordinator_epoch=1),
        w.kraft_control_batch([(w.CONTROL_KRAFT_VOTERS,
                                w.voters_value([(1, bytes(16), [("C", "h", 1)], 0, 1)]))],
                              base_offset=65),
    ])


@pytest.mark.parametrize("seed", range(6))
def test_no_traceback_on_damaged_input_of_any_kind(tmp_path: Path, seed: int) -> None:
    """Random damage to every kind of file, every format: exit 0/1/2, one-line messages."""
    from tests.conftest import run_in_process

    rng = random.Random(seed)
    base = _corpus_bytes()
    for it in range(25):
        d = tmp_path / f"{it}" / ("__cluster_metadata-0" if it % 5 == 0 else "t-0")
        d.mkdir(parents=True)
        data = bytearray(base)
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(data))
            m = rng.random()
            if m < 0.5:
                data[i] = rng.randrange(256)
            elif m < 0.7:
                del data[i:]
                if not data:
                    data = bytearray(b"\x00")
            else:
                data[i:i + 24] = bytes(24)
        name = rng.choice(_KAFKA_NAMES)
        (d / name).write_bytes(bytes(data[: rng.choice([len(data), rng.randint(0, 120)])]))
        if name != LOG0:
            (d / LOG0).write_bytes(base)
        for fmt in ("text", "json", "table"):
            flag = rng.choice(["--print-data-log", "--deep-iteration", "--verify-index-only",
                               "--index-sanity-check", "--skip-record-metadata"])
            before = tree_state([d])
            r = run_in_process(["dump", "--format", fmt, flag, str(d)])
            assert tree_state([d]) == before
            assert r.rc in (0, 1, 2), r
            assert "Traceback" not in r.err and "internal error" not in r.err, (name, fmt, r.err)


def test_no_traceback_in_a_real_process(tmp_path: Path) -> None:
    d = tmp_path / "t-0"
    d.mkdir()
    (d / LOG0).write_bytes(os.urandom(0) + bytes(range(256)) * 20)
    (d / "00000000000000000000.index").write_bytes(bytes(range(256)))
    (d / "00000000000000000000.snapshot").write_bytes(b"\x00\x01\x02")
    r = run_cli("dump", "--deep-iteration", str(d))
    assert r.returncode in (1, 2)
    assert "Traceback" not in r.stderr
    for line in r.stderr.splitlines():
        assert line.startswith((str(d), "Mismatches", "  ", "Snapshot", "Non-consecutive",
                                "The following", "Indexed offset", "Found")), line


# ---------------------------------------------------------------------------------------
# entry points and speed
# ---------------------------------------------------------------------------------------


def test_console_script_and_python_m_agree(tmp_path: Path, sample_dir: Path) -> None:
    a = run_cli("dump", "--print-data-log", "orders-1", cwd=sample_dir)
    b = subprocess.run([sys.executable, "-m", "kdump", "dump", "--print-data-log", "orders-1"],
                       cwd=sample_dir, env=subprocess_env(), capture_output=True, text=True,
                       timeout=120)
    assert (a.returncode, b.returncode) == (0, 0)
    assert a.stdout == b.stdout and a.stdout.startswith("Dumping orders-1/")
    assert a.stderr == b.stderr == ""


def test_files_option_in_a_real_process(sample_dir: Path) -> None:
    files = ["orders-1/00000000000000000000.log", "orders-1/00000000000000000000.index"]
    a = run_cli("dump", "--files", ",".join(files), cwd=sample_dir)
    b = run_cli("dump", *files, cwd=sample_dir)
    assert a.returncode == 0
    assert a.stdout == b.stdout
    assert [line for line in a.stdout.splitlines() if line.startswith("Dumping")] == [
        f"Dumping {f}" for f in files]


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("dump", "--help")])
def test_version_and_help_run(args: tuple[str, ...]) -> None:
    # how fast is bench/startup_bench.py's business (0.3 s target); what they import is
    # tests/house/test_startup.py's
    r = run_cli(*args)
    assert r.returncode == 0 and r.stdout.startswith(
        "kdump, version" if args == ("--version",) else "Usage: kdump"), r.stdout
    assert r.stderr == ""


def test_version_output() -> None:
    import kdump

    r = run_cli("--version")
    assert r.stdout == f"kdump, version {kdump.__version__}\n"


def test_version_does_not_import_heavy_modules() -> None:
    code = ("import sys\nfrom kdump.cli import main\ntry:\n    main(['--version'])\n"
            "except SystemExit:\n    pass\n"
            "bad = [m for m in ('rich', 'zstandard', 'lz4', 'snappy', 'kdump.ops.dump') "
            "if m in sys.modules]\nprint(bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), timeout=60)
    assert r.stdout.splitlines()[-1] == "[]"


def test_broken_pipe_is_not_a_data_problem(sample_dir: Path) -> None:
    proc = subprocess.Popen([str(KDUMP_BIN), "dump", "--print-data-log", "."], cwd=sample_dir,
                            env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    rc = proc.wait(timeout=120)
    assert "Traceback" not in err
    assert rc == 0


def test_broken_pipe_gives_no_traceback(sample_dir: Path) -> None:
    proc = subprocess.Popen([str(KDUMP_BIN), "dump", "--print-data-log", "."], cwd=sample_dir,
                            env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    rc = proc.wait(timeout=120)
    assert err == ""
    assert rc in (0, 1)


def test_format_default_is_text_and_env_overrides(kdump, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    good_log(tmp_path)
    assert kdump("dump", "t-0", cwd=tmp_path).lines[0] == f"Dumping t-0/{LOG0}"
    monkeypatch.setenv("KDUMP_FORMAT", "json")
    assert kdump("dump", "t-0", cwd=tmp_path).lines[0].startswith('{"type":"file"')
    assert kdump("dump", "--format", "text", "t-0", cwd=tmp_path).lines[0].startswith("Dumping")


# ---------------------------------------------------------------------------------------
# inputs are never changed
# ---------------------------------------------------------------------------------------


def test_inputs_unchanged_by_every_option(tmp_path: Path, sample_dir: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(sample_dir, root)
    # a missing .index next to a .timeindex: Kafka's OffsetIndex would create it
    (root / "orders-1" / "00000000000000000031.index").unlink()
    before = tree_state([root])
    runs = [
        ("dump", "."),
        ("dump", "--print-data-log", "--skip-record-metadata", "."),
        ("dump", "--verify-index-only", "."),
        ("dump", "--index-sanity-check", "."),
        ("dump", "--max-bytes", "1000", "."),
        ("dump", "--format", "json", "--deep-iteration", "."),
        ("dump", "--format", "table", "--print-data-log", "."),
        ("dump", "orders-1/00000000000000000031.timeindex"),
    ]
    for args in runs:
        r = run_cli(*args, cwd=root)
        assert r.returncode in (0, 1, 2), (args, r.stderr)
        assert "Traceback" not in r.stderr
        assert tree_state([root]) == before, args
    assert not (root / "orders-1" / "00000000000000000031.index").exists()


def test_max_batch_bytes_bounds_decompression(kdump, tmp_path: Path) -> None:
    recs = [w.Rec(b"k%d" % i, b"x" * 1000) for i in range(100)]
    (tmp_path / LOG0).write_bytes(w.v2_batch(recs, codec=w.ZSTD) + w.v2_batch(
        [w.Rec(b"small", b"v")], base_offset=100, codec=w.ZSTD))
    r = kdump("dump", "--deep-iteration", "--max-batch-bytes", "10K", LOG0, cwd=tmp_path)
    assert r.rc == 1
    assert [line[:12] for line in r.lines[2:]] == ["baseOffset: ", "baseOffset: ", "| offset: 10"]
    assert r.err_lines[0] == (f"{LOG0}: position 0: batch-too-large: decompressed payload "
                              "exceeds the limit of 10240 bytes (base offset 0)")
    r = kdump("dump", "--deep-iteration", LOG0, cwd=tmp_path)
    assert (r.rc, len(r.lines)) == (0, 2 + 2 + 101)
