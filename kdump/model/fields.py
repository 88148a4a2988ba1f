"""A field of the output model, as every family module declares it (kdump/model/).

A field is declared ``(name, type, doc)``: ``name`` ends in ``?`` when the field appears
only in some objects of the kind (said in the doc); ``type`` is a JSON type in
:data:`TYPES` (``str``, ``int``, ``float``, ``bool``, ``object``, ``list``, ``any``),
``|null`` when the value may be null (``int|null``).  Each declaration becomes a
:class:`Field` (:func:`typed`, as a family module's ``KINDS`` is made), which still
unpacks as the two-tuple ``(name, doc)``.
"""

from __future__ import annotations

from collections.abc import Sequence

#: the types a field may be declared with (each may be followed by ``|null``)
TYPES = ("str", "int", "float", "bool", "object", "list", "any")
ANY = "any"


class Field(tuple[str, str]):
    """One declared field of a kind: unpacks as ``(name, doc)``, ``name`` ending in
    ``?`` when optional (the form kinds were declared in before fields had types), and
    carries its :attr:`type`."""

    type: str

    def __new__(cls, name: str, type: str, doc: str = "") -> Field:
        self = super().__new__(cls, (name, doc))
        self.type = type
        return self

    def __getnewargs__(self) -> tuple[str, str, str]:
        return self[0], self.type, self[1]

    def __repr__(self) -> str:
        return f"Field({self[0]!r}, {self.type!r}, {self[1]!r})"

    @property
    def name(self) -> str:
        """The field's name in the JSON object (without the ``?``)."""
        return self[0].rstrip("?")

    @property
    def optional(self) -> bool:
        return self[0].endswith("?")

    @property
    def doc(self) -> str:
        return self[1]

    @property
    def nullable(self) -> bool:
        return self.type.endswith("|null")


#: a field as declared: ``(name, type, doc)``, or the untyped ``(name, doc)``
Declared = tuple[str, str] | tuple[str, str, str]

#: kinds as a family declares them: kind -> (what it is, its fields in order)
Kinds = dict[str, tuple[str, Sequence[Declared | Field]]]


def field(decl: Declared | Field) -> Field:
    """The :class:`Field` of a declaration (an untyped ``(name, doc)`` has type ``any``)."""
    if isinstance(decl, Field):
        return decl
    if len(decl) == 3:
        name, typ, doc = decl
        base = typ.removesuffix("|null")
        if base not in TYPES:
            raise ValueError(f"field {name!r}: unknown type {typ!r} (one of {TYPES})")
        return Field(name, typ, doc)
    name, doc = decl
    return Field(name, ANY, doc)


def typed(kinds: Kinds) -> Kinds:
    """``kinds`` with each declaration made a :class:`Field` (an unknown type is a
    ValueError, at import)."""
    return {kind: (what, [field(d) for d in decls]) for kind, (what, decls) in kinds.items()}
