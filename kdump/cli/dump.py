"""``kdump dump``."""

from __future__ import annotations

import click

from . import cli
from .exitcodes import ExitCode
from .options import (
    DECODER_CHOICES,
    DECODER_HELP,
    KAFKA_VERSION_HELP,
    SIZE,
    DecoderName,
    KafkaVersion,
    format_option,
    is_terminal,
    max_batch_bytes_option,
    payload_encoding_option,
    raw_option,
    renderer,
    resolve_format,
    resolve_jobs,
    run,
    stdout,
)

_DECODER_FLAGS = {
    "offsets_decoder": "offsets",
    "transaction_log_decoder": "transaction-log",
    "cluster_metadata_decoder": "cluster-metadata",
    "share_group_state_decoder": "share-group-state",
    "remote_log_metadata_decoder": "remote-log-metadata",
}

@cli.command("dump")
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
@click.option("--key-decoder", "--key-decoder-class", "key_decoder",
              type=DecoderName(schemas=True),
              default=None, help="How to print keys: string (default), hex, base64, json, "
              "int, long, none; avro, protobuf, json-schema or schema-registry (any of the "
              "three) decode Confluent-framed payloads with the schemas of the registry's "
              "storage (see --schemas); Kafka decoder class names are accepted.  Implies "
              "--print-data-log.")
@click.option("--value-decoder", "--value-decoder-class", "value_decoder",
              type=DecoderName(schemas=True),
              default=None, help="How to print payloads (same choices as --key-decoder).  "
              "Implies --print-data-log.")
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
@click.option("--decoder", "decoder", type=click.Choice(DECODER_CHOICES), default="auto",
              show_default=True, help=DECODER_HELP + "  auto also decodes payloads framed by "
              "Confluent's serializers (Avro, Protobuf, JSON Schema) when the schema registry's "
              "topic is among or beside the inputs and the id is known.")
@click.option("--schemas", "schemas", multiple=True, type=click.Path(), metavar="PATH",
              help="Where else the schemas are: a copy of the registry's _schemas partition "
              "(from another broker), or a folder of schema files named by id (17.avsc, "
              "18.proto, 19.json, as kdump schemas --export writes them).  Repeatable.")
@click.option("--schemas-topic", default="_schemas", show_default=True, metavar="NAME",
              help="The schema registry's topic (kafkastore.topic), looked for among and "
              "beside the inputs.")
@click.option("--validate-json-schema", is_flag=True,
              help="Check JSON Schema payloads against their schema (a note when one does "
              "not validate).")
@click.option("--kafka-version", "kafka_version", type=KafkaVersion(), default=None,
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
@format_option(default_text=True)
@raw_option
@payload_encoding_option
@max_batch_bytes_option
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --format json: dump files in N worker processes; the output is the "
              "same for any N (files come in the walk's order).  Default: the number of "
              "cores.  Text and table output are written by one process.")
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
    record layouts of Kafka 4.0, 4.1, 4.2 and 4.3 (see --kafka-version).
    """
    from ..ops.dump import DumpOptions, dump
    from ..schemaregistry.source import SchemaSource

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
    if (key_decoder or value_decoder) and not chosen and decoder == "auto":
        dec = "string"
    if dec in ("hex", "base64", "json", "int", "long", "none"):
        # a simple decoder named by --decoder: keys and values alike
        key_decoder, value_decoder = key_decoder or dec, value_decoder or dec
        dec = "string"
    print_data = print_data_log or bool(chosen) or bool(key_decoder or value_decoder)
    opts = DumpOptions(
        print_data_log=print_data,
        deep_iteration=deep_iteration,
        skip_record_metadata=skip_record_metadata,
        max_bytes=max_bytes,
        max_message_size=max_message_size,
        verify_index_only=verify_index_only,
        index_sanity_check=index_sanity_check,
        decoder="kv" if dec == "string" else dec,
        key_decoder=key_decoder or "string",
        value_decoder=value_decoder or "string",
        max_batch_bytes=max_batch_bytes,
        resync=not strict,
        schema=SchemaSource(schemas=schemas, topic=schemas_topic,
                            validate=validate_json_schema, roots=tuple(targets),
                            max_batch_bytes=max_batch_bytes),
        kafka_version=kafka_version,
    )
    fmt = resolve_format(fmt, default_text=True)
    opts.schema.text = fmt != "json"
    n_jobs = resolve_jobs(jobs)
    if fmt == "json" and n_jobs > 1:
        from ..render.spool import dump_json_parallel

        return run(dump_json_parallel(targets, opts, payload_encoding, n_jobs),
                   renderer("dump-spooled", fmt, payload_encoding=payload_encoding),
                   progress=targets, label="dump")
    out = renderer("dump", fmt, payload_encoding=payload_encoding, deep=opts.deep,
                   print_data_log=print_data, skip_record_metadata=skip_record_metadata,
                   inert_out=not raw and is_terminal(stdout()))
    return run(dump(targets, opts), out, progress=targets, label="dump")


def _offsets_summary(targets: list[str], all_topics: bool, fmt: str | None,
                     max_batch_bytes: int, kafka_version: str | None) -> ExitCode:
    from ..ops.offsets_summary import offsets_summary

    return run(offsets_summary(targets, all_topics=all_topics, max_batch_bytes=max_batch_bytes,
                               kafka_version=kafka_version),
               renderer("offsets-summary", fmt))
