"""The reference floor: a bare Python loop over v2 batch headers, CRC-32C by the crc32c
package (what a hand-written checker does).  Reads the file whole, walks the batches by
their length field and checks each CRC.  Prints: batches, bad CRCs."""

import struct
import sys

from crc32c import crc32c

HEADER = struct.Struct(">qiibI")  # baseOffset, batchLength, partitionLeaderEpoch, magic, crc


def main(path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    view = memoryview(data)
    pos, end = 0, len(data)
    n = bad = 0
    while pos + 61 <= end:
        _, length, _, _, crc = HEADER.unpack_from(data, pos)
        nxt = pos + 12 + length
        if crc32c(view[pos + 21 : nxt]) != crc:
            bad += 1
        n += 1
        pos = nxt
    print(n, bad)


if __name__ == "__main__":
    main(sys.argv[1])
