"""Verbs over the semantic index and search: index, search, similar, recommend, experts."""

from __future__ import annotations

import click

from confnav.cli import cli
from confnav.cli.common import (
    PAPER_IDS,
    cli_navigator,
    filter_options,
    json_option,
    out,
    print_json,
    said,
    venue_option,
    with_store,
)
from confnav.cli.progress import RichProgress
from confnav.embed.views import semantic_model
from confnav.errors import ConfnavError
from confnav.index import IndexResult
from confnav.personal import Ask, is_cold, papers_to_mark, recommend_for
from confnav.search.engine import Searcher
from confnav.search.experts import find_experts
from confnav.search.results import MODES, SORTS, Results
from confnav.store import PaperFilter
from confnav.store.protocols import Store

PROGRESS_EVERY = 10.0  # seconds between the progress lines of a run whose output is not a terminal


@cli.command()
@click.option(
    "--model",
    help="Embedding model: all-MiniLM-L6-v2 (default), use-multilingual-v3, tfidf-svd, a sentence-transformers "
    "path, or package.module:Class of your own.",
)
@click.option(
    "--add",
    is_flag=True,
    help="Keep the stored models' vectors beside this model's: each query is searched with a model that reads "
    "its language (e.g. --model use-multilingual-v3 --add for queries in Chinese, English still by the default).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress (a bar on a terminal, else a plain line every 10 s).")
@json_option
@with_store
@venue_option("Only embed this venue's papers (with the model of the store's other venues unless --model).")
def index(store: Store, venue: str | None, model: str | None, add: bool, quiet: bool, as_json: bool) -> None:
    """Embed papers for semantic search (only those whose text or model changed)."""
    navigator = cli_navigator()
    if venue and not model and not add:  # one venue joins the model of the others (another would drop their vectors)
        model = semantic_model(store)
    embedder, notice = navigator.embedder(model)
    if notice:
        click.echo(f"note: {said(notice)}", err=True)
    with RichProgress(quiet, every=PROGRESS_EVERY) as progress:
        result = navigator.index(store, embedder, venue, progress, add=add)
    if as_json:
        print_json(result.to_dict())
        return
    out.print(_index_line(result), markup=False)


def _index_line(result: IndexResult) -> str:
    """What an index run did in one line, every vector it dropped counted and the other venues it re-embedded."""
    reused = f"; {result.reused} vectors reused from the same text" if result.reused else ""
    others = (
        f", {result.other_venues:,} of them of other venues (re-embedded with the model's new fit: the vectors of "
        "one fit compare only with each other)"
        if result.other_venues
        else ""
    )
    dropped = []
    if result.dropped_vectors - result.refit_dropped:
        dropped.append(f"{result.dropped_vectors - result.refit_dropped:,} vectors of other models dropped")
    if result.refit_dropped:
        dropped.append(
            f"{result.refit_dropped:,} vectors of the old fit dropped (another size; their papers re-embedded)"
        )
    gone = "".join(f"; {part}" for part in dropped)
    return (
        f"{result.model}: {result.embedded} papers embedded ({result.texts} texts{reused}){others},"
        f" {result.unchanged} already up to date{gone} ({result.seconds:.1f} s)"
    )


INCLUDE_REJECTED = click.option(
    "--include-rejected",
    is_flag=True,
    help="Rejected and withdrawn papers too (by default they are left out where a venue has decisions).",
)


