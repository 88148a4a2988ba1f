"""``verify-index --rebuild-into``: never writes into (or through a symlink to) the
evidence, never replaces a file without --force, keeps replicas apart, cleans up after
a failed write."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner, tree_state
from tests.support import writer as w

SEG = "00000000000000000000"


@pytest.fixture
def ev(sample_dir: Path, tmp_path: Path) -> Path:
    """A copy of the sample log dir (meta.properties: node.id 1)."""
    d = tmp_path / "ev"
    shutil.copytree(sample_dir, d)
    return d


def test_target_that_is_the_inputs_log_dir_is_refused(kdump: KdumpRunner, ev: Path) -> None:
    before = tree_state([ev])
    mtime = (ev / "orders-0").stat().st_mtime_ns
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", ev)
    assert r.rc == 2 and r.out == ""
    assert r.err == (f"kdump: --rebuild-into {ev} lies inside {ev} (an input, or its log dir): "
                     "indexes are never written next to the data they describe\n")
    assert tree_state([ev]) == before and (ev / "orders-0").stat().st_mtime_ns == mtime


def test_target_reached_through_a_symlink_is_refused(kdump: KdumpRunner, ev: Path,
                                                     tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "broker-1").mkdir(parents=True)
    (out / "broker-1" / "orders-0").symlink_to(ev / "orders-0")
    before = tree_state([ev])
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", out)
    assert r.rc == 2 and "resolves to" in r.err and "choose another DIR" in r.err
    assert tree_state([ev]) == before


def test_planted_symlinks_are_never_followed(kdump: KdumpRunner, ev: Path,
                                             tmp_path: Path) -> None:
    out = tmp_path / "out"
    part = out / "broker-1" / "orders-0"
    part.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    (part / f"{SEG}.index.kdump-tmp").symlink_to(victim)  # the old temporary name
    (part / f"{SEG}.timeindex").symlink_to(victim)  # the final name
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", out)
    assert r.rc == 2 and f"{SEG}.timeindex already exist" in r.err and "--force" in r.err
    assert not (part / f"{SEG}.index").exists()  # refused before anything was written
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", out, "--force")
    assert r.rc == 0, r.err
    assert victim.read_bytes() == b"precious"
    assert not (part / f"{SEG}.timeindex").is_symlink()
    assert (part / f"{SEG}.timeindex").read_bytes() == (ev / "orders-0" /
                                                         f"{SEG}.timeindex").read_bytes()
    assert not [p for p in part.iterdir() if p.name.startswith(".")]


def test_existing_file_is_not_replaced_without_force(kdump: KdumpRunner, ev: Path,
                                                     tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert kdump("verify-index", ev / "orders-0", "--rebuild-into", out).rc == 0
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", out)
    assert r.rc == 2 and "already exist" in r.err
    assert kdump("verify-index", ev / "orders-0", "--rebuild-into", out, "--force").rc == 0
    assert kdump("verify-index", ev, "--force").rc == 2


def test_two_brokers_stay_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    roots = []
    for node in (1, 2):
        root = tmp_path / f"b{node}"
        pw = w.PartitionWriter(root / "orders-0", index_interval_bytes=0)
        for i in range(node * 3):
            pw.append(w.v2_batch([w.Rec(b"k", b"v", timestamp=1000 + i)], base_offset=i))
        pw.close()
        (root / "meta.properties").write_bytes(w.meta_properties({"node.id": str(node),
                                                                   "version": "1"}))
        roots.append(root)
    out = tmp_path / "out"
    r = kdump("verify-index", *roots, "--rebuild-into", out, "--index-interval-bytes", "0")
    assert r.rc == 0, r.err
    for node in (1, 2):
        got = (out / f"broker-{node}" / "orders-0" / f"{SEG}.index").read_bytes()
        assert got == (tmp_path / f"b{node}" / "orders-0" / f"{SEG}.index").read_bytes()
        assert len(got) == 8 * node * 3 - 8  # one entry per batch but the first


def test_log_dirs_of_one_name_get_numbered(kdump: KdumpRunner, tmp_path: Path) -> None:
    roots = []
    for k in (1, 2):
        root = tmp_path / f"host{k}" / "data"
        pw = w.PartitionWriter(root / "orders-0")
        pw.append(w.v2_batch([w.Rec(b"k", b"v")], base_offset=0))
        pw.close()
        roots.append(root)
    out = tmp_path / "out"
    assert kdump("verify-index", *roots, "--rebuild-into", out).rc == 0
    assert sorted(p.name for p in out.iterdir()) == ["data", "data-2"]


def test_disk_full_is_one_line_exit_2_and_no_temporary_file(
        kdump: KdumpRunner, ev: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kdump.ops.rebuild as rebuild

    real_write = os.write
    calls = []

    def full(fd: int, data: object) -> int:
        calls.append(fd)
        if len(calls) == 2:  # the second file: the disk fills up
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuild.os, "write", full)
    out = tmp_path / "out"
    r = kdump("verify-index", ev / "orders-0", "--rebuild-into", out)
    part = out / "broker-1" / "orders-0"
    assert r.rc == 2
    assert r.err == (f"kdump: {part / (SEG + '.timeindex')}: cannot write: No space left on "
                     f"device; {out} is left as it was\n")
    assert not out.exists() and not list(tmp_path.glob(".kdump-staging-*"))  # as it was
