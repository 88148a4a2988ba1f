"""Which renderer writes which result in which format: the one place that says so.

Every command's output is a *family* of objects (``dump`` events, ``verify`` findings,
``size-report`` rows ...) and every family has one renderer per ``--format``.  Adding a
family or a format is one entry here; the commands only name their family
(:func:`make_renderer`).  Renderer modules are named, not imported, so a command
imports only the renderer it uses (``--format json`` never loads rich).

A renderer class takes ``out`` (stdout), then ``err`` (stderr) when its constructor has
that parameter, then the keyword options the command gives that its constructor
accepts: a command passes what it knows (``payload_encoding``, ``deep`` ...) and each
renderer takes its share.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, TextIO

from . import Renderer

FORMATS = ("text", "json", "table")

#: family -> format -> "module:Class" under kdump.render
RENDERERS: dict[str, dict[str, str]] = {
    "dump": {"json": "jsonl:JsonRenderer", "table": "table:DumpTableRenderer",
             "text": "text:DumpTextRenderer"},
    # dump --format json --jobs N: the JSON workers rendered (kdump.ops.dump.parallel),
    # written as it comes, among the events rendered here
    "dump-spooled": {"json": "spool:SpoolRenderer"},
    "offsets-summary": {"json": "jsonl:JsonRenderer", "table": "offsets_summary:DigestTableRenderer",
                        "text": "offsets_summary:DigestTextRenderer"},
    "findings": {"json": "jsonl:JsonRenderer", "table": "findings:FindingsTableRenderer",
                 "text": "findings:FindingsTextRenderer"},
    "find": {"json": "find:FindJsonRenderer", "table": "find:FindTableRenderer",
             "text": "find:FindTextRenderer"},
    "size-report": {"json": "jsonl:JsonRenderer", "table": "size_report:SizeTableRenderer",
                    "text": "size_report:SizeTextRenderer"},
    "coordinator-partition": {"json": "jsonl:JsonRenderer",
                              "table": "coordinator_partition:CoordinatorTableRenderer",
                              "text": "coordinator_partition:CoordinatorTextRenderer"},
    "compare-replicas": {"json": "compare_replicas:CompareJsonRenderer",
                         "table": "compare_replicas:CompareTableRenderer",
                         "text": "compare_replicas:CompareTextRenderer"},
    "lag": {"json": "jsonl:JsonRenderer", "table": "lag:LagTableRenderer",
            "text": "lag:LagTextRenderer"},
    "metadata": {"json": "jsonl:JsonRenderer", "table": "metadata:MetadataTableRenderer",
                 "text": "metadata:MetadataTextRenderer"},
    # kdump report: one page (--output), or its objects as JSON Lines
    "report": {"json": "jsonl:JsonRenderer", "html": "html:HtmlReportRenderer"},
    "schemas": {"json": "jsonl:JsonRenderer", "table": "schemas:SchemasTableRenderer",
                "text": "schemas:SchemasTextRenderer"},
    "repair": {"json": "jsonl:JsonRenderer", "table": "objects:ModelTableRenderer",
               "text": "repair:RepairTextRenderer"},
    "retention": {"json": "jsonl:JsonRenderer", "table": "retention:RetentionTableRenderer",
                  "text": "retention:RetentionTextRenderer"},
    "timeline": {"json": "timeline:TimelineJsonRenderer", "table": "timeline:TimelineTableRenderer",
                 "text": "timeline:TimelineTextRenderer"},
    # kdump export: problems on stderr and one line (text), or JSON Lines
    "export": {"json": "jsonl:JsonRenderer", "table": "export:LocalExportTextRenderer",
               "text": "export:LocalExportTextRenderer"},
    "spark-export": {"json": "jsonl:JsonRenderer", "table": "export:ExportTextRenderer",
                     "text": "export:ExportTextRenderer"},
}


def renderer_class(family: str, fmt: str) -> type[Any]:
    """The class that renders ``family`` in ``fmt`` (KeyError: no such pair)."""
    module, name = RENDERERS[family][fmt].split(":")
    cls: type[Any] = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return cls


def make_renderer(family: str, fmt: str, out: TextIO, err: TextIO, **options: Any) -> Renderer:
    """The renderer of ``family`` in ``fmt``, writing to ``out`` (and ``err``), given the
    ``options`` its constructor takes.  The renderer's ``format`` attribute says which
    format it writes."""
    cls = renderer_class(family, fmt)
    params = inspect.signature(cls).parameters
    args: list[Any] = [out, err] if "err" in params else [out]
    kwargs = {k: v for k, v in options.items() if k in params}
    renderer: Renderer = cls(*args, **kwargs)
    renderer.format = fmt  # type: ignore[attr-defined]
    return renderer


__all__ = ["FORMATS", "RENDERERS", "make_renderer", "renderer_class"]
