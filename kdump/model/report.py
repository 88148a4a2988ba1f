"""``kdump report``'s own objects (kdump/ops/report/): the chain of custody's head and
end, the sections (whose other objects are the other commands' kinds), the inputs, and
what only the report says (activity, timeline, open transactions, schema usage).
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "report": ("opens kdump report: the chain of custody's head", [
        ("kdump_version", "str", ""), ("command", "list", "the command line, as a list"),
        ("inputs", "list", "the paths given"), ("cwd", "str", "the working directory (relative inputs)"),
        ("host", "str", "the machine's host name"), ("started", "str", "ISO-8601 UTC"),
        ("python", "str", "the Python version that ran kdump"),
    ]),
    "section": ("report: the objects after it belong to this section (custody, cluster, data, "
                "findings, groups, transactions, schemas, retention)",
                [("name", "str", ""), ("title", "str", "")]),
    "input_file": ("report: a file found under the inputs", [
        ("file", "str", "path"),
        ("kind", "str", "as dump names it; other: a file the walk passes over (not a Kafka file)"),
        ("topic", "str|null", "null outside a partition"),
        ("partition", "int|null", ""), ("size", "int|null", "bytes hashed (apparent, as ls "
                                                            "shows them); null when unreadable"),
        ("disk_bytes", "int|null", "bytes allocated on disk (st_blocks x 512, as du counts "
                                   "them: a preallocated .index is sparse); null when "
                                   "unreadable or in an object store (no block counts)"),
        ("modified", "str|null", "modification time, ISO-8601 UTC (null when unknown)"),
        ("sha256", "str|null", "hex digest of the whole file, streamed; null when unreadable"),
        ("read", "bool", "false for files no check reads (unknown kinds, lock files) or could "
                         "not be read"),
        ("error", "str|null", "why it could not be read; null"),
    ]),
    "cluster_image": ("report: the cluster whose KRaft metadata image the cluster section's "
                      "objects after it describe (one per cluster.id among the inputs, each "
                      "from the fullest replica of its own metadata log)", [
        ("cluster_id", "str|null", "the cluster.id of the log dir holding the metadata log"),
        ("metadata_dir", "str", "the __cluster_metadata-0 directory read"),
    ]),
    "log_dir": ("report: a log dir holding the data section's partitions, with the cluster "
                "and broker its meta.properties name (rows are kept apart by them)", [
        ("log_dir", "str", "as the partition rows name it"),
        ("cluster_id", "str|null", "cluster.id (null: none written)"),
        ("broker_id", "int|null", "node.id or broker.id (null: none)"),
    ]),
    "activity": ("report: a topic's records over time, from batch timestamps (each partition "
                 "counted once, from its replica holding the most records)", [
        ("topic", "str", ""), ("bucket_ms", "int", "width of a bucket"),
        ("buckets", "list", "[[start epoch ms, records]] for the buckets holding records"),
        ("records", "int", "records counted (control batches and timestamps <= 0 left out)"),
    ]),
    "timeline": ("report: the cluster's history from __cluster_metadata (leader and ISR "
                 "changes, fencing, topics created and deleted)", [
        ("changes", "int", "entries in the whole history"), ("shown", "int", "entries kept: the latest"),
        ("entries", "list", "change objects (as metadata --history writes them)"),
    ]),
    "transaction": ("report: a transaction with no marker at the end of a partition", [
        ("topic", "str", ""), ("partition", "int", ""), ("log_dir", "str", "the replica read"),
        ("producer_id", "int", ""), ("producer_epoch", "int", ""), ("first_offset", "int", ""),
        ("first_timestamp", "int", "its first batch's"), ("last_offset", "int", "the partition's"),
        ("age_ms", "int", "the partition's last timestamp minus first_timestamp"),
        ("state", "str", "hanging when age_ms exceeds transaction.max.timeout.ms's default "
                         "(900000), else open"),
    ]),
    "schema_usage": ("report: how a data topic's records name the schema registry's ids "
                     "(the payload framing or schema-id header; nothing decoded)", [
        ("topic", "str", ""),
        ("records", "int", "records read (each partition's first replica listed)"),
        ("keys", "list", "[[schema id, records]] whose key names an id the registry holds"),
        ("values", "list", "[[schema id, records]] whose value names an id the registry holds"),
        ("unknown_ids", "list", "[[schema id, keys and values]] framed with an id the "
         "registry does not hold (null id: a GUID it does not know)"),
        ("not_framed", "int", "values with data but no schema-id framing or header"),
    ]),
    "report_end": ("closes kdump report", [
        ("ended", "str", "ISO-8601 UTC"), ("seconds", "float", "elapsed"), ("files", "int", "files found"),
        ("errors", "int", "findings"), ("warnings", "int", ""), ("infos", "int", ""),
        ("clean", "bool", "no error and no warning, every file read"),
    ]),
})
