"""Log dirs named like partitions (kafka-logs-1, broker-0) are still log dirs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kdump.files.logdir import classify, walk
from tests.conftest import KdumpRunner


def test_logdir_named_like_a_partition(kdump: KdumpRunner, sample_dir: Path, tmp_path: Path) -> None:
    logdir = tmp_path / "kafka-logs-1"
    shutil.copytree(sample_dir, logdir)
    files = [f for f in walk([str(logdir)]) if not hasattr(f, "severity")]
    topics = {f.topic for f in files}  # type: ignore[union-attr]
    assert topics == {None, "orders", "customers"}
    root = classify(str(logdir / "meta.properties"))
    assert root.kind == "meta-properties" and root.topic is None
    r = kdump("size-report", "--by", "topic", "--format", "json", str(logdir))
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert [o.get("topic") for o in rows] == ["customers", "orders", None]


def test_partition_directory_is_still_a_partition(sample_dir: Path) -> None:
    files = [f for f in walk([str(sample_dir / "orders-0")]) if not hasattr(f, "severity")]
    assert {f.topic for f in files} == {"orders"}  # type: ignore[union-attr]
    assert {f.partition for f in files} == {0}  # type: ignore[union-attr]
