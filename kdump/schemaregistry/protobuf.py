"""Protobuf payloads: the stored ``.proto`` text compiled at run time, parsed by the
protobuf runtime, written with protobuf's JSON mapping.

Compilation: ``protoc`` from grpcio-tools (``python -m grpc_tools.protoc``) in a child
process with a time limit, reading the schema and its references (``import``s, by the
reference's name) from a private temporary directory and writing a descriptor set
(``--include_imports``); the well-known types (google/protobuf/*.proto) come with
grpcio-tools, google/type/*.proto with googleapis-common-protos.  Confluent's own
confluent/meta.proto and confluent/type/decimal.proto are not available: a schema
importing them gets a note.  Each schema id gets its own descriptor pool, so two subjects may hold
different files of the same name.  protoc rejects a file importing itself.

JSON: ``json_format.MessageToDict`` with the field names as in the ``.proto``
(``preserving_proto_field_name``), otherwise protobuf's JSON mapping as the library
writes it: fields without presence at their default value are left out (proto3 cannot
tell them from absent), 64-bit integers are strings, bytes base64, enums their names,
well-known types (Timestamp, Duration ...) their JSON forms.  A message whose bytes hold
fields the schema does not know (unknown fields, at any depth) is not shown as data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from typing import Any

from .avro import MAX_DEPTH, PayloadProblem, SchemaProblem
from .storage import Registry, SchemaVersion

#: seconds protoc may take for one schema
COMPILE_TIMEOUT = 30
#: a .proto text (with its references) larger than this is not compiled
MAX_SOURCE_BYTES = 4 << 20
#: address space protoc may use (bytes), where the platform can limit it
COMPILE_MEMORY = 2 << 30
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*")


class ProtobufReader:
    """One schema id's ``.proto`` file, compiled once; message classes by index path."""

    format = "protobuf"

    def __init__(self, v: SchemaVersion, reg: Registry) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

        self._json_format = json_format
        self._factory = message_factory
        files: dict[str, str] = {}
        _reference_files(v, reg, files, 0)
        main = f"kdump_schema_{v.schema_id & 0xFFFFFFFF}.proto"
        files[main] = v.schema
        if sum(len(t) for t in files.values()) > MAX_SOURCE_BYTES:
            raise SchemaProblem(f"the .proto text and its references exceed {MAX_SOURCE_BYTES} "
                                "bytes: not compiled")
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(_compile(files, main))
        self.pool = descriptor_pool.DescriptorPool()
        try:
            for fd in fds.file:
                self.pool.Add(fd)
            self.file = self.pool.FindFileByName(main)
        except Exception as e:  # TypeError / KeyError from the pool on a bad set
            raise SchemaProblem(f"the compiled .proto is not usable: {e.__class__.__name__}") \
                from None
        self._classes: dict[tuple[int, ...], Any] = {}

    def message(self, indexes: list[int]) -> Any:
        """The message class at the index path, or None."""
        key = tuple(indexes)
        cls = self._classes.get(key)
        if cls is None:
            types = list(self.file.message_types_by_name.values())
            desc = None
            for i in indexes:
                if i >= len(types):
                    return None
                desc = types[i]
                types = list(desc.nested_types)
            if desc is None:
                return None
            cls = self._factory.GetMessageClass(desc)
            self._classes[key] = cls
        return cls

    def read(self, data: bytes, indexes: list[int]) -> tuple[object, str]:
        """(JSON-able value, full message name); raises ValueError when the bytes are not
        that message, or hold fields the schema does not know (PayloadProblem)."""
        cls = self.message(indexes)
        if cls is None:
            raise PayloadProblem(f"message indexes {indexes} name no message of the schema")
        msg = cls()
        try:
            msg.ParseFromString(data)
        except Exception as e:  # google.protobuf.message.DecodeError (also RecursionError)
            raise PayloadProblem(f"not a {cls.DESCRIPTOR.full_name}: {e.__class__.__name__}") \
                from None
        if _has_unknown(msg):
            raise PayloadProblem(f"bytes that {cls.DESCRIPTOR.full_name} does not describe "
                             "(unknown fields)")
        value = self._json_format.MessageToDict(msg, preserving_proto_field_name=True)
        return value, cls.DESCRIPTOR.full_name


