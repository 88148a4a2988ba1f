"""Where input files live: local paths, or URLs of object stores and remote filesystems.

Local paths keep kdump's own read path (:class:`kdump.source.FileSource`: ``pread`` on a
file descriptor opened ``O_NOATIME``); nothing here is on that path.  URLs
(``s3://``, ``gs://``, ``abfs://``, ``hdfs://``, ``file://`` ...) go through fsspec:

* a file is read in byte ranges (:class:`RemoteSource`, one ranged GET per window), the
  windows growing while a read is sequential (as the kernel's read-ahead does) and staying
  small for lookups, so a find-offset on a 1 GiB remote segment fetches kilobytes;
* a prefix is listed with ONE paginated walk (``fs.find(..., detail=True)``) whose
  result answers every question the log-dir walker asks (:class:`Listing`), instead of
  a request per file;
* every failure of the network or the store becomes an :class:`~kdump.errors.InputError`
  naming the URL and the byte range, after a bounded number of retries (the backend's own
  retries come first; kdump adds :data:`RETRIES` more for transient errors);
* every remote call has a bounded total time, retries included: :data:`REMOTE_TIMEOUT`
  seconds (``--remote-timeout``), enforced around the call for the asynchronous backends
  (s3fs, gcsfs, adlfs), with S3's connect and read timeouts and botocore's attempts set
  by kdump unless the store's own configuration sets them (``AWS_MAX_ATTEMPTS``,
  ``max_attempts`` in the profile), and with no retry below kdump (botocore's or s3fs's)
  when the bound is shorter than one read timeout; so a silent endpoint (a hung proxy, a black-holed
  VPC endpoint) or one answering 500 to everything gives one line within that bound;
* no credential, signature, token or query string reaches a message: every reason and
  URL kdump reports goes through :func:`scrub` (the secrets of the environment are
  replaced wherever they appear, URLs lose their user info and query strings, and
  ``Signature=``, ``Credential=``, ``X-Amz-Security-Token=``, ``Authorization:``
  values are cut).

Why fsspec rather than ``pyarrow.fs``: one interface for every scheme the issue names
(``abfs://`` has no pyarrow filesystem in most builds, and pyarrow's HDFS wants the JVM's
libhdfs anyway), ranged reads as a single call (``cat_file(path, start, end)``), a
paginated recursive listing with sizes, errors mapped onto the builtin
``FileNotFoundError``/``PermissionError``, and backends that read each store's standard
configuration (for S3, botocore: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, ``AWS_REGION``, ``AWS_ENDPOINT_URL`` ...).  fsspec
itself is pure Python without dependencies; each backend is an optional extra.

Credentials never come from kdump flags.

Over 600 lines on purpose: every remote byte, listing and error goes through this one
module, and its bounds (time, retries) and its scrubbing of secrets must be on every
path: split, each part would be one more path a hang or a credential could take.

Size: a little over 600 lines, as remote access is one concern: URL parsing, the ranged
reader, the one-walk listing, the time bound and the scrubbing of secrets share the
store's state and its error translation.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from typing import Any

from .errors import InputError, UsageError

#: scheme -> (fsspec protocol, the kdump extra that installs its backend)
SCHEMES: dict[str, tuple[str, str | None]] = {
    "s3": ("s3", "s3"),
    "s3a": ("s3", "s3"),
    "gs": ("gcs", "gcs"),
    "gcs": ("gcs", "gcs"),
    "abfs": ("abfs", "azure"),
    "abfss": ("abfs", "azure"),
    "az": ("abfs", "azure"),
    "hdfs": ("hdfs", "hdfs"),
    "file": ("file", None),
}
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

#: kdump's own retries of a failed ranged read or listing (on top of the backend's)
RETRIES = 2
_BACKOFF = 0.2
#: the most one remote call may take, in seconds, retries included (``--remote-timeout``)
REMOTE_TIMEOUT = 60.0
#: S3 (botocore) connect and read timeouts, and attempts per request, unless the store's
#: configuration sets them; s3fs's own retries of a request
S3_CONNECT_TIMEOUT = 10.0
S3_READ_TIMEOUT = 30.0
S3_MAX_ATTEMPTS = 2
S3FS_RETRIES = 2
_timeout = REMOTE_TIMEOUT


def set_remote_timeout(seconds: float) -> None:
    """The bound on one remote call, retries included (``--remote-timeout``)."""
    global _timeout
    if seconds <= 0:
        raise ValueError("the remote timeout must be positive")
    if seconds != _timeout:
        _timeout = float(seconds)
        clear_cache()  # filesystems are configured with it


def remote_timeout() -> float:
    return _timeout


# --- secrets never printed -----------------------------------------------------------------
#: environment variables whose values are secrets (replaced wherever they appear)
SECRET_ENV = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
              "AWS_ACCESS_KEY_ID", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_KEY",
              "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_SAS_TOKEN", "AZURE_CLIENT_SECRET",
              "GOOGLE_APPLICATION_CREDENTIALS_JSON", "HADOOP_TOKEN")
_SECRET_PATTERNS = (
    # user info of a URL (scheme://user:password@host)
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]*@"), r"\1***@"),
    # query strings (pre-signed URLs, SAS tokens)
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s?#'\"]*)\?[^\s'\"]*"), r"\1?***"),
    (re.compile(r"(?i)\b(authorization|x-amz-security-token|x-amz-signature|x-amz-credential|"
                r"signature|credential|sig|token|secret|password|accountkey|sharedaccesssignature)"
                r"(\s*[=:]\s*)(\S+)"), r"\1\2***"),
    (re.compile(r"\bAKIA[0-9A-Z]{12,}\b|\bASIA[0-9A-Z]{12,}\b"), "***"),
)


def scrub(text: str) -> str:
    """``text`` with every credential, signature, token and query string cut out."""
    for name in SECRET_ENV:
        v = os.environ.get(name)
        if v and len(v) >= 4:
            text = text.replace(v, "***")
            if name == "AZURE_STORAGE_CONNECTION_STRING":
                for part in v.split(";"):
                    _, eq, val = part.partition("=")
                    if eq and len(val) >= 4:
                        text = text.replace(val, "***")
    for pattern, repl in _SECRET_PATTERNS:
        text = pattern.sub(repl, text)
    return text


def display_url(url: str) -> str:
    """A URL as messages show it: no user info, no query string."""
    return scrub(url)


#: the first fetch of a non-sequential read; doubles while reads are sequential, up to
#: the window's size
READAHEAD_MIN = 16 << 10


class RemoteStats:
    """Requests and bytes fetched by :class:`RemoteSource` in this process (tests and
    ``bytes touched`` figures)."""

    requests = 0
    bytes = 0
    listings = 0


def is_url(path: str) -> bool:
    return _URL.match(path) is not None


def scheme_of(url: str) -> str:
    m = _URL.match(url)
    return m.group(1).lower() if m else ""


def abspath(path: str) -> str:
    """``os.path.abspath`` for local paths; a URL as given (minus a trailing slash)."""
    if is_url(path):
        return path.rstrip("/") or path
    return os.path.abspath(path)


def dirname(path: str) -> str:
    if is_url(path):
        return path.rstrip("/").rsplit("/", 1)[0]
    return os.path.dirname(path)


_fs_cache: dict[tuple[str, str, int], Any] = {}
_fs_lock = threading.Lock()


#: a URL holding a secret: a password in its user info, or a query string (pre-signed
#: URLs, SAS tokens)
_SECRET_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/@?#]*:[^/@?#]*@|[^?#]*\?)")


def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem serving ``url`` and the path inside it.  A missing backend
    is an :class:`InputError` naming the extra that installs it.  A URL holding a secret
    (``s3://key:secret@bucket``, a query string) is refused: every object kdump writes
    names its file, so the secret would be in the output."""
    if _SECRET_URL.match(url):
        raise UsageError("a URL holding a password or a query string would print it with "
                         "every file kdump names: give credentials through the store's own "
                         "configuration (environment, profile), not in the URL",
                         path=display_url(url))
    scheme = scheme_of(url)
    entry = SCHEMES.get(scheme)
    if entry is None:
        known = ", ".join(f"{s}://" for s in SCHEMES)
        raise InputError(f"unsupported URL scheme {scheme}:// (kdump reads {known} and local paths)",
                         path=display_url(url))
    protocol, extra = entry
    hint = (f"install it with: pip install 'kdump[{extra}]'" if extra
            else "install it with: pip install fsspec")
    try:
        import fsspec
    except ImportError:
        raise InputError(f"{scheme}:// URLs need fsspec; {hint}", path=display_url(url)) from None
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except ImportError:
        raise InputError(f"{scheme}:// URLs need the '{extra}' extra; {hint}",
                         path=display_url(url)) from None
    except Exception as e:
        raise InputError(f"cannot open the {scheme}:// filesystem: {_reason(e)}",
                         path=display_url(url)) from None
    try:
        # what the URL itself configures (hdfs://namenode:8020/...: host and port), and
        # the path inside the filesystem, as the backend understands its own URLs
        options = dict(cls._get_kwargs_from_urls(url))
        inner = str(cls._strip_protocol(url))
    except Exception as e:
        raise InputError(f"not a valid {scheme}:// URL: {_reason(e)}", path=display_url(url)) from None
    key = (protocol, repr(sorted(options.items())), os.getpid())
    with _fs_lock:
        fs = _fs_cache.get(key)
        if fs is None:
            try:
                fs = cls(skip_instance_cache=True, **_bounded(protocol, options))
            except ImportError:
                raise InputError(f"{scheme}:// URLs need the '{extra}' extra; {hint}",
                                 path=display_url(url)) from None
            except Exception as e:  # a backend that cannot start (bad config ...)
                raise InputError(f"cannot open the {scheme}:// filesystem: {_reason(e)}",
                                 path=display_url(url)) from None
            if protocol == "s3" and hasattr(fs, "retries"):
                # s3fs's own retries of a request, on top of botocore's: none when one
                # attempt must fit the budget (s3fs retries a read timeout 0.1 s later,
                # a new connection while kdump is saying the timeout; see _bounded)
                fs.retries = S3FS_RETRIES if _retries_fit() else 1
            _fs_cache[key] = fs
    inner = inner.rstrip("/") or inner
    return fs, inner


