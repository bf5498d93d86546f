"""Verbs over a researcher's profile: import their library, like or dislike papers, show and export it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import click

from confnav.cli import cli
from confnav.cli.common import (
    PAPER_IDS,
    Given,
    OutputFile,
    cli_settings,
    err,
    json_option,
    out,
    print_json,
    said,
    venue_option,
    with_store,
    write_output,
)
from confnav.fetch.authors import import_person, person_of
from confnav.personal import DEFAULT_PROFILE, export_profile, import_library, mark
from confnav.personal.access import revoke_secret, rotate_secret
from confnav.personal.news import describe
from confnav.store.profiles import checked_tag
from confnav.store.protocols import Store

PROFILE_OPTION = click.option(
    "--profile", "name", default=DEFAULT_PROFILE, show_default=True, help="Which profile (several people, or topics)."
)


@cli.group()
def profile() -> None:
    """Your own navigator: your papers and the papers you liked or disliked, for `recommend --for`."""


@profile.command("import")
@click.argument("sources", nargs=-1, required=True, type=Given("a file, ~First_Last1 or s2:1741101"))
@PROFILE_OPTION
@json_option
@with_store
def profile_import(store: Store, sources: tuple[str, ...], name: str, as_json: bool) -> None:
    """Read BibTeX, RIS, CSL-JSON (Zotero, Mendeley) or one DOI, arXiv id, OpenReview id or title per line; or
    bring a person's papers: an OpenReview profile id (~First_Last1) or a Semantic Scholar author (s2:1741101),
    the only forms that use the network (OPENREVIEW_USERNAME/PASSWORD or OPENREVIEW_TOKEN; S2_API_KEY optional)."""
    people = [p for p in map(person_of, sources) if p]
    files = [Path(s) for s in sources if not person_of(s)]
    if people:
        report = import_person(store, people, name, files=files, settings=cli_settings())
    else:
        report = import_library(store, files, name)
    if as_json:
        print_json(report.to_dict())
        return
    for problem in report.problems:
        click.echo(f"warning: {said(problem)}", err=True)
    out.print(
        f"{name}: {report.matched} entries matched papers in the store, {report.own} kept as your own texts;"
        f" {report.added} new",
        markup=False,
    )


def _mark(store: Store, name: str, ids: tuple[str, ...], how: str) -> None:
    for paper in mark(store, name, ids, how):
        out.print(f"{how}d: {paper.title} [{paper.id} · {paper.venue}]", markup=False)


@profile.command("like", context_settings=PAPER_IDS)
@click.argument("ids", nargs=-1, required=True)
@PROFILE_OPTION
@with_store
def profile_like(store: Store, ids: tuple[str, ...], name: str) -> None:
    """Papers you want more like."""
    _mark(store, name, ids, "like")


@profile.command("dislike", context_settings=PAPER_IDS)
@click.argument("ids", nargs=-1, required=True)
@PROFILE_OPTION
@with_store
def profile_dislike(store: Store, ids: tuple[str, ...], name: str) -> None:
    """Papers you want fewer like."""
    _mark(store, name, ids, "dislike")


@profile.command("note", context_settings=PAPER_IDS)
@click.argument("paper_id")
@click.argument("text")
@PROFILE_OPTION
@with_store
@venue_option("The paper's venue, when its id is in several.")
def profile_note(store: Store, paper_id: str, text: str, venue: str | None, name: str) -> None:
    """Keep a note on a paper (a later note replaces it); `show` and `export` carry it."""
    paper = store.note_paper(name, paper_id, text, venue)
    out.print(f"noted: {paper.title} [{paper.id} · {paper.venue}]", markup=False)


@profile.command("tag", context_settings=PAPER_IDS)
@click.argument("paper_id")
@click.argument("tags", nargs=-1, required=True)
@PROFILE_OPTION
@with_store
@venue_option("The paper's venue, when its id is in several.")
def profile_tag(store: Store, paper_id: str, tags: tuple[str, ...], venue: str | None, name: str) -> None:
    """Tag a paper (exported as keywords); several tags at once are fine."""
    paper = store.profile_paper(paper_id, venue)  # an unknown id or a bad tag is refused before any tag is kept
    for tag in tags:
        checked_tag(tag)
    for tag in tags:
        store.tag_paper(name, paper.id, tag, paper.venue)
    out.print(f"tagged {', '.join(tags)}: {paper.title} [{paper.id} · {paper.venue}]", markup=False)


@profile.command("show")
@PROFILE_OPTION
@json_option
@with_store
def profile_show(store: Store, name: str, as_json: bool) -> None:
    """The profile's papers (matched, or your own texts), marks, notes, tags, reading lists and watches."""
    items, marks = store.profile_items(name), store.profile_marks(name)
    notes, tags = store.profile_notes(name), store.profile_tags(name)
    lists, watches = store.profile_lists(name, name == DEFAULT_PROFILE), store.watches(name)
    if as_json:
        annotated = sorted(set(notes) | set(tags))
        print_json(
            {
                "profile": name,
                "items": [
                    {"title": i.title, "year": i.year, "venue": i.venue, "id": i.paper_id, **i.data} for i in items
                ],
                "marks": [{"venue": v, "id": p, "mark": m} for v, p, m in marks],
                "notes": [
                    {"venue": v, "id": p, "note": notes.get((v, p)), "tags": tags.get((v, p), [])} for v, p in annotated
                ],
                "lists": [{"name": n, "papers": count} for n, count in lists],
                "watches": [vars(w) for w in watches],
            }
        )
        return
    for item in items:
        where = f"{item.paper_id} · {item.venue}" if item.paper_id else "your text"
        out.print(f"  {item.title} ({item.year or 'n.d.'}) [{where}]", markup=False)
    for venue, paper_id, how in marks:
        out.print(f"  {how}: {paper_id} · {venue}", markup=False)
    for (venue, paper_id), note in notes.items():
        out.print(f"  note on {paper_id} · {venue}: {note}", markup=False)
    for (venue, paper_id), given in tags.items():
        out.print(f"  tags of {paper_id} · {venue}: {', '.join(given)}", markup=False)
    for list_name, count in lists:
        out.print(f"  reading list {list_name!r}: {count} papers", markup=False)
    for w in watches:
        out.print(f"  watch {w.id}: {describe(w)}", markup=False)
    out.print(
        f"({name}: {len(items)} papers, {len(marks)} marks, {len(notes)} notes, {len(tags)} tagged,"
        f" {len(lists)} reading lists, {len(watches)} watches)",
        style="dim",
    )


