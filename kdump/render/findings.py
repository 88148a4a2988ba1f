"""Renderers for verification results (verify-crc, verify-index): one line per finding
in text, findings grouped per file in tables; JSON Lines is :class:`JsonRenderer`."""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import Problem
from ..textsafe import InertLines
from .common import problem_line


def summary_line(s: Any) -> str:
    d = s.to_json()
    parts = [f"{d['files']} {'file' if d['files'] == 1 else 'files'}",
             f"{d['batches']} {'batch' if d['batches'] == 1 else 'batches'}"]
    if d.get("invalid_batches"):
        parts.append(f"{d['invalid_batches']} invalid")
    if d.get("unreadable_bytes"):
        parts.append(f"{d['unreadable_bytes']} unreadable bytes")
    verdict = "clean" if d["clean"] else (f"{d['errors']} {'error' if d['errors'] == 1 else 'errors'}, "
                                          f"{d['warnings']} "
                                          f"{'warning' if d['warnings'] == 1 else 'warnings'}")
    # a half-written batch at the end of a live segment is not damage, but it is not
    # plain "clean" either: the data there is still coming
    in_flight = d.get("in_flight") or 0
    if in_flight:
        verdict += f", {in_flight} {'batch' if in_flight == 1 else 'batches'} in flight"
    notes = (d.get("infos") or 0) - in_flight
    if notes > 0:
        verdict += f", {notes} {'note' if notes == 1 else 'notes'}"
    return f"{d['command']}: {', '.join(parts)}: {verdict}"


class FindingsTextRenderer:
    """Findings on stdout, one per line; the summary line on stderr."""

    def __init__(self, out: TextIO, err: TextIO, *, quiet_info: bool = False) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.quiet_info = quiet_info

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            if self.quiet_info and item.severity == "info":
                return
            self.out.write(problem_line(item) + "\n")
        elif hasattr(item, "to_json") and getattr(item, "command", None):
            self.err.write(summary_line(item) + "\n")

    def close(self) -> None:
        self.out.flush()
        self.err.flush()


class FindingsTableRenderer:
    """A table of findings per file, then the summary."""

    def __init__(self, out: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        self.console = make_console(out, width)
        self.by_file: dict[str, list[Problem]] = {}
        self.summary: Any = None

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self.by_file.setdefault(item.path, []).append(item)
        elif hasattr(item, "to_json") and getattr(item, "command", None):
            self.summary = item

    def close(self) -> None:
        from rich.table import Table
        from rich.text import Text

        for path, problems in self.by_file.items():
            t = Table(title=path, title_justify="left", expand=False)
            t.add_column("position", justify="right")
            t.add_column("kind")
            t.add_column("base offset", justify="right")
            t.add_column("detail", overflow="fold")
            for p in problems:
                style = {"error": "red", "warning": "yellow"}.get(p.severity, "dim")
                t.add_row("" if p.position is None else str(p.position), p.kind,
                          "" if p.base_offset is None else str(p.base_offset), p.detail,
                          style=style)
            self.console.print(t)
        if self.summary is not None:
            d = self.summary.to_json()
            t = Table(title=f"{d['command']} summary", title_justify="left", show_header=False)
            t.add_column("what")
            t.add_column("value", justify="right")
            for k in ("files", "bytes", "batches", "valid_batches", "invalid_batches", "records",
                      "unreadable_bytes", "errors", "warnings", "infos"):
                if k in d:
                    t.add_row(k.replace("_", " "), f"{d[k]:,}")
            t.add_row("verdict", Text("clean", style="green") if d["clean"]
                      else Text("problems found", style="red"))
            self.console.print(t)
