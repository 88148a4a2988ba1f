"""A real headless Chromium for the report tests, driven over the DevTools protocol.

Chromium runs with ``--remote-debugging-pipe``: it reads protocol commands from fd 3
and writes replies and events to fd 4, NUL-terminated JSON, so no websocket library
and no port are needed.  Network access is cut three ways (host resolution mapped to
nothing, a proxy on the discard port, a fresh profile in a temporary directory) and
every request the page makes is recorded, so a test can assert that there was none.

Used as::

    with Browser() as b:
        page = b.open("file:///tmp/report.html")
        page.console_errors, page.requests, page.dom, page.screenshot(...), page.pdf()
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.tools import require_tool

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    for name in CANDIDATES:
        p = shutil.which(name)
        if p:
            return p
    return None


def require_chromium() -> str:
    """Chromium's path, or a skip (a failure under CI): see :func:`require_tool`."""
    return require_tool("chromium", chromium_path(),
                        ".ci/run installs Debian's chromium package")


#: the tools of poppler-utils the report tests run on a printed page
POPPLER = ("pdftotext", "pdfinfo")


def require_poppler(*names: str) -> None:
    """Each of poppler-utils' ``names`` (default: :data:`POPPLER`) on PATH, or a skip (a
    failure under CI) naming the first one missing: see :func:`require_tool`."""
    for name in names or POPPLER:
        require_tool(name, shutil.which(name), ".ci/run installs Debian's poppler-utils package")


@dataclass
class Page:
    browser: Browser
    session: str
    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dom: str = ""

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.call(method, params, session=self.session)

    def evaluate(self, expression: str) -> Any:
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return r.get("result", {}).get("value")

    def screenshot(self, path: str, *, full_page: bool = False) -> int:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                              "scale": 1}
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def pdf(self, path: str) -> int:
        data = base64.b64decode(self.call("Page.printToPDF", printBackground=True,
                                          preferCSSPageSize=True)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return len(data)


class Browser:
    def __init__(self, *, width: int = 1366, height: int = 768, javascript: bool = True) -> None:
        exe = chromium_path()
        if exe is None:
            raise RuntimeError("no chromium on PATH")
        self.width, self.height, self.javascript = width, height, javascript
        self.profile = tempfile.mkdtemp(prefix="kdump-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        keep = (os.dup(to_chrome_r), os.dup(from_chrome_w))  # above 2, clear of 3 and 4
        for fd in (to_chrome_r, from_chrome_w):
            os.close(fd)

        def pipes() -> None:
            os.dup2(keep[0], 3)
            os.dup2(keep[1], 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--proxy-server=127.0.0.1:9", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars",
                "--mute-audio", f"--window-size={width},{height}", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=pipes,
                                     pass_fds=(3, 4, *keep))
        for fd in keep:
            os.close(fd)
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ protocol
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not answer")
            import select

            ready, _, _ = select.select([self._from_chrome], [], [], 0.5)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return dict(json.loads(msg))

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None, timeout: float = 60) -> dict[str, Any]:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return dict(m.get("result", {}))
            self.events.append(m)

    def wait_for(self, method: str, session: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method and e.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    # ------------------------------------------------------------------ pages
    def open(self, url: str) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        page = Page(self, session, url)
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            page.call(m)
        page.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                  deviceScaleFactor=1, mobile=False)
        if not self.javascript:
            page.call("Emulation.setScriptExecutionDisabled", value=True)
        page.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", session)
        time.sleep(0.3)  # late console messages
        page.call("Runtime.evaluate", expression="1")  # flushes pending events
        for e in self.events:
            if e.get("sessionId") != session:
                continue
            p = e.get("params", {})
            meth = e.get("method")
            if meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                page.console_errors.append(json.dumps(p.get("args")))
            elif meth == "Runtime.exceptionThrown":
                page.console_errors.append(json.dumps(p.get("exceptionDetails")))
            elif meth == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                page.console_errors.append(p["entry"].get("text", ""))
            elif meth == "Network.requestWillBeSent":
                page.requests.append(p.get("request", {}).get("url", ""))
        self.events = [e for e in self.events if e.get("sessionId") != session]
        r = page.call("DOM.getDocument", depth=-1)
        page.dom = page.call("DOM.getOuterHTML", nodeId=r["root"]["nodeId"])["outerHTML"]
        return page

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["POPPLER", "Browser", "Page", "chromium_path", "require_chromium", "require_poppler"]
