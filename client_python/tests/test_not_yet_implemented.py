"""Features the server does not implement yet: each must raise NotImplementedError carrying
the server's message (UNIMPLEMENTED), never a result computed on the client.

Later work replaces these tests with real comparisons against NumPy as the server gains each
RPC; a test here that starts failing means the feature landed and wants proper tests.
"""

from __future__ import annotations

import numpy as np
import pytest

import arrayhub as ah


def test_upload_into_an_existing_array_is_not_implemented() -> None:
    x = ah.zeros((2, 3), np.float32)
    with pytest.raises(NotImplementedError, match="target_handle"):
        x.set(np.full((2, 3), 2.5, np.float32))
