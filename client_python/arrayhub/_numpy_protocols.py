"""NumPy's dispatch protocols for arrayhub arrays: ``numpy.exp(x)``, ``numpy.add.reduce(x)``,
``numpy.where(c, x, y)``, ``numpy.linalg.norm(x)`` ... run arrayhub's function of the same
name on the server, and the result stays there.

A NumPy function or ufunc is matched to arrayhub's by module and name, looked up when it is
called (``numpy.linalg.norm`` -> ``arrayhub.linalg.norm``, ``numpy.fft.fft`` ->
``arrayhub.fft.fft``), so whatever arrayhub implements is routed. One it does not implement
raises TypeError naming it instead of downloading the data: ``numpy.asarray(x)`` (or
``arrayhub.asnumpy(x)``, ``x.get()``) is the explicit way to the host.

Mixed operands follow CuPy: the call goes to arrayhub's function, which refuses NumPy arrays
with TypeError (``numpy.add(numpy_array, x)``, ``numpy_array + x``); upload them with
``arrayhub.asarray``. Arguments of other types that implement the protocols are left to them
(NotImplemented), as NEP 13 and NEP 18 ask.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, Optional

import numpy as np

from arrayhub import _ndarray
from arrayhub._errors import ArrayHubTypeError, client_error

_HINT = "call arrayhub.asnumpy() first to compute on the host"


def _handles_all(types: Iterable[type]) -> bool:
    """Whether every type that takes part is an arrayhub or NumPy array (or scalar): other
    implementations of the protocols get their turn when this one returns NotImplemented."""
    return all(issubclass(t, (_ndarray.ndarray, np.ndarray, np.generic)) for t in types)


def _overriding_types(values: Iterable[Any]) -> list[type]:
    return [type(v) for v in values if hasattr(type(v), "__array_ufunc__")]


def _resolve(module_name: str, name: str) -> Optional[Any]:
    """``arrayhub.<module>.<name>`` for NumPy's ``numpy.<module>.<name>``, or None."""
    path = "arrayhub" + module_name[len("numpy"):]
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as error:
        if error.name is not None and path.startswith(error.name):
            return None  # No such arrayhub module (yet).
        raise
    return getattr(module, name, None)


def _numpy_name(func: Callable[..., Any]) -> str:
    return f"{func.__module__}.{func.__name__}"


def _implementation(func: Callable[..., Any]) -> Optional[Callable[..., Any]]:
    """arrayhub's function for NumPy's ``func``, or None, looked up at each call (so a
    function arrayhub gains is routed). The name must resolve to ``func`` in the module NumPy
    names (a function whose __module__ is not where it lives is not matched by name), and
    arrayhub's must not be NumPy's own (re-exported: calling it would download)."""
    module_name, name = func.__module__, func.__name__
    if module_name != "numpy" and not module_name.startswith("numpy."):
        return None
    if getattr(importlib.import_module(module_name), name, None) is not func:
        return None
    target = _resolve(module_name, name)
    return target if callable(target) and target is not func else None


def array_function(func: Callable[..., Any], types: Iterable[type], args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:
    """ndarray.__array_function__ (NEP 18)."""
    if not _handles_all(types):
        return NotImplemented
    target = _implementation(func)
    if target is None:
        raise client_error(ArrayHubTypeError,
                           f"no implementation found for '{_numpy_name(func)}' on ArrayHub "
                           f"arrays; {_HINT}")
    return target(*args, **kwargs)


def array_ufunc(np_ufunc: np.ufunc, method: str, inputs: tuple[Any, ...],
                kwargs: dict[str, Any]) -> Any:
    """ndarray.__array_ufunc__ (NEP 13): ``numpy.<name>`` and its methods run arrayhub's
    ufunc (or function: numpy.matmul is a ufunc, arrayhub.matmul a function) of that name."""
    if not _handles_all(_overriding_types((*inputs, *kwargs.get("out", ())))):
        return NotImplemented
    from arrayhub._ufuncs import ufunc
    name = np_ufunc.__name__
    target = _resolve("numpy", name)
    if target is np_ufunc:
        target = None  # NumPy's own, re-exported: it would download.
    if method != "__call__":
        target = getattr(target, method, None) if isinstance(target, ufunc) else None
    if not callable(target):
        what = f"numpy.{name}" if method == "__call__" else f"numpy.{name}.{method}"
        raise client_error(ArrayHubTypeError,
                           f"no implementation found for '{what}' on ArrayHub arrays; {_HINT}")
    return target(*inputs, **kwargs)
