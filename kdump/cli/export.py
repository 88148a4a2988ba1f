"""``kdump export``: records to Parquet, Arrow IPC or JSON Lines, on one machine."""

from __future__ import annotations

import click

from ..limits import SPLIT_BYTES
from .exitcodes import ExitCode
from .options import (
    DECODER_CHOICES,
    SIZE,
    DecoderName,
    kafka_version_option,
    max_batch_bytes_option,
    renderer,
    resolve_jobs,
    run,
    size_text,
)

EXTRA_HINT = "kdump export needs pyarrow: pip install 'kdump[export]'"

#: --file-format (and its deprecated old name, --format)
FILE_FORMATS = ("parquet", "arrow", "jsonl")
#: what --format means for every other command: taken by --format here only to say so
OUTPUT_FORMATS = ("text", "json", "table")


def file_format(file_fmt: str | None, old: str | None) -> str:
    """The files' format from --file-format and the deprecated --format: the old name
    keeps runbooks working, with a note on stderr; an output format given to it (as
    every other command takes --format) is a usage error saying what export takes."""
    if old is None:
        return file_fmt or FILE_FORMATS[0]
    if old in OUTPUT_FORMATS:
        raise click.UsageError(
            f"--format {old}: export's --format was the files' format (parquet, arrow, jsonl), "
            "now --file-format; its answer on stdout is text, or JSON Lines with --json")
    if file_fmt is not None and file_fmt != old:
        raise click.UsageError(f"--format {old} and --file-format {file_fmt} disagree: give "
                               "--file-format only (--format is its deprecated old name)")
    click.echo(f"kdump export: --format is deprecated: give --file-format {old} (the same "
               "files)", err=True)
    return old


@click.command("export")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", required=True, metavar="DIR",
              help="Where to write: a new or empty directory outside every input.  Files go to "
              "DIR/topic=T/partition=P/ (as kdump spark export partitions them), one per "
              "segment and log dir, with DIR/_findings and DIR/_manifest.json (the files "
              "with their SHA-256); all staged beside DIR and renamed onto it at once.")
@click.option("--file-format", "data_format", type=click.Choice(FILE_FORMATS), default=None,
              help="The files' format: Parquet, Arrow IPC (.arrow, Feather v2) or JSON Lines "
              "(binary as base64).  [default: parquet]")
@click.option("--format", "old_format", type=click.Choice([*FILE_FORMATS, *OUTPUT_FORMATS]),
              default=None, metavar="[parquet|arrow|jsonl]",
              help="Deprecated: the old name of --file-format, still taken (with a note on "
              "stderr).  Elsewhere --format is the output's format; export's answer on stdout "
              "is text, or JSON Lines with --json.")
@click.option("--level", type=click.Choice(["record", "batch"]), default="record",
              show_default=True, help="One row per record (control records included, "
              "is_control true), or one per batch.")
@click.option("--decoder", type=click.Choice(DECODER_CHOICES), default="auto",
              show_default=True,
              help="Add key_decoded/value_decoded/decode_error (JSON or text) and typed "
              "columns of what the decoder reads.  auto: internal topics (__consumer_offsets, "
              "__transaction_state, __cluster_metadata, __share_group_state ...) by directory "
              "name, and schema-registry payloads (Avro, Protobuf, JSON Schema) when the "
              "registry's _schemas partition is among or beside PATHS; other topics keep the "
              "raw key and value only.  A named decoder applies to every topic.")
@click.option("--key-decoder", "key_decoder", type=DecoderName(schemas=True), default=None,
              help="Decoder of keys for every topic (string, hex, base64, json, int, long, "
              "none; avro, protobuf, json-schema, schema-registry).")
@click.option("--value-decoder", "value_decoder", type=DecoderName(schemas=True), default=None,
              help="Decoder of values for every topic (as --key-decoder).")
@click.option("--no-decode", is_flag=True,
              help="No decoded columns: the kafka_log columns only (as kdump spark export "
              "without --decoder).")
@click.option("--no-typed", is_flag=True,
              help="Decoded payloads as JSON text columns only, no typed (struct) columns.")
@click.option("--schemas", "schemas", multiple=True, type=click.Path(), metavar="PATH",
              help="Where else the schema registry's schemas are (a _schemas partition copy, "
              "a folder of exported schema files).  Repeatable.")
