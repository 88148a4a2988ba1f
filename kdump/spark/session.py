"""Starting Spark for kdump: everything PySpark needs, handled for the user.

* pyspark (and pyarrow) are imported here, lazily: ``kdump --help`` never loads them,
  and a missing install is one line (``pip install 'kdump[spark]'``), exit 2.
* Java is looked for the way ``spark-class`` looks for it (``$JAVA_HOME/bin/java``, else
  ``java`` on PATH) before anything starts; none is one clear line, exit 2.
* ``PYSPARK_PYTHON``/``PYSPARK_DRIVER_PYTHON`` are the running interpreter (the one kdump
  is installed in), so Python workers can import kdump.  On a cluster a
  ``PYSPARK_PYTHON`` the user set is kept: the nodes' interpreter path may differ.
* Quiet: the JVM's stderr (log4j, the JDK's own warnings) goes to a log file instead of
  the terminal, the log level is WARN, no progress bars; the UI is off for local runs.
* On a non-local master the kdump package is zipped and shipped with ``addPyFile``, so
  executors run the same kdump as the driver (its dependencies must be installed on
  the nodes; docs/spark.md says how).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from ..errors import KdumpError

DEFAULT_MASTER = "local[*]"

INSTALL_HINT = "pip install 'kdump[spark]'"

#: log4j2 configuration for the driver JVM: WARN, on stderr (which goes to the log file)
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.hadoop.name = org.apache.hadoop.util.NativeCodeLoader
logger.hadoop.level = error
"""


