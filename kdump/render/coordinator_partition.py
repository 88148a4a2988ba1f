"""Renderers of ``coordinator-partition``: tab-separated text and a rich table."""

from __future__ import annotations

from typing import Any, TextIO

from .rows import ObjectRenderer


class CoordinatorTextRenderer(ObjectRenderer):
    """coordinator-partition: ``id<TAB>partition<TAB>offsets dir<TAB>transactions dir``."""

    def row(self, d: dict[str, Any]) -> None:
        self.out.write_row((d["id"], d["partition"], d["consumer_offsets_dir"],
                            d["transaction_state_dir"]))


class CoordinatorTableRenderer(ObjectRenderer):
    """coordinator-partition as a table (printed at close)."""

    def __init__(self, out: TextIO, err: TextIO, *, width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.rows: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        self.rows.append(d)

    def close(self) -> None:
        from rich.table import Table

        if self.rows:
            partitions = self.rows[0]["partitions"]
            t = Table(title=f"coordinator partitions (of {partitions})", title_justify="left")
            for col in ("id", "hashCode", "partition", "directories"):
                t.add_column(col, overflow="fold")
            for r in self.rows:
                t.add_row(str(r["id"]), str(r["hash_code"]), str(r["partition"]),
                          f"{r['consumer_offsets_dir']}  {r['transaction_state_dir']}")
            self.console.print(t)
        super().close()
