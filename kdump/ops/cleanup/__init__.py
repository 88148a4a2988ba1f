"""``kdump retention``: what a broker deletes or compacts next, and what holds it back.

* :mod:`.config` - the topic configs retention and the cleaner read, resolved in Kafka's
  order (``--config``, topic ConfigRecords, the broker's and the cluster's dynamic
  ConfigRecords, ``server.properties``, Kafka's defaults), each value with its source;
* :mod:`.segments` - a partition replica's segments: sizes, offsets, each segment's
  largest timestamp as LogSegment.largestTimestamp gives it (the time index's last
  entry, the batches, or the file's mtime) and the batch holding it;
* :mod:`.rules` - UnifiedLog.deleteOldSegments over those segments: which are deletable
  now and by which rule, why each other one is kept and when it goes;
* :mod:`.compaction` - LogCleanerManager's view of a compacted log: dirty ratio, first
  uncleanable offset, open transactions, tombstones and markers;
* :mod:`.held` - what holds a log dir's bytes outside the judged segments: partition
  directories renamed ``-delete``/``-future``/``-stray``, leftover files (``.deleted``,
  ``.cleaned``, ``.swap``, ``.tmp``), and every file under the log dir put in one place
  so its bytes add up;
* :mod:`.tally` - each segment's bytes, apparent (as ls) and allocated (as du: what
  deleting gives the disk back), added up per partition, topic and log dir, and the
  preallocated indexes a deletion of the active segment rolls;
* :mod:`.evidence` - what the inputs say beside the segments: the KRaft log's configs and
  metadata.version, the release whose rules apply and why (a ZooKeeper-era log dir: the
  3.9 rules), and the highest offset ``__remote_log_metadata`` says was copied, for
  local retention.

:mod:`kdump.ops.retention` runs them and gives their public names in one place.
"""
