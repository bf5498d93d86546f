"""Spelling variants of one keyword counted as one: case, hyphens and spaces, plural and singular, and an acronym
with its expansion as the venue's own papers pair them ("natural language processing (NLP)" in their text, or
both given as keywords of the same paper). Learnt from the papers, not from a hand list."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from confnav.model import Paper, fold

# "long form (LF)" in prose: a parenthesised token with at least two capitals, optionally a plural "s".
_ACRONYM_IN_TEXT = re.compile(r"\(([A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\)")
_SMALL_WORDS = frozenset({"a", "an", "and", "for", "from", "in", "of", "on", "the", "to", "with", "by", "via"})


def _compact(key: str) -> str:
    """A folded keyword without spaces: `self supervised`, `self-supervised` and `selfsupervised` are one."""
    return key.replace(" ", "")


def _singulars(key: str) -> list[str]:
    """The forms a folded keyword's last word may have in the singular (`policies` → `policy`, `networks`)."""
    head, _, last = key.rpartition(" ")
    forms = []
    if last.endswith("ies") and len(last) > 4:
        forms.append(last[:-3] + "y")
    if last.endswith("es") and len(last) > 3:
        forms.append(last[:-2])
    if last.endswith("s") and not last.endswith("ss") and len(last) > 2:
        forms.append(last[:-1])
    return [f"{head} {form}".strip() for form in forms]


def abbreviates(short: str, long: str) -> bool:
    """Whether `short` abbreviates the folded phrase `long`: every content word gives its first letter and perhaps
    one more of its letters (`vae`: variational autoencoder), small words may give theirs (`ood`: out of
    distribution); `long` has two words or more and does not spell `short` out (`meta` is not `meta learning`)."""
    words = long.split()
    if len(words) < 2 or short in _compact(long):
        return False

    def fit(i: int, w: int) -> bool:  # short[i:] from words[w:]
        if w == len(words):
            return i == len(short)
        word = words[w]
        if word in _SMALL_WORDS and fit(i, w + 1):
            return True
        if i >= len(short) or short[i] != word[0]:
            return False
        return fit(i + 1, w + 1) or (i + 1 < len(short) and short[i + 1] in word[1:] and fit(i + 2, w + 1))

    return fit(0, 0)


def _acronym_key(token: str) -> str:
    """An acronym as written (`GNNs`, `NLP`) as a folded key without its plural `s`."""
    bare = token[:-1] if token.endswith("s") and token[:-1].isupper() else token
    return fold(bare).replace(" ", "")


def _pairs_in_text(texts: Iterable[str]) -> Counter[tuple[str, str]]:
    """(acronym, long form) pairs written as `long form (ACRONYM)`."""
    pairs: Counter[tuple[str, str]] = Counter()
    for text in texts:
        for match in _ACRONYM_IN_TEXT.finditer(text):
            short = _acronym_key(match.group(1))
            if not 2 <= len(short) <= 10:
                continue
            before = fold(text[max(0, match.start() - 200) : match.start()]).split()
            window = before[-min(len(short) + 5, 2 * len(short)) :]
            for start in range(len(window) - 2, -1, -1):  # the shortest long form that fits
                long = " ".join(window[start:])
                if abbreviates(short, long):
                    pairs[short, long] += 1
                    break
    return pairs


def _pairs_in_keywords(keyword_sets: Iterable[set[str]]) -> Counter[tuple[str, str]]:
    """(acronym, long form) pairs given as two keywords of the same paper."""
    pairs: Counter[tuple[str, str]] = Counter()
    for keys in keyword_sets:
        shorts = [k for k in keys if " " not in k and 2 <= len(k) <= 8]
        for short in shorts:
            singular = short[:-1] if short.endswith("s") else short
            for long in keys:
                if long != short and (abbreviates(short, long) or abbreviates(singular, long)):
                    pairs[singular if abbreviates(singular, long) else short, long] += 1
    return pairs


class Spellings:
    """Groups of a set of papers' keywords that are spellings of one keyword, each shown as its most common one."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        shown: Counter[tuple[str, str]] = Counter()  # (folded key, spelling as written but lower-cased)
        keyword_sets, texts = [], []
        for paper in papers:
            keys = {fold(k): k.strip().lower() for k in paper.keywords if fold(k)}
            shown.update(keys.items())
            keyword_sets.append(set(keys))
            texts += [paper.title, paper.abstract or "", *paper.keywords]
        self._parent: dict[str, str] = {}
        compacts = {_compact(key) for key, _ in shown}
        for compact in compacts:
            self._parent[compact] = compact
        for key, _ in shown:
            singular = next((s for s in _singulars(key) if _compact(s) in compacts), None)
            if singular:
                self._union(_compact(key), _compact(singular))
        self._expansion = self._expansions(_pairs_in_text(texts) + _pairs_in_keywords(keyword_sets), compacts)
        spellings: dict[str, Counter[str]] = defaultdict(Counter)
        for (key, spelling), n in shown.items():
            spellings[self.group(key)][spelling] += n
        self._display = {group: c.most_common(1)[0][0] for group, c in spellings.items()}

    def _expansions(self, pairs: Counter[tuple[str, str]], compacts: set[str]) -> dict[str, str]:
        """Each acronym keyword's group → its expansion's group, where the papers pair it with one expansion at
        least twice as often as with any other; one step, never a chain (an expansion is no acronym here)."""
        seen: dict[str, Counter[str]] = defaultdict(Counter)
        for (short, long), n in pairs.items():
            ends = self._known(short, compacts), self._known(_compact(long), compacts)
            if ends[0] and ends[1] and self._root(ends[0]) != self._root(ends[1]):
                seen[self._root(ends[0])][self._root(ends[1])] += n
        chosen = {}
        for short, longs in seen.items():
            ranked = longs.most_common(2)
            if len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]:
                chosen[short] = ranked[0][0]
        return {short: long for short, long in chosen.items() if long not in chosen}

    @staticmethod
    def _known(compact: str, compacts: set[str]) -> str | None:
        """The keyword among `compacts` that `compact` or its singular or plural names, if any."""
        return next((c for c in (compact, compact + "s", *_singulars(compact)) if c in compacts), None)

    def _root(self, compact: str) -> str:
        while self._parent[compact] != compact:
            self._parent[compact] = self._parent[self._parent[compact]]
            compact = self._parent[compact]
        return compact

    def _union(self, a: str, b: str) -> None:
        self._parent[self._root(a)] = self._root(b)

    def group(self, keyword: str) -> str:
        """The group of a keyword (as given or folded): one key for all its spellings."""
        compact = _compact(fold(keyword))
        root = self._root(compact) if compact in self._parent else compact
        return self._expansion.get(root, root)

    def display(self, group: str) -> str:
        """The group's most common spelling."""
        return self._display.get(group, group)
