#!/usr/bin/env python3
"""Hostile round three (issue #27): what the bounds cost and what they bound.

    .venv/bin/python bench/hostile_bench.py [--rounds N] [--silent]

1. ``--jobs 10000`` on the sample log dir (tests/writer.py ``sample``): wall time and the
   most kdump processes alive at once (polled from /proc), against ``--jobs 1`` and
   ``--jobs 2`` in the same rounds.
2. Redaction: ``dump --print-data-log --format json`` of a ``__cluster_metadata`` log of
   200,000 records, one in ten holding secrets (SCRAM credentials, password configs),
   by default (redacted) against ``--show-secrets``, in the same rounds: the ratio is the
   cost of redaction.
3. With ``--silent``: ``verify-crc s3://...`` against an endpoint that accepts
   connections and never answers, at the default ``--remote-timeout`` (60 s): the time
   to the one line (issue #27 measured "no answer after 150 s" before).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = Path(sys.executable).parent / "kdump"


def _children(pid: int) -> int:
    """kdump processes in ``pid``'s tree (itself included)."""
    n = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(d) == pid or int(fields[1]) == pid:
            n += 1
    return n


def timed(args: list[str]) -> tuple[float, int]:
    """Wall seconds and the most processes of the run's tree seen at once."""
    t0 = time.monotonic()
    p = subprocess.Popen([str(KDUMP), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    most = 1
    while p.poll() is None:
        most = max(most, _children(p.pid))
        time.sleep(0.01)
    return time.monotonic() - t0, most


def metadata_log() -> Path:
    d = DATA / "secrets-200k" / "__cluster_metadata-0"
    if (d / "00000000000000000000.log").exists():
        return d
    lw = w.MetadataLogWriter(d)
    rec = w.metadata_record
    for b in range(2000):
        batch = []
        for i in range(100):
            n = b * 100 + i
            if i % 10 == 0:
                batch.append(rec("UserScramCredentialRecord", {
                    "name": f"user-{n}", "mechanism": 1, "salt": b"s" * 32,
                    "storedKey": b"k" * 32, "serverKey": b"v" * 32, "iterations": 4096}))
            elif i % 10 == 1:
                batch.append(rec("ConfigRecord", {"resourceType": 4, "resourceName": "1",
                                                  "name": "ssl.keystore.password",
                                                  "value": f"pw-{n}"}))
            else:
                batch.append(rec("ConfigRecord", {"resourceType": 2, "resourceName": f"t{n}",
                                                  "name": "retention.ms", "value": str(n)}))
        lw.append(batch)
    lw.close()
    return d


def silent_endpoint() -> float:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(s.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    env = {**os.environ, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{s.getsockname()[1]}",
           "AWS_ACCESS_KEY_ID": "AKIABENCHBENCHBENCH1", "AWS_SECRET_ACCESS_KEY": "bench-secret",
           "AWS_DEFAULT_REGION": "us-east-1"}
    t0 = time.monotonic()
    subprocess.run([str(KDUMP), "verify-crc", "s3://bench/logdir"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    s.close()
    return time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--silent", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "logdir"
        w.write_sample_logdir(sample)
        size = sum(f.stat().st_size for f in sample.rglob("*") if f.is_file())
        runs: dict[str, list[tuple[float, int]]] = {}
        cases = {f"verify-crc --jobs {j}": ["verify-crc", "--jobs", str(j), str(sample)]
                 for j in (1, 2, 10000)}
        meta = metadata_log()
        cases["dump metadata (redacted)"] = ["dump", "--print-data-log", "--format", "json",
                                             str(meta)]
        cases["dump metadata --show-secrets"] = ["dump", "--print-data-log", "--format", "json",
                                                 "--show-secrets", str(meta)]
        for _ in range(a.rounds):
            for name, args in cases.items():
                runs.setdefault(name, []).append(timed(args))
        print(f"sample log dir: {size:,} bytes; {a.rounds} rounds; median wall, most processes")
        print("| run | wall s | processes |")
        print("|---|---|---|")
        for name, rs in runs.items():
            print(f"| `{name}` | {statistics.median(r[0] for r in rs):.2f} | "
                  f"{max(r[1] for r in rs)} |")
        red = statistics.median(r[0] for r in runs["dump metadata (redacted)"])
        raw = statistics.median(r[0] for r in runs["dump metadata --show-secrets"])
        print(f"redaction: {red / raw:.2f}x the time of --show-secrets")
    if a.silent:
        print(f"silent endpoint, default --remote-timeout: one line after {silent_endpoint():.1f} s")


if __name__ == "__main__":
    main()
