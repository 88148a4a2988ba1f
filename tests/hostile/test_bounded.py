"""Hostile round three (issue #27): every resource a user's number scales is bounded,
temporary files are private and never outlive kdump, output errors are the user's
situation, and log-dir walks pass over what is not Kafka data.

Fixtures come from tests/writer.py; commands run in-process through ``kdump.cli.main``
(the ``kdump`` fixture, inputs checked unchanged) or, where a real process matters (a
full disk, a closed pipe), as a subprocess.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import kdump.parallel as par
from kdump import tempfiles
from tests.conftest import KDUMP_BIN, KdumpRunner, subprocess_env
from tests.support import writer as w


def _square(x: int) -> int:
    return x * x


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bounded") / "logdir"
    w.write_sample_logdir(root)
    return root


# --- 1. --jobs bounded by the work and by the machine ---------------------------------------
def test_a_pool_never_has_more_workers_than_work(monkeypatch: pytest.MonkeyPatch) -> None:
    import concurrent.futures

    sizes: list[int] = []
    # kdump.parallel imports the executor only when a pool starts (lazy start-up)
    real = concurrent.futures.ProcessPoolExecutor

    def spy(*args: Any, **kw: Any) -> Any:
        sizes.append(kw["max_workers"])
        return real(*args, **kw)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", spy)
    monkeypatch.setattr(par, "default_jobs", lambda: 2)
    assert par.max_jobs() == 2 * par.JOBS_PER_CORE
    # three units of work, 10000 asked: three workers
    assert list(par.ordered_map(_square, ["a", 1, 2, "b", 3], 10_000,
                                lambda x: isinstance(x, int))) == ["a", 1, 4, "b", 9]
    assert sizes == [3]
    # more work than the machine's bound: the bound
    assert list(par.ordered_map(_square, range(20), 10_000, lambda x: True)) == [
        x * x for x in range(20)]
    assert sizes == [3, 2 * par.JOBS_PER_CORE]
    # one unit of work: no pool at all
    assert list(par.ordered_map(_square, ["a", 5], 10_000, lambda x: isinstance(x, int))) == [
        "a", 25]
    assert sizes == [3, 2 * par.JOBS_PER_CORE]


def test_jobs_past_the_machine_bound_is_lowered_with_a_note(kdump: KdumpRunner, logdir: Path
                                                            ) -> None:
    want = kdump("verify-crc", "--jobs", "1", "--format", "json", logdir, watch=[logdir])
    r = kdump("verify-crc", "--jobs", "10000", "--format", "json", logdir, watch=[logdir])
    cap = par.max_jobs()
    cores = par.cores()
    assert (r.rc, r.out) == (want.rc, want.out)
    assert r.err_lines == [f"kdump: note: --jobs 10000 lowered to {cap} "
                           f"({par.JOBS_PER_CORE} per core, {cores} core{'s' if cores > 1 else ''})"]
    r = kdump("dump", "--format", "json", "--jobs", str(cap), logdir, watch=[logdir])
    assert "note" not in r.err


# --- temporary files: private, removed, never inside the evidence ---------------------------
def test_spills_are_private_and_removed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tempfile

    monkeypatch.setattr(par, "SPILL_AFTER", 3)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    s = par.Spilled(iter(range(10)))
    (d,) = tmp_path.iterdir()
    (f,) = d.iterdir()
    assert stat.S_IMODE(d.stat().st_mode) == 0o700 and stat.S_IMODE(f.stat().st_mode) == 0o600
    it = iter(s)
    assert [next(it) for _ in range(5)] == [0, 1, 2, 3, 4]
    it.close()  # abandoned half way (an error, Ctrl-C): nothing left
    assert list(tmp_path.iterdir()) == []
    s = par.Spilled(iter(range(10)))
    s.close()  # never read
    assert list(tmp_path.iterdir()) == []


def test_a_pool_spill_directory_goes_with_the_pool(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = par.ordered_map(_square, range(6), 3, lambda x: True)
    assert next(out) == 0
    (d,) = tmp_path.iterdir()
    assert d.name.startswith("kdump-spill-") and stat.S_IMODE(d.stat().st_mode) == 0o700
    out.close()  # stopped early (``| head``, an error)
    assert list(tmp_path.iterdir()) == []


def test_no_temporary_file_inside_the_evidence(kdump: KdumpRunner, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    inside = root / "orders-0"
    monkeypatch.setattr(tempfile, "tempdir", str(inside))
    monkeypatch.setattr(tempfiles, "_evidence", set())
    r = kdump("dump", "--format", "json", "--jobs", "2", root, watch=[root])
    assert r.rc == 2
    assert r.err_lines == [f"kdump: the temporary directory {inside} is inside the input "
                           f"{root}; kdump writes nothing into evidence: set TMPDIR to another "
                           "directory"]


# --- 3. output errors are the user's situation ----------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("args", [["dump", "--print-data-log"], ["dump", "--format", "json"],
                                  ["verify-crc", "--format", "json"], ["size-report"]])
def test_a_full_disk_is_one_line_and_exit_2(logdir: Path, args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        r = subprocess.run([str(KDUMP_BIN), *args, str(logdir)], stdout=full,
                           stderr=subprocess.PIPE, env=subprocess_env(), timeout=120)
    assert r.returncode == 2
    assert r.stderr.decode() == "kdump: cannot write to standard output: No space left on device\n"


def test_a_closed_pipe_is_quiet(logdir: Path) -> None:
    """``kdump dump ... | head -1``: exit 0 and nothing on stderr, as Unix tools do."""
    p = subprocess.Popen([str(KDUMP_BIN), "dump", "--print-data-log", str(logdir)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env())
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline().startswith(b"Dumping ")
    p.stdout.close()
    assert p.wait(120) == 0
    assert p.stderr.read() == b""


# --- 4. log dir walks pass over what is not Kafka data --------------------------------------
DROPPINGS = [".DS_Store", "._00000000000000000000.log", "Thumbs.db", "00000000000000000000.log~",
             ".00000000000000000000.log.swp", "#meta.properties#", ".#meta.properties",
             ".nfs000000000123abcd"]


def test_a_walk_passes_over_droppings_and_names_them_with_verbose(kdump: KdumpRunner,
                                                                  tmp_path: Path) -> None:
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    want = kdump("dump", "--format", "json", root, watch=[root])
    for name in DROPPINGS:
        (root / name).write_bytes(b"\x00" * 100)
        (root / "orders-0" / name).write_bytes(b"\x00" * 100)
    (root / "lost+found").mkdir()
    (root / "lost+found" / "#1234").write_bytes(w.v2_batch([w.Rec(b"k", b"v")]))
    (root / "remote-log-index-cache").mkdir()
    (root / "remote-log-index-cache" / "00000000000000000000.index").write_bytes(b"\x00" * 8)
    r = kdump("dump", "--format", "json", root, watch=[root])
    want_lines = [x for x in want.out.splitlines() if '"./.lock"' not in x and "/.lock" not in x]
    assert r.rc == 0 and r.err == ""
    assert r.out.splitlines() == want_lines  # the .lock, too, is passed over
    assert ".lock" not in r.out
    r = kdump("dump", "-v", root, watch=[root])
    skipped = sorted(line for line in r.err_lines if line.endswith("; skipped"))
    assert r.rc == 0
    assert skipped == sorted(
        [f"{root}/.lock: unknown-file [info]: the broker's lock file (empty); skipped",
         f"{root}/lost+found: unknown-file [info]: the filesystem's lost+found, not Kafka "
         "data; skipped",
         f"{root}/remote-log-index-cache: unknown-file [info]: tiered storage's cache of "
         "remote indexes (Kafka writes it, kdump does not read it); skipped"]
        + [f"{d}/{n}: unknown-file [info]: {why}, not Kafka data; skipped"
           for d in (root, root / "orders-0") for n, why in zip(DROPPINGS, [
               "an OS file (macOS Finder)", "an OS file (macOS resource fork)",
               "an OS file (Windows)", "an editor's backup file", "an editor's swap file",
               "an editor's autosave file", "an editor's lock file",
               "an NFS client's file (deleted while open)"], strict=True)])
    assert "Dumping" not in "".join(x for x in r.out.splitlines() if ".lock" in x or "~" in x)


def test_a_dropping_named_on_the_command_line_is_still_read(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    """Given by name, a file is what the user asked for: DumpLogSegments' answer."""
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    r = kdump("dump", root / ".lock", watch=[root])
    assert (r.rc, r.out) == (0, f"Dumping {root}/.lock\nthe broker's lock file (no content)\n")


