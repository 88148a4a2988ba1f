"""Where ``kdump repair`` writes: a staging area beside DIR, renamed onto DIR when the
copy is whole (:mod:`kdump.output`, ``kind="dir"``).

Every file is first written under ``.kdump-staging-<DIR's name>-<pid>.incomplete/out/``
beside DIR (a marked area: its ``kdump-staging.json`` names the process writing it),
each file created ``O_EXCL|O_NOFOLLOW``, hashed and fsynced; the manifest is written as
the run goes and closed last.  Then the staged tree's directories are fsynced and the
staged directory is renamed onto DIR (absent, or an empty directory rename(2) replaces):
**DIR holds nothing, then the whole copy with its manifest**.  A failure, a full disk,
Ctrl-C, SIGTERM or SIGHUP removes the staging area and leaves DIR as it was.  A ``kill
-9`` or a power loss leaves only the staging area beside DIR, which no broker loads (its
name never parses as ``<topic>-<partition>``: LocalLog.parseTopicPartitionName throws)
and which the next run for DIR clears, saying so.  Before anything is written, the run
compares what the inputs hold on disk (allocated bytes: a preallocated sparse index
counts the entries it holds) with the free space of DIR's filesystem and refuses when it
is clearly too small (a copy is about as large as what it copies).  With ``--dry-run``
the same bytes are produced and hashed, and nothing is written anywhere.
"""

from __future__ import annotations

import os
from typing import Any

from ...errors import OutputError
from ...model import shape
from ...output import Staged, StagedFile, human

MANIFEST = "kdump-repair-manifest.jsonl"

#: a file being written (hashed as written); :meth:`Stage.finish` returns (size, SHA-256)
Output = StagedFile


def _held_bytes(st: os.stat_result) -> int:
    """What a file holds on disk: its allocated blocks, never more than its size.  A
    broker preallocates an active segment's ``.index`` and ``.timeindex``
    (``AbstractIndex``: ``RandomAccessFile.setLength`` to segment.index.bytes, 10 MiB by
    default), a sparse file whose unwritten slots take no block; the copy rebuilds them
    with the entries they hold, so their apparent size says nothing of what it writes."""
    blocks = getattr(st, "st_blocks", None)
    return st.st_size if blocks is None else min(st.st_size, blocks * 512)


def input_bytes(paths: list[str]) -> int:
    """The bytes the regular files ``paths`` are or hold take on disk (allocated, not
    apparent: :func:`_held_bytes`), about what a copy of them writes."""
    total = 0
    for p in paths:
        if os.path.isfile(p) and not os.path.islink(p):
            total += _held_bytes(os.stat(p))
            continue
        for root, _dirs, files in os.walk(p):
            for f in files:
                try:
                    st = os.lstat(os.path.join(root, f))
                except OSError:
                    continue
                if not os.path.islink(os.path.join(root, f)):
                    total += _held_bytes(st)
    return total


class Stage:
    """The staging area of one run (nothing on disk with ``dry_run``); ``needed``: the
    bytes the copy will take (checked against the free space before anything is written)."""

    def __init__(self, into: str, dry_run: bool, needed: int | None = None) -> None:
        self.into = into
        self.dry_run = dry_run
        self.needed = needed
        self.out = Staged(into or ".", kind="dir", shown=into, option="--into", dry_run=dry_run)

    @property
    def root(self) -> str | None:
        return self.out.root

    # --- set up ------------------------------------------------------------------------
    def open(self) -> None:
        if self.dry_run:
            return
        self.out.estimate(self.needed)
        free = self.out.free_at_start
        if self.needed is not None and free is not None and free < self.needed:
            raise OutputError(f"cannot write: No space left on device (the copy needs about "
                              f"{human(self.needed)}, what its inputs hold on disk; "
                              f"{human(free)} are free there); nothing was written",
                              path=self.into)
        self.out.open()

    def path(self, rel: str) -> str | None:
        return None if self.root is None else os.path.join(self.root, rel)

    def mkdir(self, rel: str) -> None:
        self.out.mkdir(rel)

    def create(self, rel: str) -> Output:
        return self.out.create(rel)

    def write(self, rel: str, data: bytes) -> tuple[int, str]:
        return self.out.write(rel, data)

    def finish(self, out: Output) -> tuple[int, str]:
        return self.out.finish(out)

    # --- the end -----------------------------------------------------------------------
    def commit_data(self) -> None:
        """Every data file is staged (nothing to move yet: DIR appears whole, at once)."""

    def commit_manifest(self) -> None:
        """The manifest closed: rename the staged copy onto DIR; from here on it is whole."""
        self.out.publish()

    def abort(self) -> None:
        """Remove the staging area; DIR is as it was."""
        self.out.abort()


def file_entry(src: str | None, rel: str | None, action: str, detail: str, size: int | None,
               sha: str | None) -> dict[str, Any]:
    """The ``repair_file`` object of one input file (``src``) or output file (``rel``)."""
    return shape("repair_file", {"file": src, "output": rel, "action": action, "detail": detail,
                                 "size": size, "sha256": sha})


__all__ = ["MANIFEST", "Output", "Stage", "file_entry", "input_bytes"]
