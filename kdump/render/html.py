"""``kdump report``'s HTML page: one self-contained file, a view over the report's objects.

The renderer receives exactly the objects ``kdump report --format json`` writes (it turns
each into its JSON form first), keeps them within bounds (:data:`KEEP` rows per table,
counting the rest) and, at the end, renders one page with Jinja2 (autoescape on: every
string from the data is escaped; control and bidi characters are made visible by the
``inert`` filter) and inline SVG charts (kdump/render/charts.py).  The page makes no
request: inline CSS, no fonts or scripts from anywhere, a Content-Security-Policy that
forbids any fetch, and a small inline script (allowed by its hash) that only adds
sorting and filtering to tables that read fine without it.

Size: one renderer gathers every section's objects for the one template that draws
the page; split by section, the page's shared state would be scattered over modules.

The page is written through :mod:`kdump.output` (staged beside ``-o``, renamed over it
when whole); a run that does not finish (an error, a full disk, a signal) leaves no
file, and "wrote" is said only once the page is in place.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections import Counter
from typing import Any, TextIO

from ..findings import Problem, finding_key
from ..textsafe import inert
from .jsonl import problem_object

#: rows kept per table (the rest are counted and named in the page, and in --format json)
KEEP = 5000
#: findings remembered to list each once (kdump.ops.report.SEEN_LIMIT: the same bound)
SEEN_LIMIT = 100_000
#: info kinds the glance box names (the others are in the findings list)
_INFO_HEADLINES = frozenset({"cluster-stopped"})
_SEVERITY_ORDER = ("error", "warning", "info")
#: compare-replicas statuses, worst first
_STATUS_ORDER = ("diverged", "lagging", "agree", "single")


def _json(item: object) -> dict[str, Any] | None:
    if isinstance(item, Problem):
        return problem_object(item)
    if isinstance(item, dict):
        return item
    to_json = getattr(item, "to_json", None)
    return to_json() if to_json is not None else None


class _Bounded:
    """A list that keeps its first ``KEEP`` items and counts them all."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.total = 0

    def add(self, obj: dict[str, Any]) -> None:
        self.total += 1
        if len(self.items) < KEEP:
            self.items.append(obj)

    @property
    def dropped(self) -> int:
        return self.total - len(self.items)


class ClusterView:
    """One cluster's metadata image in the report's cluster section: its ``image``,
    ``timeline`` and other objects (``meta``, by kind)."""

    def __init__(self, cluster_id: str | None, metadata_dir: str | None) -> None:
        self.cluster_id = cluster_id
        self.metadata_dir = metadata_dir
        self.image: dict[str, Any] | None = None
        self.timeline: dict[str, Any] | None = None
        self.meta: dict[str, _Bounded] = {}

    @property
    def stopped(self) -> bool:
        return self.image is not None and self.image.get("cluster_state") == "stopped"

    @property
    def meta_objects(self) -> dict[str, list[dict[str, Any]]]:
        return {k: v.items for k, v in self.meta.items()}

