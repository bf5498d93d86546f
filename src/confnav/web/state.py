"""What the web app keeps for its life: the store, a warm Searcher, and the write token."""

from __future__ import annotations

import hmac
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from fastapi import Request

from confnav.errors import ConfnavError
from confnav.search.engine import Searcher
from confnav.store.protocols import Store

T = TypeVar("T")
MAX_ANSWERS = 8192  # a few KB each: every paper of a big venue plus thousands of searches


class WriteForbidden(ConfnavError):
    """A write without the token printed at start-up (only required off loopback)."""


@dataclass
class AppState:
    store: Store
    searcher: Searcher
    token: str | None = None
    _themes: dict[str, tuple[object, dict[str, dict[str, str]]]] = field(default_factory=dict)
    _answers: OrderedDict[tuple[object, ...], object] = field(default_factory=OrderedDict)

    def cached(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """An answer computed once per store state (papers, vectors, themes, signals); least recently used go first.

        (Computing misses in worker threads was measured slower: the GIL serialises them anyway.)
        """
        full = (self.store.state(), *key)
        if full in self._answers:
            self._answers.move_to_end(full)
            return self._answers[full]  # type: ignore[return-value]
        value = compute()
        self._answers[full] = value
        if len(self._answers) > MAX_ANSWERS:
            self._answers.popitem(last=False)
        return value

    def check_write(self, request: Request) -> None:
        """Writes need the start-up token when the app is reachable from other machines."""
        if self.token is None:
            return
        given = request.headers.get("x-confnav-token", "")
        if not hmac.compare_digest(given, self.token):
            raise WriteForbidden("this server needs the token printed at start-up (header X-Confnav-Token) for writes")

    def theme_of(self, venue: str, paper_id: str) -> dict[str, str] | None:
        """A paper's theme id and label, when its venue has themes (cached per store state)."""
        state = self.store.state()
        cached = self._themes.get(venue)
        if cached is None or cached[0] != state:
            themes = {t.id: t.label for t in self.store.themes(venue, 1)}
            papers = dict(self.store.paper_rows(venue))
            by_paper = {
                papers[pk].id: {"id": a.theme, "label": themes.get(a.theme, a.theme)}
                for pk, a in self.store.assignments(venue).items()
            }
            cached = self._themes[venue] = (state, by_paper)
        return cached[1].get(paper_id)


def state_of(request: Request) -> AppState:
    return request.app.state.confnav  # type: ignore[no-any-return]
