"""The topic configs retention and the log cleaner read, resolved as a broker resolves
them, each value with where it came from.

Order (highest first), from Kafka's sources:

1. ``--config TOPIC:KEY=VALUE`` (what the user says the topic's override is);
2. the topic's dynamic config: a ``ConfigRecord`` of resource type TOPIC in the KRaft
   metadata (``ConfigurationControlManager``; kdump's metadata image);
3. for Kafka's own topics, when the metadata holds no override: the configs the broker
   creates them with (``GroupCoordinatorService.groupMetadataTopicConfigs``,
   ``TransactionStateManager.transactionTopicConfigs``,
   ``ShareCoordinatorService.shareGroupStateTopicConfigs``,
   ``TopicBasedRemoteLogMetadataManager.createRemoteLogMetadataTopicRequest``), and the
   schema registry's ``_schemas`` (created compacted);
4. the broker's dynamic config for its id, then the cluster-wide dynamic default (a
   ``ConfigRecord`` of resource type BROKER named by the id, or named ``""``): only a
   topic config's first broker synonym is dynamic (``DynamicLogConfig.
   ReconfigurableConfigs`` = ``ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS``), and a
   dynamic value removes its static synonyms (``DynamicBrokerConfig.overrideProps``);
5. ``server.properties``: the broker synonyms in ``ServerTopicConfigSynonyms.
   ALL_TOPIC_CONFIG_SYNONYMS`` order (``log.retention.ms`` > ``log.retention.minutes`` >
   ``log.retention.hours``; a negative broker retention is -1, ``KafkaConfig.
   logRetentionTimeMillis``);
6. Kafka's defaults (``LogConfig``, ``ServerLogConfigs``, ``CleanerConfig``).

Values are parsed as ``ConfigDef`` parses them (LONG, INT, DOUBLE, LIST, BOOLEAN) and
checked against ``LogConfig``'s validators; a bad value given by the user (a
``server.properties`` line, ``--config``) is a :class:`~kdump.errors.UsageError` naming
it, a bad one read from the metadata is a finding and the next source is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...errors import KdumpError, UsageError
from ...files.text import PropertyLine, iter_properties_strict
from ...findings import WARNING, Problem
from ...source import FileSource
from ...timestamps import iso_ms

LONG_MAX = 2**63 - 1
INT_MAX = 2**31 - 1
HOUR_MS = 3_600_000
MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class Key:
    """A topic config kdump reads: its ConfigDef type, Kafka's default, its broker
    synonyms (name, factor to the topic's unit) and LogConfig's validator."""

    name: str
    kind: str  # long | int | double | list | bool | string
    default: Any
    synonyms: tuple[tuple[str, int], ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()


#: the topic configs the retention check and the cleaner read (LogConfig.CONFIG, 3.9-4.3)
KEYS: dict[str, Key] = {k.name: k for k in (
    Key("cleanup.policy", "list", "delete", (("log.cleanup.policy", 1),),
        choices=("compact", "delete")),
    Key("retention.ms", "long", 7 * 24 * HOUR_MS,
        (("log.retention.ms", 1), ("log.retention.minutes", MINUTE_MS),
         ("log.retention.hours", HOUR_MS)), minimum=-1),
    Key("retention.bytes", "long", -1, (("log.retention.bytes", 1),)),
    Key("segment.bytes", "int", 1 << 30, (("log.segment.bytes", 1),), minimum=14),
    # a new segment's .index and .timeindex are preallocated to it (AbstractIndex), 10 MiB
    # (ServerLogConfigs.LOG_INDEX_SIZE_MAX_BYTES_DEFAULT, 3.9 and 4.x)
    Key("segment.index.bytes", "int", 10 * 1024 * 1024, (("log.index.size.max.bytes", 1),),
        minimum=4),
    Key("segment.ms", "long", 7 * 24 * HOUR_MS,
        (("log.roll.ms", 1), ("log.roll.hours", HOUR_MS)), minimum=1),
    Key("delete.retention.ms", "long", 24 * HOUR_MS,
        (("log.cleaner.delete.retention.ms", 1),), minimum=0),
    Key("min.compaction.lag.ms", "long", 0, (("log.cleaner.min.compaction.lag.ms", 1),),
        minimum=0),
    Key("max.compaction.lag.ms", "long", LONG_MAX, (("log.cleaner.max.compaction.lag.ms", 1),),
        minimum=1),
    Key("min.cleanable.dirty.ratio", "double", 0.5, (("log.cleaner.min.cleanable.ratio", 1),),
        minimum=0, maximum=1),
    Key("file.delete.delay.ms", "long", 60_000, (("log.segment.delete.delay.ms", 1),),
        minimum=0),
    Key("message.timestamp.type", "string", "CreateTime", (("log.message.timestamp.type", 1),),
        choices=("CreateTime", "LogAppendTime")),
    Key("message.timestamp.after.max.ms", "long", None,
        (("log.message.timestamp.after.max.ms", 1),), minimum=0),
    Key("remote.storage.enable", "bool", False),
    Key("remote.log.copy.disable", "bool", False),
    Key("local.retention.ms", "long", -2, (("log.local.retention.ms", 1),), minimum=-2),
    Key("local.retention.bytes", "long", -2, (("log.local.retention.bytes", 1),), minimum=-2),
)}

#: broker configs with no topic twin that decide whether retention or the cleaner run
#: at all (static only: KafkaConfig, CleanerConfig, RemoteLogManagerConfig)
BROKER_KEYS: dict[str, Key] = {k.name: k for k in (
    Key("log.cleaner.enable", "bool", True),
    Key("log.retention.check.interval.ms", "long", 300_000, minimum=1),
    Key("remote.log.storage.system.enable", "bool", False),
    # the KRaft metadata log (__cluster_metadata) is trimmed after snapshots by these, not
    # by topic retention: KRaftConfigs (3.9, 4.0), raft/.../MetadataLogConfig.java (4.1+),
    # 7 days and 100 MiB by default in all of them
    Key("metadata.max.retention.ms", "long", 604_800_000),
    Key("metadata.max.retention.bytes", "long", 100 * 1024 * 1024),
)}

#: every topic config of Kafka 3.0-4.3 (TopicConfig, QuotaConfig): --config accepts
#: these (those kdump does not read change nothing)
TOPIC_CONFIG_NAMES = frozenset({
    "segment.bytes", "segment.ms", "segment.jitter.ms", "segment.index.bytes",
    "flush.messages", "flush.ms", "retention.bytes", "retention.ms", "remote.storage.enable",
    "local.retention.ms", "local.retention.bytes", "remote.log.copy.disable",
    "remote.log.delete.on.disable", "max.message.bytes", "index.interval.bytes",
    "file.delete.delay.ms", "delete.retention.ms", "min.compaction.lag.ms",
    "max.compaction.lag.ms", "min.cleanable.dirty.ratio", "cleanup.policy",
    "unclean.leader.election.enable", "min.insync.replicas", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level",
    "preallocate", "message.format.version", "message.timestamp.type",
    "message.timestamp.difference.max.ms", "message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms", "message.downconversion.enable",
    "leader.replication.throttled.replicas", "follower.replication.throttled.replicas",
})

#: server.properties prefixes whose keys kdump knows all of (ServerLogConfigs,
#: CleanerConfig, ServerTopicConfigSynonyms of 3.0-4.3): a key under them kdump does
#: not know is a typo the broker would ignore (``log.retention.hour``), said as an error
STRICT_PREFIXES = ("log.retention.", "log.cleaner.", "log.cleanup.", "log.segment.",
                   "log.local.retention.")
KNOWN_STRICT = frozenset({
    "log.retention.ms", "log.retention.minutes", "log.retention.hours",
    "log.retention.bytes", "log.retention.check.interval.ms",
    "log.cleaner.enable", "log.cleaner.threads", "log.cleaner.io.max.bytes.per.second",
    "log.cleaner.dedupe.buffer.size", "log.cleaner.io.buffer.size",
    "log.cleaner.io.buffer.load.factor", "log.cleaner.backoff.ms",
    "log.cleaner.min.cleanable.ratio", "log.cleaner.delete.retention.ms",
    "log.cleaner.min.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms",
    "log.cleanup.policy", "log.segment.bytes", "log.segment.delete.delay.ms",
    "log.local.retention.ms", "log.local.retention.bytes",
})
#: topic configs a server.properties may hold under another name (ServerTopicConfigSynonyms,
#: 3.x's log.message.* included): the broker's first synonym; the topic configs that are
#: broker configs under the same name (compression.type ...) are not listed
TOPIC_IN_BROKER_FILE = {
    "segment.bytes": "log.segment.bytes", "segment.ms": "log.roll.ms",
    "segment.jitter.ms": "log.roll.jitter.ms", "segment.index.bytes": "log.index.size.max.bytes",
    "flush.messages": "log.flush.interval.messages", "flush.ms": "log.flush.interval.ms",
    "retention.bytes": "log.retention.bytes", "retention.ms": "log.retention.ms",
    "max.message.bytes": "message.max.bytes", "index.interval.bytes": "log.index.interval.bytes",
    "delete.retention.ms": "log.cleaner.delete.retention.ms",
    "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
    "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
    "file.delete.delay.ms": "log.segment.delete.delay.ms",
    "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
    "cleanup.policy": "log.cleanup.policy", "preallocate": "log.preallocate",
    "message.timestamp.type": "log.message.timestamp.type",
    "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
    "local.retention.ms": "log.local.retention.ms",
    "local.retention.bytes": "log.local.retention.bytes",
    "message.format.version": "log.message.format.version",
    "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
    "message.downconversion.enable": "log.message.downconversion.enable",
    "remote.storage.enable": "", "remote.log.copy.disable": "",
    "remote.log.delete.on.disable": "", "leader.replication.throttled.replicas": "",
    "follower.replication.throttled.replicas": "",
}
#: what a mistyped key probably meant
_DID_YOU_MEAN = {"log.segment.ms": "log.roll.ms", "log.segment.hours": "log.roll.hours",
                 "log.cleanup.interval.ms": "log.retention.check.interval.ms"}

#: the configs Kafka creates its own topics with (see the module docstring), used when
#: the metadata holds no override for them: topic -> {key: value}
INTERNAL_TOPICS: dict[str, dict[str, str]] = {
    "__consumer_offsets": {"cleanup.policy": "compact", "segment.bytes": "104857600"},
    "__transaction_state": {"cleanup.policy": "compact", "segment.bytes": "104857600"},
    "__share_group_state": {"cleanup.policy": "delete", "retention.ms": "-1"},
    "__remote_log_metadata": {"cleanup.policy": "delete", "retention.ms": "-1",
                              "remote.storage.enable": "false"},
    "_schemas": {"cleanup.policy": "compact"},
}
_INTERNAL_WHY = {
    "__consumer_offsets": "GroupCoordinatorService.groupMetadataTopicConfigs",
    "__transaction_state": "TransactionStateManager.transactionTopicConfigs",
    "__share_group_state": "ShareCoordinatorService.shareGroupStateTopicConfigs",
    "__remote_log_metadata": "TopicBasedRemoteLogMetadataManager (remote.log.metadata."
                             "topic.retention.ms default -1)",
    "_schemas": "the schema registry creates its topic compacted",
}

_LONG = re.compile(r"^[+-]?\d+$")


def parse_value(key: Key, text: str) -> Any:
    """``text`` as ConfigDef.parseType reads ``key``'s type, checked by LogConfig's
    validator; ValueError says what is wrong."""
    t = text.strip()
    if key.kind in ("long", "int"):
        if not _LONG.match(t):
            raise ValueError(f"{text!r} is not a number")
        n = int(t)
        top = LONG_MAX if key.kind == "long" else INT_MAX
        if not -top - 1 <= n <= top:
            raise ValueError(f"{t} does not fit a Java {key.kind}")
        value: Any = n
    elif key.kind == "double":
        try:
            value = float(t)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    elif key.kind == "bool":
        if t.lower() not in ("true", "false"):
            raise ValueError(f"{text!r} is not true or false")
        value = t.lower() == "true"
    elif key.kind == "list":
        value = [] if not t else [p.strip() for p in t.split(",")]
        bad = [p for p in value if p.lower() not in key.choices]
        if bad:
            raise ValueError(f"{bad[0]!r} is not one of {', '.join(key.choices)}")
        value = [p.lower() for p in value]
    else:
        if key.choices and t not in key.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(key.choices)}")
        value = t
    if key.minimum is not None and value < key.minimum:
        raise ValueError(f"{t} is below {key.minimum:g}, the least LogConfig accepts")
    if key.maximum is not None and value > key.maximum:
        raise ValueError(f"{t} is above {key.maximum:g}, the most LogConfig accepts")
    return value


def show(value: Any) -> str:
    """A value as ``kafka-configs --describe`` prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class Setting:
    """An effective value and where it came from (a sentence)."""

    value: Any
    source: str


@dataclass(slots=True)
class ServerProperties:
    """A ``server.properties``: its values (key -> (value, line)) and the broker it is
    for (``node.id`` / ``broker.id``; None: any)."""

    path: str
    values: dict[str, PropertyLine] = field(default_factory=dict)
    broker_id: int | None = None


def read_server_properties(path: str) -> ServerProperties:
    """Read and check ``--server-properties``; a line that does not parse, an unknown
    key under the retention prefixes, or a value of a key kdump reads that Kafka would
    refuse is a UsageError naming the file, line and key."""
    try:
        with FileSource(path) as src:
            lines = list(iter_properties_strict(src))
    except KdumpError as e:
        raise UsageError(f"--server-properties {path}: {e.message}") from None
    props = ServerProperties(path)
    for pl in lines:
        props.values[pl.key] = pl  # Properties.load: the last one wins
    for key, pl in props.values.items():
        where = f"--server-properties {path}: line {pl.line}"
        if key in TOPIC_IN_BROKER_FILE:
            broker = TOPIC_IN_BROKER_FILE[key]
            raise UsageError(f"{where}: unknown key {key!r}: a topic config, which a broker "
                             + (f"reads as {broker}" if broker else "does not read (set it on "
                                "the topic; --config TOPIC:KEY=VALUE says it to kdump)")
                             + "; Kafka ignores it here")
        if key.startswith(STRICT_PREFIXES) and key not in KNOWN_STRICT:
            hint = _DID_YOU_MEAN.get(key)
            raise UsageError(f"{where}: unknown key {key!r}"
                             + (f" (did you mean {hint}?)" if hint else
                                " (Kafka ignores it: a typo?)"))
        k = _broker_key(key)
        if k is not None:
            try:
                parse_value(k, pl.value)
            except ValueError as e:
                raise UsageError(f"{where}: {key}: {e}") from None
    raw = props.values.get("node.id") or props.values.get("broker.id")
    if raw is not None and _LONG.match(raw.value.strip()):
        props.broker_id = int(raw.value.strip())
    return props


def _broker_key(name: str) -> Key | None:
    """The Key a broker config name is read as (its topic twin's type, or a broker key)."""
    if name in BROKER_KEYS:
        return BROKER_KEYS[name]
    for k in KEYS.values():
        for syn, _factor in k.synonyms:
            if syn == name:
                return Key(syn, "int" if name.endswith((".minutes", ".hours")) else k.kind,
                           None, choices=k.choices)
    return None


def parse_override(text: str) -> tuple[str, str, str]:
    """``--config TOPIC:KEY=VALUE`` -> (topic, key, value); UsageError when it is not
    that, names a config Kafka does not have, or holds a value Kafka would refuse."""
    topic, sep, rest = text.partition(":")
    key, eq, value = rest.partition("=")
    if not sep or not eq or not topic or not key.strip():
        raise UsageError(f"--config {text!r}: expected TOPIC:KEY=VALUE "
                         "(e.g. orders:retention.ms=86400000)")
    key = key.strip()
    if key not in TOPIC_CONFIG_NAMES:
        hint = ""
        if key.startswith("log.") and key[4:] in TOPIC_CONFIG_NAMES:
            hint = f" (the topic config is {key[4:]})"
        raise UsageError(f"--config {text!r}: unknown topic config {key!r}{hint}")
    if key in KEYS:
        try:
            parse_value(KEYS[key], value)
        except ValueError as e:
            raise UsageError(f"--config {text!r}: {key}: {e}") from None
    return topic, key, value




@dataclass(frozen=True, slots=True)
class PolicyChange:
    """One setting of a topic's ``cleanup.policy`` in the KRaft metadata log: ``value``
    as the record gave it (``delete``, Kafka's default, where the key was removed: a
    ConfigRecord with a null value, or the RemoveTopicRecord that drops a topic's
    configs: ConfigurationsDelta.replay, 3.9-4.4); ``offset`` the record's (a metadata
    transaction's records take effect at its End record's offset; None: in the snapshot
    the replay began from, set at or before it); ``timestamp`` the record's, which the
    active controller gave its batch (the controllers' clock, FORMATS.md section 22;
    None: in the snapshot); ``record`` the record type (``ConfigRecord``,
    ``RemoveTopicRecord``); ``removed``: the key was removed."""

    value: str
    offset: int | None
    timestamp: int | None
    record: str = "ConfigRecord"
    removed: bool = False

    @property
    def compacted(self) -> bool:
        """The value holds ``compact`` (LogConfig's compact; a value a broker refuses is
        not compact: it keeps the previous source, Kafka's default ``delete`` here)."""
        return "compact" in [p.strip().lower() for p in self.value.split(",")]

    @property
    def where(self) -> str:
        """``ConfigRecord at offset 12`` or ``ConfigRecord in the snapshot``."""
        return f"{self.record} " + ("in the snapshot" if self.offset is None
                                   else f"at offset {self.offset}")

    @property
    def when(self) -> str:
        """The record's time, ISO-8601 UTC (``an unknown time`` in the snapshot)."""
        return iso_ms(self.timestamp)


@dataclass(slots=True)
class MetadataConfigs:
    """The dynamic configs of the KRaft metadata image: (resource type, resource name)
    -> {config name: (value, where it was set)}."""

    configs: dict[tuple[str, str], dict[str, tuple[str | None, str]]] = field(
        default_factory=dict)
    #: where the image was read (the __cluster_metadata directory, its last offset)
    source: str = ""
    #: each partition's replicas (broker ids) as the image assigns them (None: not read)
    assignments: dict[tuple[str, int], list[int]] | None = None
    #: each partition as the image holds it (replicas, isr, leader, leader_epoch,
    #: directories, adding_replicas, removing_replicas; None: not read)
    placements: dict[tuple[str, int], dict[str, Any]] | None = None
    #: the cluster.id of the log dir the metadata log was read in (None: it names none)
    cluster_id: str | None = None
    #: each topic's ``cleanup.policy`` history, oldest first, as far back as the replay
    #: of the image reached (from the newest snapshot: its value first, no offset):
    #: topic name -> each setting (:class:`PolicyChange`)
    policy_history: dict[str, list[PolicyChange]] = field(default_factory=dict)
    #: the whole history, from the earliest point the metadata log's files allow, read
    #: when first asked (:meth:`compaction_ended` with ``deeper``): the log before the
    #: newest snapshot can hold days of records, whose replay a command pays only where a
    #: gap asks (None: :attr:`policy_history` already starts where the files do)
    deeper_history: Callable[[], dict[str, list[PolicyChange]]] | None = None
    _deeper: dict[str, list[PolicyChange]] | None = None

    def get(self, rtype: str, rname: str, name: str) -> tuple[str | None, str] | None:
        return self.configs.get((rtype, rname), {}).get(name)

    def compaction_ended(self, topic: str, deeper: bool = False
                         ) -> tuple[PolicyChange, PolicyChange] | None:
        """A topic not compacted at the end of its known history that was compacted
        before: the setting that began its last compact period and the one that ended
        it (None: compacted now, or never compacted as far as the history reaches).
        ``deeper``: in the whole history (:attr:`deeper_history`, replayed once)."""
        history = self.policy_history.get(topic, [])
        if deeper and self.deeper_history is not None:
            if self._deeper is None:
                self._deeper = self.deeper_history()
            history = self._deeper.get(topic, [])
        last = max((i for i, c in enumerate(history) if c.compacted), default=None)
        if last is None or last == len(history) - 1:
            return None
        began = last
        while began > 0 and history[began - 1].compacted:
            began -= 1
        return history[began], history[last + 1]


class Resolver:
    """Effective topic configs per (topic, broker id), each with its source; bad values
    met in the metadata are findings (:attr:`problems`), said once."""

    def __init__(self, *, overrides: Iterable[tuple[str, str, str]] = (),
                 metadata: MetadataConfigs | None = None,
                 servers: Iterable[ServerProperties] = (),
                 timestamp_after_default: int = HOUR_MS) -> None:
        self.overrides: dict[str, dict[str, str]] = {}
        for topic, key, value in overrides:
            self.overrides.setdefault(topic, {})[key] = value
        self.metadata = metadata
        self.servers = list(servers)
        self.timestamp_after_default = timestamp_after_default
        self.problems: list[Problem] = []
        self._bad_seen: set[tuple[str, str, str]] = set()
        self._cache: dict[tuple[str, int | None], dict[str, Setting]] = {}

    def server_for(self, broker_id: int | None) -> ServerProperties | None:
        """The server.properties of ``broker_id``: the one naming that id, else the one
        naming none, else the only one given."""
        if not self.servers:
            return None
        for s in self.servers:
            if broker_id is not None and s.broker_id == broker_id:
                return s
        anonymous = [s for s in self.servers if s.broker_id is None]
        if len(anonymous) == 1:
            return anonymous[0]
        return self.servers[0] if len(self.servers) == 1 else None

    def topic(self, topic: str, broker_id: int | None) -> dict[str, Setting]:
        key = (topic, broker_id)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = {name: self._resolve(KEYS[name], topic, broker_id)
                                      for name in KEYS}
            for name, k in BROKER_KEYS.items():
                got[name] = self._static(k, broker_id)
        return got

    def broker_default(self, name: str, broker_id: int | None) -> Setting:
        """A topic config as the broker's default for every topic (no topic override):
        what LogManager reads from currentDefaultConfig (file.delete.delay.ms for the
        -delete directories it removes)."""
        return self._resolve(KEYS[name], "", broker_id)

    def _metadata_value(self, k: Key, rtype: str, rname: str, name: str, label: str
                        ) -> Setting | None:
        if self.metadata is None:
            return None
        found = self.metadata.get(rtype, rname, name)
        if found is None:
            return None
        text, where = found
        if text is None:
            return None
        try:
            value = parse_value(k if rtype == "TOPIC" else (_broker_key(name) or k), text)
        except ValueError as e:
            seen = (rtype, rname, name)
            if seen not in self._bad_seen:
                self._bad_seen.add(seen)
                self.problems.append(Problem(
                    self.metadata.source, None, "metadata-record",
                    f"ConfigRecord {label} {name}={text!r} ({where}): {e}; not used, the next "
                    "source applies", severity=WARNING))
            return None
        return Setting(value, f"{label} {name} ({where})")

    def _resolve(self, k: Key, topic: str, broker_id: int | None) -> Setting:
        given = self.overrides.get(topic, {}).get(k.name)
        if given is not None:
            return Setting(parse_value(k, given), "--config")
        s = self._metadata_value(k, "TOPIC", topic, k.name, "topic config")
        if s is not None:
            return s
        internal = INTERNAL_TOPICS.get(topic, {}).get(k.name)
        if internal is not None:
            return Setting(parse_value(k, internal),
                           f"assumed: Kafka creates {topic} with {k.name}={internal} "
                           f"({_INTERNAL_WHY[topic]})")
        if k.synonyms:
            first = k.synonyms[0][0]
            if broker_id is not None:
                s = self._metadata_value(k, "BROKER", str(broker_id), first,
                                         f"broker {broker_id} config")
                if s is not None:
                    return self._broker_setting(k, first, s.value, s.source)
            s = self._metadata_value(k, "BROKER", "", first, "cluster default config")
            if s is not None:
                return self._broker_setting(k, first, s.value, s.source)
            server = self.server_for(broker_id)
            if server is not None:
                for name, factor in k.synonyms:
                    pl = server.values.get(name)
                    if pl is not None:
                        kk = _broker_key(name)
                        assert kk is not None
                        value = parse_value(kk, pl.value)
                        return self._broker_setting(
                            k, name, value * factor if factor != 1 else value,
                            f"server.properties {name} (line {pl.line})")
        return self._default(k)

    def _broker_setting(self, k: Key, name: str, value: Any, source: str) -> Setting:
        if k.name == "retention.ms" and value < 0:
            # KafkaConfig.logRetentionTimeMillis: any negative broker retention is -1
            return Setting(-1, f"{source}, negative: -1 (unlimited)")
        if k.kind == "list":
            value = [v.lower() for v in value]
        return Setting(value, source)

    def _default(self, k: Key) -> Setting:
        if k.name == "message.timestamp.after.max.ms":
            return Setting(self.timestamp_after_default,
                           "default (ServerLogConfigs: 1 hour from Kafka 4.0, Long.MAX_VALUE "
                           "in 3.x)")
        return Setting(k.default, "default (LogConfig)")

    def _static(self, k: Key, broker_id: int | None) -> Setting:
        server = self.server_for(broker_id)
        if server is not None and k.name in server.values:
            pl = server.values[k.name]
            return Setting(parse_value(k, pl.value),
                           f"server.properties {k.name} (line {pl.line})")
        return Setting(k.default, "default (KafkaConfig)")


__all__ = ["BROKER_KEYS", "INTERNAL_TOPICS", "KEYS", "MetadataConfigs", "PolicyChange", "Resolver",
           "ServerProperties", "Setting", "parse_override", "parse_value",
           "read_server_properties", "show"]