@profile.command("list")
@click.argument("list_name")
@PROFILE_OPTION
@with_store
def profile_list(store: Store, list_name: str, name: str) -> None:
    """Make a reading list part of the profile (lists no profile was given belong to the default profile)."""
    store.give_list(list_name, name)
    out.print(f"reading list {list_name!r} is now part of {name}", markup=False)


@profile.command("export")
@click.option("--format", "fmt", type=click.Choice(["bibtex", "ris", "csl-json"]), default="bibtex", show_default=True)
@click.option("-o", "--output", type=OutputFile(), help="Write to this file.")
@PROFILE_OPTION
@with_store
def profile_export(store: Store, fmt: str, output: Path | None, name: str) -> None:
    """The profile's papers and liked papers as a library file."""
    text = export_profile(store, name, fmt)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text, "export")


@profile.command("secret")
@click.argument("name")
@click.option("--rotate", is_flag=True, help="Issue a new secret; the old one (and its links and feeds) stop working.")
@click.option("--revoke", is_flag=True, help="Drop the secret: on a shared server nobody opens the profile.")
@with_store
def profile_secret(store: Store, name: str, rotate: bool, revoke: bool) -> None:
    """The secret that opens a profile on a shared server (`serve` off loopback), shown once when issued."""
    if rotate and revoke:
        raise click.UsageError("give --rotate or --revoke, not both")
    if rotate:
        secret = rotate_secret(store, name, check=False)
        click.echo(secret)
        err.print(
            f"{name}: new secret (shown once). Open the profile with /for-you?profile={quote(name)}&key=SECRET",
            style="dim",
            markup=False,
        )
    elif revoke:
        revoke_secret(store, name)
        out.print(f"{name}: no secret opens it now", markup=False)
    else:
        store.profile_items(name)  # an unknown profile: one line saying so
        state = "has a secret" if store.profile_key(name) else "has no secret (only served on loopback)"
        out.print(f"{name} {state}; --rotate issues a new one", markup=False)
