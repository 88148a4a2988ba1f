"""What ``kdump metadata`` writes: the image's objects, the closing ``image`` object,
history entries (``change``) and differences (``difference``, closed by ``diff``).

Every object is a plain dict ready for JSON, shaped by the output model
(:func:`kdump.model.shape_metadata`: fields and their order as
:data:`kdump.model.METADATA_SCHEMA` declares them); :func:`object_path` names it the way
kafka-metadata-shell lays the image out (``/topics/orders/0``), for the text format.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..model import shape_metadata
from .image import SECTION_ORDER, Key, MetadataImage, object_sort_key
from .replay import Event, Replay

__all__ = ["Selector", "describe", "diff_objects", "diff_summary", "history_object",
           "history_summary", "image_objects", "image_summary", "object_path"]

#: fields that name an object rather than describe it (never reported as changed)
_IDENTITY = {"type", "name", "id", "topic", "topic_id", "partition", "resource_type",
             "resource_name", "key", "entity", "token_id", "mechanism"}


def image_objects(image: MetadataImage) -> list[dict[str, Any]]:
    """The image's objects in section order; controllers gain what the quorum's control
    records say (voter, leader)."""
    out = image.sorted_objects()
    voters = set(image.voters or [])
    ctrl_ids = {o["id"] for o in out if o["type"] == "controller"}
    extra: list[dict[str, Any]] = [
        {"type": "controller", "id": v, "incarnation_id": None, "zk_migration_ready": None,
         "endpoints": [], "features": []} for v in sorted(voters - ctrl_ids)]
    result: list[dict[str, Any]] = []
    controllers: list[dict[str, Any]] = []
    for o in out:
        if o["type"] == "controller":
            controllers.append(o)
    controllers = sorted(controllers + extra, key=lambda c: c["id"])
    placed = False
    for o in out:
        if o["type"] == "controller":
            continue
        if not placed and SECTION_ORDER.index(o["type"]) > SECTION_ORDER.index("controller"):
            result.extend(_controller(c, image, c["id"] in ctrl_ids) for c in controllers)
            placed = True
        result.append(o)
    if not placed:
        result.extend(_controller(c, image, c["id"] in ctrl_ids) for c in controllers)
    return [shape_metadata(o["type"], o) for o in result]


def _controller(c: dict[str, Any], image: MetadataImage, registered: bool) -> dict[str, Any]:
    out = dict(c)
    out["registered"] = registered
    out["voter"] = None if image.voters is None else c["id"] in image.voters
    out["leader"] = image.leader_id is not None and image.leader_id == c["id"]
    return out


def image_summary(r: Replay, *, quorum_state: Any = None) -> dict[str, Any]:
    """The closing ``image`` object: where the image stands and what built it."""
    img = r.image
    snap = None
    if r.snapshot is not None:
        snap = {"file": r.snapshot.path, "end_offset": r.snapshot.end_offset,
                "epoch": r.snapshot.epoch, "timestamp": r.snapshot_timestamp}
    counts = {"topics": 0, "partitions": 0, "brokers": 0}
    for k in img.objects:
        if k[0] == "topic":
            counts["topics"] += 1
        elif k[0] == "partition":
            counts["partitions"] += 1
        elif k[0] == "broker":
            counts["brokers"] += 1
    feature = img.objects.get(("feature", "metadata.version"))
    return shape_metadata("image", {
        "offset": r.offset,
        "timestamp": r.timestamp,
        "target": r.target.describe(),
        "snapshot": snap,
        "log_segments": list(r.segments_used),
        "skipped_segments": [{"file": p, "why": w} for p, w in r.segments_skipped],
        "log_start_offset": r.log_start,
        "log_end_offset": r.log_end,
        "overlap": None if r.overlap is None else {"first": r.overlap[0], "last": r.overlap[1]},
        "gaps": [{"first": a, "last": b} for a, b in r.gaps],
        "records_applied": r.records_applied,
        "records_failed": r.records_failed,
        "records_by_type": dict(sorted(r.records_by_type.items())),
        "records_without_effect": dict(sorted(r.no_effect.items())),
        "transactions_committed": r.transactions_committed,
        "transactions_aborted": r.transactions_aborted,
        "records_aborted": r.records_aborted,
        "pending_transaction": r.pending_transaction,
        "metadata_version": None if feature is None else feature["level"],
        "zk_migration_state": img.zk_migration_state,
        "kraft_version": img.kraft_version,
        "leader_id": img.leader_id,
        "leader_epoch": img.leader_epoch,
        "voters": img.voters,
        "quorum_state_file": quorum_state,
        "complete": r.complete,
        **counts,
        **r.health().summary(),
    })


def brief_summary(r: Replay) -> dict[str, Any]:
    """Where an image stands, in short (for ``diff`` and ``history``)."""
    full = image_summary(r)
    return {k: full[k] for k in ("offset", "timestamp", "target", "snapshot", "log_segments",
                                 "gaps", "records_applied", "records_failed", "complete")}


# ----------------------------------------------------------------------------- paths


def object_path(obj: dict[str, Any]) -> list[str]:
    """Path segments in the spirit of kafka-metadata-shell."""
    t = obj["type"]
    if t == "feature":
        return ["features", obj["name"]]
    if t == "broker":
        return ["brokers", str(obj["id"])]
    if t == "controller":
        return ["controllers", str(obj["id"])]
    if t == "topic":
        return ["topics", obj["name"]]
    if t == "partition":
        return ["topics", obj["topic"], str(obj["partition"])]
    if t == "config":
        return ["configs", obj["resource_type"], obj["resource_name"], obj["name"]]
    if t == "quota":
        ent = ",".join(f"{k}={'<default>' if v is None else v}" for k, v in obj["entity"].items())
        return ["quotas", ent, obj["key"]]
    if t == "acl":
        return ["acls", obj["id"]]
    if t == "producer_ids":
        return ["producerIds"]
    if t == "scram_user":
        return ["scram", obj["mechanism"], obj["name"]]
    if t == "delegation_token":
        return ["delegationTokens", obj["token_id"]]
    return [t]


def object_label(obj: dict[str, Any]) -> str:
    """Short name of an object for history and diff lines: ``orders/0``, ``broker 1``."""
    t = obj["type"]
    if t == "partition":
        return f"{obj['topic']}/{obj['partition']}"
    if t == "topic":
        return obj["name"]
    if t in ("broker", "controller"):
        return f"{t} {obj['id']}"
    if t == "config":
        return f"{obj['resource_type']} {obj['resource_name']!r} {obj['name']}"
    return "/".join(object_path(obj))


# ----------------------------------------------------------------------------- changes


def _show(v: Any) -> str:
    if isinstance(v, list):
        if all(isinstance(x, int) for x in v):
            return "[" + ",".join(str(x) for x in v) + "]"
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_show(x)}" for k, x in v.items()) + "}"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def describe(before: dict[str, Any] | None, after: dict[str, Any] | None
             ) -> tuple[str, list[dict[str, Any]], str]:
    """(action, field changes, text): ``("changed", [...], "leader 1 -> 3, isr [1,2,3] ->
    [1,3]")``; a broker that becomes fenced reads ``fenced``, unfenced ``unfenced``."""
    if before is None and after is None:
        return "unchanged", [], ""
    if before is None:
        assert after is not None
        return "created", [], "created"
    if after is None:
        return "removed", [], "removed"
    fields: list[dict[str, Any]] = []
    words: list[str] = []
    for k in after:
        if k in _IDENTITY and k not in ("mechanism",):
            continue
        a, b = before.get(k), after.get(k)
        if a == b:
            continue
        fields.append({"field": k, "from": a, "to": b})
        if k == "fenced" and isinstance(b, bool):
            words.append("fenced" if b else "unfenced")
        elif k == "in_controlled_shutdown" and isinstance(b, bool):
            words.append("in controlled shutdown" if b else "out of controlled shutdown")
        elif after.get("redacted") and k == "version":
            words.append("value changed (redacted)")
        else:
            words.append(f"{k} {_show(a)} -> {_show(b)}")
    return "changed", fields, ", ".join(words)


def history_object(ev: Event, before: dict[str, Any] | None, after: dict[str, Any] | None
                   ) -> dict[str, Any]:
    obj = after if after is not None else before
    assert obj is not None
    action, fields, text = describe(before, after)
    return shape_metadata("change", {
        "offset": ev.offset, "timestamp": ev.timestamp,
        "record": ev.record_type, "committed_at": ev.committed_at, "object": obj["type"],
        "label": object_label(obj), "path": "/" + "/".join(object_path(obj)),
        "action": action, "changes": fields, "text": text,
    })


def history_summary(selected: str | None, changes: int, r: Replay) -> dict[str, Any]:
    """The ``history`` object closing ``--history``: what was asked, how many entries."""
    return shape_metadata("history", {"object": selected, "changes": changes,
                                      "image": brief_summary(r)})


def diff_summary(a: Replay, b: Replay, differences: int) -> dict[str, Any]:
    """The ``diff`` object closing ``--diff``: where both images stand."""
    return shape_metadata("diff", {"from": brief_summary(a), "to": brief_summary(b),
                                   "differences": differences})


def diff_objects(a: MetadataImage, b: MetadataImage) -> list[dict[str, Any]]:
    """What differs from image ``a`` to image ``b``, in section order."""
    oa, ob = a.objects, b.objects
    keys = set(oa) | set(ob)

    def order(k: Key) -> tuple[Any, ...]:
        obj = ob.get(k) or oa.get(k)
        return (SECTION_ORDER.index(k[0]), *object_sort_key(k[0], k, obj))

    out = []
    for k in sorted(keys, key=order):
        before, after = oa.get(k), ob.get(k)
        if before == after:
            continue
        obj = after if after is not None else before
        assert obj is not None
        action, fields, text = describe(before, after)
        out.append(shape_metadata("difference", {
            "object": obj["type"], "label": object_label(obj),
            "path": "/" + "/".join(object_path(obj)), "action": action,
            "changes": fields, "text": text, "before": before, "after": after}))
    # the quorum, held outside the objects
    for name in ("leader_id", "voters", "kraft_version", "zk_migration_state"):
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            out.append(shape_metadata("difference", {
                "object": "quorum", "label": name, "path": f"/quorum/{name}",
                "action": "changed", "changes": [{"field": name, "from": va, "to": vb}],
                "text": f"{name} {_show(va)} -> {_show(vb)}", "before": None,
                "after": None}))
    return out


# ----------------------------------------------------------------------------- --history


@dataclass(frozen=True)
class Selector:
    """``--history`` argument: ``TOPIC``, ``TOPIC/PARTITION``, ``broker:ID``,
    ``controller:ID``, ``feature:NAME``, ``config:NAME`` or ``config:TYPE/NAME``
    (TYPE: topic, broker, ...); empty: everything."""

    kind: str  # "all", "topic", "partition", "broker", "controller", "feature", "config"
    name: str = ""
    number: int | None = None
    resource_type: str | None = None

    @staticmethod
    def parse(text: str | None) -> Selector:
        if not text:
            return Selector("all")
        head, sep, rest = text.partition(":")
        if sep and head in ("broker", "controller"):
            if not rest.isdigit():
                raise UsageError(f"--history {text!r}: {head}:ID takes a number")
            return Selector(head, number=int(rest))
        if sep and head == "feature":
            return Selector("feature", rest)
        if sep and head == "config":
            rtype, slash, rname = rest.partition("/")
            if slash and rtype.upper() in ("TOPIC", "BROKER", "BROKER_LOGGER", "CLIENT_METRICS",
                                           "GROUP", "UNKNOWN"):
                return Selector("config", rname, resource_type=rtype.upper())
            return Selector("config", rest)
        topic, slash, part = text.rpartition("/")
        if slash and part.isdigit() and topic:
            return Selector("partition", topic, number=int(part))
        return Selector("topic", text)

    def matches(self, obj: dict[str, Any]) -> bool:
        t = obj["type"]
        k = self.kind
        if k == "all":
            return True
        if k == "topic":
            return (t == "topic" and obj["name"] == self.name) or \
                (t == "partition" and obj["topic"] == self.name)
        if k == "partition":
            return t == "partition" and obj["topic"] == self.name and \
                obj["partition"] == self.number
        if k in ("broker", "controller"):
            return t == k and obj["id"] == self.number
        if k == "feature":
            return t == "feature" and obj["name"] == self.name
        if k == "config":
            return t == "config" and obj["resource_name"] == self.name and \
                (self.resource_type is None or obj["resource_type"] == self.resource_type)
        return False

    def entries(self, ev: Event) -> Iterable[dict[str, Any]]:
        for c in ev.changes:
            obj = c.after if c.after is not None else c.before
            if obj is not None and self.matches(obj):
                yield history_object(ev, c.before, c.after)
