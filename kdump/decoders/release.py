"""Which Kafka release's layout a record is read with (release-aware decoding).

Most records read the same in every release 3.9-4.4: a later release only adds tagged
fields, which :mod:`kdump.protocol.definitions` reads in every release.  A few layouts
differ *at the same version* (Kafka 4.0's and 4.1's ``ShareSnapshotValue``,
``ShareUpdateValue``, ``ShareGroupMetadataValue``, ``ShareGroupStatePartitionMetadataValue``;
type 0 of ``__consumer_offsets``; Kafka 3.9's and 4.0's ``ShareGroupPartitionMetadataValue``,
type 9).  For those, the layout is picked from the evidence, in this order:

1. the release the user names (``--kafka-version X.Y``): that release's layout;
2. the cluster's own ``metadata.version`` (the last ``FeatureLevelRecord`` of
   ``metadata.version`` in the log dir's ``__cluster_metadata-0``, else its
   ``bootstrap.checkpoint``): brokers run at least the release of that level, so layouts
   of older releases only are set aside (a 3.x level says nothing: 3.9 is the oldest
   release kdump reads, and 4.x brokers run at 3.x levels until upgraded);
3. a ZooKeeper-era log dir (``meta.properties`` version 0 without ``directory.id``, and
   neither ``__cluster_metadata-0`` nor ``bootstrap.checkpoint``): written by a
   ZooKeeper-mode broker, so by 3.9 at the latest (4.0 removed ZooKeeper mode, KIP-500):
   3.9's layouts;
4. otherwise the one layout that reads the record *exactly*: every byte consumed and
   every enum-like value (``in...`` in the definitions) valid.

When two layouts fit with different results, or none fits, the record says so (which
layouts, why) and keeps its raw bytes; when a layout was chosen among several, the
record says which.  :class:`Evidence` carries what is known; :func:`read_layout` reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kdump.protocol.definitions import (
    RELEASES,
    KafkaVersion,
    RecordDef,
    definitions,
    release_key,
)
from kdump.protocol.messages import SchemaError, read_message, to_json

__all__ = [
    "BY_METADATA_VERSION",
    "EVIDENCE_SCAN_BYTES",
    "LAST_ZOOKEEPER_RELEASE",
    "METADATA_VERSION_RELEASES",
    "NO_EVIDENCE",
    "Evidence",
    "KafkaVersion",
    "LayoutRead",
    "check_release",
    "evidence_for_logdir",
    "layout_of_note",
    "layouts",
    "log_dir_of",
    "metadata_version_in",
    "newer_than_release",
    "read_layout",
    "release_of_metadata_version",
    "unstable_note",
    "zookeeper_era",
]

#: metadata.version feature level -> (Kafka release, MetadataVersion name); from
#: ``server-common/.../MetadataVersion.java`` of the 4.x branches (levels 22-33: 4.4's
#: branch defines 4.4-IV0 to 4.4-IV2).  Levels 1-21 are 3.0-IV1 to 3.9-IV0: a 3.x floor,
#: at or below the oldest release kdump reads (3.9), so they choose no layout.
METADATA_VERSION_RELEASES: dict[int, tuple[str, str]] = {
    22: ("4.0", "4.0-IV0"),
    23: ("4.0", "4.0-IV1"),
    24: ("4.0", "4.0-IV2"),
    25: ("4.0", "4.0-IV3"),
    26: ("4.1", "4.1-IV0"),
    27: ("4.1", "4.1-IV1"),
    28: ("4.2", "4.2-IV0"),
    29: ("4.2", "4.2-IV1"),
    30: ("4.3", "4.3-IV0"),
    31: ("4.4", "4.4-IV0"),
    32: ("4.4", "4.4-IV1"),
    33: ("4.4", "4.4-IV2"),
}


def release_of_metadata_version(level: int) -> tuple[str, str] | None:
    """The (release, name) of a ``metadata.version`` level; levels below 22 are 3.x
    (None: no release floor above 3.9, the oldest kdump reads), levels above 33 are newer
    than kdump knows."""
    return METADATA_VERSION_RELEASES.get(level)


def check_release(text: str, lowest: str = RELEASES[0], what: str = "") -> str:
    """Validate a ``--kafka-version``: ``X.Y`` (a bugfix part ``X.Y.Z`` is dropped), no
    older than ``lowest``.

    Raises :class:`SchemaError` saying what kdump knows (``what``: by default the record
    layouts of :data:`RELEASES`)."""
    try:
        release = KafkaVersion.parse(text)
    except SchemaError:
        release = None
    if release is not None and release.at_least(lowest):
        return str(release)
    raise SchemaError(f"unsupported Kafka version {text!r}: " + (
        what or f"kdump reads the record layouts of Kafka {', '.join(RELEASES)} (and later "
                 "releases as the newest of these)"))


@dataclass(frozen=True, slots=True)
class Evidence:
    """What is known of the release that wrote the records.

    ``release`` is exact when the user named it (``floor`` False); a release floor
    (``floor`` True) when read from ``metadata.version``.  ``source`` says where from.
    """

    release: str | None = None
    floor: bool = False
    source: str = ""

    def admits(self, d: RecordDef) -> bool:
        """Whether the layout may have written the record, by this evidence."""
        if self.release is None:
            return True
        if not self.floor:
            return self.release in d.releases
        return d.releases.hi is None or release_key(d.releases.hi) >= release_key(self.release)


NO_EVIDENCE = Evidence()

_BY_KEY: dict[tuple[str, str, int], tuple[RecordDef, ...]] = {}
for _d in definitions():
    _k = (_d.family, _d.role, _d.record_type)
    _BY_KEY[_k] = (*_BY_KEY.get(_k, ()), _d)


def layouts(family: str, role: str, record_type: int) -> tuple[RecordDef, ...]:
    """Every layout kdump knows of one record type, oldest release first."""
    return _BY_KEY.get((family, role, record_type), ())


@dataclass(slots=True)
class LayoutRead:
    """The outcome of :func:`read_layout`.

    ``layout`` is the definition read with (None: none could be); ``message`` the
    decoded message (all fields) and ``data`` its JSON rendering; ``end`` the position
    after it.  ``note`` says which layout was used when it was not the only one;
    ``doubt`` why the reading is doubtful (several layouts fit with different results,
    or the layout the evidence names does not fit); ``error`` why nothing was read.
    """

    layout: RecordDef | None
    message: dict[str, Any] | None
    data: dict[str, Any] | None
    end: int
    note: str | None = None
    error: str | None = None
    #: the reading is doubtful (several layouts fit, or the evidence's layout does not)
    doubt: str | None = None


def _enum_problem(d: RecordDef, message: dict[str, Any]) -> str | None:
    for path, allowed in d.enums:
        for value in _values_at(message, path):
            if isinstance(value, int) and value not in allowed:
                return f"{'.'.join(path)} {value} is not one of {sorted(allowed)}"
    return None


def _values_at(obj: Any, path: Sequence[str]) -> list[Any]:
    if not path:
        return [obj]
    if isinstance(obj, list):
        out: list[Any] = []
        for item in obj:
            out.extend(_values_at(item, path))
        return out
    if isinstance(obj, dict) and path[0] in obj:
        return _values_at(obj[path[0]], path[1:])
    return []


def _try(d: RecordDef, data: bytes, version: int, pos: int, exact: bool, enums: bool = True
         ) -> tuple[dict[str, Any], int, str | None]:
    """Read ``d`` at ``version``; (message, end, why it does not fit or None).  ``exact``:
    bytes left after it do not fit; ``enums``: nor do invalid enum-like values."""
    msg, end = read_message(d.schema, data, version, pos=pos)
    if exact and end != len(data):
        return msg, end, f"{len(data) - end} byte(s) left after it"
    return msg, end, _enum_problem(d, msg) if enums and d.enums else None


_Plan = tuple[tuple[RecordDef, ...], tuple[RecordDef, ...], str, str | None]
#: (family, role, type, version, evidence) -> what read_layout does with it (few entries:
#: the evidence is fixed for a run, the types and their defined versions are few)
_PLANS: dict[tuple[str, str, int, int, Evidence], _Plan] = {}


def _plan(every: tuple[RecordDef, ...], version: int, evidence: Evidence) -> _Plan:
    """(candidate layouts, those the evidence admits, why the evidence was set aside,
    the note when one layout is admitted among several candidates)."""
    candidates = tuple(d for d in every if version in d.schema.v_valid)
    admitted = tuple(d for d in candidates if evidence.admits(d))
    why_evidence = ""
    if not admitted:
        why_evidence = (f"no layout of Kafka {evidence.release}{'+' if evidence.floor else ''} "
                        f"({evidence.source}) has this version; ")
        admitted = candidates
    note = None
    if len(admitted) == 1 and len(candidates) > 1:
        note = f"{why_evidence}read as {admitted[0].label}"
        if evidence.release is not None and not why_evidence:
            note += f", by {evidence.source}"
    if len(admitted) == 1:
        unstable = unstable_note(admitted[0], version)
        if unstable:
            note = f"{note}; {unstable}" if note else unstable
    return candidates, admitted, why_evidence, note


def unstable_note(d: RecordDef, version: int) -> str | None:
    """``"... version 3 is unstable in Kafka 4.3 ..."`` when ``version`` is the highest of a
    layout whose JSON definition marks it ``latestVersionUnstable`` (None otherwise)."""
    if d.unstable_in is None or version != d.schema.v_valid.hi:
        return None
    return (f"{d.schema.name} version {version} is unstable in Kafka {d.unstable_in} (written "
            "only with unstable features enabled)")


def read_layout(
    family: str,
    role: str,
    record_type: int,
    version: int,
    data: bytes,
    pos: int = 0,
    *,
    evidence: Evidence = NO_EVIDENCE,
    exact: bool = True,
) -> LayoutRead:
    """Read one record body of ``family``/``role``/``record_type`` at ``version`` from
    ``data[pos:]``, choosing among the layouts kdump knows (see the module docstring).

    The caller has checked that some layout of the type exists and that ``version``
    is within one of them.  Never raises :class:`SchemaError` for data problems: they
    are in ``error``.
    """
    every = _BY_KEY.get((family, role, record_type), ())
    if len(every) == 1 and version in every[0].schema.v_valid and every[0].unstable_in is None \
            and (evidence.release is None or evidence.admits(every[0])):
        # the common case: one layout, nothing to choose (kept as cheap as a plain read)
        d = every[0]
        try:
            msg, end = read_message(d.schema, data, version, pos=pos)
        except SchemaError as e:
            return LayoutRead(None, None, None, pos, error=str(e))
        return LayoutRead(d, msg, to_json(d.schema.fields, msg, version), end)
    plan_key = (family, role, record_type, version, evidence)
    plan = _PLANS.get(plan_key)
    if plan is None:
        plan = _plan(every, version, evidence)
        if plan[0]:  # only versions some layout defines: garbage versions do not pile up
            _PLANS[plan_key] = plan
    candidates, admitted, why_evidence, single_note = plan
    if not candidates:
        known = ", ".join(f"{d.schema.v_valid} in {d.label}" for d in every) or "none"
        return LayoutRead(None, None, None, pos,
                          error=f"unknown version {version} (known: {known})")
    if len(admitted) == 1:
        d = admitted[0]
        try:
            # the evidence chose the layout: only bytes left over make the reading doubtful
            msg, end, problem = _try(d, data, version, pos, exact and len(candidates) > 1,
                                     enums=False)
        except SchemaError as e:
            return LayoutRead(None, None, None, pos, error=_with_layouts(str(e), d, candidates))
        doubt = None
        if problem and len(candidates) > 1:
            doubt = f"the record does not fit {d.label}: {problem}"
        return LayoutRead(d, msg, to_json(d.schema.fields, msg, version), end, single_note,
                          doubt=doubt)

    # A layout fits when it reads the record to its last byte; among those, one whose
    # enum-like values are all valid is preferred.
    fits: list[tuple[RecordDef, dict[str, Any], int, dict[str, Any]]] = []
    odd: list[tuple[RecordDef, dict[str, Any], int, str]] = []
    misfits: list[str] = []
    for d in admitted:
        try:
            msg, end, problem = _try(d, data, version, pos, exact)
        except SchemaError as e:
            misfits.append(f"{d.label}: {e}")
            continue
        if problem and (end == len(data) or not exact):
            odd.append((d, msg, end, problem))
            misfits.append(f"{d.label}: {problem}")
            continue
        if problem:
            misfits.append(f"{d.label}: {problem}")
            continue
        fits.append((d, msg, end, to_json(d.schema.fields, msg, version)))
    if not fits and odd:
        d, msg, end, problem = odd[-1]
        return LayoutRead(d, msg, to_json(d.schema.fields, msg, version), end,
                          note=f"{why_evidence}read as {d.label}",
                          doubt=f"the record fits no layout exactly; shown as {d.label}: {problem}")
    if not fits:
        return LayoutRead(None, None, None, pos,
                          error=f"{why_evidence}fits none of the layouts: {'; '.join(misfits)}")
    distinct: list[tuple[RecordDef, dict[str, Any], int, dict[str, Any]]] = []
    for fit in fits:
        if not any(fit[3] == other[3] for other in distinct):
            distinct.append(fit)
    d, msg, end, data_json = fits[-1]  # the newest layout among those that fit
    if len(distinct) == 1:
        note = None
        if misfits:
            note = f"{why_evidence}read as {d.label}, the layout that fits ({'; '.join(misfits)})"
        return LayoutRead(d, msg, data_json, end, note)
    names = ", ".join(f[0].label for f in distinct)
    return LayoutRead(d, msg, data_json, end, note=f"{why_evidence}read as {d.label}",
                      doubt=(f"ambiguous: the record fits {names} with different fields; shown "
                             f"as {d.label}, raw bytes kept; give --kafka-version to choose"))


_READ_AS = re.compile(r"read as ([^,;(]+(?:\(Kafka [^)]+\))?)")


def layout_of_note(note: str) -> str:
    """The layout a :attr:`LayoutRead.note` says a record was read with
    (``ShareSnapshotValue (Kafka 4.0)``), or the whole note when it names none."""
    m = _READ_AS.search(note)
    return m.group(1).strip() if m else note


def newer_than_release(d: RecordDef, version: int, data: dict[str, Any], evidence: Evidence
                       ) -> list[str]:
    """What a record read with ``d`` holds that the named release does not write: a
    version from a later release, or a field a later release added (present in the
    rendered ``data``).  Empty unless ``evidence`` names a release."""
    if evidence.release is None:
        return []
    rel = release_key(evidence.release)
    out: list[str] = []
    introduced = d.version_introduced(version)
    if release_key(introduced) > rel:
        return [f"{d.schema.name} version {version} is from Kafka {introduced}, newer than "
                f"{evidence.source}"]
    for path, added in d.added:
        if release_key(added) > rel and _values_at(data, path):
            out.append(f"{d.schema.name} holds {'.'.join(path)}, a field of Kafka {added}+, "
                       f"newer than {evidence.source}")
    return out


def _with_layouts(error: str, d: RecordDef, candidates: Sequence[RecordDef]) -> str:
    if len(candidates) == 1:
        return error
    return f"{error} (read as {d.label})"


# ----------------------------------------------------------------------------- evidence


#: bytes of ``__cluster_metadata`` segments :func:`evidence_for_logdir` reads at most
EVIDENCE_SCAN_BYTES = 256 << 20


def evidence_for_logdir(log_dir: str | None) -> Evidence:
    """The ``metadata.version`` release floor of a log dir (:data:`NO_EVIDENCE` when it
    holds no readable ``metadata.version``, or only a 3.x one), or, for a ZooKeeper-era
    log dir (:func:`zookeeper_era`), Kafka 3.9 (the last release with ZooKeeper mode).

    Reads the ``FeatureLevelRecord`` records of ``__cluster_metadata-0`` (the newest
    snapshot, which holds the image, then the segments from the one holding the
    snapshot's offset on; the last record wins), else those of ``bootstrap.checkpoint``.
    At most :data:`EVIDENCE_SCAN_BYTES` of segments are read (the newest ones).
    Unreadable parts are skipped: evidence is best effort, never an error.
    """
    if not log_dir:
        return NO_EVIDENCE
    from kdump import fs as kfs
    from kdump.errors import KdumpError

    def join(name: str) -> str:  # URLs (s3://...) keep their double slash
        return f"{log_dir.rstrip('/')}/{name}" if kfs.is_url(log_dir) else \
            os.path.normpath(os.path.join(log_dir, name))

    meta_dir = join("__cluster_metadata-0")
    files: list[str] = []
    try:
        if kfs.isdir(meta_dir):
            names = sorted(kfs.Listing().listdir(meta_dir) if kfs.is_url(meta_dir)
                           else kfs.listdir(meta_dir))
            snaps = [n for n in names if n.endswith(".checkpoint") and n[:20].isdigit()]
            logs = [n for n in names if n.endswith(".log") and n[:20].isdigit()]
            if snaps:  # segments from the one holding the snapshot's offset on
                start = int(snaps[-1][:20])
                first = max([i for i, n in enumerate(logs) if int(n[:20]) <= start], default=0)
                logs = logs[first:]
            budget = EVIDENCE_SCAN_BYTES
            kept: list[str] = []
            for n in reversed(logs):  # the newest segments, within the budget
                budget -= kfs.getsize(f"{meta_dir}/{n}")
                if budget < 0 and kept:
                    break
                kept.insert(0, n)
            files = [f"{meta_dir}/{n}" for n in (*snaps[-1:], *kept)]
        boot = join("bootstrap.checkpoint")
        if not files and kfs.exists(boot):
            files = [boot]
        if not files and not kfs.isdir(meta_dir):
            return zookeeper_era(join("meta.properties"))
    except (OSError, KdumpError):
        return NO_EVIDENCE
    level: int | None = None
    where = ""
    for path in files:
        try:
            found = metadata_version_in(path)
        except (OSError, KdumpError, SchemaError):
            continue
        if found is not None:
            level, where = found, path
    if level is None:
        return NO_EVIDENCE
    rel = release_of_metadata_version(level)
    if rel is None:
        if level > max(METADATA_VERSION_RELEASES):
            newest = METADATA_VERSION_RELEASES[max(METADATA_VERSION_RELEASES)][0]
            return Evidence(newest, True, f"metadata.version {level} in {where}")
        return NO_EVIDENCE
    return Evidence(rel[0], True, f"metadata.version {level} ({rel[1]}) in {where}")


#: the last Kafka release with ZooKeeper mode (4.0 removed it, KIP-500)
LAST_ZOOKEEPER_RELEASE = "3.9"


def zookeeper_era(meta_properties: str) -> Evidence:
    """Kafka 3.9 (:data:`LAST_ZOOKEEPER_RELEASE`, exact for the layouts: kdump reads no
    older release) when a log dir's ``meta.properties`` is a ZooKeeper-mode broker's:
    ``version`` 0 (or none: ``MetaProperties`` reads a missing version as 0) and no
    ``directory.id``.  KRaft brokers write ``version=1`` (``MetaPropertiesVersion.V1``,
    3.x-4.x), and ``directory.id`` into every log dir they start on
    (``KafkaRaftServer.initializeLogDirs``, 3.7+); a ZooKeeper-mode broker writes
    ``directory.id`` only while migrating to KRaft (``KafkaServer``, 3.7-3.9), when its
    records may already be read by a 4.x broker.  :data:`NO_EVIDENCE` otherwise (no
    file, an unreadable one).  The caller has found neither ``__cluster_metadata-0`` nor
    ``bootstrap.checkpoint`` in the log dir: a KRaft broker's log dir holds one of them
    unless it is one of several log dirs (then ``directory.id`` says KRaft)."""
    from kdump import fs as kfs
    from kdump.errors import KdumpError
    from kdump.files.text import read_properties
    from kdump.source import FileSource

    try:
        if not kfs.isfile(meta_properties):
            return NO_EVIDENCE
        with FileSource(meta_properties) as src:
            props = read_properties(src)
    except (OSError, KdumpError):
        return NO_EVIDENCE
    version = (props.get("version") or "0").strip()
    if version != "0" or props.get("directory.id"):
        return NO_EVIDENCE
    return Evidence(LAST_ZOOKEEPER_RELEASE, False,
                    f"a ZooKeeper-era log dir ({meta_properties}: version=0, no directory.id; "
                    "no __cluster_metadata-0): Kafka 3.9 at the latest")


def metadata_version_in(path: str) -> int | None:
    """The level of the last ``metadata.version`` FeatureLevelRecord of one file (a
    segment, a snapshot, ``bootstrap.checkpoint``); OSError, KdumpError or SchemaError
    when it cannot be read."""
    from kdump.records.file_records import LogReader
    from kdump.records.v2 import RecordBatch
    from kdump.source import FileSource

    level: int | None = None
    with FileSource(path) as src:
        for item in LogReader(src):
            if not isinstance(item, RecordBatch) or item.is_control:
                continue
            for rec in item.records():
                value = rec.value
                # frame version 1, api key 12 (FeatureLevelRecord), version 0: 3 one-byte varints
                if value is None or len(value) < 4 or value[0] != 1 or value[1] != 12 or value[2] != 0:
                    continue
                msg, _ = read_message(_FEATURE_LEVEL.schema, bytes(value), 0, pos=3)
                if msg.get("name") == "metadata.version":
                    level = int(msg["featureLevel"])
    return level


_FEATURE_LEVEL = layouts("metadata", "record", 12)[0]


# ------------------------------------------------------------------ one path for every command


#: the internal decoders whose layouts a log dir's ``metadata.version`` chooses among
#: (``cluster-metadata`` reads the release only when the user names it)
BY_METADATA_VERSION = frozenset({"offsets", "share-group-state", "transaction-log"})


def log_dir_of(path: str, in_partition_dir: bool) -> str:
    """The log dir of a file (``in_partition_dir``: under a partition directory) or, with
    ``in_partition_dir`` False, of a partition directory or a log dir's own file."""
    if in_partition_dir:
        path = os.path.dirname(path.rstrip("/"))
    return os.path.dirname(path.rstrip("/")) or "."