def _bounded(protocol: str, options: dict[str, Any]) -> dict[str, Any]:
    """The backend's options with kdump's bounds on time: for S3, botocore's connect and
    read timeouts and its attempts per request (unless the store's configuration sets
    them: ``AWS_MAX_ATTEMPTS``, or ``max_attempts`` in the profile)."""
    if protocol != "s3":
        return options
    config = dict(options.get("config_kwargs") or {})
    config.setdefault("connect_timeout", min(S3_CONNECT_TIMEOUT, _timeout))
    config.setdefault("read_timeout", min(S3_READ_TIMEOUT, _timeout))
    if "retries" not in config and not _store_sets_attempts():
        # a second attempt after a read timeout as long as the whole budget could never
        # end within it; and the first is not cancelled when the budget runs out (fsspec's
        # blocking call stops waiting, its coroutine goes on), so botocore's retry would
        # open a new connection while kdump is saying the timeout: one attempt then
        # (kdump's own retries, within the budget, still retry what is transient)
        attempts = S3_MAX_ATTEMPTS if _retries_fit() else 1
        config["retries"] = {"max_attempts": attempts,
                             "mode": os.environ.get("AWS_RETRY_MODE") or "standard"}
    return {**options, "config_kwargs": config}


def _retries_fit() -> bool:
    """Whether a request that timed out can be tried again within the budget: only when
    the budget is longer than one read timeout."""
    return _timeout > S3_READ_TIMEOUT


