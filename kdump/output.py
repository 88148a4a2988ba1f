"""Every file and directory kdump writes: outside every input, staged, published whole.

The one way kdump publishes an output (``export``'s dataset, ``repair``'s copy,
``report -o``'s page, ``verify-index --rebuild-into``'s indexes, ``schemas --export``'s
files, and whatever else goes through ``tempfiles.staged``):

* **Outside every input.**  :func:`input_roots` names what may not be written into: a
  directory input (symlinks resolved), a file input *itself* (not its folder: ``export
  afile --output e2`` writes beside ``afile``), a file's partition directory, and the
  broker log dir holding a partition given (a directory a broker would try to load).
  :func:`check_outside` refuses a target inside one of them, or one that holds an input.
* **Staged in a marked area.**  :class:`Staged` writes under
  ``.kdump-staging-<name>-<pid>.incomplete/`` *beside* the target (same filesystem, so
  the publishing rename is atomic), holding a marker, ``kdump-staging.json``: the
  writing process (pid, its start time from ``/proc/<pid>/stat``, the boot id, host,
  command line, UTC time) and the target.  Files are created ``O_EXCL|O_NOFOLLOW``, hashed
  (SHA-256) as written, fsynced; their directories are fsynced before the publish.
* **Published whole, by one rename.**  A directory output (``kind="dir"``): the staged
  directory is renamed onto the target, which must be absent or an empty directory
  (rename(2) replaces an empty directory atomically: a reader sees nothing, then every
  file with its manifest; the empty directory's own inode, owner and mode give way to
  the staged one's).  A target that is a mount point cannot be replaced so; it is
  refused before anything is read (write into a new directory under it).  ``kind="merge"``
  (``--rebuild-into`` and ``schemas --export``, whose DIR may hold other files): into an
  absent target by one rename; into an existing directory file by file (every name
  checked first, each file whole, none replaced unless ``replace``), the files it added
  removed again if one fails.  A file output
  (``kind="file"``): the staged file is renamed onto the target.  Then the parent
  directory is fsynced and the staging area removed.
* **Cleaned up on failure.**  Whatever ends a run before its publish (an error, a full
  disk, SIGINT, SIGTERM, SIGHUP: :class:`~kdump.errors.Interrupted`) removes the staging
  area; the target is left as it was (absent, or the empty directory it was).  A run that
  could not clean up (SIGKILL, a power loss) leaves the marked area; the next run for
  the same target finds it, sees its process is gone (no such pid, another process under
  that pid, another boot) and clears it, saying so in one line (:func:`clear_dead`).  It
  never removes a directory without a marker of its own, nor one whose process lives.
* **Errors** are :class:`~kdump.errors.OutputError` naming the file (as it would be
  named under the target) and the OS's reason; a full disk adds what the run needed
  when an estimate is known (:meth:`Staged.estimate`).

Size: one module by design (issue 40: one place publishes every output, so no writer
has a way of its own); its parts (the checks, the marker and its process, a staged
file, the staging area and its publish) share one staging area's life.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import io
import json
import os
import re
import shutil
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any

from .errors import OutputError, UsageError
from .layouts import LOG_DIR_FILES

STAGING_PREFIX = ".kdump-staging-"
#: ends a staging area's name (never a partition number: a broker does not load it)
STAGING_SUFFIX = ".incomplete"
#: the marker inside a staging area: who is writing it
MARKER = "kdump-staging.json"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: bytes buffered before a write to a staged file
_BUFFER = 1 << 20
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
#: a partition directory's name (LocalLog.parseTopicPartitionName, 4.x: ``topic-N``, or
#: ``topic-N.<uuid>-delete|-future|-stray``; kdump.files.logdir.parse_partition_dir reads
#: them, above this floor)
_PARTITION_DIR = re.compile(r"^.+-\d+(\.[0-9a-fA-F]{32}-(delete|future|stray))?$")
_LOG_SUFFIX = ".log"

#: staging areas of this process not published or removed yet (removed at exit, by the
#: process that made them: a forked worker inherits the table)
_active: dict[str, int] = {}


# --- names and places ---------------------------------------------------------------------
def safe_name(name: str) -> str:
    """A path component from a name read on disk: nothing from the data steers where
    kdump writes (no separators, no dot-dot, no control bytes)."""
    s = _SAFE.sub("_", name)
    return s if s.strip(".") else "_" + s


def inside(path: str, roots: Iterable[str]) -> str | None:
    """The root of ``roots`` that ``path`` is or lies under, if any (plain strings:
    resolve both first)."""
    for r in roots:
        if path == r or path.startswith(r.rstrip(os.sep) + os.sep):
            return r
    return None


def holds_logs(d: str) -> bool:
    """Does directory ``d`` hold a ``.log`` file?"""
    try:
        return any(n.endswith(_LOG_SUFFIX) for n in os.listdir(d))
    except OSError:
        return False


def is_partition_dir_name(name: str) -> bool:
    """Is ``name`` shaped as a partition directory's (``<topic>-<partition>``...)?"""
    return _PARTITION_DIR.match(name) is not None


