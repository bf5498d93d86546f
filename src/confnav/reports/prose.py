"""A theme told as a short paragraph: its facts, then what its first papers do, each sentence citing its paper.

Every sentence comes from the store: the facts are {key} placeholders the verifier recomputes,
and each paper sentence is that paper's TL;DR turned to the third person ("We propose X" →
"Deformable DETR proposes X") with an inline [[cite:ID]] mark. A TL;DR that cannot be turned
cleanly is not used, rather than reworded.
"""

from __future__ import annotations

import re

from confnav.reports.model import Citation

PAPER_SENTENCES = 4  # with the one or two fact sentences: 3-6 sentences a theme
_VERBS = (
    "propose|introduce|present|develop|design|show|demonstrate|prove|derive|find|study|provide|establish|"
    "formulate|analy[sz]e|investigate|learn|identify|argue|report|extend|generalize|describe|explore|use|"
    "leverage|apply|train|consider|offer|build|obtain|give|evaluate|revisit|characterize|examine|achieve|"
    "outperform|release|validate|verify|test|compare|discuss|suggest|highlight"
)
_WE_VERB = re.compile(
    rf"^(?:in this (?:paper|work),?\s*)?(?:we|this (?:paper|work|study))\s+(also\s+)?({_VERBS})\b\s*", re.I
)
# "… and provide insights": verbs that follow "and" only as a second verb of "we" (not "train and test sets")
_AND_VERB = re.compile(
    r"\b(and|then) (propose|provide|show|demonstrate|prove|derive|introduce|present|develop|establish|achieve|"
    r"outperform|release|evaluate|validate|analy[sz]e)\b",
    re.I,
)
_THIRD_PERSON = {"analyze": "analyzes", "analyse": "analyses", "study": "studies", "identify": "identifies",
                 "apply": "applies", "generalize": "generalizes", "characterize": "characterizes"}  # fmt: skip
_ORDINAL = ("One paper", "Another paper", "A third paper", "A fourth paper", "A fifth paper", "A sixth paper")
_OUR = re.compile(r"\b(our|we|us)\b", re.I)


def paper_name(title: str) -> str | None:
    """The short name a title gives its paper ("Deformable DETR: …" → "Deformable DETR"), if any."""
    head, sep, _ = title.partition(":")
    words = head.split()
    if sep and 1 <= len(words) <= 4 and not head.lower().startswith(("on ", "towards ", "why ", "how ", "what ")):
        return head.strip()
    return None


def paper_sentence(cite: Citation, subject: str) -> str | None:
    """The cited paper's TL;DR in the third person with `subject` ("X proposes …"), or None if it will not turn."""
    tldr = (cite.tldr or "").strip()
    match = _WE_VERB.match(tldr)
    if not match:
        return None
    verb = match.group(2).lower()
    rest = tldr[match.end() :].rstrip(" .")
    if not rest or _OUR.search(rest):  # "our method" would need rewording: leave the sentence out
        return None
    rest = _AND_VERB.sub(lambda m: f"{m.group(1)} {_third_person(m.group(2).lower())}", rest)  # "and provide"
    name = paper_name(cite.title)
    if name and rest.startswith(name + ", "):  # "DiffWave proposes DiffWave, a model …" → "DiffWave is a model …"
        return f"{name} is {rest[len(name) + 2 :]} [[cite:{cite.paper_id}]]."
    also = "also " if match.group(1) else ""
    return f"{subject} {also}{_third_person(verb)} {rest} [[cite:{cite.paper_id}]]."


def _third_person(verb: str) -> str:
    return _THIRD_PERSON.get(verb, verb + ("es" if verb.endswith(("sh", "ch", "s", "x")) else "s"))


def theme_paragraph(facts_text: str, cites: list[Citation], limit: int = PAPER_SENTENCES) -> str:
    """The theme's fact sentences followed by up to `limit` paper sentences, best-ranked papers first."""
    sentences: list[str] = []
    for cite in cites:
        if len(sentences) == min(limit, len(_ORDINAL)):
            break
        name = paper_name(cite.title) or (f'"{cite.title}"' if len(cite.title.split()) <= 8 else None)
        made = paper_sentence(cite, name or _ORDINAL[len(sentences)])
        if made:
            sentences.append(made)
    return " ".join([facts_text, *sentences]).strip()
