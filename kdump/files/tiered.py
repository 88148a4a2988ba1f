"""The layout of Kafka's reference remote storage manager, ``LocalTieredStorage``
(KIP-405 tiered storage), as files kdump reads like a log dir's.

storage/src/test/java/org/apache/kafka/server/log/remote/storage/
RemoteTopicPartitionDirectory.java and RemoteLogSegmentFileset.java:

* a partition directory is ``<topic>-<partition>-<topicId>`` (``TopicIdPartition``;
  the topic id is ``Uuid.toString``: 22 characters of URL-safe base64);
* a segment's files are ``<startOffset>-<segmentId><suffix>``: the start offset in
  decimal, not zero-padded, the remote log segment id as another 22-character
  ``Uuid.toString``, and one of ``.log``, ``.index``, ``.timeindex``, ``.txnindex``
  (optional), ``.leader_epoch_checkpoint``, ``.snapshot`` (the producer snapshot).

The same layout is what a copy of a bucket written by a remote storage manager that
keeps Kafka's file formats looks like; the files are read with the same readers as a
broker's segments.  Nothing here reads file contents.
"""

from __future__ import annotations

import re

#: LocalTieredStorage's suffix of the leader-epoch file copied with each segment
REMOTE_LEADER_EPOCH_SUFFIX = ".leader_epoch_checkpoint"

_UUID = r"[A-Za-z0-9_-]{22}"
# RemoteTopicPartitionDirectory.FILENAME_FORMAT: (topic)-(partition)-(uuid)
_REMOTE_PARTITION_DIR = re.compile(rf"^(?P<topic>.+)-(?P<partition>\d+)-(?P<topic_id>{_UUID})$")
# RemoteLogSegmentFileset.FILENAME_FORMAT: (offset-)(uuid)(.suffix), the stem part of it
_REMOTE_SEGMENT_STEM = re.compile(rf"^(?P<offset>\d+)-(?P<segment_id>{_UUID})$")


def parse_remote_partition_dir(name: str) -> tuple[str, int, str] | None:
    """``(topic, partition, topic id)`` of a LocalTieredStorage partition directory."""
    m = _REMOTE_PARTITION_DIR.match(name)
    if m is None:
        return None
    return m["topic"], int(m["partition"]), m["topic_id"]


def parse_remote_segment_stem(stem: str) -> tuple[int, str] | None:
    """``(start offset, remote log segment id)`` of a fileset's file name stem."""
    m = _REMOTE_SEGMENT_STEM.match(stem)
    if m is None:
        return None
    return int(m["offset"]), m["segment_id"]


__all__ = ["REMOTE_LEADER_EPOCH_SUFFIX", "parse_remote_partition_dir", "parse_remote_segment_stem"]
