"""Protobuf messages as plain JSON values for ``arrayhub ... --json``: integers as numbers
(protobuf's JSON mapping writes 64-bit ones as strings), dtypes by their NumPy names
("int64", not "DTYPE_INT64"), and every field, defaults included."""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arrayhub._dtypes import from_wire
from arrayhub.v1 import types_pb2


def _value(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return plain(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        if field.enum_type is types_pb2.DType.DESCRIPTOR:
            return str(from_wire(value)) if value != types_pb2.DTYPE_UNSPECIFIED else None
        return field.enum_type.values_by_number[value].name
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value


def _repeated(field: FieldDescriptor) -> bool:
    # protobuf 7 has only is_repeated; releases before 5.29 have only label.
    is_repeated = getattr(field, "is_repeated", None)
    return field.label == FieldDescriptor.LABEL_REPEATED if is_repeated is None else is_repeated


def plain(message: Message) -> dict[str, Any]:
    """``message`` as a dict of JSON values, keyed by the proto field names. Fields with
    presence (message fields, ``optional`` and oneof members) appear only when set."""
    result: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if _repeated(field):
            result[field.name] = [_value(field, item) for item in value]
        elif (field.type != FieldDescriptor.TYPE_MESSAGE and field.containing_oneof is None
              or message.HasField(field.name)):
            result[field.name] = _value(field, value)
    return result
