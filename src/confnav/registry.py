"""Step registries: one name → factory table per kind of pluggable step (reader, embedder, index, clusterer,
labeler, layout, ranker, summarizer), with a `module:Class` escape so a user can plug in a step of their own."""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from confnav.errors import ConfnavError, excerpt

T = TypeVar("T")
Factory = Callable[..., T]


def is_import_spec(name: str) -> bool:
    """Whether `name` has the form `package.module:Class` (or `module:function`)."""
    module, sep, attribute = name.partition(":")
    return bool(sep) and all(part.isidentifier() for part in module.split(".")) and attribute.isidentifier()


def step_name(step: object) -> str:
    """The `module:Class` name of a step passed as an object: what built a result, recorded with it, so that a result
    of other steps than the ones asked later is known as theirs (two settings of one class share the name)."""
    kind = type(step)
    return f"{kind.__module__}:{kind.__qualname__}"


class Registry(Generic[T]):
    """Named factories of one kind of step, in the order they were registered.

    `create(name, **kwargs)` calls the factory registered under `name`; a `module:Class` name not registered is
    imported instead, and must be a class having every attribute in `members` (a stored name comes from the
    store, so nothing else is called), and the step it makes every one in `attributes` (data a step may set in its
    constructor); a plugged class must take the keywords in `arguments`, which it is made with.
    `fallback` (name → factory or None) resolves further names a kind accepts
    without listing them, such as any sentence-transformers model name for the embedder.
    """

    def __init__(
        self,
        kind: str,
        members: tuple[str, ...] = (),
        fallback: Callable[[str], Factory[T] | None] | None = None,
        attributes: tuple[str, ...] = (),
        arguments: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.members = members
        self.attributes = attributes
        self.arguments = arguments
        self.fallback = fallback
        self._factories: dict[str, Factory[T]] = {}

    def register(self, name: str, factory: Factory[T]) -> Factory[T]:
        """Add (or replace) the factory for `name`; returns it, so it can decorate a class."""
        self._factories[name] = factory
        return factory

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def check(self, name: str) -> None:
        """That `name` resolves, and a plugged class takes the keywords a step of this kind is made with (what
        `create` would refuse), without making one: a wrong step fails at start-up."""
        factory = self.factory(name)
        if name not in self._factories:
            self._takes(name, factory, dict.fromkeys(self.arguments))

    def _takes(self, name: str, factory: Factory[T], kwargs: dict[str, Any]) -> None:
        """A one-line ConfnavError when `factory` cannot be called with `kwargs` (not a Python traceback)."""
        try:
            inspect.signature(factory).bind(**kwargs)
        except TypeError as exc:
            given = ", ".join(kwargs) or "no arguments"
            raise ConfnavError(
                f"{self.kind} {name!r} cannot be made with {given}, as every {self.kind} is: {exc}"
            ) from None
        except ValueError:  # no signature to read (a builtin): calling it will tell
            return

    def name_of(self, step: object) -> str:
        """The name a step passed as an object goes by: the one its class is registered under, else its
        `module:Class` (so that a record of it leads back to its kind of step)."""
        kind = type(step)
        return next((name for name, factory in self._factories.items() if factory is kind), step_name(step))

    def factory(self, name: str, imports: bool = True) -> Factory[T]:
        """The factory for `name` (registered, `module:Class`, or the fallback's); a one-line ConfnavError when
        there is none. With `imports` False, a `module:Class` is found only in a module already imported (a name
        read from a file does not choose code to load)."""
        if name in self._factories:
            return self._factories[name]
        if is_import_spec(name):
            module = name.partition(":")[0]
            if not imports and module not in sys.modules:
                raise ConfnavError(
                    f"{self.kind} {name!r} is not imported here, and a name read from a file does not import code;"
                    f" choose it in the settings ([steps] {self.kind}) to use it"
                )
            return self._imported(name)
        found = self.fallback(name) if self.fallback else None
        if found is None:
            raise ConfnavError(f"unknown {self.kind} {excerpt(name)}; known: {self._known()}")
        return found

    def create(self, name: str, imports: bool = True, **kwargs: Any) -> T:
        """A new step of this kind made by the factory for `name` (`imports`: as for `factory`)."""
        factory = self.factory(name, imports)
        self._takes(name, factory, kwargs)
        step = factory(**kwargs)
        lacking = [attribute for attribute in self.attributes if not hasattr(step, attribute)]
        if lacking and name not in self._factories:
            raise ConfnavError(f"{excerpt(name)} is not {self._a()}: it has no {', '.join(map(repr, lacking))}")
        return step

    def _imported(self, spec: str) -> Factory[T]:
        module_name, _, attribute = spec.partition(":")
        try:
            found = getattr(importlib.import_module(module_name), attribute)
        except ImportError as exc:
            raise ConfnavError(f"cannot import {self.kind} {excerpt(spec)} ({exc}); known: {self._known()}") from None
        except AttributeError:
            raise ConfnavError(
                f"module {module_name!r} has no {self.kind} {attribute!r}; known: {self._known()}"
            ) from None
        if not isinstance(found, type):
            raise ConfnavError(f"{self.kind} {excerpt(spec)} is not a class; known: {self._known()}")
        lacking = [member for member in self.members if not hasattr(found, member)]
        if lacking:
            raise ConfnavError(f"{excerpt(spec)} is not {self._a()}: it has no {', '.join(map(repr, lacking))}")
        return found

    def _a(self) -> str:
        return f"{'an' if self.kind[0] in 'aeiou' else 'a'} {self.kind}"

    def _known(self) -> str:
        return ", ".join(self._factories) + ", or package.module:Class"
