"""The thread that makes a pipeline's calls in flight (the size and idle flushes).

gRPC's futures would do it, but a future starts a thread for its call whenever the channel has
no other call in progress, which is every flush of a pipeline (measured on the 2-core CI
machine, 2026-11-26: 0.4 to 0.9 ms of the client's time per call, against about 20 us per
queued op). This thread is started once, makes blocking calls one after another, and ends
after a while with nothing to send.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

__all__ = ["Sender", "Reply"]

#: Seconds the thread waits for a next call before it ends (it starts again when needed).
_IDLE_EXIT_SECONDS = 10.0


class Reply:
    """The answer of one call made by a :class:`Sender`, as a future gives it."""

    __slots__ = ("_done", "_response", "_error")

    def __init__(self) -> None:
        self._done = threading.Event()
        self._response: Any = None
        self._error: Optional[BaseException] = None

    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> Any:
        """The response; raises what the call raised (a grpc.RpcError)."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._response

    def _settle(self, response: Any, error: Optional[BaseException]) -> None:
        self._response, self._error = response, error
        self._done.set()


class Sender:
    """Makes calls on one thread, in the order they were given."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._calls: list[tuple[Callable[[], Any], Reply]] = []
        self._thread: Optional[threading.Thread] = None

    def send(self, call: Callable[[], Any]) -> Reply:
        """Starts ``call()`` (a blocking RPC) on the thread; answers its Reply at once."""
        reply = Reply()
        with self._condition:
            self._calls.append((call, reply))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arrayhub-sender",
                                                daemon=True)
                self._thread.start()
            else:
                self._condition.notify()
        return reply

    def _run(self) -> None:
        while True:
            with self._condition:
                if not self._calls:
                    self._condition.wait(_IDLE_EXIT_SECONDS)
                if not self._calls:
                    self._thread = None
                    return
                call, reply = self._calls.pop(0)
            try:
                response = call()
            except BaseException as error:  # Raised to whoever waits for the reply.
                reply._settle(None, error)
            else:
                reply._settle(response, None)