def is_broker_log_dir(path: str) -> bool:
    """Does ``path`` hold a log dir's own files (meta.properties, a checkpoint, the lock,
    the clean-shutdown marker: ``layouts.LOG_DIR_FILES``)?"""
    return any(os.path.isfile(os.path.join(path, n)) for n in LOG_DIR_FILES)


def input_roots(inputs: Iterable[str]) -> list[tuple[str, str]]:
    """(real path, what to call it) of everything the local ``inputs`` forbid writing
    into: each input itself (a file by itself, not its folder); for a file in a
    partition directory, that directory; and for a partition directory (given, or
    holding a file given) in a broker's log dir, the log dir: a directory added there is
    one the broker tries to load (LogManager.loadLogs parses every directory name as
    ``<topic>-<partition>`` and refuses the log dir when one does not parse)."""
    out: list[tuple[str, str]] = []
    for p in inputs:
        if "://" in p:
            continue
        real = os.path.realpath(p)
        out.append((real, p))
        part = real if os.path.isdir(real) else os.path.dirname(real)
        if is_partition_dir_name(os.path.basename(part)):
            if part != real:
                out.append((part, f"{p}'s partition directory"))
            if is_broker_log_dir(os.path.dirname(part)):
                out.append((os.path.dirname(part), f"{p}'s log dir"))
    return out


def check_outside(target: str, inputs: Iterable[str], option: str) -> None:
    """Refuse (:class:`UsageError`) a ``target`` that resolves (symlinks followed) into an
    input, a partition input's directory or log dir, or that holds an input."""
    real = os.path.realpath(target)
    for root, shown in input_roots(inputs):
        if inside(real, [root]):
            raise UsageError(f"{option} {target} resolves to {real}, inside the input "
                             f"{shown} ({root}): kdump writes nothing into evidence; choose "
                             "another place")
        if inside(root, [real]) and not shown.endswith("log dir") \
                and not shown.endswith("partition directory"):
            raise UsageError(f"{option} {target} resolves to {real}, which holds the input "
                             f"{shown}: kdump writes nothing into evidence; choose another place")


def fsync_dir(path: str) -> None:
    """fsync a directory (its entries' names are then on disk)."""
    fd = os.open(path, os.O_RDONLY | _CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def free_bytes(path: str) -> int | None:
    """Bytes free to this user on the filesystem of ``path`` (or its nearest existing
    parent), None when unknown."""
    p = os.path.abspath(path)
    while not os.path.exists(p) and os.path.dirname(p) != p:
        p = os.path.dirname(p)
    try:
        st = os.statvfs(p)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def human(n: int) -> str:
    """Bytes for a person (1024-based, one decimal)."""
    x = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if x < 1024 or unit == "TiB":
            return f"{n} bytes" if unit == "bytes" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{n} bytes"  # pragma: no cover


def reason(e: OSError) -> str:
    """The OS's words for ``e``."""
    return e.strerror or os.strerror(e.errno or 0) or str(e)


# --- the writing process --------------------------------------------------------------------
def _proc_start(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (the start time in clock ticks since boot): with the
    pid, it names one process (a pid reused later has another)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("latin-1")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19] if ")" in stat else None


def _boot_id() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _me(target: str) -> dict[str, Any]:
    pid = os.getpid()
    return {"writer": "kdump", "pid": pid, "start_time": _proc_start(pid), "boot_id": _boot_id(),
            "host": socket.gethostname(), "command": " ".join(sys.argv) if sys.argv else "",
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "target": target}


def _alive(marker: dict[str, Any]) -> bool:
    """Is the process a marker names still running (on this host, since this boot)?"""
    if marker.get("host") != socket.gethostname():
        return True  # another machine's (a shared filesystem): not for us to judge
    boot = _boot_id()
    if boot is not None and marker.get("boot_id") not in (None, boot):
        return False
    pid = marker.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return True
    start = _proc_start(pid)
    if start is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return marker.get("start_time") is None
    return marker.get("start_time") in (None, start)


def _read_marker(area: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(area, MARKER), "rb") as fh:
            obj = json.loads(fh.read(1 << 16))
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) and obj.get("writer") == "kdump" else None


