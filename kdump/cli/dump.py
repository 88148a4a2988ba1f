"""``kdump dump``."""

from __future__ import annotations

import click

from .exitcodes import ExitCode
from .options import (
    KAFKA_VERSION_HELP,
    SIZE,
    KafkaVersionParam,
    format_option,
    is_terminal,
    key_value_decoder_options,
    max_batch_bytes_option,
    payload_encoding_option,
    payload_options,
    raw_option,
    renderer,
    resolve_format,
    resolve_jobs,
    run,
    schema_decoder_option,
    schema_options,
    stdout,
)

_DECODER_FLAGS = {
    "offsets_decoder": "offsets",
    "transaction_log_decoder": "transaction-log",
    "cluster_metadata_decoder": "cluster-metadata",
    "share_group_state_decoder": "share-group-state",
    "remote_log_metadata_decoder": "remote-log-metadata",
}

@click.command("dump")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--files", "files_csv", metavar="FILE1,FILE2,...",
              help="DumpLogSegments' spelling: comma-separated files to dump (added to PATHS).")
@click.option("--print-data-log", is_flag=True,
              help="Print record contents (keys and payloads).  Implies --deep-iteration.")
@click.option("--deep-iteration", is_flag=True,
              help="Iterate records, not only batches.")
@click.option("--skip-record-metadata", is_flag=True,
              help="Do not print record metadata (offset, timestamp, sizes) in text output.")
@click.option("--max-bytes", type=SIZE, default=None,
              help="Read only the first SIZE bytes of each log (batches that fit whole).")
@click.option("--max-message-size", type=SIZE, default=5 * 1024 * 1024, show_default=True,
              help="Largest batch an index entry may point at when verifying the index.")
@click.option("--verify-index-only", is_flag=True,
              help="Check index entries against the log without printing them.")
@click.option("--index-sanity-check", is_flag=True,
              help="Only run the broker's startup sanity check on index files.")
@key_value_decoder_options
@click.option("--offsets-decoder", is_flag=True,
              help="Decode __consumer_offsets records.  Implies --print-data-log.")
@click.option("--transaction-log-decoder", is_flag=True,
              help="Decode __transaction_state records.  Implies --print-data-log.")
@click.option("--cluster-metadata-decoder", is_flag=True,
              help="Decode KRaft __cluster_metadata records and snapshots.  Implies "
              "--print-data-log.")
@click.option("--share-group-state-decoder", is_flag=True,
              help="Decode __share_group_state records.  Implies --print-data-log.")
@click.option("--remote-log-metadata-decoder", is_flag=True,
              help="Decode __remote_log_metadata records.  Implies --print-data-log.")
@schema_decoder_option
@schema_options
@click.option("--kafka-version", "kafka_version", type=KafkaVersionParam(), default=None,
              help=KAFKA_VERSION_HELP)
@click.option("--summary", is_flag=True,
              help="With the offsets decoder (or on __consumer_offsets partitions): instead of "
              "the dump, replay the log and print the last committed offset per group, topic "
              "and partition (tombstones applied, aborted transactions ignored) and each "
              "group's latest metadata: classic, consumer (KIP-848, regular expressions "
              "included), streams (KIP-1071) and share (KIP-932) groups; with "
              "__share_group_state partitions, each share-partition's start offset and "
              "state epoch.")
@click.option("--strict", is_flag=True,
              help="Stop reading a log at the first damaged batch, as DumpLogSegments does, "
              "instead of resynchronising past it.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also name what a directory walk passes over because it holds no Kafka "
              "data (the broker's .lock, lost+found, tiered storage's remote-log-index-cache, "
              "editor and OS files such as .DS_Store, *~, .*.swp), as info lines on stderr.  "
              "A file named on the command line is always read.")
@click.option("--show-secrets", is_flag=True,
              help="Print the secrets of __cluster_metadata records (SCRAM salts and keys, the "
              "values of password-like configs such as ssl.keystore.password or "
              "sasl.jaas.config) as the data holds them.  Without it they are shown as "
              "[redacted] in every format (with --format text, a note on stderr says what was "
              "redacted, as the text then differs from DumpLogSegments').  The bytes on disk "
              "are evidence and never change: this option, or a copy of the segment, gives "
              "them.")
@format_option(default_text=True)
@raw_option
@payload_encoding_option
@max_batch_bytes_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --format json: dump files in N worker processes; the output is the "
              "same for any N (files come in the walk's order).  Default: one per idle "
              "core (cores less the load average); never more workers than files, nor "
              "than 4 per core (a larger N is lowered, with a note).  Text and table output are "
              "written by one process.")
