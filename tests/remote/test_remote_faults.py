"""Remote reads fail after a bounded number of requests, each bounded in time, in one
clear line, and never print a secret
(issue #27).  Against real servers on 127.0.0.1: moto's S3 API server (authentication
on; tests/support/s3server.py), the fault-injecting proxy in front of it (HTTP 500 to every
request), and a silent socket server that accepts connections and never answers (a
hung proxy, a black-holed VPC endpoint).  Every line kdump writes is checked for the
credentials it was given.

Skipped (with the reason) only when the S3 server cannot start.
"""

from __future__ import annotations

import base64
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kdump.fs import scrub
from tests.conftest import KDUMP_BIN, subprocess_env
from tests.support import s3server
from tests.support import writer as w

SEGMENT = "orders-0/00000000000000000000.log"


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[s3server.S3Server]:
    server = s3server.start_or_skip(tmp_path_factory.mktemp("moto"))
    root = tmp_path_factory.mktemp("remote-faults") / "logdir"
    w.write_sample_logdir(root)
    server.upload(root, "faults")
    yield server
    server.stop()


class SilentServer:
    """Accepts connections on 127.0.0.1 and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.conns: list[socket.socket] = []
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self.stopped:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)  # held open, never read, never answered

    def requests_from(self, key_id: str) -> int:
        """The connections that carry a request signed with ``key_id`` (read without
        being consumed, never answered): kdump's.  Another process of the test run may
        connect to this port too (a server's readiness poll aimed at a port it was
        given, which this server took after it was freed; CI once counted two), and it
        is not kdump's."""
        n = 0
        for c in list(self.conns):
            try:
                head = c.recv(65536, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except OSError:  # nothing sent
                continue
            n += f"Credential={key_id}/".encode() in head
        return n

    def stop(self) -> None:
        self.stopped = True
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.stop()


@dataclass
class Run:
    rc: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return (self.out + self.err).splitlines()


def run(env: dict[str, str], *args: str, timeout: float = 120) -> Run:
    """kdump in a process; ``timeout``: a generous guard against a hang, no speed claim
    (what bounds the time is the number of requests, which the tests count)."""
    r = subprocess.run([str(KDUMP_BIN), *args], capture_output=True, env={**subprocess_env(), **env},
                       timeout=timeout)
    return Run(r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace"))


def no_secret(r: Run, *secrets: str) -> None:
    text = r.out + r.err
    for s in secrets:
        for form in (s, base64.b64encode(s.encode()).decode(), s[:12]):
            assert form not in text, f"secret {form[:4]}... printed:\n{text}"
    assert "Traceback" not in text and "internal error" not in text, text
    for word in ("Signature=", "Credential=", "X-Amz-", "Authorization"):
        assert word not in text, text


def creds(s3: s3server.S3Server, endpoint: str | None = None, **more: str) -> dict[str, str]:
    env = s3.env(endpoint)
    # kdump's own bounds: no AWS_MAX_ATTEMPTS from the fixture
    env.pop("AWS_MAX_ATTEMPTS")
    env.pop("AWS_RETRY_MODE")
    env.update(more)
    return env


COMMANDS = [["verify-crc"], ["dump", "--format", "json"], ["size-report"]]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_a_silent_endpoint_is_one_line_after_one_request(s3: s3server.S3Server,
                                                          silent: SilentServer, cmd: list[str]
                                                          ) -> None:
    url = "s3://kdump-test/faults"
    r = run(creds(s3, silent.endpoint), *cmd, "--remote-timeout", "3", url)
    assert r.rc == 2
    # one request waited for (its timeout), then the line
    assert silent.requests_from(s3.key_id) == 1, silent.conns
    no_secret(r, s3.secret, s3.key_id)
    said = [x for x in r.lines if "timeout" in x]
    assert said == [f"{url}: unreadable-file: no answer within the time allowed (timeout; 3 s "
                    "per request at most, --remote-timeout)"] or (
        cmd[0] == "dump" and len(said) == 1 and url in said[0] and "timeout" in said[0]), r.lines


def test_a_silent_endpoint_under_a_segment_read(s3: s3server.S3Server, silent: SilentServer
                                                ) -> None:
    """find-offset on one segment: the size, then the reads, each bounded; the
    environment variable sets the bound as the option does."""
    url = f"s3://kdump-test/faults/{SEGMENT}"
    r = run(creds(s3, silent.endpoint, KDUMP_REMOTE_TIMEOUT="2"), "find-offset", url, "3")
    assert r.rc == 2 and silent.requests_from(s3.key_id) == 1, (silent.conns, r.lines)
    no_secret(r, s3.secret, s3.key_id)
    assert len(r.lines) == 1 and url in r.lines[0] and "timeout; 2 s" in r.lines[0], r.lines


def test_a_request_given_up_is_not_tried_again_behind_kdump(s3: s3server.S3Server,
                                                             silent: SilentServer,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """In one process, so that its exit cannot hide a retry: once kdump has said the
    timeout, no layer below (botocore's attempts, s3fs's retries) opens a second
    connection for that request (CI once saw two, s3fs retrying 0.1 s after botocore's
    read timeout while the process was exiting)."""
    from kdump import fs
    from kdump.errors import InputError

    for k, v in creds(s3, silent.endpoint).items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_MAX_ATTEMPTS", raising=False)
    fs.set_remote_timeout(2)
    try:
        # no layer may retry behind a budget shorter than one read timeout
        store = fs.filesystem(f"s3://kdump-test/faults/{SEGMENT}")[0]
        assert store.retries == 1  # s3fs's
        assert store.config_kwargs["retries"]["max_attempts"] == 1  # botocore's
        with pytest.raises(InputError, match="timeout; 2 s"):
            fs.remote_info(f"s3://kdump-test/faults/{SEGMENT}")
        for _ in range(30):  # 3 s: past botocore's 2 s read timeout and s3fs's 0.1 s wait
            if silent.requests_from(s3.key_id) > 1:
                break
            time.sleep(0.1)
        assert silent.requests_from(s3.key_id) == 1, silent.conns
    finally:
        fs.set_remote_timeout(fs.REMOTE_TIMEOUT)


def test_http_500_everywhere_gives_up_in_bounded_time(s3: s3server.S3Server) -> None:
    proxy = s3server.FaultProxy(s3.endpoint, fail_key="/", failures=-1).start()
    try:
        url = "s3://kdump-test/faults"
        r = run(creds(s3, proxy.endpoint), "verify-crc", url)
    finally:
        proxy.stop()
    assert r.rc == 2, r.lines
    no_secret(r, s3.secret, s3.key_id)
    assert r.out.splitlines() == [f"{url}: unreadable-file: HTTP 500 InternalError injected by "
                                  "the test"]
    # botocore 2 attempts, s3fs 2, kdump 3: at most 12 requests, not hundreds
    assert proxy.hits <= 12, proxy.hits


def test_access_denied_names_the_url_not_the_secret(s3: s3server.S3Server) -> None:
    url = f"s3://kdump-test/faults/{SEGMENT}"
    wrong = "wrongSecretKeyValue1234567890abcdefghijk"
    r = run(creds(s3, AWS_SECRET_ACCESS_KEY=wrong), "dump", url)
    assert r.rc == 2
    no_secret(r, wrong, s3.secret, s3.key_id)
    assert r.lines == [f"{url}: unreadable-file: access denied (The request signature we "
                       "calculated does not match the signature you provided. Check your key "
                       "and signing method.)"]


def test_no_such_object(s3: s3server.S3Server) -> None:
    url = "s3://kdump-test/faults/orders-0/00000000000000000999.log"
    r = run(creds(s3), "find-offset", url, "3")
    assert r.rc == 2
    no_secret(r, s3.secret, s3.key_id)
    assert r.lines == [f"{url}: unreadable-file: no such file or directory"], r.lines


def test_the_store_configuration_overrides_kdump_attempts(s3: s3server.S3Server) -> None:
    proxy = s3server.FaultProxy(s3.endpoint, fail_key="/", failures=-1).start()
    try:
        r = run(creds(s3, proxy.endpoint, AWS_MAX_ATTEMPTS="1"), "verify-crc",
                "s3://kdump-test/faults")
    finally:
        proxy.stop()
    assert r.rc == 2
    assert proxy.hits <= 6, proxy.hits  # one botocore attempt per s3fs and kdump retry


class HangingReads:
    """Forwards listings to the S3 server and never answers a read of a ``.log`` object:
    an endpoint that dies after the listing."""

    def __init__(self, upstream: str) -> None:
        import http.client

        host, port = upstream.removeprefix("http://").split(":")
        release = self.release = threading.Event()
        hung = self.hung = []  # the .log reads left unanswered (their paths)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                if "?" not in self.path and self.path.endswith(".log"):
                    hung.append(self.path)
                    release.wait(120)  # never answered while the test runs
                    return
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                conn.request("GET", self.path, headers=dict(self.headers.items()))
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_an_endpoint_that_dies_after_the_listing_costs_one_timeout(s3: s3server.S3Server
                                                                  ) -> None:
    proxy = HangingReads(s3.endpoint)
    try:
        url = "s3://kdump-test/faults"
        r = run(creds(s3, proxy.endpoint), "verify-crc", "--jobs", "1", "--remote-timeout", "3",
                url)
    finally:
        proxy.stop()
    assert r.rc == 2
    no_secret(r, s3.secret, s3.key_id)
    failed = [x for x in r.out.splitlines() if "unreadable-file" in x]
    # every log named, each with the reason; the first waited for, the rest at once
    assert len(failed) >= 5 and all(x.startswith(f"{url}/") and "timeout; 3 s" in x
                                    for x in failed), r.lines
    # waited for once: one read left unanswered, not one per log
    assert len(proxy.hung) == 1, proxy.hung


# --- scrub: what a message may never hold ---------------------------------------------------
@pytest.mark.parametrize(("raw", "shown"), [
    ("https://u:pa55word@host.example/b/k", "https://***@host.example/b/k"),
    ("GET https://b.s3.amazonaws.com/k?X-Amz-Signature=abc123&X-Amz-Credential=AKIA/x failed",
     "GET https://b.s3.amazonaws.com/k?*** failed"),
    ("abfs://c@acct.dfs.core.windows.net/p?sv=2020&sig=Zm9vYmFy", "abfs://***@acct.dfs.core."
     "windows.net/p?***"),
    ("Authorization: AWS4-HMAC-SHA256 Credential=AKIAABCDEFGHIJKLMNOP/2024",
     "Authorization: *** Credential=***"),
    ("key AKIAABCDEFGHIJKLMNOP denied", "key *** denied"),
    ("s3://bucket/orders-0/00000000000000000000.log", "s3://bucket/orders-0/00000000000000000000.log"),
])
def test_scrub(raw: str, shown: str) -> None:
    assert scrub(raw) == shown


def test_scrub_replaces_the_environment_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-v4lue-of-the-test")
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING",
                       "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5a2V5a2V5")
    assert scrub("bad key s3cr3t-v4lue-of-the-test (a2V5a2V5a2V5)") == "bad key *** (***)"


def test_every_command_takes_remote_timeout() -> None:
    import click

    from kdump.cli import cli

    def leaves(group: click.Group) -> list[click.Command]:
        out: list[click.Command] = []
        for c in group.commands.values():
            out += leaves(c) if isinstance(c, click.Group) else [c]
        return out

    # commands are defined lazily (kdump/cli/__init__.py): looking each one up, as a
    # command line does, defines it and gives it the option
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)
    commands = leaves(cli)
    assert len(commands) >= 10
    for c in commands:
        assert [p.name for p in c.params].count("remote_timeout") == 1, c.name


@pytest.mark.parametrize("url", ["s3://AKIAEXAMPLE:s3cr3t-v4lue@bucket/logdir",
                                 "s3://bucket/logdir?X-Amz-Signature=s3cr3t-v4lue"])
def test_a_url_holding_a_secret_is_refused_without_printing_it(kdump: Any, url: str) -> None:
    """Every object kdump writes names its file: a URL with a password or a query string
    would put the secret in the output, so it is refused (exit 2), and the message does
    not hold it either."""
    for cmd in (("verify-crc",), ("dump",), ("report", "--format", "json")):
        r = kdump(*cmd, url)
        assert r.rc == 2, (cmd, r.err)
        assert "s3cr3t" not in r.out + r.err
        assert r.err.splitlines()[-1].startswith("kdump: s3://")
        assert "not in the URL" in r.err
