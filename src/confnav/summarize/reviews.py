"""A paper's reviews as a reader sees them: each review's last rating and confidence beside its text, the
meta-review and decision comment first, and what the reviewers agreed and disagreed on (agreement.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from confnav.model import REVIEW_KINDS, ReviewText, ReviewVersion
from confnav.summarize.agreement import ReviewSummary, Statement, summarize_reviews
from confnav.summarize.llm import ChatClient
from confnav.summarize.review_prose import WrittenSummary, write_summary

KIND_TITLES = {"meta-review": "Meta-review", "decision": "Decision", "review": "Review"}
_BLANK_LINES = re.compile(r"\n[ \t]*\n+")


class ReviewReader(Protocol):
    """What showing a paper's reviews reads from a store."""

    def review_texts(self, venue: str, paper_id: str) -> list[ReviewText]: ...

    def review_versions(self, venue: str, paper_id: str | None = None) -> list[ReviewVersion]: ...


@dataclass(frozen=True)
class Review:
    """One review, meta-review or decision comment of a paper: who wrote it, its last scores and its text."""

    review_id: str
    reviewer: str  # a readable name of the signature: "Reviewer 2xbc", "Area Chair 3", "AnonReviewer1"
    kind: str
    rating: float | None
    confidence: float | None
    modified: int
    fields: tuple[tuple[str, str], ...]

    @property
    def anchor(self) -> str:
        """The review's id on the paper page, which the summary's sentences link to."""
        return anchor_of(self.review_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "review_id": self.review_id,
            "anchor": self.anchor,
            "reviewer": self.reviewer,
            "kind": self.kind,
            "rating": self.rating,
            "confidence": self.confidence,
            "modified": self.modified,
            "fields": [{"name": name, "text": text} for name, text in self.fields],
        }


@dataclass
class PaperReviews:
    """A paper's reviews in the order a page shows them, and what they agreed and disagreed on."""

    reviews: list[Review] = field(default_factory=list)
    summary: ReviewSummary = field(default_factory=ReviewSummary)
    written: WrittenSummary | None = None  # the summary in a configured LLM's checked sentences

    def __bool__(self) -> bool:
        return bool(self.reviews)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviews": [r.to_dict() for r in self.reviews],
            "summary": self.summary.to_dict(),
            "written": self.written.to_dict() if self.written else None,
        }


def anchor_of(review_id: str) -> str:
    return "review-" + re.sub(r"[^A-Za-z0-9_-]", "-", review_id)


def reviewer_name(signature: str, kind: str) -> str:
    """The last part of an OpenReview signature made readable (`…/Submission12/Reviewer_2xbc` → `Reviewer 2xbc`)."""
    name = signature.rstrip("/").rsplit("/", 1)[-1].replace("_", " ").strip()
    return name or KIND_TITLES.get(kind, "Review")


def paragraphs(text: str) -> list[str]:
    """A review's text in its paragraphs (blank lines part them; single line breaks stay inside a paragraph)."""
    return [part.strip() for part in _BLANK_LINES.split(text.replace("\r\n", "\n")) if part.strip()]


def paper_reviews(store: ReviewReader, venue: str, paper_id: str, client: ChatClient | None = None) -> PaperReviews:
    """The paper's stored review texts with each review's last rating and confidence, meta-review and decision
    first, then the reviews as they were posted (a review known only by its scores without text); with an LLM's
    `client`, the summary also in its checked sentences."""
    texts = {t.review_id: t for t in store.review_texts(venue, paper_id)}
    if not texts:
        return PaperReviews()  # most papers of most venues: one read, not two
    last: dict[str, ReviewVersion] = {}
    for seen in store.review_versions(venue, paper_id):  # by review and time: the last one stays
        last[seen.review_id] = seen
    reviews: list[Review] = []
    for review_id in texts.keys() | last.keys():
        text, version = texts.get(review_id), last.get(review_id)
        kind = text.kind if text else "review"
        signature = text.reviewer if text else version.reviewer if version else ""
        reviews.append(
            Review(
                review_id,
                reviewer_name(signature, kind),
                kind,
                version.rating if version else None,
                version.confidence if version else None,
                text.modified if text else version.modified if version else 0,
                text.fields if text else (),
            )
        )
    reviews.sort(key=lambda r: (REVIEW_KINDS.index(r.kind), r.modified, r.reviewer, r.review_id))
    said = [Statement(r.review_id, r.anchor, r.reviewer, r.kind, r.fields) for r in reviews if r.fields]
    summary = summarize_reviews(said)
    return PaperReviews(reviews, summary, write_summary(summary, client) if client else None)
