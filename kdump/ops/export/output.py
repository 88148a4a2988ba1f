"""Where ``kdump export`` writes: a new (absent or empty) directory outside every input,
files staged under a temporary name and linked into place only when whole.

The checks run before anything is read: DIR resolves (symlinks followed) neither into
an input nor to the log dir of a partition or segment given, exists only as an empty
directory, and no directory kdump makes under it is a symlink.  A file is written to a
fresh ``.NAME.kdump-tmp-PID-N`` (``O_CREAT|O_EXCL|O_NOFOLLOW``), fsynced, then linked to
its name (which must not exist) and the temporary name removed; a failed write (a full
disk, Ctrl-C) removes the temporary file.  So a dataset reader (``**/*.parquet``) never
sees a partial file, and ``_manifest.json``, written last, says the export is whole.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ... import fs as kfs
from ... import tempfiles
from ...errors import OutputError, UsageError
from ..rebuild import _holds_logs, _safe_name
from ..rebuild import _inside as _inside_roots

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
TMP_MARK = ".kdump-tmp"

# the rebuild's checks (kdump/ops/rebuild.py), one definition: a name from the disk made a
# safe path component, a path inside one of several roots, a directory holding logs
safe_name = _safe_name
_inside = _inside_roots


class OutputDir:
    """The export's directory, checked against the inputs (:meth:`check`), made on first
    use (:meth:`makedirs`), written file by file (:meth:`staged`)."""

    def __init__(self, path: str, inputs: list[str]) -> None:
        self.path = os.path.abspath(path)
        self.shown = path
        #: real paths of the local inputs (a file's directory), and the log dirs of a
        #: partition or segment given: never written into
        self.protected: list[str] = []
        for p in inputs:
            if kfs.is_url(p):
                continue
            real = os.path.realpath(p)
            d = real if os.path.isdir(real) else os.path.dirname(real)
            self.protected.append(d)
            if d != real or _holds_logs(d):
                self.protected.append(os.path.dirname(d))  # a segment's or partition's log dir
            tempfiles.protect(p)

    def check(self) -> None:
        """Before anything is read: DIR outside every input, absent or an empty directory."""
        real = os.path.realpath(self.path)
        for root in self.protected:
            # DIR inside an input (or a partition's log dir), or an input inside DIR
            if _inside(real, [root]) or (_inside(root, [real]) and root != real):
                raise UsageError(f"--output {self.shown} resolves to {real}, which "
                                 f"{'lies inside' if _inside(real, [root]) else 'holds'} "
                                 f"the input {root}: kdump writes nothing into evidence; "
                                 "choose another directory")
        if os.path.lexists(self.path):
            if os.path.islink(self.path) and not os.path.isdir(self.path):
                raise UsageError(f"--output {self.shown} is a symlink to nowhere")
            if not os.path.isdir(self.path):
                raise UsageError(f"--output {self.shown} exists and is not a directory")
            try:
                entries = os.listdir(self.path)
            except OSError as e:
                raise UsageError(f"--output {self.shown}: {e.strerror}") from None
            if entries:
                raise UsageError(f"--output {self.shown} is not empty: kdump export writes "
                                 "into a new or empty directory only")

    def makedirs(self, rel: str) -> str:
        """``DIR/rel`` made (with DIR), no component below DIR a symlink; its path."""
        try:
            os.makedirs(self.path, exist_ok=True)
        except OSError as e:
            raise OutputError(f"cannot create directory: {e.strerror}", path=self.shown) from None
        cur = self.path
        for part in rel.split("/") if rel else []:
            cur = os.path.join(cur, part)
            try:
                os.mkdir(cur, 0o755)
            except FileExistsError:
                if os.path.islink(cur) or not os.path.isdir(cur):
                    raise OutputError(f"{cur} exists and is not a plain directory (a symlink?): "
                                      "refusing to write through it") from None
            except OSError as e:
                raise OutputError(f"cannot create directory: {e.strerror}", path=cur) from None
        real = os.path.realpath(cur)
        hit = _inside(real, self.protected)
        if hit is not None:
            raise OutputError(f"{cur} resolves to {real}, inside the input {hit}: not written")
        return cur

    @contextmanager
    def staged(self, rel: str) -> Iterator[HashingFile]:
        """A binary file object for ``DIR/rel``, hashed as written (its ``sha256`` and
        ``size`` once the block ends), linked into place when the block ends without an
        error; the temporary file is removed whatever ends it otherwise."""
        directory, name = os.path.split(rel)
        d = self.makedirs(directory)
        target = os.path.join(d, name)
        fd, tmp = -1, None
        for n in range(100):
            cand = os.path.join(d, f".{name}{TMP_MARK}-{os.getpid()}-{n}")
            try:
                fd = os.open(cand, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
                             | getattr(os, "O_CLOEXEC", 0), 0o644)
            except FileExistsError:
                continue
            except OSError as e:
                raise OutputError(f"cannot write: {e.strerror}", path=target) from None
            tmp = cand
            break
        if tmp is None:
            raise OutputError("cannot create a temporary file (100 names taken)", path=d)
        try:
            with os.fdopen(fd, "wb") as raw:
                fh = HashingFile(raw)
                yield fh
                raw.flush()
                os.fsync(raw.fileno())
            try:
                os.link(tmp, target, follow_symlinks=False)  # fails if the name exists
            except FileExistsError:
                raise OutputError("already exists; kdump does not replace files",
                                  path=target) from None
        except OSError as e:
            raise OutputError(f"cannot write: {e.strerror or e}", path=target) from None
        finally:
            # linked (the name holds it now) or not (a failure): the temporary name goes
            try:
                os.unlink(tmp)
            except OSError:
                pass


class HashingFile:
    """A binary file object that hashes (SHA-256) and counts what is written through it
    (what pyarrow's writers and the JSON Lines writer write to)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.hash = hashlib.sha256()
        self.size = 0
        self.closed = False

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.hash.update(view)
        n = self.raw.write(view)
        self.size += len(view)
        return n if n is not None else len(view)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        self.raw.flush()

    def close(self) -> None:
        self.closed = True  # the staging owns the descriptor

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    @property
    def sha256(self) -> str:
        return self.hash.hexdigest()
