"""Scores of documents for results by video, computed here from their indexed tokens.

FTS5's bm25 counts, in every statement, how many documents hold each term: it reads
every match of the term in the whole index, milliseconds for a common word at a million
segments, while a page needs a few hundred scores. Every document a query finds holds
every term (terms are ANDed), so that count, the terms' IDF, scales the score of every
document found alike and ranks nothing between them. The score here is FTS5's bm25 (same
k1, b, column weights, document length and average length) with each term weighed 1.
A test pins it to FTS5's figures when given the same IDF.

Above bm25 stand tiers: a document holding a term as words (analysis.py) scores
WORD_BONUS for it, more than bm25 gives any term, so a video that says 京都 comes before
one where 京都 is only the middle of 東京都; the same for the query's words as one phrase.
A term's frequency is its word matches' when it has any, its pairs' otherwise.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from models.search.embedded.layout import FTS_COLUMNS, FTS_WEIGHTS, WORD_COLUMNS
from models.search.text import Term

K1 = 1.2
B = 0.75
# Extra score of a document holding the query's words as one contiguous phrase: more than
# bm25 and the word tiers give any document, so an exact phrase beats scattered words.
PHRASE_BONUS = 1000.0
# Extra score of a document for each term it holds as words (a plain ASCII term's tokens
# are words): bm25 gives a term less than K1 + 1.
WORD_BONUS = 10.0
# Extra score of a document holding the phrase's characters in a row but not its words:
# below one word, so "東京都抹茶" does not pass 京都 ... 抹茶.
PAIR_PHRASE_BONUS = 5.0


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
            (_needle(term.tokens, term.prefix), _word_needles(term), weight)
            for term, weight in zip(terms, weights, strict=True)
        ]
        self.phrase = (
            (_needle(phrase.tokens), _word_needles(phrase)) if phrase is not None else None
        )
        self.any_words = any(words for _, words, _ in self.needles) or bool(
            self.phrase and self.phrase[1]
        )
        # The searched fields' pair columns and word columns, by place, with their weights.
        self.weights = [(n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in columns]
        word_columns = {WORD_COLUMNS[c] for c in columns}
        self.word_weights = [
            (n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in word_columns
        ]
        # bm25's length normalisation, k1 * (1 - b + b * length / average), as a + b * length
        self.norm_base = K1 * (1 - B)
        self.norm_per_token = K1 * B / (average_length or 1.0)

    def score(self, columns: Sequence[str]) -> float:
        """The score of a document from its token columns (in FTS_COLUMNS order), higher
        is better: its tiers and its bm25 (`parts`)."""
        tiers, bm25 = self.parts(columns)
        return tiers + bm25

    def parts(self, columns: Sequence[str]) -> tuple[float, float]:
        """The document's tiers (WORD_BONUS for each term found as words, PHRASE_BONUS
        when the phrase's words stand whole in one searched column, PAIR_PHRASE_BONUS
        for its characters only) and its bm25 of the terms.

        A column's tokens are separated by one space; with every space doubled and the
        column wrapped in spaces, each token stands between its own two spaces, so a
        plain count of " token " (a phrase's tokens joined by two spaces) counts every
        occurrence, repeats included."""
        length = 0
        for text in columns:
            if text:
                # a word column ends with a space (analysis.index_words)
                length += text.count(" ") + (text[-1] != " ")
        worded = _padded(columns, self.word_weights) if self.any_words else []
        searched: list[tuple[str, float]] | None = None  # the pair columns, when needed
        norm = self.norm_base + self.norm_per_token * length
        tiers = bm25 = 0.0
        for pairs, words, term_weight in self.needles:
            frequency = max((_frequency(worded, needle) for needle in words), default=0.0)
            if frequency:
                tiers += WORD_BONUS  # found as words: its pairs are not read
            else:
                searched = searched or _padded(columns, self.weights)
                frequency = _frequency(searched, pairs)
                tiers += WORD_BONUS if frequency and not words else 0.0
            if frequency:
                bm25 += term_weight * frequency * (K1 + 1) / (frequency + norm)
        if self.phrase is not None:
            pairs, words = self.phrase
            if words and any(needle in padded for padded, _ in worded for needle in words):
                tiers += PHRASE_BONUS
            else:
                searched = searched or _padded(columns, self.weights)
                if any(pairs in padded for padded, _ in searched):
                    tiers += PAIR_PHRASE_BONUS if words else PHRASE_BONUS
        return tiers, bm25

    def holds(self, columns: Sequence[str], field: str) -> bool:
        """Whether a field of a document (its pair column and its word column, from its
        token columns) holds any of the terms."""
        pairs = " " + columns[FTS_COLUMNS.index(field)].replace(" ", "  ") + " "
        words = " " + columns[FTS_COLUMNS.index(WORD_COLUMNS[field])].replace(" ", "  ") + " "
        return any(
            pair in pairs or any(needle in words for needle in word_needles)
            for pair, word_needles, _ in self.needles
        )


def _padded(columns: Sequence[str], weights: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """The non-empty columns at the places of `weights`, each space doubled and the whole
    wrapped in spaces (see Scorer.parts), with their weights."""
    return [
        (" " + columns[c].replace(" ", "  ") + " ", weight) for c, weight in weights if columns[c]
    ]


def _frequency(searched: list[tuple[str, float]], needle: str) -> float:
    """The weighted count of `needle` over the searched columns."""
    frequency = 0.0
    for padded, weight in searched:
        count = _occurrences(padded, needle)
        if count:
            frequency += weight * count
    return frequency


def _needle(tokens: Sequence[str], prefix: bool = False) -> str:
    """Tokens as they stand in a padded column; a prefix's last token may go on."""
    return " " + "  ".join(tokens) + ("" if prefix else " ")


def _word_needles(term: Term) -> tuple[str, ...]:
    return tuple(_needle(run) for run in term.words)


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
