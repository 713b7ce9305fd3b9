"""CuPy's and NumPy 1.x's small utilities: show_config, is_available, who, disp, safe_eval,
get_array_wrap, make_aligned_dtype, memoize, clear_memo, iterable and the
``disable_experimental_feature_warning`` flag.

CuPy's answers are about the local GPU and CUDA; arrayhub's are about the server the current
client is connected to (its version, backend and devices), which is where the arrays are.
"""

from __future__ import annotations

import ast
import functools
import platform
import sys
from typing import Any, Callable, Optional, TextIO

import numpy as np
from numpy import iterable

from arrayhub._client import get_client
from arrayhub._errors import ArrayHubError, ArrayHubValueError, client_error
from arrayhub._ndarray import ndarray

__all__ = ["show_config", "is_available", "who", "disp", "safe_eval", "get_array_wrap",
           "make_aligned_dtype", "memoize", "clear_memo", "iterable",
           "disable_experimental_feature_warning"]

#: CuPy's switch for its FutureWarning on experimental APIs. arrayhub marks none experimental,
#: so it changes nothing; it exists so that programs that set it run.
disable_experimental_feature_warning = False


def show_config() -> None:
    """Prints the client's and the server's versions and the server's devices (CuPy prints
    its CUDA configuration)."""
    from arrayhub import __version__

    client = get_client()
    info = client.server_info()
    lines = [("OS", platform.platform()), ("Python Version", platform.python_version()),
             ("arrayhub Version", __version__), ("NumPy Version", np.__version__),
             ("Server Address", client.address), ("Server Version", info.version),
             ("Server Backend", info.backend), ("Tenant", info.tenant)]
    lines += [(f"Device {i}", f"{d.name}: {d.description}") for i, d in enumerate(info.devices)]
    width = max(len(name) for name, _ in lines)
    print("\n".join(f"{name:<{width}} : {value}" for name, value in lines))


def is_available() -> bool:
    """Whether the server can be reached and has a device (CuPy: whether a GPU is usable)."""
    try:
        return len(get_client().server_info().devices) > 0
    except ArrayHubError:
        return False


def who(vardict: Optional[dict[str, Any]] = None) -> None:
    """Prints the arrayhub arrays of ``vardict`` (default: the caller's globals): name, shape,
    bytes and type, in NumPy 1.x's (and CuPy's) layout. Aliases of one array count once."""
    if vardict is None:
        vardict = sys._getframe().f_back.f_globals
    rows, seen = [], {}
    for name, value in vardict.items():
        if isinstance(value, ndarray):
            original = id(value) not in seen
            label = name if original else f"{name} ({seen[id(value)]})"
            seen.setdefault(id(value), name)
            rows.append((label, " x ".join(map(str, value.shape)), str(value.nbytes),
                         value.dtype.name, original))
    if rows:
        sp1 = max(10, *(len(r[0]) for r in rows))
        sp2 = max(10, *(len(r[1]) for r in rows))
        sp3 = max(10, *(len(r[2]) for r in rows))
        header = f"Name {sp1 * ' '} Shape {sp2 * ' '} Bytes {sp3 * ' '} Type"
        print(header + "\n" + "=" * (len(header) + 5) + "\n")
        for label, shape, size, kind, _ in rows:
            print(f"{label} {' ' * (sp1 - len(label) + 4)} {shape} "
                  f"{' ' * (sp2 - len(shape) + 5)} {size} {' ' * (sp3 - len(size) + 5)} {kind}")
    total = sum(int(r[2]) for r in rows if r[4])
    print(f"\nUpper bound on total bytes  =       {total}")


def disp(mesg: Any, device: Optional[TextIO] = None, linefeed: bool = True) -> None:
    """Writes ``mesg`` (and a newline) to ``device`` (default: stdout) and flushes it."""
    device = sys.stdout if device is None else device
    device.write(f"{mesg}\n" if linefeed else f"{mesg}")
    device.flush()


def safe_eval(source: str) -> Any:
    """A Python literal's value (ast.literal_eval), as NumPy 1.x's safe_eval."""
    return ast.literal_eval(source)


def get_array_wrap(*args: Any) -> Optional[Callable[..., Any]]:
    """The ``__array_wrap__`` of the argument with the highest ``__array_priority__`` (the
    first on ties), or None. arrayhub arrays have none."""
    wrappers = sorted((getattr(x, "__array_priority__", 0), -i, x.__array_wrap__)
                      for i, x in enumerate(args) if hasattr(x, "__array_wrap__"))
    return wrappers[-1][-1] if wrappers else None


def make_aligned_dtype(dtype: Any, *, alignment: int = -1, recurse: bool = True) -> np.dtype:
    """A structured dtype with its fields at aligned offsets (C's layout, as
    ``numpy.dtype(..., align=True)``), its size padded to ``alignment`` when that is larger
    than the fields need; a smaller one raises ValueError. Non-structured dtypes come back
    unchanged. arrayhub arrays hold no structured dtypes; this is the dtype computation only."""
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        return dtype
    names, formats, offsets, needed, end = [], [], [], 1, 0
    for name in dtype.names:
        field = dtype.fields[name][0]
        if recurse and field.fields is not None:
            field = make_aligned_dtype(field)
        align = field.alignment
        end = -(-end // align) * align
        names.append(name), formats.append(field), offsets.append(end)
        end += field.itemsize
        needed = max(needed, align)
    if alignment != -1 and alignment < needed:
        raise client_error(ArrayHubValueError,
                           f"requested alignment {alignment} is smaller than the minimal "
                           f"alignment {needed} of the dtype")
    align = max(needed, alignment)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": -(-end // align) * align}, align=True)


#: The caches of every memoize'd function, emptied by clear_memo.
_MEMOS: list[dict[Any, Any]] = []


def memoize(for_each_device: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that caches a function's result for each set of (hashable) positional
    arguments, and for each current device with ``for_each_device`` (CuPy's memoize)."""
    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        cache: dict[Any, Any] = {}
        _MEMOS.append(cache)

        @functools.wraps(function)
        def memoized(*args: Any) -> Any:
            key = args
            if for_each_device:
                from arrayhub import cuda

                key = (cuda.Device().id, *args)
            if key not in cache:
                cache[key] = function(*args)
            return cache[key]
        return memoized
    return decorator


def clear_memo() -> None:
    """Forgets the results cached by every :func:`memoize`'d function."""
    for cache in _MEMOS:
        cache.clear()