def clear_dead(target: str, say: Callable[[str], None] | None = None) -> list[str]:
    """Remove the staging areas beside ``target`` that a kdump process which died left
    for it (their marker names ``target`` and a process no longer running); say so,
    one line each.  The areas removed."""
    target = os.path.abspath(target)
    parent, name = os.path.split(target)
    prefix = f"{STAGING_PREFIX}{safe_name(name)}-"
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    cleared = []
    for n in sorted(names):
        if not (n.startswith(prefix) and n.endswith(STAGING_SUFFIX)):
            continue
        area = os.path.join(parent, n)
        if os.path.islink(area) or not os.path.isdir(area):
            continue
        marker = _read_marker(area)
        if marker is None or marker.get("target") != target or _alive(marker):
            continue
        shutil.rmtree(area, ignore_errors=True)
        cleared.append(area)
        if say is not None:
            say(f"kdump: cleared {area}, the unfinished output of kdump process "
                f"{marker.get('pid')} (started {marker.get('started')}), which died")
    return cleared


def _warn(line: str) -> None:
    with suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


# --- a file being written ---------------------------------------------------------------------
class StagedFile:
    """One file being written in a staging area: buffered, hashed (SHA-256) and counted
    as written, flushed and fsynced by :meth:`finish`, which returns (size, SHA-256).  A
    binary file object as far as pyarrow's writers care.  ``path=None``: hashed only."""

    def __init__(self, path: str | None, shown: str, on_error: Callable[[OSError, str], OutputError]
                 ) -> None:
        self.path = path
        self.shown = shown
        self._error = on_error
        self.hash = hashlib.sha256()
        self.size = 0
        self.closed = False
        self._buf = bytearray()
        self.fd: int | None = None
        if path is not None:
            try:
                self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                                  0o644)
            except OSError as e:
                raise on_error(e, shown) from None

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.hash.update(view)
        self.size += len(view)
        if self.fd is not None:
            self._buf += view
            if len(self._buf) >= _BUFFER:
                self._flush()
        return len(view)

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
            raise self._error(e, self.shown) from None
        finally:
            self._buf.clear()

    def flush(self) -> None:
        self._flush()

    def tell(self) -> int:
        return self.size

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    @property
    def sha256(self) -> str:
        return self.hash.hexdigest()

    def close(self) -> None:
        """Nothing yet (pyarrow's writers call it): :meth:`finish` flushes and fsyncs."""
        self.closed = True

    def finish(self) -> tuple[int, str]:
        """Flush, fsync and close; (size, SHA-256)."""
        if self.fd is not None:
            try:
                self._flush()
                os.fsync(self.fd)
            except OSError as e:
                raise self._error(e, self.shown) from None
            finally:
                os.close(self.fd)
                self.fd = None
        self.closed = True
        return self.size, self.sha256

    def discard(self) -> None:
        if self.fd is not None:
            with suppress(OSError):
                os.close(self.fd)
            self.fd = None
        self.closed = True


class _Misplaced(Exception):
    """A staged file that could not be put in its place (``rel``) in a merge."""

    def __init__(self, error: OSError, rel: str) -> None:
        super().__init__(rel)
        self.error = error
        self.rel = rel