# --- 5. secrets in the data: redacted by dump unless --show-secrets ------------------------
SECRETS = {"salt": b"SALT-s3cr3t", "storedKey": b"STORED-s3cr3t", "serverKey": b"SERVER-s3cr3t",
           "ssl.keystore.password": "hunter2-s3cr3t",
           "sasl.jaas.config": "PlainLoginModule required password=\"jaas-s3cr3t\";"}


@pytest.fixture(scope="module")
def metadata_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("secrets") / "__cluster_metadata-0"
    lw = w.MetadataLogWriter(d)
    lw.append([
        w.metadata_record("UserScramCredentialRecord", {
            "name": "alice", "mechanism": 1, "salt": SECRETS["salt"],
            "storedKey": SECRETS["storedKey"], "serverKey": SECRETS["serverKey"],
            "iterations": 4096}),
        w.metadata_record("ConfigRecord", {"resourceType": 4, "resourceName": "1",
                                           "name": "ssl.keystore.password",
                                           "value": SECRETS["ssl.keystore.password"]}),
        w.metadata_record("ConfigRecord", {"resourceType": 4, "resourceName": "1",
                                           "name": "listener.name.sasl_ssl.plain.sasl.jaas.config",
                                           "value": SECRETS["sasl.jaas.config"]}),
        w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": "orders",
                                           "name": "retention.ms", "value": "86400000"}),
        w.metadata_record("DelegationTokenRecord", {
            "owner": "User:alice", "requester": "User:alice", "renewers": [],
            "issueTimestamp": 1, "maxTimestamp": 2, "expirationTimestamp": 3,
            "tokenId": "token-1"}),
    ])
    lw.close()
    return d