def _reference_files(v: SchemaVersion, reg: Registry, files: dict[str, str], depth: int) -> None:
    """Each reference's text under the name its importer uses, references of references
    included (a name already there is not read again: an import cycle ends)."""
    if depth > MAX_DEPTH:
        raise SchemaProblem("references nest too deeply")
    for ref in v.references:
        name = ref["name"]
        if not _SAFE_NAME.fullmatch(name) or ".." in name.split("/") or name.startswith(
                "kdump_schema_"):
            raise SchemaProblem(f"reference file name {name[:100]!r} is not a plain relative "
                                ".proto path")
        if name in files:
            continue
        target = reg.resolve(ref["subject"], ref["version"])
        if target is None:
            raise SchemaProblem(f"reference {name[:100]!r} (subject {ref['subject'][:100]!r} "
                                f"version {ref['version']}) is not in the registry's storage")
        files[name] = target.schema
        _reference_files(target, reg, files, depth + 1)


#: message full name -> does it have message-typed fields (where unknown fields can hide)
_NESTS: dict[str, bool] = {}


def _has_unknown(msg: Any) -> bool:
    from google.protobuf.unknown_fields import UnknownFieldSet

    if len(UnknownFieldSet(msg)):
        return True
    desc = msg.DESCRIPTOR
    nests = _NESTS.get(desc.full_name)
    if nests is None:
        nests = _NESTS[desc.full_name] = any(f.message_type is not None for f in desc.fields)
    if not nests:
        return False
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if fd.message_type.GetOptions().map_entry:
            items = value.values() if fd.message_type.fields_by_name["value"].message_type \
                else ()
        elif _repeated(fd):
            items = value
        else:
            items = (value,)
        if any(_has_unknown(m) for m in items):
            return True
    return False


def _repeated(fd: Any) -> bool:
    rep = getattr(fd, "is_repeated", None)  # protobuf >= 6; ``label`` before
    return bool(rep) if rep is not None else fd.label == fd.LABEL_REPEATED


def _include_dirs() -> list[str]:
    """Where protoc finds the files a schema may import without a reference, as
    Confluent's serializers allow (ProtobufSchema's known dependencies): the well-known
    types (google/protobuf/*.proto, shipped with grpcio-tools) and, when
    googleapis-common-protos is installed (the schemas extra), google/type/*.proto."""
    import grpc_tools

    dirs = [os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")]
    try:
        import google

        for p in getattr(google, "__path__", ()):
            if os.path.exists(os.path.join(p, "type", "date.proto")):
                dirs.append(os.path.dirname(p))
                break
    except ImportError:
        pass
    return dirs


def _limit_memory() -> None:
    """In the protoc child: at most COMPILE_MEMORY of address space."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (COMPILE_MEMORY, COMPILE_MEMORY))
    except (ImportError, ValueError, OSError):
        pass


def _compile(files: dict[str, str], main: str) -> bytes:
    includes = [f"-I{d}" for d in _include_dirs()]
    with tempfile.TemporaryDirectory(prefix="kdump-proto-") as tmp:
        src = os.path.join(tmp, "src")
        for name, text in files.items():
            full = os.path.join(src, name)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as fh:
                fh.write(text)
        out = os.path.join(tmp, "set.pb")
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "grpc_tools.protoc", f"-I{src}", *includes,
                 "--include_imports", f"--descriptor_set_out={out}", main],
                cwd=tmp, capture_output=True, timeout=COMPILE_TIMEOUT, check=False,
                preexec_fn=_limit_memory if os.name == "posix" else None)
        except subprocess.TimeoutExpired:
            raise SchemaProblem(f"protoc took more than {COMPILE_TIMEOUT} s: not "
                                "compiled") from None
        except OSError as e:
            raise SchemaProblem(f"protoc cannot run: {e.strerror}") from None
        if proc.returncode != 0:
            # file names relative to the private directory (it is gone afterwards)
            first = proc.stderr.decode("utf-8", "replace").replace(src + os.sep, "") \
                .strip().splitlines()
            why = first[0] if first else f"exit status {proc.returncode}"
            raise SchemaProblem(f"the .proto does not compile: {why[:300]}")
        with open(out, "rb") as fh:
            return fh.read()
