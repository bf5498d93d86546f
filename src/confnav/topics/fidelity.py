"""Whether a theme's label names its papers: the share of members whose own keywords or title contain it.

A paper uses a label when its title or one of its keywords contains the label's words in order
(stemmed, so "language models" uses "language modeling"), or the label's synonym: the acronym the
venue's papers spell it out as ("GNNs" for "graph neural networks"), or for an acronym label ("GAN")
those spelled-out words; a broad field is used by the narrower phrases that imply it (fields.py). A
two-part label ("interpretability and object detection") is used when either part is. The labeler
chooses with it (PhraseUse), and benchmarks/topics_eval.py reports it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from confnav.model import Paper
from confnav.search.text import STOPWORDS, stem, words
from confnav.topics.fields import FIELDS
from confnav.topics.paper_words import CAPITALS, LONGEST, paper_words, plain, prose_runs

PAIR = " and "  # joins the two parts of a label that names a mixed theme
MODIFIER_EVIDENCE = 3  # keywords containing a phrase needed to call it a modifier
PROSE_EVIDENCE = 5  # uses in the papers' prose needed to tell whether a phrase runs on into another word
RUNS_ON, WORD_RUNS_ON = 0.75, 0.9  # a phrase (or, when rare, its last word) this often followed by a word: modifier
GRADED = 0.1  # a word this often after "more", "highly", "very" … is an adjective ("more efficient"), not a name
_AFTER_DEGREE = re.compile(  # each word after one of degree ("more efficient")
    r" (?:more|most|less|least|highly|very|extremely|quite|too|so|sufficiently|equally) (?=(\S+) )"
)


def parts(label: str) -> list[str]:
    """The phrases a label is made of: one, or two for "A and B"."""
    return [part for part in (p.strip() for p in label.split(PAIR)) if part]


def acronym(phrase: str) -> str:
    """The acronym a phrase is, lower case and without a plural "s" ("GANs" → gan), or "" if it is none."""
    found = CAPITALS.fullmatch(phrase.strip())
    return found.group(1).lower() if found else ""


def initials(phrase: str) -> str:
    """The initials of a phrase of two or more words ("graph neural networks" → gnn), else ""."""
    tokens = words(phrase)
    return "".join(w[0] for w in tokens) if len(tokens) > 1 else ""


def _key(tokens: list[str]) -> str:
    return " ".join(stem(w) for w in tokens)


# A field's stemmed name → the stemmed phrases implying it.
_IMPLYING = {_key(words(field)): tuple(_key(words(p)) for p in narrower) for field, narrower in FIELDS.items()}


class PhraseUse:
    """Which of a set of papers use a label, by phrase postings: the one rule the labeler and the fidelity
    measure share."""

    def __init__(self, papers: Sequence[Paper], prose: Prose | None = None) -> None:
        self.papers = papers
        self.postings: dict[str, list[int]] = defaultdict(list)  # each run of up to LONGEST stemmed words: the papers
        self.abbreviations: dict[str, list[int]] = {}  # each acronym: the papers writing it
        self.expansions: dict[str, Counter[str]] = {}  # each acronym: the runs it stands for in papers writing it
        self.in_keywords: dict[str, list[int]] = defaultdict(list)  # each time a run of plain words is in a keyword
        self.ending_keywords: dict[str, list[int]] = defaultdict(list)  # each time such a run ends the keyword
        self.whole_keywords = Counter[str]()  # each keyword, in plain words: how many times it is written
        self.read = [paper_words(paper) for paper in papers]
        for i, read in enumerate(self.read):
            for key in read.stems:
                self.postings[key].append(i)
            for short in read.acronyms:
                self.abbreviations.setdefault(short, []).append(i)
            for form, spelled in read.spelled:
                if form not in self.expansions:
                    self.expansions[form] = Counter()
                self.expansions[form].update(spelled)
            self.whole_keywords.update(read.keywords)
            for key in read.in_keywords:
                self.in_keywords[key].append(i)
            for key in read.ending_keywords:
                self.ending_keywords[key].append(i)
        self.prose = prose or Prose(papers)  # the venue's, when these papers are one theme's
        self._cache: dict[str, np.ndarray] = {}
        self._judged: dict[tuple[str, bytes | None, float, float, int], bool] = {}

    def of(self, label: str) -> np.ndarray:
        """A mask of the papers using the label (either part of a two-part label)."""
        mask = np.zeros(len(self.papers), dtype=bool)
        for part in parts(label):
            if part not in self._cache:
                self._cache[part] = self._phrase(part)
            mask |= self._cache[part]
        return mask

    def spelled(self, short: str) -> str:
        """The stemmed words an acronym most often stands for in these papers, or "" when none spells it out."""
        found = self.expansions.get(short)
        return found.most_common(1)[0][0] if found else ""

    def _phrase(self, phrase: str) -> np.ndarray:
        """Papers containing the phrase's stemmed words in order, or its synonym (acronym or spelled out)."""
        tokens = words(phrase)
        mask = np.zeros(len(self.papers), dtype=bool)
        key = _key(tokens)
        if len(tokens) <= LONGEST:
            mask[self.postings.get(key, [])] = True
        else:
            mask[[i for i, paper in enumerate(self.papers) if _contains(paper, key)]] = True
        for narrower in _IMPLYING.get(key, ()):  # a field: "object detection" is computer vision
            mask[self.postings.get(narrower, [])] = True
        if short := acronym(phrase):
            mask[self.postings.get(self.spelled(short) or key, [])] = True
        elif not ((short := initials(phrase)) and self.spelled(short) == key):
            return mask
        for form in (short, short + "s"):  # written as the acronym ("GNNs" has no stem "gnn")
            mask[self.abbreviations.get(form, [])] = True
        return mask

    def with_words(self, stems: set[str]) -> np.ndarray:
        """A mask of the papers whose title and keywords have all these stemmed words, in any order."""
        mask = np.ones(len(self.papers), dtype=bool)
        for word in stems:
            found = np.zeros(len(self.papers), dtype=bool)
            found[self.postings.get(word, [])] = True
            mask &= found
        return mask

    def members(self, own: np.ndarray) -> list[Paper]:
        return [self.papers[int(i)] for i in np.flatnonzero(own)]

    def incomplete(
        self, label: str, own: np.ndarray | None = None, share: float = 0.7, modifier: float = 0.25, evidence: int = 0
    ) -> bool:
        """Whether the label (or a part of one) is cut out of a longer phrase: where its words occur together
        in the titles of the papers in `own` (all by default), the same word mostly comes right before or
        after ("graph neural" + networks), a word mostly follows ("low rank" tensor, approximation), or its
        words are mostly tied by a hyphen to one outside ("shot learning" in "few-shot learning"), or no
        keyword has it and fewer than `evidence` titles do (too few to tell); or it is a modifier, which ends under
        `modifier` of the keywords containing it, in `own` or in all ("adversarial" in "adversarial robustness",
        "adversarial examples"), or, written as no keyword, mostly runs on in the papers' prose (Prose), or is one
        word the prose grades like an adjective ("more efficient", "highly robust")."""
        asked = (label, None if own is None else own.tobytes(), share, modifier, evidence)
        if asked not in self._judged:  # the labeler asks again of a phrase it ranked or kept before
            self._judged[asked] = self._incomplete(label, own, share, modifier, evidence)
        return self._judged[asked]

    def _incomplete(self, label: str, own: np.ndarray | None, share: float, modifier: float, evidence: int) -> bool:
        own = np.ones(len(self.papers), dtype=bool) if own is None else own
        for part in parts(label):
            key, tokens = " ".join(plain(part)), words(part)
            runs = self._title_runs(tokens, own)
            whole = self.whole_keywords[key] > 0  # some author writes it as a keyword of its own: a name
            if runs.cut(share, modifiers=not whole):
                return True
            if key not in self.in_keywords and runs.in_titles < evidence:
                return True  # a run of title words no keyword has, in too few titles to tell whether it is whole
            for pool in (own, None):  # the papers in `own`, then all: a modifier in either is no name
                seen, ends = _count(self.in_keywords, key, pool), _count(self.ending_keywords, key, pool)
                if seen >= MODIFIER_EVIDENCE and ends < modifier * seen:
                    return True
            if (not whole and self.prose.runs_on(tokens)) or (len(tokens) == 1 and self.prose.graded(tokens[0])):
                return True  # last: it reads the prose
        return False

    def runs_on_in_titles(self, phrase: str, own: np.ndarray, share: float = 0.7) -> bool:
        """Whether, in the titles of `own` holding it (two or more), the phrase is mostly followed by a word that is
        not a stop word: a modifier ("local" arrangements, "local" scale), not a name ("meshes")."""
        runs = self._title_runs(words(phrase), own)
        return runs.seen >= 2 and runs.continued >= share * runs.seen

    def open_ends(self, phrase: str, own: np.ndarray | None = None) -> set[str]:
        """The sides ("before", "after") on which, in a title of `own` (all by default) holding the phrase, a word
        that is not a stop word joins it: "vortical flow simulation" on grids has none, "simulation made fast"
        after cloth has one."""
        own = np.ones(len(self.papers), dtype=bool) if own is None else own
        return {side for side, _ in self._title_runs(words(phrase), own).around}

    def _title_runs(self, tokens: list[str], own: np.ndarray) -> TitleRuns:
        """The words where they occur together in the titles of `own` (each paper once, its title or keywords
        holding them)."""
        using = sorted({i for i in self.postings.get(_key(tokens), []) if own[i]})
        return TitleRuns(tokens, [self.read[i].title for i in using], [self.read[i].joints for i in using])


