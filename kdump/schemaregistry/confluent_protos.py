"""kdump's own definitions of the ``.proto`` files Confluent's Protobuf serializers let a
schema import without a reference (ProtobufSchema's known dependencies):
``confluent/meta.proto`` and ``confluent/type/decimal.proto``.

Written from the facts (package names, message, field and extension names, numbers and
types) of confluentinc/schema-registry, protobuf-types/src/main/proto/confluent/meta.proto
and confluent/type/decimal.proto; the ``google/protobuf/*.proto`` they import come with
grpcio-tools.  They are used only when the registry's storage holds no subject of that
name (a reference, or a subject named as the import, wins).

``confluent.type.Decimal`` (bytes ``value``: the two's-complement big-endian unscaled
value; uint32 ``precision``, 0 for unlimited; int32 ``scale``) is shown as a decimal
string, as protobuf-types' DecimalUtils.toBigDecimal reads it: the unscaled value times
10^-scale, rounded half-up to ``precision`` digits when ``precision`` is not 0.
"""

from __future__ import annotations

import decimal

#: file name -> text, as a schema imports them
FILES: dict[str, str] = {
    "confluent/meta.proto": """syntax = "proto3";
package confluent;

import "google/protobuf/descriptor.proto";

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
  repeated Rule rules = 4;
}

message Rule {
  string name = 1;
  string doc = 2;
  string expr = 3;
  string sql = 4;
}

extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
""",
    "confluent/type/decimal.proto": """syntax = "proto3";
package confluent.type;

message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
""",
}

#: the message shown as a decimal string
DECIMAL = "confluent.type.Decimal"
#: digits of an unscaled value beyond this are not turned into a number (a few bytes of
#: payload may not make a string of millions of digits)
MAX_DECIMAL_BYTES = 64


def decimal_text(value: bytes, precision: int, scale: int) -> str | None:
    """The decimal string of a Decimal message's fields, or None when it cannot be one
    (an unscaled value longer than :data:`MAX_DECIMAL_BYTES`, a scale beyond 10^6)."""
    if len(value) > MAX_DECIMAL_BYTES or not -1_000_000 <= scale <= 1_000_000:
        return None
    unscaled = int.from_bytes(value, "big", signed=True) if value else 0
    d = decimal.Decimal(unscaled).scaleb(-scale, decimal.Context(prec=200))
    if precision:
        d = decimal.Context(prec=min(precision, 200), rounding=decimal.ROUND_HALF_UP).plus(d)
    return str(d)
