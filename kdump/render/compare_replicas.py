"""Renderers for ``compare-replicas``: text (lines for people and ``grep``) and tables
(rich).  JSON Lines is :class:`~kdump.render.jsonl.JsonRenderer`, plus the
``record`` objects of ``--print-data-log`` built here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from ..decoders import KeyValueDecoder
from ..decoders.redact import shown
from ..findings import Problem
from ..ops.compare_replicas import CompareSummary, OnlyHereBatch, PartitionComparison
from ..ops.events import BatchEvent, RecordEvent
from ..records.control import parse_control
from ..textsafe import InertLines
from .common import dash, escape_controls, plain_cells, plural, problem_line

_DECODER: KeyValueDecoder | None = None
#: the decoder of a replica's records, by partition directory (``kdump.ops.dump.
#: DumpOptions.decoder_for_path``: as dump decodes them); None: the string decoder
DecoderFor = Callable[[str], Any] | None
def _events(item: OnlyHereBatch, decode: bool, decoder_for: DecoderFor = None) -> BatchEvent:
    """The batch and its records, as ``dump --print-data-log`` shows them."""
    global _DECODER
    if _DECODER is None:
        _DECODER = KeyValueDecoder("string", "string")
    # as dump decodes the replica's records (decoder_for: schema-registry payloads,
    # internal topics), else the internal-topic decoder compare-replicas chose, else strings
    decoder: Any = (decoder_for(item.replica.path) if decoder_for is not None
                    else item.decoder if item.decoder is not None else _DECODER)
    b = item.batch
    decode = decode or item.decoder is not None
    events: list[RecordEvent] = []
    try:
        for rec in b.records():
            ev = RecordEvent(rec)
            if b.magic >= 2 and b.is_control:
                ev.control = parse_control(rec)
            elif decode:  # secrets of metadata records shown redacted (kdump.decoders.redact)
                ev.record, ev.decoded = shown(rec, decoder, b.path)
            events.append(ev)
    except Exception:
        pass
    return BatchEvent(b, events)


def epochs_text(pairs: list[list[int]] | None) -> str:
    if not pairs:
        return "none"
    return " ".join(f"{e}@{o}" for e, o in pairs)


def _who(r: dict[str, Any]) -> str:
    b = r["broker_id"]
    return f"broker {b} {r['path']}" if b is not None else r["path"]


def comparison_lines(c: PartitionComparison) -> list[str]:
    d = c.to_json()
    head = f"{c.label}: "
    if d["status"] == "single":
        where = ", ".join(str(m["broker_id"]) if m["broker_id"] is not None else m["log_dir"]
                          for m in d["missing_from"])
        head += "only one replica" + (f" (not in: {where})" if where else "")
    elif d["status"] == "diverged":
        head += f"replicas diverge at offset {d['divergence_offset']}"
        if d["truncation_offset"] is not None:
            head += f"; Kafka's truncation would cut a follower at {d['truncation_offset']}"
    elif d["status"] == "lagging":
        head += "replicas agree; some lag behind"
    else:
        head += "replicas agree"
    if d["compacted_differences"]:
        head += (f"; {plural(d['compacted_differences'], 'batch')} "
                 f"{'differs' if d['compacted_differences'] == 1 else 'differ'} by compaction only")
    lines = [head]
    for r in d["replicas"]:
        s = (f"  {_who(r)} ({r['role']}): log start {r['log_start_offset']}, "
             f"log end {r['log_end_offset']}")
        if r["high_watermark"] is not None:
            s += f", high watermark {r['high_watermark']} (checkpointed)"
        s += f", epochs {epochs_text(r['epochs'])} ({r['epochs_source']})"
        s += f", {plural(r['records_only_here'], 'record')} only here"
        if r["role"] == "follower" and r["truncation_offset"] is not None:
            s += f", Kafka truncates it at {r['truncation_offset']}"
            if r["log_end_offset"] is not None and r["truncation_offset"] >= r["log_end_offset"]:
                s += " (nothing to cut)"
        if r["batch_at_divergence"] is not None:
            b = r["batch_at_divergence"]
            s += (f"; at the divergence: batch {b['base_offset']}-{b['last_offset']} epoch "
                  f"{b['partition_leader_epoch']} crc {b['crc']} ({b['file']} position "
                  f"{b['position']})")
        if r["damage"]:
            s += f"; {len(r['damage'])} damaged stretches"
        lines.append(s)
    return lines


class CompareTextRenderer:
    """A block of lines per partition on stdout, findings and the summary on stderr;
    ``--print-data-log`` records as DumpLogSegments lines under a ``Replica:`` line."""

    def __init__(self, out: TextIO, err: TextIO, *, print_data_log: bool = False,
                 decoder_for: DecoderFor = None) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.print_data = print_data_log
        self.decoder_for = decoder_for
        self._replica: str | None = None
        #: (replica, layout) the layout note was said of (stderr, once each)
        self._noted: set[tuple[str, str]] = set()

    def emit(self, item: object) -> None:
        from .text import batch_line, record_lines

        if isinstance(item, PartitionComparison):
            self._replica = None
            for line in comparison_lines(item):
                self.out.write(escape_controls(line) + "\n")
        elif isinstance(item, OnlyHereBatch):
            r = item.replica
            if self._replica != r.path:
                self._replica = r.path
                who = f"broker {r.broker_id} " if r.broker_id is not None else ""
                self.out.write(escape_controls(f"Replica: {who}{r.path} (records only here)") + "\n")
            ev = _events(item, True, self.decoder_for)
            self._layout_notes(r.path, ev)
            self.out.write(escape_controls(batch_line(item.batch)) + "\n")
            for line in record_lines(ev, False, True):
                self.out.write(escape_controls(line) + "\n")
        elif isinstance(item, Problem):
            self.err.write(escape_controls(problem_line(item)) + "\n")
        elif isinstance(item, CompareSummary):
            d = item.to_json()
            self.err.write(
                f"compare-replicas: {plural(d['partitions'], 'partition')}: {d['agree']} agree, "
                f"{d['lagging']} lagging, {d['diverged']} diverged, "
                f"{d['only_one_replica']} with one replica, {d['damaged']} damaged; "
                f"{plural(d['bytes_read'], 'byte')} read\n")

    def _layout_notes(self, replica: str, ev: BatchEvent) -> None:
        """Which layout read an internal topic's records, on stderr once per replica and
        layout (stdout keeps DumpLogSegments' lines, as dump's text does)."""
        from ..decoders.release import layout_of_note

        for rev in ev.records or ():
            note = rev.decoded.note if rev.decoded is not None else None
            if note:
                key = (replica, layout_of_note(note))
                if key not in self._noted and len(self._noted) < 64:
                    self._noted.add(key)
                    self.err.write(escape_controls(f"{replica}: note: record layout: {note} (offset "
                                         f"{rev.record.offset})") + "\n")

    def close(self) -> None:
        self.out.flush()
        self.err.flush()


def compare_json(item: object, out: TextIO, encoding: str,
                 decoder_for: DecoderFor = None) -> bool:
    """``record`` objects of ``--print-data-log``, tagged with their replica; False when
    ``item`` is not an :class:`OnlyHereBatch`.  With ``decoder_for``, records carry what
    their decoder makes of them (``decoded`` / ``decode_error``), as in dump."""
    if not isinstance(item, OnlyHereBatch):
        return False
    from .jsonl import batch_object, json_text, record_object, structured_of

    r = item.replica
    tag = {"replica": r.path, "log_dir": r.log_dir, "broker_id": r.broker_id}
    ev = _events(item, decoder_for is not None, decoder_for)
    out.write(json_text({**batch_object(item.batch), **tag}) + "\n")
    for rev in ev.records or ():
        out.write(json_text({**record_object(item.batch, rev, encoding, structured_of(rev)),
                          **tag}) + "\n")
    return True


class CompareJsonRenderer:
    format = "json"

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8",
                 decoder_for: DecoderFor = None) -> None:
        from .jsonl import JsonRenderer

        self.out = out
        self.encoding = payload_encoding
        self.decoder_for = decoder_for
        self.inner = JsonRenderer(out, payload_encoding=payload_encoding)

    def emit(self, item: object) -> None:
        if not compare_json(item, self.out, self.encoding, self.decoder_for):
            self.inner.emit(item)

    def close(self) -> None:
        self.inner.close()


class CompareTableRenderer:
    """One table of replicas, a row each, grouped by partition."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None,
                 decoder_for: DecoderFor = None) -> None:
        from .table import make_console

        self.console = make_console(out, width)
        self.err = InertLines(err)
        self.rows: list[tuple[str, ...]] = []
        self.text = CompareTextRenderer(out, err, print_data_log=True, decoder_for=decoder_for)
        self.summary: CompareSummary | None = None

    def emit(self, item: object) -> None:
        if isinstance(item, PartitionComparison):
            d = item.to_json()
            for k, r in enumerate(d["replicas"]):
                status = d["status"]
                if status == "diverged":
                    status = f"diverged at {d['divergence_offset']}"
                trunc = r["truncation_offset"]
                if r["damage"]:
                    status = (status + "; " if k == 0 else "") + f"{len(r['damage'])} damaged"
                elif k:
                    status = ""
                self.rows.append((
                    item.label if k == 0 else "", status,
                    f"broker {r['broker_id']}" if r["broker_id"] is not None else r["log_dir"],
                    r["role"], dash(r["log_start_offset"]), dash(r["log_end_offset"]),
                    dash(r["high_watermark"]), epochs_text(r["epochs"]),
                    str(r["records_only_here"]), dash(trunc)))
        elif isinstance(item, OnlyHereBatch):
            self.text.emit(item)
        elif isinstance(item, Problem):
            self.err.write(escape_controls(problem_line(item)) + "\n")
        elif isinstance(item, CompareSummary):
            self.summary = item

    def close(self) -> None:
        from rich.table import Table

        t = Table(title="replicas compared", title_justify="left")
        for name in ("partition", "status", "replica", "role", "start", "end", "hw",
                     "epochs", "only here", "cut at"):
            justify: Any = "right" if name in ("start", "end", "hw", "only here",
                                               "cut at") else "left"
            t.add_column(name, justify=justify, overflow="fold")
        for row in self.rows:
            t.add_row(*plain_cells(*row))
        self.console.print(t)
        if self.summary is not None:
            self.text.emit(self.summary)
        self.text.close()
