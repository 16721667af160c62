"""Names and optional dependencies imported on first use, so that importing cranfield is cheap.

Every command imports :mod:`cranfield`; the names that need polars (or the statistics) are
only imported when someone asks for them (PEP 562), and an optional dependency missing when
it is needed is an error that says how to install it (:func:`install_hint`, the one wording).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cranfield._deprecation import moved_names

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from cranfield._deprecation import MovedName


INSTALL_HINT_START = "install the '"
"""How every install hint starts (the command line recognises a message that has one)."""


def install_hint(extra: str) -> str:
    """How to install the optional ``extra``, as every message words it.

    cranfield is installed from its clone (it is on no package index), so the command is the
    one the README uses there.

    >>> install_hint("plot")
    "install the 'plot' extra from cranfield's clone: pip install '.[plot]'"
    """
    return f"{INSTALL_HINT_START}{extra}' extra from cranfield's clone: pip install '.[{extra}]'"


def lazy_names(
    package: str,
    where: Mapping[str, str],
    namespace: dict[str, Any],
    moved: Iterable[MovedName] = (),
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``.

    ``where[name]`` is the module that defines ``name``; the name is imported the first
    time it is asked for and then kept in ``namespace`` (the package's globals). ``moved``
    are old names kept for one release (:class:`~cranfield._deprecation.MovedName`): each
    still gives its value, with a ``DeprecationWarning`` at every use, and is not listed by
    ``__dir__``.
    """
    old_names = moved_names(package, moved)

    def __getattr__(name: str) -> object:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value
            return value
        return old_names(name)

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__


def require(modules: tuple[str, ...], extra: str, purpose: str) -> None:
    """Import ``modules`` (optional dependencies) or say how to install them.

    Raises
    ------
    ModuleNotFoundError
        Naming the missing module, what needs it and the exact install command:
        ``to_pandas() needs pyarrow, which is not installed; install the 'pandas' extra
        from cranfield's clone: pip install '.[pandas]'``.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise ModuleNotFoundError(
                f"{purpose} needs {module}, which is not installed; {install_hint(extra)}",
                name=module,
            ) from None