def _leaks(text: str) -> list[str]:
    """The secrets of SECRETS that ``text`` shows: as text, or inside any base64 or hex
    run (a whole record value encoded)."""
    import base64
    import binascii
    import re

    found = []
    for v in SECRETS.values():
        raw = v if isinstance(v, bytes) else v.encode()
        for form in (raw.decode(), base64.b64encode(raw).decode(), raw.hex(), "s3cr3t"):
            if form in text:
                found.append(form)
    for run in re.findall(r"[A-Za-z0-9+/]{16,}={0,2}", text):
        try:
            data = base64.b64decode(run + "=" * (-len(run) % 4))
        except (binascii.Error, ValueError):
            continue
        if b"s3cr3t" in data:
            found.append(f"base64 {run[:20]}...")
    for run in re.findall(r"(?:[0-9a-f]{2}){8,}", text):
        if b"s3cr3t" in bytes.fromhex(run):
            found.append(f"hex {run[:20]}...")
    return found


@pytest.mark.parametrize("fmt", ["text", "json", "table"])
def test_dump_redacts_metadata_secrets(kdump: KdumpRunner, metadata_log: Path, fmt: str) -> None:
    r = kdump("dump", "--deep-iteration", "--format", fmt, metadata_log, watch=[metadata_log])
    assert r.rc == 0 and _leaks(r.out + r.err) == []  # raw values too, not decoded
    r = kdump("dump", "--print-data-log", "--format", fmt, metadata_log, watch=[metadata_log])
    assert r.rc == 0
    assert _leaks(r.out + r.err) == []
    assert "[redacted]" in r.out and "86400000" in r.out and "token-1" in r.out
    note = ("kdump: note: secrets shown as [redacted] in 3 records (ConfigRecord.value, "
            "UserScramCredentialRecord.salt, UserScramCredentialRecord.serverKey, "
            "UserScramCredentialRecord.storedKey); --show-secrets prints them as "
            "DumpLogSegments does")
    assert r.err_lines == ([note] if fmt == "text" else [])


