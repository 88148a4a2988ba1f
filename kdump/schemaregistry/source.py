"""Where a command finds the schema registry's storage, and the decoders it makes: what
``dump``'s ``--schemas`` / ``--schemas-topic`` / ``--validate-json-schema`` set.  Light
to import (the decoding libraries load only when a payload needs them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..findings import WARNING, Problem


@dataclass(slots=True)
class SchemaSource:
    #: where else the schemas are (--schemas: _schemas partitions, folders of schema files)
    schemas: tuple[str, ...] = ()
    #: the registry's topic (--schemas-topic), looked for among and beside the inputs
    topic: str = "_schemas"
    #: validate JSON Schema payloads against their schema (--validate-json-schema)
    validate: bool = False
    #: decoded payloads get a text form too (False for JSON output: structure only)
    text: bool = True
    #: the command's inputs (where the registry's topic is looked for)
    roots: tuple[str, ...] = ()
    max_batch_bytes: int = 256 << 20
    _registry: Any = None

    def registry(self, near: str | None = None) -> Any:
        """The registry's storage found with the inputs (or beside ``near``), read once."""
        if self._registry is None:
            from .storage import load

            roots = self.roots or ((near,) if near else ())
            self._registry = load(roots, self.topic, self.schemas, self.max_batch_bytes)
        return self._registry

    def problems(self, forced: bool = False) -> list[Problem]:
        """What could not be read of the registry's storage (records that are not
        schemas; damage to its log is reported when the log itself is read), and, when a
        schema decoder was asked for (``forced``), that there are no schemas at all."""
        reg = self.registry()
        found = [p for p in reg.problems if p.kind == "schema-registry"]
        if forced and not reg:
            found.append(Problem(
                self.roots[0] if self.roots else "", None, "schema-registry",
                f"no schemas: no {self.topic} partition among or beside the inputs"
                + (" nor in --schemas" if self.schemas else "")
                + ": schema-framed payloads are not decoded", severity=WARNING))
        return found

    def decoder(self, near: str | None = None, key: str = "auto", value: str = "auto",
                topic: str | None = None) -> Any:
        from .decoder import SchemaRegistryDecoder

        return SchemaRegistryDecoder(self.registry(near), key, value, validate=self.validate,
                                     text=self.text, topic=topic)
