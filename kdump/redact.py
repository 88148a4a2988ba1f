"""Secrets in the data: what kdump never prints unless asked (``--show-secrets``).

KRaft's ``__cluster_metadata`` (and its snapshots) holds credentials: the salts and
keys of SCRAM users and the values of PASSWORD-typed configs.  The decoders that print
records (``dump``, ``find-*``, Spark) pass each decoded metadata record through
:func:`redact_metadata` (one line in the decoder), so JSON, text, tables and Spark rows
all say ``[redacted]`` where the secret was; the ``metadata`` image uses the same rules
(:func:`is_sensitive_config`).

Keyed on the record type and field names of
``metadata/src/main/resources/common/metadata/*.json`` (Kafka 4.x):

* ``UserScramCredentialRecord``: ``Salt``, ``StoredKey``, ``ServerKey`` (anyone holding
  a stored and a server key can authenticate as the user to any broker of the cluster);
* ``DelegationTokenRecord``: ``Hmac`` where a version carries it (the 4.x record holds
  the token's id and owners only: the HMAC is derived from the cluster's
  ``delegation.token.secret.key``, itself a redacted config);
* ``ConfigRecord``: ``Value`` when ``Name`` is a sensitive config (:func:`is_sensitive_config`).

The bytes on disk are evidence and are never changed: ``--show-secrets`` prints the
records as Kafka's own DumpLogSegments does.
"""

from __future__ import annotations

from typing import Any

#: what a secret is printed as
REDACTED = "[redacted]"

#: record type (the schema's name) -> its secret fields (lower camel case, as decoded)
SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    "UserScramCredentialRecord": ("salt", "storedKey", "serverKey"),
    "DelegationTokenRecord": ("hmac",),
}

# Config names whose values are secrets: Kafka's PASSWORD-typed configs (ConfigDef
# Type.PASSWORD: *.password, sasl.jaas.config, ssl.keystore.key, ssl.keystore.certificate.chain,
# ssl.truststore.certificates, delegation.token.secret.key, *.client.secret ...).
# kafka-metadata-shell redacts these (and any config its schema does not know); kdump has
# no ConfigDef, so it goes by name.
_SENSITIVE_PARTS = ("password", "jaas.config", "ssl.keystore.key", "ssl.keystore.certificate.chain",
                    "ssl.truststore.certificates", "secret", "credential")


def is_sensitive_config(name: str) -> bool:
    """Is ``name`` a config whose value kdump never prints?"""
    low = name.lower()
    return any(p in low for p in _SENSITIVE_PARTS)


def redact_metadata(record_type: str, data: Any) -> tuple[Any, list[str]]:
    """``data`` (a decoded metadata record body) with its secrets replaced by
    :data:`REDACTED`, and the names of the fields replaced (empty: ``data`` itself,
    unchanged).  A field already null (or absent) is left as it is."""
    if not isinstance(data, dict):
        return data, []
    fields = SECRET_FIELDS.get(record_type, ())
    if record_type == "ConfigRecord":
        name = data.get("name")
        if isinstance(name, str) and is_sensitive_config(name):
            fields = ("value",)
    hidden = [f for f in fields if data.get(f) is not None]
    if not hidden:
        return data, []
    out = dict(data)
    for f in hidden:
        out[f] = REDACTED
    return out, hidden


__all__ = ["REDACTED", "SECRET_FIELDS", "is_sensitive_config", "redact_metadata"]
