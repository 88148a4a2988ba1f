"""A real Spark standalone cluster on 127.0.0.1, for tests/spark/test_spark_standalone.py and
bench/spark_standalone_bench.py: one master and one worker, each a JVM started with the
pip pyspark package's own launcher, ``bin/spark-class``.

The package ships ``bin/spark-class`` and ``sbin/spark-daemon.sh`` but not
``start-master.sh``/``start-worker.sh``; those only run ``spark-daemon.sh start CLASS``,
which runs ``nohup spark-class CLASS ARGS`` in the background and keeps a pid file.
Here ``spark-class`` is run directly, in the foreground of a subprocess, so this process
holds it:

* each daemon runs in a process group of its own (``start_new_session``); the worker's
  executors (JVMs) are its children, in its group, so stopping a group stops all of
  them (SIGTERM, then SIGKILL after a grace period); every process carries a mark in
  its environment (:data:`MARK`), so those that leave the group (``pyspark.daemon``
  makes its own) are found and stopped too;
* each daemon gets ``PR_SET_PDEATHSIG`` (Linux): if this process dies without cleaning
  up (SIGKILL, a CI timeout), the kernel sends the daemon SIGTERM;
* free ports are picked at run time, everything binds to 127.0.0.1 (``SPARK_LOCAL_IP``),
  the master's REST submission server is off (its fixed port 6066 would clash);
* logs, the worker's work directory (one folder per application, with each executor's
  stdout and stderr and the files it was sent), executors' scratch space and a private
  ``SPARK_CONF_DIR`` live under one directory the caller gives.

Use as a context manager (stops on any exit, Ctrl-C included)::

    with start_cluster(tmp_path / "spark") as cluster:
        subprocess.run([..., "--master", cluster.master_url], env=cluster.driver_env())
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

#: how long a daemon may take to come up (JVM start, bind, register) on a loaded machine
START_TIMEOUT = 300.0
#: how long a stopped process group may take to exit after SIGTERM before SIGKILL
STOP_GRACE = 20.0


class ClusterUnavailable(RuntimeError):
    """Java is missing or the JVM cannot start here: a reason to skip, not a failure."""


class ClusterFailed(RuntimeError):
    """A daemon exited or did not come up in time (its log's tail is in the message)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spark_home() -> Path:
    """The pip pyspark package's directory: it holds bin/, sbin/ and jars/."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def java_problem() -> str | None:
    """Why no JVM can run here (None: one can): no java, or ``java -version`` fails."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        return (f"no Java runtime: JAVA_HOME={home} has no bin/java" if home
                else "no Java runtime: no java on PATH and JAVA_HOME is not set")
    try:
        p = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"the JVM cannot start: {java} -version: {e}"
    if p.returncode != 0:
        return f"the JVM cannot start: {java} -version exited {p.returncode}: {p.stderr.strip()[-300:]}"
    return None