class Prose:
    """The papers' titles and abstracts as runs of words between punctuation marks, to tell a name from a modifier
    by what authors write after it: "distributed stochastic" runs on (gradient, optimization), "point clouds" ends."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = papers
        self._text = ""  # " | "-separated runs of folded words, joined on first use
        self._found: dict[str, tuple[int, int]] = {}
        self._graded: tuple[Counter[str], Counter[str]] | None = None

    def runs_on(self, tokens: list[str]) -> bool:
        """Whether, in PROSE_EVIDENCE uses or more, the words are followed by a word that is not a stop word in RUNS_ON
        of them; for a rarer phrase, whether each of its uses runs on, MODIFIER_EVIDENCE or more ("text-driven"
        generation, avatars, art), or its last word does in WORD_RUNS_ON ("distributed deep" learning), or in RUNS_ON
        when each of the phrase's few uses runs on ("communication-efficient distributed" optimization)."""
        seen, continued = self._uses(" ".join(tokens))
        if seen >= PROSE_EVIDENCE or len(tokens) == 1:
            return seen >= PROSE_EVIDENCE and continued >= RUNS_ON * seen
        if seen >= MODIFIER_EVIDENCE and continued == seen:
            return True
        word_seen, word_continued = self._uses(tokens[-1])
        share = RUNS_ON if continued == seen > 1 else WORD_RUNS_ON  # every one of its few uses runs on: less needed
        return word_seen >= PROSE_EVIDENCE and word_continued >= share * word_seen

    def graded(self, word: str) -> bool:
        """Whether, in PROSE_EVIDENCE uses or more, the word follows "more", "highly", "very" … in GRADED of them: an
        adjective ("efficient", "robust", "interpretable"), even where an author writes it as a keyword."""
        if self._graded is None:  # every word, and every word after a degree word, counted in one pass each
            self._graded = Counter(self._joined().split()), Counter(_AFTER_DEGREE.findall(self._joined()))
        seen, graded = self._graded[0][word], self._graded[1][word]
        return seen >= PROSE_EVIDENCE and graded >= GRADED * seen

    def _joined(self) -> str:
        """The prose, joined on first use."""
        if not self._text:
            runs = (prose_runs(f"{paper.title}. {paper.abstract or ''}") for paper in self.papers)
            self._text = f" | {' | '.join(runs)} | "
        return self._text

    def _uses(self, phrase: str) -> tuple[int, int]:
        """How many times the prose writes the phrase, and how many of those a word that is not a stop word follows."""
        if phrase not in self._found:
            self._joined()
            needle, seen, continued = f" {phrase} ", 0, 0
            at = self._text.find(needle)
            while at >= 0:
                after = at + len(needle)
                following = self._text[after : self._text.find(" ", after)]
                seen += 1
                continued += following != "|" and following not in STOPWORDS
                at = self._text.find(needle, after - 1)
            self._found[phrase] = seen, continued
        return self._found[phrase]


