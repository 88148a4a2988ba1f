"""A command's walk turned into verdicts, as it goes (:class:`LostTracker`).

verify-crc streams: it gives each log's findings as it reads them, so a partition's
verdict is made when the walk leaves its directory, from what the scan already told
(the offsets each log's batches hold, the gaps between them, its judged tails); the log
dirs given are judged at the end (:mod:`kdump.ops.verdict.logdir`).  verify-index and
size-report read a partition as one job and hand it over whole (:meth:`partition`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ... import fs as kfs
from ...findings import Problem
from .cleanup import CleanupPolicies
from .logdir import LogDirVerdict, judge_log_dir, live_partition_dirs, log_dirs_of
from .partition import PartitionVerdict, Tail, held_pieces, judge_partition
from .witnesses import LostRange, PartitionWitnesses


def _isdir(p: str) -> bool:
    try:
        return kfs.isdir(p)
    except OSError:
        return False


class LostTracker:
    """Follows a command's walk, in walk order, one partition directory at a time: it is
    told each log's offsets (:meth:`held`), its judged tail (:meth:`tail`) and each file
    met (:meth:`enter`); when the walk leaves a partition directory, :meth:`enter` (or
    :meth:`finish`) gives that partition's verdict's findings
    (:meth:`PartitionVerdict.findings`), and :meth:`finish` those of each log dir given
    (:class:`LogDirVerdict`: partitions its checkpoints name with no directory).  Only a
    partition directory read whole is judged: one inside a directory given (a segment
    given alone says nothing of the segments not given)."""

    def __init__(self, inputs: Iterable[str], policies: CleanupPolicies | None = None) -> None:
        inputs = list(inputs)
        # local inputs only: in an object store every witness is another request
        # (verify-crc reads a remote log dir in one listing and a read per log)
        self.roots = [kfs.abspath(p).rstrip("/") for p in inputs
                      if not kfs.is_url(p) and _isdir(p)]
        self.inputs = [p for p in inputs if not kfs.is_url(p)]
        self._spoiled = False
        self.policies = policies
        self._dir: str | None = None
        self._held: list[tuple[int, int]] = []
        self._tails: list[Tail] = []
        self._logdirs_done = False
        #: partition directories the walk met (judged, or not: a read failed there)
        self._seen: set[str] = set()
        #: every partition's witnesses and lost ranges, as judged (size-report, report)
        self.judged: dict[str, tuple[PartitionWitnesses, list[LostRange]]] = {}
        #: every partition's verdict, by directory
        self.verdicts: dict[str, PartitionVerdict] = {}
        #: every log dir's verdict, by log dir (after :meth:`finish`)
        self.log_dirs: dict[str, LogDirVerdict] = {}

    def _whole(self, directory: str) -> bool:
        return any(directory == r or directory.startswith(r + "/") for r in self.roots)

    def enter(self, path: str) -> list[Problem]:
        """A file of the walk (any kind): the findings of the partition it leaves."""
        d = kfs.dirname(kfs.abspath(path))
        if d == self._dir:
            return []
        out = self._judge()
        self._dir, self._held, self._tails, self._spoiled = d, [], [], False
        return out

    def unreadable(self, path: str) -> None:
        """A file of the partition could not be read (an I/O error): what it holds is
        unknown, so nothing is judged lost there (the read error is the finding)."""
        self.enter(path)
        self._spoiled = True

    def held(self, path: str, first: int | None, last: int | None,
             gaps: Iterable[tuple[int, int]] = ()) -> None:
        """A log's batches hold offsets ``first``..``last`` (None: none framed) but the
        ``gaps`` between them."""
        self.enter(path)
        self._held += held_pieces(first, last, gaps)

    def tail(self, p: Problem, active: bool) -> None:
        """A log's tail finding, as judged (:func:`kdump.ops.verdict.tail.judge_tail`):
        the range it names lost is not named again."""
        self.enter(p.path)
        t = Tail.of(p, active)
        if t is not None:
            self._tails.append(t)

    def partition(self, directory: str, held: Iterable[tuple[int, int]],
                  tails: Iterable[Tail] = ()) -> list[Problem]:
        """A whole partition at once (a command that reads a partition as one job): the
        findings of the one before it, if any, and this one's."""
        out = self._close()
        self._dir = kfs.abspath(directory)
        self._held = list(held)
        self._tails = list(tails)
        return out + self._close()

    def partition_unreadable(self, directory: str) -> list[Problem]:
        """:meth:`partition` of a partition a read failed in: nothing judged."""
        out = self._close()
        self._dir, self._spoiled = kfs.abspath(directory), True
        return out + self._close()

    def _close(self) -> list[Problem]:
        out = self._judge()
        self._dir, self._held, self._tails, self._spoiled = None, [], [], False
        return out

    def finish(self) -> list[Problem]:
        """The last partition's findings, then (once) each log dir's given."""
        out = self._close()
        if not self._logdirs_done:
            self._logdirs_done = True
            out += self.log_dir_findings()
        return out

    @classmethod
    def for_log_dirs(cls, inputs: Iterable[str], max_batch_bytes: int | None = None
                     ) -> LostTracker:
        """A tracker of ``inputs`` with the KRaft metadata among them read (only when a
        log dir is given, whose verdict it judges): for a command given no --config
        (dump), so that its log dirs' verdicts are every command's."""
        inputs = list(inputs)
        policies = CleanupPolicies.for_inputs(inputs, (), max_batch_bytes) \
            if log_dirs_of(inputs) else None
        return cls(inputs, policies)

    def missing_partitions(self) -> list[Problem]:
        """Each log dir given, its partitions named by its checkpoints with no directory
        and those its KRaft metadata assigns here and absent (:class:`LogDirVerdict`):
        for a command that judges no partition it reads (dump)."""
        dirs = log_dirs_of(self.inputs)
        meta = self.policies.metadata if self.policies is not None else None
        out: list[Problem] = []
        for d in dirs:
            v = judge_log_dir(d, [o for o in dirs if o != d], metadata=meta)
            self.log_dirs[d] = v
            out += v.findings()
        return out

    def log_dir_findings(self) -> list[Problem]:
        """Each log dir given: the partitions its checkpoints name with no directory."""
        dirs = log_dirs_of(self.inputs)
        out: list[Problem] = []
        meta = self.policies.metadata if self.policies is not None else None
        for d in dirs:
            v = judge_log_dir(d, [o for o in dirs if o != d], metadata=meta)
            self.log_dirs[d] = v
            out += v.findings()
            out += self._unwalked(d)
        return out

    def _unwalked(self, log_dir: str) -> list[Problem]:
        """The partition directories of ``log_dir`` the walk met no file in (every
        segment and index gone): judged with no batch, as a directory gone is."""
        out: list[Problem] = []
        for d in live_partition_dirs(log_dir):
            if d in self._seen:
                continue
            self._seen.add(d)
            v = judge_partition(d, (), (), policies=self.policies)
            if v is not None and v.source is not None:
                self.verdicts[d] = v
                self.judged[d] = (v.source, list(v.lost))
                out += v.findings()
        return out

    def _judge(self) -> list[Problem]:
        d = self._dir
        if d is not None:
            self._seen.add(d)
        if d is None or self._spoiled or not self._whole(d):
            return []
        v = judge_partition(d, self._held, self._tails, policies=self.policies)
        if v is None or v.source is None:
            return []
        self.verdicts[d] = v
        self.judged[d] = (v.source, list(v.lost))
        return v.findings()


__all__ = ["LostTracker"]