def dump_command(
    paths: tuple[str, ...],
    files_csv: str | None,
    print_data_log: bool,
    deep_iteration: bool,
    skip_record_metadata: bool,
    max_bytes: int | None,
    max_message_size: int,
    verify_index_only: bool,
    index_sanity_check: bool,
    key_decoder: str | None,
    value_decoder: str | None,
    decoder: str,
    kafka_version: str | None,
    summary: bool,
    strict: bool,
    verbose: bool,
    show_secrets: bool,
    fmt: str | None,
    raw: bool,
    payload_encoding: str,
    max_batch_bytes: int,
    jobs: int | None,
    schemas: tuple[str, ...],
    schemas_topic: str,
    validate_json_schema: bool,
    **decoder_flags: bool,
) -> ExitCode:
    """Dump segments, indexes, snapshots and checkpoints.

    PATHS may be files, partition directories or whole log dirs; directories are
    walked in Kafka's order.  --format text prints exactly what Kafka's
    kafka-dump-log.sh (DumpLogSegments) prints for the same options; unlike it, a
    damaged batch does not end the dump: kdump reports it on stderr and carries on
    with the next intact batch.  Internal topics (__consumer_offsets,
    __share_group_state, __transaction_state, __cluster_metadata) are decoded with the
    record layouts of Kafka 3.9, 4.0, 4.1, 4.2, 4.3 and 4.4 (see --kafka-version).

    Secrets in __cluster_metadata (SCRAM salts and keys, password-like config values
    such as ssl.keystore.password and sasl.jaas.config) are printed as [redacted], raw
    values included, unless --show-secrets is given.  The bytes on disk are evidence and
    are never changed: --show-secrets prints them as DumpLogSegments does, and a copy of
    the segment keeps them.
    """
    from ..ops.dump import DumpOptions, dump

    targets = list(paths)
    if files_csv:
        targets += [p for p in files_csv.split(",") if p]
    if not targets:
        raise click.UsageError("give at least one PATH (or --files a,b,c)")
    chosen = [name for flag, name in _DECODER_FLAGS.items() if decoder_flags.get(flag)]
    if len(chosen) > 1:
        raise click.UsageError("give at most one of the internal-topic decoder options")
    dec = chosen[0] if chosen else decoder
    if summary:
        if dec not in ("auto", "offsets"):
            raise click.UsageError("--summary digests __consumer_offsets (and "
                                   "__share_group_state): use it with --offsets-decoder (or "
                                   "on those partitions)")
        return _offsets_summary(targets, dec == "offsets", fmt, max_batch_bytes, kafka_version)
    decoding = payload_options(dec, key_decoder, value_decoder, schemas=schemas,
                               schemas_topic=schemas_topic, validate=validate_json_schema,
                               roots=tuple(targets), max_batch_bytes=max_batch_bytes)
    # a key or value decoder (given, or a simple / schema one named by --decoder) implies
    # --print-data-log, as an internal-topic flag does
    print_data = print_data_log or bool(chosen) or decoding["key_decoder"] != "string" \
        or decoding["value_decoder"] != "string" or bool(key_decoder or value_decoder)
    opts = DumpOptions(
        print_data_log=print_data,
        deep_iteration=deep_iteration,
        skip_record_metadata=skip_record_metadata,
        max_bytes=max_bytes,
        max_message_size=max_message_size,
        verify_index_only=verify_index_only,
        index_sanity_check=index_sanity_check,
        max_batch_bytes=max_batch_bytes,
        resync=not strict,
        kafka_version=kafka_version,
        verbose=verbose,
        show_secrets=show_secrets,
        **decoding,
    )
    fmt = resolve_format(fmt, default_text=True)
    opts.schema.text = fmt != "json"
    opts.texts = fmt != "json"  # JSON Lines write the payloads, not the decoder's texts
    n_jobs = resolve_jobs(jobs)
    from ..decoders.redact import Redacted

    Redacted.reset()
    if fmt == "json" and n_jobs > 1:
        from ..ops.dump.parallel import dump_parallel
        from ..render.spool import file_renderer

        return run(dump_parallel(targets, opts, n_jobs, file_renderer(payload_encoding)),
                   renderer("dump-spooled", fmt, payload_encoding=payload_encoding),
                   progress=targets, label="dump")
    out = renderer("dump", fmt, payload_encoding=payload_encoding, deep=opts.deep,
                   print_data_log=print_data, skip_record_metadata=skip_record_metadata,
                   inert_out=not raw and is_terminal(stdout()))
    rc = run(dump(targets, opts), out, progress=targets, label="dump")
    if fmt == "text":
        _redaction_note()
    return rc


def _redaction_note() -> None:
    """Where DumpLogSegments' text is asked for, say where kdump's differs."""
    from ..decoders.redact import Redacted

    if Redacted.records:
        fields = ", ".join(sorted(Redacted.fields))
        click.echo(f"kdump: note: secrets shown as [redacted] in {Redacted.records} "
                   f"record{'s' if Redacted.records != 1 else ''} ({fields}); --show-secrets "
                   "prints them as DumpLogSegments does", err=True)


def _offsets_summary(targets: list[str], all_topics: bool, fmt: str | None,
                     max_batch_bytes: int, kafka_version: str | None) -> ExitCode:
    from ..ops.offsets_summary import offsets_summary

    return run(offsets_summary(targets, all_topics=all_topics, max_batch_bytes=max_batch_bytes,
                               kafka_version=kafka_version),
               renderer("offsets-summary", fmt))
