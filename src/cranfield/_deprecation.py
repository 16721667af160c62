"""Old spellings of renamed public names, kept working for a while with a warning.

When a public parameter, method or attribute is renamed, its old spelling stays as a
deprecated alias for one minor release (CONTRIBUTING.md, "Deprecations"): it still works and
emits a :class:`DeprecationWarning` naming the new spelling; CHANGELOG.md lists it under
"Deprecated". Two tools, so that every alias behaves and words its warning the same way:

* :func:`renamed_parameters` -- a decorator: ``@renamed_parameters(k="n_folds")`` lets a
  caller still write ``k=5``. The signature seen by :func:`inspect.signature`, the docs and
  type checkers is the new one only.
* :class:`DeprecatedAlias` -- a class attribute: ``per_topic = DeprecatedAlias("per_topic",
  "per_query")`` reads ``per_query`` (a value, or a method then called as before).
* :class:`MovedName` -- a module attribute that moved or was renamed (``cranfield.read_run``,
  now ``cranfield.load_run``): the module's ``__getattr__`` (:func:`moved_names`, or
  :func:`cranfield._lazy.lazy_names` for a package whose names are imported on first use)
  still gives the old value, with the warning. ``dir()`` and ``__all__`` show only the new
  names.

A deprecated *form* of a call that cannot be a renamed parameter (``evaluate`` given a list of
runs) is a branch of the function that calls :func:`warn_renamed`, with a comment that says so.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Emit the one :class:`DeprecationWarning` of a renamed name: ``old`` and ``new`` are the
    spellings as a user writes them (``"kfold(k=...)"``, ``"kfold(n_folds=...)"``)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in a future minor release; use {new}.",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_parameters(**old_to_new: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Accept each old keyword (``old=new``) in place of the new one, with a warning.

    Giving both spellings at once is a :class:`TypeError`, as Python's own duplicate keyword
    is.

    Examples
    --------
    >>> import warnings
    >>> @renamed_parameters(k="n_folds")
    ... def split(topics: list[str], n_folds: int = 5) -> int:
    ...     return n_folds
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     split([], k=3)
    3
    >>> print(seen[0].message)
    split(k=...) is deprecated and will be removed in a future minor release; use split(n_folds=...).
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        name = function.__qualname__

        @functools.wraps(function)
        def accepting_old_names(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{name}() got both {new!r} and {old!r}, its deprecated spelling; "
                            f"give {new!r} only."
                        )
                    warn_renamed(f"{name}({old}=...)", f"{name}({new}=...)")
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        accepting_old_names.__deprecated_parameters__ = dict(old_to_new)  # type: ignore[attr-defined]
        return accepting_old_names

    return decorate


class DeprecatedAlias:
    """A class attribute that reads another one, with a warning: the old name of a renamed
    method or attribute. On the class itself it is this object (so that tests can find the
    aliases); on an instance, the new attribute's value, a bound method included."""

    def __init__(self, old: str, new: str) -> None:
        self.old = old
        self.new = new

    def __set_name__(self, owner: type, name: str) -> None:
        if name != self.old:
            raise TypeError(f"DeprecatedAlias({self.old!r}, ...) is assigned to {name!r}.")
        self.owner = owner.__name__

    @overload
    def __get__(self, instance: None, owner: type) -> DeprecatedAlias: ...
    @overload
    def __get__(self, instance: object, owner: type) -> Any: ...
    def __get__(self, instance: object | None, owner: type) -> Any:
        if instance is None:
            return self
        warn_renamed(f"{self.owner}.{self.old}", f"{self.owner}.{self.new}")
        return getattr(instance, self.new)


class MovedName(NamedTuple):
    """A module attribute that moved or was renamed, kept for one minor release.

    Attributes
    ----------
    module:
        The module the old name is read from (``"cranfield"``).
    old:
        The old name there (``"read_run"``).
    new:
        What replaces it, as a user writes it (``"cranfield.load_run"``); the warning says
        ``use {new}.``
    where, attr:
        The module and the name of the value the old name still gives
        (``"cranfield.io.trec"``, ``"read_run"``).
    """

    module: str
    old: str
    new: str
    where: str
    attr: str

    def value(self) -> object:
        """The value of the old name, with the warning (for the module's ``__getattr__``)."""
        # 4: warnings.warn <- warn_renamed <- value <- the module's __getattr__ <- the user
        warn_renamed(f"{self.module}.{self.old}", self.new, stacklevel=4)
        return getattr(importlib.import_module(self.where), self.attr)


def moved_names(module: str, moved: Iterable[MovedName]) -> Callable[[str], object]:
    """A module ``__getattr__`` that gives the old names of ``moved``, with the warning.

    Examples
    --------
    >>> import warnings
    >>> get = moved_names("pkg", [MovedName("pkg", "old_join", "os.path.join", "os.path", "join")])
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     get("old_join")("a", "b")
    'a/b'
    >>> print(seen[0].message)
    pkg.old_join is deprecated and will be removed in a future minor release; use os.path.join.
    """
    by_name = {m.old: m for m in moved}

    def __getattr__(name: str) -> object:
        if name in by_name:
            return by_name[name].value()
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
