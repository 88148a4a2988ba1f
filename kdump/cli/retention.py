"""``kdump retention``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import KafkaVersionParam, format_option, max_batch_bytes_option, renderer, run


def _now(text: str | None) -> int | None:
    if text is None:
        return None
    from ..errors import UsageError
    from ..timestamps import parse_timestamp

    try:
        return parse_timestamp(text, "--now")
    except UsageError as e:
        raise UsageError(f"--now {text[:40]!r}: {e.message}") from None


@click.command("retention")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--now", "now", metavar="TIME", default=None,
              help="The time to judge at: epoch milliseconds or ISO-8601 "
              "(2024-05-01T09:14:00Z).  Default: the clock.  The output says which.")
@click.option("--server-properties", "server_properties", multiple=True, metavar="FILE",
              type=click.Path(),
              help="The brokers' server.properties (log.retention.*, log.cleanup.policy, "
              "log.segment.bytes, log.roll.*, log.cleaner.*, log.local.retention.*, "
              "remote.log.storage.system.enable).  Repeatable: a file naming a node.id or "
              "broker.id applies to that broker's log dirs, one naming none to the others.")
@click.option("--config", "overrides", multiple=True, metavar="TOPIC:KEY=VALUE",
              help="A topic config, above every other source (e.g. "
              "orders:retention.ms=86400000): what kafka-configs --describe shows when the "
              "inputs hold no KRaft metadata, or a what-if.  Repeatable.")
@click.option("--kafka-version", "kafka_version", type=KafkaVersionParam(retention=True), default=None,
              help="Whose rules: 3.x (any 3.x: the same walk) or 4.0-4.3 (4.2+: an empty "
              "cleanup.policy with remote storage applies local retention).  Default: the "
              "metadata.version of the KRaft log or a bootstrap.checkpoint among the inputs; "
              "3.9 for a ZooKeeper-era log dir (meta.properties version=0 and no "
              "directory.id); else 4.3.  The output says which and why.")
@format_option()
@max_batch_bytes_option
def retention_command(paths: tuple[str, ...], now: str | None,
                      server_properties: tuple[str, ...], overrides: tuple[str, ...],
                      kafka_version: str | None, fmt: str | None,
                      max_batch_bytes: int) -> ExitCode:
    """Why is the disk not freed?  What the broker deletes at its next retention check,
    and what holds each other segment back.

    For every partition replica under PATHS (one or several brokers' log dirs, kept
    apart), each segment is judged as UnifiedLog.deleteOldSegments would judge it: the
    log-start-offset, retention.bytes and retention.ms rules, walking from the oldest
    segment and stopping at the first one kept, never at or past the high watermark
    (replication-offset-checkpoint; the log end offset when none, and said), nothing but
    the log-start-offset rule under cleanup.policy=compact.  A segment's time is its
    largest timestamp (the time index's last entry, the batches, or the file's mtime when
    no batch has one).  Each kept segment says why (high-watermark, future-timestamp,
    within-retention, pinned, compact-policy, not-copied-to-remote ...) and from when it
    goes, or that nothing but a change lets it go; a batch stamped in the future that
    holds segments back is named (file, position, offset, timestamp, producer id).

    Compacted partitions get the cleaner's view: dirty ratio from cleaner-offset-checkpoint
    against min.cleanable.dirty.ratio, the first uncleanable offset (active segment, open
    transactions, min.compaction.lag.ms), max.compaction.lag.ms, tombstones and markers by
    delete horizon, and what the files say of a cleaner that never ran.  Totals per
    partition, topic and log dir: bytes deletable now, within 24 hours and 7 days, and
    bytes held by each reason.  With __remote_log_metadata among the inputs, tiered
    topics' local retention is judged against the highest offset copied.

    Bytes no retention rule frees are counted apart, with what the broker does with them:
    partition directories renamed -delete (removed file.delete.delay.ms after the rename
    or the broker's next start), -future (an AlterReplicaLogDirs move: the bytes twice
    until it completes) and -stray (kept: no release up to 4.3 deletes them), and leftover
    .deleted, .cleaned, .swap and .tmp files.  For a log dir among (or under) PATHS,
    every file is put in one place so that its bytes add up: judged segments + leftovers +
    renamed directories + the rest (checkpoints, producer snapshots, indexes without a
    segment ...).

    Configs resolve as the broker resolves them: --config, the topic's ConfigRecords
    (KRaft metadata among the inputs), the broker's and the cluster's dynamic configs,
    server.properties, Kafka's defaults; each value says where it came from.  Exit 0 when
    the verdicts are given, 1 when the data holds a problem (a batch stamped later than
    the time judged at, damage met while reading), 2 for bad input (an unparseable
    server.properties line, an unknown key, a value Kafka would refuse, a --now that is
    not a time) or an unreadable input.
    """
    from ..ops.retention import RetentionOptions, check_options, retention

    opts = RetentionOptions(now=_now(now), server_properties=server_properties,
                            overrides=overrides, kafka_version=kafka_version,
                            max_batch_bytes=max_batch_bytes)
    inputs = check_options(opts)  # a bad option is one line and exit 2, before any output
    return run(retention(paths, opts, inputs), renderer("retention", fmt), progress=paths,
               label="retention")
