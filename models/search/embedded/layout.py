"""The embedded index's file: its tables, how documents become rows, and the reads every
query shares.

A video's fields live once, in `videos`; its subtitle segments in `segments`; the token
columns of both in the FTS5 table `documents_fts`: for each field its character pairs and
Latin words (see text.py, columns.py), and apart, in a column of its own, its Japanese words
(analysis.py), so a scan for a lone character reads the pairs only. A document's rowid is
its video's key shifted left by VIDEO_SHIFT bits plus its place in the video (0 for the
video document, 1, 2, ... for its segments): a video's documents are one rowid range, and
the full-text index groups matches by video without reading a row. Channel filters are
tokens of an extra `scope` column, so the full-text index intersects them instead of
scanning matches.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from models.search.base import Document, IndexedVideo, IndexNotReady, SearchError
from models.search.embedded.columns import index_text

# The layout of the file. Only `subsearch db upgrade` (set_up) creates it or lays out a
# file of another version again; an engine that opens a file of another version neither
# writes to it nor searches it (IndexNotReady).
# 5: video keys are never reused (AUTOINCREMENT); each video keeps its fingerprint.
# 6: Japanese words (analysis.py) are indexed beside the character pairs.
# 7: documents' vectors for search by meaning (vectors.py).
# 8: the videos' length and subtitles' kind and language, which the query's filters read.
# 9: the readings of Japanese words (analysis.py), in columns of their own.
# 10: the video documents' token columns also in `video_fts`, searched by title alone.
LAYOUT_VERSION = 10
# Every table any version created: dropped when the layout changes.
TABLES = (
    "documents_fts",
    "video_fts",
    "documents",
    "segments",
    "videos",
    "vectors",
    "vector_state",
)
# The tables of the current layout that hold documents.
DATA_TABLES = ("documents_fts", "video_fts", "segments", "videos", "vectors", "vector_state")
# The full-text tables: every document's, and the video documents' alone (the same
# columns and rowids), where a title or description match is found without walking
# every segment that holds the same words (matching.py, the titles' candidates).
FTS_TABLES = ("documents_fts", "video_fts")
VIDEO_SHIFT = 20
PLACES = (1 << VIDEO_SHIFT) - 1
# The full-text columns, in order. bm25 weighs them as the table's default rank: a title
# match above a description match of the same strength; the scope token not at all. Each
# field's words (its WORD_COLUMNS) and readings (READING_COLUMNS) weigh as the field.
FTS_COLUMNS = (
    "text",
    "title",
    "description",
    "scope",
    "text_words",
    "title_words",
    "description_words",
    "text_reading",
    "title_reading",
    "description_reading",
)
WORD_COLUMNS = {"text": "text_words", "title": "title_words", "description": "description_words"}
READING_COLUMNS = {
    "text": "text_reading",
    "title": "title_reading",
    "description": "description_reading",
}
FTS_WEIGHTS = {
    "text": 1.0,
    "title": 3.0,
    "description": 0.5,
    "scope": 0.0,
    "text_words": 1.0,
    "title_words": 3.0,
    "description_words": 0.5,
    "text_reading": 1.0,
    "title_reading": 3.0,
    "description_reading": 0.5,
}
# The columns a document's length counts (bm25): its fields as written. Readings repeat
# the words, and a document found as written ranks as it did before they were indexed.
LENGTH_COLUMNS = tuple(n for n, column in enumerate(FTS_COLUMNS) if not column.endswith("_reading"))
SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS videos (
        key INTEGER PRIMARY KEY AUTOINCREMENT,
        video_id TEXT NOT NULL UNIQUE,
        channel_id TEXT NOT NULL,
        channel_title TEXT NOT NULL,
        video_title TEXT NOT NULL,
        published_at TEXT NOT NULL,
        thumbnail_url TEXT,
        view_count INTEGER,
        subscriber_count INTEGER,
        title TEXT,
        description TEXT,
        documents INTEGER NOT NULL,
        fingerprint TEXT,
        duration_seconds INTEGER,
        subtitle_type TEXT,
        subtitle_language TEXT
    )
    """,
    # A segment's rowid is its document's: the video's key and its place.
    """
    CREATE TABLE IF NOT EXISTS segments (
        rowid INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        start REAL NOT NULL,
        "end" REAL NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS idx_videos_channel ON videos (channel_id)",
    "CREATE INDEX IF NOT EXISTS idx_videos_published ON videos (published_at)",
    "CREATE INDEX IF NOT EXISTS idx_videos_views ON videos (view_count)",
    # The token columns are already cut into tokens and normalised, so the ascii
    # tokenizer (space-separated, every non-ASCII character part of a token) keeps them
    # as they are, and is the quickest.
    f"""
    CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(
        {", ".join(FTS_COLUMNS)}, tokenize = 'ascii'
    )
    """,
    "INSERT INTO documents_fts (documents_fts, rank) VALUES ('rank', 'bm25("
    + ", ".join(str(FTS_WEIGHTS[column]) for column in FTS_COLUMNS)
    + ")')",
    f"""
    CREATE VIRTUAL TABLE IF NOT EXISTS video_fts USING fts5(
        {", ".join(FTS_COLUMNS)}, tokenize = 'ascii'
    )
    """,
    # Vectors: one per document that has one (vectors.py), and their state.
    (
        "CREATE TABLE IF NOT EXISTS vectors (rowid INTEGER PRIMARY KEY, seq INTEGER NOT NULL,"
        " vector BLOB NOT NULL)"
    ),
    "CREATE INDEX IF NOT EXISTS idx_vectors_seq ON vectors (seq)",
    "CREATE TABLE IF NOT EXISTS vector_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
]


NOT_READY = (
    "the search index is not set up for this version (layout {found}, expected {wanted}):"
    " run `subsearch db upgrade`, then `subsearch search reindex`"
)


def layout_version(conn: sqlite3.Connection) -> int:
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    return version


def check_layout(conn: sqlite3.Connection) -> None:
    """Refuse a file that is not laid out for this version: nothing is read from it or
    written to it until `subsearch db upgrade` lays it out."""
    found = layout_version(conn)
    if found != LAYOUT_VERSION:
        raise IndexNotReady(NOT_READY.format(found=found, wanted=LAYOUT_VERSION))


def lay_out(conn: sqlite3.Connection) -> bool:
    """Create the tables, or lay a file of another version out again (emptied: its
    documents come back with a reindex). The version is read inside the write
    transaction, so of several processes setting up one file, one lays it out and the
    others find it done. Returns whether this call laid it out."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if layout_version(conn) == LAYOUT_VERSION:
            conn.execute("COMMIT")
            return False
        for table in TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")
        conn.execute("COMMIT")
        return True
    except sqlite3.Error:
        conn.execute("ROLLBACK")
        raise