# --- a staged output ------------------------------------------------------------------------------
class Staged:
    """One output of one run (see the module docstring): :meth:`open` makes the marked
    staging area (clearing a dead run's), :meth:`create`/:meth:`write`/:meth:`mkdir` fill
    it, :meth:`publish` renames it onto the target, :meth:`abort` removes it.  As a
    context manager: opened on entry, aborted when the block ends by an exception (a
    signal too) unless published.  ``dry_run``: everything hashed, nothing on disk.

    ``kind``: ``"dir"`` (the target is absent or an empty directory), ``"merge"`` (a
    directory that may hold other files: ``replace`` lets a file replace one there) or
    ``"file"`` (``replace``: an existing file is replaced).  ``shown``: the target as the
    user typed it, for messages."""

    def __init__(self, target: str, *, kind: str = "dir", shown: str | None = None,
                 replace: bool = False, dry_run: bool = False, option: str = "",
                 say: Callable[[str], None] | None = _warn) -> None:
        assert kind in ("dir", "merge", "file")
        self.target = os.path.abspath(target)
        self.shown = shown if shown is not None else target
        #: the option naming the target (``--output``), for the target checks' messages
        self.option = option
        self.kind = kind
        self.replace = replace
        self.dry_run = dry_run
        self.say = say
        #: the staging area (None before open, after publish or abort, and in a dry run)
        self.area: str | None = None
        #: every file written: path relative to the target -> (size, SHA-256)
        self.written: dict[str, tuple[int, str]] = {}
        #: bytes the run is expected to write (a full disk's message says it)
        self.needed: int | None = None
        self.free_at_start: int | None = None
        self._open: list[StagedFile] = []
        self._owner = os.getpid()
        self.published = False

    # --- set up --------------------------------------------------------------------------------
    @property
    def root(self) -> str | None:
        """Where the output's content is staged (``area/<name>``)."""
        return None if self.area is None else os.path.join(self.area, "out")

    def check_target(self) -> None:
        """The target as this kind of output allows it (:class:`UsageError` otherwise)."""
        t, shown = self.target, f"{self.option} {self.shown}".strip()
        if not os.path.lexists(t):
            parent = os.path.dirname(t)
            if self.kind != "file":  # a directory's missing parents are made (mkdir -p)
                while not os.path.lexists(parent) and os.path.dirname(parent) != parent:
                    parent = os.path.dirname(parent)
            if not os.path.isdir(parent):
                code = errno.ENOTDIR if os.path.exists(parent) else errno.ENOENT
                raise OutputError(f"cannot write: {os.strerror(code)}", path=self.shown)
            return
        if self.kind == "file":
            if os.path.isdir(t):
                raise UsageError(f"{shown} is a directory")
            if not self.replace:
                raise UsageError(f"{shown} already exists; kdump does not replace files")
            return
        if os.path.islink(t) and not os.path.isdir(t):
            raise UsageError(f"{shown} is a symlink to nowhere")
        if not os.path.isdir(t):
            raise UsageError(f"{shown} exists and is not a directory")
        try:
            entries = os.listdir(t)
        except OSError as e:
            raise UsageError(f"{shown}: {reason(e)}") from None
        if entries and self.kind == "dir":
            raise UsageError(f"{shown} is not empty: kdump writes into a new or empty "
                             "directory only")
        if not entries and self.kind == "dir" and os.path.ismount(t):
            raise UsageError(f"{shown} is a mount point: kdump publishes a directory by "
                             "renaming it into place, which a mount point cannot take; give a "
                             f"new directory under it (e.g. {os.path.join(self.shown, 'out')})")

    def estimate(self, needed: int | None) -> None:
        """Say how many bytes the run will write (None: unknown); remembered with the
        free space now, for a full disk's message."""
        self.needed = needed
        self.free_at_start = free_bytes(os.path.dirname(self.target))

    def open(self) -> Staged:
        """Clear a dead run's staging area for this target, check the target, make ours."""
        if self.dry_run or self.area is not None:
            return self
        clear_dead(self.target, self.say)
        self.check_target()
        parent, name = os.path.split(self.target)
        if self.kind != "file" and not os.path.isdir(parent):
            try:
                os.makedirs(parent, exist_ok=True)
            except OSError as e:
                raise OutputError(f"cannot write: {reason(e)}", path=self.shown) from None
        area = os.path.join(parent, f"{STAGING_PREFIX}{safe_name(name)}-{os.getpid()}"
                                    f"{STAGING_SUFFIX}")
        try:
            os.mkdir(area, 0o700)
        except FileExistsError:
            raise OutputError(f"cannot write: {area} exists (another kdump run of this "
                              "process id?)", path=self.shown) from None
        except OSError as e:
            raise OutputError(f"cannot write: {reason(e)}", path=self.shown) from None
        self.area = area
        _active[area] = os.getpid()
        try:
            fd = os.open(os.path.join(area, MARKER), os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | _NOFOLLOW | _CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write((json.dumps(_me(self.target)) + "\n").encode())
                fh.flush()
                os.fsync(fh.fileno())
            if self.kind != "file":
                os.mkdir(os.path.join(area, "out"), 0o755)
            fsync_dir(area)
            fsync_dir(parent)
        except OSError as e:
            self.abort()
            raise self.error(e, self.shown) from None
        return self

    def __enter__(self) -> Staged:
        return self.open()

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        if not self.published:
            self.abort()

    # --- writing ---------------------------------------------------------------------------
    def shown_path(self, rel: str) -> str:
        """``rel`` as it will be named under the target (for messages)."""
        if self.kind == "file":
            return self.shown
        return os.path.join(self.shown, rel) if rel else self.shown

    def error(self, e: OSError, shown: str) -> OutputError:
        """The one line for an OS error writing ``shown``: its reason, and on a full disk
        what the run needed, when known."""
        why = reason(e)
        if e.errno in (errno.ENOSPC, errno.EDQUOT) and self.needed:
            why += f" (it needs about {human(self.needed)}"
            if self.free_at_start is not None:
                why += f"; {human(self.free_at_start)} were free when it started"
            why += ")"
        if self.kind != "file":
            why += f"; {self.shown} is left as it was"
        return OutputError(f"cannot write: {why}", path=shown)

    def _staged(self, rel: str) -> str | None:
        if self.dry_run:
            return None
        if self.area is None:
            raise OutputError("cannot write: its staging area is gone", path=self.shown_path(rel))
        if self.kind == "file":
            return os.path.join(self.area, "out")
        assert self.root is not None
        return os.path.join(self.root, rel)

    def mkdir(self, rel: str) -> str | None:
        """``rel`` (and its parents) made in the staging area, never through a symlink;
        the staging area itself is never made again (a late worker after an abort fails)."""
        if not rel or self.dry_run:
            return self._staged(rel) if not self.dry_run else None
        cur = self._staged("")
        assert cur is not None
        for part in rel.split("/"):
            cur = os.path.join(cur, part)
            try:
                os.mkdir(cur, 0o755)
            except FileExistsError:
                if os.path.islink(cur) or not os.path.isdir(cur):
                    raise OutputError(f"cannot write: {cur} is not a plain directory",
                                      path=self.shown_path(rel)) from None
            except OSError as e:
                raise self.error(e, self.shown_path(rel)) from None
        return cur

    def create(self, rel: str = "") -> StagedFile:
        """A new file ``rel`` (``""`` for a file output), its directories made; finish it
        with :meth:`finish` (or use :meth:`file`)."""
        d = os.path.dirname(rel)
        if d:
            self.mkdir(d)
        out = StagedFile(self._staged(rel), self.shown_path(rel), self.error)
        self._open.append(out)
        return out

    def finish(self, out: StagedFile, rel: str | None = None) -> tuple[int, str]:
        """Close ``out`` (fsynced); its (size, SHA-256), listed in :attr:`written`."""
        result = out.finish()
        if out in self._open:
            self._open.remove(out)
        if rel is not None:
            self.written[rel] = result
        return result

    @contextmanager
    def file(self, rel: str = "") -> Iterator[StagedFile]:
        """A new file ``rel`` for the block, finished when it ends without an error (its
        ``size`` and ``sha256`` then hold), removed otherwise."""
        out = self.create(rel)
        try:
            yield out
            self.finish(out, rel)
        except BaseException:
            out.discard()
            if out in self._open:
                self._open.remove(out)
            if out.path is not None:
                with suppress(OSError):
                    os.unlink(out.path)
            raise

    def write(self, rel: str, data: bytes) -> tuple[int, str]:
        """A whole file at once: (size, SHA-256)."""
        with self.file(rel) as out:
            out.write(data)
        return self.written[rel]

    # --- the end ---------------------------------------------------------------------------
    def publish(self) -> None:
        """Fsync the staged tree, rename it onto the target, fsync the target's parent,
        remove the staging area.  On failure the target is as it was, nothing staged left."""
        if self.dry_run or self.area is None:
            self.published = True
            return
        if os.getpid() != self._owner:
            raise RuntimeError("a staged output is published by the process that opened it")
        for out in list(self._open):
            self.finish(out)
        src = os.path.join(self.area, "out")
        parent = os.path.dirname(self.target)
        try:
            if self.kind != "file":
                for d, _dirs, _files in os.walk(src, topdown=False):
                    fsync_dir(d)
            if self.kind == "merge" and os.path.isdir(self.target):
                self._merge(src)
            elif self.kind == "file" and self.replace:
                os.replace(src, self.target)
            elif self.kind == "file":
                os.link(src, self.target, follow_symlinks=False)
            else:
                os.rename(src, self.target)  # absent, or an empty directory it replaces
            fsync_dir(parent)
        except _Misplaced as e:
            self.abort()
            raise self.error(e.error, self.shown_path(e.rel)) from None
        except OSError as e:
            self.abort()
            raise self.error(e, self.shown) from None
        self.published = True
        self._remove_area()

    def _merge(self, src: str) -> None:
        """Each staged file into the existing target, whole (a link, or a rename over an
        existing file with ``replace``).  Every name is checked first (a directory in a
        file's way, or a file without ``replace``: nothing is placed); a failure while
        placing removes the files this run added.  Raises :class:`_Misplaced`."""
        plan: list[tuple[str, str, str]] = []  # (staged file, its place, rel)
        for d, dirs, files in os.walk(src):
            dirs.sort()
            rel_dir = os.path.relpath(d, src)
            for f in sorted(files):
                rel = f if rel_dir == "." else os.path.join(rel_dir, f)
                t = os.path.join(self.target, rel)
                if os.path.lexists(t) and (os.path.isdir(t) or not self.replace):
                    code = errno.EISDIR if os.path.isdir(t) else errno.EEXIST
                    raise _Misplaced(OSError(code, os.strerror(code)), rel)
                plan.append((os.path.join(d, f), t, rel))
        added: list[str] = []
        made: list[str] = []
        at = ""
        try:
            for staged, t, rel in plan:
                at = rel
                parts = os.path.relpath(os.path.dirname(t), self.target).split(os.sep)
                cur = self.target
                for part in parts if parts != ["."] else []:
                    cur = os.path.join(cur, part)
                    if not os.path.lexists(cur):
                        os.mkdir(cur, 0o755)
                        made.append(cur)
                    elif os.path.islink(cur) or not os.path.isdir(cur):
                        raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
                fresh = not os.path.lexists(t)
                if self.replace:
                    os.replace(staged, t)  # replaces a symlink itself, never its target
                else:
                    os.link(staged, t, follow_symlinks=False)  # fails if the name exists
                if fresh:
                    added.append(t)
            for d in {os.path.dirname(t) for _, t, _ in plan} | set(made):
                fsync_dir(d)
        except BaseException as e:  # a signal too: no half-placed set is left
            for p in added:
                with suppress(OSError):
                    os.unlink(p)
            for d in reversed(made):
                with suppress(OSError):
                    os.rmdir(d)
            if isinstance(e, OSError):
                raise _Misplaced(e, at) from None
            raise

    def _remove_area(self) -> None:
        if self.area is not None:
            shutil.rmtree(self.area, ignore_errors=True)
            _active.pop(self.area, None)
            self.area = None
            with suppress(OSError):
                fsync_dir(os.path.dirname(self.target))

    def abort(self) -> None:
        """Remove the staging area and everything in it; the target is untouched."""
        for out in self._open:
            out.discard()
        self._open.clear()
        if os.getpid() == self._owner:
            self._remove_area()


@contextmanager
def staged_file(path: str, mode: str = "w", encoding: str | None = "utf-8", *,
                replace: bool = True) -> Iterator[IO[Any]]:
    """A text (or binary, ``mode="wb"``) file object for ``path``, published (renamed
    over ``path``) when the block ends without an error, removed otherwise: see
    :class:`Staged` (``kind="file"``)."""
    stage = Staged(path, kind="file", replace=replace)
    with stage:
        with stage.file("") as raw:
            if "b" in mode:
                yield raw  # type: ignore[misc]
            else:
                text = io.TextIOWrapper(io.BufferedWriter(_Raw(raw)), encoding=encoding or "utf-8",
                                        errors="backslashreplace", newline="")
                yield text
                text.flush()
                text.detach()
        stage.publish()


class _Raw(io.RawIOBase):
    """A :class:`StagedFile` as a raw stream (for a text wrapper)."""

    def __init__(self, out: StagedFile) -> None:
        super().__init__()
        self.out = out

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        return self.out.write(b)


@atexit.register
def _remove_all() -> None:  # pragma: no cover - runs at interpreter exit
    for area, pid in list(_active.items()):
        if pid == os.getpid():
            shutil.rmtree(area, ignore_errors=True)
            _active.pop(area, None)


__all__ = ["MARKER", "STAGING_PREFIX", "STAGING_SUFFIX", "Staged", "StagedFile", "check_outside",
           "clear_dead", "free_bytes", "fsync_dir", "holds_logs", "human", "input_roots",
           "inside", "is_broker_log_dir", "is_partition_dir_name", "reason", "safe_name",
           "staged_file"]
