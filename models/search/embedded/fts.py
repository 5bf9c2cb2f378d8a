"""A read query (query.py) as FTS5 MATCH expressions over the index's token columns.

Each term is the phrase of its tokens in the fields' pair columns, or of its words in
their word columns (text.py, analysis.py), or (a term with readings) of its readings in
their reading columns, with its anchors as words, or of the pairs of its other spellings;
a prefix term (word*) is its token as an FTS5 prefix. A group is the OR of its terms,
the query the AND of its groups, and the excluded terms are taken out with NOT, always
as a whole (pairs, words or readings), so the narrower expressions below keep the same
exclusions and stay subsets of fts_match.
"""

from __future__ import annotations

import re

from models.search.text import Term

Groups = tuple[tuple[Term, ...], ...]
# An expression's parts as FTS5 reads them: a quoted phrase (its quotes doubled inside)
# with a prefix's star, a column filter, or a bare token (a channel's scope).
_PARTS = re.compile(r'"((?:[^"]|"")*)"(\s*\*)?|\{[^}]*\}|[^\s(){}:*^+"]+')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}


def _phrase(tokens: tuple[str, ...], prefix: bool = False) -> str:
    return '"' + " ".join(tokens) + '"' + (" *" if prefix else "")


def _within(columns: tuple[str, ...], expression: str) -> str:
    return "{" + " ".join(columns) + "} : (" + expression + ")"


def _any(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def term_match(
    term: Term,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...],
    reading_columns: tuple[str, ...] = (),
) -> str:
    """A term as FTS5 finds it: the phrase of its pairs in `columns`, or of its words (long
    or short units) in `word_columns`, or of its readings in `reading_columns`."""
    found = [_within(columns, _phrase(term.tokens, term.prefix))]
    if term.words and word_columns:
        found.append(_within(word_columns, " OR ".join(_phrase(run) for run in term.words)))
    if reading_columns:
        if term.readings:
            found.append(by_reading(term, word_columns, reading_columns))
        if term.spellings:
            found.append(_within(columns, " OR ".join(_phrase(s) for s in term.spellings)))
    return _any(found)


def by_reading(term: Term, word_columns: tuple[str, ...], reading_columns: tuple[str, ...]) -> str:
    """A term found by its readings (and its anchors as words, in the same document)."""
    runs = term.reading_tokens
    readings = _within(reading_columns, " OR ".join(_phrase(run) for run in runs))
    if not term.anchors:
        return readings
    anchors = _within(word_columns, " AND ".join(_phrase((anchor,)) for anchor in term.anchors))
    return f"({readings} AND {anchors})"


def _pairs_only(term: Term, columns: tuple[str, ...]) -> str:
    return _within(columns, _phrase(term.tokens, term.prefix))


def _words_only(term: Term, columns: tuple[str, ...], word_columns: tuple[str, ...]) -> str:
    """A term by its words (a term without words, plain ASCII, by its tokens: words)."""
    if not term.words:
        return _pairs_only(term, columns)
    return _within(word_columns, " OR ".join(_phrase(run) for run in term.words))


def _excluding(
    positive: str,
    excluded: tuple[Term, ...],
    columns: tuple[str, ...],
    words: tuple[str, ...],
    readings: tuple[str, ...] = (),
) -> str:
    """`positive` without the documents holding an excluded term: as written or (given
    `readings`, the reading columns) by reading, -おおさか leaving out 大阪 too."""
    if not excluded:
        return positive
    out = _any([term_match(term, columns, words, readings) for term in excluded])
    return f"({positive}) NOT {out}"


def fts_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...] = (),
    excluded: tuple[Term, ...] = (),
    reading_columns: tuple[str, ...] = (),
) -> str:
    """The documents holding a term of every group (by pairs, words or, given
    `reading_columns`, readings) in `columns` (or their word and reading columns), and no
    excluded term."""
    positive = " AND ".join(
        _any([term_match(term, columns, word_columns, reading_columns) for term in group])
        for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns, reading_columns)


def fts_pairs_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...] = (),
    excluded: tuple[Term, ...] = (),
    reading_columns: tuple[str, ...] = (),
) -> str | None:
    """The documents holding every group by its terms' pairs alone (fewer than fts_match
    finds, and quicker to find for a common word); None when no term has words, as then
    it is fts_match."""
    if not any(term.words for group in groups for term in group):
        return None
    positive = " AND ".join(
        _any([_pairs_only(term, columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns, reading_columns)


def fts_words_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...],
    excluded: tuple[Term, ...] = (),
    reading_columns: tuple[str, ...] = (),
) -> str | None:
    """The documents holding every group as words (a plain ASCII term's tokens in
    `columns` are words); None when no term has words, as then it is fts_match."""
    if not any(term.words for group in groups for term in group):
        return None
    positive = " AND ".join(
        _any([_words_only(term, columns, word_columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns, reading_columns)


def fts_written_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...],
    excluded: tuple[Term, ...],
    reading_columns: tuple[str, ...],
) -> str | None:
    """The documents holding every group as written (pairs or words), not by reading: a
    subset of fts_match, ranked apart so that matches by reading never crowd a match as
    written out of the candidates; None when no term has readings, as then it is
    fts_match."""
    if not any(term.readings or term.spellings for group in groups for term in group):
        return None
    positive = " AND ".join(
        _any([term_match(term, columns, word_columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns, reading_columns)


def phrases(expression: str) -> list[tuple[str, bool]]:
    """The phrases of an expression made here, numbered as FTS5 numbers them (in the
    order they stand): each as its tokens joined by spaces, and whether it is a prefix."""
    found = []
    for part in _PARTS.finditer(expression):
        if part.group(1) is not None:
            found.append((part.group(1).replace('""', '"'), bool(part.group(2))))
        elif part.group(0)[0] != "{" and part.group(0) not in _OPERATORS:
            found.append((part.group(0), False))
    return found
