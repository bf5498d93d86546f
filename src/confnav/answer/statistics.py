"""Questions about a venue's statistics rather than its papers: the mean rating of its papers (of the decision
asked about) is answered from the numbers of the stats report's ratings table and checked again by verify; any
other statistic, or a rating asked of a topic, a person or an institution, is pointed to `confnav stats`. Neither
is ever answered by a topic search on the statistic's words ("mean", "average")."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from confnav.answer.known import decision_gap
from confnav.answer.model import DOES_NOT_SAY, Answer, Part, Sentence
from confnav.answer.model import decided as decided_words
from confnav.reports.model import count, decimal
from confnav.reports.stats import counted_papers, rating_table, reviewed_means
from confnav.store import PaperFilter
from confnav.store.protocols import PaperReader

# "the mean rating of accepted papers", "average reviewer score", "how were orals rated on average"
RATING = re.compile(
    r"\b(?:mean|average|avg|median)\s+(?:reviewer\s+|review\s+)?(?:ratings?|scores?)\b"
    r"|\b(?:ratings?|scores?|rated|scored)\b[^?.!]*\bon average\b",
    re.I,
)
# Other statistics the stats report gives (and `ask` does not compute): said so, with where to find them.
OTHER = re.compile(
    r"\b(?:mean|average|median)\s+(?:number|count|length|size|spread|share|percentage|standard deviation)\b"
    r"|\b(?:standard deviation|variance|spread)\s+of\s+(?:the\s+)?(?:ratings?|scores?)\b"
    r"|\b(?:reviewer|rating)\s+agreement\b",
    re.I,
)
STATS_HOLDS = "decisions and rates, ratings by decision, reviewer agreement, authors, institutions and keywords"


def asks_statistic(text: str) -> bool:
    """Whether the question asks for a statistic of a venue rather than for papers."""
    return bool(RATING.search(text) or OTHER.search(text))


def pointer(venues: Sequence[str]) -> str:
    """Where the statistic asked is reported: the stats report of the venues asked."""
    where = " or ".join(f"confnav stats --venue {v}" for v in venues) if venues else "confnav stats --venue V"
    return f"{DOES_NOT_SAY} in an answer: ask counts and cites papers; the statistics ({STATS_HOLDS}) are in `{where}`."


def rating_facts(store: PaperReader, venue: str, decision: str = "") -> dict[str, str]:
    """The mean and median rating of the venue's papers of `decision` (all when ""), each paper's mean rating
    counted as the stats report's ratings table counts it (papers that entered review, placeholders left out),
    and that table's rows of the decisions it covers; empty when none of them has ratings."""
    wanted = PaperFilter(decision=decision or None)
    papers = [p for p in counted_papers(store, venue) if wanted.admits(p.decision)]
    means = reviewed_means(papers)
    if not means:
        return {}
    key = f"ratings:{decision or 'all'}"
    rows = rating_table(papers).rows
    return {
        f"{key}.papers": count(len(means)),
        f"{key}.mean": decimal(statistics.fmean(means)),
        f"{key}.median": decimal(statistics.median(means)),
        f"{key}.by_decision": "; ".join(f"{row[0]} {row[2]}" for row in rows),
    }


def _unrated(store: PaperReader, venue: str, decision: str | None) -> str:
    """Why no mean is given: the papers asked never entered review (desk rejects are in no mean, as in
    `stats`, even where the data gives some of them ratings), or the data gives them none."""
    wanted = PaperFilter(decision=decision or None)
    rated = [p for p in counted_papers(store, venue) if wanted.admits(p.decision) and p.rating_mean is not None]
    if rated:  # rated, but none entered review
        return (
            f"papers that never entered review (desk rejects) are counted in no mean rating, as in confnav stats,"
            f" though the data gives ratings for {count(len(rated))} of them"
        )
    return f"its data gives no ratings for {'them' if decision else 'its papers'}"


def answer_ratings(store: PaperReader, answer: Answer, venues: Sequence[str], decision: str | None) -> None:
    """One sentence per venue: the mean rating of its papers of `decision`, or why the store does not say."""
    sentences = []
    for venue in venues:
        name = store.get_venue(venue).name
        whose = f"the papers of {name} that {decided_words(decision)}" if decision else f"the papers of {name}"
        gap = decision_gap(store, venue, decision) if decision else None
        facts = {} if gap else rating_facts(store, venue, decision or "")
        if not facts:
            why = gap or _unrated(store, venue, decision)
            sentences.append(Sentence(f"{DOES_NOT_SAY} what the mean rating of {whose} is: {why}.", [], "count"))
            continue
        answer.facts.update({f"{venue} {k}": v for k, v in facts.items()})
        key = f"ratings:{decision or 'all'}"
        which = f"that {decided_words(decision)} and have ratings" if decision else "that have ratings"
        text = f"The mean reviewer rating of the {facts[f'{key}.papers']} papers of {name} in the store {which} is"
        text += f" {facts[f'{key}.mean']} (median {facts[f'{key}.median']}; each paper's mean rating, as confnav stats"
        text += f" counts it; by decision: {', '.join(facts[f'{key}.by_decision'].split('; '))})"
        sentences.append(Sentence(f"{text}.", [], "count"))
    answer.parts.append(Part(None, sentences))
