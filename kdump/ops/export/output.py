"""Where ``kdump export`` writes: a new (absent or empty) directory outside every input,
published at once through :mod:`kdump.output`.

The checks run before anything is read: DIR resolves (symlinks followed) neither into
an input (a file input is itself, not its folder) nor into the partition directory or
log dir of a partition or segment given, holds no input, and is absent or an empty
directory that is not a mount point.  Every file is written in the staging area beside
DIR (``.kdump-staging-<DIR's name>-<pid>.incomplete/``), ``--jobs`` workers each writing
their own files there; ``_findings`` and ``_manifest.json`` come last, and the whole
staged directory is then renamed onto DIR.  A reader pointed at DIR (DuckDB, pandas,
Polars, Spark) sees nothing, or every file with its manifest.  A failure, a full disk or
a signal removes the staging area and leaves DIR as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ... import fs as kfs
from ... import tempfiles
from ...output import Staged, StagedFile, check_outside, safe_name

__all__ = ["OutputDir", "safe_name"]


class OutputDir:
    """The export's directory: checked against the inputs (:meth:`check`), staged
    (:meth:`open`), written file by file (:meth:`staged`), published whole
    (:meth:`publish`) or removed (:meth:`abort`)."""

    def __init__(self, path: str, inputs: list[str]) -> None:
        self.path = os.path.abspath(path)
        self.shown = path
        self.inputs = [p for p in inputs if not kfs.is_url(p)]
        for p in self.inputs:
            tempfiles.protect(p)
        self.stage = Staged(self.path, kind="dir", shown=path, option="--output")

    def check(self) -> None:
        """Before anything is read: DIR outside every input, absent or an empty directory."""
        check_outside(self.path, self.inputs, "--output")
        self.stage.check_target()

    def open(self, needed: int | None) -> None:
        """The staging area made (a dead run's cleared first); ``needed``: the bytes the
        export is expected to write, for a full disk's message."""
        self.stage.estimate(needed)
        self.stage.open()

    @contextmanager
    def staged(self, rel: str) -> Iterator[StagedFile]:
        """A binary file object for ``DIR/rel``, hashed as written (its ``sha256`` and
        ``size`` once the block ends); removed if the block fails."""
        with self.stage.file(rel) as fh:
            yield fh

    def written_path(self, rel: str) -> str:
        """Where ``DIR/rel`` lies now: in the staging area until :meth:`publish`."""
        root = self.stage.root if not self.stage.published else None
        return os.path.join(root or self.path, rel)

    def publish(self) -> None:
        self.stage.publish()

    def abort(self) -> None:
        self.stage.abort()
