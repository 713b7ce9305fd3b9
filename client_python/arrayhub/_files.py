"""NumPy's file functions (save, load, savez, savez_compressed, savetxt, loadtxt, genfromtxt)
for arrayhub arrays, as CuPy has them.

Files are read and written by this process, in NumPy's formats (.npy, .npz, text): saving
downloads the arrays, loading uploads what NumPy read. That is the explicit way between the
server and a file, so ``numpy.save(f, x)`` (routed here through ``__array_function__``) moves
the data too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from arrayhub._creation import asarray, asnumpy
from arrayhub._ndarray import ndarray

__all__ = ["save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
           "NpzFile"]


class NpzFile(Mapping[str, ndarray]):
    """The arrays of a .npz file (NumPy's NpzFile), each uploaded when it is read:
    ``with arrayhub.load("f.npz") as data: x = data["x"]``."""

    def __init__(self, npz_file: np.lib.npyio.NpzFile) -> None:
        self.npz_file = npz_file

    @property
    def files(self) -> list[str]:
        """The names of the arrays in the file."""
        return self.npz_file.files

    def __getitem__(self, key: str) -> ndarray:
        return asarray(self.npz_file[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self.npz_file)

    def __len__(self) -> int:
        return len(self.npz_file)

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the file."""
        self.npz_file.close()

    def __repr__(self) -> str:
        return f"<arrayhub.NpzFile of {self.npz_file!r}>"


def save(file: Any, arr: Any, allow_pickle: bool = True, **kwargs: Any) -> None:
    """numpy.save of the array, downloaded."""
    np.save(file, asnumpy(arr), allow_pickle=allow_pickle, **kwargs)


def load(file: Any, mmap_mode: Any = None, allow_pickle: bool = False, **kwargs: Any) -> Any:
    """numpy.load, with the arrays uploaded: an arrayhub array for a .npy file, an
    :class:`NpzFile` for a .npz file; a pickled object (allow_pickle=True) is returned as
    NumPy read it. ``mmap_mode`` maps the file only while it is uploaded."""
    loaded = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, **kwargs)
    if isinstance(loaded, np.lib.npyio.NpzFile):
        return NpzFile(loaded)
    if isinstance(loaded, np.ndarray):
        return asarray(loaded)
    return loaded


def _host_arrays(args: tuple[Any, ...], kwds: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    return [asnumpy(a) for a in args], {name: asnumpy(a) for name, a in kwds.items()}


def savez(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """numpy.savez of the arrays, downloaded."""
    host_args, host_kwds = _host_arrays(args, kwds)
    np.savez(file, *host_args, allow_pickle=allow_pickle, **host_kwds)


def savez_compressed(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """numpy.savez_compressed of the arrays, downloaded."""
    host_args, host_kwds = _host_arrays(args, kwds)
    np.savez_compressed(file, *host_args, allow_pickle=allow_pickle, **host_kwds)


def savetxt(fname: Any, X: Any, *args: Any, **kwargs: Any) -> None:
    """numpy.savetxt of the array, downloaded."""
    np.savetxt(fname, asnumpy(X), *args, **kwargs)


def loadtxt(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.loadtxt, uploaded (the dtypes the server stores only: no structured dtypes)."""
    return asarray(np.loadtxt(*args, **kwargs))


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """numpy.genfromtxt, uploaded (the dtypes the server stores only)."""
    return asarray(np.genfromtxt(*args, **kwargs))
