"""Renderers of ``kdump export`` and ``kdump spark export``: one line on stdout, problems on stderr."""

from __future__ import annotations

from typing import Any

from .common import plural
from .rows import ObjectRenderer


class ExportTextRenderer(ObjectRenderer):
    """kdump spark export's answer: problems on stderr, one line on stdout."""

    def row(self, d: dict[str, Any]) -> None:
        if not d["segments"]:
            self.out.write(f"no segments found: nothing written to {d['output']}\n")
            return
        what = "record" if d["level"] == "record" else "batch"
        self.out.write(
            f"exported {plural(d['rows'], what)} from {plural(d['segments'], 'segment')} "
            f"({plural(d['tasks'], 'task')}) to "
            f"{d['output']}: Parquet, partitioned by topic and partition\n")


class LocalExportTextRenderer(ObjectRenderer):
    """kdump export's answer: problems on stderr, one line on stdout at the end (the
    files written are listed in the manifest, and with --json)."""

    def row(self, d: dict[str, Any]) -> None:
        if d.get("type") != "export_end":
            return
        what = "record" if d["level"] == "record" else "batch"
        found = f"; {plural(d['findings'], 'finding')} in _findings" if d["findings"] \
            else ""
        self.out.write(
            f"exported {plural(d['rows'], what)} from {plural(d['segments'], 'segment')} to "
            f"{plural(d['files'], d['format'] + ' file')} in {d['output']}, partitioned by "
            f"topic and partition{found}\n")
