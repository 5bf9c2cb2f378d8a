"""The `embedded` engine: SQLite FTS5 in its own file, the default.

Documents live in `documents`; their token columns (see text.py) in the FTS5 table
`documents_fts` with the same rowid. Channel filters are tokens of an extra `scope`
column, so the full-text index intersects them instead of scanning matches. A query
with a lone CJK character (no bigram to look up) falls back to a scan of the
normalised text.
"""

from __future__ import annotations

import hashlib
import html
import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from models.search.base import (
    Document,
    Hit,
    SearchError,
    SearchQuery,
    SearchResults,
    Segment,
)
from models.search.text import Term, crop, fts_match, highlight, index_text, normalize, parse_query

T = TypeVar("T")
# A page of results: (LIMIT, OFFSET).
Page = tuple[int, int]

SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS documents (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        video_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        video_title TEXT NOT NULL,
        channel_title TEXT NOT NULL,
        published_at TEXT NOT NULL,
        thumbnail_url TEXT,
        view_count INTEGER,
        subscriber_count INTEGER,
        text TEXT,
        start REAL,
        "end" REAL,
        title TEXT,
        description TEXT,
        norm_text TEXT,
        norm_title TEXT,
        norm_description TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_documents_video ON documents (video_id, start)",
    "CREATE INDEX IF NOT EXISTS idx_documents_channel ON documents (channel_id)",
    "CREATE INDEX IF NOT EXISTS idx_documents_published ON documents (published_at)",
    "CREATE INDEX IF NOT EXISTS idx_documents_views ON documents (view_count)",
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(
        text, title, description, scope,
        tokenize = 'unicode61 remove_diacritics 0'
    )
    """,
    # bm25 weights of text, title, description, scope as the table's default rank: a
    # title match ranks above a description match of the same strength.
    "INSERT INTO documents_fts (documents_fts, rank) VALUES ('rank', 'bm25(1.0, 3.0, 0.5, 0.0)')",
]

# Which FTS and scan columns each search target covers.
TARGET_COLUMNS = {"subtitle": "text", "title": "title", "description": "description"}
ORDER = {
    "relevance": "score, d.published_at DESC",
    "newest": "d.published_at DESC, score",
    "oldest": "d.published_at ASC, score",
    "views": "d.view_count IS NULL, d.view_count DESC, score",
}
COLUMNS = (
    "d.id, d.video_id, d.channel_id, d.kind, d.video_title, d.channel_title, d.published_at,"
    ' d.thumbnail_url, d.text, d.start, d."end", d.title, d.description'
)


def scope_token(channel_id: str) -> str:
    # Channel ids hold '-' and '_', which the FTS tokenizer would split on.
    return "c" + hashlib.sha1(channel_id.encode()).hexdigest()[:20]


def _like(term: Term) -> str:
    escaped = term.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class EmbeddedEngine:
    name = "embedded"

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()

    # -- connection ---------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = wal")
            conn.execute("PRAGMA synchronous = normal")
            conn.execute("PRAGMA busy_timeout = 30000")
            for statement in SCHEMA:
                conn.execute(statement)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._db()
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = work(conn)
            conn.execute("COMMIT")
            return result
        except sqlite3.Error as error:
            conn.execute("ROLLBACK") if conn.in_transaction else None
            raise SearchError(f"embedded index: {error}") from error

    # -- writes ---------------------------------------------------------------------

    def apply_settings(self) -> None:
        self._db()

    def replace_video_documents(self, video_id: str, documents: list[Document]) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._delete(conn, video_id)
            for doc in documents:
                cursor = conn.execute(
                    "INSERT INTO documents (id, video_id, channel_id, kind, video_title,"
                    " channel_title, published_at, thumbnail_url, view_count, subscriber_count,"
                    ' text, start, "end", title, description, norm_text, norm_title,'
                    " norm_description) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        doc.id,
                        doc.video_id,
                        doc.channel_id,
                        doc.kind,
                        doc.video_title,
                        doc.channel_title,
                        doc.published_at,
                        doc.thumbnail_url,
                        doc.view_count,
                        doc.subscriber_count,
                        doc.text,
                        doc.start,
                        doc.end,
                        doc.title,
                        doc.description,
                        normalize(doc.text or ""),
                        normalize(doc.title or ""),
                        normalize(doc.description or ""),
                    ),
                )
                conn.execute(
                    "INSERT INTO documents_fts (rowid, text, title, description, scope)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (
                        cursor.lastrowid,
                        index_text(doc.text),
                        index_text(doc.title),
                        index_text(doc.description),
                        scope_token(doc.channel_id),
                    ),
                )

        self._write(work)

    def _delete(self, conn: sqlite3.Connection, video_id: str) -> None:
        conn.execute(
            "DELETE FROM documents_fts WHERE rowid IN"
            " (SELECT rowid FROM documents WHERE video_id = ?)",
            (video_id,),
        )
        conn.execute("DELETE FROM documents WHERE video_id = ?", (video_id,))

    def delete_video_documents(self, video_id: str) -> None:
        self._write(lambda conn: self._delete(conn, video_id))

    def update_channel_documents(self, channel_id: str, values: Mapping[str, object]) -> int:
        allowed = {"subscriber_count", "channel_title"}
        unknown = set(values) - allowed
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by channel")
        assignments = ", ".join(f"{name} = ?" for name in values)

        def work(conn: sqlite3.Connection) -> int:
            return conn.execute(
                f"UPDATE documents SET {assignments} WHERE channel_id = ?",
                (*values.values(), channel_id),
            ).rowcount

        return self._write(work) if values else 0

    # -- reads ----------------------------------------------------------------------

    def search(self, query: SearchQuery) -> SearchResults:
        terms = parse_query(query.q)
        if not terms:
            return SearchResults(total_hits=0, hits=[], semantic_applied=False)
        columns = tuple(TARGET_COLUMNS[t] for t in query.targets)
        page = (query.per_page, (query.page - 1) * query.per_page)
        try:
            if any(term.needs_scan for term in terms):
                total_hits, rows = self._scan(terms, columns, query, page)
            else:
                total_hits, rows = self._indexed(terms, columns, query, page)
        except sqlite3.Error as error:
            raise SearchError(f"embedded search: {error}") from error
        hits = [self._hit(row, terms, query.targets) for row in rows]
        return SearchResults(total_hits=total_hits, hits=hits, semantic_applied=False)

    def _indexed(
        self, terms: list[Term], columns: tuple[str, ...], query: SearchQuery, page: Page
    ) -> tuple[int, list[sqlite3.Row]]:
        match = fts_match(terms, columns)
        if query.channels:
            match += " AND {scope} : (" + " OR ".join(scope_token(c) for c in query.channels) + ")"
        conn = self._db()
        total: int = conn.execute(
            "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (match,)
        ).fetchone()[0]
        if query.sort == "relevance":
            # Rank inside the full-text index and join only the page's rows.
            rows = conn.execute(
                f"SELECT {COLUMNS}, top.rank AS score FROM ("
                "  SELECT rowid, rank FROM documents_fts WHERE documents_fts MATCH ?"
                "  ORDER BY rank LIMIT ? OFFSET ?"
                ") AS top JOIN documents d ON d.rowid = top.rowid ORDER BY top.rank",
                (match, *page),
            ).fetchall()
        else:
            rows = conn.execute(
                f"SELECT {COLUMNS}, documents_fts.rank AS score FROM documents_fts"
                " JOIN documents d ON d.rowid = documents_fts.rowid"
                f" WHERE documents_fts MATCH ? ORDER BY {ORDER[query.sort]} LIMIT ? OFFSET ?",
                (match, *page),
            ).fetchall()
        return total, rows

    def _scan(
        self, terms: list[Term], columns: tuple[str, ...], query: SearchQuery, page: Page
    ) -> tuple[int, list[sqlite3.Row]]:
        clauses: list[str] = []
        params: list[str] = []
        for term in terms:
            ors = " OR ".join(f"d.norm_{column} LIKE ? ESCAPE '\\'" for column in columns)
            clauses.append(f"({ors})")
            params.extend([_like(term)] * len(columns))
        if query.channels:
            clauses.append(f"d.channel_id IN ({', '.join('?' * len(query.channels))})")
            params.extend(query.channels)
        where = " AND ".join(clauses)
        conn = self._db()
        counted = conn.execute(f"SELECT count(*) FROM documents d WHERE {where}", params)
        rows = conn.execute(
            f"SELECT {COLUMNS}, 0 AS score FROM documents d WHERE {where}"
            f" ORDER BY {ORDER[query.sort]} LIMIT ? OFFSET ?",
            (*params, *page),
        ).fetchall()
        total: int = counted.fetchone()[0]
        return total, rows

    def _hit(self, row: sqlite3.Row, terms: list[Term], targets: tuple[str, ...]) -> Hit:
        if row["kind"] == "subtitle":
            matched_in, text = "subtitle", row["text"] or ""
        else:
            title, description = row["title"] or "", row["description"] or ""
            title_matches = "title" in targets and highlight(title, terms) != _escaped(title)
            if title_matches or "description" not in targets:
                matched_in, text = "title", title
            else:
                matched_in, text = "description", crop(description, terms)
        return Hit(
            video_id=row["video_id"],
            video_title=row["video_title"],
            channel_id=row["channel_id"],
            channel_title=row["channel_title"],
            published_at=row["published_at"],
            thumbnail_url=row["thumbnail_url"],
            matched_in=matched_in,
            start=row["start"] if matched_in == "subtitle" else None,
            end=row["end"] if matched_in == "subtitle" else None,
            text=text,
            highlight=highlight(text, terms),
        )

    def video_segments(self, video_id: str) -> list[Segment]:
        rows = self._db().execute(
            "SELECT start, \"end\", text FROM documents WHERE video_id = ? AND kind = 'subtitle'"
            " ORDER BY start",
            (video_id,),
        )
        return [Segment(start=r["start"], end=r["end"], text=r["text"]) for r in rows]

    def health(self) -> dict[str, Any]:
        try:
            self._db().execute("SELECT 1").fetchone()
        except sqlite3.Error as error:
            raise SearchError(f"embedded index: {error}") from error
        return {"status": "available"}

    def keys(self) -> list[dict[str, str | None]]:
        return []  # an in-process index has no API keys

    def document_count(self) -> int:
        count: int = self._db().execute("SELECT count(*) FROM documents").fetchone()[0]
        return count


def _escaped(text: str) -> str:
    return html.escape(text)