@functools.lru_cache(maxsize=4096)
def scope_token(channel_id: str) -> str:
    # Channel ids hold '-' and '_', which the FTS tokenizer would split on.
    return "c" + hashlib.sha1(channel_id.encode()).hexdigest()[:20]


def bounds(key: int) -> tuple[int, int]:
    """The rowids of a video's documents."""
    return key << VIDEO_SHIFT, (key << VIDEO_SHIFT) | PLACES


def video_key(rowid: int) -> int:
    return rowid >> VIDEO_SHIFT


def is_segment(rowid: int) -> bool:
    return bool(rowid & PLACES)


# -- writes -------------------------------------------------------------------------------


def write_video(conn: sqlite3.Connection, video_id: str, documents: list[Document]) -> int | None:
    """Replace the video's documents by `documents` (none: the video goes), in the
    caller's transaction. The video keeps its key, which is returned (None: gone)."""
    delete_video(conn, video_id, keep=bool(documents))
    if not documents:
        return None
    meta = next((doc for doc in documents if doc.kind == "video"), None)
    subtitles = [doc for doc in documents if doc.kind != "video"]
    if len(subtitles) > PLACES:
        raise SearchError(f"a video holds at most {PLACES} segments")
    first = documents[0]
    key: int = conn.execute(
        "INSERT INTO videos (video_id, channel_id, channel_title, video_title, published_at,"
        " thumbnail_url, view_count, subscriber_count, title, description, documents,"
        " fingerprint, duration_seconds, subtitle_type, subtitle_language)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (video_id) DO UPDATE SET channel_id = excluded.channel_id,"
        " channel_title = excluded.channel_title, video_title = excluded.video_title,"
        " published_at = excluded.published_at, thumbnail_url = excluded.thumbnail_url,"
        " view_count = excluded.view_count, subscriber_count = excluded.subscriber_count,"
        " title = excluded.title, description = excluded.description,"
        " documents = excluded.documents, fingerprint = excluded.fingerprint,"
        " duration_seconds = excluded.duration_seconds, subtitle_type = excluded.subtitle_type,"
        " subtitle_language = excluded.subtitle_language RETURNING key",
        (
            video_id,
            first.channel_id,
            first.channel_title,
            first.video_title,
            first.published_at,
            first.thumbnail_url,
            first.view_count,
            first.subscriber_count,
            meta.title if meta else None,
            meta.description if meta else None,
            len(subtitles) + (meta is not None),
            meta.fingerprint if meta else None,
            first.duration_seconds,
            first.subtitle_type,
            first.subtitle_language,
        ),
    ).fetchone()[0]
    base = key << VIDEO_SHIFT
    scope = scope_token(first.channel_id)
    conn.executemany(
        'INSERT INTO segments (rowid, text, start, "end") VALUES (?, ?, ?, ?)',
        (
            (base + place, doc.text or "", doc.start or 0.0, doc.end or 0.0)
            for place, doc in enumerate(subtitles, 1)
        ),
    )
    rows: Iterable[tuple[object, ...]] = (
        (base + place, *_segment_columns(doc.text), scope) for place, doc in enumerate(subtitles, 1)
    )
    if meta is not None:
        video_row = (base, *_columns("", meta.title, meta.description), scope)
        rows = [video_row, *rows]
        conn.execute(
            "INSERT INTO video_fts (rowid, text, title, description, text_words, title_words,"
            " description_words, text_reading, title_reading, description_reading, scope)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            video_row,
        )
    conn.executemany(
        "INSERT INTO documents_fts (rowid, text, title, description, text_words, title_words,"
        " description_words, text_reading, title_reading, description_reading, scope)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    return key


def vectors_by_place(documents: list[Document]) -> dict[int, Any]:
    """The documents' vectors by their place in the video (as write_video numbers them:
    0 the video document, then the segments from 1)."""
    found: dict[int, Any] = {}
    place = 1
    for doc in documents:
        if doc.kind == "video":
            if doc.vector is not None:
                found[0] = doc.vector
            continue
        if doc.vector is not None:
            found[place] = doc.vector
        place += 1
    return found


def _columns(text: str | None, title: str | None, description: str | None) -> tuple[str, ...]:
    """The token columns of a document's fields: their pairs, their words, their readings."""
    pairs, words, readings = zip(
        *(index_text(field) for field in (text, title, description)), strict=True
    )
    return (*pairs, *words, *readings)


def _segment_columns(text: str | None) -> tuple[str, ...]:
    """_columns(text, "", "") for a segment, which has neither title nor description: the
    build's most frequent call, made without analysing two empty fields."""
    pairs, words, readings = index_text(text)
    return pairs, "", "", words, "", "", readings, "", ""


# What a change on the platform may update on a video's documents: the title shown on
# each (`video_title`) and the title its video document is found by (`title`).
VIDEO_FIELDS = frozenset({"video_title", "title"})


def update_video(conn: sqlite3.Connection, video_id: str, values: Mapping[str, object]) -> int:
    """Set VIDEO_FIELDS on the video's documents, in the caller's transaction; the
    searchable title is tokenised again. Returns how many documents changed."""
    assignments = ", ".join(f"{name} = ?" for name in values)
    found = conn.execute(
        f"UPDATE videos SET {assignments} WHERE video_id = ? RETURNING key, documents, title",
        (*values.values(), video_id),
    ).fetchone()
    if found is None:
        return 0
    key, documents, title = found
    if "title" in values:
        # Only a video document is found by its title (rowid: the video's first place).
        for table in FTS_TABLES:
            conn.execute(
                f"UPDATE {table} SET title = ?, title_words = ?, title_reading = ? WHERE rowid = ?",
                (*index_text(title), bounds(key)[0]),
            )
    return int(documents)


def delete_video(conn: sqlite3.Connection, video_id: str, *, keep: bool = False) -> None:
    """Remove the video's documents; its row and vectors too unless `keep` (its key is
    reused, and the vectors are compared with the new ones: vectors.write)."""
    for (key,) in conn.execute("SELECT key FROM videos WHERE video_id = ?", (video_id,)):
        conn.execute("DELETE FROM documents_fts WHERE rowid BETWEEN ? AND ?", bounds(key))
        conn.execute("DELETE FROM video_fts WHERE rowid = ?", bounds(key)[:1])
        conn.execute("DELETE FROM segments WHERE rowid BETWEEN ? AND ?", bounds(key))
        if not keep:
            conn.execute("DELETE FROM vectors WHERE rowid BETWEEN ? AND ?", bounds(key))
    if not keep:
        conn.execute("DELETE FROM videos WHERE video_id = ?", (video_id,))


# -- reads --------------------------------------------------------------------------------

# A document's fields by rowid: the video's, and the segment's for a segment (none for a
# segment gone meanwhile). `kind` is "video" for the video document.
DOCUMENT_ROWS = (
    f"SELECT f.value AS rowid, CASE WHEN f.value & {PLACES} THEN 'subtitle' ELSE 'video' END"
    " AS kind, v.video_id, v.channel_id, v.channel_title, v.video_title, v.published_at,"
    ' v.thumbnail_url, v.title, v.description, s.text, s.start, s."end"'
    f" FROM json_each(?) AS f JOIN videos v ON v.key = f.value >> {VIDEO_SHIFT}"
    " LEFT JOIN segments s ON s.rowid = f.value"
    f" WHERE f.value & {PLACES} = 0 OR s.rowid IS NOT NULL"
)


def video_fields(row: sqlite3.Row) -> dict[str, Any]:
    """The video's fields of a document row, as Hit and VideoHit name them."""
    return {
        "video_id": row["video_id"],
        "video_title": row["video_title"],
        "channel_id": row["channel_id"],
        "channel_title": row["channel_title"],
        "published_at": row["published_at"],
        "thumbnail_url": row["thumbnail_url"],
    }


def document_rows(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, sqlite3.Row]:
    """The documents at `rowids` that still exist, by rowid."""
    found = conn.execute(DOCUMENT_ROWS, (json.dumps(list(rowids)),))
    return {row["rowid"]: row for row in found}


def token_columns(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """The indexed token columns (FTS_COLUMNS) of the documents at `rowids`.

    Read from the full-text table's content table (`documents_fts_content`, a column cN
    per FTS column, `id` the rowid): a keyed read, where a rowid lookup through the
    full-text table costs twice as much. A test pins both reads to the same answer. The
    rowids are written into the statement (integers, so nothing to escape): a list of
    literals is the quickest IN for a few hundred keys."""
    listed = ",".join(str(int(rowid)) for rowid in rowids)
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: a few hundred rows a query
    stored = ", ".join(f"c{n}" for n in range(len(FTS_COLUMNS)))
    found = cursor.execute(f"SELECT id, {stored} FROM documents_fts_content WHERE id IN ({listed})")
    return {row[0]: row[1:] for row in found}


# Pages of the full-text index one merge step writes at most (about 8 MB).
MERGE_PAGES = 2000


def merge_step(conn: sqlite3.Connection) -> bool:
    """Merge some of the full-text tables' segments (at most MERGE_PAGES pages each), in
    the caller's transaction; False when there was nothing left to merge.

    Each write of a video adds a small segment, and FTS5 merges them only four at a time
    on one level, so an index written video by video holds many: every lookup reads each
    of them, and a query that probes video after video (an order but relevance) pays it
    hundreds of times (at 200k segments, 42 ms instead of 9). A negative 'merge' also
    merges across levels, so steps repeated bring the index to one segment, as
    'optimize' does, a little at a time (FTS5's docs: the 'merge' command; fewer than two
    rows changed means no work was left)."""
    merged = False
    for table in FTS_TABLES:
        before = conn.total_changes
        conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('merge', ?)", (-MERGE_PAGES,))
        merged |= conn.total_changes - before >= 2
    return merged


def token_averages(conn: sqlite3.Connection) -> float:
    """The average number of tokens a document holds over its LENGTH_COLUMNS: what bm25
    divides a document's length by. FTS5 keeps the totals in its data table (record 1,
    "the averages": varints of the row count and each column's token count)."""
    found = conn.execute("SELECT block FROM documents_fts_data WHERE id = 1").fetchone()
    values = list(_varints(found[0])) if found and found[0] else []
    if len(values) < 1 + len(FTS_COLUMNS) or values[0] == 0:
        return 1.0
    return sum(values[1 + column] for column in LENGTH_COLUMNS) / values[0]


def _varints(blob: bytes) -> Iterable[int]:
    """SQLite's varints: big-endian 7-bit groups, a high bit for "more", the ninth byte
    whole."""
    position = 0
    while position < len(blob):
        value = 0
        for size in range(9):
            byte = blob[position]
            position += 1
            if size == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        yield value


def inventory(conn: sqlite3.Connection) -> list[IndexedVideo]:
    """Every video the file holds, as it holds it: the documents found in the full-text
    index (its docsize table has a row per document) and in `segments`, which must agree
    with the count the video row promises."""
    rows = conn.execute(
        "SELECT v.video_id, v.video_title, v.channel_title, v.title, v.subscriber_count,"
        " v.fingerprint, v.documents,"
        " (SELECT count(*) FROM documents_fts_docsize d WHERE d.id BETWEEN v.key << ?"
        "  AND (v.key << ?) | ?) AS indexed,"
        " (SELECT count(*) FROM segments s WHERE s.rowid BETWEEN (v.key << ?) + 1"
        "  AND (v.key << ?) | ?) AS segments,"
        " (SELECT count(*) FROM vectors x WHERE x.rowid BETWEEN v.key << ?"
        "  AND (v.key << ?) | ?) AS vectors"
        " FROM videos v",
        (VIDEO_SHIFT, VIDEO_SHIFT, PLACES) * 3,
    )
    return [
        IndexedVideo(
            video_id=row["video_id"],
            # A count that disagrees with itself is no count: the video is stale.
            documents=row["indexed"]
            if row["indexed"] == row["documents"] and row["segments"] == row["indexed"] - 1
            else -1,
            video_title=row["video_title"],
            channel_title=row["channel_title"],
            title=row["title"],
            subscriber_count=row["subscriber_count"],
            fingerprint=row["fingerprint"],
            vectors=row["vectors"],
        )
        for row in rows
    ]


def prune_orphans(conn: sqlite3.Connection) -> int:
    """Remove documents whose video row is gone (a row deleted by hand), in the caller's
    transaction; how many."""
    orphan = f"rowid >> {VIDEO_SHIFT} NOT IN (SELECT key FROM videos)"
    conn.execute(f"DELETE FROM video_fts WHERE {orphan}")  # documents_fts's again
    return sum(
        conn.execute(f"DELETE FROM {table} WHERE {orphan}").rowcount
        for table in ("segments", "documents_fts", "vectors")
    )


def count_documents(conn: sqlite3.Connection) -> int:
    found: int = conn.execute("SELECT coalesce(sum(documents), 0) FROM videos").fetchone()[0]
    return found


def rows_in_order(rows: Mapping[int, sqlite3.Row], rowids: Iterable[int]) -> list[sqlite3.Row]:
    return [rows[rowid] for rowid in rowids if rowid in rows]
