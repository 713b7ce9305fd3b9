"""Server errors become native-feeling Python exceptions that keep the code and message."""

from __future__ import annotations

import grpc
import numpy as np
import pytest

import arrayhub as ah
from arrayhub._errors import error_from_rpc


class _FakeRpcError(grpc.RpcError, grpc.Call):
    """What a failed stub call raises, for mapping tests without a server."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> None: ...
    def trailing_metadata(self) -> None: ...
    def is_active(self) -> bool: return False
    def time_remaining(self) -> None: ...
    def cancel(self) -> bool: return False
    def add_callback(self, callback: object) -> bool: return False


S = grpc.StatusCode
MAPPING = [
    (S.INVALID_ARGUMENT, "operands could not be broadcast together with shapes (3,4) (5,)",
     ValueError, ah.ArrayHubValueError),
    (S.INVALID_ARGUMENT, "negative dimensions are not allowed: shape (3, -2) has -2 at axis 1",
     ValueError, ah.ArrayHubValueError),
    (S.INVALID_ARGUMENT, "ufunc 'bitwise_and' not supported for the input types (float32)",
     TypeError, ah.ArrayHubTypeError),
    (S.INVALID_ARGUMENT, "The numpy boolean negative, the `-` operator, is not supported, use "
     "the `~` operator or the logical_not function instead.", TypeError, ah.ArrayHubTypeError),
    (S.INVALID_ARGUMENT, "Cannot cast ufunc 'add' output from dtype('float64') to "
     "dtype('int64') with casting rule 'same_kind'", TypeError, ah.ArrayHubTypeError),
    (S.INVALID_ARGUMENT, "unknown dtype 99 in dtype", TypeError, ah.ArrayHubTypeError),
    (S.INVALID_ARGUMENT, "index 5 is out of bounds for axis 0 with size 3",
     IndexError, ah.ArrayHubIndexError),
    (S.INVALID_ARGUMENT, "too many indices for array: array is 1-dimensional, but 2 were "
     "indexed", IndexError, ah.ArrayHubIndexError),
    (S.INVALID_ARGUMENT, "axis 2 is out of bounds for array of dimension 2",
     np.exceptions.AxisError, ah.ArrayHubAxisError),
    (S.INVALID_ARGUMENT, "Python integer 300 out of bounds for uint8",
     OverflowError, ah.ArrayHubOverflowError),
    (S.INVALID_ARGUMENT, "high is out of bounds for uint8", ValueError, ah.ArrayHubValueError),
    (S.INVALID_ARGUMENT, "array type float16 is unsupported in linalg", TypeError,
     ah.ArrayHubTypeError),
    (S.INVALID_ARGUMENT, "Last 2 dimensions of the array must be square",
     np.linalg.LinAlgError, ah.ArrayHubLinAlgError),
    (S.INVALID_ARGUMENT, "3-dimensional array given. Array must be two-dimensional",
     np.linalg.LinAlgError, ah.ArrayHubLinAlgError),
    (S.INVALID_ARGUMENT, "matmul: Input operand 1 has a mismatch in its core dimension 0, with "
     "gufunc signature (n?,k),(k,m?)->(n?,m?) (size 4 is different from 3); shapes (2,3) and "
     "(4,5)", ValueError, ah.ArrayHubValueError),
    (S.NOT_FOUND, "array 0123456789abcdef0123456789abcdef not found",
     KeyError, ah.ArrayNotFoundError),
    (S.NOT_FOUND, "session 0123 not found (closed, expired, or never opened)",
     ConnectionError, ah.SessionNotFoundError),
    (S.RESOURCE_EXHAUSTED, "out of device memory", MemoryError, ah.ArrayHubMemoryError),
    (S.PERMISSION_DENIED, "array is shared read-only", PermissionError,
     ah.ArrayHubPermissionError),
    (S.UNAUTHENTICATED, "unknown token", PermissionError, ah.ArrayHubPermissionError),
    (S.UNAVAILABLE, "server is draining", ConnectionError, ah.ArrayHubConnectionError),
    (S.UNIMPLEMENTED, "Matmul is not implemented by this server yet", NotImplementedError,
     ah.ArrayHubNotImplementedError),
    (S.FAILED_PRECONDITION, "Singular matrix", np.linalg.LinAlgError, ah.ArrayHubLinAlgError),
    (S.DEADLINE_EXCEEDED, "Deadline Exceeded", TimeoutError, ah.ArrayHubTimeoutError),
    (S.INTERNAL, "something broke", ah.ArrayHubError, ah.ArrayHubError),
    # A failed op of a Batch maps as its own message would (anchored rules included).
    (S.INVALID_ARGUMENT, "ops[2] (array_op take): index 7 is out of bounds for axis 0 with "
     "size 3", IndexError, ah.ArrayHubIndexError),
    (S.INVALID_ARGUMENT, "ops[0] (view reshape): Incompatible dimensions",
     np.linalg.LinAlgError, ah.ArrayHubLinAlgError),
    (S.NOT_FOUND, "ops[1] (elementwise add): array 0123456789abcdef0123456789abcdef not found",
     KeyError, ah.ArrayNotFoundError),
]


@pytest.mark.parametrize("code, details, builtin, specific", MAPPING,
                         ids=[f"{m[0].name}-{m[2].__name__}" for m in MAPPING])
def test_status_maps_to_native_exception(code: grpc.StatusCode, details: str, builtin: type,
                                         specific: type) -> None:
    error = error_from_rpc(_FakeRpcError(code, details))
    assert type(error) is specific
    assert isinstance(error, builtin) and isinstance(error, ah.ArrayHubError)
    assert str(error) == details
    assert error.code == code and error.details == details


def test_array_not_found_is_a_lookup_error_with_the_servers_message() -> None:
    with pytest.raises(KeyError) as raised:
        ah.open("0123456789abcdef0123456789abcdef")
    assert isinstance(raised.value, LookupError)
    assert str(raised.value) == "array 0123456789abcdef0123456789abcdef not found"
    assert raised.value.code == grpc.StatusCode.NOT_FOUND


def test_malformed_handle_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="malformed handle"):
        ah.open("not-a-handle")


def test_unreachable_server_raises_connection_error() -> None:
    with pytest.raises(ConnectionError):
        ah.connect("127.0.0.1:1", timeout=10)


def test_a_refused_connection_names_the_address_and_what_to_check() -> None:
    with pytest.raises(ah.ArrayHubConnectionError) as refused:
        ah.connect("127.0.0.1:1", timeout=10)
    message = str(refused.value)
    assert message.startswith("cannot reach arrayhubd at 127.0.0.1:1: "), message
    for hint in ("ARRAYHUB_ADDRESS", "arrayhubd is running", "TLS", "ARRAYHUB_TLS_CA"):
        assert hint in message, message
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE


def test_mixing_numpy_arrays_into_operations_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        ah.add(ah.ones(3), np.ones(3))
    with pytest.raises(TypeError):
        ah.ones(3).sum(out=np.zeros(()))
    with pytest.raises(TypeError):
        ah.sum(np.ones(3))
    with pytest.raises(TypeError):
        ah.ones(3) + "text"


def test_mixing_arrays_of_two_connections_is_a_value_error(client: ah.Client) -> None:
    mine = ah.ones(3)
    with ah.connect(client.address) as other:
        theirs = ah.ones(3)
        assert theirs.client is other
        with pytest.raises(ValueError, match="different connections"):
            ah.add(mine, theirs)
