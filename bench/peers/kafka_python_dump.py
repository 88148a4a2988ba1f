"""The dump peer: kafka-python reads every record and json.dumps writes one object per
record (offset, timestamp, key, value, headers as text), to stdout."""

import json
import sys

from kafka.record.memory_records import MemoryRecords


def text(b: bytes | None) -> str | None:
    return None if b is None else b.decode("utf-8", "replace")


def main(path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    records = MemoryRecords(data)
    out = sys.stdout
    dumps = json.dumps
    while True:
        batch = records.next_batch()
        if batch is None:
            break
        for r in batch:
            out.write(dumps({
                "offset": r.offset, "timestamp": r.timestamp, "key": text(r.key),
                "value": text(r.value),
                "headers": [{"key": k, "value": text(v)} for k, v in r.headers],
            }) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
