"""Renderer of ``find-offset`` and ``find-time`` in text (JSON Lines:
:class:`~kdump.render.jsonl.FindJsonRenderer`; table: :class:`~kdump.render.table.FindTableRenderer`)."""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import Problem
from ..textsafe import InertLines
from .common import iso_ms, problem_line


class FindTextRenderer:
    """``name: value`` lines, then the DumpLogSegments lines of the batch and record."""

    def __init__(self, out: TextIO, err: TextIO, *, print_data_log: bool = False,
                 decoder: Any = None) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.print_data = print_data_log
        self.decoder = decoder

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
            return
        from ..ops.find import FindResult

        if not isinstance(item, FindResult):
            return
        d = item.to_json()
        w = self.out.write
        when = f" ({iso_ms(item.target)})" if item.query == "timestamp" else ""
        if item.found:
            w(f"found: {item.query} {item.target}{when}\n")
        else:
            w(f"not found: {item.query} {item.target}{when}: {item.reason}\n")
            if item.nearest_below is not None:
                w(f"nearest below: {item.nearest_below}\n")
            if item.nearest_above is not None:
                w(f"nearest above: {item.nearest_above}\n")
        for k in ("file", "position", "offset", "timestamp", "base_offset", "last_offset",
                  "method"):
            if d.get(k) is not None and d.get(k) != "":
                # the time for people beside the milliseconds (which stay the 2nd word)
                w(f"{k}: {d[k]} ({iso_ms(d[k])})\n" if k == "timestamp" else f"{k}: {d[k]}\n")
        if item.index_entry:
            e = item.index_entry
            w(f"index entry: slot {e['slot']} offset {e['offset']} position {e['position']}\n")
        w(f"bytes scanned: {item.bytes_scanned}\n")
        w(f"bytes read: {item.bytes_read}\n")
        for n in item.notes:
            w(f"note: {n}\n")
        if item.batch is not None:
            from ..ops.events import BatchEvent, RecordEvent
            from .text import batch_line, record_lines

            w(batch_line(item.batch) + "\n")
            if item.record is not None:
                from ..decoders.redact import shown

                rec, decoded = shown(item.record, self.decoder, item.batch.path)
                ev = RecordEvent(rec)
                ev.decoded = decoded
                if ev.decoded is not None and ev.decoded.note:
                    # stdout keeps DumpLogSegments' record line: the layout on stderr
                    self.err.write(f"{item.file}: note: record layout: {ev.decoded.note}\n")
                if item.batch.is_control:
                    from ..records.control import parse_control

                    ev.control = parse_control(item.record)
                for line in record_lines(BatchEvent(item.batch, [ev]), False, self.print_data):
                    w(line + "\n")

    def close(self) -> None:
        self.out.flush()
