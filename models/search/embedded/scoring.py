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
        self.needles = [_needle(term) for term in terms]
        self.term_weights = list(idf) if idf is not None else [1.0] * len(terms)
        self.phrase = _needle(phrase) if phrase is not None else None
        self.weights = [(n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in columns]
        self.average_length = average_length or 1.0

    def score(self, columns: Sequence[str]) -> float:
        """The score of a document from its token columns (in FTS_COLUMNS order), higher
        is better: bm25 of the terms, plus PHRASE_BONUS when the phrase stands whole in
        one searched column."""
        # A few hundred documents a query: plain loops, and the empty columns skipped.
        length = 0
        for text in columns:
            if text:
                length += text.count(" ") + 1
        searched = [(f" {columns[c]} ", weight) for c, weight in self.weights if columns[c]]
        norm = K1 * (1 - B + B * length / self.average_length)
        score = 0.0
        for needle, term_weight in zip(self.needles, self.term_weights, strict=True):
            frequency = 0.0
            for padded, weight in searched:
                if needle in padded:
                    frequency += weight * _occurrences(padded, needle)
            if frequency:
                score += term_weight * frequency * (K1 + 1) / (frequency + norm)
        if self.phrase is not None and any(self.phrase in padded for padded, _ in searched):
            score += PHRASE_BONUS
        return score


def _needle(term: Term) -> str:
    return " " + " ".join(term.tokens) + " "


def _occurrences(haystack: str, needle: str) -> int:
    """How many times `needle` starts in `haystack`, overlaps counted as FTS5 does."""
    count, found = 0, haystack.find(needle)
    while found >= 0:
        count += 1
        found = haystack.find(needle, found + 1)
    return count
