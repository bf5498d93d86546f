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
from collections.abc import Callable

from confnav.reports.faults import opening_dangles
from confnav.reports.model import Citation
from confnav.summarize.shorten import third_person
from confnav.summarize.text import clean, sentences

_ADVERBS = (  # "we also", "we empirically": not the verbs "apply", "rely", "imply"
    r"(?:(?:also|further|first|then|next|finally|additionally|(?!(?:apply|rely|supply|multiply|reply|comply|imply)\b)"
    r"\w{3,}ly)\s+){0,2}"
)
# The authors speaking, after an optional opening clause: "[Inspired by X, ]we [also ]propose", "this paper proposes".
_SPEAKER = re.compile(
    rf"^(?P<opening>(?!(?:we|this)\b)[^,;:]{{3,100}},\s+)?(?:in this (?:paper|work),?\s*)?"
    rf"(?P<speaker>we|this (?:paper|work|study))\s+(?P<adverbs>{_ADVERBS})(?P<verb>[a-z][a-z-]*)\b\s*",
    re.I,
)
# Words after "we" that are not a verb of its own ("we are", "we can"): such a sentence is not turned.
_AUXILIARIES = frozenset(
    {
        "are",
        "were",
        "be",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "may",
        "might",
        "should",
        "must",
        "do",
        "did",
        "shall",
        "not",
        "all",
        "both",
        "hereby",
        "here",
    }
)
# "… and provide insights": verbs that follow "and" only as a second verb of "we" (not "train and test sets")
_AND_VERB = re.compile(
    r"\b(and|then) (propose|provide|show|demonstrate|prove|derive|introduce|present|develop|establish|achieve|"
    r"outperform|release|evaluate|validate|analy[sz]e|find|observe|obtain|formulate|investigate|explore|identify|"
    r"leverage|incorporate|characteri[sz]e|construct|generali[sz]e|extend|discuss|conduct|perform|compare|apply|"
    r"adopt|exploit|enable|improve|reduce|offer|reveal|verify|highlight|argue)\b",
    re.I,
)
ORDINALS = ("One paper", "Another paper", "A third paper", "A fourth paper", "A fifth paper", "A sixth paper")
_OUR = re.compile(r"\b(our|we|us)\b", re.I)

_CLAIM_WORDS = frozenset({"is", "are", "was", "were", "be", "can", "cannot", "do", "does", "has", "have", "will"})
_NAME = r"[A-Z][\w-]*[A-Z][\w-]*"  # a name has two capitals or more: "MQES", "SpectralNet", "NJ-ODE"


def paper_name(title: str) -> str | None:
    """The short name a title gives its paper ("Deformable DETR: …" → "Deformable DETR"), if any."""
    head, sep, _ = title.partition(":")
    words = head.split()
    if not sep or not 1 <= len(words) <= 4 or head.lower().startswith(("on ", "towards ", "why ", "how ", "what ")):
        return None
    if _CLAIM_WORDS.intersection(w.lower() for w in words):  # "Neural gradients are near-lognormal" is a claim
        return None
    if len(words) > 1 and words[0].lower().endswith("ing") and "-" not in words[0]:
        return None  # a deed, not a name: "Getting a CLUE", "Rethinking Parameter Counting"
    return head.strip()


_CLAUSE_WORDS = r"to|for|of|on|in|with|that|which|by|from|via|using|based|and|or"
_FOLLOWERS = r"to|for|of|on|in|with|that|which|by|from|via|using|and|is|are|as|can|whose|where"  # not "(LCC) based"
# "we propose Max-Q Entropy Search (MQES)": the acronym right after what the authors propose, ending the name
_PROPOSED_ACRONYM = re.compile(
    rf"\b(?i:we|this (?:paper|work)) (?:propose|introduce|present|develop|design|describe)s? "
    rf"(?:(?!(?:{_CLAUSE_WORDS})\b)[\w-]+,? ){{1,7}}\((?P<name>{_NAME})\)(?=[,.;:]|$|\s+(?:{_FOLLOWERS})\b)"
)
# "Our method, Counterfactual Latent Uncertainty Explanations (CLUE), indicates …": the method the authors name
_OUR_METHOD = re.compile(
    rf"\b(?i:our) (?i:method|approach|model|framework|algorithm|technique|system|architecture),? "
    rf"(?:[A-Z][\w-]*,? ){{1,7}}\((?P<name>{_NAME})\)"
)
# "a framework called SpectralNet", "dubbed Deformable DETR", "named Label Propagation Meta-learning (LPM)"
_CALLED = re.compile(
    rf"\b(?:called|dubbed|named|termed|coined)(?: as)? (?:[A-Z][^,;()]{{0,80}}? \((?P<acronym>{_NAME})\)|"
    rf"(?P<name>(?:[A-Z][\w-]* ){{0,3}}{_NAME}(?: [A-Z][\w-]*){{0,2}}))(?=[,.;:)]|\s|$)"
)
# Kinds of model, not names of one: "we propose a generative adversarial network (GAN) that …" names no method.
GENERIC_NAMES = frozenset(
    {
        "GAN",
        "CNN",
        "RNN",
        "DNN",
        "GNN",
        "GCN",
        "MLP",
        "LSTM",
        "VAE",
        "NN",
        "RL",
        "DRL",
        "MARL",
        "NLP",
        "ML",
        "AI",
        "SGD",
        "MDP",
        "POMDP",
        "LLM",
        "NAS",
        "KD",
        "SSL",
        "NMT",
        "ODE",
        "PDE",
        "SDE",
        "SVM",
        "PCA",
        "KL",
    }
)
_AUTHORS_SPEAK = re.compile(r"\b(we|our|this (paper|work)|propose[sd]?)\b", re.I)
_PROPOSAL = re.compile(r"\b(we|this (paper|work)) (propose|introduce|present|develop|design|describe)s?\b", re.I)


