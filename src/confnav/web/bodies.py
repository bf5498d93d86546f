"""The JSON bodies the API answers, as typed models: the OpenAPI description at /openapi.json is generated from
them (routes build their bodies from the library's `to_dict`s; the fuzzer test checks every answer against these)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

Cell = int | float | str | None  # a statistics fact or table cell


class Body(BaseModel):
    """A JSON object with exactly these fields: a field a route adds and the model lacks fails the fuzzer test."""

    model_config = ConfigDict(extra="forbid")


class ErrorBody(Body):
    """Every refusal and error: one line saying what was wrong, never a traceback."""

    error: str = Field(description="what was wrong, in one line")


class Notices(Body):
    notices: list[str] = Field(description="what the user should know about this answer (e.g. a fallback)")


class Hit(Body):
    """A search, similar or recommendation result."""

    id: str
    title: str
    venue: str
    venue_name: str
    year: int
    decision: str
    outcome: str
    authors: list[str]
    rating_mean: float | None
    rating_scale: str | None
    fields: list[str] = Field(description="the fields readers look for that the record carries")
    resources: dict[str, str] = Field(description="code, project, video, slides and poster links it has")
    score: float | None = Field(description="the hit's relevance; none in a listing without words, which has an order")
    keyword_score: float | None
    semantic_score: float | None
    snippet: str = Field(description="the abstract's start or its best passage, matches marked with <mark>")


class Hits(Notices):
    hits: list[Hit]


class SearchAnswer(Hits):
    mode: str
    matching: int | None = Field(
        description="how many papers meeting the filters contain the query's words; without words, how many meet them"
    )
    meeting_filters: int | None = Field(description="how many papers meet the filters, whatever the words")
    offset: int
    limit: int | None = Field(description="the most hits a page holds")
    sort: str
    model: str | None = Field(description="the model whose vectors ranked the papers by meaning")
    order: str | None = Field(description="the order of a listing without words (no relevance to rank by)")


class ExpertPaper(Body):
    id: str
    venue: str
    title: str
    decision: str
    score: float


class Expert(Body):
    name: str
    profile: str | None
    score: float
    papers: int
    accepted: int
    institutions: list[str]
    matching: list[ExpertPaper]


class ExpertsAnswer(Notices):
    topic: str
    mode: str
    experts: list[Expert]


class Author(Body):
    name: str
    affiliation: str | None
    profile: str | None = None
    institution: str | None = None
    country: str | None = None


class Decision(Body):
    label: str
    outcome: str
    kind: str
    tier: int
    name: str


class Citations(Body):
    count: int
    source: str
    as_of: str | None


class PaperTheme(Body):
    id: str
    label: str


class PaperHistory(Body):
    sentences: list[str]
    note: str


class PaperImpact(Body):
    top_percent: int
    source: str
    parts: list[str]


class ReviewField(Body):
    name: str = Field(description="the field's name in the venue's review form (summary, weaknesses, metareview, …)")
    text: str = Field(description="as fetched: show it escaped")


class PaperReview(Body):
    review_id: str
    anchor: str = Field(description="the review's id on the paper page")
    reviewer: str
    kind: str = Field(description="meta-review, decision or review")
    rating: float | None = Field(description="the last version's")
    confidence: float | None
    modified: int = Field(description="the source's time of the text, ms since 1970")
    fields: list[ReviewField]


class ReviewQuote(Body):
    text: str = Field(description="a sentence as written in the review")
    review_id: str
    anchor: str
    reviewer: str
    field: str
    polarity: int = Field(description="1 praise, -1 criticism, 0 neither")


class ReviewSummary(Body):
    agreed: list[list[ReviewQuote]] = Field(description="each point: one opinion, then the alike ones of other reviews")
    disagreed: list[list[ReviewQuote]] = Field(description="each point: praise, then criticism of the same aspect")
    method: str


class CitedReview(Body):
    review_id: str
    anchor: str
    reviewer: str


class WrittenSentence(Body):
    text: str
    cites: list[CitedReview]


class WrittenReviewSummary(Body):
    sentences: list[WrittenSentence] = Field(description="each checked to cite reviews quoted in the summary")
    generated: int = Field(description="sentences the LLM wrote")
    dropped: int = Field(description="sentences that failed the checks")


class PaperReviews(Body):
    reviews: list[PaperReview] = Field(description="the meta-review and decision comment first, then the reviews")
    summary: ReviewSummary
    written: WrittenReviewSummary | None = Field(description="the summary in a configured LLM's checked sentences")


class SourceSaid(Body):
    source: str
    value: Any = Field(description="the field's value as the source gives it")
    shown: str = Field(description="the value in words, as `confnav show` prints it")
    note: str = Field(description="'shown', or the merge's rule that set it aside")


class Disagreement(Body):
    field: str
    said: list[SourceSaid]


class Paper(Body):
    """One paper with every field and where each came from, its TL;DR and theme."""

    id: str
    venue: str
    venue_name: str
    year: int
    track: str | None
    title: str
    abstract: str | None
    authors: list[Author]
    affiliations: list[str]
    affiliations_by_author: bool
    institutions: list[str]
    countries: list[str]
    keywords: list[str]
    primary_area: str | None
    session: str | None
    award: str | None
    decision: Decision
    ratings: list[float]
    rating_mean: float | None
    confidences: list[float]
    citations: Citations | None
    links: dict[str, str]
    resources: dict[str, str]
    has_code: bool
    tldr: str | None
    provenance: dict[str, str]
    tldr_text: str | None
    tldr_source: str | None
    theme: PaperTheme | None
    history: PaperHistory | None = Field(None, description="a pending paper: earlier editions, never a forecast")
    impact: PaperImpact | None = Field(None, description="once a ranking estimated it")
    reviews: PaperReviews | None = Field(None, description="where the reviews' texts are public: what they said")
    sources: list[str] = Field(description="every source record of the paper, as kind:file")
    disagreements: list[Disagreement] = Field(description="fields on which its sources differ, the shown one first")


class InstitutionVenue(Body):
    venue: str
    name: str
    year: int
    papers: int
    accepted: int
    decided: int
    rated: bool
    acceptance: float | None


class PersonCount(Body):
    name: str
    papers: int


class InstitutionPaper(Body):
    id: str
    venue: str
    venue_name: str
    year: int
    title: str
    decision: str
    outcome: str


class Institution(Body):
    name: str
    spellings: list[str]
    venues: list[InstitutionVenue]
    authors: list[PersonCount]
    papers: list[InstitutionPaper]


class Theme(Body):
    id: str
    venue: str
    label: str
    level: int
    parent: str | None
    keywords: list[str]
    size: int
    share: float
    accepted: int
    accepted_kinds: dict[str, int]
    oral: int
    spotlight: int
    poster: int
    acceptance_rate: float | None
    mean_rating: float | None
    low_confidence: int
    representative: list[str]
    best_rated: list[str]
    x: float
    y: float
    paper_ids: list[str]


class MapTheme(Body):
    id: str
    label: str
    xy: list[int]
    size: int


class Map(Body):
    """A venue's papers column by column, positions as integer x, y pairs on a 0..10,000 grid."""

    venue: str
    ids: list[str]
    titles: list[str]
    theme: list[int]
    accepted: list[int]
    decided: bool
    xy: list[int]
    themes: list[MapTheme]