def _contains(paper: Paper, key: str) -> bool:
    """Whether the paper's title or a keyword has these stemmed words in order (for phrases over LONGEST)."""
    return any(f" {key} " in f" {run} " for run in paper_words(paper).runs)


def _count(postings: dict[str, list[int]], key: str, pool: np.ndarray | None) -> int:
    found = postings.get(key, [])
    return len(found) if pool is None else int(pool[found].sum())


def coverage(label: str, members: Sequence[Paper]) -> float:
    """The share of members that use the label."""
    return float(PhraseUse(members).of(label).mean()) if members else 0.0


@dataclass
class LabelFaults:
    """What a theme's label and the phrases beside it get wrong, judged on its members' titles and keywords and
    on the venue's prose: what benchmarks and tests of labels from titles both check."""

    cut: bool  # cut from a longer phrase, or a modifier (PhraseUse.incomplete)
    one_title: bool  # only one member's title or keywords hold it
    runs_on: bool  # from one title, and followed there by a word that is not a stop word
    cut_beside: list[str]  # the phrases beside it that are cut


def label_faults(label: str, members: Sequence[Paper], prose: Prose, beside: Sequence[str] = ()) -> LabelFaults:
    uses = PhraseUse(members, prose)
    one_title = int(uses.of(label).sum()) == 1
    return LabelFaults(
        uses.incomplete(label),
        one_title,
        one_title and "after" in uses.open_ends(label),
        [phrase for phrase in beside if uses.incomplete(phrase)],
    )


