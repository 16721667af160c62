"""Names of a package imported on first use (PEP 562), so that importing the package is cheap.

Every command imports :mod:`cranfield`; the names that need polars (or the statistics) are
only imported when someone asks for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def lazy_names(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``.

    ``where[name]`` is the module that defines ``name``; the name is imported the first
    time it is asked for and then kept in ``namespace`` (the package's globals).
    """

    def __getattr__(name: str) -> object:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__


def require(modules: tuple[str, ...], extra: str, purpose: str) -> None:
    """Import ``modules`` (optional dependencies) or say how to install them.

    Raises
    ------
    ModuleNotFoundError
        Naming the missing module, what needs it and the exact install command:
        ``to_pandas() needs pyarrow, which is not installed: pip install 'cranfield[pandas]'``.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise ModuleNotFoundError(
                f"{purpose} needs {module}, which is not installed: "
                f"pip install 'cranfield[{extra}]'",
                name=module,
            ) from None
