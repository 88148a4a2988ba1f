"""Independent encoder for Apache Kafka's on-disk files, used to build test fixtures.

This module is written from the format description in ``FORMATS.md`` and cross-checked against
the Kafka sources (read for facts only). It deliberately shares no code with ``kdump`` so that it
can serve as an oracle for the decoder.

Everything here is deterministic: no randomness, no wall-clock time. All multi-byte integers are
big-endian unless noted (the LZ4 frame uses little-endian words).

The encoder is split by what it writes (tests/support/encoding.py, batches.py,
files.py, segments.py, logdirs.py, samples.py, kraft.py); this module gathers them, so
``from tests.support import writer as w`` reaches all of it.

Command line::

    python tests/writer.py sample DIR                     # a small broker log dir
    python tests/writer.py big DIR SIZE [CODEC] [TOPIC]   # DIR/<TOPIC>-0: one large segment

``sample`` writes orders-0 (three segments, every codec, a transaction, an aborted one),
orders-1 (magic 0/1 messages before v2 batches, a deleted log start), customers-0
(compacted: gaps, tombstones, an emptied batch) and the log dir's checkpoints and
meta.properties.  ``big`` writes one partition directory ``DIR/<TOPIC>-0`` (TOPIC
defaults to ``big``) holding one segment of about SIZE bytes (``1073741824``, ``200M``,
``1G``) with its indexes; CODEC is none (default), gzip, snappy, lz4 or zstd.  DIR must
be empty or absent.
"""

from __future__ import annotations

import sys

from tests.support.batches import (  # noqa: F401
    Rec,
    encode_record_v2,
    end_txn_marker_batch,
    kraft_control_batch,
    kraft_version_value,
    leader_change_value,
    legacy_compressed,
    legacy_message,
    snapshot_footer_value,
    snapshot_header_value,
    v2_batch,
    voters_value,
)
from tests.support.encoding import (  # noqa: F401
    ATTR_CONTROL,
    ATTR_DELETE_HORIZON,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    CONTROL_ABORT,
    CONTROL_COMMIT,
    CONTROL_KRAFT_VERSION,
    CONTROL_KRAFT_VOTERS,
    CONTROL_LEADER_CHANGE,
    CONTROL_SNAPSHOT_FOOTER,
    CONTROL_SNAPSHOT_HEADER,
    DEFAULT_MAX_INDEX_BYTES,
    DEFAULT_TIMESTAMP,
    GZIP,
    INDEX_ENTRY_SIZE,
    LOG_OVERHEAD,
    LZ4,
    LZ4_INCOMPRESSIBLE,
    LZ4_MAGIC,
    NO_TAGGED_FIELDS,
    NONE,
    PRODUCER_ENTRY_SIZE,
    SNAPPY,
    TIME_INDEX_ENTRY_SIZE,
    TS0,
    TXN_INDEX_ENTRY_SIZE,
    V2_HEADER_SIZE,
    XERIAL_BLOCK_SIZE,
    XERIAL_MAGIC,
    ZSTD,
    compress,
    gzip_compress,
    lz4_frame,
    snappy_compress,
    uuid_str,
    uvarint,
    varint,
    varlong,
    xxhash32,
    zstd_compress,
)
from tests.support.files import (
    ProducerEntry,
    leader_epoch_checkpoint,
    meta_properties,
    offset_checkpoint,
    offset_index,
    partition_metadata,
    producer_snapshot,
    time_index,
    txn_index,
)
from tests.support.kraft import (  # noqa: F401
    METADATA_DESCRIPTIONS,
    MetadataLogWriter,
    metadata_record,
    metadata_schemas,
    metadata_snapshot,
    uuid_of,
)
from tests.support.logdirs import (  # noqa: F401
    broker_logdir,
    numbered_records,
    offset_commit_key,
    offset_commit_value_v3,
    replica_batches,
    replicas_pair,
    write_replica,
)
from tests.support.samples import (  # noqa: F401
    CLUSTER_ID,
    CUSTOMERS_TOPIC_ID,
    DIRECTORY_ID,
    ORDERS_TOPIC_ID,
    _main,
    _size,
    big_segment,
    tiered_storage_copy,
    write_sample_logdir,
)
from tests.support.segments import (  # noqa: F401
    PartitionWriter,
    _iter_entries,
)

__all__ = [
    "DEFAULT_TIMESTAMP",
    "GZIP",
    "LZ4",
    "NONE",
    "SNAPPY",
    "ZSTD",
    "PartitionWriter",
    "ProducerEntry",
    "Rec",
    "big_segment",
    "compress",
    "encode_record_v2",
    "end_txn_marker_batch",
    "gzip_compress",
    "kraft_control_batch",
    "kraft_version_value",
    "leader_change_value",
    "leader_epoch_checkpoint",
    "legacy_compressed",
    "legacy_message",
    "lz4_frame",
    "meta_properties",
    "offset_checkpoint",
    "offset_index",
    "partition_metadata",
    "producer_snapshot",
    "snappy_compress",
    "snapshot_footer_value",
    "snapshot_header_value",
    "time_index",
    "txn_index",
    "uuid_str",
    "uvarint",
    "varint",
    "varlong",
    "voters_value",
    "write_sample_logdir",
    "xxhash32",
    "zstd_compress",
]


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
