"""``kdump repair``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import SIZE, format_option, max_batch_bytes_option, renderer, run


@click.command("repair")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--into", "into", required=True, type=click.Path(file_okay=False),
              help="Where the copy goes: an absent or empty directory outside every input. "
              "One log dir alone is copied as DIR itself; otherwise each log dir goes to "
              "DIR/<broker-N or its name> and each partition to DIR/<its directory name>.")
@click.option("--dry-run", is_flag=True,
              help="Read everything and print the manifest (what would be kept, dropped and "
              "written, with the SHA-256 of every file it would write); write nothing.")
@click.option("--index-interval-bytes", type=SIZE, default=None,
              help="The topics' index.interval.bytes for the rebuilt indexes.  Default: "
              "inferred per partition from its .index files (4096, Kafka's default, when "
              "they allow it, else the value that reproduces them), else 4096.")
@click.option("--replica", "replicas", multiple=True, type=click.Path(file_okay=False),
              help="Another broker's log dir (repeatable): each range the repair drops is "
              "filled byte for byte from the first replica that agrees around it (the batches "
              "either side the same bytes, the same leader epochs, checksums intact).  Its "
              "meta.properties must name the input's cluster.id and another node.id; read "
              "only, hashed in the manifest.")
@format_option()
@max_batch_bytes_option
def repair_command(paths: tuple[str, ...], into: str, dry_run: bool,
                   index_interval_bytes: int | None, replicas: tuple[str, ...],
                   fmt: str | None, max_batch_bytes: int) -> ExitCode:
    """Copy damaged partitions or log dirs into DIR so that a broker loads them, keeping
    every intact batch byte for byte, also past the damage.

    PATHS are partition directories or log dirs; they are only read, never written (not
    even their access times).  Every batch whose framing and checksum hold (v2, and v0/v1
    messages) is copied as it is, with no re-encoding, in offset order, gaps kept; damaged
    stretches (a bad checksum, garbage, zeroed pages, a corrupt length field, a torn tail)
    are left out and named (file, byte, length, the offsets its header names, why), and
    reading resumes at the next intact batch.  Of two copies of the same offsets
    (overlapping segments) the first intact one is kept and the other named.

    When to use it: the broker will not start, or its own recovery would truncate the
    partition at the first bad batch (LogSegment.recover) and delete every later segment,
    and this copy is the best one left.  When a healthy replica exists, let Kafka
    truncate and fetch from it instead: a replica never fetches offsets below its log end
    again, so what the repair cannot keep stays missing there.  It cannot recover the
    records under a bad checksum, nor a batch whose header is gone.

    What the copy holds (from Kafka 4.1's source, 3.9-4.3 alike): segments named by base
    offset, their .index/.timeindex/.txnindex as LogSegment.recover writes them (the
    topic's index.interval.bytes inferred from the input's indexes), leader-epoch-checkpoint
    rebuilt from the kept batches, partition.metadata, quorum-state, meta.properties and
    intact KRaft snapshots copied.  A producer snapshot is copied only when no batch below
    its offset was dropped; otherwise the broker rebuilds producer state from the log
    (UnifiedLog.rebuildProducerState).  No .kafka_cleanshutdown is written: the broker
    then re-reads the copy's last segments and replays producer state, where the marker
    would make it start with empty producer state.  recovery-point-offset-checkpoint is
    each partition's new log end; the high watermark (replication-offset-checkpoint),
    log-start-offset-checkpoint and cleaner-offset-checkpoint are kept, lowered to the new
    log end where they were above it (never raised: a high watermark above the copy's end
    would call unwritten offsets committed, a log start above it makes LogLoader delete
    every segment).

    The manifest (--format json: JSON Lines on stdout; also DIR/kdump-repair-manifest.jsonl)
    lists every input's SHA-256 before and after, every output's SHA-256, every region
    dropped, per partition the batches and records kept, and what Kafka's own recovery
    would have truncated instead (the batches, records and bytes the copy saves).  The copy
    is written in .kdump-staging-<DIR's name>-<pid>.incomplete beside DIR and renamed onto
    DIR when whole, manifest and all: DIR holds nothing, then the complete copy.  A
    filesystem with less free space than what the inputs hold on disk (allocated, not
    apparent: preallocated sparse indexes count what they hold) is refused before writing.  A
    full disk, an error, Ctrl-C, SIGTERM or SIGHUP removes the partial copy and leaves DIR
    as it was; after a kill -9 the next run clears the dead run's staging area and says
    so.  --dry-run writes nothing.

    Offsets are never handed out twice: where the partition's witnesses (the log dir's
    checkpoints, index entries, leader epochs, snapshot and segment names) prove offsets
    written that no kept batch holds (a torn tail below the high
    watermark, a .log gone), the copy ends with an empty active segment named one past the
    highest of them, so the broker's next offset lies above every offset ever written
    (reserved_offsets, with the witnesses, in the manifest).  A partition whose .log is
    gone comes out as an empty log from its old log start to its old end offset, never
    restarted at 0; so does a partition directory gone while the log dir's checkpoints
    name it, when its topic id is known (the KRaft metadata among the inputs, another
    partition.metadata of the topic): without one a KRaft broker takes the log for a
    stray and starts it at 0 (LogManager.isStrayKraftReplica), so it is not recreated and
    the manifest says why.  Every range the copy lacks that was written (a dropped
    region's gap, the reserved offsets, a segment gone from the middle, a gap between
    batches of a delete-policy topic) is in lost_offsets, and data_lost is true exactly
    then; verify-crc and verify-index on the copy name the same ranges.  A batch in
    flight at the end of the active segment, past every witness, is not damage (info).

    A replica the KRaft metadata assigns to a log dir's broker with no directory there is
    named (repair_absent: the verdict's kind, severity and words, as verify-crc says them)
    and given no directory: a KRaft broker creates the log when it applies the assignment
    (ReplicaManager.applyDelta -> LogManager.getOrCreateLog) and a follower fetches it
    from the leader, so nothing is taken from --replica for it.  Where another replica
    given holds batches of the leader epoch this broker leads, those offsets were written
    here: the replica is recreated over them, as a gone directory is, and --replica fills
    them.

    With --replica LOGDIR (another broker of the same cluster), each dropped range (and the
    offsets of a segment or a partition directory gone) is filled from that
    broker's copy of the partition, batch by batch and byte for byte, where the two
    replicas agree around it: the batches either side of the gap the same
    bytes on both, every filled batch's checksum intact and its leader epoch the one both
    leader-epoch checkpoints give it.  Where they disagree (a diverged history) nothing is
    filled and the manifest says why (repair_fill).  A replica of another cluster
    (cluster.id) or of the input's own node is refused (exit 2).

    Exit 0 when nothing had to be dropped and nothing is lost (zeros preallocated or a
    batch in flight at the end of an active segment aside), 1 when damage was found and
    repaired around or a replica assigned here is absent with a warning, 2 on a usage or
    I/O error,
    130 / 143 / 129 on SIGINT / SIGTERM / SIGHUP.
    """
    from ..ops.repair import Repair, RepairOptions

    opts = RepairOptions(into=into, dry_run=dry_run, max_batch_bytes=max_batch_bytes,
                         index_interval_bytes=index_interval_bytes, replicas=list(replicas))
    job = Repair(list(paths), opts)
    try:
        code = run(job, renderer("repair", fmt), progress=paths, label="repair")
    finally:
        job.close()
    if code != ExitCode.OK:
        return code
    # the operation's verdict (Repair.clean), not a reading of its objects: 1 when damage
    # was repaired around, or when the run did not end
    return ExitCode.OK if job.clean else ExitCode.PROBLEMS
