"""Search, similar papers and reading-list recommendations over one store."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

from confnav.embed import load_embedder
from confnav.embed.base import Embedder, embed_checked
from confnav.embed.views import embedder_state_cache, paper_text, text_models
from confnav.errors import ConfnavError, NotFoundError, argument, excerpt, whole_number
from confnav.model import Outcome, Paper
from confnav.search.corpus import Corpus, Vectors
from confnav.search.first_cut import KEYWORD_CUT, Exact, first_cut
from confnav.search.fusion import RUN_INDEX, ConvexFusion, align_groups, lift_accepted, with_unindexed
from confnav.search.hits import collect_hits, meeting_rows
from confnav.search.query import Query, parse_query
from confnav.search.results import BY_SCORE, SORT_POOL, Hit, Mode, Results, check_request, page_of
from confnav.search.routing import COMMON_WORDS, route
from confnav.search.stored import LeanCorpus, StoredVectors
from confnav.search.text import terms
from confnav.store import PaperFilter
from confnav.store.base import serves_requests
from confnav.store.protocols import NearestNeighbours, SearchStore

Fusion = Callable[[np.ndarray, np.ndarray], np.ndarray]
log = logging.getLogger("confnav.search")
NO_INDEX = f"this store has no semantic index yet: {RUN_INDEX}"
AnyVectors = Vectors | StoredVectors  # in this process's memory, or searched inside the database


# Relevance lifts accepted papers by 10% (benchmarks/search_standing.py); "match" is words and meaning alone.
ACCEPTED_LIFT = 0.1
# The order of a search without words under relevance or match (browse): the standing of each outcome, then the rating.
BROWSE_ORDER = "accepted first, then undecided, then not accepted; each by mean rating"


class Searcher:
    """Keyword (BM25F), semantic (cosine) and hybrid retrieval; the corpus is loaded once and reused. `embedder`
    is one already loaded, used for the stored vectors of its `name` only (others are searched by their own)."""

    def __init__(
        self,
        store: SearchStore,
        embedder: Embedder | None = None,
        fusion: Fusion | None = None,
        accepted_lift: float = ACCEPTED_LIFT,
    ) -> None:
        self.store = store
        self.fusion = fusion or ConvexFusion()
        self.accepted_lift = accepted_lift  # relevance × (1 + lift) for accepted papers, see fusion.lift_accepted
        self._embedders = {embedder.name: embedder} if embedder is not None else {}  # pretrained ones, kept
        self._corpus: Corpus | None = None
        self._versions = (-1, -1)
        self._vectors: list[AnyVectors] = []  # each stored model's, the main one first
        # PostgreSQL keeps papers and vectors: hold only row keys and the keyword index, ask it for the rest.
        self.in_store = isinstance(store, NearestNeighbours)
        # A server keeps answering from what it has while a thread loads the store's new state.
        self.refresh_in_background = serves_requests(store)
        # A server's workers leave the papers in the store and map what search holds of them from shared files.
        self.lean = self.in_store or self.refresh_in_background
        self._refresher: ThreadPoolExecutor | None = None  # one long-lived thread: one connection, reused
        self._refreshing: Future[None] | None = None
        self._closing = False
        self._lock = threading.RLock()

    @property
    def corpus(self) -> Corpus:
        """The in-memory corpus, reloaded when papers changed; the vectors when embeddings changed."""
        with self._lock:  # request threads share one corpus: one of them reloads it, the others wait
            versions = self.store.versions()
            if versions == self._versions and self._corpus is not None:
                return self._corpus
            if self._corpus is not None and self.refresh_in_background:
                self._refresh_later()
                return self._corpus
            self._corpus, self._vectors = self._load(versions)
            self._versions = versions
            return self._corpus

    def _load(self, versions: tuple[int, int]) -> tuple[Corpus, list[AnyVectors]]:
        """The corpus (reloaded only when papers changed) and the vectors for the store at `versions`."""
        corpus, same = self._corpus, versions[1] == self._versions[1]  # no vector stored since
        held = {v.embedder.name: v for v in self._vectors if v.embedder is not None} if same else {}
        if corpus is None or versions[0] != self._versions[0]:  # the keyword index is updated from the last one
            corpus = (LeanCorpus if self.lean else Corpus).load(self.store, corpus)
        models = text_models(self.store)
        loaded = [self._load_vectors(corpus, model, held.get(model)) for model in models]
        if loaded and loaded[0] is None:
            return corpus, []  # the main model's state is unreadable: searched as a store without an index
        return corpus, [v for v in loaded if v is not None]

    def _refresh_later(self) -> None:
        """Load the store's new state in a thread of its own, then swap it in (one refresh at a time)."""
        if self._closing or (self._refreshing is not None and not self._refreshing.done()):
            return

        def refresh() -> None:
            try:
                versions = self.store.versions()
                loaded = self._load(versions)
                with self._lock:
                    self._corpus, self._vectors = loaded
                    self._versions = versions
            except Exception:  # the next request tries again; the old state keeps serving
                if not self._closing:  # once closing, the store's connections go away under a reload
                    log.exception("reloading the search corpus failed")

        if self._refresher is None:  # a thread per refresh would open (and keep) a store connection each time
            self._refresher = ThreadPoolExecutor(1, thread_name_prefix="search-refresh")
        self._refreshing = self._refresher.submit(refresh)

    def wait_for_refresh(self, timeout: float = 60.0) -> None:
        """Let a background reload finish, so that closing the store does not cut it off."""
        if self._refreshing is not None:
            wait([self._refreshing], timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Start no more background reloads and give a running one `timeout` seconds before the store closes
        (a reload of a very large corpus may still be cut off, quietly: the server is stopping)."""
        self._closing = True
        self.wait_for_refresh(timeout)
        if self._refresher is not None:
            self._refresher.shutdown(wait=False, cancel_futures=True)

    def current(self) -> bool:
        """Whether answers come from the store's present state: False while a new state loads in the background."""
        return self._corpus is None or self._versions == self.store.versions()

    def vectors(self) -> AnyVectors | None:
        """The semantic index of the main model (vectors and the embedder that made them), or None."""
        return next(iter(self._snapshot()[1]), None)

    def _snapshot(self) -> tuple[Corpus, list[AnyVectors]]:
        """Corpus and vectors as of now, read once per call so one answer never mixes two store states."""
        with self._lock:
            return self.corpus, self._vectors

    def warm(self) -> None:
        """Load the corpus, the vectors and the embedder now, score the commonest terms and learn the venues' rating
        scales, so the first queries are as fast as the rest."""
        vectors = self.vectors()
        if vectors is not None and vectors.embedder is not None:
            vectors.embedder.embed(["warm up"])
        corpus = self._snapshot()[0]
        corpus.keyword.warm()
        corpus.warm()

    def _load_vectors(self, corpus: Corpus, model: str, previous: AnyVectors | None = None) -> AnyVectors | None:
        """The vectors of `model` for `corpus` (extending `previous`, those of the corpus it replaces, when they
        still hold), with the model's embedder; None when the model's stored state is unreadable."""
        vectors: AnyVectors
        if isinstance(corpus, LeanCorpus) and isinstance(self.store, NearestNeighbours):
            vectors = StoredVectors(
                self.store, model, corpus, previous if isinstance(previous, StoredVectors) else None
            )
        else:
            vectors = corpus.load_vectors(self.store, model, previous if isinstance(previous, Vectors) else None)
        # A query is one short text: one thread embeds it fastest and leaves the other cores to other requests.
        embedder = self._embedders.get(model) or load_embedder(
            model, 1, imports=not serves_requests(self.store), cache_dir=self.store.settings.cache_dir
        )
        if embedder.fitted_on_corpus:
            cached = self.store.get_cache(embedder_state_cache(model))
            if cached is None:
                return None
            try:
                embedder.loads(cached[1])
            except ConfnavError:
                return None  # unreadable (or crafted): searched as a store without a semantic index
        else:
            self._embedders[model] = embedder  # a pretrained model is loaded once and kept across store changes
        vectors.embedder = embedder
        return vectors

    def search(
        self,
        text: str,
        *,
        mode: Mode = "hybrid",
        where: PaperFilter | None = None,
        limit: int = 10,
        offset: int = 0,
        sort: str = "relevance",
    ) -> Results:
        """Papers best matching a query (see query.py for its syntax): `limit` of them from `offset`, best first or
        by `sort` (rating, decision, year: the SORT_POOL most relevant matches ordered by that field)."""
        check_request(mode, limit, offset, sort)
        if not isinstance(text, str):
            raise ConfnavError(f"query {excerpt(text)}: give the query as text ('' with filters lists what meets them)")
        results = self._search(text, mode, where, limit, offset, sort)
        results.limit = limit
        return results

    def _search(self, text: str, mode: Mode, where: PaperFilter | None, limit: int, offset: int, sort: str) -> Results:
        """`search`'s answer, with how many papers meet the filters however the words fare."""
        where = where or PaperFilter()
        if not text.strip() and where != PaperFilter():  # filters alone: the papers that meet them
            return self.browse(where, mode=mode, limit=limit, offset=offset, sort=sort)
        query = parse_query(text)
        corpus, stored = self._snapshot()
        mask = corpus.mask(self.store, where)
        meeting = int(mask.sum())
        fields = [PaperFilter(author=a) for a in query.authors] + [PaperFilter(keyword=k) for k in query.keywords]
        for condition in fields:  # the store's filter rules narrow the rows first; exact checks follow per hit
            mask &= corpus.mask(self.store, condition)
        if not mask.any() and (where != PaperFilter() or fields):  # the filters, not the words, leave nothing
            return Results(
                [], mode, ["no paper of the store meets these filters"], 0, offset, sort, meeting_filters=meeting
            )
        for required in [*query.phrases, *query.titles]:
            mask &= corpus.keyword.containing(required)  # papers holding the words somewhere: a cheap first cut
        if query.phrases or query.titles:
            mask = meeting_rows(corpus, mask, query)  # in order, in the title: what is counted is what is listed
        notices: list[str] = []
        scored = terms(query.text)
        common = not scored and not query.authors  # words, all of them too common to match by keyword
        keyword = corpus.keyword.score(scored) if scored else None
        vectors, unread = route(query.text, stored) if query.text.strip() else (next(iter(stored), None), None)
        if unread:  # no stored model reads the query's script: its words alone, never unrelated neighbours
            notices.append(unread)
            mode = "keyword"
        elif common:
            if vectors is None:
                notices.append(f"these words are too common to match by keyword, and {NO_INDEX} to match by meaning")
                return Results([], mode, notices, None, offset, sort, meeting_filters=meeting)
            notices.append(COMMON_WORDS)
            mode = "semantic"
        if mode == "keyword" and keyword is not None and vectors is not None and not np.any(keyword[mask] > 0):
            notices.append("no paper contains these words; showing papers close in meaning")
            mode = "semantic"
        vectors = vectors if mode != "keyword" else None
        if mode == "semantic" and vectors is None:
            raise ConfnavError(f"semantic search needs an index: {RUN_INDEX}")
        if mode == "hybrid" and vectors is None:
            notices.append(f"{NO_INDEX}; showing keyword results")
            mode = "keyword"
        semantic = None
        embedded = (
            embed_checked(vectors.embedder, [query.text])[0]
            if vectors and vectors.embedder and query.text.strip()
            else None
        )
        if embedded is not None and not np.any(embedded):  # the model knows none of the words: nothing is close
            if mode == "semantic" or keyword is None or not np.any(keyword[mask] > 0):
                notices.append("no paper contains these words, and the index knows none of them")
                return Results([], mode, notices, 0, offset, sort, meeting_filters=meeting)
            embedded, mode = None, "keyword"
        if vectors is not None and embedded is not None:
            if isinstance(vectors, StoredVectors) and mode == "hybrid" and keyword is not None:
                wanted = offset + limit if sort in BY_SCORE else SORT_POOL
                exact, covered = vectors.exact(embedded, mask, keyword, where, max(KEYWORD_CUT, 4 * wanted))
                if (found := self._cut_hits(corpus, keyword, mask, covered, exact, query, sort, wanted)) is not None:
                    hits, matching = found
                    page = page_of(hits, sort, offset, limit)
                    return Results(
                        page, mode, notices, matching, offset, sort, vectors.embedder.name, meeting_filters=meeting
                    )
                semantic = exact.dense(len(corpus))
            else:
                semantic, covered = vectors.scores(embedded, mask, keyword, where)
            semantic, mask = with_unindexed(semantic, mask, covered, keyword if mode == "hybrid" else None, notices)
            semantic = align_groups(semantic, mask, corpus.short)
            mask &= (semantic > 0) | (keyword > 0 if keyword is not None else False)  # no word, no closeness: no hit
        if mode == "semantic" and semantic is not None:
            score = semantic
        elif keyword is None:
            score = corpus.ratings / 10.0  # author-only: best rated first
        elif mode == "keyword" or semantic is None:
            score = keyword
            mask &= keyword > 0
        else:
            score = self._fuse(keyword, semantic, mask)
        if (keyword is not None or common) and sort != "match":
            score = lift_accepted(score, corpus.standing, self.accepted_lift)
        matching = int(np.count_nonzero(mask & (keyword > 0))) if keyword is not None else int(mask.sum())
        wanted = offset + limit if sort in BY_SCORE else SORT_POOL
        hits = page_of(collect_hits(corpus, score, mask, keyword, semantic, wanted, query), sort, offset, limit)
        model = vectors.embedder.name if semantic is not None and vectors and vectors.embedder else None
        return Results(hits, mode, notices, None if common else matching, offset, sort, model, meeting_filters=meeting)

    def browse(
        self, where: PaperFilter, *, mode: Mode = "hybrid", limit: int = 10, offset: int = 0, sort: str = "relevance"
    ) -> Results:
        """The papers that meet the filters alone (a search without words): accepted first, then by mean rating
        (as `confnav ls` lists them), a page at a time, with how many meet them; `sort` as in `search`, relevance
        and match meaning BROWSE_ORDER. No hit has a relevance score: there are no words to be relevant to."""
        check_request(mode, limit, offset, sort)
        corpus = self._snapshot()[0]
        mask = corpus.mask(self.store, where)
        if not mask.any():
            return Results([], mode, ["no paper of the store meets these filters"], 0, offset, sort, meeting_filters=0)
        score = corpus.standing * 100.0 + corpus.ratings  # standing first (0, ½, 1), then the rating (0-10)
        wanted = offset + limit if sort in BY_SCORE else SORT_POOL
        hits = page_of(collect_hits(corpus, score, mask, None, None, wanted, None), sort, offset, limit)
        for hit in hits:
            hit.scored = False
        order = BROWSE_ORDER if sort in BY_SCORE else None
        meeting = int(mask.sum())
        return Results(hits, mode, [], meeting, offset, sort, order=order, limit=limit, meeting_filters=meeting)

    def similar(
        self,
        paper_id: str,
        *,
        venue: str | None = None,
        where: PaperFilter | None = None,
        limit: int = 10,
        include_rejected: bool = True,
    ) -> Results:
        """Papers most like one paper (never the paper itself); `include_rejected=False` leaves out papers a venue
        did not accept (rejected, withdrawn), keeping accepted ones and those of venues without decisions."""
        whole_number("limit", limit)
        corpus, stored = self._snapshot()
        rows = [self._row(corpus, paper_id, venue)]
        return self._more_like(corpus, next(iter(stored), None), rows, [], None, where, limit, include_rejected)

    def recommend(
        self,
        like: Sequence[str] = (),
        unlike: Sequence[str] = (),
        text: str | None = None,
        *,
        where: PaperFilter | None = None,
        limit: int = 10,
        include_rejected: bool = True,
    ) -> Results:
        """A reading list from liked papers (and an optional text), away from unliked ones; never the liked ones
        (`include_rejected` as in `similar`)."""
        if not like and not (text and text.strip()):
            raise ConfnavError(f"recommend needs at least one {argument('like')} ID or a {argument('text')}")
        whole_number("limit", limit)
        corpus, stored = self._snapshot()
        liked, unliked = [self._row(corpus, i) for i in like], [self._row(corpus, i) for i in unlike]
        return self._more_like(corpus, next(iter(stored), None), liked, unliked, text, where, limit, include_rejected)

    # --- internals ---

    def _row(self, corpus: Corpus, paper_id: str, venue: str | None = None) -> int:
        row = corpus.find(paper_id, venue)
        if row is None:
            raise NotFoundError(f"no paper with id {excerpt(paper_id)}" + (f" in venue {venue!r}" if venue else ""))
        return row

    def _more_like(
        self,
        corpus: Corpus,
        vectors: AnyVectors | None,
        liked: list[int],
        unliked: list[int],
        text: str | None,
        where: PaperFilter | None,
        limit: int,
        include_rejected: bool = True,
    ) -> Results:
        """Rocchio-style profile: mean of liked vectors (+ text), minus half the unliked, fused with BM25F."""
        keep = None if include_rejected else _not_rejected
        mask = corpus.mask(self.store, where or PaperFilter())
        mask[liked + unliked] = False
        corpus.prefetch(liked)
        profile_text = " ".join([paper_text(corpus.papers[r]) for r in liked] + ([text] if text else []))
        keyword = corpus.keyword.score(terms(profile_text)[:2000])
        notices: list[str] = []
        if vectors is None or vectors.embedder is None:
            notices.append(f"{NO_INDEX}; using keywords only")
            mask &= keyword > 0
            return Results(
                collect_hits(corpus, keyword, mask, keyword, None, limit, None, keep=keep), "keyword", notices
            )
        parts = vectors.row_vectors(liked)
        if text and text.strip():
            parts.append(embed_checked(vectors.embedder, [text])[0])
        if not parts:  # nothing liked is in the semantic index yet: its words alone say what is like it
            notices.append(f"the papers given are not in the semantic index yet: matched by their words; {RUN_INDEX}")
            mask &= keyword > 0
            return Results(
                collect_hits(corpus, keyword, mask, keyword, None, limit, None, keep=keep), "keyword", notices
            )
        profile = np.mean(parts, axis=0)
        if unliked and (away := vectors.row_vectors(unliked)):
            profile = profile - 0.5 * np.mean(away, axis=0)
        semantic, covered = vectors.scores(profile.astype(np.float32), mask, keyword, where or PaperFilter())
        semantic, mask = with_unindexed(semantic, mask, covered, keyword, notices)  # as a search does
        semantic = align_groups(semantic, mask, corpus.short)
        return Results(
            collect_hits(corpus, self._fuse(keyword, semantic, mask), mask, keyword, semantic, limit, None, keep=keep),
            "hybrid",
            notices,
        )

    def _cut_hits(
        self,
        corpus: Corpus,
        keyword: np.ndarray,
        mask: np.ndarray,
        covered: np.ndarray,
        exact: Exact,
        query: Query,
        sort: str,
        wanted: int,
    ) -> tuple[list[Hit], int] | None:
        """The first `wanted` hits by a first cut of the candidates (first_cut.py) and how many rows match a word;
        None when only fusing every row can give them (a paper without a vector, or fewer hits than wanted)."""
        if np.any(mask & ~covered):
            return None
        lift = self.accepted_lift if sort != "match" else 0.0
        cut = first_cut(keyword, covered, exact, corpus.short, corpus.standing, self.fusion, lift)
        if cut is None:
            return None
        hits = collect_hits(corpus, cut.score, covered, keyword, cut.semantic, wanted, query, cut.rows)
        return (hits, cut.matching) if len(hits) == wanted else None  # fewer: rows left out might follow

    def _fuse(self, keyword: np.ndarray, semantic: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Fused scores, normalised over the admitted rows only."""
        fused = np.full(keyword.shape, -np.inf)
        if mask.any():
            fused[mask] = self.fusion(keyword[mask], semantic[mask])
        return fused


def _not_rejected(paper: Paper) -> bool:
    return paper.decision.outcome is not Outcome.NOT_ACCEPTED