def _death_signal() -> Any:
    """A function for the child, between fork and exec, that asks the kernel for SIGTERM
    when the process that started it dies (Linux ``PR_SET_PDEATHSIG``); None elsewhere.
    Made before the fork: the child only calls it (no import, no allocation there)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    PR_SET_PDEATHSIG = 1
    sigterm = int(signal.SIGTERM)
    return lambda: prctl(PR_SET_PDEATHSIG, sigterm, 0, 0, 0)


def _group_alive(proc: subprocess.Popen[Any]) -> bool:
    proc.poll()  # reap the leader once it exits (a zombie still counts as a member)
    try:
        os.killpg(proc.pid, 0)  # start_new_session: the leader's pid is the group's id
    except ProcessLookupError:
        return False
    return True


#: the environment variable that marks every process started for a cluster or a group:
#: JVMs pass their environment on, so executors and Python workers carry it too, even
#: those that leave the process group (pyspark.daemon makes a group of its own)
MARK = "KDUMP_SPARK_TEST_MARK"


def marked(value: str) -> list[int]:
    """The live processes whose environment holds ``MARK=value`` (Linux /proc)."""
    needle = f"{MARK}={value}".encode() + b"\0"
    found = []
    for d in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read() + b"\0"
            with open(f"/proc/{d}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z" and (b"\0" + needle in b"\0" + env):
            found.append(int(d))
    return found


def _wait_unmarked(value: str, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := marked(value)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def stop_marked(value: str, grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL, every live process marked ``value``."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        left = marked(value)
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        _wait_unmarked(value, wait)


def wait_group(proc: subprocess.Popen[Any], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for every process of ``proc``'s group to exit;
    True when the group is empty."""
    deadline = time.monotonic() + timeout
    while _group_alive(proc):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def stop_group(proc: subprocess.Popen[Any], grace: float = STOP_GRACE,
               mark: str | None = None) -> None:
    """Stop ``proc`` and every process of its process group: SIGTERM, then SIGKILL after
    ``grace`` seconds; then the processes marked ``mark`` that left the group (bounded)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        if wait_group(proc, wait):
            break
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
    if mark is not None and _wait_unmarked(mark, grace):
        # (a Python worker whose JVM is gone exits by itself once its stdin closes)
        stop_marked(mark)


@dataclass
class Run:
    """A finished command: exit code, output, and whether processes it started (the JVM
    a kdump driver starts, that JVM's Python workers) were still there ``linger``
    seconds after it exited."""

    rc: int
    out: str
    err: str
    left_behind: bool


class Group:
    """A command started in a process group of its own (a kdump driver and the JVM it
    starts): :meth:`result` waits for it, :meth:`stop` ends the whole group."""

    def __init__(self, cmd: list[str], *, env: dict[str, str],
                 cwd: Path | str | None = None) -> None:
        import uuid

        self.cmd = cmd
        self.mark = f"group-{uuid.uuid4().hex}"
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, stdin=subprocess.DEVNULL,
                                     env={**env, MARK: self.mark}, cwd=cwd,
                                     start_new_session=True)

    def result(self, timeout: float = 600.0, linger: float = 120.0) -> Run:
        """Wait up to ``timeout`` seconds (else stop it and fail); then up to ``linger``
        seconds for the rest of its group (its JVM) to exit."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            out, err = self.proc.communicate()
            raise AssertionError(f"{' '.join(self.cmd)} did not finish within {timeout:g} s; "
                                 f"stderr: {err[-2000:]}") from None
        except BaseException:
            self.stop()
            raise
        deadline = time.monotonic() + linger
        left_behind = not wait_group(self.proc, linger) or bool(
            _wait_unmarked(self.mark, max(0.0, deadline - time.monotonic())))
        if left_behind:
            self.stop()
        return Run(self.proc.returncode, out, err, left_behind)

    def stop(self) -> None:
        if _group_alive(self.proc) or marked(self.mark):
            stop_group(self.proc, grace=5.0, mark=self.mark)


def run_group(cmd: list[str], *, env: dict[str, str], cwd: Path | str | None = None,
              timeout: float = 600.0, linger: float = 120.0) -> Run:
    """Run ``cmd`` in a process group of its own; on a timeout, Ctrl-C or any other
    exception the whole group is stopped."""
    return Group(cmd, env=env, cwd=cwd).result(timeout, linger)


def python_without_kdump(root: Path) -> str:
    """A Python standing for a node where kdump is not installed: this interpreter (with
    kdump's dependencies), with an import hook that refuses kdump unless it comes from a
    zip on sys.path (what ``addPyFile`` of the shipped kdump.zip puts there).  Without
    it, an executor on this machine would find the installed kdump's native module even
    for a shipped zip's kdump (an editable install's finder answers for ``kdump._speedups``
    whatever the package's path)."""
    hook = root / "hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        '"""This Python has no kdump installed: kdump is found only in a zip."""\n'
        "import sys\n"
        "from importlib.machinery import PathFinder\n\n\n"
        "class _OnlyShippedKdump:\n"
        "    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if name != 'kdump' and not name.startswith('kdump.'):\n"
        "            return None\n"
        "        where = [p for p in (path if path is not None else sys.path)\n"
        "                 if '.zip' in str(p)]\n"
        "        spec = PathFinder.find_spec(name, where) if where else None\n"
        "        if spec is None:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "        return spec\n\n\n"
        "sys.meta_path.insert(0, _OnlyShippedKdump)\n")
    script = root / "python-without-kdump"
    script.write_text("#!/bin/sh\n"
                      f'PYTHONPATH="{hook}${{PYTHONPATH:+:$PYTHONPATH}}" '
                      f'exec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script)


@dataclass
class Cluster:
    root: Path
    master_url: str = ""
    ui_url: str = ""
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def mark(self) -> str:
        """The value of :data:`MARK` in the environment of every process of the cluster."""
        return f"cluster-{self.root}"

    # --- what a driver needs ------------------------------------------------------------
    def driver_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for a driver (``kdump spark ... --master URL``) on this
        machine: bound to 127.0.0.1, its temporary files in the cluster's folder."""
        env = dict(os.environ if base is None else base)
        for k in ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "SPARK_CONF_DIR",
                  "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYSPARK_SUBMIT_ARGS"):
            env.pop(k, None)
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
        tmp = self.root / "driver-tmp"
        tmp.mkdir(exist_ok=True)
        env["TMPDIR"] = str(tmp)
        return env

    # --- what the master says -----------------------------------------------------------
    def state(self, timeout: float = 10.0) -> dict[str, Any]:
        """The master's JSON status (its web UI's /json/ on loopback)."""
        with urllib.request.urlopen(self.ui_url + "/json/", timeout=timeout) as r:
            state: dict[str, Any] = json.loads(r.read().decode())
        return state

    def apps(self, name: str) -> list[dict[str, Any]]:
        """The applications (running or completed) named ``name``, oldest first."""
        s = self.state()
        found = [a for a in s.get("activeapps", []) + s.get("completedapps", [])
                 if a.get("name") == name]
        return sorted(found, key=lambda a: a.get("starttime", 0))

    def app_dir(self, app_id: str) -> Path:
        """The worker's folder of an application (one subfolder per executor)."""
        return self.root / "work" / app_id

    def log(self, name: str) -> str:
        p = self.root / "logs" / f"{name}.log"
        return p.read_text(errors="replace") if p.exists() else ""

    # --- life ---------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the worker (and its executors), then the master; idempotent."""
        for name in ("worker", "master"):
            proc = self.procs.pop(name, None)
            if proc is not None:
                stop_group(proc, mark=self.mark)
        stop_marked(self.mark)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _spawn(self, name: str, cls: str, args: list[str], env: dict[str, str]) -> None:
        log = open(self.root / "logs" / f"{name}.log", "ab")  # the child keeps its own copy
        try:
            self.procs[name] = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), cls, *args], stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.root,
                start_new_session=True, preexec_fn=_death_signal())
        finally:
            log.close()

    def _wait(self, what: str, name: str, ready: Any, deadline: float) -> Any:
        while True:
            proc = self.procs[name]
            if proc.poll() is not None:
                raise ClusterFailed(f"the Spark {name} exited ({proc.returncode}) before {what}; "
                                    f"its log ends: {self.log(name)[-3000:]}")
            value = ready()
            if value:
                return value
            if time.monotonic() > deadline:
                raise ClusterFailed(f"the Spark {name}: no {what} within {START_TIMEOUT:g} s; "
                                    f"its log ends: {self.log(name)[-3000:]}")
            time.sleep(0.25)


