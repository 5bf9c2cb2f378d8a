"""A read query (query.py) as FTS5 MATCH expressions over the index's token columns.

Each term is the phrase of its tokens in the fields' pair columns, or of its words in
their word columns (text.py, analysis.py); a prefix term (word*) is its token as an FTS5
prefix. A group is the OR of its terms, the query the AND of its groups, and the
excluded terms are taken out with NOT, always as a whole (pairs or words), so the
narrower expressions below keep the same exclusions and stay subsets of fts_match.
"""

from __future__ import annotations

from models.search.text import Term

Groups = tuple[tuple[Term, ...], ...]


def _phrase(tokens: tuple[str, ...], prefix: bool = False) -> str:
    return '"' + " ".join(tokens) + '"' + (" *" if prefix else "")


def _within(columns: tuple[str, ...], expression: str) -> str:
    return "{" + " ".join(columns) + "} : (" + expression + ")"


def _any(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def term_match(term: Term, columns: tuple[str, ...], word_columns: tuple[str, ...]) -> str:
    """A term as FTS5 finds it: the phrase of its pairs in `columns`, or of its words (long
    or short units) in `word_columns`."""
    pairs = _within(columns, _phrase(term.tokens, term.prefix))
    if not term.words or not word_columns:
        return pairs
    words = _within(word_columns, " OR ".join(_phrase(run) for run in term.words))
    return f"({pairs} OR {words})"


def _pairs_only(term: Term, columns: tuple[str, ...]) -> str:
    return _within(columns, _phrase(term.tokens, term.prefix))


def _words_only(term: Term, columns: tuple[str, ...], word_columns: tuple[str, ...]) -> str:
    """A term by its words (a term without words, plain ASCII, by its tokens: words)."""
    if not term.words:
        return _pairs_only(term, columns)
    return _within(word_columns, " OR ".join(_phrase(run) for run in term.words))


def _excluding(
    positive: str, excluded: tuple[Term, ...], columns: tuple[str, ...], words: tuple[str, ...]
) -> str:
    if not excluded:
        return positive
    out = _any([term_match(term, columns, words) for term in excluded])
    return f"({positive}) NOT {out}"


def fts_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...] = (),
    excluded: tuple[Term, ...] = (),
) -> str:
    """The documents holding a term of every group (by pairs or words) in `columns` (or
    their `word_columns`), and no excluded term."""
    positive = " AND ".join(
        _any([term_match(term, columns, word_columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns)


def fts_pairs_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...] = (),
    excluded: tuple[Term, ...] = (),
) -> str | None:
    """The documents holding every group by its terms' pairs alone (fewer than fts_match
    finds, and quicker to find for a common word); None when no term has words, as then
    it is fts_match."""
    if not any(term.words for group in groups for term in group):
        return None
    positive = " AND ".join(
        _any([_pairs_only(term, columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns)


def fts_words_match(
    groups: Groups,
    columns: tuple[str, ...],
    word_columns: tuple[str, ...],
    excluded: tuple[Term, ...] = (),
) -> str | None:
    """The documents holding every group as words (a plain ASCII term's tokens in
    `columns` are words); None when no term has words, as then it is fts_match."""
    if not any(term.words for group in groups for term in group):
        return None
    positive = " AND ".join(
        _any([_words_only(term, columns, word_columns) for term in group]) for group in groups
    )
    return _excluding(positive, excluded, columns, word_columns)