def test_dump_text_redacted_lines(kdump: KdumpRunner, metadata_log: Path) -> None:
    r = kdump("dump", "--cluster-metadata-decoder", "--skip-record-metadata", metadata_log,
              watch=[metadata_log])
    payloads = [line for line in r.out.splitlines() if "payload:" in line]
    assert payloads[0].endswith(
        'payload: {"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"alice",'
        '"mechanism":1,"salt":"[redacted]","storedKey":"[redacted]","serverKey":"[redacted]",'
        '"iterations":4096}}')
    assert payloads[1].endswith(
        'payload: {"type":"CONFIG_RECORD","version":0,"data":{"resourceType":4,'
        '"resourceName":"1","name":"ssl.keystore.password","value":"[redacted]"}}')


def test_show_secrets_prints_what_the_data_holds(kdump: KdumpRunner, metadata_log: Path) -> None:
    import base64

    r = kdump("dump", "--print-data-log", "--show-secrets", metadata_log, watch=[metadata_log])
    assert r.rc == 0 and r.err == "" and "[redacted]" not in r.out
    assert base64.b64encode(SECRETS["storedKey"]).decode() in r.out  # type: ignore[arg-type]
    assert "hunter2-s3cr3t" in r.out and "jaas-s3cr3t" in r.out


def test_jobs_workers_redact_too(kdump: KdumpRunner, metadata_log: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "logdir"
    shutil.copytree(metadata_log, root / "__cluster_metadata-0")
    shutil.copytree(metadata_log, root / "__cluster_metadata-1")
    one = kdump("dump", "--print-data-log", "--format", "json", "--jobs", "1", root, watch=[root])
    r = kdump("dump", "--print-data-log", "--format", "json", "--jobs", "2", root, watch=[root])
    assert r.rc == 0 and _leaks(r.out + r.err) == [] and r.out == one.out
    # per partition: 5 decoded fields, and the raw values of the 3 records holding them
    assert r.out.count('"[redacted]"') == 16
    assert r.out.count('"value":"[redacted]","value_encoding":"redacted"') == 6
    assert r.out.count('"value_size":55,') == 2  # the size stored, not the marker's


def test_ctrl_c_stops_the_workers_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    """Ctrl-C during ``dump --jobs 2 --format json``: one line, 130, at once; the
    spool directory (and any spill) gone.  The signal comes while a worker has spooled
    a file's text and waits (tests/support/pausing.py): mid-run on any machine."""
    import signal

    from tests.support.pausing import start_paused

    root = tmp_path / "logdir"
    for p in range(2):
        w.big_segment(root / f"big-{p}", 12 << 20)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**subprocess_env(), "TMPDIR": str(tmp)}
    proc = start_paused(["dump", "--jobs", "2", "--format", "json", "--print-data-log", root],
                        "spool", tmp_path, env, stdout=subprocess.DEVNULL)
    (spool,) = tmp.glob("kdump-spool-*")
    assert stat.S_IMODE(spool.stat().st_mode) == 0o700
    assert list(spool.glob("*.jsonl"))  # a worker's spooled text
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)  # a guard against a hang, not a speed claim
    assert proc.returncode == 130
    assert err.decode() == "kdump: interrupted\n"
    assert list(tmp.iterdir()) == []


def test_spark_rows_redact_metadata_secrets(metadata_log: Path) -> None:
    """The rows the Spark data source and ``spark export`` write (built without a JVM)."""
    from kdump.spark.segments import ReadOptions, plan, rows

    for decoder in (None, "auto"):
        opts = ReadOptions(paths=(str(metadata_log),), decoder=decoder)
        slices, _ = plan(opts)
        got = [r for s in slices for r in rows(s, opts)]
        assert len(got) == 5
        text = repr(got)
        assert _leaks(text) == [], decoder
        assert text.count("b'[redacted]'") == 3 and "86400000" in text


