"""Matches the full-text index cannot find alone: a lone CJK character (no bigram to look
up) is looked for by a scan of the indexed tokens, where it stands inside its bigrams.
Each match says how many of the scanned characters it holds as words of their own (雨 in
雨が降る, not in 大雨 or 雨天), which ranks it first."""

from __future__ import annotations

from collections.abc import Sequence

from models.search.embedded.layout import FTS_COLUMNS, WORD_COLUMNS, bounds, scope_token
from models.search.text import Term, fts_match

# Which full-text columns each search target covers.
TARGET_COLUMNS = {"subtitle": "text", "title": "title", "description": "description"}


def scan_rowids(
    terms: list[Term],
    columns: tuple[str, ...],
    channels: tuple[str, ...],
    keys: Sequence[int] = (),
) -> tuple[str, list[object]]:
    """SELECT rowid, words of the documents matching `terms`: the index answers the terms
    it can (and the channels), a scan of the indexed text (normalised tokens, where a lone
    CJK character appears inside its bigrams) the others; `words` counts the scanned
    terms the document holds as a word token (in the fields' word columns, read only for
    the matches: the scan reads the pairs alone).

    The scan reads the full-text table's content table (`documents_fts_content`, column
    cN for FTS_COLUMNS[N], `id` the rowid), a plain table, with instr(): a third of the
    cost of the same test through the full-text table with LIKE (300 ms for a million
    segments instead of 750). The scanned terms are CJK characters, which LIKE's case
    folding never touched, and the token columns are normalised: the same matches.
    `keys`: only these videos' documents (rowid ranges, read without a scan)."""
    indexed = [term for term in terms if not term.needs_scan]
    words_in = tuple(WORD_COLUMNS[column] for column in columns)
    match = fts_match(indexed, columns, words_in) if indexed else ""
    if channels:
        scope = "{scope} : (" + " OR ".join(scope_token(c) for c in channels) + ")"
        match = f"{match} AND {scope}" if match else scope
    clauses: list[str] = (
        ["id IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)"] if match else []
    )
    params: list[object] = [match] if match else []
    if keys:
        clauses.append("(" + " OR ".join(["id BETWEEN ? AND ?"] * len(keys)) + ")")
        params.extend(bound for key in keys for bound in bounds(key))
    stored = [f"c{FTS_COLUMNS.index(column)}" for column in columns]
    stored_words = [f"c{FTS_COLUMNS.index(column)}" for column in words_in]
    flags: list[str] = []
    flag_params: list[object] = []
    for term in terms:
        if term.needs_scan:
            clauses.append("(" + " OR ".join(f"instr({c}, ?) > 0" for c in stored) + ")")
            params.extend([term.text] * len(stored))
            for word in {run[0] for run in term.words if len(run) == 1}:
                # a word token starts with its mark and is followed by a space, the last too
                held = " OR ".join(f"instr({c}, ?) > 0" for c in stored_words)
                flags.append(f"({held})")
                flag_params.extend([f"{word} "] * len(stored_words))
    where = " AND ".join(clauses)
    words = " + ".join(flags) or "0"
    return (
        f"SELECT id AS rowid, {words} AS words FROM documents_fts_content WHERE {where}",
        [*flag_params, *params],
    )
