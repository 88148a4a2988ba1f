"""A peer's deep scan: every record of every batch (key, value, headers) with the CRC
checked, through kafka-python's or aiokafka's MemoryRecords.  Usage:
``scan.py kafka|aiokafka FILE``.  Prints: batches, records, key bytes, value bytes."""

import sys


def main(lib: str, path: str) -> None:
    if lib == "aiokafka":
        from aiokafka.record.memory_records import MemoryRecords
    else:
        from kafka.record.memory_records import MemoryRecords
    with open(path, "rb") as f:
        data = f.read()
    records = MemoryRecords(data)
    batches = n = key_bytes = value_bytes = 0
    while True:
        batch = records.next_batch()
        if batch is None:
            break
        batches += 1
        if not batch.validate_crc():
            raise SystemExit(f"bad CRC in batch {batches}")
        for r in batch:
            key, value, _headers = r.key, r.value, r.headers
            n += 1
            if key is not None:
                key_bytes += len(key)
            if value is not None:
                value_bytes += len(value)
    print(batches, n, key_bytes, value_bytes)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
