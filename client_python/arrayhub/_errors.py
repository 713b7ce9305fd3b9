"""Server errors as Python exceptions that behave like NumPy's.

Every error raised for a failed call is an :class:`ArrayHubError` and, at the same time, the
built-in (or NumPy) exception NumPy would raise for the same mistake, so ``except ValueError``
works as it does with NumPy. The gRPC status code and the server's message are kept on the
exception (``code``, ``details``); the message is the exception's text, unchanged.
"""

from __future__ import annotations

import re
from typing import Optional

import grpc
import numpy as np

__all__ = [
    "ArrayHubError",
    "ArrayHubValueError",
    "ArrayHubTypeError",
    "ArrayHubIndexError",
    "ArrayHubAxisError",
    "ArrayHubOverflowError",
    "ArrayNotFoundError",
    "ArrayHubMemoryError",
    "ArrayHubPermissionError",
    "ArrayHubConnectionError",
    "SessionNotFoundError",
    "ArrayHubNotImplementedError",
    "ArrayHubLinAlgError",
    "ArrayHubTimeoutError",
    "ArrayHubBatchError",
]


class ArrayHubError(Exception):
    """Base class of every error a call to the server raised.

    Attributes:
        code: the gRPC status code the server answered with (``None`` for errors the client
            detected before sending anything).
        details: the server's message, as sent.
    """

    code: Optional[grpc.StatusCode] = None
    details: str = ""


class ArrayHubValueError(ArrayHubError, ValueError):
    """Bad shapes, broadcasting, or another invalid argument (NumPy: ValueError)."""


class ArrayHubTypeError(ArrayHubError, TypeError):
    """A dtype the operation does not support or a cast the rules forbid (NumPy: TypeError)."""


class ArrayHubIndexError(ArrayHubError, IndexError):
    """An index out of range or of the wrong kind (NumPy: IndexError)."""


class ArrayHubAxisError(ArrayHubError, np.exceptions.AxisError):
    """An axis out of range (NumPy: numpy.exceptions.AxisError, a ValueError and IndexError)."""

    def __str__(self) -> str:
        return self.details


class ArrayHubOverflowError(ArrayHubError, OverflowError):
    """A Python integer that does not fit the array's dtype (NumPy: OverflowError)."""


class ArrayNotFoundError(ArrayHubError, KeyError, LookupError):
    """A handle or name the caller cannot see: unknown, freed, or another tenant's."""

    def __str__(self) -> str:  # KeyError would quote the message.
        return self.details


class ArrayHubMemoryError(ArrayHubError, MemoryError):
    """Device memory, a quota or a server limit exceeded; nothing was changed on the server."""


class ArrayHubPermissionError(ArrayHubError, PermissionError):
    """Writing to an array shared read-only, or a missing/unknown token."""


class ArrayHubConnectionError(ArrayHubError, ConnectionError):
    """The server cannot be reached or is draining."""


class SessionNotFoundError(ArrayHubConnectionError):
    """The client's session is gone (closed, or its lease ran out): its arrays were freed."""


class ArrayHubNotImplementedError(ArrayHubError, NotImplementedError):
    """The server does not implement this operation or option yet."""


class ArrayHubLinAlgError(ArrayHubError, np.linalg.LinAlgError):
    """The input is valid but the math is undefined for it, e.g. a singular matrix."""


class ArrayHubTimeoutError(ArrayHubError, TimeoutError):
    """The call's deadline passed."""


class ArrayHubBatchError(ArrayHubError, RuntimeError):
    """Inside an ``arrayhub.batch()`` block: the data, shape or dtype of a pending result was
    asked for, or an operation that cannot be recorded was called."""


def _make(cls: type, code: Optional[grpc.StatusCode], details: str) -> ArrayHubError:
    # Built with the message alone: OSError subclasses read a second argument as strerror.
    error = cls(details)
    error.code = code
    error.details = details
    return error


# INVALID_ARGUMENT is split by what the message is about, in this order (the first match
# wins), into the exception NumPy raises for the same mistake.
_INVALID_ARGUMENT_RULES: list[tuple[re.Pattern[str], type]] = [
    # A user kernel the server refused, naming the part, line and column: CuPy's compile
    # errors are ValueErrors (whatever the words that follow).
    (re.compile(r"^(in_params|out_params|operation|map_expr|reduce_expr|post_map_expr|"
                r"identity|reduce_type|preamble|name):\d+:\d+: "), ArrayHubValueError),
    # A raw kernel's code that does not compile or lacks the named kernel (NVRTC's log may
    # say anything).
    (re.compile(r"^(NVRTC failed to compile|cudaLibraryGetKernel\()"), ArrayHubValueError),
    (re.compile(r"Python integer .* out of bounds"), ArrayHubOverflowError),
    (re.compile(r"\baxis\b.* out of bounds"), ArrayHubAxisError),
    # NumPy's IndexErrors of indexing, some of which mention shapes.
    (re.compile(r"^index -?\d+ is out of bounds|^too many indices|single ellipsis|"
                r"^boolean index did not match|^shape mismatch: indexing arrays|"
                r"^arrays used as indices"),
     ArrayHubIndexError),
    # numpy.linalg's own operand checks raise LinAlgError (a ValueError), not ValueError.
    (re.compile(r"Array must be (at least )?two-dimensional|"
                r"Last 2 dimensions of the array must be square|^Incompatible dimensions$"),
     ArrayHubLinAlgError),
    # ndarray.view(dtype)'s layout rules, which name dtypes but are ValueErrors in NumPy.
    (re.compile(r"^(To change to a dtype|When changing to a (smaller|larger) dtype|"
                r"Changing the dtype of a 0d)"),
     ArrayHubValueError),
    (re.compile(r"Cannot cast|not supported|Unsupported dtype|unknown dtype|"
                r"unsupported in linalg"),
     ArrayHubTypeError),
    (re.compile(r"broadcast|shape|the input arrays? "), ArrayHubValueError),
    (re.compile(r"\bdtype\b"), ArrayHubTypeError),
    (re.compile(r"\bind(ex|ices)\b"), ArrayHubIndexError),
]

