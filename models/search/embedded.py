"""The `embedded` engine: SQLite FTS5 in its own file, the default.

Documents live in `documents`; their token columns (see text.py) in the FTS5 table
`documents_fts` with the same rowid, which is the video's key (table `videos`) shifted
left plus the document's place in the video: a video's documents are one rowid range,
and the full-text index groups matches by video without reading a row. Channel filters
are tokens of an extra `scope` column, so the full-text index intersects them instead of
scanning matches. A query with a lone CJK character (no bigram to look up) falls back to
a scan of the indexed tokens.
"""

from __future__ import annotations

import functools
import hashlib
import html
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from models.search.base import (
    MOMENTS_PER_VIDEO,
    TOTAL_VIDEOS_CAP,
    Document,
    Hit,
    SearchError,
    SearchQuery,
    SearchResults,
    Segment,
    VideoHit,
    VideoResults,
)
from models.search.moments import merge_overlapping
from models.search.segments import transcript
from models.search.text import (
    Term,
    crop,
    fts_match,
    highlight,
    index_text,
    join_texts,
    match_spans,
    parse_query,
    tokens,
)

T = TypeVar("T")
# One video's scores: its video document's (None when it did not match), and its best
# segments' by rowid, best first.
Scores = tuple[float | None, dict[int, float]]
# A page of results: (LIMIT, OFFSET).
Page = tuple[int, int]

