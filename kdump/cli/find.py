"""``kdump find-offset`` and ``kdump find-time``."""

from __future__ import annotations

from typing import Any

import click

from .exitcodes import ExitCode
from .options import (
    F,
    format_option,
    kafka_version_option,
    key_value_decoder_options,
    max_batch_bytes_option,
    payload_encoding_option,
    payload_options,
    renderer,
    resolve_format,
    run,
    schema_decoder_option,
    schema_options,
)


def _find_renderer(path: str, fmt: str | None, print_data_log: bool, payload_encoding: str,
                   decoder: str, key_decoder: str | None, value_decoder: str | None,
                   schemas: tuple[str, ...], schemas_topic: str, validate_json_schema: bool,
                   max_batch_bytes: int, kafka_version: str | None) -> object:
    """The renderer, with the record's decoder chosen as dump chooses it (internal topics,
    schema-registry payloads when the registry's storage is beside PATH or in --schemas)."""
    from ..ops.dump import DumpOptions

    fmt = resolve_format(fmt)
    print_data_log = print_data_log or bool(key_decoder or value_decoder) or decoder != "auto"
    dec = None
    if print_data_log:
        opts = DumpOptions(print_data_log=True, max_batch_bytes=max_batch_bytes,
                           kafka_version=kafka_version,
                           **payload_options(decoder, key_decoder, value_decoder,
                                             schemas=schemas, schemas_topic=schemas_topic,
                                             validate=validate_json_schema, roots=(path,),
                                             max_batch_bytes=max_batch_bytes))
        opts.schema.text = fmt != "json"
        dec = opts.decoder_for_path(path)
    return renderer("find", fmt, payload_encoding=payload_encoding,
                    print_data_log=print_data_log, decoder=dec)


class _NumberArgs(click.Command):
    """A negative number where an argument is expected is that argument (click would
    take ``-5`` for an option and answer 'No such option')."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        def negative(a: str) -> bool:
            return len(a) > 1 and a[0] == "-" and a[1:].isdigit()

        if "--" not in args and any(negative(a) for a in args):
            # positionals keep their order after ``--``; options stay before it
            args = ([a for a in args if not negative(a)] + ["--"]
                    + [a for a in args if negative(a)])
        return super().parse_args(ctx, args)


def _offset(value: str) -> int:
    v = value.strip()
    if not v.lstrip("-").isascii() or not v.lstrip("-").isdigit():
        raise click.BadParameter(f"{value!r} is not an offset (a whole number)",
                                 param_hint="OFFSET")
    if len(v.lstrip("-").lstrip("0")) > 19:
        # int() of thousands of digits is refused by Python itself; no offset is this long
        raise click.BadParameter(f"{v[:24]}...: past the largest offset (2^63-1)",
                                 param_hint="OFFSET")
    n = int(v)
    if n > 2**63 - 1:
        raise click.BadParameter(f"{n}: past the largest offset (2^63-1)", param_hint="OFFSET")
    if n < 0:
        raise click.BadParameter(
            f"{n}: offsets are never negative (the log starts at 0 or at its log start "
            "offset; -1/-2 are ListOffsets' latest/earliest, not offsets)", param_hint="OFFSET")
    return n


def _answer(result: object, out: object) -> ExitCode:
    code = run([result], out)
    if code != ExitCode.OK:
        return code
    return ExitCode.OK if getattr(result, "found", False) else ExitCode.PROBLEMS


def _lookup(path: str, out: object, find: Any) -> ExitCode:
    """Run ``find()``; an input that cannot be read is an ``unreadable-file`` finding in
    the same style as every other command's (exit 2), not a different kind of error."""
    from ..errors import InputError
    from ..findings import Problem

    try:
        result = find()
    except InputError as e:
        return run([Problem(e.path or path, e.position, "unreadable-file", e.message)], out)
    return _answer(result, out)


def _find_options(f: F) -> F:
    """The options find-offset and find-time share."""
    for option in (kafka_version_option, max_batch_bytes_option, payload_encoding_option, format_option(),
                   schema_options, key_value_decoder_options, schema_decoder_option,
                   click.option("--print-data-log", is_flag=True,
                                help="Print the record's key and payload.")):
        f = option(f)
    return f


@click.command("find-offset", cls=_NumberArgs)
@click.argument("path", type=click.Path())
@click.argument("offset")
@_find_options
def find_offset_command(path: str, offset: str, print_data_log: bool, decoder: str,
                        key_decoder: str | None, value_decoder: str | None, fmt: str | None,
                        payload_encoding: str, max_batch_bytes: int, schemas: tuple[str, ...],
                        schemas_topic: str, validate_json_schema: bool,
                        kafka_version: str | None) -> ExitCode:
    """Where is OFFSET?  PATH is a partition directory or one .log segment.

    Picks the segment by base offset from the file names, looks the offset up in the
    segment's .index and scans forward from there only (a whole-segment scan when the
    index is missing or damaged, and it says so).  Prints the file, the position of the
    batch holding the offset, the batch and record, how it was found and the bytes
    read.  Only an offset that holds a record is found: exit 1 when the offset is below
    the log start, above its end, in a gap or in a batch that compaction emptied,
    naming the nearest offsets that hold records.
    """
    from ..ops.find import find_offset

    target = _offset(offset)
    out = _find_renderer(path, fmt, print_data_log, payload_encoding, decoder,
                         key_decoder, value_decoder, schemas, schemas_topic,
                         validate_json_schema, max_batch_bytes, kafka_version)
    return _lookup(path, out, lambda: find_offset(path, target, deep=True,
                                                  max_batch_bytes=max_batch_bytes))


@click.command("find-time", cls=_NumberArgs)
@click.argument("path", type=click.Path())
@click.argument("timestamp")
@_find_options
def find_time_command(path: str, timestamp: str, print_data_log: bool, decoder: str,
                      key_decoder: str | None, value_decoder: str | None, fmt: str | None,
                      payload_encoding: str, max_batch_bytes: int, schemas: tuple[str, ...],
                      schemas_topic: str, validate_json_schema: bool,
                      kafka_version: str | None) -> ExitCode:
    """The earliest offset whose timestamp is at or after TIMESTAMP.

    TIMESTAMP is epoch milliseconds or ISO-8601 (2024-05-01T09:14:00Z; +02:00 offsets
    allowed; no offset means UTC).  Same semantics as the broker's ListOffsets by
    timestamp: the .timeindex gives the starting point, batches whose max timestamp is
    below the target are skipped, and the first record at or after it wins.  Records of
    LogAppendTime batches carry the broker's append time; magic 0 data has no timestamps
    and never matches.  A time index that stops short of the log (an active or crashed
    segment) or is missing, empty or zero-filled only makes the scan start earlier.
    Exit 1 when no record is that late.

    A bare number from 10^9 to 10^11 reads as epoch seconds, not milliseconds (it would
    be a moment in January 1970 to March 1973): it is refused, with the millisecond and
    ISO-8601 spellings of what was probably meant.
    """
    from ..ops.find import find_time
    from ..timestamps import parse_timestamp

    target = parse_timestamp(timestamp)
    out = _find_renderer(path, fmt, print_data_log, payload_encoding, decoder,
                         key_decoder, value_decoder, schemas, schemas_topic,
                         validate_json_schema, max_batch_bytes, kafka_version)
    return _lookup(path, out, lambda: find_time(path, target, max_batch_bytes=max_batch_bytes))
