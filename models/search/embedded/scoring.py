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

Below every match as written come matches by reading (text.Term.readings): a document
that holds some term only by its reading (おおさか in 大阪) scores as if it were written,
times READING_SCALE; one that needs a romaji term's reading, times ROMAJI_SCALE. A match
as written scores more than 0.005 (bm25 of one occurrence in a description 250 times the
average length) and the tiers and bm25 give a document less than 2,000, so the scaled
scores stay below every match of the tier above, a video's title and moment added.
"""

from __future__ import annotations

import functools
import importlib
import sqlite3
import struct
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType

from models.search.analysis import INNER_BREAK
from models.search.embedded.layout import (
    FTS_COLUMNS,
    FTS_WEIGHTS,
    LENGTH_COLUMNS,
    READING_COLUMNS,
    WORD_COLUMNS,
)
from models.search.text import Term, padded_column, padded_run

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
# A document found by reading, or by a romaji term's reading, scores this times what it
# would if the readings were written (the module's note).
READING_SCALE = 1e-8
ROMAJI_SCALE = 1e-16
# Every match as written scores at least this (one occurrence in a description 12,000
# times the average length would score less), every match by reading less (2,000 times
# READING_SCALE): matching.Matching.candidates tells them apart by it.
WRITTEN_FLOOR = 1e-4
# What the C scorer (_score.c) holds for one query: a plan with more is scored in Python.
C_TERMS = 64
C_NEEDLES = 64

try:  # compiled by setup.py where a compiler and sqlite3.h are at hand
    # By name: the import graph (grimp) cannot see a compiled module, and would take
    # this for an import of the package itself, which imports this module.
    _score: ModuleType | None = importlib.import_module("models.search.embedded._score")
except ImportError:  # pragma: no cover - the build without a compiler
    _score = None
# Whether documents are scored in SQLite: the C scorer was compiled, and this Python's
# sqlite3.Connection is laid out as _score.c reads it (CPython 3.8 to 3.14).
IN_SQLITE = (
    _score is not None
    and sys.implementation.name == "cpython"
    and (3, 8) <= sys.version_info[:2] <= (3, 14)
)


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
        groups: Sequence[int] | None = None,
    ) -> None:
        self.terms = terms
        weights = list(idf) if idf is not None else [1.0] * len(terms)
        # The group (of an OR) of each term, by number: a match by reading scales a
        # document down only when nothing of that group was found as written.
        self.groups = list(groups) if groups is not None else list(range(len(terms)))
        self.needles = [
            (padded_run(term.tokens, term.prefix), _word_needles(term), weight)
            for term, weight in zip(terms, weights, strict=True)
        ]
        # Each term's reading needles and the scale of a match by them (none: no readings).
        self.reading_needles = [
            (_reading_needles(term), ROMAJI_SCALE if term.romaji else READING_SCALE)
            for term in terms
        ]
        self.spelling_needles = [tuple(padded_run(spelt) for spelt in t.spellings) for t in terms]
        self.phrase = (
            (padded_run(phrase.tokens), _word_needles(phrase)) if phrase is not None else None
        )
        self.phrase_readings = _reading_needles(phrase) if phrase is not None else ()
        self.any_words = any(words for _, words, _ in self.needles) or bool(
            self.phrase and self.phrase[1]
        )
        self.any_readings = any(needles for needles, _ in self.reading_needles)
        # What parts() reads of each term, in one tuple: its group, pairs, words, weight,
        # readings, their scale and spellings.
        self.plan = [
            (group, pairs, words, weight, readings, scale, spellings)
            for group, (pairs, words, weight), (readings, scale), spellings in zip(
                self.groups, self.needles, self.reading_needles, self.spelling_needles, strict=True
            )
        ]
        # The searched fields' pair columns and word columns, by place, with their weights.
        self.weights = [(n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in columns]
        word_columns = {WORD_COLUMNS[c] for c in columns}
        self.word_weights = [
            (n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in word_columns
        ]
        reading_columns = {READING_COLUMNS[c] for c in columns}
        self.reading_weights = [
            (n, FTS_WEIGHTS[c]) for n, c in enumerate(FTS_COLUMNS) if c in reading_columns
        ]
        # bm25's length normalisation, k1 * (1 - b + b * length / average), as a + b * length
        self.norm_base = K1 * (1 - B)
        self.norm_per_token = K1 * B / (average_length or 1.0)

    def plan_text(self) -> str | None:
        """This scorer as the C scorer's plan (_score.c reads it field by field): a number
        is its double's 64 bits in hexadecimal and ";" (_number), a text its length in
        UTF-8 bytes, ":" and itself, a needle a text and whether it may overlap itself, a
        list its length and its items. None when the C scorer cannot take it (more terms
        or needles than it holds)."""
        lists = [words for _, words, _ in self.needles]
        lists += [readings for readings, _ in self.reading_needles] + self.spelling_needles
        if self.phrase is not None:
            lists += [self.phrase[1], self.phrase_readings]
        if len(self.plan) > C_TERMS or any(len(found) > C_NEEDLES for found in lists):
            return None
        parts: list[str] = []

        def number(value: float) -> None:
            parts.append(_number(value))

        def text(value: str) -> None:
            parts.append(f"{len(value.encode())}:{value}")

        def needle(value: str) -> None:
            text(value)
            number(_overlaps_itself(value))

        def needles(values: Sequence[str]) -> None:
            number(len(values))
            for value in values:
                needle(value)

        def columns(weights: list[tuple[int, float]]) -> None:
            number(len(weights))
            for column, weight in weights:
                number(column)
                number(weight)

        for value in (self.norm_base, self.norm_per_token, K1, WORD_BONUS, PHRASE_BONUS):
            number(value)
        number(PAIR_PHRASE_BONUS)
        text(INNER_BREAK)
        number(len(LENGTH_COLUMNS))
        for column in LENGTH_COLUMNS:
            number(column)
        columns(self.weights)
        columns(self.word_weights)
        columns(self.reading_weights)
        number(self.any_words)
        number(len(self.plan))
        for group, pairs, words, weight, readings, scale, spellings in self.plan:
            number(group)
            needle(pairs)
            needles(words)
            number(weight)
            needles(readings)
            number(scale)
            needles(spellings)
        number(self.phrase is not None)
        if self.phrase is not None:
            needle(self.phrase[0])
            needles(self.phrase[1])
            needles(self.phrase_readings)
        return "".join(parts)

    def phrase_numbers(self, phrases: Sequence[tuple[str, bool]]) -> str | None:
        """For the FTS5 ranking function (_score.c subsearch_rank): the number of each
        term's pairs' phrase in a MATCH expression whose `phrases` (fts.phrases) these
        are, and of its word runs' phrases, the first of each, plus one (0: not in the
        expression; the function then reads the document's columns). None when the
        query has the phrase of all its words, which no expression holds."""
        if self.phrase is not None:
            return None
        first: dict[tuple[str, bool], int] = {}
        for number, phrase in enumerate(phrases):
            first.setdefault(phrase, number + 1)
        parts = [_number(len(self.terms))]
        for term in self.terms:
            runs = [first.get((" ".join(run), False), 0) for run in term.words]
            parts.append(_number(first.get((" ".join(term.tokens), term.prefix), 0)))
            parts.append(_number(len(runs)))
            parts.extend(_number(run) for run in runs)
        return "".join(parts)

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
        for column in LENGTH_COLUMNS:
            text = columns[column]
            if text:
                # a word column ends with a space (analysis.index_words)
                length += text.count(" ") + (text[-1] != " ")
        worded = _padded(columns, self.word_weights) if self.any_words else []
        searched: list[tuple[str, float]] | None = None  # the pair columns, when needed
        read: list[tuple[str, float]] | None = None  # the reading columns, when needed
        norm = self.norm_base + self.norm_per_token * length
        tiers = bm25 = 0.0
        written: set[int] = set()
        by_readings: dict[int, float] = {}  # group -> the scale of its match by reading
        for group, pairs, words, term_weight, readings, by_reading, spellings in self.plan:
            frequency = (
                max((_frequency(worded, needle) for needle in words), default=0.0) if words else 0.0
            )
            if frequency:
                tiers += WORD_BONUS  # found as words: its pairs are not read
                written.add(group)
            else:
                searched = searched or _padded(columns, self.weights)
                frequency = _frequency(searched, pairs)
                tiers += WORD_BONUS if frequency and not words else 0.0
                if frequency:
                    written.add(group)
                elif readings:
                    read = read or _padded(columns, self.reading_weights)
                    frequency = max(_frequency(read, needle) for needle in readings)
                    if frequency:
                        # a word read whole, not only inside a longer one (新大阪)
                        whole = any(
                            needle in padded.split(INNER_BREAK, 1)[0]
                            for padded, _ in read
                            for needle in readings
                        )
                        tiers += WORD_BONUS if whole else 0.0
                        by_readings[group] = min(by_readings.get(group, 1.0), by_reading)
                if not frequency and spellings:
                    frequency = max(_frequency(searched, needle) for needle in spellings)
                    if frequency:
                        by_readings[group] = min(by_readings.get(group, 1.0), by_reading)
            if frequency:
                bm25 += term_weight * frequency * (K1 + 1) / (frequency + norm)
        scale = 1.0
        if by_readings:
            scale = min(
                (found for group, found in by_readings.items() if group not in written),
                default=1.0,
            )
        if self.phrase is not None:
            pairs, words = self.phrase
            if words and any(needle in padded for padded, _ in worded for needle in words):
                tiers += PHRASE_BONUS
            else:
                searched = searched or _padded(columns, self.weights)
                if any(pairs in padded for padded, _ in searched):
                    tiers += PAIR_PHRASE_BONUS if words else PHRASE_BONUS
                elif scale < 1.0 and self.phrase_readings:
                    read = read or _padded(columns, self.reading_weights)
                    if any(n in padded for padded, _ in read for n in self.phrase_readings):
                        tiers += PHRASE_BONUS
        return tiers * scale, bm25 * scale

    def holds(self, columns: Sequence[str], field: str) -> bool:
        """Whether a field of a document (its pair column and its word column, from its
        token columns) holds any of the terms."""
        pairs = padded_column(columns[FTS_COLUMNS.index(field)])
        words = padded_column(columns[FTS_COLUMNS.index(WORD_COLUMNS[field])])
        read = padded_column(columns[FTS_COLUMNS.index(READING_COLUMNS[field])])
        return any(
            pair in pairs
            or any(needle in words for needle in word_needles)
            or any(needle in read for needle in reading_needles)
            or any(needle in pairs for needle in spellings)
            for (pair, word_needles, _), (reading_needles, _), spellings in zip(
                self.needles, self.reading_needles, self.spelling_needles, strict=True
            )
        )


def _number(value: float) -> str:
    """A number as the C scorer reads it: its double's bits in hexadecimal, then ";"."""
    return f"{struct.unpack('<Q', struct.pack('<d', float(value)))[0]:x};"


