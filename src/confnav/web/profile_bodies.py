"""The JSON bodies of the profile routes (`web/personal.py`): profiles, their marks and recommendations, as typed
models for the OpenAPI description (see `bodies.py`)."""

from __future__ import annotations

from confnav.web.bodies import Body, Notices


class ProfileSummary(Body):
    name: str
    papers: int
    marks: int


class ProfileSecret(Body):
    """A profile's new secret, shown this once, and the link that opens the profile with it."""

    name: str
    secret: str
    link: str


class ProfileItem(Body):
    title: str
    year: int | None
    venue: str | None
    id: str | None


class Mark(Body):
    venue: str
    id: str
    mark: str


class Marks(Body):
    name: str
    marks: list[Mark]


class Profile(Marks):
    items: list[ProfileItem]


class MarkAdded(Body):
    name: str
    id: str
    venue: str
    mark: str


class MarkRemoved(Body):
    name: str
    id: str
    venue: str
    removed: str


class Recommended(Body):
    id: str
    venue: str
    title: str
    score: float
    reason: str


class Recommendations(Notices):
    hits: list[Recommended]
