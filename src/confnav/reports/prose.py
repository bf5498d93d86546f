"""A theme told as a short paragraph: its facts, then what its first papers do, each sentence citing its paper.

Every sentence comes from the store: the facts are {key} placeholders the verifier recomputes,
and each paper sentence is that paper's TL;DR turned to the third person ("We propose X" →
"Deformable DETR proposes X") with an inline [[cite:ID]] mark. A paper is named by the name its
title gives ("Deformable DETR: …") or else the name its abstract gives its method ("we propose
Max-Q Entropy Search (MQES)", "a framework called SpectralNet"); never by an invented one. A TL;DR
that cannot be turned cleanly is not used, rather than reworded.
"""

from __future__ import annotations

import re

from confnav.reports.model import Citation
from confnav.summarize.tldr import clean, sentences

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


_NAME = r"[A-Z][\w-]*[A-Z][\w-]*"  # a name has two capitals or more: "MQES", "SpectralNet", "NJ-ODE"
_CLAUSE_WORDS = r"to|for|of|on|in|with|that|which|by|from|via|using|based|and|or"
_FOLLOWERS = r"to|for|of|on|in|with|that|which|by|from|via|using|and|is|are|as|can|whose|where"  # not "(LCC) based"
# "we propose Max-Q Entropy Search (MQES)": the acronym right after what the authors propose, ending the name
_PROPOSED_ACRONYM = re.compile(
    rf"\b(?i:we|this (?:paper|work)) (?:propose|introduce|present|develop|design|describe)s? "
    rf"(?:(?!(?:{_CLAUSE_WORDS})\b)[\w-]+,? ){{1,7}}\((?P<name>{_NAME})\)(?=[,.;:]|$|\s+(?:{_FOLLOWERS})\b)"
)
# "a framework called SpectralNet", "dubbed Deformable DETR", "named Label Propagation Meta-learning (LPM)"
_CALLED = re.compile(
    rf"\b(?:called|dubbed|named|termed|coined)(?: as)? (?:[A-Z][^,;()]{{0,80}}? \((?P<acronym>{_NAME})\)|"
    rf"(?P<name>(?:[A-Z][\w-]* ){{0,3}}{_NAME}(?: [A-Z][\w-]*){{0,2}}))(?=[,.;:)]|\s|$)"
)
# Kinds of model, not names of one: "we propose a generative adversarial network (GAN) that …" names no method.
_GENERIC = frozenset({
    "GAN", "CNN", "RNN", "DNN", "GNN", "GCN", "MLP", "LSTM", "VAE", "NN", "RL", "DRL", "MARL", "NLP", "ML", "AI", "SGD",
    "MDP", "POMDP", "LLM", "NAS", "KD", "SSL", "NMT", "ODE", "PDE", "SDE", "SVM", "PCA", "KL",
})  # fmt: skip
_AUTHORS_SPEAK = re.compile(r"\b(we|our|this (paper|work)|propose[sd]?)\b", re.I)
_PROPOSAL = re.compile(r"\b(we|this (paper|work)) (propose|introduce|present|develop|design|describe)s?\b", re.I)


def method_name(abstract: str) -> str | None:
    """The name an abstract gives the authors' method ("we propose X (ACRONYM)" → ACRONYM, "called NAME",
    "dubbed NAME"): first from a sentence proposing it, else from one where the authors speak; None if none."""
    spoken = [s for s in sentences(clean(abstract)) if _AUTHORS_SPEAK.search(s)]
    for sentence in sorted(spoken, key=lambda s: not _PROPOSAL.search(s)):  # proposals first, in order
        found = _CALLED.search(sentence) or _PROPOSED_ACRONYM.search(sentence)
        name = found and (found.groupdict().get("acronym") or found.group("name"))
        if name and name.rstrip("s") not in _GENERIC:
            return name
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
    named = _named_apposition(rest, [n for n in (paper_name(cite.title), cite.name) if n])
    if named:  # "We propose DiffWave, a model …" → "DiffWave is a model …"
        return f"{named[0]} is {named[1]} [[cite:{cite.paper_id}]]."
    also = "also " if match.group(1) else ""
    return f"{subject} {also}{_third_person(verb)} {rest} [[cite:{cite.paper_id}]]."


def _named_apposition(rest: str, names: list[str]) -> tuple[str, str] | None:
    """("DiffWave", "a model …") when the TL;DR's object is a name followed by what it is ("DiffWave, a model …",
    "Max-Q Entropy Search (MQES), an exploration principle …"); None otherwise."""
    for name in names:
        for head in (name, *re.findall(rf"^[^,()]{{1,80}} \({re.escape(name)}\)", rest)):
            tail = rest[len(head) + 2 :] if rest.startswith(head + ", ") else ""
            if re.match(r"(a|an|the|one) ", tail):
                return head[0].upper() + head[1:], tail
    return None


def _third_person(verb: str) -> str:
    return _THIRD_PERSON.get(verb, verb + ("es" if verb.endswith(("sh", "ch", "s", "x")) else "s"))


def paper_subject(cite: Citation) -> str | None:
    """How a paper sentence names its paper: the title's name, else the name its abstract gives the method (either
    only if the TL;DR does not say it: not "X proposes a framework called X"), else its short title; None if none."""
    for name in (paper_name(cite.title), cite.name):
        if name and name.lower() not in (cite.tldr or "").lower():
            return name
    return f'"{cite.title}"' if len(cite.title.split()) <= 8 else None


def theme_paragraph(facts_text: str, cites: list[Citation], limit: int = PAPER_SENTENCES) -> str:
    """The theme's fact sentences followed by up to `limit` paper sentences, best-ranked papers first."""
    sentences: list[str] = []
    for cite in cites:
        if len(sentences) == min(limit, len(_ORDINAL)):
            break
        made = paper_sentence(cite, paper_subject(cite) or _ORDINAL[len(sentences)])
        if made:
            sentences.append(made)
    return " ".join([facts_text, *sentences]).strip()
