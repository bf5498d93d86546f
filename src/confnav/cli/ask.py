"""The `ask` verb: a question answered from the store, every sentence citing the papers it rests on."""

from __future__ import annotations

import click

from confnav.answer import ask as answer_question
from confnav.answer.written import client_for
from confnav.cli import cli
from confnav.cli.common import cli_navigator, json_option, out, print_json, said, venue_option, with_store
from confnav.search.engine import Searcher
from confnav.store.protocols import Store


@cli.command()
@click.argument("question")
@click.option("--for", "profile", metavar="NAME", help="Order the papers for this profile (`confnav profile`).")
@json_option
@with_store
@venue_option("Answer from this venue's papers (default: the venues the question names, else all).")
def ask(store: Store, question: str, venue: str | None, profile: str | None, as_json: bool) -> None:
    """Answer a question from the store: the papers that bear on it, grouped, each sentence citing them, counts
    from the store; with an LLM configured, its prose checked sentence by sentence. "The store does not say"
    when it cannot answer."""
    answer = answer_question(Searcher(store), question, venue, profile, client_for(cli_navigator().settings))
    for notice in answer.notices:
        click.echo(f"note: {said(notice)}", err=True)
    if as_json:
        print_json(answer.to_dict())
        return
    if answer.unanswered:
        out.print(answer.unanswered, markup=False)
        return
    for part in answer.parts:
        if part.heading:
            out.print(part.heading, style="bold", markup=False)
        for sentence in part.sentences:
            cites = f" [{', '.join(sentence.cites)}]" if sentence.cites else ""
            out.print(f"  {sentence.text}", markup=False, end="")
            out.print(cites, style="dim", markup=False)
    if answer.mode == "llm":
        out.print("Papers cited", style="bold")
        for item in answer.papers:
            if any(item.paper.id in s.cites for s in answer.sentences):
                out.print(f"  {item.paper.id}  {item.paper.title} ({item.paper.decision.name})", markup=False)
        out.print(
            f"The LLM wrote {answer.generated} sentence{'s' * (answer.generated != 1)}: {answer.dropped} dropped and "
            f"{answer.replaced} replaced by "
            "the papers' own statements for failing the checks.",
            style="dim",
            markup=False,
        )
    for item in answer.papers:
        if item.close_to:
            out.print(f"  {item.paper.id}: {item.close_to}", style="dim", markup=False)
