"""Hits one by one (the flat answer): every matching document counted, a page of them in
the order asked (matching.py says how each order is found)."""

from __future__ import annotations

import html
import itertools
import sqlite3

from models.search.base import Hit, SearchQuery, SearchResults
from models.search.embedded import layout
from models.search.embedded.filters import VideoFilter, video_filter
from models.search.embedded.layout import (
    FTS_COLUMNS,
    READING_COLUMNS,
    VIDEO_SHIFT,
    WORD_COLUMNS,
    video_key,
)
from models.search.embedded.matching import EVERY, RANKED, VIDEO_ORDER, Matching, in_sort_order
from models.search.embedded.meaning import NEIGHBOURS, Meaning, fuse
from models.search.embedded.scan import TARGET_COLUMNS, needs_scan, scan_rowids
from models.search.highlight import Indexed, crop, highlight
from models.search.query import Query
from models.search.text import Term

# A page of results: (LIMIT, OFFSET).
Page = tuple[int, int]


def search_hits(
    conn: sqlite3.Connection, query: SearchQuery, meant: Meaning | None = None
) -> SearchResults:
    read = query.read
    terms = read.terms
    if not terms and meant is None:
        return SearchResults(total_hits=0, hits=[], semantic_applied=False)
    columns = tuple(TARGET_COLUMNS[t] for t in query.targets)
    page = (query.per_page, (query.page - 1) * query.per_page)
    if meant is not None:
        total, rowids = _with_meaning(conn, query, read, columns, meant, page)
    else:
        total, rowids = _keyword_page(conn, query, read, columns, page)
    rows = layout.rows_in_order(layout.document_rows(conn, rowids), rowids)
    # The page's word columns tell highlight where the words are (highlight.match_spans).
    indexed = layout.token_columns(conn, rowids) if rowids else {}
    hits = [_hit(row, terms, query.targets, indexed.get(row["rowid"])) for row in rows]
    return SearchResults(total_hits=total, hits=hits, semantic_applied=meant is not None)


def _keyword_page(
    conn: sqlite3.Connection,
    query: SearchQuery,
    read: Query,
    columns: tuple[str, ...],
    page: Page,
) -> tuple[int, list[int]]:
    """The keyword answer: how many documents match and the page's, in the order asked."""
    passing = video_filter(read.filters)
    if needs_scan(read):
        return _scanned(conn, read, columns, query, page, passing)
    matching = Matching(conn, read, columns, query.channels, passing)
    latest = matching.latest_matches()
    if latest is not None and len(latest) <= EVERY:
        return len(latest), _among(conn, matching, latest, query.sort, page)
    total = matching.documents()
    if not total:
        return 0, []
    if query.sort == "relevance":
        return total, _by_relevance(matching, page, total, latest[:RANKED] if latest else None)
    in_order = matching.in_order(query.sort, total)
    return total, list(itertools.islice(in_order, page[1], sum(page)))


def _with_meaning(
    conn: sqlite3.Connection,
    query: SearchQuery,
    read: Query,
    columns: tuple[str, ...],
    meant: Meaning,
    page: Page,
) -> tuple[int, list[int]]:
    """The documents of both sides to the page's depth, fused by `sr` for relevance
    (meaning.fuse) or in the sort's order (then by rowid) for the others."""
    per_page, offset = page
    depth = offset + per_page
    keyword_total, keyword = 0, list[int]()
    if meant.keywords_count and read.terms:
        keyword_total, keyword = _keyword_page(conn, query, read, columns, (depth, 0))
    passing = video_filter(read.filters)
    found = [
        rowid
        for rowid, _ in meant.neighbours(
            conn, query.targets, query.channels, max(NEIGHBOURS, depth), passing
        )
    ]
    if query.sort == "relevance":
        ranked = [rowid for rowid, _ in fuse(keyword, found, meant.sr)]
    else:
        ranked = in_sort_order(conn, [*keyword, *found], query.sort, VIDEO_SHIFT)
    only_meant = len(set(found) - set(keyword))
    return keyword_total + only_meant, ranked[offset:depth]


def _among(
    conn: sqlite3.Connection, matching: Matching, every: list[int], sort: str, page: Page
) -> list[int]:
    """The page when `every` is all the query's matches: scored for relevance, in their
    videos' order for the other sorts."""
    per_page, offset = page
    if sort == "relevance":
        scores = matching.scores(every)
        return matching.best_first(scores, video_key, offset + per_page)[offset:]
    return in_sort_order(conn, every, sort, VIDEO_SHIFT)[offset : offset + per_page]


def _by_relevance(
    matching: Matching, page: Page, total: int, candidates: list[int] | None = None
) -> list[int]:
    """The candidates (matching.py's, unless given) by score, then the newest video's
    first; past them, the other matches newest first."""
    scores = matching.scores(candidates if candidates is not None else matching.candidates())
    per_page, offset = page
    found = matching.best_first(scores, video_key, offset + per_page)[offset:]
    if len(found) == per_page or total <= offset + len(found):
        return found
    skip = max(0, offset - len(scores))
    rest = (rowid for rowid in matching.in_order("newest", total) if rowid not in scores)
    return found + list(itertools.islice(rest, skip, skip + per_page - len(found)))


def _scanned(
    conn: sqlite3.Connection,
    read: Query,
    columns: tuple[str, ...],
    query: SearchQuery,
    page: Page,
    passing: VideoFilter | None,
) -> tuple[int, list[int]]:
    """Matches through a scan (scan.py): relevance is the matches holding the characters
    as words first, each part newest first. One scan finds the page and the count (a
    second one only for a page past the last)."""
    matching, params = scan_rowids(read, columns, query.channels, passing=passing)
    order = VIDEO_ORDER.get(query.sort, VIDEO_ORDER["newest"])
    if query.sort == "relevance":
        order = f"m.words DESC, {order}"
    found = conn.execute(
        f"SELECT m.rowid, count(*) OVER () AS total FROM ({matching}) AS m JOIN videos v"
        f" ON v.key = m.rowid >> {VIDEO_SHIFT} ORDER BY {order}, m.rowid LIMIT ? OFFSET ?",
        (*params, *page),
    ).fetchall()
    if found:
        return found[0][1], [row[0] for row in found]
    if not page[1]:
        return 0, []
    total: int = conn.execute(f"SELECT count(*) FROM ({matching})", params).fetchone()[0]
    return total, []


def _hit(
    row: sqlite3.Row,
    terms: list[Term],
    targets: tuple[str, ...],
    columns: tuple[str, ...] | None,
) -> Hit:
    def words_of(field: str) -> Indexed | None:
        if not columns:
            return None
        return Indexed(
            columns[FTS_COLUMNS.index(WORD_COLUMNS[field])],
            columns[FTS_COLUMNS.index(READING_COLUMNS[field])],
        )

    if row["kind"] == "subtitle":
        matched_in, text = "subtitle", row["text"] or ""
    else:
        title, description = row["title"] or "", row["description"] or ""
        title_matches = "title" in targets and highlight(
            title, terms, words_of("title")
        ) != html.escape(title)
        if title_matches or "description" not in targets:
            matched_in, text = "title", title
        else:
            indexed = words_of("description")
            matched_in, text = "description", crop(description, terms, indexed=indexed)
    field = "text" if matched_in == "subtitle" else matched_in
    return Hit(
        **layout.video_fields(row),
        matched_in=matched_in,
        start=row["start"] if matched_in == "subtitle" else None,
        end=row["end"] if matched_in == "subtitle" else None,
        text=text,
        highlight=highlight(text, terms, words_of(field)),
    )
