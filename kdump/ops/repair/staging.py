"""Where ``kdump repair`` writes: a private staging directory inside DIR, moved into
place when the copy is whole, the manifest last.

Every file is first written under ``DIR/.kdump-staging-XXXXXXXX.incomplete/`` (made by
``mkdtemp``: ``0700``, a fresh name, nothing in it anyone else could have planted), each
file created ``O_EXCL|O_NOFOLLOW`` and fsynced.  When every partition and root file is
staged, the copy's top-level entries are renamed into DIR (same filesystem: atomic
renames), DIR is fsynced, and the manifest is renamed into DIR last: **the manifest is
the mark of a complete copy**.  A failure or Ctrl-C before that removes the staging
directory and whatever was already renamed into DIR (DIR itself too when the repair made
it), so nothing is left that looks like a finished copy; a ``kill -9`` can leave only the
hidden staging directory, which no broker loads as a partition (its name never parses
as ``<topic>-<partition>``: LocalLog.parseTopicPartitionName throws, and the log dir is
not loaded) and no manifest.  With ``--dry-run``
the same bytes are produced and hashed, and nothing is written anywhere.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile

from ...errors import OutputError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
STAGING_PREFIX = ".kdump-staging-"
#: ends the staging directory's name: never a partition number
STAGING_SUFFIX = ".incomplete"
MANIFEST = "kdump-repair-manifest.jsonl"
#: bytes buffered before a write to the staged file
_BUFFER = 1 << 20


def _oserror(e: OSError, path: str) -> OutputError:
    return OutputError(f"cannot write: {e.strerror or e}", path=path)


class Output:
    """One file being written (hashed as written); :meth:`close` returns (size, SHA-256)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.hash = hashlib.sha256()
        self.size = 0
        self._buf = bytearray()
        self.fd: int | None = None
        if path is not None:
            try:
                self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
            except OSError as e:
                raise _oserror(e, path) from None

    def write(self, data: bytes | memoryview) -> None:
        self.hash.update(data)
        self.size += len(data)
        if self.fd is None:
            return
        self._buf += data
        if len(self._buf) >= _BUFFER:
            self._flush()

    def _flush(self) -> None:
        if self.fd is None or not self._buf:
            return
        try:
            done, n = 0, len(self._buf)
            with memoryview(self._buf) as whole:
                while done < n:
                    with whole[done:] as rest:
                        done += os.write(self.fd, rest)
        except OSError as e:
            raise _oserror(e, str(self.path)) from None
        finally:
            self._buf.clear()

    def close(self) -> tuple[int, str]:
        if self.fd is not None:
            try:
                self._flush()
                os.fsync(self.fd)
            except OSError as e:
                raise _oserror(e, str(self.path)) from None
            finally:
                os.close(self.fd)
                self.fd = None
        return self.size, self.hash.hexdigest()

    def discard(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class Stage:
    """The staging directory of one run (nothing on disk with ``dry_run``)."""

    def __init__(self, into: str, dry_run: bool) -> None:
        self.into = into
        self.dry_run = dry_run
        self.root: str | None = None
        self._made_into = False
        self._moved: list[str] = []
        self._open: list[Output] = []

    # --- set up ------------------------------------------------------------------------
    def open(self) -> None:
        if self.dry_run:
            return
        try:
            if not os.path.isdir(self.into):
                os.makedirs(self.into)
                self._made_into = True
            self.root = tempfile.mkdtemp(prefix=STAGING_PREFIX, suffix=STAGING_SUFFIX,
                                         dir=self.into)
        except OSError as e:
            raise _oserror(e, self.into) from None

    def path(self, rel: str) -> str | None:
        return None if self.root is None else os.path.join(self.root, rel)

    def mkdir(self, rel: str) -> None:
        p = self.path(rel)
        if p is None or not rel:
            return
        try:
            os.makedirs(p, 0o755, exist_ok=True)
        except OSError as e:
            raise _oserror(e, p) from None

    def create(self, rel: str) -> Output:
        out = Output(self.path(rel))
        self._open.append(out)
        return out

    def write(self, rel: str, data: bytes) -> tuple[int, str]:
        out = self.create(rel)
        out.write(data)
        return self.finish(out)

    def finish(self, out: Output) -> tuple[int, str]:
        result = out.close()
        if out in self._open:
            self._open.remove(out)
        return result

    # --- the end -----------------------------------------------------------------------
    def commit_data(self) -> None:
        """Move the staged copy into DIR, every top-level entry but the manifest."""
        if self.root is None:
            return
        root = self.root
        names = sorted(n for n in os.listdir(root) if n != MANIFEST)
        try:
            for name in names:
                _fsync_dir(os.path.join(root, name))
                target = os.path.join(self.into, name)
                os.rename(os.path.join(root, name), target)
                self._moved.append(target)
            _fsync_dir(self.into)
        except OSError as e:
            raise _oserror(e, self.into) from None

    def commit_manifest(self) -> None:
        """Then the manifest, last: from here on the copy is complete."""
        if self.root is None:
            return
        try:
            os.rename(os.path.join(self.root, MANIFEST), os.path.join(self.into, MANIFEST))
            _fsync_dir(self.into)
            os.rmdir(self.root)
        except OSError as e:
            raise _oserror(e, self.into) from None
        self.root = None
        self._moved.clear()

    def abort(self) -> None:
        """Remove everything this run put in DIR (and DIR when the run made it)."""
        for out in self._open:
            out.discard()
        self._open.clear()
        for target in reversed(self._moved):
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target, ignore_errors=True)
            else:
                try:
                    os.unlink(target)
                except OSError:
                    pass
        self._moved.clear()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
        if self._made_into:
            try:
                os.rmdir(self.into)
            except OSError:
                pass
            self._made_into = False


def _fsync_dir(path: str) -> None:
    """fsync a directory (and, for a partition directory, each file is already synced)."""
    if not os.path.isdir(path):
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["MANIFEST", "STAGING_PREFIX", "STAGING_SUFFIX", "Output", "Stage"]