@pytest.mark.parametrize("fmt", ["text", "json", "table"])
@pytest.mark.parametrize("decoder", ["auto", "string", "hex", "base64", "cluster-metadata"])
def test_no_decoder_prints_metadata_secrets(kdump: KdumpRunner, metadata_log: Path, fmt: str,
                                            decoder: str) -> None:
    """Whatever decoder is asked for, in dump and in the find commands' answers."""
    for args in (["dump", "--print-data-log"], ["find-offset", "--print-data-log"],
                 ["find-time", "--print-data-log"]):
        tail = [] if args[0] == "dump" else ["0"]
        r = kdump(*args, "--decoder", decoder, "--format", fmt, metadata_log, *tail,
                  watch=[metadata_log])
        assert r.rc == 0, (args, r.err)
        assert _leaks(r.out + r.err) == [], (args, decoder, fmt)
    r = kdump("dump", "--print-data-log", "--show-secrets", "--decoder", decoder, "--format", fmt,
              metadata_log, watch=[metadata_log])
    assert _leaks(r.out) != []


# --- staged outputs: a report or an export is complete or absent ---------------------------
def test_staged_output_is_renamed_when_complete(tmp_path: Path) -> None:
    from kdump.errors import OutputError

    out = tmp_path / "report.json"
    with tempfiles.staged(str(out)) as fh:
        fh.write("{}\n")
        assert not out.exists() and len(list(tmp_path.iterdir())) == 1  # under a temporary name
    assert out.read_text() == "{}\n" and list(tmp_path.iterdir()) == [out]
    with pytest.raises(KeyboardInterrupt):
        with tempfiles.staged(str(tmp_path / "half.json")) as fh:
            fh.write("{")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == [out]
    with pytest.raises(OutputError) as e:
        with tempfiles.staged(str(tmp_path / "missing" / "r.json")):
            pass
    assert str(e.value) == f"{tmp_path}/missing/r.json: cannot write: No such file or directory"
    with pytest.raises(OutputError) as e:
        with tempfiles.staged(str(out / "r.json")):
            pass
    assert str(e.value) == f"{out}/r.json: cannot write: Not a directory"


def test_staged_output_on_a_full_disk_leaves_nothing(tmp_path: Path) -> None:
    """A file size limit (RLIMIT_FSIZE) stands in for a full disk: the write fails with
    EFBIG, the report is not there, its temporary name neither."""
    script = (
        "import resource, signal, sys\n"
        "from kdump import tempfiles\n"
        "from kdump.errors import OutputError\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        "    with tempfiles.staged(sys.argv[1]) as fh:\n"
        "        fh.write('x' * 100000)\n"
        "except OutputError as e:\n"
        "    print(e)\n")
    out = tmp_path / "report.txt"
    r = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True,
                       timeout=60)
    assert r.stdout == f"{out}: cannot write: File too large\n", r.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_internal_error_quoting_a_signed_url_is_scrubbed(kdump: KdumpRunner, logdir: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.ops.verify_crc as verify

    def boom(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("GET https://b.s3.amazonaws.com/k?X-Amz-Signature=abcdef0123 "
                           "Authorization: AWS4-HMAC-SHA256 Credential=AKIAABCDEFGHIJKLMNOP/x")

    monkeypatch.setattr(verify, "verify_crc", boom)
    r = kdump("verify-crc", logdir, watch=[logdir])
    assert r.rc == 2
    assert r.err_lines == ["kdump: internal error: RuntimeError: GET https://b.s3.amazonaws.com/"
                           "k?*** Authorization: *** Credential=*** (set KDUMP_DEBUG=1 for a "
                           "traceback)"]


def test_rebuild_with_a_fifo_for_meta_properties_does_not_hang(kdump: KdumpRunner,
                                                               tmp_path: Path) -> None:
    """Fuzz case k4:569: ``verify-index --rebuild-into`` read the log dir's meta.properties
    with a blocking open; a FIFO there (nobody writing) hung it."""
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    (root / "meta.properties").unlink()
    os.mkfifo(root / "meta.properties")
    r = kdump("verify-index", "--rebuild-into", tmp_path / "rebuilt", "--format", "json", root,
              watch=[root])
    assert r.rc == 0 and r.err == ""  # the FIFO holds no index: nothing to say of it
    assert (tmp_path / "rebuilt" / "logdir").is_dir()  # named from the log dir, not the FIFO