def is_cut(label: str, members: Sequence[Paper], prose: Prose | None = None) -> bool:
    """Whether the label is incomplete, judged on the members' titles and keywords and on `prose` (the venue's;
    default: the members') (PhraseUse.incomplete)."""
    return PhraseUse(members, prose).incomplete(label)


class TitleRuns:
    """Where a phrase's words occur together in some titles: what comes right before and after, and whether
    a hyphen ties it to a word outside it ("few-shot", "non-line-of-sight")."""

    def __init__(self, target: list[str], titles: Sequence[Sequence[str]], joints: Sequence[Sequence[bool]]) -> None:
        n, self.target, words_of = len(target), target, tuple(target)
        self.seen = self.continued = self.in_titles = self.tied = 0
        self.around = Counter[tuple[str, str]]()
        for title, joined in zip(titles, joints, strict=True):
            found = [i for i in range(len(title) - n + 1) if tuple(title[i : i + n]) == words_of]
            self.in_titles += bool(found)
            self.tied += any(joined[i] or (i + n < len(title) and joined[i + n]) for i in found)
            for i in found:
                self.seen += 1
                if i + n < len(title) and title[i + n] not in STOPWORDS:  # "for", "with": no continuation
                    self.around["after", title[i + n]] += 1
                    self.continued += 1
                if i > 0 and title[i - 1] not in STOPWORDS:
                    self.around["before", title[i - 1]] += 1

    def cut(self, share: float, modifiers: bool = True) -> bool:
        """Whether the words are cut out of longer ones: in two uses or more, mostly next to the same word; in most
        titles, tied by a hyphen to a word outside ("shot learning", "non-line"); with `modifiers`, in two uses or
        more, mostly followed by a word that is not a stop word ("low rank" tensor, "low rank" approximation; of two,
        both: "piecewise linear" approximation, functions)."""
        if len(self.target) < 2:
            return False
        same = max(self.around.values(), default=0)
        return (
            (self.seen >= 2 and same >= share * self.seen)
            or (self.in_titles >= 1 and self.tied >= share * self.in_titles)
            or (modifiers and self.seen >= 2 and self.continued >= share * self.seen)
        )
