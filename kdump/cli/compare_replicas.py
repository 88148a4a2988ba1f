"""``kdump compare-replicas``: several brokers' log dirs at once."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import (
    format_option,
    kafka_version_option,
    max_batch_bytes_option,
    payload_encoding_option,
    payload_options,
    renderer,
    run,
    schema_options,
    stderr,
)


@click.command("compare-replicas")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--print-data-log", is_flag=True,
              help="Also print the records only one replica holds (internal topics decoded as "
              "dump decodes them; those at or after the "
              "divergence offset, or beyond the other replicas' end): DumpLogSegments lines "
              "under a 'Replica:' line in text, record objects tagged with their replica "
              "in JSON; payloads decoded as dump decodes them (internal topics, and "
              "schema-registry payloads when the registry's _schemas partition is in a log "
              "dir given or in --schemas).")
@click.option("--leader", metavar="BROKER_ID|PATH", default=None,
              help="The replica that leads now (a broker id or a log dir).  Default: the "
              "replica with the highest latest leader epoch, then the highest log end "
              "offset (said in the output).")
@schema_options
@format_option()
@payload_encoding_option
@max_batch_bytes_option
@kafka_version_option
def compare_replicas_command(paths: tuple[str, ...], print_data_log: bool, leader: str | None,
                             fmt: str | None, payload_encoding: str,
                             max_batch_bytes: int, schemas: tuple[str, ...], schemas_topic: str,
                             validate_json_schema: bool,
                             kafka_version: str | None) -> ExitCode:
    """Compare the replicas of each partition across brokers' log dirs.

    Each PATH is one broker's log dir (or a folder of log dirs, or a partition
    directory).  Replicas are grouped by what they are: one cluster (the log dirs'
    cluster.id; never two clusters, whatever node ids they claim), one topic name and
    partition number (the partition directory's name, never a log dir's: kafka-1 is a
    log dir), and one topic id where partition.metadata says it (a topic made again
    under its name is another partition).  A partition found in one log dir only is
    reported.  Per partition: each replica's log start and end offsets,
    its leader-epoch history (leader-epoch-checkpoint and the batches' leader epochs),
    the divergence offset (the first offset where two replicas hold different batches),
    and where Kafka's truncation (OffsetsForLeaderEpoch: the end offset of the largest
    epoch both hold) would cut each follower.  A replica that is a prefix of another
    lags; it does not diverge.

    Batch headers only are read (no decompression, no record decoding) except where
    two replicas' headers differ: there the batches are checked against their CRCs
    (damage is named, not taken for divergence) and, when offsets and epoch agree,
    their records compared (each broker compacts on its own).  Exit 1 when replicas
    diverge or a replica is damaged.
    """
    from ..ops.compare_replicas import (
        CompareOptions,
        CompareSummary,
        PartitionComparison,
        compare_replicas,
    )
    from ..ops.dump import DumpOptions

    decoding = DumpOptions(print_data_log=True, max_batch_bytes=max_batch_bytes,
                           kafka_version=kafka_version,
                           **payload_options("auto", None, None, schemas=schemas,
                                             schemas_topic=schemas_topic,
                                             validate=validate_json_schema, roots=paths,
                                             max_batch_bytes=max_batch_bytes))
    out = renderer("compare-replicas", fmt, payload_encoding=payload_encoding,
                   print_data_log=print_data_log,
                   decoder_for=decoding.decoder_for_path if print_data_log else None)
    opts = CompareOptions(max_batch_bytes=max_batch_bytes, print_data_log=print_data_log,
                          leader=leader, kafka_version=kafka_version)
    diverged = damaged = False
    brokers = -1

    def items() -> object:
        nonlocal diverged, damaged, brokers
        for item in compare_replicas(paths, opts):
            if isinstance(item, PartitionComparison):
                diverged = diverged or item.diverged
                damaged = damaged or item.damaged
            elif isinstance(item, CompareSummary):
                brokers = len(item.logdirs)
            yield item

    code = run(items(), out, progress=paths, label="compare-replicas")  # type: ignore[arg-type]
    if code == ExitCode.ERROR:
        return code
    if brokers in (0, 1):
        # one broker's log dir: every partition has one replica and nothing was compared
        stderr().write("compare-replicas: the inputs hold one broker's log dir only: give two "
                       "or more brokers' log dirs (or partition directories) to compare\n")
        return ExitCode.ERROR
    return ExitCode.PROBLEMS if (diverged or damaged or code == ExitCode.PROBLEMS) else ExitCode.OK
