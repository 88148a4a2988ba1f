"""Renderers of ``kdump schemas`` rows (kdump/schemaregistry/subjects.py)."""

from __future__ import annotations

from typing import Any, TextIO

from .rows import ObjectRenderer

#: text columns: (header, JSON field)
COLUMNS = [("subject", "subject"), ("version", "version"), ("id", "id"),
           ("type", "schema_type"), ("deleted", "deleted"), ("key_records", "key_records"),
           ("value_records", "value_records"), ("references", "references")]

#: table headers (short: the table fits 80 columns more often)
TABLE_HEADERS = ["subject", "ver", "id", "type", "deleted", "keys", "values", "references"]


def _cell(d: dict[str, Any], key: str) -> str:
    v = d[key]
    if key == "references":
        return ",".join(f"{r['name']}={r['subject']}/{r['version']}" for r in v) or "-"
    if v is None:
        return "-"
    return str(v)


class SchemasTextRenderer(ObjectRenderer):
    """A header line, then one tab-separated line per subject version (awk/cut-friendly:
    subjects may hold spaces)."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        super().__init__(out, err)
        self.header = False

    def row(self, d: dict[str, Any]) -> None:
        if not self.header:
            self.out.write_row(h for h, _ in COLUMNS)
            self.header = True
        self.out.write_row((_cell(d, k) for _, k in COLUMNS))


class SchemasTableRenderer(ObjectRenderer):
    """A rich table of the subjects; deleted versions dimmed (soft) or red (hard)."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.rows: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        self.rows.append(d)

    def close(self) -> None:
        from rich.table import Table

        from .table import safe_text

        if self.rows:
            t = Table(title="schema registry", title_justify="left")
            for h in TABLE_HEADERS:
                t.add_column(h, justify="right" if h in ("ver", "id", "keys", "values")
                             else "left")
            for d in self.rows:
                style = {"soft": "dim", "hard": "red"}.get(d["deleted"] or "")
                t.add_row(*(safe_text(_cell(d, k)) for _, k in COLUMNS), style=style)
            self.console.print(t)
        super().close()
