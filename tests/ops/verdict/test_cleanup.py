"""``verdict.cleanup``: the policies of a log's own log dir (dump, given no --config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdump.ops.verdict.cleanup import log_dir_policies
from tests.support import writer as w


def _compacting(ld: Path, topic: str) -> None:
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    lw.append([w.metadata_record("ConfigRecord", {
        "resourceType": 2, "resourceName": topic, "name": "cleanup.policy",
        "value": "compact"})], timestamp=1_700_000_000_000)
    lw.close()


def test_a_relative_log_path_is_judged_by_its_own_log_dir(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The policies are read once per log dir and kept: a relative path read from two
    working directories names two log dirs (the cache once took both for ".")."""
    compacting, plain = tmp_path / "a", tmp_path / "b"
    _compacting(compacting, "t")
    for ld in (compacting, plain):
        (ld / "t-0").mkdir(parents=True)
    seen = []
    for ld in (compacting, plain, compacting):
        monkeypatch.chdir(ld)
        seen.append(log_dir_policies("t-0/00000000000000000000.log").compacted(
            str(ld / "t-0"), "t", 0))
    assert seen == [True, False, True]
