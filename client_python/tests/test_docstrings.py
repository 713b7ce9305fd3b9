"""Every public function of the package has a docstring: the module-level names in the
``__all__`` of ``arrayhub``, ``arrayhub.linalg``, ``arrayhub.random``, ``arrayhub.cuda``,
``arrayhub.cuda.runtime``, ``arrayhub.distributed`` and ``arrayhub.profiler``, and the public
methods and properties of the classes among them that ArrayHub defines."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any, Iterator

import arrayhub


def _own_doc(obj: Any) -> str:
    """The object's own docstring: a class's, not one inherited from its bases."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return (doc or "").strip()


def _public(module: ModuleType) -> Iterator[tuple[str, Any]]:
    for name in module.__all__:
        obj = getattr(module, name)
        if not callable(obj):
            continue  # Constants (pi, e) and tables (UFUNCS).
        yield f"{module.__name__}.{name}", obj
        if inspect.isclass(obj) and obj.__module__.startswith("arrayhub"):
            for member, value in vars(obj).items():
                if member.startswith("_"):
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if callable(value) or isinstance(value, property):
                    yield f"{module.__name__}.{name}.{member}", value


def test_every_public_function_has_a_docstring() -> None:
    undocumented = sorted({qualified for module in (arrayhub, arrayhub.linalg, arrayhub.random,
                                                          arrayhub.cuda, arrayhub.cuda.runtime,
                                                          arrayhub.distributed, arrayhub.profiler)
                           for qualified, obj in _public(module) if not _own_doc(obj)})
    assert not undocumented, f"{len(undocumented)} without a docstring: {undocumented}"


def test_the_check_sees_a_missing_docstring() -> None:
    def documented() -> None:
        """Does nothing."""

    def bare() -> None:
        pass

    assert _own_doc(documented) and not _own_doc(bare)