def method_name(abstract: str) -> str | None:
    """The name an abstract gives the authors' method ("we propose X (ACRONYM)" → ACRONYM, "called NAME",
    "dubbed NAME", "our method, X (ACRONYM),"): first from a sentence proposing it, else from one where the authors
    speak; None if none."""
    spoken = [s for s in sentences(clean(abstract)) if _AUTHORS_SPEAK.search(s)]
    for sentence in sorted(spoken, key=lambda s: not _PROPOSAL.search(s)):  # proposals first, in order
        found = _CALLED.search(sentence) or _PROPOSED_ACRONYM.search(sentence) or _OUR_METHOD.search(sentence)
        name = found and (found.groupdict().get("acronym") or found.group("name"))
        if name and name.rstrip("s") not in GENERIC_NAMES:
            return name
    return None


def paper_sentence(cite: Citation, subject: str) -> str | None:
    """The cited paper's TL;DR in the third person with `subject` ("We propose X" → "X proposes …"), as it is when
    it already opens with the paper's name, or None if it will not turn cleanly."""
    tldr = (cite.tldr or "").strip()
    names = [n for n in (paper_name(cite.title), cite.name) if n]
    if any(re.match(rf"{re.escape(name)} [a-z]", tldr) for name in names) and not _OUR.search(tldr):
        return f"{tldr.rstrip(' .')} [[cite:{cite.paper_id}]]."  # "SMiRL alternates between …"
    match = _SPEAKER.match(tldr)
    if not match or match.group("verb").lower() in _AUXILIARIES:
        return None
    rest = re.sub(r"^here\s+", "", tldr[match.end() :].rstrip(" ."))  # "we present here a …"
    rest = re.sub(r"\bour\b", "its", rest)  # "trained with our framework": the paper's own
    if not rest or _OUR.search(rest):  # "allowing us to …" would need rewording: leave the sentence out
        return None
    rest = _AND_VERB.sub(lambda m: f"{m.group(1)} {third_person(m.group(2).lower())}", rest)  # "and provide"
    named = _named_apposition(rest, names)
    opening = match.group("opening") or ""
    if opening_dangles(opening):  # "To implement the idea, we …": the clause needs a sentence the reader lacks
        opening = ""
    if named and not opening:  # "We propose DiffWave, a model …" → "DiffWave is a model …"
        return f"{named[0]} is {named[1]} [[cite:{cite.paper_id}]]."
    verb = match.group("verb")
    if match.group("speaker").lower() == "we":
        verb = third_person(verb.lower())
    if opening:  # "Inspired by X, we propose" → "Inspired by X, RIDE proposes"; "one paper" within the sentence
        subject = subject[:1].lower() + subject[1:] if subject in ORDINALS else subject
    adverbs = match.group("adverbs").lower()
    return f"{opening}{subject} {adverbs}{verb} {rest} [[cite:{cite.paper_id}]]."


def _named_apposition(rest: str, names: list[str]) -> tuple[str, str] | None:
    """("DiffWave", "a model …") when the TL;DR's object is a name followed by what it is ("DiffWave, a model …",
    "Max-Q Entropy Search (MQES), an exploration principle …"); None otherwise."""
    for name in names:
        for head in (name, *re.findall(rf"^[^,()]{{1,80}} \({re.escape(name)}\)", rest)):
            tail = rest[len(head) + 2 :] if rest.startswith(head + ", ") else ""
            if re.match(r"(a|an|the|one) ", tail):
                return head[0].upper() + head[1:], tail
    return None


def paper_subject(cite: Citation) -> str | None:
    """How a paper sentence names its paper: the title's name, else the name its abstract gives the method (either
    only if the TL;DR does not say it: not "X proposes a framework called X"), else its short title; None if none."""
    for name in (paper_name(cite.title), cite.name):
        if name and name.lower() not in (cite.tldr or "").lower():
            return name
    return f'"{cite.title}"' if len(cite.title.split()) <= 8 else None


def paper_sentences(
    cites: list[Citation], fits: Callable[[list[str], str], bool] = lambda said, made: True
) -> list[str]:
    """What the cited papers do, one sentence each, best-ranked first, each kept when `fits` (the sentences kept so
    far, the new one) allows; papers without a name are "One paper", "Another paper", … in order."""
    kept: list[str] = []
    unnamed = 0  # counted among the papers without a name only
    for cite in cites:
        name = paper_subject(cite)
        made = paper_sentence(cite, name or ORDINALS[min(unnamed, len(ORDINALS) - 1)])
        if made and fits(kept, made):
            kept.append(made)
            unnamed += name is None
    return kept
