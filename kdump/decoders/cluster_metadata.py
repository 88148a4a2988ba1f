"""``--cluster-metadata-decoder``: KRaft metadata records (``__cluster_metadata``,
``*.checkpoint`` snapshots, ``bootstrap.checkpoint``).

A record's key is null; its value is a frame of three unsigned varints - frame version
(1), api key (record type), record version - followed by the record body, which is
flexible in every version.  The text is what DumpLogSegments'
``ClusterMetadataLogMessageParser`` prints::

    payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"..."}}

and on failure ``Error at OFFSET, skipping. MESSAGE`` (Kafka prints no "offset" word
there).  Control records (leader change, snapshot header/footer, KRaft version,
voters) are in control batches and decoded by :mod:`kdump.protocol.control`.

Definitions: :mod:`kdump.protocol.definitions`, family ``metadata``
(``metadata/src/main/resources/common/metadata/*.json`` of Kafka 3.9-4.4); the frame
(``AbstractApiMessageSerde`` / ``MetadataRecordSerde``) is read by
:mod:`kdump.protocol.frame`.
"""

from __future__ import annotations

import base64
from typing import Any

from kdump.decoders.base import Decoded
from kdump.decoders.redact import redact_metadata
from kdump.decoders.release import (
    NO_EVIDENCE,
    Evidence,
    layouts,
    newer_than_release,
    unstable_note,
)
from kdump.protocol.definitions import RELEASES
from kdump.protocol.frame import METADATA_SCHEMAS, FrameError, decode_frame, record_type_name
from kdump.protocol.messages import SchemaError, clamp_version, json_text

__all__ = ["ClusterMetadataDecoder"]


def _error_json(value: bytes | None, e: FrameError) -> dict[str, Any] | None:
    if value is None:
        return None
    out: dict[str, Any] = {}
    if e.api_key is not None:
        out["apiKey"] = e.api_key
    if e.version is not None:
        out["version"] = e.version
    out["raw"] = base64.b64encode(value).decode("ascii")
    return out


class ClusterMetadataDecoder:
    """Decoder for KRaft metadata records (``--cluster-metadata-decoder``)."""

    name = "cluster-metadata"
    #: print SCRAM keys and sensitive config values as the data holds them (kdump.decoders.redact)
    show_secrets = False

    def __init__(self, evidence: Evidence = NO_EVIDENCE) -> None:
        self.evidence = evidence

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        try:
            schema, api_key, version, data = decode_frame(value, METADATA_SCHEMAS)
        except FrameError as e:
            text = f"Error at {offset}, skipping. {e}"
            return Decoded(None, text, None, _error_json(value, e), _frame_error_note(text, e))
        except SchemaError as e:  # a decoder never aborts a dump
            text = f"Error at {offset}, skipping. {e}"
            return Decoded(None, text, None, _error_json(value, FrameError(str(e))), text)
        # secrets (SCRAM keys, password-like config values) hidden unless --show-secrets;
        # the raw bytes of a record that held some are not shown either
        shown_data = data if self.show_secrets else redact_metadata(schema.name, data)
        obj: dict[str, Any] = {"type": record_type_name(schema.name), "version": version,
                               "data": shown_data}
        notes: list[str] = []
        defs = layouts("metadata", "record", api_key)
        ev = self.evidence
        if version not in schema.v_valid:
            layout = clamp_version(version, schema.v_valid)
            notes.append(
                f"unknown {schema.name} version {version} (Kafka {RELEASES[0]}-{RELEASES[-1]} "
                f"know {schema.v_valid}); shown read with the version {layout} layout, as "
                "Kafka's reader does; raw bytes kept"
            )
            if shown_data is data:
                obj = {**obj, "raw": base64.b64encode(value or b"").decode("ascii")}
        elif defs and ev.release is not None and not ev.floor:
            notes.extend(newer_than_release(defs[-1], version, data, ev))
        unstable = unstable_note(defs[-1], version) if defs else None
        if unstable:
            return Decoded(None, json_text(obj), None, obj, "; ".join(notes) or None, unstable)
        return Decoded(None, json_text({k: v for k, v in obj.items() if k != "raw"}), None, obj,
                       "; ".join(notes) or None)


def _frame_error_note(text: str, e: FrameError) -> str:
    """The decode error of a frame: Kafka's text, plus what kdump knows of the type."""
    if e.api_key is not None and e.api_key not in METADATA_SCHEMAS:
        return (f"{text} (metadata record type {e.api_key}, version {e.version}: not a type of "
                f"Kafka {RELEASES[0]}-{RELEASES[-1]}; raw bytes kept)")
    return text
