"""Renderers that take everything from the output model (kdump/model.py), for a family
whose objects need no layout of their own: a new kind can start here, and a field added
to its declaration shows in every format with no renderer change.

- ``text`` (:class:`ModelTextRenderer`): one line per object, its kind then
  ``name=value`` per field, in the model's order (absent optional fields left out);
  values as JSON writes them, a string bare when it is a single word;
- ``table`` (:class:`ModelTableRenderer`): consecutive objects of one kind make a table
  titled with the kind, one column per declared field they hold (numbers right-aligned),
  printed when the kind changes, every few hundred rows (memory stays bounded) and at
  the end.

Objects are the JSON objects (dicts with a ``type``, or anything with ``to_json()``);
``kdump metadata``'s kinds are looked up in :data:`kdump.model.METADATA_SCHEMA` when
``metadata=True``.  Problems go to stderr, one line each.  Nothing from the data can
drive the terminal: text goes through :class:`kdump.textsafe.InertLines`, tables through
the inert console of kdump/render/table.py.
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

from ..model import METADATA_SCHEMA, Field, fields_of
from .rows import ObjectRenderer

__all__ = ["ModelTableRenderer", "ModelTextRenderer", "model_value"]

#: rows of one table printed at a time
FLUSH_ROWS = 500
_WORD = re.compile(r"[^\s\"=]+")


def model_value(v: Any) -> str:
    """A field's value in one word or JSON: ``null``, ``true``, ``12``, ``orders``,
    ``"two words"``, ``[1,2]``."""
    if isinstance(v, str) and _WORD.fullmatch(v) and v not in ("null", "true", "false"):
        return v
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _fields(kind: str, metadata: bool) -> list[Field]:
    try:
        return fields_of(kind, METADATA_SCHEMA if metadata else None)
    except KeyError:
        return []


def _ordered(d: dict[str, Any], fields: list[Field]) -> list[tuple[str, Any]]:
    """``d``'s fields in the model's order (any field the model does not declare after
    them, so nothing is lost)."""
    names = [f.name for f in fields if f.name in d]
    known = set(names)
    names += [k for k in d if k not in known and k != "type"]
    return [(k, d[k]) for k in names]


class ModelTextRenderer(ObjectRenderer):
    """``kind name=value ...``, one line per object."""

    def __init__(self, out: TextIO, err: TextIO, *, metadata: bool = False) -> None:
        super().__init__(out, err)
        self.metadata = metadata

    def row(self, d: dict[str, Any]) -> None:
        kind = str(d.get("type", ""))
        cells = [f"{k}={model_value(v)}" for k, v in _ordered(d, _fields(kind, self.metadata))]
        self.out.write(" ".join([kind, *cells]) + "\n")


class ModelTableRenderer(ObjectRenderer):
    """One table per run of objects of one kind, a column per declared field."""

    def __init__(self, out: TextIO, err: TextIO, *, metadata: bool = False,
                 width: int | None = None) -> None:
        from .table import make_console

        super().__init__(out, err)
        self.console = make_console(out, width)
        self.metadata = metadata
        self.kind: str | None = None
        self.rows: list[dict[str, Any]] = []

    def row(self, d: dict[str, Any]) -> None:
        kind = str(d.get("type", ""))
        if kind != self.kind or len(self.rows) >= FLUSH_ROWS:
            self._print()
            self.kind = kind
        self.rows.append(d)

    def _print(self) -> None:
        if not self.rows:
            return
        from rich.table import Table

        fields = _fields(self.kind or "", self.metadata)
        types = {f.name: f.type.removesuffix("|null") for f in fields}
        names: list[str] = []
        for r in self.rows:
            names += [k for k, _ in _ordered(r, fields) if k not in names]
        order = {f.name: i for i, f in enumerate(fields)}
        names.sort(key=lambda n: order.get(n, len(order)))
        t = Table(title=self.kind, title_justify="left")
        for n in names:
            right = types.get(n) in ("int", "float")
            t.add_column(n, justify="right" if right else "left", overflow="fold")
        for r in self.rows:
            t.add_row(*["" if n not in r else model_value(r[n]) for n in names])
        self.console.print(t)
        self.rows = []

    def close(self) -> None:
        self._print()
        super().close()
