"""NumPy's argument checks run on the host for functions composed in the client: what they raise
becomes the ArrayHub error of the same kind, with NumPy's message."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from arrayhub._errors import (ArrayHubAxisError, ArrayHubIndexError, ArrayHubOverflowError,
                              ArrayHubTypeError, ArrayHubValueError, client_error)

__all__ = ["numpy_checks", "shape_text"]


@contextlib.contextmanager
def numpy_checks() -> Iterator[None]:
    """Runs NumPy's argument checks; what they raise becomes the ArrayHub error of the same
    kind with NumPy's message."""
    try:
        yield
    except np.exceptions.AxisError as error:
        raise client_error(ArrayHubAxisError, str(error)) from None
    except IndexError as error:
        raise client_error(ArrayHubIndexError, str(error)) from None
    except ValueError as error:
        raise client_error(ArrayHubValueError, str(error)) from None
    except TypeError as error:
        raise client_error(ArrayHubTypeError, str(error)) from None
    except OverflowError as error:
        raise client_error(ArrayHubOverflowError, str(error)) from None


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as NumPy's C code writes it in messages: (3,1), (2,), ()."""
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
