from arrayhub.v1 import arrays_pb2 as _arrays_pb2
from arrayhub.v1 import compute_pb2 as _compute_pb2
from arrayhub.v1 import peer_pb2 as _peer_pb2
from arrayhub.v1 import types_pb2 as _types_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
