"""Matches the full-text index cannot find alone: a lone CJK character (no bigram to look
up) is looked for by a scan of the indexed tokens, where it stands inside its bigrams."""

from __future__ import annotations

from collections.abc import Sequence

from models.search.embedded.layout import FTS_COLUMNS, bounds, scope_token
from models.search.text import Term, fts_match

# Which full-text columns each search target covers.
TARGET_COLUMNS = {"subtitle": "text", "title": "title", "description": "description"}


def scan_rowids(
    terms: list[Term],
    columns: tuple[str, ...],
    channels: tuple[str, ...],
    keys: Sequence[int] = (),
) -> tuple[str, list[object]]:
    """SELECT rowid of the documents matching `terms`: the index answers the terms it can
    (and the channels), a scan of the indexed text (normalised tokens, where a lone CJK
    character appears inside its bigrams) the others.

    The scan reads the full-text table's content table (`documents_fts_content`, column
    cN for FTS_COLUMNS[N], `id` the rowid), a plain table, with instr(): a third of the
    cost of the same test through the full-text table with LIKE (300 ms for a million
    segments instead of 750). The scanned terms are CJK characters, which LIKE's case
    folding never touched, and the token columns are normalised: the same matches.
    `keys`: only these videos' documents (rowid ranges, read without a scan)."""
    indexed = [term for term in terms if not term.needs_scan]
    match = fts_match(indexed, columns) if indexed else ""
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
    for term in terms:
        if term.needs_scan:
            clauses.append("(" + " OR ".join(f"instr({c}, ?) > 0" for c in stored) + ")")
            params.extend([term.text] * len(stored))
    where = " AND ".join(clauses)
    return f"SELECT id AS rowid FROM documents_fts_content WHERE {where}", params
