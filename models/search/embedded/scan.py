"""Matches the full-text index cannot find alone: a lone CJK character (no bigram to look
up) is looked for by a scan of the indexed tokens, where it stands inside its bigrams."""

from __future__ import annotations

from models.search.embedded.layout import scope_token
from models.search.text import Term, fts_match

# Which full-text columns each search target covers.
TARGET_COLUMNS = {"subtitle": "text", "title": "title", "description": "description"}


def scan_rowids(
    terms: list[Term], columns: tuple[str, ...], channels: tuple[str, ...]
) -> tuple[str, list[str]]:
    """SELECT rowid of the documents matching `terms`: the index answers the terms it can
    (and the channels), a scan of the indexed text (normalised tokens, where a lone CJK
    character appears inside its bigrams) the others."""
    indexed = [term for term in terms if not term.needs_scan]
    match = fts_match(indexed, columns) if indexed else ""
    if channels:
        scope = "{scope} : (" + " OR ".join(scope_token(c) for c in channels) + ")"
        match = f"{match} AND {scope}" if match else scope
    clauses: list[str] = ["documents_fts MATCH ?"] if match else []
    params: list[str] = [match] if match else []
    for term in terms:
        if term.needs_scan:
            clauses.append("(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")")
            params.extend([_like(term)] * len(columns))
    return f"SELECT rowid FROM documents_fts WHERE {' AND '.join(clauses)}", params


def _like(term: Term) -> str:
    escaped = term.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
