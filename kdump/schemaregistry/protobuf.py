"""Protobuf payloads: the stored ``.proto`` text compiled at run time, parsed by the
protobuf runtime, written with protobuf's JSON mapping.

Compilation: ``protoc`` from grpcio-tools (``python -m grpc_tools.protoc``) in a child
process with a time limit, reading the schema and its references (``import``s, by the
reference's name) from a private temporary directory and writing a descriptor set
(``--include_imports``).  An import no reference names is looked for, in this order: a
subject of the registry named as the import (its latest version: Confluent's default
reference subject names are the import names); the ``--schemas DIR`` folder the schema
was read from (by relative path inside it, never outside); kdump's own
confluent/meta.proto and confluent/type/decimal.proto (:mod:`.confluent_protos`); the
well-known types (google/protobuf/*.proto, shipped with grpcio-tools) and
google/type/*.proto (googleapis-common-protos).  Each schema id gets its own descriptor
pool, so two subjects may hold different files of the same name.  protoc rejects a
file importing itself and a cycle of imports (the note names them).

JSON: ``json_format.MessageToDict`` with the field names as in the ``.proto``
(``preserving_proto_field_name``), otherwise protobuf's JSON mapping as the library
writes it: fields without presence at their default value are left out (proto3 cannot
tell them from absent), 64-bit integers are strings, bytes base64, enums their names,
well-known types (Timestamp, Duration ...) their JSON forms; ``confluent.type.Decimal``
values are decimal strings.  A message whose bytes hold fields the schema does not know
(unknown fields, at any depth) is not shown as data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from typing import Any

from . import confluent_protos
from .avro import MAX_DEPTH, PayloadProblem, SchemaProblem
from .storage import Registry, SchemaVersion

#: seconds protoc may take for one schema
COMPILE_TIMEOUT = 30
#: a .proto text (with its references) larger than this is not compiled
MAX_SOURCE_BYTES = 4 << 20
#: address space protoc may use (bytes), where the platform can limit it
COMPILE_MEMORY = 2 << 30
#: files (the schema, its references and imports) one schema may bring to protoc
MAX_FILES = 512
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*")
#: comments and the import statements of a .proto text
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_IMPORT = re.compile(r'\bimport\s+(?:public\s+|weak\s+)?"([^"\n]{1,300})"\s*;')


class ProtobufReader:
    """One schema id's ``.proto`` file, compiled once; message classes by index path."""

    format = "protobuf"

    def __init__(self, v: SchemaVersion, reg: Registry) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

        self._json_format = json_format
        self._factory = message_factory
        files: dict[str, str] = {}
        main = f"kdump_schema_{v.schema_id & 0xFFFFFFFF}.proto"
        files[main] = v.schema
        _reference_files(v, reg, files, 0)
        if len(v.schema) > MAX_SOURCE_BYTES:
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
        #: the message classes holding a confluent.type.Decimal somewhere
        self._decimals: set[Any] = set()

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
            if _has_decimal(desc):
                self._decimals.add(cls)
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
        if cls in self._decimals:
            value = _with_decimals(msg, value)
        return value, cls.DESCRIPTOR.full_name


def _reference_files(v: SchemaVersion, reg: Registry, files: dict[str, str], depth: int) -> None:
    """Each reference's text under the name its importer uses, references of references
    included (a name already there is not read again: an import cycle ends)."""
    if depth > MAX_DEPTH:
        raise SchemaProblem("references nest too deeply")
    for ref in v.references:
        name = ref["name"]
        if not _safe(name):
            raise SchemaProblem(f"reference file name {name[:100]!r} is not a plain relative "
                                ".proto path")
        if name in files:
            continue
        target = reg.resolve(ref["subject"], ref["version"])
        if target is None:
            raise SchemaProblem(f"reference {name[:100]!r} (subject {ref['subject'][:100]!r} "
                                f"version {ref['version']}) is not in the registry's storage")
        _add_file(files, name, target.schema)
        _reference_files(target, reg, files, depth + 1)
    _import_files(v.schema, v.folder, reg, files, depth)


def _safe(name: str) -> bool:
    return bool(_SAFE_NAME.fullmatch(name)) and ".." not in name.split("/") \
        and not name.startswith("kdump_schema_")


def _add_file(files: dict[str, str], name: str, text: str) -> None:
    files[name] = text
    if len(files) > MAX_FILES:
        raise SchemaProblem(f"more than {MAX_FILES} imported files: not compiled")
    if sum(len(t) for t in files.values()) > MAX_SOURCE_BYTES:
        raise SchemaProblem(f"the .proto text and its references exceed {MAX_SOURCE_BYTES} "
                            "bytes: not compiled")


def imports_of(text: str) -> list[str]:
    """The file names a .proto text imports (comments left out)."""
    return _IMPORT.findall(_COMMENT.sub(" ", text))


