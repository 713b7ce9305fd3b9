"""Binding Dask workers to daemons: :class:`WorkerPlugin` opens one arrayhub session per
worker, on that worker's daemon, and the worker's task threads use it as their current client
(``arrayhub.get_client()``), so that creation functions, ``da.random`` and deserialized
chunks land on the worker's own daemon. Operations on a chunk run on the daemon that holds it
(the chunk's own client), which is the worker's once the chunk has arrived there."""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Mapping, Optional, Union

import distributed

import arrayhub
from arrayhub import _client

#: The worker's daemon when the plugin names none: ``host:port``. Else ``ARRAYHUB_ADDRESS``.
ADDRESS_ENV = "ARRAYHUB_WORKER_ADDRESS"

# Worker -> its session. Keyed by the worker object, not stored on the plugin: a plugin
# registered with an in-process cluster may be one object shared by every worker.
_bound: "weakref.WeakKeyDictionary[Any, arrayhub.Client]" = weakref.WeakKeyDictionary()
_bound_lock = threading.Lock()


def worker_client() -> Optional[arrayhub.Client]:
    """The session of the Dask worker whose task this thread runs, or None (not in a task,
    or the worker has no :class:`WorkerPlugin`)."""
    try:
        worker = distributed.get_worker()
    except ValueError:
        return None
    with _bound_lock:
        return _bound.get(worker)


class WorkerPlugin(distributed.WorkerPlugin):
    """Connects each Dask worker to its node's arrayhubd and keeps one session per worker,
    renewed in the background; the session closes (freeing the worker's arrays) when the
    worker stops, and its lease frees them if the worker dies.

    ``address``: ``host:port`` for every worker; or a mapping from worker name to address
    (several daemons on one host, as in tests); None: ``$ARRAYHUB_WORKER_ADDRESS``, else
    ``$ARRAYHUB_ADDRESS``. ``token``, ``tls`` and ``lease_seconds`` as for
    :func:`arrayhub.connect`. Register it with ``client.register_plugin(WorkerPlugin(...))``.
    """

    name = "arrayhub"

    def __init__(self, address: Union[None, str, Mapping[Any, str]] = None,
                 token: Optional[str] = None, *, tls: Any = None,
                 lease_seconds: int = 0) -> None:
        self.address = address
        self.token = token
        self.tls = tls
        self.lease_seconds = lease_seconds

    def address_for(self, worker: Any) -> Optional[str]:
        if isinstance(self.address, Mapping):
            return self.address[worker.name]
        return self.address or os.environ.get(ADDRESS_ENV) or None

    def setup(self, worker: Any) -> None:
        client = arrayhub.connect(self.address_for(worker), self.token, tls=self.tls,
                                  lease_seconds=self.lease_seconds,
                                  client_name=f"dask-worker-{worker.name}")
        with _bound_lock:
            previous = _bound.get(worker)
            _bound[worker] = client
            alone = len(_bound) == 1
        if previous is not None:
            previous.close()  # Registered again: the new plugin's session replaces it.
        _client.add_client_resolver(worker_client)
        if alone and _client.current_client_if_any() is None:
            # Chunks that arrive from other workers are deserialized on the worker's event
            # loop, outside any task: in a process of its own (dask-worker, a LocalCluster of
            # processes) the worker's session becomes the process's default client, so they
            # are pulled into its daemon. A process that has a default (an in-process
            # cluster beside its client) keeps it.
            _client.set_default_client(client)

    def teardown(self, worker: Any) -> None:
        with _bound_lock:
            client = _bound.pop(worker, None)
        if client is not None:
            if _client.current_client_if_any() is client:
                _client.set_default_client(None)
            client.close()
