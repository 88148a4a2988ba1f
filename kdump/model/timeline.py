"""``kdump timeline``'s objects: one event of the cluster's history, a count of events per
kind per minute (``--summary``), and the object closing the run."""

from __future__ import annotations

from .fields import Kinds, typed

#: how an event's time is known (the ``clock`` field)
CLOCKS = {
    "controller": "the active controller's clock: the timestamp of the __cluster_metadata "
                  "batch holding the record",
    "producer": "the producer's clock: a data batch's maxTimestamp under CreateTime",
    "broker": "the leader broker's clock: a batch's maxTimestamp under LogAppendTime, or a "
              "transaction marker's timestamp (the leader appends it)",
    "coordinator": "the group or transaction coordinator's clock: commitTimestamp, "
                   "currentStateTimestamp, transactionLastUpdateTimestampMs, or the "
                   "timestamp of the coordinator's own batch",
    "unknown": "no time is known (the event is placed first)",
}

KINDS: Kinds = typed({
    "timeline_event": ("timeline: one event, in time order", [
        ("time", "int|null", "epoch milliseconds; null when no time is known"),
        ("clock", "str", "whose clock the time is on: controller, producer, broker, "
                         "coordinator or unknown (docs/timeline.md); a replica's epoch "
                         "start with no batch yet is on the controller's, of the leader "
                         "change that began it, an estimate"),
        ("estimate", "bool", "true: the time is an estimate (a segment roll, a log-start "
                             "move, a finding: bounded by the batches around it), never exact"),
        ("kind", "str", "what happened (docs/timeline.md lists the kinds): broker-fenced, "
                        "leader-change, isr-change, epoch-start, segment-roll, txn-abort, "
                        "group-rebalance, offsets-committed, finding, ..."),
        ("source", "str", "where it comes from: metadata, replica, producer, "
                          "transaction-state, group, finding, logdir"),
        ("file", "str|null", "the file holding the bytes it was read from"),
        ("position", "int|null", "the byte position in that file (of the batch)"),
        ("offset", "int|null", "the log offset of the record or batch"),
        ("broker", "int|null", "the broker the event is about, or whose log dir holds it"),
        ("log_dir", "str|null", "the log dir the bytes come from"),
        ("topic", "str|null", ""), ("partition", "int|null", ""),
        ("producer_id", "int|null", ""),
        ("transactional_id", "str|null", ""),
        ("group", "str|null", ""),
        ("object", "str", "what changed, in words: 'broker 2', 'orders/0', 'group payments'"),
        ("text", "str", "what changed, in words: 'fenced', 'leader 1 -> 3, epoch 7'"),
        ("related", "list", "events that explain this one, in words (correlation): "
                            "'broker 3 fenced at 2023-11-14T23:13:20.000Z (offset 12)'"),
        ("late", "bool", "true: emitted after a later event of its source (its source's "
                         "times went back by more than the reorder buffer holds)"),
        ("severity?", "str", "findings only: info, warning or error"),
        ("replicas?", "list", "an event several replicas show alike, said once: each replica "
                              "[{broker, log_dir, file, position}] (broker and log_dir are "
                              "then null; file and position are the first replica's)"),
        ("members?", "list", "group events saying assignments: [{member_id, client_id, "
                             "client_host, group_instance_id, subscribed: [topic] or null, "
                             "assigned}]; a classic consumer group's rebalance (protocol "
                             "type consumer): every member, from the GroupMetadataValue's "
                             "ConsumerProtocolSubscription and ConsumerProtocolAssignment, "
                             "assigned [{topic, partitions}] or null (bytes that do not "
                             "decode); a consumer or share group's member assignment "
                             "record: that member, assigned [{topic (null where no record "
                             "names the id), topic_id, partitions}]; a streams group's: "
                             "assigned [{subtopology_id, partitions}] (active tasks)"),
    ]),
    "timeline_count": ("timeline --summary: events of a kind in one minute", [
        ("minute", "int", "the minute's start, epoch milliseconds (-1: no time known)"),
        ("kind", "str", ""), ("count", "int", ""),
    ]),
    "timeline_end": ("closes timeline", [
        ("events", "int", "events read from every source, before filters"),
        ("shown", "int", "events written (after filters)"),
        ("sources", "list", "what was read: [{source, path, broker}]"),
        ("first_time", "int|null", "the earliest event time shown"),
        ("last_time", "int|null", "the latest event time shown"),
        ("late", "int", "events emitted out of time order"),
        ("bytes_read", "int", "bytes read from logs by the header walks and replays"),
    ]),
})