@click.option("--schemas-topic", default="_schemas", show_default=True, metavar="NAME",
              help="The schema registry's topic (kafkastore.topic).")
@kafka_version_option
@click.option("--show-secrets", is_flag=True,
              help="Write the secrets of __cluster_metadata records (SCRAM salts and keys, "
              "password-like configs) as the data holds them; without it the raw value of "
              "such a record is written as [redacted], and so are the secret fields of its "
              "decoded columns.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Only this topic (repeatable).")
@click.option("--row-group-rows", type=click.IntRange(min=1), default=64 * 1024,
              show_default=True, help="Most rows in a Parquet row group (an Arrow record "
              "batch).")
@click.option("--row-group-bytes", type=SIZE, default="64M", show_default=True,
              help="Most bytes of keys and values in a row group: memory is bounded by it, "
              "not by the segment.")
@click.option("--split-bytes", type=SIZE, default=size_text(SPLIT_BYTES), show_default=True,
              help="A segment larger than this is read and written as byte ranges cut at "
              "batch boundaries found with its .index (a file per range: --jobs spreads a "
              "big segment over workers; the same files for any --jobs).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Export segments in N worker processes, each writing its own files (the "
              "dataset is the same for any N).  Default: one per idle core (cores less the "
              "load average); never more "
              "workers than segments, nor than 4 per core.")
@click.option("--json", "as_json", is_flag=True,
              help="The answer on stdout as JSON Lines: problems, each file written "
              "(export_file) and export_end.  Default: one line of text; problems on stderr.")
@max_batch_bytes_option
def export_command(paths: tuple[str, ...], output: str, data_format: str | None,
                   old_format: str | None, level: str,
                   decoder: str, key_decoder: str | None, value_decoder: str | None,
                   no_decode: bool, no_typed: bool, schemas: tuple[str, ...],
                   schemas_topic: str, kafka_version: str | None, show_secrets: bool,
                   topics: tuple[str, ...], row_group_rows: int, row_group_bytes: int,
                   split_bytes: int, jobs: int | None, as_json: bool, max_batch_bytes: int) -> ExitCode:
    """Records (or batches) of every segment under PATHS to Parquet, Arrow IPC or JSON Lines,
    partitioned by topic and partition, on this machine (no JVM).

    The columns are the kafka_log data source's (docs/spark.md), with log_dir and
    broker_id keeping several brokers' replicas apart, and decoded columns for internal
    topics and schema-registry payloads (docs/export.md).  Damaged batches are
    skipped, named on stderr and in DIR/_findings, never written as rows.  A reader
    pointed at DIR sees nothing or the whole dataset: a full disk, an error, Ctrl-C,
    SIGTERM or SIGHUP leaves DIR as it was.  Exit 0 clean, 1 damage found (the intact
    batches' rows are written), 2 usage or I/O error, 130 / 143 / 129 on SIGINT /
    SIGTERM / SIGHUP.
    """
    import os

    fmt = file_format(data_format, old_format)  # usage errors before anything is read

    from .. import fs as kfs
    from ..errors import InputError, UsageError

    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError(EXTRA_HINT) from None
    missing = [p for p in paths if not kfs.exists(p)]
    if missing and len(missing) == len(paths):
        raise InputError("no such file or directory", path=missing[0])
    from ..decoders import KEY_VALUE
    from ..ops.export import ExportOptions, ReadOptions, export

    if no_decode:
        name: str | None = None
    elif key_decoder or value_decoder:
        name = KEY_VALUE
    else:
        name = decoder
    read = ReadOptions(
        paths=tuple(paths), level=level, decoder=name, max_batch_bytes=max_batch_bytes,
        topics=tuple(topics) or None,
        schemas=tuple(os.path.abspath(p) if "://" not in p else p for p in schemas),
        schemas_topic=schemas_topic, kafka_version=kafka_version,
        key_decoder=key_decoder or "string", value_decoder=value_decoder or "string",
        show_secrets=show_secrets, skip_damaged=True, ignore_unreadable=True,
        split_bytes=max(1, split_bytes))
    opts = ExportOptions(output=output, read=read, fmt=fmt,
                         row_group_rows=row_group_rows, row_group_bytes=row_group_bytes,
                         typed=not no_typed, jobs=resolve_jobs(jobs))
    out = renderer("export", "json" if as_json else "text", default_text=True)
    return run(export(paths, opts), out, progress=paths, label="export")
