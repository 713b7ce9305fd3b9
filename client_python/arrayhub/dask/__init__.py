"""Dask integration: arrayhub arrays as the chunks of ``dask.array`` collections, each Dask
worker bound to its node's daemon.

- Chunks: arrayhub arrays implement NumPy's protocols, and importing this module registers
  them with dask.array's per-type lookups (concatenate, tensordot, take, numel, ...), so
  ``da.from_array(x, chunks=...)``, elementwise math, reductions, ``da.linalg.tsqr``/``svd``,
  blockwise matmul and rechunking compute chunk by chunk on the daemon.
- Creation: ``dask.config.set({"array.backend": "arrayhub"})`` (the ``dask.array.backends``
  entry point) makes ``da.ones``/``zeros``/``empty``/``full``/``arange`` and ``da.random``
  create their chunks on the daemon of the task's worker.
- Workers: :class:`WorkerPlugin` gives each worker one session on its daemon.
- Moves: a chunk sent between workers (or to the client) travels as a capability; the
  receiving daemon pulls the bytes from the sending one, or shares them when it is the same
  daemon (arrayhub.issue_capability / arrayhub.pull).

See docs/scale-out.md.
"""

from dask.array.backends import array_creation_dispatch

from arrayhub.dask import _serialize
from arrayhub.dask._backend import ArrayHubBackendEntrypoint, BitGenerator, empty_meta
from arrayhub.dask._worker import ADDRESS_ENV, WorkerPlugin, worker_client

# The entry point (pyproject.toml) finds the backend in an installed package; registering it
# here too serves a source checkout on sys.path.
array_creation_dispatch.register_backend("arrayhub", ArrayHubBackendEntrypoint())
_serialize.register()

__all__ = ["ArrayHubBackendEntrypoint", "BitGenerator", "WorkerPlugin", "ADDRESS_ENV",
           "empty_meta", "worker_client"]
