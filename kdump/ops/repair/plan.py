"""What ``kdump repair`` reads and where each copy goes, checked before anything is read
or written.

An input is a partition directory (``<topic>-<partition>``, or a ``-future``/``-stray``
one) or a log dir (it holds partition directories or a log dir's root files).  One log
dir alone is mirrored as DIR itself (DIR is then a log dir a broker can be pointed at);
with several inputs, a log dir goes to ``DIR/<broker-N or its name>`` and a partition to
``DIR/<partition directory name>``, so two replicas are never merged.  DIR must be
absent or empty, outside every input (symlinks resolved) and outside the broker log dir
holding a partition input (one with meta.properties, checkpoints or the lock): the
evidence gains no file, not even an empty directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...errors import UsageError
from ...files.logdir import (
    PartitionDir,
    broker_label,
    looks_like_logdir,
    not_data,
    parse_partition_dir,
)
from ...output import Staged, inside, is_broker_log_dir, safe_name
from ..verdict import AbsentReplica, MissingPartition, judge_log_dir


@dataclass(slots=True)
class PartitionInput:
    """A partition directory to copy."""

    path: str
    #: its copy, relative to DIR
    target: str
    name: PartitionDir
    #: the log dir holding it (a partition given alone: its parent when that looks like a
    #: log dir, read for what Kafka would do with it; never written)
    log_dir: str | None
    #: part of a log dir input: the log dir's checkpoints are rewritten for it
    in_logdir: bool = False
    #: the directory is gone while the log dir's checkpoints name it (a
    #: :class:`kdump.ops.verdict.MissingPartition`: its lost range and witnesses)
    missing: MissingPartition | None = None
    #: a replica the KRaft metadata assigns here with no directory, offsets proved written
    #: on it (:class:`kdump.ops.verdict.AbsentReplica` with ``written``): ``missing`` then
    #: holds that range, and the copy recreates it as for a gone directory
    absent: AbsentReplica | None = None


@dataclass(slots=True)
class LogDirInput:
    """A log dir to mirror."""

    path: str
    #: its copy, relative to DIR ("" for DIR itself)
    target: str
    partitions: list[PartitionInput] = field(default_factory=list)
    #: files at its root
    root_files: list[str] = field(default_factory=list)
    #: entries not copied: (path, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: replicas the KRaft metadata assigns to its broker with no directory here (the log
    #: dir's verdict, ``assigned-absent``): named in the manifest, no directory made
    absent: list[AbsentReplica] = field(default_factory=list)


@dataclass(slots=True)
class RepairPlan:
    into: str
    logdirs: list[LogDirInput] = field(default_factory=list)
    #: partitions given on their own
    partitions: list[PartitionInput] = field(default_factory=list)

    def all_partitions(self) -> list[PartitionInput]:
        return [p for d in self.logdirs for p in d.partitions] + self.partitions


def is_partition_dir(path: str) -> PartitionDir | None:
    part = parse_partition_dir(os.path.basename(os.path.normpath(path)))
    if part is None or looks_like_logdir(path):
        return None
    return part


def parent_logdir(path: str) -> str | None:
    parent = os.path.dirname(os.path.abspath(path))
    return parent if looks_like_logdir(parent) else None


def _broker_logdir(path: str) -> bool:
    """Does ``path`` hold a log dir's own files (meta.properties, a checkpoint, the
    clean-shutdown marker, the lock)?"""
    return is_broker_log_dir(path)


def check_into(into: str, inputs: list[str]) -> None:
    """DIR absent or empty, and outside every input and every partition input's log dir
    (symlinks resolved).  Raises :class:`UsageError` saying which."""
    if os.path.lexists(into):
        if not os.path.isdir(into):
            raise UsageError(f"--into {into} exists and is not a directory")
        try:
            entries = os.listdir(into)
        except OSError as e:
            raise UsageError(f"--into {into}: {e.strerror}") from None
        if entries:
            raise UsageError(f"--into {into} is not empty: kdump repair writes only into an "
                             "absent or empty directory")
    real_out = os.path.realpath(into)
    protected: list[tuple[str, str]] = []
    for p in inputs:
        real = os.path.realpath(p)
        protected.append((real, p))
        if is_partition_dir(p) is not None and _broker_logdir(os.path.dirname(real)):
            # a directory added to a broker's log dir is one the broker tries to load
            # (LogManager.loadLogs parses every directory name as <topic>-<partition>)
            protected.append((os.path.dirname(real), f"{p}'s log dir"))
    for real, shown in protected:
        if inside(real_out, [real]) is not None:
            raise UsageError(f"--into {into} resolves to {real_out}, inside {shown} ({real}): the "
                             "copy is never written into the evidence; choose a directory "
                             "outside it")
    # the rest as every writer checks its target (kdump/output.py): a mount point cannot
    # take the rename that publishes the copy
    Staged(into, kind="dir", option="--into").check_target()


def plan_repair(paths: list[str], into: str, metadata: Any = None,
                replicas: list[str] | None = None) -> RepairPlan:
    """Classify the inputs and place their copies; :class:`UsageError` for an input that
    is neither a partition directory nor a log dir, two inputs whose copies would meet,
    or a DIR :func:`check_into` refuses.  ``metadata``: the KRaft metadata among the
    inputs (a :class:`kdump.ops.topics.config.MetadataConfigs`: its partition
    assignments say whether a partition the checkpoints name with no directory was
    deleted or moved away, rather than lost; the replicas it assigns to a log dir's
    broker with no directory there are :class:`kdump.ops.verdict.AbsentReplica`).
    ``replicas``: the ``--replica`` log dirs, evidence for that verdict too (another
    broker's replica holding batches of an epoch this broker leads proves them written
    here)."""
    if not paths:
        raise UsageError("no input given")
    for p in paths:
        if "://" in p:
            raise UsageError(f"{p}: kdump repair reads local directories only")
        if not os.path.exists(p):
            raise UsageError(f"{p}: no such file or directory")
        if not os.path.isdir(p):
            raise UsageError(f"{p} is a file: give its partition directory (or the log dir)")
    seen: dict[str, str] = {}
    for p in paths:
        real = os.path.realpath(p)
        for other, shown in seen.items():
            if inside(real, [other]) or inside(other, [real]):
                raise UsageError(f"{p} and {shown} overlap: give each partition or log dir once")
        seen[real] = p
    check_into(into, paths)
    plan = RepairPlan(into)
    logdir_paths = [p for p in paths if is_partition_dir(p) is None]
    alone = len(paths) == 1 and len(logdir_paths) == 1
    labels: set[str] = set()
    targets: dict[str, str] = {}

    def claim(target: str, p: str) -> str:
        if target in targets:
            raise UsageError(f"{p} and {targets[target]} would both be copied to "
                             f"{os.path.join(into, target)}: repair them into separate "
                             "directories (replicas are never merged)")
        targets[target] = p
        return target

    for p in paths:
        part = is_partition_dir(p)
        if part is not None:
            name = safe_name(os.path.basename(os.path.normpath(p)))
            plan.partitions.append(PartitionInput(p, claim(name, p), part, parent_logdir(p)))
            continue
        if not _has_kafka(p):
            raise UsageError(f"{p} is neither a partition directory (<topic>-<partition>) nor "
                             "a log dir (no partition directories or log-dir files in it)")
        if alone:
            target = ""
        else:
            base = broker_label(os.path.realpath(p))
            target, n = base, 2
            while target in labels:
                target, n = f"{base}-{n}", n + 1
            labels.add(target)
            claim(target, p)
        plan.logdirs.append(_logdir(p, target, [*logdir_paths, *(replicas or [])], metadata))
    return plan


def _has_kafka(path: str) -> bool:
    try:
        names = os.listdir(path)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    return looks_like_logdir(path) or any(
        parse_partition_dir(n) is not None and os.path.isdir(os.path.join(path, n)) for n in names)


def _logdir(path: str, target: str, others: list[str], metadata: Any = None) -> LogDirInput:
    """A log dir's partitions (by topic and partition, as Kafka's walk orders them) and
    root files; what is not copied, and why.  A partition its checkpoints name whose
    directory is gone (and that Kafka's own work does not explain:
    :func:`kdump.ops.verdict.judge_log_dir`, ``others`` the other log dirs given) is a
    partition to repair too: its offsets were written and are lost."""
    ld = LogDirInput(path, target)
    try:
        names = sorted(os.listdir(path))
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    parts: list[tuple[tuple[str, int, str], PartitionInput]] = []
    for name in names:
        full = os.path.join(path, name)
        if os.path.isdir(full):
            part = parse_partition_dir(name)
            if part is None or looks_like_logdir(full):
                ld.skipped.append((full, not_data(name) or
                                   "not a partition directory (Kafka's loader skips it or "
                                   "refuses to start)"))
                continue
            if part.state == "delete":
                ld.skipped.append((full, "a partition directory scheduled for deletion (-delete): "
                                         "the broker deletes it at startup (LogManager.loadLog)"))
                continue
            rel = safe_name(name) if not target else os.path.join(target, safe_name(name))
            parts.append(((part.topic, part.partition, part.state or ""),
                          PartitionInput(full, rel, part, path, in_logdir=True)))
        elif os.path.isfile(full):
            ld.root_files.append(full)
        else:
            ld.skipped.append((full, "not a regular file or directory"))
    verdict = judge_log_dir(path, [o for o in others if o != path], metadata=metadata)
    ld.absent = list(verdict.absent)
    for m in verdict.missing:
        name = f"{m.topic}-{m.partition}"
        part = parse_partition_dir(name)
        if m.explained is not None:
            ld.skipped.append((m.directory, "named by the log dir's checkpoints, with no "
                               f"directory here: {m.explained}; its entries are not carried "
                               "into the copy's checkpoints (a broker writes none for a log it "
                               "does not hold)"))
        if not m.data_lost or part is None:
            continue
        rel = safe_name(name) if not target else os.path.join(target, safe_name(name))
        parts.append(((m.topic, m.partition, ""),
                      PartitionInput(m.directory, rel, part, path, in_logdir=True, missing=m)))
    parts += [((pin.name.topic, pin.name.partition, ""), pin)
              for pin in recreated_absent(path, verdict.absent, target)]
    ld.partitions = [p for _, p in sorted(parts, key=lambda x: x[0])]
    return ld


def recreated_absent(path: str, absent: Iterable[AbsentReplica], target: str = ""
                     ) -> list[PartitionInput]:
    """The replicas of the log dir ``path`` the KRaft metadata assigns here with no
    directory and offsets proved written on them (this broker led the epoch another
    replica holds batches of), as partitions to recreate as a gone directory is, from
    the proved range, so that they are never handed out again and --replica may fill
    them (``target``: the log dir's place in the copy); the others get no directory."""
    out: list[PartitionInput] = []
    for a in absent:
        part = parse_partition_dir(f"{a.topic}-{a.partition}")
        if a.written is None or part is None:
            continue
        r = a.written
        m = MissingPartition(path, a.topic, a.partition, a.directory, r.first, r.last + 1,
                             r.witnesses, r)
        name = safe_name(f"{a.topic}-{a.partition}")
        rel = name if not target else os.path.join(target, name)
        out.append(PartitionInput(a.directory, rel, part, path, in_logdir=True, missing=m,
                                  absent=a))
    return out


__all__ = ["LogDirInput", "PartitionInput", "RepairPlan", "check_into", "plan_repair",
           "recreated_absent"]
