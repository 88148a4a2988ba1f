"""``kdump lag``: consumer lag from several brokers' log dirs at once."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import (
    format_option,
    kafka_version_option,
    max_batch_bytes_option,
    renderer,
    run,
)


@click.command("lag")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--group", "groups", multiple=True, metavar="GROUP",
              help="Only this consumer group (repeatable).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Only this topic (repeatable; a share-partition's topic may be given by its id).")
@format_option()
@max_batch_bytes_option
@kafka_version_option
def lag_command(paths: tuple[str, ...], groups: tuple[str, ...], topics: tuple[str, ...],
                fmt: str | None, max_batch_bytes: int, kafka_version: str | None) -> ExitCode:
    """Consumer lag from log dirs, with no broker.

    Replays the __consumer_offsets partitions found under PATHS (any broker's log dirs)
    as the group coordinator loads them (tombstones delete a commit; transactional
    commits count at their COMMIT marker, never after an ABORT) and joins each group's
    last committed offset with the log end offset of that topic-partition found under
    PATHS, and with the high watermark of replication-offset-checkpoint when a log dir
    has one (the broker's last checkpoint, not the live value).  Where several brokers
    hold replicas of a partition (or of __consumer_offsets), the replica with the
    highest log end offset is used and named; replicas are never added up.  lag = log
    end offset - committed offset, unknown (null) when the partition's log is not under
    PATHS.  Largest lag first, then a line per group.  Each row names its group's type
    (classic, consumer, streams, share).  Partitions assigned with nothing committed
    are listed with committed offset '-': a consumer group member's current assignment;
    a streams group member's active tasks (task (subtopology, p) reads partition p of
    the subtopology's source and repartition source topics, its source topic regexes
    matched against the topics under PATHS).  Share groups commit no offsets: when
    __share_group_state partitions are under PATHS, a share group's position is each
    share-partition's start offset, and its lag = log end offset - start offset (records
    at or above it may be acknowledged already); a partition assigned to a share group
    member with no share-partition state yet has start offset '-'.  Records are read
    with the layouts of --kafka-version, else of each log dir's metadata.version.
    """
    from ..ops.lag import LagOptions, lag

    # the one exit rule (kdump.findings.FAILING_SEVERITIES): damage read on the way is 1
    return run(lag(paths, LagOptions(groups, topics, max_batch_bytes, kafka_version)),
               renderer("lag", fmt), progress=paths, label="lag")