def _print_results(results: Results, as_json: bool, words: bool = True, paged: bool = False) -> None:
    """Hits as text or JSON, with how many match the words (or, `words` False, meet the filters). A `paged`
    answer's JSON is an object that carries those counts and the page beside the hits; else a list of hits."""
    for notice in results.notices:
        click.echo(f"note: {said(notice)}", err=True)
    if as_json:
        print_json(results.to_dict() if paged else [hit.to_dict() for hit in results.hits])
        return
    shown = f"{results.offset + 1}–{results.offset + len(results.hits)}"
    if results.matching and results.hits:
        n, one = results.matching, results.matching == 1
        counted = f"{n:,} paper{'' if one else 's'} " + (
            f"match{'es' if one else ''} some of these words" if words else f"meet{'s' if one else ''} these filters"
        )
        out.print(f"{counted}; showing {shown} ({results.order_shown})", style="dim")
    elif results.matching == 0 and results.hits:
        out.print(
            f"no paper matches these words; showing {shown}, close in meaning ({results.order_shown})", style="dim"
        )
    if not results.hits:
        past = results.offset and results.matching
        out.print(f"No papers past the first {results.offset:,}." if past else "No papers match.")
    for rank, hit in enumerate(results.hits, start=results.offset + 1):
        paper = hit.paper
        out.print(f"{rank:>2}. ", end="")
        out.print(paper.title, style="bold", markup=False, end="")
        shape = "" if paper.abstract else " · title only"
        marks = "".join(f" · {kind}" for kind in paper.resources)
        score = f" · {hit.score:.3f}" if hit.scored else ""  # a search without words has no relevance to show
        out.print(
            f"  [{paper.id} · {paper.venue_name} · {paper.decision.name}{shape}{marks}{score}]",
            style="dim",
            markup=False,
        )
        if hit.snippet:
            out.print("    " + hit.snippet.replace("**", ""), markup=False, style="")
    out.print(
        f"({len(results.hits)} papers, {results.mode})" if words else f"({len(results.hits)} papers)", style="dim"
    )


@cli.command()
@click.argument("query")
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True, help="How to score.")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="At most this many hits.")
@click.option("--offset", type=click.IntRange(0, 10_000), default=0, help="Skip this many hits (the next page).")
@click.option(
    "--sort",
    type=click.Choice(list(SORTS)),
    default="relevance",
    show_default=True,
    help="Order of the hits: relevance (accepted papers lifted 10%), match (words and meaning alone), or "
    "the most relevant matches by rating, decision or year.",
)
@json_option
@with_store
@filter_options
def search(
    store: Store, query: str, mode: str, limit: int, offset: int, sort: str, where: PaperFilter, as_json: bool
) -> None:
    """Find papers by words and meaning; "phrases", author:, title:, keyword: narrow it down. --json: an object
    with the hits, how many papers match the words (`matching`) and meet the filters (`meeting_filters`), the page."""
    results = Searcher(store).search(query, mode=mode, where=where, limit=limit, offset=offset, sort=sort)  # type: ignore[arg-type]
    _print_results(results, as_json, words=bool(query.strip()), paged=True)


@cli.command(context_settings=PAPER_IDS)
@click.argument("paper_id")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="At most this many.")
@INCLUDE_REJECTED
@json_option
@with_store
@filter_options
def similar(store: Store, paper_id: str, limit: int, include_rejected: bool, where: PaperFilter, as_json: bool) -> None:
    """Papers most like one paper (more like this); accepted ones unless --include-rejected."""
    results = Searcher(store).similar(paper_id, where=where, limit=limit, include_rejected=include_rejected)
    _print_results(results, as_json)


@cli.command()
@click.option("--like", multiple=True, metavar="ID", help="A paper you liked (repeatable).")
@click.option("--unlike", multiple=True, metavar="ID", help="A paper you did not want (repeatable).")
@click.option("--text", help="A text to match, e.g. an abstract of yours.")
@click.option(
    "--for",
    "for_profile",
    metavar="NAME",
    help="For a profile (`confnav profile`): a model of its papers, likes and dislikes; each hit says why.",
)
@click.option(
    "--ask",
    type=click.IntRange(1, 50),
    metavar="N",
    help="With --for and --venue: N papers of the venue whose marks would teach the model most (JSON: an object "
    "with 'ask' and 'recommendations'). A profile with too little to learn from is offered 5 without asking.",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="At most this many.")
