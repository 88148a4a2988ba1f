"""The findings every command writes (``problem``, kdump/findings.py says each kind) and
the summary that closes ``verify-crc`` and ``verify-index`` (kdump/ops/verify_crc.py,
kdump/ops/verify_index/).
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "problem": ("a finding: damage, a mismatch, an unreadable file (every command)", [
        ("file", "str|null", "path"),
        ("position", "int|null", "absolute byte position where the bad batch or region "
                                 "starts (null when not about bytes)"),
        ("kind", "str", "stable name, see PROBLEM KINDS"), ("severity", "str", "error, warning or info"),
        ("detail", "str", "what is wrong, in words"),
        ("base_offset", "int|null", "batch base offset, when known"),
        ("length", "int|null", "bytes affected, when a byte range is"),
        ("index_offset?", "int", "index mismatches"), ("log_offset?", "int", "index mismatches"),
        ("check?", "str", "time-index checks"),
        ("after?", "int", "offset gaps"),
        ("next?", "int", "offset gaps"),
        ("lost_offsets?", "list", "data-lost, offset-gap, zero-tail and truncated: [first, last] "
                                  "offsets written (the witnesses say) that no batch holds"),
        ("witnesses?", "list", "data-lost, offset-gap, and a zero-tail or truncated finding "
                               "naming lost_offsets: what proves the offsets written, each "
                               "{witness, path, end (offsets below it were written), offset?, "
                               "broker_id?}; the README's verify-crc section says which proves "
                               "what"),
        ("topic?", "str", "findings about a topic or partition (partition-offline, "
                          "partition-under-replicated, replica-*, hanging-transaction, "
                          "schema-id-unknown)"),
        ("partition?", "int", "findings about a partition"),
        ("broker?", "int|null", "broker-fenced: the broker; cluster-stopped: the last broker to "
                                "go down"),
        ("offset?", "int|null", "cluster-stopped: the metadata record that stopped the cluster "
                                "(null: read from a snapshot)"),
        ("timestamp?", "int|null", "cluster-stopped: that record's time"),
        ("partitions_without_leader?", "int", "cluster-stopped: partitions whose leader is -1"),
        ("records?", "int", "schema findings: the record keys and values they count"),
        ("schema_id?", "int", "schema-deleted-in-use"),
        ("schema_ids?", "list", "schema-id-unknown: the ids the registry does not hold"),
        ("...?", "any", "other kind-specific details"),
    ]),
    "summary": ("closes verify-crc and verify-index", [
        ("command", "str", "verify-crc or verify-index"), ("files", "int", "logs checked"),
        ("bytes", "int", "bytes of those logs"), ("batches", "int", "batches framed"),
        ("valid_batches", "int", ""), ("invalid_batches", "int", ""),
        ("records", "int", "records checked (of batches whose CRC holds)"),
        ("invalid_records", "int", "records of batches whose CRC fails, counted apart"),
        ("unreadable_bytes", "int", "bytes in damaged regions"), ("problems", "int", "findings"),
        ("errors", "int", ""),
        ("warnings", "int", ""),
        ("infos", "int", ""),
        ("by_kind", "object", "findings per kind"),
        ("in_flight", "int", "half-written batches at the end of active segments (a live broker's "
                             "append; not damage)"),
        ("clean", "bool", "no error and no warning"),
    ]),
})