_BY_CODE: dict[grpc.StatusCode, type] = {
    grpc.StatusCode.NOT_FOUND: ArrayNotFoundError,
    grpc.StatusCode.OUT_OF_RANGE: ArrayHubIndexError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ArrayHubMemoryError,
    grpc.StatusCode.PERMISSION_DENIED: ArrayHubPermissionError,
    grpc.StatusCode.UNAUTHENTICATED: ArrayHubPermissionError,
    grpc.StatusCode.UNAVAILABLE: ArrayHubConnectionError,
    grpc.StatusCode.UNIMPLEMENTED: ArrayHubNotImplementedError,
    grpc.StatusCode.FAILED_PRECONDITION: ArrayHubLinAlgError,
    grpc.StatusCode.DEADLINE_EXCEEDED: ArrayHubTimeoutError,
}


#: The prefix of a failed Batch op's message ("ops[3] (matmul): "), which the op's own message
#: follows.
_BATCH_OP_PREFIX = re.compile(r"^ops\[\d+\] \([^)]*\): ")
_BATCH_OP_LABEL = re.compile(r"^ops\[(\d+)\] \(([^)]*)\): ")


def error_class(code: grpc.StatusCode, details: str) -> type:
    """The ArrayHubError subclass for a status code and the server's message (for a failed
    op of a batch, the class its message would give outside one)."""
    details = _BATCH_OP_PREFIX.sub("", details, count=1)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        for pattern, cls in _INVALID_ARGUMENT_RULES:
            if pattern.search(details):
                return cls
        return ArrayHubValueError
    if code == grpc.StatusCode.NOT_FOUND and details.startswith("session "):
        return SessionNotFoundError
    if code == grpc.StatusCode.FAILED_PRECONDITION and details.endswith("need the CUDA backend"):
        return ArrayHubNotImplementedError  # A feature this daemon's backend lacks.
    return _BY_CODE.get(code, ArrayHubError)


def error_from_rpc(error: grpc.RpcError) -> ArrayHubError:
    """Converts a failed gRPC call into the matching ArrayHubError."""
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    details = (error.details() if isinstance(error, grpc.Call) else None) or str(error)
    return _make(error_class(code, details), code, details)


_STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}


def status_code(number: int) -> grpc.StatusCode:
    """The gRPC status code of a number the server sent in a message (BatchError.code);
    UNKNOWN for one gRPC does not name."""
    return _STATUS_CODES.get(number, grpc.StatusCode.UNKNOWN)


def error_from_status(number: int, details: str) -> ArrayHubError:
    """The ArrayHubError of a status the server sent in a message (a BatchError)."""
    code = status_code(number)
    return _make(error_class(code, details), code, details)


def batch_op_error(code: grpc.StatusCode, details: str,
                   sites: list[Optional[tuple[str, int]]]) -> ArrayHubError:
    """The error of a failed Batch that a pipelined client sent: the op's own class, and a
    message naming the op and where user code issued it (``sites[k]`` for "ops[k]"). An op
    whose site is None is raised at the call that issued it, with the server's message alone,
    as a unary call's."""
    cls = error_class(code, details)
    match = _BATCH_OP_LABEL.match(details)
    if match and int(match.group(1)) < len(sites):
        site = sites[int(match.group(1))]
        details = details[match.end():]
        if site is not None:
            details = f"{match.group(2)} at {site[0]}:{site[1]}: {details}"
    return _make(cls, code, details)


def reissue(error: ArrayHubError) -> ArrayHubError:
    """A new exception like ``error`` (same class, code and message), to raise again."""
    return _make(type(error), error.code, error.details or str(error))


def client_error(cls: type, message: str) -> ArrayHubError:
    """An error the client detected before sending anything (``code`` is None)."""
    return _make(cls, None, message)


# Tracebacks name the public module: "arrayhub.ArrayHubValueError: ...".
for _name in __all__:
    globals()[_name].__module__ = "arrayhub"
del _name