class Ranked(Body):
    id: str
    title: str
    venue: str
    decision: str
    outcome: str
    mode: str
    score: float
    base_score: float
    reasons: list[str]
    impact_explained: list[str]
    theme: str | None
    signals: dict[str, float | None]
    normalized: dict[str, float]
    contributions: dict[str, float]


class Stats(Body):
    venue: str
    facts: dict[str, Cell]
    labels: dict[str, str]
    tables: dict[str, list[dict[str, Cell]]]
    notes: list[str]


class RatingBin(Body):
    low: float
    high: float
    label: str
    papers: int
    accepted: int
    share: float


class Edition(Body):
    venue: str
    name: str
    scale: str
    comparable: bool
    papers: int
    accepted: int
    bins: list[RatingBin]


class History(Notices):
    venue: str
    name: str
    pending: int
    scale: str | None
    editions: list[Edition]
    note: str


class ListSummary(Body):
    name: str
    papers: int


class ListCreated(Body):
    name: str


class ListDeleted(Body):
    deleted: str


class ListPaper(Body):
    id: str
    title: str
    venue: str


class ReadingList(Body):
    name: str
    papers: list[ListPaper]


class ListAdded(Body):
    list: str
    id: str


class ListRemoved(Body):
    list: str
    removed: str


class Job(Body):
    id: str
    kind: str
    venue: str
    state: str = Field(description="running, done or failed")
    message: str
    created: str
    updated: str