def _store_sets_attempts() -> bool:
    if os.environ.get("AWS_MAX_ATTEMPTS"):
        return True
    try:
        import botocore.session

        return botocore.session.get_session().get_config_variable("max_attempts") is not None
    except Exception:  # no botocore, or a profile it cannot read: kdump's bound
        return False


def clear_cache() -> None:
    """Forget the filesystems and object sizes of this process (the environment that
    configures them changed: tests)."""
    with _fs_lock:
        _fs_cache.clear()
    _known_sizes.clear()
    _failed_listings.clear()
    _silent.clear()


def _reason(e: BaseException) -> str:
    """A one-line reason for a backend's exception (never a traceback, never a secret)."""
    return scrub(_raw_reason(e))


def _is_timeout(e: BaseException) -> bool:
    names = {c.__name__ for c in type(e).__mro__}
    return bool(names & {"TimeoutError", "FSTimeoutError", "ConnectTimeoutError", "ReadTimeoutError",
                         "ConnectTimeout", "ReadTimeout", "ServerTimeoutError"}) or (
        e.__cause__ is not None and e.__cause__ is not e and _is_timeout(e.__cause__))


def _raw_reason(e: BaseException) -> str:
    if _is_timeout(e):
        return (f"no answer within the time allowed (timeout; {_timeout:g} s per request at "
                "most, --remote-timeout)")
    if isinstance(e, FileNotFoundError):
        return "no such file or object"
    if isinstance(e, PermissionError):
        text = str(e).strip()
        return "access denied" + (f" ({_one_line(text)})" if text else "")
    cause = e.__cause__
    response = getattr(cause, "response", None)  # botocore's ClientError behind s3fs's OSError
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        err = response.get("Error", {})
        parts = [f"HTTP {status}" if status else "", str(err.get("Code") or ""),
                 str(err.get("Message") or "")]
        text = _one_line(" ".join(p for p in parts if p))
        if text:
            return text
    if isinstance(e, OSError) and e.strerror:
        return _one_line(e.strerror)
    return _one_line(str(e)) or type(e).__name__


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text[:300] + ("..." if len(text) > 300 else "")