def _properties(path: Path) -> None:
    path.write_text(
        "# the master's REST submission server listens on a fixed port (6066) by default\n"
        "spark.master.rest.enabled false\n"
        "spark.ui.showConsoleProgress false\n"
        # a finished application's folder stays for the tests to look at
        "spark.worker.cleanup.enabled false\n"
    )


def start_cluster(root: Path, *, cores: int = 2, memory: str = "4g",
                  timeout: float = START_TIMEOUT) -> Cluster:
    """Start a master and one worker with ``cores`` cores under ``root`` (created), wait
    until the worker has registered, and return the running cluster.  Raises
    :class:`ClusterUnavailable` when no JVM can run here, :class:`ClusterFailed` (the
    processes stopped) when a daemon fails or is not up within ``timeout`` seconds."""
    problem = java_problem()
    if problem:
        raise ClusterUnavailable(problem)
    root.mkdir(parents=True, exist_ok=True)
    for d in ("logs", "work", "local", "tmp", "conf"):
        (root / d).mkdir(exist_ok=True)
    _properties(root / "conf" / "spark-defaults.conf")
    home = spark_home()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYSPARK_", "SPARK_")) and k != "PYTHONPATH"}
    env.update({
        "SPARK_HOME": str(home),
        "SPARK_CONF_DIR": str(root / "conf"),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(root / "logs"),
        "SPARK_WORKER_DIR": str(root / "work"),
        "SPARK_LOCAL_DIRS": str(root / "local"),
        "TMPDIR": str(root / "tmp"),
        # the daemons only coordinate: the C1 JIT starts them in about half the time
        "SPARK_DAEMON_JAVA_OPTS": f"-Djava.io.tmpdir={root / 'tmp'} -XX:TieredStopAtLevel=1",
    })
    cluster = Cluster(root)
    env[MARK] = cluster.mark
    deadline = time.monotonic() + timeout
    try:
        master_port, master_ui = free_port(), free_port()
        cluster._spawn("master", "org.apache.spark.deploy.master.Master",
                       ["--host", "127.0.0.1", "--port", str(master_port),
                        "--webui-port", str(master_ui)], env)

        def master_up() -> str | None:
            # the ports actually bound (Spark moves to the next port when one is taken)
            text = cluster.log("master")
            url = re.search(r"Starting Spark master at (spark://\S+)", text)
            ui = re.search(r"Successfully started service 'MasterUI' on port (\d+)", text)
            if not (url and ui):
                return None
            cluster.ui_url = f"http://127.0.0.1:{ui.group(1)}"
            try:
                state = cluster.state(timeout=5)
            except OSError:
                return None
            return str(state["url"]) if state.get("status") == "ALIVE" else None

        cluster.master_url = cluster._wait("it was up", "master", master_up, deadline)
        cluster._spawn("worker", "org.apache.spark.deploy.worker.Worker",
                       ["--host", "127.0.0.1", "--port", str(free_port()),
                        "--webui-port", str(free_port()), "--cores", str(cores),
                        "--memory", memory, "--work-dir", str(root / "work"),
                        cluster.master_url], env)

        def registered() -> bool:
            try:
                state = cluster.state(timeout=5)
            except OSError:
                return False
            return any(w.get("state") == "ALIVE" and w.get("cores") == cores
                       for w in state.get("workers", []))

        cluster._wait("it registered with the master", "worker", registered, deadline)
    except BaseException:
        cluster.stop()
        raise
    return cluster
