"""Scores of documents for results by video, computed here from their indexed tokens.

FTS5's bm25 counts, in every statement, how many documents hold each term: it reads
every match of the term in the whole index, milliseconds for a common word at a million
segments, while a page needs a few hundred scores. Every document a query finds holds
every term (terms are ANDed), so that count, the terms' IDF, scales the score of every
document found alike and ranks nothing between them. The score here is FTS5's bm25 (same
k1, b, column weights, document length and average length) with each term weighed 1.
A test pins it to FTS5's figures when given the same IDF.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from models.search.embedded.layout import FTS_COLUMNS, FTS_WEIGHTS
from models.search.text import Term

K1 = 1.2
B = 0.75
# Extra score of a document holding the query's words as one contiguous phrase: more than
# bm25 gives any document, so an exact phrase beats scattered words.
PHRASE_BONUS = 1000.0


class Scorer:
    """Scores documents for one query: its terms, the columns searched, the phrase of
    all its words (when it has several) and the index's average document length."""

    def __init__(
        self,
        terms: list[Term],
        columns: tuple[str, ...],
        phrase: Term | None,
        average_length: float,
        idf: Sequence[float] | None = None,
    ) -> None:
        weights = list(idf) if idf is not None else [1.0] * len(terms)
        self.needles = [
            (_needle(term), weight) for term, weight in zip(terms, weights, strict=True)
        ]
        self.phrase = _needle(phrase) if phrase is not None else None
        self.weights = [(n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in columns]
        # bm25's length normalisation, k1 * (1 - b + b * length / average), as a + b * length
        self.norm_base = K1 * (1 - B)
        self.norm_per_token = K1 * B / (average_length or 1.0)

    def score(self, columns: Sequence[str]) -> float:
        """The score of a document from its token columns (in FTS_COLUMNS order), higher
        is better: bm25 of the terms, plus PHRASE_BONUS when the phrase stands whole in
        one searched column.

        A column's tokens are separated by one space; with every space doubled and the
        column wrapped in spaces, each token stands between its own two spaces, so a
        plain count of " token " (a phrase's tokens joined by two spaces) counts every
        occurrence, repeats included."""
        length = 0
        for text in columns:
            if text:
                length += text.count(" ") + 1
        searched = [
            (" " + columns[c].replace(" ", "  ") + " ", weight)
            for c, weight in self.weights
            if columns[c]
        ]
        norm = self.norm_base + self.norm_per_token * length
        score = 0.0
        for needle, term_weight in self.needles:
            frequency = 0.0
            for padded, weight in searched:
                count = _occurrences(padded, needle)
                if count:
                    frequency += weight * count
            if frequency:
                score += term_weight * frequency * (K1 + 1) / (frequency + norm)
        if self.phrase is not None and any(self.phrase in padded for padded, _ in searched):
            score += PHRASE_BONUS
        return score


def _needle(term: Term) -> str:
    return " " + "  ".join(term.tokens) + " "


def _occurrences(haystack: str, needle: str) -> int:
    """How many times `needle` starts in `haystack`, overlaps counted as FTS5 does (a
    phrase that can overlap itself, like "a a" in "a a a", is counted one start at a
    time; any other is counted at once)."""
    if not _overlaps_itself(needle):
        return haystack.count(needle)
    count, found = 0, haystack.find(needle)
    while found >= 0:
        count += 1
        found = haystack.find(needle, found + 1)
    return count


@functools.lru_cache(maxsize=256)
def _overlaps_itself(needle: str) -> bool:
    """Whether a later token of `needle` can start another `needle` inside it: some
    token-aligned end of it is also its start."""
    return any(
        needle.startswith(needle[start:])
        for start in range(1, len(needle) - 1)
        if needle[start] == " " and needle[start - 1] == " "
    )
