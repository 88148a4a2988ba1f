"""``kdump repair``'s manifest (kdump/ops/repair/): stdout with ``--format json``, and
DIR/kdump-repair-manifest.jsonl.
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "repair": ("opens kdump repair's manifest", [
        ("kdump_version", "str", ""), ("into", "str", "DIR, as given"),
        ("dry_run", "bool", "true: nothing is written"),
        ("inputs", "list", "the paths given"),
        ("replicas", "list", "the --replica log dirs (other brokers' copies a dropped range is "
                             "filled from)"),
        ("started", "str", "ISO-8601 UTC"),
    ]),
    "repair_dropped": ("repair: a stretch of a log not copied (damage, or a second copy of "
                       "offsets already kept)", [
        ("file", "str", "the input log"), ("position", "int", "absolute byte position"),
        ("length", "int", "bytes not copied"),
        ("reason", "str", "a finding kind (crc-mismatch, bad-length, bad-magic, zeroed-region, "
                          "zero-tail, truncated, in-flight, trailing-bytes), bad-offset (an "
                          "offset field out of line: it lies outside the checksum), or "
                          "duplicate, overlap"),
        ("detail", "str", "what is wrong, in words"),
        ("first_offset", "int|null", "the first offset its batch header names (unverified when "
                                     "the checksum fails); null when no header can be read"),
        ("last_offset", "int|null", "the last offset its batch header names; null as above"),
        ("missing_offsets", "list|null", "[first, last] offsets the copy lacks around it (between "
                                         "the kept batches either side; at the log's end up to "
                                         "the highest offset a witness proves written, last "
                                         "null when none does); null when no offset is missing "
                                         "(duplicate, zeros, a batch in flight, a gap filled)"),
        ("severity", "str", "error (data lost), warning (a duplicate or an overlap, or zeros "
                            "ending a closed segment with no offset missing after them) or info "
                            "(zeros or a batch in flight ending the active segment past every "
                            "witness, as verify-crc judges them: not damage)"),
        ("log_dir", "str|null", "the input log dir, when known"),
        ("topic", "str", ""), ("partition", "int", ""),
    ]),
    "repair_file": ("repair: what became of one input file, or where an output file came from", [
        ("file", "str|null", "the input file; null for a file the repair writes from nothing"),
        ("output", "str|null", "the output file, relative to DIR; null when left out"),
        ("action", "str", "copied (byte for byte), repaired (a log, damage left out), rebuilt "
                          "(indexes, leader-epoch-checkpoint, a gone directory's "
                          "partition.metadata), rewritten (log-dir checkpoints), "
                          "reserved (an empty active segment at the next offset: the offsets "
                          "below it written, none kept), left-out"),
        ("detail", "str", "why, in words"),
        ("size", "int|null", "bytes written (null when left out)"),
        ("sha256", "str|null", "of the output (null when left out)"),
    ]),
    "repair_partition": ("repair: one partition (replica) copied", [
        ("log_dir", "str|null", "the input log dir, when known"), ("topic", "str", ""),
        ("partition", "int", ""),
        ("input", "str", "the partition directory read (where it was, when it is gone while "
                         "the log dir's checkpoints name it)"),
        ("output", "str|null", "its copy, relative to DIR; null when nothing was written (a "
                               "gone partition directory whose topic id is unknown)"),
        ("segments", "int", "segments written"), ("batches", "int", "batches kept"),
        ("records", "int", "records in them"), ("bytes", "int", "bytes of them"),
        ("first_offset", "int|null", "first kept offset"),
        ("log_end_offset", "int", "the copy's log end offset"),
        ("input_log_end_offset", "int|null", "after the input's last intact batch"),
        ("regions_dropped", "int", "repair_dropped objects of this partition"),
        ("bytes_dropped", "int", ""),
        ("data_lost", "bool", "the copy lacks offsets a witness proves written (lost_offsets is "
                              "not empty); false after a complete fill"),
        ("lost_offsets", "list", "[[first, last]] offset ranges the copy holds no batch of that "
                                 "were written: a dropped region's unfilled gap, the reserved "
                                 "offsets, a gap between batches of a delete-policy topic (a "
                                 "segment gone from the middle), a range the partition's "
                                 "witnesses prove written; verify-crc on the copy names the "
                                 "same ranges data-lost"),
        ("reserved_offsets", "list|null", "[first, last] offsets the witnesses prove written that "
                                          "the copy holds no batch of: its next offset is last + "
                                          "1 (an empty active segment there), so none is handed "
                                          "out again; null when nothing is reserved"),
        ("witnesses", "list", "what proves the highest offset written, in words (checkpoint "
                              "values, file names)"),
        ("filled_offsets", "list", "[[first, last]] offset ranges filled from another broker's "
                                   "replica (repair_fill)"),
        ("index_interval_bytes", "int", "index.interval.bytes the indexes were rebuilt with"),
        ("index_interval_from", "str", "inferred from the input's .index files, the option, or "
                                       "Kafka's default"),
        ("leader_epochs", "list", "[[epoch, start offset]] of leader-epoch-checkpoint"),
        ("producer_snapshots", "object", "{kept: [offsets], left_out: [offsets]}"),
        ("checkpoints", "object", "per log-dir checkpoint: [before, after] (null: no entry)"),
        ("kafka", "object", "what Kafka's own recovery (LogLoader) would have done with the "
                            "input: recovery, recovered_from, truncated, deleted_segments, "
                            "bytes_removed, intact_batches_lost, intact_records_lost, "
                            "intact_bytes_lost, log_end_offset"),
        ("saved_batches", "int", "intact batches the copy keeps that Kafka's recovery loses"),
        ("saved_records", "int", ""), ("saved_bytes", "int", ""),
        ("notes", "list", "what else was decided, in words"),
    ]),
    "repair_fill": ("repair: a dropped range and another broker's replica (--replica): filled "
                    "byte for byte from it, or why not", [
        ("log_dir", "str|null", "the damaged replica's log dir"), ("topic", "str", ""),
        ("partition", "int", ""),
        ("first_offset", "int", "the first offset the copy lacked"),
        ("last_offset", "int", "the last (at the log's end: the highest offset written)"),
        ("filled", "bool", "the replica's batches were copied in"),
        ("filled_offsets", "list|null", "[first, last] offsets of the batches copied in"),
        ("batches", "int", "batches copied in"), ("records", "int", "their records (headers)"),
        ("bytes", "int", ""),
        ("replica_log_dir", "str", "the --replica log dir"),
        ("replica_broker_id", "int", "its node.id / broker.id"),
        ("sources", "list", "[{file, position, length, first_offset, last_offset}]: the bytes "
                            "copied, runs of one replica file each"),
        ("output", "str|null", "the copy's segment they went into, relative to DIR"),
        ("detail", "str", "why they were taken (the replicas agree around the gap), or why not "
                          "(a diverged history, damage on the replica, no such batches)"),
    ]),
    "repair_absent": ("repair: a replica the KRaft metadata assigns to a log dir's broker with no "
                      "directory there (the log dir's verdict, as verify-crc says it): named; no "
                      "directory made unless offsets were proved written on it", [
        ("log_dir", "str", "the input log dir"), ("topic", "str", ""), ("partition", "int", ""),
        ("input", "str", "where its directory would be"),
        ("output", "str|null", "its copy, relative to DIR, when offsets were proved written on it "
                               "(recreated over them: its repair_partition); null: no "
                               "directory made (a broker given the copy creates the log when it "
                               "applies the assignment)"),
        ("kind", "str", "the verdict's finding kind: assigned-absent, or data-lost where another "
                        "replica given holds batches of the leader epoch this broker leads"),
        ("severity", "str", "the verdict's: error (data-lost), warning (the metadata pins the "
                            "replica to this log dir and counts it in sync) or info"),
        ("detail", "str", "the verdict's words, as verify-crc says them on the input"),
        ("data_lost", "bool", "lost_offsets is not empty"),
        ("lost_offsets", "list", "[[first, last]] offsets the verdict proves written on this "
                                 "replica that the copy holds no batch of (its "
                                 "repair_partition's; empty after a complete fill, and unless "
                                 "data-lost)"),
        ("replicas", "list", "the --replica log dirs holding the partition"),
        ("filled", "bool", "a --replica filled offsets proved written on it (an unproved "
                           "replica is never filled: see notes)"),
        ("notes", "list", "what the copy does about it and why, in words (Kafka's source)"),
    ]),
    "repair_input": ("repair: an input file's SHA-256 before and after the repair", [
        ("file", "str", ""), ("size", "int|null", ""), ("modified", "str|null", "ISO-8601 UTC"),
        ("sha256_before", "str|null", "hashed as it was read"),
        ("sha256_after", "str|null", "hashed again once the copy was written"),
        ("unchanged", "bool", "same hash, size and modification time"),
    ]),
    "repair_end": ("closes kdump repair's manifest (the manifest file's last line)", [
        ("into", "str", "DIR"), ("dry_run", "bool", ""),
        ("partitions", "int", ""),
        ("damaged_partitions", "int", "partitions with damage: a region dropped that is not "
                                      "information, offsets lost, or a range filled"),
        ("batches", "int", "kept"), ("records", "int", "kept"),
        ("regions_dropped", "int", ""), ("bytes_dropped", "int", ""),
        ("saved_batches", "int", "intact batches Kafka's own recovery would have lost"),
        ("saved_records", "int", ""), ("saved_bytes", "int", ""),
        ("inputs", "int", "input files hashed"), ("inputs_unchanged", "bool", ""),
        ("outputs", "int", "files written"),
        ("filled_batches", "int", "batches filled from other brokers' replicas"),
        ("reserved_partitions", "int", "partitions whose next offset was moved past offsets "
                                       "written but not kept"),
        ("absent_replicas", "int", "repair_absent objects: replicas assigned here with no "
                                   "directory"),
        ("manifest", "str|null", "the manifest file, relative to DIR; null with --dry-run"),
        ("complete", "bool", "the copy is whole and in place (false with --dry-run)"),
        ("clean", "bool", "nothing had to be dropped, nothing is lost and no replica assigned "
                          "here is absent with a warning (zeros preallocated, a batch in "
                          "flight past every witness, an absent replica the verdict calls "
                          "information aside): exit 0"),
    ]),
})
