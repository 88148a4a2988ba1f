"""The floor of kdump's record paths (issue 33): a bare Python loop over the batch headers
of a file read whole, handing each batch's records to kdump's own native code and doing
nothing else (no framing checks, no findings, no output model, no renderer).

    native_loop.py scan FILE     # kdump._speedups.scan_v2_records per batch: the record
                                 # statistics size-report's deep scan adds up
    native_loop.py decode FILE   # kdump._speedups.decode_v2_records per batch: every
                                 # record as a Record object, what dump renders from
    native_loop.py json FILE     # decode, then the native JSON Lines writer per batch,
                                 # written to stdout: dump --format json's record lines

lz4 batches are decompressed with kdump.codecs (the same call dump and size-report make).
Prints to stderr: batches, records, key bytes, value bytes (json: to stdout the lines).
"""

import struct
import sys

from kdump import _speedups as sp
from kdump.codecs import decompress
from kdump.ops.events import Decoded, RecordEvent
from kdump.records.record import Record
from kdump.records.scan import RecordScan

HEADER = struct.Struct(">qiibIhiqqqhii")  # the 61-byte v2 batch header
LIMIT = 16 << 20
HEADERS = LIMIT // 32


def main(mode: str, path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    pos, end = 0, len(data)
    batches = records = key_bytes = value_bytes = 0
    out = sys.stdout.buffer
    while pos + 61 <= end:
        (base, length, _, _, _, attributes, _, base_ts, max_ts, _, _, base_seq,
         count) = HEADER.unpack_from(data, pos)
        nxt = pos + 12 + length
        codec = attributes & 7
        if codec:
            buf, start, stop = decompress(codec, data[pos + 61 : nxt], LIMIT), 0, None
            stop = len(buf)
        else:
            buf, start, stop = data, pos + 61, nxt
        if mode == "scan":
            s = sp.scan_v2_records(buf, start, stop, count, HEADERS, RecordScan)
            records += s.records
            key_bytes += s.key_bytes
            value_bytes += s.value_bytes
        else:
            append = max_ts if attributes & 8 else None
            recs, _fault, _ = sp.decode_v2_records(
                buf, start, stop, 0, count, count, HEADERS, HEADERS, base, base_ts, append,
                base_seq, pos if not codec else 0, bool(codec), Record)
            records += len(recs)
            if mode == "json":
                events = sp.record_events(recs, RecordEvent, None)
                text = sp.json_record_lines(events, '{"type":"record","offset":', '"CreateTime"', 0,
                                            RecordEvent, Record, Decoded, True)
                out.write(text.encode())
        batches += 1
        pos = nxt
    print(batches, records, key_bytes, value_bytes, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
