"""How long work reports progress: the CLI draws a bar, the library default stays silent."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """A sink for progress of one stage at a time."""

    def start(self, description: str, total: int | None) -> None: ...

    def advance(self, amount: int = 1) -> None: ...


class Silent:
    """The do-nothing Progress."""

    def start(self, description: str, total: int | None) -> None:
        pass

    def advance(self, amount: int = 1) -> None:
        pass