def _padded(columns: Sequence[str], weights: list[tuple[int, float]]) -> list[tuple[str, float]]:
    """The non-empty columns at the places of `weights`, each space doubled and the whole
    wrapped in spaces (see Scorer.parts), with their weights."""
    return [(padded_column(columns[c]), weight) for c, weight in weights if columns[c]]


def _frequency(searched: list[tuple[str, float]], needle: str) -> float:
    """The weighted count of `needle` over the searched columns."""
    frequency = 0.0
    for padded, weight in searched:
        count = _occurrences(padded, needle)
        if count:
            frequency += weight * count
    return frequency


def _word_needles(term: Term) -> tuple[str, ...]:
    return tuple(padded_run(run) for run in term.words)


def _reading_needles(term: Term) -> tuple[str, ...]:
    return tuple(padded_run(run) for run in term.reading_tokens)


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


def register(conn: sqlite3.Connection) -> None:
    """Add the C scorer (subsearch_score) to a connection the engine opened, where
    IN_SQLITE (elsewhere every score is computed in Python: the same figures)."""
    if IN_SQLITE and _score is not None:
        _score.register(conn)


def scores_in_sqlite(
    conn: sqlite3.Connection, plan: str, rowids: Iterable[int]
) -> dict[int, float]:
    """The scores of the documents at `rowids` (those that exist), computed by the C
    scorer from their token columns where they are stored: none of them is read into
    Python. The rowids are written into the statement (integers: nothing to escape; a
    list of literals is the quickest IN for a few hundred keys)."""
    listed = ",".join(str(int(rowid)) for rowid in rowids)
    columns = ", ".join(f"c{n}" for n in range(len(FTS_COLUMNS)))
    cursor = conn.cursor()
    cursor.row_factory = None
    found = cursor.execute(
        f"SELECT id, subsearch_score(?, {columns}) FROM documents_fts_content"
        f" WHERE id IN ({listed})",
        (plan,),
    )
    return dict(found.fetchall())