# The layout of the index file; a file of another version is emptied when opened and
# filled again by `subtitles search reindex`.
LAYOUT_VERSION = 3
TABLES = ("documents_fts", "documents", "videos")
# Pages of write-ahead log between automatic checkpoints (40 MB at 4 KiB a page).
WAL_PAGES = 10_000
# A document's rowid is its video's key shifted left by this many bits plus its place in
# the video (0 for the video document), so the full-text index groups by video without
# reading a row.
VIDEO_SHIFT = 20
PLACES = (1 << VIDEO_SHIFT) - 1
SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS videos (
        key INTEGER PRIMARY KEY,
        video_id TEXT NOT NULL UNIQUE,
        channel_id TEXT NOT NULL,
        published_at TEXT NOT NULL,
        view_count INTEGER
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS documents (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
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
        description TEXT
    )
    """,
    # Documents are reached by rowid (a video's are one range), so they need no other
    # index: each one would cost every write.
    "CREATE INDEX IF NOT EXISTS idx_videos_channel ON videos (channel_id)",
    "CREATE INDEX IF NOT EXISTS idx_videos_published ON videos (published_at)",
    "CREATE INDEX IF NOT EXISTS idx_videos_views ON videos (view_count)",
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


@functools.lru_cache(maxsize=4096)
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
            # Checkpoint every WAL_PAGES pages instead of SQLite's 1,000: pages written by
            # many small transactions (the full-text index's structure, the last pages of
            # each table) go to the file once per checkpoint, and each checkpoint syncs.
            conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES}")
            _lay_out(conn)
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
        self.replace_many_videos({video_id: documents})

    def replace_many_videos(self, videos: Mapping[str, list[Document]]) -> None:
        """replace_video_documents for several videos in one transaction: what a reindex
        writes, faster than one transaction a video."""

        def work(conn: sqlite3.Connection) -> None:
            for video_id, documents in videos.items():
                self._delete(conn, video_id)
                if not documents:
                    conn.execute("DELETE FROM videos WHERE video_id = ?", (video_id,))
                    continue
                base = _video_key(conn, video_id, documents[0]) << VIDEO_SHIFT
                rowids = [base + place for place in _places(documents)]
                conn.executemany(
                    "INSERT INTO documents (rowid, id, video_id, channel_id, kind, video_title,"
                    " channel_title, published_at, thumbnail_url, view_count, subscriber_count,"
                    ' text, start, "end", title, description)'
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    map(_document_row, rowids, documents),
                )
                conn.executemany(
                    "INSERT INTO documents_fts (rowid, text, title, description, scope)"
                    " VALUES (?, ?, ?, ?, ?)",
                    map(_fts_row, rowids, documents),
                )

        self._write(work)

    def _delete(self, conn: sqlite3.Connection, video_id: str) -> None:
        for key in conn.execute("SELECT key FROM videos WHERE video_id = ?", (video_id,)):
            bounds = _bounds(key[0])
            conn.execute("DELETE FROM documents_fts WHERE rowid BETWEEN ? AND ?", bounds)
            conn.execute("DELETE FROM documents WHERE rowid BETWEEN ? AND ?", bounds)

    def delete_video_documents(self, video_id: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._delete(conn, video_id)
            conn.execute("DELETE FROM videos WHERE video_id = ?", (video_id,))

        self._write(work)

    def update_channel_documents(self, channel_id: str, values: Mapping[str, object]) -> int:
        allowed = {"subscriber_count", "channel_title"}
        unknown = set(values) - allowed
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by channel")
        assignments = ", ".join(f"{name} = ?" for name in values)

        def work(conn: sqlite3.Connection) -> int:
            keys = conn.execute("SELECT key FROM videos WHERE channel_id = ?", (channel_id,))
            return sum(
                conn.execute(
                    f"UPDATE documents SET {assignments} WHERE rowid BETWEEN ? AND ?",
                    (*values.values(), *_bounds(key)),
                ).rowcount
                for (key,) in keys.fetchall()
            )

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
        matching, params = scan_rowids(terms, columns, query.channels)
        where = f"d.rowid IN ({matching})"
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

    # -- reads grouped by video ------------------------------------------------------

    def search_videos(self, query: SearchQuery) -> VideoResults:
        terms = parse_query(query.q)
        if not terms:
            return VideoResults(total_videos=0, more_than_cap=False, videos=[])
        columns = tuple(TARGET_COLUMNS[t] for t in query.targets)
        page = (query.per_page, (query.page - 1) * query.per_page)
        try:
            if any(term.needs_scan for term in terms):
                finder: _Finder = _ScanFinder(self._db(), terms, columns, query.channels)
            else:
                finder = _IndexFinder(self._db(), terms, columns, query.channels)
            total, keys = finder.videos(query.sort, page)
            scores: dict[int, Scores] = {key: (None, {}) for key in keys}
            scores.update(finder.scores(keys) if keys else {})
            rows = self._rows(
                [rowid for key in keys for rowid in (key << VIDEO_SHIFT, *scores[key][1])]
            )
            videos = [
                video
                for key in keys
                if (video := _video_hit(scores[key], key, rows, terms, query.targets))
            ]
        except sqlite3.Error as error:
            raise SearchError(f"embedded search: {error}") from error
        return VideoResults(
            total_videos=min(total, TOTAL_VIDEOS_CAP),
            more_than_cap=total > TOTAL_VIDEOS_CAP,
            videos=videos,
            semantic_applied=False,
        )

    def _rows(self, rowids: list[int]) -> dict[int, sqlite3.Row]:
        found: dict[int, sqlite3.Row] = {}
        for first in range(0, len(rowids), 500):  # within SQLite's limit on parameters
            batch = rowids[first : first + 500]
            found.update(
                (row["rowid"], row)
                for row in self._db().execute(
                    f"SELECT d.rowid AS rowid, {COLUMNS} FROM documents d"
                    f" WHERE d.rowid IN ({', '.join('?' * len(batch))})",
                    batch,
                )
            )
        return found

    def video_segments(self, video_id: str) -> list[Segment]:
        rows = self._db().execute(
            'SELECT start, "end", text FROM documents WHERE rowid BETWEEN ? AND ?'
            " AND kind = 'subtitle' ORDER BY start",
            _bounds(self._key(video_id)),
        )
        return transcript([Segment(start=r["start"], end=r["end"], text=r["text"]) for r in rows])

    def _key(self, video_id: str) -> int:
        found = self._db().execute("SELECT key FROM videos WHERE video_id = ?", (video_id,))
        row = found.fetchone()
        return row[0] if row is not None else -1

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


# -- finding videos ----------------------------------------------------------------------

# Extra score of a document holding the query's words as one contiguous phrase: more than
# bm25 gives any document, so an exact phrase beats scattered words.
PHRASE_BONUS = 1000.0
# Segments of one video read to choose its moments (overlapping ones merge into one).
CANDIDATES = 2 * MOMENTS_PER_VIDEO
# Matches ranked by bm25 for a page by relevance (see _IndexFinder._by_relevance).
RANKED = 800
# Ties go to the latest indexed video. Each order but relevance is an index on videos
# read in one direction (a NULL view count sorts last in DESC), so a page of probed videos
# (_IndexFinder._probed) stops after the page instead of sorting every video.
VIDEO_ORDER = {
    "relevance": "score DESC, v.published_at DESC, v.key DESC",
    "newest": "v.published_at DESC, v.key DESC",
    "oldest": "v.published_at ASC, v.key ASC",
    "views": "v.view_count DESC, v.key DESC",
}


class _Finder(Protocol):
    def videos(self, sort: str, page: Page) -> tuple[int, list[int]]:
        """How many videos match (exact up to TOTAL_VIDEOS_CAP, more beyond) and the
        keys of the page's videos in order."""

    def scores(self, keys: list[int]) -> dict[int, Scores]:
        """For each video: its video document's score (None when it did not match) and
        its best matching segments' rowids with their scores, best first (higher is
        better)."""


class _IndexFinder:
    """Videos through the full-text index: rowids carry the video key, so grouping reads
    no row; bm25 (as `rank`) is computed only where the order needs it."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[Term],
        columns: tuple[str, ...],
        channels: tuple[str, ...],
    ) -> None:
        self.conn = conn
        scope = ""
        if channels:
            scope = " AND {scope} : (" + " OR ".join(scope_token(c) for c in channels) + ")"
        self.match = fts_match(terms, columns) + scope
        phrase = phrase_term(terms)
        self.phrase = fts_match([phrase], columns) + scope if phrase else None
        self.ranked: dict[int, Scores] = {}  # the page's scores, when ranking found them
        # Title and description matches, ranked apart so a title alone still lists its
        # video however many segments match.
        meta_columns = tuple(c for c in columns if c != "text")
        self.meta = (
            fts_match(terms, meta_columns) + scope
            if meta_columns and len(meta_columns) < len(columns)
            else None
        )

    def _scored(self, match: str, where: str = "") -> tuple[str, list[object]]:
        """SELECT rowid, score over the documents `match` finds (higher is better): -bm25,
        plus PHRASE_BONUS where the query's words stand as one phrase."""
        if self.phrase is None:
            return (
                "SELECT rowid, -rank AS score FROM documents_fts"
                f" WHERE documents_fts MATCH ?{where}",
                [match],
            )
        return (
            "SELECT rowid, -rank + CASE WHEN rowid IN (SELECT rowid FROM documents_fts"
            f" WHERE documents_fts MATCH ?{where}) THEN {PHRASE_BONUS} ELSE 0 END AS score"
            f" FROM documents_fts WHERE documents_fts MATCH ?{where}",
            [self.phrase, match],
        )

    def videos(self, sort: str, page: Page) -> tuple[int, list[int]]:
        total = self._count()
        if not total:
            return 0, []
        if sort == "relevance":
            keys = self._by_relevance(page)
            if len(keys) < page[0] and total > page[1] + len(keys):
                keys += self._beyond_ranked(page, len(keys))
            return total, keys
        if total > TOTAL_VIDEOS_CAP:
            return total, self._probed(sort, page)
        rows = self.conn.execute(
            f"SELECT g.vkey FROM (SELECT DISTINCT rowid >> {VIDEO_SHIFT} AS vkey"
            " FROM documents_fts WHERE documents_fts MATCH ?) AS g"
            f" JOIN videos v ON v.key = g.vkey ORDER BY {VIDEO_ORDER[sort]} LIMIT ? OFFSET ?",
            (self.match, *page),
        )
        return total, [row["vkey"] for row in rows]

    def _candidates(self) -> tuple[str, list[object]]:
        """SELECT rowid, score of the matches bm25 ranks: the RANKED latest indexed, half
        as many of the phrase's and a quarter of the titles' and descriptions'."""
        parts, params = [], []
        for match, share in ((self.match, 1), (self.phrase, 2), (self.meta, 4)):
            if match is not None:
                scored, bound = self._scored(match)
                limit = RANKED // share
                parts.append(f"SELECT * FROM ({scored} ORDER BY rowid DESC LIMIT {limit})")
                params.extend(bound)
        return " UNION ALL ".join(parts), params

    def _by_relevance(self, page: Page) -> list[int]:
        """Videos by their best segment's score plus their video document's. bm25 costs a
        few microseconds a row (and a count of every match of each term), so it ranks
        only the candidates: exact for a query matching fewer, and beyond that the
        videos left out come after, newest first (_beyond_ranked)."""
        union, params = self._candidates()
        # The candidates once (materialized: each full-text cursor also counts every
        # match of its terms for bm25), grouped by video, and the page's videos' rows.
        rows = self.conn.execute(
            f"WITH c AS MATERIALIZED ({union}),"
            f" g AS (SELECT rowid >> {VIDEO_SHIFT} AS vkey,"
            f" coalesce(max(CASE WHEN rowid & {PLACES} THEN score END), 0)"
            f" + coalesce(max(CASE WHEN rowid & {PLACES} = 0 THEN score END), 0) AS score"
            " FROM c GROUP BY vkey),"
            " p AS (SELECT v.key AS vkey, row_number() OVER ("
            f" ORDER BY {VIDEO_ORDER['relevance']}) AS place FROM g JOIN videos v"
            f" ON v.key = g.vkey ORDER BY {VIDEO_ORDER['relevance']} LIMIT ? OFFSET ?)"
            f" SELECT p.vkey, c.rowid, max(c.score) AS score FROM p JOIN c"
            f" ON c.rowid >> {VIDEO_SHIFT} = p.vkey GROUP BY c.rowid ORDER BY p.place, score DESC",
            (*params, *page),
        ).fetchall()
        keys = list(dict.fromkeys(row["vkey"] for row in rows))
        self.ranked = _split((row["rowid"], row["score"]) for row in rows)
        for key, (meta, segments) in self.ranked.items():
            best = dict(list(segments.items())[:CANDIDATES])
            self.ranked[key] = (meta, best)
        return keys

    def _beyond_ranked(self, page: Page, found: int) -> list[int]:
        """The rest of a relevance page past the ranked videos: the other matching
        videos, newest first."""
        union, params = self._candidates()
        ranked = {
            row[0]
            for row in self.conn.execute(f"SELECT rowid >> {VIDEO_SHIFT} FROM ({union})", params)
        }
        per_page, offset = page
        skip = max(0, offset - len(ranked))
        keys: list[int] = []
        for row in self.conn.execute(
            "SELECT v.key FROM videos v WHERE EXISTS (SELECT 1 FROM documents_fts"
            " WHERE documents_fts MATCH ? AND rowid BETWEEN v.key << ? AND (v.key << ?) | ?)"
            f" ORDER BY {VIDEO_ORDER['newest']}",
            (self.match, VIDEO_SHIFT, VIDEO_SHIFT, PLACES),
        ):
            if row[0] in ranked:
                continue
            if skip:
                skip -= 1
                continue
            keys.append(row[0])
            if len(keys) == per_page - found:
                break
        return keys

    def _probed(self, sort: str, page: Page) -> list[int]:
        """Videos in the sort's order, each asked whether it matches: quick when many do,
        which is when this is used (more than TOTAL_VIDEOS_CAP match)."""
        rows = self.conn.execute(
            "SELECT v.key AS vkey FROM videos v WHERE EXISTS (SELECT 1 FROM documents_fts"
            " WHERE documents_fts MATCH ? AND rowid BETWEEN v.key << ? AND (v.key << ?) | ?)"
            f" ORDER BY {VIDEO_ORDER[sort]} LIMIT ? OFFSET ?",
            (self.match, VIDEO_SHIFT, VIDEO_SHIFT, PLACES, *page),
        )
        return [row["vkey"] for row in rows]

    def _count(self) -> int:
        counted: int = self.conn.execute(
            f"SELECT count(*) FROM (SELECT DISTINCT rowid >> {VIDEO_SHIFT} FROM documents_fts"
            " WHERE documents_fts MATCH ? LIMIT ?)",
            (self.match, TOTAL_VIDEOS_CAP + 1),
        ).fetchone()[0]
        return counted

    def scores(self, keys: list[int]) -> dict[int, Scores]:
        if all(key in self.ranked for key in keys):
            return self.ranked
        # One statement for the page: bm25 looks up each term's document count once
        # per statement, which costs more than the rows themselves for a common word.
        scored, params = self._scored(self.match, " AND rowid BETWEEN ? AND ?")
        bounds = [min(keys) << VIDEO_SHIFT, (max(keys) << VIDEO_SHIFT) | PLACES]
        if self.phrase is not None:
            params = [params[0], *bounds, params[1], *bounds]
        else:
            params = [*params, *bounds]
        rows = self.conn.execute(
            f"SELECT rowid, score FROM (SELECT rowid, score, row_number() OVER ("
            f" PARTITION BY rowid >> {VIDEO_SHIFT}, rowid & {PLACES} = 0"
            f" ORDER BY score DESC) AS n FROM ({scored}"
            f" AND rowid >> {VIDEO_SHIFT} IN ({', '.join('?' * len(keys))})))"
            f" WHERE n <= {CANDIDATES} ORDER BY score DESC",
            (*params, *keys),
        )
        return _split(rows)


class _ScanFinder:
    """Videos through a scan of the indexed text, for a query the index cannot answer
    alone (a lone CJK character); no score, relevance falls back to the newest first."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[Term],
        columns: tuple[str, ...],
        channels: tuple[str, ...],
    ) -> None:
        self.conn = conn
        self.matching, self.params = scan_rowids(terms, columns, channels)

    def videos(self, sort: str, page: Page) -> tuple[int, list[int]]:
        order = VIDEO_ORDER[sort].replace("score DESC, ", "")
        grouped = f"SELECT DISTINCT rowid >> {VIDEO_SHIFT} AS vkey FROM ({self.matching})"
        rows = self.conn.execute(
            f"SELECT g.vkey, count(*) OVER () AS total FROM ({grouped}) AS g"
            f" JOIN videos v ON v.key = g.vkey ORDER BY {order} LIMIT ? OFFSET ?",
            (*self.params, *page),
        ).fetchall()
        if rows:
            return rows[0]["total"], [row["vkey"] for row in rows]
        counted: int = self.conn.execute(
            f"SELECT count(*) FROM ({grouped} LIMIT ?)", (*self.params, TOTAL_VIDEOS_CAP + 1)
        ).fetchone()[0]
        return counted, []

    def scores(self, keys: list[int]) -> dict[int, Scores]:
        rows = self.conn.execute(
            f"SELECT rowid, 0.0 AS score FROM (SELECT rowid, row_number() OVER ("
            f" PARTITION BY rowid >> {VIDEO_SHIFT} ORDER BY rowid) AS n FROM ({self.matching})"
            f" WHERE rowid >> {VIDEO_SHIFT} IN ({', '.join('?' * len(keys))}))"
            f" WHERE n <= {CANDIDATES + 1} ORDER BY rowid",
            (*self.params, *keys),
        )
        return _split(rows)


def _split(rows: Iterable[tuple[int, float]]) -> dict[int, Scores]:
    """Scored rows of several videos as each video's Scores."""
    found: dict[int, Scores] = {}
    for rowid, score in rows:
        key = rowid >> VIDEO_SHIFT
        segments = found.setdefault(key, (None, {}))[1]
        if rowid & PLACES:
            segments[rowid] = score
        else:
            found[key] = (score, segments)
    return found


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


def _bounds(key: int) -> tuple[int, int]:
    """The rowids of a video's documents."""
    return key << VIDEO_SHIFT, (key << VIDEO_SHIFT) | PLACES


def _video_hit(
    scores: Scores,
    key: int,
    rows: Mapping[int, sqlite3.Row],
    terms: list[Term],
    targets: tuple[str, ...],
) -> VideoHit | None:
    """One video of the page from its scores and rows; None if it has gone meanwhile."""
    meta_score, segments = scores
    # Highlighting is the costly part of a hit: only the moments kept get it.
    scored = [(score, _moment(rows[rowid])) for rowid, score in segments.items() if rowid in rows]
    moments = [replace(hit, highlight=highlight(hit.text, terms)) for hit in best_moments(scored)]
    meta = rows.get(key << VIDEO_SHIFT)
    matched = ["subtitle"] if moments else []
    if meta is not None and meta_score is not None:
        matched.extend(_meta_matches(meta, terms, targets))
    shown = meta if meta is not None else next((rows[r] for r in segments if r in rows), None)
    if shown is None:
        return None
    return VideoHit(
        video_id=shown["video_id"],
        video_title=shown["video_title"],
        channel_id=shown["channel_id"],
        channel_title=shown["channel_title"],
        published_at=shown["published_at"],
        thumbnail_url=shown["thumbnail_url"],
        score=max(segments.values(), default=0.0) + (meta_score or 0.0),
        moments=moments,
        matched_in=tuple(matched),
    )


def _moment(row: sqlite3.Row) -> Hit:
    """A subtitle hit, not highlighted yet."""
    return Hit(
        video_id=row["video_id"],
        video_title=row["video_title"],
        channel_id=row["channel_id"],
        channel_title=row["channel_title"],
        published_at=row["published_at"],
        thumbnail_url=row["thumbnail_url"],
        matched_in="subtitle",
        start=row["start"],
        end=row["end"],
        text=row["text"] or "",
        highlight="",
    )


def best_moments(scored: list[tuple[float, Hit]]) -> list[Hit]:
    """The best moments first, hits of overlapping segments folded into one."""
    ranked = sorted(scored, key=lambda pair: (-pair[0], pair[1].start or 0.0))
    return merge_overlapping([hit for _, hit in ranked])[:MOMENTS_PER_VIDEO]


def phrase_term(terms: list[Term]) -> Term | None:
    """The query's words as one contiguous phrase, when it has several terms."""
    if len(terms) < 2:
        return None
    joined = join_texts([term.text for term in terms])
    return Term(text=joined, tokens=tuple(tokens(joined)))


def _meta_matches(row: sqlite3.Row, terms: list[Term], targets: tuple[str, ...]) -> list[str]:
    """Which of the video document's fields hold a match."""
    return [
        target
        for target in ("title", "description")
        if target in targets and match_spans(row[target] or "", terms)
    ]


# -- layout and rows ----------------------------------------------------------------------


def _lay_out(conn: sqlite3.Connection) -> None:
    """Create the tables; a file laid out by another version is emptied first (its
    documents come back with a reindex)."""
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == LAYOUT_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table in TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")
        conn.execute("COMMIT")
    except sqlite3.Error:
        conn.execute("ROLLBACK")
        raise


def _video_key(conn: sqlite3.Connection, video_id: str, document: Document) -> int:
    """The video's key, kept across replacements; a new video gets the next one."""
    key: int = conn.execute(
        "INSERT INTO videos (video_id, channel_id, published_at, view_count) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (video_id) DO UPDATE SET channel_id = excluded.channel_id,"
        " published_at = excluded.published_at, view_count = excluded.view_count RETURNING key",
        (video_id, document.channel_id, document.published_at, document.view_count),
    ).fetchone()[0]
    return key


def _places(documents: list[Document]) -> list[int]:
    """Each document's place in its video: 0 for the video document, then 1, 2, ..."""
    places, subtitles = [], 0
    for doc in documents:
        if doc.kind == "video":
            places.append(0)
        else:
            subtitles += 1
            places.append(subtitles)
    if subtitles > PLACES:
        raise SearchError(f"a video holds at most {PLACES} segments")
    return places


def _document_row(rowid: int, doc: Document) -> tuple[object, ...]:
    return (
        rowid,
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
    )


def _fts_row(rowid: int, doc: Document) -> tuple[object, ...]:
    return (
        rowid,
        index_text(doc.text) if doc.text else "",
        index_text(doc.title) if doc.title else "",
        index_text(doc.description) if doc.description else "",
        scope_token(doc.channel_id),
    )
