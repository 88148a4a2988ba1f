"""Confluent Schema Registry payloads, decoded offline.

* :mod:`.wire`: the serializers' framing (magic byte, schema id or GUID, Protobuf
  message indexes; or the id in a ``__key_schema_id`` / ``__value_schema_id`` header);
* :mod:`.storage`: the registry's own storage (its ``_schemas`` topic, found among or
  beside the inputs, or a folder of schema files) as a :class:`~.storage.Registry`;
* :mod:`.avro` (fastavro), :mod:`.protobuf` (protoc from grpcio-tools + the protobuf
  runtime) and :mod:`.decoder` (JSON Schema, and the PayloadDecoder tying them together);
* :mod:`.subjects`: the rows ``kdump schemas`` lists and ``--export``.

The libraries are the ``schemas`` extra; without them a schema's payloads get a note
saying which extra to install.
"""