@INCLUDE_REJECTED
@json_option
@with_store
@filter_options
def recommend(
    store: Store,
    like: tuple[str, ...],
    unlike: tuple[str, ...],
    text: str | None,
    for_profile: str | None,
    ask: int | None,
    limit: int,
    include_rejected: bool,
    where: PaperFilter,
    as_json: bool,
) -> None:
    """A reading list from papers you liked (never those papers themselves), or for a profile (--for NAME);
    accepted ones unless --include-rejected."""
    if ask and not (for_profile and where.venue):
        raise click.UsageError("--ask needs --for NAME and --venue V")
    if for_profile:
        _print_for_profile(store, for_profile, where.venue, limit, include_rejected, ask, as_json)
        return
    results = Searcher(store).recommend(like, unlike, text, where=where, limit=limit, include_rejected=include_rejected)
    _print_results(results, as_json)


def _print_for_profile(
    store: Store, name: str, venue: str | None, limit: int, include_rejected: bool, ask: int | None, as_json: bool
) -> None:
    """The profile's recommendations; with --ask, or for a cold profile of a venue, papers to mark first."""
    cold = venue is not None and is_cold(store, name)
    asked = papers_to_mark(store, venue, name, ask or 5) if venue is not None and (ask or cold) else None
    try:
        found = recommend_for(store, name, venue, limit, include_rejected)
    except ConfnavError:  # nothing to learn from yet (the index is there: the papers to mark came from it)
        if asked is None:
            raise
        found = []
    if as_json:
        if ask and asked is not None:
            print_json({**asked.to_dict(), "recommendations": [r.to_dict() for r in found]})
        else:
            print_json([r.to_dict() for r in found])
            if asked is not None:
                click.echo(f"note: profile {name!r} has little to learn from: see --ask", err=True)
        return
    if asked is not None:
        _print_ask(asked)
    if asked is not None and not found:
        return
    if not found:
        out.print("No papers to recommend.")
    for rank, hit in enumerate(found, start=1):
        out.print(f"{rank:>2}. ", end="")
        out.print(hit.paper.title, style="bold", markup=False, end="")
        out.print(f"  [{hit.paper.id} · {hit.paper.venue_name} · {hit.score:.3f}]", style="dim", markup=False)
        out.print(f"    {hit.reason}", markup=False)
    out.print(f"({len(found)} papers for {name})", style="dim")


def _print_ask(asked: Ask) -> None:
    if asked.cold:
        out.print(
            f"Profile {asked.profile!r} has {asked.size} papers and marks: too few to learn your taste."
            f" Mark a few of these ({asked.why}):",
            markup=False,
        )
    else:
        out.print(f"To teach your profile more, mark some of these ({asked.why}):", markup=False)
    for paper in asked.papers:
        out.print("  ", end="")
        out.print(paper.title, style="bold", markup=False, end="")
        out.print(f"  [{paper.id} · {paper.venue_name}]", style="dim", markup=False)
        out.print("    " + "   or   ".join(asked.commands(paper)), markup=False)


@cli.command()
@click.argument("topic")
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="At most this many people.")
@json_option
@with_store
@venue_option("Only this venue's papers count.")
def experts(store: Store, topic: str, venue: str | None, limit: int, as_json: bool) -> None:
    """The authors whose papers best match a topic, each with those papers (people told apart by profile ids)."""
    found = find_experts(Searcher(store), topic, venue, limit)
    for notice in found.notices:
        click.echo(f"note: {said(notice)}", err=True)
    if as_json:
        print_json(found.to_dict())
        return
    if not found.experts:
        out.print("No authors match.")
    for rank, expert in enumerate(found.experts, start=1):
        out.print(f"{rank:>2}. ", end="")
        out.print(expert.name, style="bold", markup=False, end="")
        details = [expert.profile or "no profile id", f"{expert.papers} papers, {expert.accepted} accepted"]
        out.print(f"  [{' · '.join([*details, *expert.institutions])} · {expert.score:.3f}]", style="dim", markup=False)
        for paper, _ in expert.matching:
            out.print(f"    {paper.id}  ", style="dim", markup=False, end="")
            out.print(paper.title, markup=False)