def _transient(e: BaseException) -> bool:
    return not isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError,
                              NotADirectoryError, ValueError, TypeError))


#: filesystems (by id: they live in _fs_cache for the process) that let a request time out
_silent: dict[int, str] = {}


def _with_retries(fs: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``fs.method(*args, **kwargs)``, retried while transient, all within
    :data:`REMOTE_TIMEOUT` (enforced around each call of an asynchronous backend, whose
    blocking calls take ``timeout``)."""
    what = getattr(fs, method)
    delay = _BACKOFF
    deadline = time.monotonic() + _timeout
    bounded = _is_async(fs)
    if id(fs) in _silent:
        # this store already let a request time out: the next ones fail at once, so a
        # walk of a thousand objects costs one timeout, not a thousand
        raise TimeoutError(_silent[id(fs)])
    for attempt in range(RETRIES + 1):
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError("remote timeout")
            return what(*args, **kwargs, timeout=left) if bounded else what(*args, **kwargs)
        except Exception as e:
            if _is_timeout(e):
                _silent[id(fs)] = "remote timeout"
            if attempt == RETRIES or not _transient(e) or _is_timeout(e) \
                    or time.monotonic() + delay >= deadline:
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


def _is_async(fs: Any) -> bool:
    try:
        from fsspec.asyn import AsyncFileSystem
    except ImportError:
        return False
    return isinstance(fs, AsyncFileSystem) and not getattr(fs, "asynchronous", False)


# --- reading ------------------------------------------------------------------------------
def remote_info(url: str) -> dict[str, Any]:
    fs, inner = filesystem(url)
    try:
        RemoteStats.requests += 1
        info: dict[str, Any] = _with_retries(fs, "info", inner)
    except Exception as e:
        raise InputError(_reason(e), path=display_url(url)) from None
    return info


def mtime_ms(path: str) -> int | None:
    """A file's modification time in epoch milliseconds (Java's File.lastModified), local
    or remote (the store's LastModified); None when it cannot be had."""
    if is_url(path):
        try:
            info = remote_info(path)
        except (InputError, OSError):
            return None
        for k in ("LastModified", "mtime", "last_modified", "updated"):
            v = info.get(k)
            if isinstance(v, (int, float)):
                return int(v * 1000)
            stamp = getattr(v, "timestamp", None)
            if callable(stamp):
                return int(stamp() * 1000)
        return None
    try:
        return os.stat(path).st_mtime_ns // 1_000_000
    except OSError:
        return None


#: sizes of the objects the listings of this process saw: opening one of them needs no
#: metadata request of its own
_known_sizes: dict[str, int] = {}


def known_size(url: str) -> int | None:
    return _known_sizes.get(url.rstrip("/"))


def getsize(path: str) -> int:
    """The size of a file, local or remote; OSError when it cannot be had."""
    if not is_url(path):
        return os.stat(path).st_size
    size = known_size(path)
    if size is not None:
        return size
    try:
        info = remote_info(path)
    except InputError as e:
        raise OSError(0, e.message) from None
    if info.get("type") == "directory":
        raise IsADirectoryError(21, "is a directory, not a file")
    return int(info.get("size") or 0)


def getsizes(path: str) -> tuple[int, int | None]:
    """A file's apparent size (``st_size``, as ``ls`` shows it) and its allocated size
    (``st_blocks`` x 512, as ``du`` counts it; less than the apparent size for a sparse
    file, such as a running broker's preallocated ``.index``); the allocated size is None
    for a remote input (an object store keeps no block counts).  OSError when the file
    cannot be had."""
    if not is_url(path):
        st = os.stat(path)
        return st.st_size, disk_bytes_of(st)
    return getsize(path), None


def disk_bytes_of(st: os.stat_result) -> int:
    """Bytes allocated to a file (POSIX ``st_blocks`` counts 512-byte units)."""
    blocks = getattr(st, "st_blocks", None)  # absent on Windows: the apparent size
    return st.st_size if blocks is None else int(blocks) * 512


#: what an input without block counts says of its allocated bytes
NO_BLOCK_COUNTS = ("an object store keeps no block counts: disk_bytes is unknown (null); "
                   "bytes is the objects' size")


def _remote_stat(path: str) -> os.stat_result | None:
    """A URL's stat; None when nothing is there.  A store that cannot answer (timeout,
    access denied, HTTP 500 ...) is an :class:`InputError`, not a missing file."""
    try:
        return Listing().stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise InputError(scrub(e.strerror or str(e)), path=display_url(path)) from None


def isdir(path: str) -> bool:
    if not is_url(path):
        return os.path.isdir(path)
    st = _remote_stat(path)
    return st is not None and st.st_mode & stat.S_IFDIR != 0


def isfile(path: str) -> bool:
    if not is_url(path):
        return os.path.isfile(path)
    st = _remote_stat(path)
    return st is not None and stat.S_ISREG(st.st_mode)


def exists(path: str) -> bool:
    if not is_url(path):
        return os.path.exists(path)
    return _remote_stat(path) is not None


def read_range(fs: Any, inner: str, url: str, position: int, n: int) -> bytes:
    """``n`` bytes at ``position`` (fewer when the object is shorter), retried."""
    try:
        data: bytes = _with_retries(fs, "cat_file", inner, start=position,
                                    end=position + n)
    except Exception as e:
        raise InputError(f"read of bytes {position}..{position + n} failed: {_reason(e)}",
                         path=display_url(url), position=position) from None
    RemoteStats.requests += 1
    RemoteStats.bytes += len(data)
    return data


# --- listing ------------------------------------------------------------------------------
_DIR_MODE = stat.S_IFDIR | 0o555
_FILE_MODE = stat.S_IFREG | 0o444


def _stat_result(is_dir: bool, size: int, key: str) -> os.stat_result:
    # st_dev 0 and a per-path st_ino: the walker's "directory already visited" check
    ino = hash(key) & 0x7FFFFFFFFFFFFFFF
    return os.stat_result((_DIR_MODE if is_dir else _FILE_MODE, ino, 0, 1, 0, 0, size, 0, 0, 0))


class _Tree:
    """Everything under one URL, from one paginated recursive listing."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/") or url
        fs, inner = filesystem(url)
        self.inner = inner
        self.files: dict[str, int] = {}  # relative path -> size ("" = the root is a file)
        self.dirs: dict[str, set[str]] = {}  # relative dir -> names
        try:
            RemoteStats.listings += 1
            found: dict[str, dict[str, Any]] = _with_retries(fs, "find", inner, withdirs=True,
                                                             detail=True)
        except FileNotFoundError:
            found = {}
        except Exception as e:
            raise OSError(0, _reason(e)) from None
        root = inner.rstrip("/")
        for name, info in found.items():
            name = name.rstrip("/")
            if name == root:
                if info.get("type") != "directory":
                    self.files[""] = int(info.get("size") or 0)
                continue
            if not name.startswith(root + "/"):
                continue
            rel = name[len(root) + 1:]
            parts = rel.split("/")
            for i in range(len(parts)):
                parent = "/".join(parts[:i])
                self.dirs.setdefault(parent, set()).add(parts[i])
            if info.get("type") == "directory":
                self.dirs.setdefault(rel, set())
            else:
                self.files[rel] = int(info.get("size") or 0)
        for rel, size in self.files.items():
            _known_sizes[f"{self.url}/{rel}" if rel else self.url] = size
        if not self.files and not self.dirs:
            # nothing under it: the root may still be a single object (or nothing at all)
            try:
                RemoteStats.requests += 1
                info = _with_retries(fs, "info", inner)
            except FileNotFoundError:
                return
            except Exception as e:
                raise OSError(0, _reason(e)) from None
            if info.get("type") == "directory":
                self.dirs[""] = set()
            else:
                self.files[""] = int(info.get("size") or 0)

    def rel(self, url: str) -> str | None:
        u = url.rstrip("/")
        if u == self.url:
            return ""
        if u.startswith(self.url + "/"):
            return u[len(self.url) + 1:]
        return None


def _scandir_noatime(path: str) -> list[tuple[str, bool]]:
    """A directory's entries, read through a descriptor opened with ``O_NOATIME`` where
    the kernel allows it (as input files are: kdump/source.py), so walking evidence does
    not change even its directories' access times."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    noatime = getattr(os, "O_NOATIME", 0)
    fd = -1
    if noatime and os.scandir in os.supports_fd:
        try:
            fd = os.open(path, flags | noatime)
        except PermissionError:
            fd = -1  # O_NOATIME needs ownership: a plain open below
        except OSError:
            fd = -1
    if fd < 0:
        with os.scandir(path) as it:
            return [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    try:
        with os.scandir(fd) as it:
            # is_dir() asked while the descriptor is open (it may need an fstatat)
            return [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    finally:
        os.close(fd)


def listdir(path: str) -> list[str]:
    """A local directory's names, sorted, read with ``O_NOATIME`` where allowed."""
    return sorted(name for name, _ in _scandir_noatime(path))


def walk_local(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk`` for inputs: top-down, symlinked directories not followed, each
    directory read with ``O_NOATIME`` where allowed; unreadable directories skipped."""
    try:
        entries = _scandir_noatime(top)
    except OSError:
        return
    dirs = sorted(n for n, d in entries if d)
    files = sorted(n for n, d in entries if not d)
    yield top, dirs, files
    for d in dirs:
        yield from walk_local(os.path.join(top, d))


#: URLs whose listing failed in this process, and why: asked again, the answer is the
#: same (a silent endpoint costs one timeout, not one per question); see clear_cache()
_failed_listings: dict[str, str] = {}


class Listing:
    """The filesystem questions the log-dir walker asks (``stat``, ``listdir``,
    ``isdir``), answered by the OS for local paths and, for URLs, from one recursive
    listing per URL walked (made on first use, kept for the life of this object)."""

    def __init__(self) -> None:
        self._trees: list[_Tree] = []
        self._failed = _failed_listings

    def _tree(self, url: str) -> tuple[_Tree, str]:
        for t in self._trees:
            r = t.rel(url)
            if r is not None:
                return t, r
        key = url.rstrip("/")
        for failed, why in self._failed.items():
            if key == failed or key.startswith(failed + "/"):
                raise OSError(0, why)
        try:
            t = _Tree(url)
        except InputError as e:
            self._failed[key] = e.message
            raise OSError(0, e.message) from None
        except OSError as e:
            self._failed[key] = e.strerror or str(e)
            raise
        self._trees.append(t)
        return t, ""

    def stat(self, path: str) -> os.stat_result:
        if not is_url(path):
            return os.stat(path)
        t, r = self._tree(path)
        if r in t.files:
            return _stat_result(False, t.files[r], path.rstrip("/"))
        if r in t.dirs:
            return _stat_result(True, 0, path.rstrip("/"))
        raise FileNotFoundError(2, "no such file or directory", path)

    def listdir(self, path: str) -> list[str]:
        """The names in a directory, sorted."""
        if not is_url(path):
            return sorted(name for name, _ in _scandir_noatime(path))
        t, r = self._tree(path)
        if r not in t.dirs:
            if r in t.files:
                raise NotADirectoryError(20, "not a directory", path)
            raise FileNotFoundError(2, "no such file or directory", path)
        return sorted(t.dirs[r])

    def isdir(self, path: str) -> bool:
        if not is_url(path):
            return os.path.isdir(path)
        try:
            t, r = self._tree(path)
        except OSError:
            return False
        return r in t.dirs

    def entries(self, path: str) -> list[tuple[str, bool]]:
        """``(name, is a directory)`` of a directory's entries (symlinks not followed)."""
        if not is_url(path):
            return _scandir_noatime(path)
        t, r = self._tree(path)
        if r not in t.dirs:
            raise FileNotFoundError(2, "no such file or directory", path)
        base = f"{r}/" if r else ""
        return [(n, base + n in t.dirs) for n in sorted(t.dirs[r])]


__all__ = ["NO_BLOCK_COUNTS", "REMOTE_TIMEOUT", "Listing", "RemoteStats", "abspath",
           "disk_bytes_of", "display_url", "exists", "filesystem", "getsize", "getsizes",
           "is_url", "isdir", "mtime_ms", "remote_timeout", "scrub", "set_remote_timeout"]
