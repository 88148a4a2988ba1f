"""``kdump metadata`` renderers: ``text`` (one ``/path value`` line per field, in the
spirit of kafka-metadata-shell, greppable), ``table`` (rich, one table per section).
``json`` is :class:`kdump.render.jsonl.JsonRenderer` (the objects are dicts).

Names and string values come from the data: in text they are percent-escaped (``%``,
``/``, whitespace and anything unprintable become ``%XX`` of their UTF-8 bytes), in
tables unprintable characters are shown as ``\\xNN`` / ``\\uNNNN``, so nothing from a
record can drive the terminal or break a line.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, TextIO

from ..findings import Problem
from ..metadata.image import SECTION_ORDER
from ..metadata.output import object_path
from ..textsafe import InertLines
from .common import problem_line
from .rows import ObjectRenderer

__all__ = ["MetadataTableRenderer", "MetadataTextRenderer", "escape_segment", "iso_time"]


def escape_segment(s: str, *, keep_slash: bool = False, keep_space: bool = False) -> str:
    out = []
    for ch in s:
        if ch == " " and keep_space:
            out.append(ch)
        elif ch == "%" or (ch == "/" and not keep_slash) or ch.isspace() or not ch.isprintable():
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")))
        else:
            out.append(ch)
    return "".join(out)


def _value(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return escape_segment(v, keep_slash=True, keep_space=True) if v else '""'
    if isinstance(v, list):
        return "[" + ",".join(_value(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def iso_time(ms: int | None) -> str:
    if ms is None or ms < 0:
        return "-"
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _flatten(prefix: str, v: Any, out: list[str]) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            _flatten(f"{prefix}/{escape_segment(str(k))}", x, out)
    elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        for i, x in enumerate(v):
            name = x.get("name", i) if isinstance(x, dict) else i
            _flatten(f"{prefix}/{escape_segment(str(name))}", x, out)
    else:
        out.append(f"{prefix} {_value(v)}")


_SKIP = {"type"}
#: fields the path already names
_IN_PATH = {"feature": ("name",), "broker": ("id",), "controller": ("id",), "topic": ("name",),
            "partition": ("topic", "partition"), "config": ("resource_type", "resource_name",
                                                           "name"),
            "quota": ("key",), "acl": ("id",), "scram_user": ("name", "mechanism"),
            "delegation_token": ("token_id",)}


class MetadataTextRenderer(ObjectRenderer):
    """``/topics/orders/0/leader 3``; history and differences one line each (problems on
    stderr, as every object renderer)."""

    def row(self, item: dict[str, Any]) -> None:
        t = item.get("type")
        lines: list[str] = []
        if t == "change":
            lines.append(f"{item['offset'] if item['offset'] is not None else 'snapshot'} "
                         f"{iso_time(item['timestamp'])} {escape_segment(item['label'], keep_slash=True)}"
                         f" {item['action']}: {_text(item['text'])} ({item['record']}"
                         + (f", committed at {item['committed_at']}" if item["committed_at"]
                            is not None else "") + ")")
        elif t == "difference":
            lines.append(f"{item['path'] if item['object'] == 'quorum' else _path(item)} "
                         f"{item['action']}: {_text(item['text'])}")
        elif t in ("image", "diff", "history"):
            for k, v in item.items():
                if k not in _SKIP:
                    _flatten(f"/{t}/{k}", v, lines)
        else:
            base = "/" + "/".join(escape_segment(s) for s in object_path(item))
            skip = _IN_PATH.get(str(t), ())
            for k, v in item.items():
                if k not in _SKIP and k not in skip:
                    _flatten(f"{base}/{k}", v, lines)
        for line in lines:
            self.out.write(line + "\n")


def _path(item: dict[str, Any]) -> str:
    return "/" + "/".join(escape_segment(s) for s in item["path"].split("/")[1:])


def _text(s: str) -> str:
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256
                   else f"\\u{ord(ch):04x}" for ch in s)


def _cell(v: Any) -> str:
    if isinstance(v, list):
        if v and all(isinstance(x, dict) for x in v):
            return "\n".join(_cell(x) for x in v)
        return "[" + ",".join(_cell(x) for x in v) + "]"
    if isinstance(v, dict):
        if {"name", "host", "port"} <= set(v):
            return f"{v['name']}://{_text(str(v['host']))}:{v['port']}"
        return ", ".join(f"{k}={_cell(x)}" for k, x in v.items())
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return _text(str(v))


#: columns per section (field names); the rest of an object is left to json/text
COLUMNS: dict[str, tuple[str, ...]] = {
    "feature": ("name", "level"),
    "broker": ("id", "epoch", "fenced", "in_controlled_shutdown", "rack", "endpoints",
               "cordoned_log_dirs", "incarnation_id"),
    "controller": ("id", "registered", "voter", "leader", "endpoints", "incarnation_id"),
    "topic": ("name", "topic_id", "partitions"),
    "partition": ("topic", "partition", "leader", "leader_epoch", "partition_epoch",
                  "replicas", "isr", "elr", "last_known_elr", "leader_recovery_state",
                  "adding_replicas", "removing_replicas"),
    "config": ("resource_type", "resource_name", "name", "value"),
    "quota": ("entity", "key", "value"),
    "acl": ("principal", "permission_type", "operation", "resource_type", "resource_name",
            "pattern_type", "host"),
    "producer_ids": ("next_producer_id", "broker_id", "broker_epoch"),
    "scram_user": ("name", "mechanism", "iterations", "credentials"),
    "delegation_token": ("token_id", "owner", "requester", "renewers", "expiration_timestamp",
                         "hmac"),
}
_HEADERS = {"partition": "p", "leader_epoch": "l.epoch", "partition_epoch": "p.epoch",
            "last_known_elr": "last elr", "leader_recovery_state": "recovery",
            "adding_replicas": "adding", "removing_replicas": "removing",
            "in_controlled_shutdown": "shutting down", "incarnation_id": "incarnation",
            "cordoned_log_dirs": "cordoned dirs"}
_TITLES = {"feature": "features", "broker": "brokers", "controller": "controllers",
           "topic": "topics", "partition": "partitions", "config": "configs",
           "quota": "client quotas", "acl": "ACLs", "producer_ids": "producer ids",
           "scram_user": "SCRAM users (credentials redacted)",
           "delegation_token": "delegation tokens (HMACs redacted)"}


class MetadataTableRenderer:
    """One rich table per section, written when the section ends."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        from .table import make_console

        self.console = make_console(out)
        self.err = InertLines(err)
        self.section: str | None = None
        self.rows: list[dict[str, Any]] = []

    def _flush(self) -> None:
        from rich.table import Table
        from rich.text import Text

        if self.section is None or not self.rows:
            return
        s = self.section
        cols = COLUMNS.get(s) or tuple(k for k in self.rows[0] if k != "type")
        title = _TITLES.get(s, s)
        t = Table(title=f"{title} ({len(self.rows)})", title_justify="left")
        for c in cols:
            t.add_column(_HEADERS.get(c, c.replace("_", " ")), overflow="fold")
        for r in self.rows:
            t.add_row(*(Text(_cell(r.get(c))) for c in cols))
        self.console.print(t)
        self.rows = []

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self._flush()
            self.section = None
            self.err.write(problem_line(item) + "\n")
            return
        if not isinstance(item, dict):
            return
        t = str(item.get("type"))
        if t in ("image", "diff", "history"):
            self._flush()
            self.section = None
            from rich.table import Table
            from rich.text import Text

            tab = Table(title=t, title_justify="left", show_header=False)
            tab.add_column("field")
            tab.add_column("value", overflow="fold")
            for k, v in item.items():
                if k != "type":
                    tab.add_row(k.replace("_", " "), Text(_cell(v)))
            self.console.print(tab)
            return
        if t == "change":
            row = {"offset": item["offset"], "time": iso_time(item["timestamp"]),
                   "object": item["label"], "action": item["action"], "what": item["text"],
                   "record": item["record"]}
            item = {"type": "change", **row}
        elif t == "difference":
            item = {"type": "difference", "object": item["label"], "path": item["path"],
                    "action": item["action"], "what": item["text"]}
        if t != self.section:
            self._flush()
            self.section = t
        self.rows.append(item)

    def close(self) -> None:
        self._flush()


assert set(COLUMNS) == set(SECTION_ORDER)
