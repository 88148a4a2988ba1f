"""``kdump browse``'s data, from the core like every command's: the tree of log dirs,
topics and partitions (:mod:`.tree`), one partition's rows, records and lookups
(:mod:`.partition`), and a batch's bytes with its fields named (:mod:`.hexview`).
The interface (kdump/tui) only draws what these give."""

from __future__ import annotations

from .hexview import HexField, HexModel, hex_model, locate_single_bit
from .partition import (
    PAGE_ROWS,
    BatchRow,
    Jump,
    LastScan,
    PartitionView,
    RecordRow,
    RecordsPage,
    position_label,
)
from .tree import (
    Evidence,
    LogDirNode,
    PartitionFindings,
    PartitionNode,
    SegmentInfo,
    TopicNode,
    add_absent,
    browse_tree,
    drop_explained,
    finding_order,
    is_missing_row,
    log_dir_verdicts,
    missing_partitions,
    partition_findings,
    what_is_there,
)

__all__ = [
    "PAGE_ROWS",
    "BatchRow",
    "Evidence",
    "HexField",
    "HexModel",
    "Jump",
    "LastScan",
    "LogDirNode",
    "PartitionFindings",
    "PartitionNode",
    "PartitionView",
    "RecordRow",
    "RecordsPage",
    "SegmentInfo",
    "TopicNode",
    "add_absent",
    "browse_tree",
    "drop_explained",
    "finding_order",
    "hex_model",
    "is_missing_row",
    "locate_single_bit",
    "log_dir_verdicts",
    "missing_partitions",
    "partition_findings",
    "position_label",
    "what_is_there",
]
