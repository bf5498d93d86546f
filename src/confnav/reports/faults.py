"""What makes a report unpleasant to read, counted: facts said twice, sentences opening on a connective or a
pronoun that points outside them, hover cards repeating the sentence they sit on, and words per theme.

The overview is written to avoid each of these (prose.py, narrative.py, render.py) and benchmarks/overview_eval.py
counts them on the finished report, so that a regression shows as a number rather than in a reader's patience.
"""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

from confnav.search.text import STOPWORDS, words

# A sentence that opens on one of these leans on the sentence before it ("However, …", "To this end, …").
_CONNECTIVES = (
    r"however|moreover|furthermore|additionally|also|thus|therefore|hence|consequently|instead|nevertheless|"
    r"nonetheless|besides|similarly|likewise|finally|then|meanwhile|accordingly|specifically|still|yet|and|but|so|"
    r"in addition|in contrast|by contrast|on the other hand|as a result|to this end|to do so|in this way|"
    r"in particular|in turn|that is|for this reason|as such|to that end|otherwise|namely|further"
)
# …or on a word that points back to something said before ("This …", "It …", "These methods …").
_POINTERS = r"this|these|that|those|such|it|its|they|them|their|both|the former|the latter|the above|the same"
_DANGLING_START = re.compile(rf"^(?:{_CONNECTIVES}|{_POINTERS})\b", re.I)
# An opening clause that needs what came before: "To implement the idea, …", "Based on this observation, …".
_BACK_REFERENCE = re.compile(
    r"\b(?:this|these|those|such|it|its|them|their|the (?:idea|above|former|latter|same|observation|insight|"
    r"problem|issue|finding|findings|approach|method|framework|model|goal|end)|do so)\b",
    re.I,
)
# A subordinate opening clause, the kind that can lean on what came before ("To …", "Based on …", "Inspired by …").
_OPENING = re.compile(
    r"^((?:to|in|for|with|by|as|from|on|under|unlike|like|given|after|following|since|because|while|when|although|"
    r"though|despite|beyond|besides|\w+ing|\w+ed)\b[^,;:]{0,100}),\s",
    re.I,
)
_MARKS = re.compile(r"\[\[cite:[^\]]+\]\]|\{[a-z]+\.[\w.\-]+\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")


def opening_dangles(clause: str) -> bool:
    """Whether an opening clause ("To implement the idea") points at something said before it."""
    return bool(_DANGLING_START.match(clause.strip()) or _BACK_REFERENCE.search(clause))


def dangles(sentence: str) -> bool:
    """Whether a sentence opens on a connective or a pointer, or on a clause that refers back, so that it cannot
    stand on its own ("However, …", "This shows …", "To implement the idea, …")."""
    text = sentence.strip().lstrip("(")
    if text.startswith(('"', "'")):  # a quoted title opens it ("This Looks Like That: …")
        return False
    if _DANGLING_START.match(text):
        return True
    opening = _OPENING.match(text)
    return bool(opening and opening_dangles(opening.group(1)))


def split_sentences(text: str) -> list[str]:
    """A paragraph's sentences (an abbreviation like "e.g." does not end one)."""
    text = re.sub(r"\b(e\.g|i\.e|et al|vs|cf)\.", lambda m: m.group(0).replace(".", "\0"), text)
    return [s.replace("\0", ".").strip() for s in _SENTENCE_END.split(text) if s.strip()]


def plain_prose(text: str) -> str:
    """Prose with confnav's marks taken out: a fact placeholder counts as one word, a citation as none."""
    return re.sub(r"\s+([.,;:)])", r"\1", _MARKS.sub(lambda m: "N" if m.group(0).startswith("{") else "", text))


def word_count(text: str) -> int:
    """Words of a paragraph as a reader counts them (marks aside)."""
    return len(re.findall(r"[\w'’-]+", plain_prose(text)))


def dangling_sentences(texts: list[str]) -> list[str]:
    """The sentences of these paragraphs that dangle (see dangles)."""
    return [s for text in texts for s in split_sentences(plain_prose(text)) if dangles(s)]


_MD_FACT = re.compile(r"<!-- fact:([\w.\-]+) -->")
_MD_FACT_LINE = re.compile(r"^- (.+?): \*\*", re.M)


def repeated_facts(markdown: str) -> list[str]:
    """Facts a Markdown report says more than once: a fact key shown twice, or a line of its facts block whose
    label only repeats another's ("Accepted as oral: share of …" under "Accepted as oral")."""
    shown = Counter(_MD_FACT.findall(markdown))
    found = [f"{key} shown {n} times" for key, n in sorted(shown.items()) if n > 1]
    labels = _MD_FACT_LINE.findall(markdown.split("\n## ", 2)[1] if "\n## Facts" in markdown else "")
    found += [f"{b!r} repeats {a!r}" for a in labels for b in labels if a != b and b.startswith(a + ":")]
    return found


_CARD_MARK = re.compile(r'<span class="cite mark"[^>]*>.*?<span class="card" role="tooltip">(.*?)</span></span>', re.S)
_TAG = re.compile(r"<[^>]+>")


def content_words(text: str) -> set[str]:
    """A text's words that carry meaning (no stopwords, no one-letter words)."""
    return {w for w in words(text) if w not in STOPWORDS and len(w) > 2}


def repeats(card: str, sentence: str, share: float = 0.6) -> bool:
    """Whether `sentence` already says what `card` says: most of the card's meaningful words are in it."""
    said = content_words(card)
    return bool(said) and len(said & content_words(sentence)) >= share * len(said)


def _card_tldr(card: str) -> str:
    """The TL;DR a card's HTML shows, as text ("" when it shows none)."""
    if "TL;DR</strong>" not in card:
        return ""
    return unescape(_TAG.sub("", card.split("TL;DR</strong>", 1)[1])).split(":", 1)[-1].strip()


def hover_repeats(html: str) -> list[str]:
    """The hover cards of an HTML report's inline citations whose TL;DR repeats the sentence the mark sits in."""
    found = []
    for paragraph in re.findall(r"<p>(.*?)</p>", html, re.S):
        cards = [_card_tldr(card) for card in _CARD_MARK.findall(paragraph)]
        pieces = _CARD_MARK.split(paragraph)  # text, card, text, card, …: each card replaced by its number
        held = "".join(piece if i % 2 == 0 else f" \x01{i // 2}\x01" for i, piece in enumerate(pieces))
        text = unescape(_TAG.sub("", held))
        for sentence in split_sentences(text):
            said = re.sub(r"\x01\d+\x01", "", sentence)
            for number in re.findall(r"\x01(\d+)\x01", sentence):
                if cards[int(number)] and repeats(cards[int(number)], said):
                    found.append(said[:80])
    return found