class HtmlReportRenderer:
    format = "html"

    def __init__(self, out: TextIO, err: TextIO, *, output: str | None = None,
                 top: int = 20) -> None:
        self.out = out
        self.err = err
        self.output = output
        self.top = top
        self.section = "custody"
        self.head: dict[str, Any] | None = None
        self.end: dict[str, Any] | None = None
        self.files = _Bounded()
        self.file_kinds: Counter[str] = Counter()
        self.file_bytes = 0
        #: allocated bytes of the files (as du counts them); blocks_known False: an input
        #: without block counts (an object store)
        self.file_disk_bytes = 0
        self.blocks_known = True
        self.unread_files = 0
        self.unreadable_files = 0
        self.meta: dict[str, _Bounded] = {}
        #: each cluster's metadata image, apart (the first is also ``image``/``meta``)
        self.clusters: list[ClusterView] = []
        #: log dir -> its cluster.id (the report's log_dir objects): rows kept apart
        self.log_dir_clusters: dict[str, str | None] = {}
        self.image: dict[str, Any] | None = None
        self.statuses: Counter[str] = Counter()
        self.timeline: dict[str, Any] | None = None
        self.partitions = _Bounded()
        self.topic_agg: dict[str, dict[str, Any]] = {}
        self.broker_agg: dict[str, dict[str, Any]] = {}
        self.best_replica: dict[tuple[str, str, int], tuple[int]] = {}
        self.total: dict[str, Any] | None = None
        self.activity: list[dict[str, Any]] = []
        self.comparisons = _Bounded()
        self.problems: dict[str, _Bounded] = {s: _Bounded() for s in _SEVERITY_ORDER}
        self.problem_keys: set[tuple[Any, ...]] = set()
        self.by_kind: Counter[tuple[str, str]] = Counter()
        #: per kind: the section it was first found in, the records its findings name
        #: (schema kinds), the brokers they name (broker-fenced), its first detail
        self.kind_section: dict[str, str] = {}
        self.kind_records: Counter[str] = Counter()
        #: offsets named lost (findings' lost_offsets: data-lost, a tail's), per kind
        self.kind_offsets: Counter[str] = Counter()
        #: some partition has records it cannot read or offsets lost: the partitions
        #: table shows claimed, readable and lost (issue 39)
        self.partition_damage = False
        self.kind_brokers: dict[str, list[int]] = {}
        self.kind_detail: dict[str, str] = {}
        #: the cluster of a kind's first finding read in the cluster section (its detail's)
        self.kind_cluster: dict[str, str | None] = {}
        self.summaries: list[dict[str, Any]] = []
        self.offsets_sources: list[dict[str, Any]] = []
        self.lag = _Bounded()
        self.group_lag = _Bounded()
        self.transactions = _Bounded()
        self.groups = _Bounded()
        self.share_partitions = _Bounded()
        self.schemas = _Bounded()
        self.schema_usage = _Bounded()
        #: section -> object type -> objects no section template knows (a newer
        #: operation's): shown as plain tables
        self.extra: dict[str, dict[str, _Bounded]] = {}
        self.section_titles: dict[str, str] = {}
        self.written: str | None = None
        from .retention import RetentionPage

        #: the retention section's objects and chart (kdump/render/retention.py)
        self.retention = RetentionPage(KEEP)

    # ------------------------------------------------------------------ collecting
    def emit(self, item: object) -> None:
        obj = _json(item)
        if obj is None:
            return
        kind = obj.get("type")
        if kind == "section":
            self.section = obj["name"]
            self.section_titles[obj["name"]] = obj["title"]
        elif kind == "report":
            self.head = obj
        elif kind == "report_end":
            self.end = obj
        elif kind == "problem":
            self._problem(obj)
        elif self.section == "retention" and isinstance(kind, str) \
                and kind.startswith("retention_"):
            self.retention.add(obj)
        elif self.section == "custody" and kind == "input_file":
            self.files.add(obj)
            self.file_kinds[obj["kind"]] += 1
            self.file_bytes += obj["size"] or 0
            if obj.get("disk_bytes") is None and obj["size"] is not None:
                self.blocks_known = False
            self.file_disk_bytes += obj.get("disk_bytes") or 0
            self.unread_files += not obj["read"]
            self.unreadable_files += obj["error"] is not None
        elif self.section == "cluster":
            if kind == "cluster_image" or not self.clusters:
                self.clusters.append(ClusterView(obj.get("cluster_id"), obj.get("metadata_dir"))
                                     if kind == "cluster_image" else ClusterView(None, None))
                if kind == "cluster_image":
                    return
            c = self.clusters[-1]
            first = len(self.clusters) == 1
            if kind == "image":
                c.image = obj
                self.image = self.image if not first else obj
            elif kind == "timeline":
                c.timeline = obj
                self.timeline = self.timeline if not first else obj
            elif isinstance(kind, str):
                c.meta.setdefault(kind, _Bounded()).add(obj)
                if first:
                    self.meta = c.meta
        elif self.section == "data" and kind == "log_dir":
            self.log_dir_clusters[obj["log_dir"]] = obj["cluster_id"]
        elif self.section == "data":
            if kind == "partition":
                self._partition_row(obj)
            elif kind == "total":
                self.total = obj
            elif kind == "activity":
                self.activity.append(obj)
            elif kind == "partition_comparison":
                rank = _STATUS_ORDER.index(obj["status"]) if obj["status"] in _STATUS_ORDER else 0
                self.comparisons.add(dict(obj, rank=rank))
                self.statuses[obj["status"]] += 1
            elif isinstance(kind, str):
                self.extra.setdefault(self.section, {}).setdefault(kind, _Bounded()).add(obj)
        elif kind == "summary":
            self.summaries.append(obj)
        elif kind == "offsets_source":
            self.offsets_sources.append(obj)
        elif kind == "lag":
            self.lag.add(obj)
        elif kind == "group_lag":
            self.group_lag.add(obj)
        elif kind == "transaction":
            self.transactions.add(obj)
        elif kind == "group":
            self.groups.add(obj)
        elif kind == "share_partition":
            self.share_partitions.add(obj)
        elif kind == "schema":
            self.schemas.add(obj)
        elif kind == "schema_usage":
            self.schema_usage.add(obj)
        elif isinstance(kind, str):
            self.extra.setdefault(self.section, {}).setdefault(kind, _Bounded()).add(obj)

    def _problem(self, obj: dict[str, Any]) -> None:
        # the key kdump.ops.report counts findings by: the cards, the glance box and the
        # findings list all count this one list
        key = finding_key(obj["file"], obj["position"], obj["kind"], obj["base_offset"],
                          obj["detail"])
        if key in self.problem_keys:
            return  # the same finding from two checks
        if len(self.problem_keys) < SEEN_LIMIT:
            self.problem_keys.add(key)
        obj = dict(obj, found_in=self.section)
        sev = obj["severity"] if obj["severity"] in self.problems else "error"
        self.problems[sev].add(obj)
        kind = obj["kind"]
        self.by_kind[(sev, kind)] += 1
        self.kind_section.setdefault(kind, self.section)
        if kind not in self.kind_detail and self.section == "cluster" and self.clusters:
            self.kind_cluster[kind] = self.clusters[-1].cluster_id
        self.kind_detail.setdefault(kind, obj["detail"])
        if isinstance(obj.get("records"), int):
            self.kind_records[kind] += obj["records"]
        if isinstance(lost := obj.get("lost_offsets"), list) and len(lost) == 2 \
                and sev == "error":  # data-lost's, and a torn or zeroed tail's (issue 46)
            self.kind_offsets[kind] += lost[1] - lost[0] + 1
        if isinstance(obj.get("broker"), int) and kind == "broker-fenced":
            ids = self.kind_brokers.setdefault(kind, [])
            if len(ids) < 10:
                ids.append(obj["broker"])

    @property
    def errors(self) -> int:
        return self.problems["error"].total

    @property
    def warnings(self) -> int:
        return self.problems["warning"].total

    @property
    def infos(self) -> int:
        return self.problems["info"].total

    @property
    def clean(self) -> bool:
        """No error and no warning among the findings (the verdict, as report_end's)."""
        return not self.errors and not self.warnings

    @property
    def stopped(self) -> bool:
        """The metadata image says the cluster was stopped (kdump.metadata.health)."""
        return self.image is not None and self.image.get("cluster_state") == "stopped"

    # ------------------------------------------------------------------ the page
    def close(self) -> None:
        if self.end is None or self.head is None or self.output is None:
            return  # the run did not finish: no page claiming to be complete
        from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

        env = Environment(loader=PackageLoader("kdump.render", "templates"),
                          autoescape=select_autoescape(default=True, default_for_string=True),
                          undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
        env.filters["inert"] = _inert
        env.filters["size"] = _size
        env.filters["num"] = _num
        env.filters["ms"] = _duration
        env.filters["iso"] = _iso
        env.filters["cell"] = _cell
        env.filters["record_name"] = _record_name
        env.filters["path"] = _path
        env.tests["internal_topic"] = is_internal_topic
        script = env.get_template("report.js").render()
        csp_hash = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        page = env.get_template("report.html.j2").render(
            r=self, top=self.top, script=script, csp_hash=csp_hash, charts=self._charts(),
            topics=self._topics(), brokers=self._brokers(),
            findings_total=sum(b.total for b in self.problems.values()),
            kinds=sorted(self.by_kind.items(), key=lambda kv: (
                _SEVERITY_ORDER.index(kv[0][0]), -kv[1], kv[0][1])),
            severities=_SEVERITY_ORDER, meta_objects=self._meta_objects(),
            sections=self._sections(), highlights=self._highlights(),
            subjects=self._subjects(), groupv=self._group_views(),
            schema_state={v["id"]: v["deleted"] for v in self.schemas.items})
        self._write(page)

    def _write(self, page: str) -> None:
        """The page published whole at ``-o`` (kdump/output.py: staged beside it, renamed
        over it); an error names ``-o`` and the OS's reason, and nothing is left."""
        from ..output import Staged

        assert self.output is not None
        stage = Staged(self.output, kind="file", replace=True)
        with stage:
            # a name the template did not pass through |inert still cannot stop the page
            data = page.encode("utf-8", errors="backslashreplace")
            stage.write("", data)
            stage.publish()
        self.written = os.path.abspath(self.output)
        self.err.write(f"kdump report: wrote {inert(self.output)} ({_size(len(data))})\n")

    # ------------------------------------------------------------------ views
    def _partition_row(self, p: dict[str, Any]) -> None:
        """Every partition row counts towards its topic's and its log dir's totals (the
        table keeps only the first KEEP rows)."""
        self.partitions.add(p)
        if p.get("offsets_lost") or p.get("records_claimed") != p.get("records_readable"):
            self.partition_damage = True
        # one cluster's topic is not another's of the same name (kdump.ops.replica_groups)
        cluster = self.log_dir_clusters.get(p.get("log_dir") or "")
        t = self.topic_agg.setdefault(f"{cluster or ''}\0{p['topic']}", {
            "topic": p["topic"], "cluster": cluster, "bytes": 0, "disk_bytes": 0,
            "replicas": 0, "partitions": 0, "records": 0, "min_timestamp": None,
            "max_timestamp": None})
        t["bytes"] += p["bytes"]
        t["disk_bytes"] = _plus(t["disk_bytes"], p.get("disk_bytes"))
        t["replicas"] += 1
        key = (cluster or "", p["topic"], p["partition"])
        best = self.best_replica.get(key)
        if best is None:
            t["partitions"] += 1
        if best is None or p["records"] > best[0]:
            # the topic counts each partition once: its replica holding the most records
            t["records"] += p["records"] - (0 if best is None else best[0])
            self.best_replica[key] = (p["records"],)
        for f, pick in (("min_timestamp", min), ("max_timestamp", max)):
            v = p[f]
            if v is not None and v >= 0:
                t[f] = v if t[f] is None else pick(t[f], v)
        b = self.broker_agg.setdefault(p["log_dir"], {
            "log_dir": p["log_dir"], "broker_id": p["broker_id"], "cluster": cluster,
            "bytes": 0, "disk_bytes": 0, "partitions": 0, "records": 0})
        b["bytes"] += p["bytes"]
        b["disk_bytes"] = _plus(b["disk_bytes"], p.get("disk_bytes"))
        b["partitions"] += 1
        b["records"] += p["records"]

    def _topics(self) -> list[dict[str, Any]]:
        """Per topic of each cluster: bytes (every replica), partitions, replicas, records
        (the fullest replica of each partition), first and last timestamp; largest first."""
        return sorted(self.topic_agg.values(), key=lambda t: (
            is_internal_topic(t["topic"]), -t["bytes"], t["topic"], t["cluster"] or ""))

    @property
    def several_clusters(self) -> bool:
        """The inputs hold log dirs (or metadata logs) of more than one cluster: every
        table names each row's cluster."""
        return len(set(self.log_dir_clusters.values())) > 1 or len(self.clusters) > 1

    def cluster_of(self, log_dir: str) -> str | None:
        return self.log_dir_clusters.get(log_dir)

    def _brokers(self) -> list[dict[str, Any]]:
        return sorted(self.broker_agg.values(), key=lambda b: (-b["bytes"], b["log_dir"]))

    def _highlights(self) -> list[tuple[str, str, str]]:
        """What stands out, worst first: (severity, text, section anchor).  Every error
        and warning line is a kind of finding with its count, so the lines of a
        severity add up to its card and to the findings list; info lines are the
        cluster's stop (a finding too) and the largest consumer lag."""
        out: list[tuple[str, str, str, int]] = []
        for (sev, kind), n in self.by_kind.items():
            if sev == "info" and kind not in _INFO_HEADLINES:
                continue
            out.append((sev, self._headline(kind, n), self._anchor(kind), n))
        if self.group_lag.items:
            g = max(self.group_lag.items, key=lambda g: g["total_lag"])
            if g["total_lag"]:
                out.append(("info", f"largest consumer lag: {_num(g['total_lag'])} records "
                            f"(group {inert(g['group'])})", "groups", 0))
        if self.retention.notable_bytes:
            # not a finding (a future timestamp is one, counted above): what holds bytes
            out.append(("info", f"{_size(self.retention.notable_bytes)} held back from "
                        "deletion (a future timestamp, the high watermark, remote copies)",
                        "retention", 0))
        if self.retention.stray_bytes:
            out.append(("info", f"{_size(self.retention.stray_bytes)} in -stray partition "
                        "directories, which no Kafka release deletes", "retention", 0))
        order = {"error": 0, "warning": 1, "info": 2}
        out.sort(key=lambda h: (order[h[0]], -h[3], h[1]))
        return [(sev, text, anchor) for sev, text, anchor, _n in out]

    def _anchor(self, kind: str) -> str:
        section = self.kind_section.get(kind, "findings")
        return section if section in self.section_titles else "findings"

    def _headline(self, kind: str, n: int) -> str:
        """A kind of finding and its count in words."""
        def plural(k: int, word: str, words: str | None = None) -> str:
            return f"{_num(k)} {word if k == 1 else (words or word + 's')}"

        records = self.kind_records.get(kind, 0)
        if kind == "cluster-stopped":
            if n > 1:
                return f"{plural(n, 'metadata log')} say the cluster was stopped"
            cluster = self.kind_cluster.get(kind)
            # several clusters given: say which one stopped (the glance names no section)
            return (f"cluster {inert(cluster)}: " if cluster and self.several_clusters
                    else "") + self.kind_detail[kind]
        if kind == "partition-offline":
            return f"{plural(n, 'partition')} without a leader while the cluster runs"
        if kind == "partition-under-replicated":
            return f"{plural(n, 'partition')} under-replicated"
        if kind == "broker-fenced":
            ids = self.kind_brokers.get(kind, [])
            more = ", ..." if n > len(ids) else ""
            return (f"{plural(n, 'broker')} fenced or shutting down while the cluster runs: "
                    f"{', '.join(map(str, ids))}{more}")
        if kind == "replica-diverged":
            return f"{plural(n, 'partition')} whose replicas diverge"
        if kind == "replica-lagging":
            return f"{plural(n, 'partition')} with a lagging replica"
        if kind == "data-lost":
            return (f"{plural(self.kind_offsets[kind], 'offset')} written (the partitions' "
                    f"witnesses say) and held by no batch: lost ({plural(n, 'range')})")
        if kind == "hanging-transaction":
            return plural(n, "hanging transaction")
        if kind == "schema-id-unknown":
            return (f"{plural(n, 'topic')} whose records name schema ids the registry does "
                    f"not hold ({_keys_or_values(records)})")
        if kind == "schema-deleted-in-use":
            return (f"{plural(n, 'deleted schema')} still named by records "
                    f"({_keys_or_values(records)})")
        lost = self.kind_offsets.get(kind, 0)  # a torn or zeroed tail's loss (issue 46)
        return plural(n, kind + " finding") + (f": {plural(lost, 'offset')} lost" if lost else "")

    def _sections(self) -> list[dict[str, Any]]:
        """The sections the stream opened, in its order, with the count the
        navigation shows."""
        counts = {"custody": f"{_num(self.files.total)} files",
                  "data": f"{_num(len(self._topics()))} topics",
                  "findings": _num(sum(b.total for b in self.problems.values())),
                  "groups": _num(len({g["group"] for g in self.group_lag.items}
                                     | {g["group"] for g in self.groups.items})),
                  "transactions": _num(self.transactions.total),
                  "schemas": f"{_num(len(self._subjects()))} subjects" if self.schemas.total
                  else "",
                  "retention": f"{_size(self.retention.by_reason.get('deletable now', 0))} "
                               "deletable" if self.retention.by_reason else ""}
        return [{"name": n, "title": t, "count": counts.get(n, "")}
                for n, t in self.section_titles.items()]

    def _subjects(self) -> list[dict[str, Any]]:
        """Per subject: its versions (rows of the ``schema`` objects), latest first."""
        subjects: dict[str, dict[str, Any]] = {}
        for row in self.schemas.items:
            s = subjects.setdefault(row["subject"], {"subject": row["subject"], "versions": []})
            s["versions"].append(row)
        for s in subjects.values():
            s["versions"].sort(key=lambda v: -v["version"])
        return sorted(subjects.values(), key=lambda s: s["subject"])

    def _group_views(self) -> dict[str, Any]:
        """The groups section's joins: each group's lag summary and type, the share
        groups' share-partitions with their lag, the streams groups."""
        lag_of = {g["group"]: g for g in self.group_lag.items}
        types = {g["group"]: g["group_type"] for g in self.groups.items}
        share_lag = {(x["group"], x.get("topic_id") or x["topic"], x["partition"]): x
                     for x in self.lag.items if x["group_type"] == "share"}
        shares = [dict(s, lag=share_lag.get((s["group"], s["topic_id"], s["partition"])))
                  for s in self.share_partitions.items]
        names = sorted(set(lag_of) | set(types))
        table = [{"group": n, "group_type": types.get(n) or (lag_of[n]["group_type"]
                                                            if n in lag_of else None),
                  "lag": lag_of.get(n), "meta": next((g for g in self.groups.items
                                                      if g["group"] == n), None)}
                 for n in names]
        table.sort(key=lambda g: (-(g["lag"]["total_lag"] if g["lag"] else -1), g["group"]))
        streams = [g for g in self.groups.items if g["group_type"] == "streams"]
        consumers = [g for g in self.groups.items if g["group_type"] in ("consumer", "share")]
        return {"table": table, "shares": shares, "streams": streams, "consumers": consumers,
                "members": [(g, m) for g in consumers for m in g.get("group_members") or []],
                "subtopologies": [(g, st) for g in streams
                                  for st in (g.get("topology") or {}).get("subtopologies", [])],
                "streams_members": [(g, m) for g in streams
                                    for m in g.get("group_members") or []]}

    def _meta_objects(self) -> dict[str, list[dict[str, Any]]]:
        return {k: v.items for k, v in self.meta.items()}


    def _charts(self) -> dict[str, str]:
        from .charts import bar_chart, events_chart, time_chart

        charts: dict[str, str] = {}
        topics = self._topics()
        if topics:
            by_bytes = sorted(topics, key=lambda t: (-_on_disk(t), t["topic"]))  # every topic
            shown = [(t["topic"], _on_disk(t)) for t in by_bytes[: self.top]]
            rest = sum(_on_disk(t) for t in by_bytes[self.top:])
            if rest:
                shown.append((f"{len(topics) - self.top} other topics", rest))
            charts["topics"] = bar_chart("bytes", shown)
        brokers = self._brokers()
        if len(brokers) > 1:
            charts["brokers"] = bar_chart("bytes", [
                (f"broker {b['broker_id']}" if b["broker_id"] is not None
                 else os.path.basename(b["log_dir"]) or b["log_dir"], _on_disk(b))
                for b in brokers[: self.top]])
        series = sorted(self.activity, key=lambda a: (-a["records"], a["topic"]))
        # internal topics (__consumer_offsets, the registry's _schemas) are not traffic
        series = [a for a in series if not is_internal_topic(a["topic"])][:8] or series[:8]
        if series:
            names = {a["topic"] for a in series}
            firsts = [t["min_timestamp"] for t in topics if t["topic"] in names
                      and isinstance(t.get("min_timestamp"), int) and t["min_timestamp"] >= 0]
            charts["activity"] = time_chart([(a["topic"], [(t, n) for t, n in a["buckets"]])
                                             for a in series], series[0]["bucket_ms"],
                                            min(firsts) if firsts else None)
        if self.retention.by_reason:
            charts["retention"] = self.retention.chart()
        counts = self.extra.get("timeline", {}).get("timeline_count")
        if counts is not None and counts.items:
            charts["timeline"] = events_chart(counts.items)
        return charts


def _record_name(v: Any) -> str:
    """A metadata record type as Kafka's classes name it: CLEAR_ELR_RECORD ->
    ClearElrRecord (the history gives the ``MetadataRecordType`` constant)."""
    text = str(v)
    if not re.fullmatch(r"[A-Z0-9]+(_[A-Z0-9]+)*", text):
        return text
    return "".join(part.capitalize() for part in text.split("_"))


def _keys_or_values(n: int) -> str:
    return f"{_num(n)} record key{'' if n == 1 else 's'} or value{'' if n == 1 else 's'}"


def _on_disk(row: dict[str, Any]) -> int:
    """A row's allocated bytes (what du counts), its apparent ones without block counts."""
    disk = row.get("disk_bytes")
    return int(row["bytes"] if disk is None else disk)


def _plus(a: int | None, b: int | None) -> int | None:
    """A sum of allocated bytes: unknown (None) once a part is."""
    return None if a is None or b is None else a + b


def _size(n: Any) -> str:
    if n is None:
        return "–"
    v = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(v) < 1000 or unit == "TB":
            return f"{v:.0f} {unit}" if unit == "B" else f"{v:.1f} {unit}"
        v /= 1000
    return str(n)


def _num(n: Any) -> str:
    if n is None:
        return "–"
    if isinstance(n, bool):
        return "yes" if n else "no"
    if isinstance(n, int):
        return f"{n:,}".replace(",", "\u202f")
    return str(n)


def _duration(ms: Any) -> str:
    if ms is None:
        return "–"
    s = int(ms) // 1000
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400:
        return f"{s // 3600} h {s // 60 % 60} min"
    return f"{s // 86400} d {s // 3600 % 24} h"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _inert(v: Any) -> str:
    """Text from the data as a person may see it: control and bidi characters as escapes
    (kdump.textsafe.inert), and the bytes of a file name that are not UTF-8 (lone
    surrogates, from Python's surrogateescape) as ``\\udcXX``."""
    if v is None:
        return ""
    text = inert(str(v))
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _path(v: Any) -> Any:
    """A path from the data, escaped, with a line-break opportunity (``<wbr>``) after
    each ``/``: a long path wraps between its directories, not inside a name.  Escaped
    first, so the data never becomes markup (escaping writes no ``/``)."""
    from markupsafe import Markup, escape

    return Markup(str(escape(_inert(v))).replace("/", "/<wbr>"))


def is_internal_topic(name: Any) -> bool:
    """Kafka's own topics (``__consumer_offsets``, ``__transaction_state``,
    ``__cluster_metadata`` ...: names starting ``__``) and those of Confluent's
    components (``_schemas``, ``_confluent-...``: names starting ``_``): the report lists
    them after the user's topics, folded, and leaves them out of the traffic chart."""
    return isinstance(name, str) and name.startswith("_")


def _cell(v: Any) -> str:
    """A field of an object no template knows, as text."""
    if v is None:
        return "–"
    if isinstance(v, (dict, list)):
        import json

        return _inert(json.dumps(v, ensure_ascii=False, separators=(",", ":")))
    if isinstance(v, bool):
        return "yes" if v else "no"
    return _inert(v)


def _iso(ms: Any) -> str:
    if ms is None or (isinstance(ms, int) and ms < 0):
        return "–"
    from ..custody import utc_iso

    return utc_iso(ms).replace("T", " ")


__all__ = ["HtmlReportRenderer"]
