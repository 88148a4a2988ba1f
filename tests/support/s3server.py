"""A real S3 API server on 127.0.0.1 for the remote-data tests: moto's standalone server
(``moto[server]``) in a subprocess, with authentication on (so wrong credentials are
refused as by S3), and a fault-injecting HTTP proxy in front of it (HTTP 500s and
request counting for chosen objects)."""

from __future__ import annotations

import http.client
import json
import os
import select
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REGION = "us-east-1"
BUCKET = "kdump-test"


#: moto's server on a port the kernel gives it, that port printed once it listens: no
#: port chosen here and bound later, which another process (another xdist worker's
#: test server, a readiness poll) could take in between
_SERVE = (
    "import sys, time\n"
    "from moto.server import ThreadedMotoServer\n"
    "server = ThreadedMotoServer(ip_address='127.0.0.1', port=0, verbose=False)\n"
    "server.start()\n"
    "print(server.get_host_and_port()[1], flush=True)\n"
    "while True:\n"
    "    time.sleep(3600)\n")


@dataclass
class S3Server:
    endpoint: str
    key_id: str
    secret: str
    proc: subprocess.Popen[bytes]

    def env(self, endpoint: str | None = None) -> dict[str, str]:
        """The environment kdump (s3fs/botocore) reads: exactly what the README says."""
        return {
            "AWS_ENDPOINT_URL": endpoint or self.endpoint,
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "AWS_DEFAULT_REGION": REGION,
            # botocore's own retries: two attempts per request, so fault tests stay quick
            "AWS_MAX_ATTEMPTS": "2",
            "AWS_RETRY_MODE": "standard",
        }

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)

    def upload(self, local: Path, prefix: str) -> str:
        """Every file under ``local`` to ``s3://BUCKET/prefix/...``; the URL of the copy."""
        c = self.client()
        for p in sorted(local.rglob("*")):
            if p.is_file():
                c.put_object(Bucket=BUCKET, Key=f"{prefix}/{p.relative_to(local).as_posix()}",
                             Body=p.read_bytes())
        return f"s3://{BUCKET}/{prefix}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_server(workdir: Path) -> S3Server:
    """Start moto's server; raise RuntimeError saying why when it cannot start."""
    import boto3

    env = dict(os.environ)
    # the first three requests (IAM: user, policy, key) are let through unauthenticated;
    # every request after them must be signed with the key they create
    env["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
    log = open(workdir / "moto.log", "wb")
    proc = subprocess.Popen([sys.executable, "-c", _SERVE], stdout=subprocess.PIPE, stderr=log,
                            env=env)
    assert proc.stdout is not None
    ready = select.select([proc.stdout], [], [], 60)[0]
    line = proc.stdout.readline() if ready else b""
    if not line.strip().isdigit():
        proc.kill()
        proc.wait()
        raise RuntimeError("moto server did not start within 60 s: "
                           + (workdir / "moto.log").read_text(errors="replace")[-500:])
    endpoint = f"http://127.0.0.1:{int(line)}"
    iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                       aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
    iam.create_user(UserName="kdump")
    iam.put_user_policy(UserName="kdump", PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="kdump")["AccessKey"]
    server = S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"], proc)
    server.client().create_bucket(Bucket=BUCKET)
    return server


def start_or_skip(workdir: Path) -> S3Server:
    """moto's server, or :func:`tests.support.tools.missing` saying why."""
    from tests.support.tools import missing

    try:
        import boto3  # noqa: F401
        import s3fs  # noqa: F401
    except ImportError as e:
        why = f"the test extra's S3 packages are not installed ({e})"
    else:
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            return start_server(workdir)
        except Exception as e:  # the reason is the skip message
            why = f"moto S3 server could not start: {e}"
    missing(why)


@dataclass
class FaultProxy:
    """Forwards every request to the server, except that GETs of keys containing
    ``fail_key`` get an HTTP 500 while ``failures`` is not 0 (-1: always).  Counts the
    requests for ``fail_key`` (``hits``) and the bytes of every GET answer."""

    upstream: str
    fail_key: str | None = None
    failures: int = 0
    hits: int = 0
    get_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FaultProxy:
        proxy = self
        host, port = self.upstream.removeprefix("http://").split(":")

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                fail = False
                with proxy.lock:
                    if proxy.fail_key and proxy.fail_key in self.path:
                        proxy.hits += 1
                        if self.command == "GET" and proxy.failures != 0:
                            fail = True
                            if proxy.failures > 0:
                                proxy.failures -= 1
                if fail:
                    msg = (b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>InternalError"
                           b"</Code><Message>injected by the test</Message></Error>")
                    self.send_response(500)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(msg)))
                    self.end_headers()
                    self.wfile.write(msg)
                    return
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                headers = {k: v for k, v in self.headers.items()}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                conn.close()
                if self.command == "GET":
                    with proxy.lock:
                        proxy.get_bytes += len(data)
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