def _import_files(text: str, folder: str | None, reg: Registry, files: dict[str, str],
                  depth: int) -> None:
    """The imports of ``text`` that no reference named: a subject of that name, else a
    file of that relative path in ``folder`` (see the module doc); the others are left to
    protoc's include directories (kdump's Confluent files, the well-known types)."""
    if depth > MAX_DEPTH:
        raise SchemaProblem("imports nest too deeply")
    names = imports_of(text)
    if len(names) > MAX_FILES:
        raise SchemaProblem(f"more than {MAX_FILES} imports in one file: not compiled")
    for name in names:
        if name in files or not _safe(name):
            continue  # an unsafe name is left to protoc, which will not find it
        target = reg.resolve(name, -1)
        if target is not None and target.schema_type == "PROTOBUF":
            _add_file(files, name, target.schema)
            _reference_files(target, reg, files, depth + 1)
            continue
        if folder is None:
            continue
        found = _folder_file(folder, name)
        if found is not None:
            _add_file(files, name, found)
            _import_files(found, folder, reg, files, depth + 1)


def _folder_file(folder: str, name: str) -> str | None:
    """The text of ``folder/name`` when it is a file inside ``folder`` (links leading out
    of it are not followed), or None."""
    root = os.path.realpath(folder)
    full = os.path.realpath(os.path.join(root, name))
    if not full.startswith(root.rstrip(os.sep) + os.sep) or not os.path.isfile(full):
        return None
    try:
        if os.path.getsize(full) > MAX_SOURCE_BYTES:
            raise SchemaProblem(f"{name[:100]} is larger than {MAX_SOURCE_BYTES} bytes: not "
                                "compiled")
        with open(full, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as e:
        raise SchemaProblem(f"{name[:100]} cannot be read: {e.strerror}") from None


#: message descriptor -> does it have message-typed fields (where unknown fields can
#: hide); by descriptor, not by name: two schemas may define messages of the same name
_NESTS: dict[Any, bool] = {}


def _has_unknown(msg: Any) -> bool:
    from google.protobuf.unknown_fields import UnknownFieldSet

    if len(UnknownFieldSet(msg)):
        return True
    desc = msg.DESCRIPTOR
    nests = _NESTS.get(desc)
    if nests is None:
        nests = _NESTS[desc] = any(f.message_type is not None for f in desc.fields)
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


#: message descriptor -> does it hold a confluent.type.Decimal (at any depth)
_DECIMALS: dict[Any, bool] = {}


def _has_decimal(desc: Any) -> bool:
    got = _DECIMALS.get(desc)
    if got is None:
        # every message reachable from it (recursive messages included), once
        seen: set[Any] = set()
        todo, got = [desc], False
        while todo and not got:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                got = d.full_name == confluent_protos.DECIMAL
                todo += [f.message_type for f in d.fields if f.message_type is not None]
        _DECIMALS[desc] = got
    return got


def _json_key(k: object) -> str:
    return ("true" if k else "false") if isinstance(k, bool) else str(k)


def _with_decimals(msg: Any, obj: Any) -> Any:
    """``obj`` (MessageToDict of ``msg``) with each confluent.type.Decimal as its decimal
    string (:func:`~.confluent_protos.decimal_text`)."""
    desc = msg.DESCRIPTOR
    if desc.full_name == confluent_protos.DECIMAL:
        text = confluent_protos.decimal_text(msg.value, msg.precision, msg.scale)
        return obj if text is None else text
    if not isinstance(obj, dict):
        return obj
    for fd, value in msg.ListFields():
        if fd.message_type is None or fd.name not in obj or not _has_decimal(fd.message_type):
            continue
        if fd.message_type.GetOptions().map_entry:
            vfd = fd.message_type.fields_by_name["value"]
            if vfd.message_type is not None and isinstance(obj[fd.name], dict):
                for k, m in value.items():
                    jk = _json_key(k)
                    if jk in obj[fd.name]:
                        obj[fd.name][jk] = _with_decimals(m, obj[fd.name][jk])
        elif _repeated(fd):
            obj[fd.name] = [_with_decimals(m, o) for m, o in zip(value, obj[fd.name], strict=False)]
        else:
            obj[fd.name] = _with_decimals(value, obj[fd.name])
    return obj


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


def _write(root: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        full = os.path.join(root, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fh:
            fh.write(text)


def _compile(files: dict[str, str], main: str) -> bytes:
    includes = [f"-I{d}" for d in _include_dirs()]
    with tempfile.TemporaryDirectory(prefix="kdump-proto-") as tmp:
        src = os.path.join(tmp, "src")
        _write(src, files)
        # kdump's Confluent files: after the schema's own (a reference or subject wins)
        known = os.path.join(tmp, "confluent-known")
        _write(known, confluent_protos.FILES)
        out = os.path.join(tmp, "set.pb")
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "grpc_tools.protoc", f"-I{src}", f"-I{known}", *includes,
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
                .replace(known + os.sep, "") \
                .strip().splitlines()
            why = first[0] if first else f"exit status {proc.returncode}"
            raise SchemaProblem(f"the .proto does not compile: {why[:300]}")
        with open(out, "rb") as fh:
            return fh.read()
