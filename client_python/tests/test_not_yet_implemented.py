"""Features the server does not implement yet: each must raise NotImplementedError carrying
the server's message (UNIMPLEMENTED), never a result computed on the client.

Later work replaces these tests with real comparisons against NumPy as the server gains each
RPC; a test here that starts failing means the feature landed and wants proper tests.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

import arrayhub as ah


CASES: dict[str, tuple[str, Callable[[], object]]] = {
    "publish": ("Publish", lambda: ah.publish(ah.ones(2), "not-yet/example")),
    "attach": ("Attach", lambda: ah.attach("not-yet/example")),
}


@pytest.mark.parametrize("name", CASES)
def test_raises_not_implemented_with_the_servers_message(name: str) -> None:
    rpc, call = CASES[name]
    with pytest.raises(NotImplementedError, match=rpc) as raised:
        call()
    assert isinstance(raised.value, ah.ArrayHubNotImplementedError)
    assert raised.value.code is not None and raised.value.code.name == "UNIMPLEMENTED"


def test_upload_into_an_existing_array_is_not_implemented() -> None:
    x = ah.zeros((2, 3), np.float32)
    with pytest.raises(NotImplementedError, match="target_handle"):
        x.set(np.full((2, 3), 2.5, np.float32))