class SparkUnavailable(KdumpError):
    """Spark cannot run here (no pyspark, no Java, the JVM did not start)."""


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def find_java() -> str | None:
    """The java ``spark-class`` would run: ``$JAVA_HOME/bin/java``, else ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        return java if os.path.isfile(java) and os.access(java, os.X_OK) else None
    return shutil.which("java")


def check_available() -> None:
    """Raise :class:`SparkUnavailable` with one clear line when Spark cannot start."""
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as e:
        missing = (e.name or "pyspark").split(".")[0]
        raise SparkUnavailable(
            f"{missing} is not installed: the spark commands need it ({INSTALL_HINT})"
        ) from None
    if find_java() is None:
        where = ("JAVA_HOME is set but $JAVA_HOME/bin/java is not there"
                 if os.environ.get("JAVA_HOME") else "no java on PATH and JAVA_HOME is not set")
        raise SparkUnavailable(
            f"Spark needs a Java runtime (17 or later) and none was found: {where}"
        )


#: how long the master's host may take to accept a TCP connection before kdump gives up
#: (Spark's own client retries for about a minute before saying the masters are
#: unresponsive, without the cause)
MASTER_CONNECT_TIMEOUT = 5.0


def check_master(master: str | None, timeout: float = MASTER_CONNECT_TIMEOUT) -> None:
    """For a standalone master (``spark://host:port[,host:port]``): each host resolves
    and one accepts a connection, within ``timeout`` seconds; else one line with the
    cause (an unknown host, a refused connection), before any JVM starts."""
    if not master or not master.startswith("spark://"):
        return
    import socket

    errors = []
    for hp in master[len("spark://"):].split(","):
        host, _, port_s = hp.strip().rpartition(":")
        host = host.strip("[]")
        if not host or not port_s.isdigit():
            raise SparkUnavailable(f"--master {master}: {hp!r} is not host:port")
        try:
            infos = socket.getaddrinfo(host, int(port_s), type=socket.SOCK_STREAM)
        except socket.gaierror as e:
            errors.append(f"UnknownHostException: {host} ({e.strerror})")
            continue
        except OSError as e:
            errors.append(f"{host}: {e.strerror or e}")
            continue
        for family, kind, proto, _, addr in infos[:3]:
            try:
                with socket.socket(family, kind, proto) as sock:
                    sock.settimeout(timeout)
                    sock.connect(addr)
                return
            except TimeoutError:
                errors.append(f"{host}:{port_s}: no answer within {timeout:g} s")
            except OSError as e:
                errors.append(f"{host}:{port_s}: {e.strerror or e}")
    raise SparkUnavailable(f"cannot reach the Spark master {master}: {'; '.join(errors)}")


def _root_cause(log_path: str) -> str | None:
    """The last ``Caused by:`` (else exception) line of the driver's log: what Spark
    itself says went wrong."""
    import re

    try:
        with open(log_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - (256 << 10)))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    cause = None
    for line in text.splitlines():
        ln = line.strip()
        if ln.startswith("Caused by: "):
            cause = ln[len("Caused by: "):]
        elif cause is None and re.match(r"^[\w.$]+(Exception|Error)(: |$)", ln):
            cause = ln
    return cause[:300] if cause else None


def _java_version(java: str) -> str:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = (out.stderr or out.stdout).splitlines()
    return lines[0].strip() if lines else "unknown"


def _set_python(master: str) -> None:
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    if is_local(master) or not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable


@contextmanager
def _stderr_to(path: str) -> Iterator[None]:
    """Point file descriptor 2 at ``path`` while the JVM is launched: the JVM (and every
    process it starts) keeps writing its stderr there; ours is restored afterwards."""
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    saved = os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


class KdumpSpark:
    """A Spark session started (or borrowed) for one kdump command."""

    def __init__(self, spark: Any, owned: bool, log_path: str | None, workdir: str | None) -> None:
        self.spark = spark
        self.owned = owned
        self.log_path = log_path
        self.workdir = workdir

    @property
    def sc(self) -> Any:
        return self.spark.sparkContext

    def stop(self, *, keep_log: bool = False) -> None:
        if self.owned:
            with suppress(Exception):
                self.spark.stop()
        if self.workdir:
            if keep_log and self.log_path:
                # keep only the log
                for name in os.listdir(self.workdir):
                    p = os.path.join(self.workdir, name)
                    if p != self.log_path:
                        with suppress(OSError):
                            os.remove(p)
            else:
                shutil.rmtree(self.workdir, ignore_errors=True)


#: what Spark logs (TaskSchedulerImpl, every spark.starvation.timeout: 15 s) while no
#: executor has taken any task of a job: no worker registered, or none with the cores and
#: memory the application asks for
STARVING = "Initial job has not accepted any resources"


@contextmanager
def relay_starvation(ks: KdumpSpark, say: Callable[[str], None],
                     interval: float = 1.0) -> Iterator[None]:
    """While the body runs, watch the session's log (kdump keeps Spark's log off the
    terminal) and, the first time Spark says no executor has accepted the job, tell the
    user once through ``say``: the job would otherwise wait in silence, for ever on a
    cluster without a fitting worker."""
    if not (ks.owned and ks.log_path):
        yield
        return
    import threading

    log_path = ks.log_path
    done = threading.Event()

    def watch() -> None:
        offset = 0
        while not done.wait(interval):
            try:
                with open(log_path, "rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
            except OSError:
                continue
            # a line cut by the read's end is read again next time
            cut = chunk.rfind(b"\n") + 1
            offset += cut
            for line in chunk[:cut].decode("utf-8", "replace").splitlines():
                if STARVING in line:
                    say(f"no executor has taken the job yet: Spark says \"{line.split(': ', 1)[-1]}\" "
                        f"(still waiting; Ctrl-C to stop; Spark's log: {log_path})")
                    return

    thread = threading.Thread(target=watch, name="kdump-spark-starvation", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


def start(master: str | None = None, *, app_name: str = "kdump", conf: dict[str, str] | None = None,
          verbose: bool = False, ship: bool = True) -> KdumpSpark:
    """A Spark session for kdump.  An already active session (a notebook, a test, a
    ``spark-submit`` driver) is used as it is and left running; otherwise one is
    started on ``master`` (``local[*]`` by default) and :meth:`KdumpSpark.stop` ends it.
    ``ship=False``: executors use the kdump installed on the nodes (with its native
    speed-ups, which a zip cannot carry) instead of a zip of this one."""
    check_available()
    check_master(master)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        prepare(active, ship=ship)
        return KdumpSpark(active, False, None, None)
    if master is None:
        # under spark-submit the JVM is already configured (spark.master among it)
        master = None if os.environ.get("PYSPARK_GATEWAY_PORT") else DEFAULT_MASTER
    local = master is not None and is_local(master)
    _set_python(master or "")
    workdir = tempfile.mkdtemp(prefix="kdump-spark-")
    log4j = os.path.join(workdir, "log4j2.properties")
    with open(log4j, "w") as f:
        f.write(_LOG4J2)
    log_path = os.path.join(workdir, "spark.log")
    # the Python workers Spark starts on this machine (those that plan data source reads,
    # and a local master's executors) inherit the JVM's environment: put kdump on their
    # path, this interpreter's copy for a local master, else the zip the executors get
    # (the workers' interpreter may be the nodes' one, PYSPARK_PYTHON)
    zip_path = None if local or not ship else package_zip(workdir)
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j}"
    if local:
        # C1 only: the JVM starts in about half the time, and kdump's work is in Python
        java_opts += " -XX:TieredStopAtLevel=1"
    settings = {
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
    }
    if local:
        settings["spark.ui.enabled"] = "false"
    settings.update(conf or {})
    settings["spark.driver.extraJavaOptions"] = " ".join(
        x for x in (java_opts, (conf or {}).get("spark.driver.extraJavaOptions", "")) if x)
    for k, v in settings.items():
        builder = builder.config(k, v)
    try:
        with _python_path(zip_path or os.path.dirname(_package_dir()), enabled=local or ship):
            if verbose:
                spark = builder.getOrCreate()
            else:
                with _stderr_to(log_path):
                    spark = builder.getOrCreate()
    except Exception as e:
        java = find_java() or "java"
        msg = str(e).strip().splitlines()[0] if str(e).strip() else e.__class__.__name__
        cause = None if verbose else _root_cause(log_path)
        if cause and cause not in msg:
            msg += f" (cause: {cause})"
        where = f"; Spark's log: {log_path}" if not verbose else ""
        if verbose:
            shutil.rmtree(workdir, ignore_errors=True)
        raise SparkUnavailable(
            f"Spark did not start on master {master or '(from spark-submit)'}: {msg} "
            f"(java: {_java_version(java)}; Spark 4 needs Java 17 or later{where})"
        ) from None
    session = KdumpSpark(spark, True, log_path, workdir)
    try:
        spark.sparkContext.setLogLevel("WARN")
        prepare(spark, zip_path=zip_path, ship=ship)
    except Exception:
        session.stop(keep_log=True)
        raise
    return session


@contextmanager
def _python_path(entry: str, *, enabled: bool = True) -> Iterator[None]:
    """``entry`` first on PYTHONPATH while the JVM is launched (it keeps that environment)."""
    if not enabled:
        yield
        return
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = entry + (os.pathsep + old if old else "")
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def prepare(spark: Any, *, zip_path: str | None = None, ship: bool = True) -> None:
    """Make ``spark`` ready for kdump: on a non-local master, kdump shipped to the
    executors (once per session; not with ``ship=False``); then the ``kafka_log`` data
    source registered (after shipping, so its tasks get the zip too)."""
    sc = spark.sparkContext
    if ship and not is_local(sc.master or "") \
            and "kdump.zip" not in getattr(sc, "_python_includes", []):
        sc.addPyFile(zip_path or package_zip(tempfile.mkdtemp(prefix="kdump-spark-zip-")))
    spark.dataSource.register(_data_source())


def _data_source() -> Any:
    from .datasource import KafkaLogDataSource

    return KafkaLogDataSource


def _package_dir() -> str:
    """The kdump package's folder (this module's package's parent)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def package_zip(dest_dir: str) -> str:
    """Zip the installed kdump package (sources only) for ``addPyFile``."""
    pkg = _package_dir()
    root = os.path.dirname(pkg)
    path = os.path.join(dest_dir, "kdump.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for dirpath, dirnames, filenames in os.walk(pkg):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo", ".so", ".pyd")):  # built for this machine only
                    continue
                full = os.path.join(dirpath, name)
                z.write(full, os.path.relpath(full, root))
    return path
