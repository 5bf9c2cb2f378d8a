"""The engine: its connection, writes and a video's segments; hits one by one are read
in hits.py, results by video in videos.py."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from models.search.base import (
    Document,
    SearchError,
    SearchQuery,
    SearchResults,
    Segment,
    VideoResults,
)
from models.search.embedded import hits, layout, videos
from models.search.embedded.layout import bounds
from models.search.segments import transcript

T = TypeVar("T")
# Pages of write-ahead log between automatic checkpoints (40 MB at 4 KiB a page).
WAL_PAGES = 10_000


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
            layout.lay_out(conn)
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

    def replace_many_videos(self, replaced: Mapping[str, list[Document]]) -> None:
        """replace_video_documents for several videos in one transaction."""

        def work(conn: sqlite3.Connection) -> None:
            for video_id, documents in replaced.items():
                layout.write_video(conn, video_id, documents)

        self._write(work)

    def delete_video_documents(self, video_id: str) -> None:
        self._write(lambda conn: layout.delete_video(conn, video_id))

    def update_channel_documents(self, channel_id: str, values: Mapping[str, object]) -> int:
        """Update the channel's fields of its videos' documents; how many documents."""
        allowed = {"subscriber_count", "channel_title"}
        unknown = set(values) - allowed
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by channel")
        assignments = ", ".join(f"{name} = ?" for name in values)

        def work(conn: sqlite3.Connection) -> int:
            updated = conn.execute(
                f"UPDATE videos SET {assignments} WHERE channel_id = ? RETURNING documents",
                (*values.values(), channel_id),
            )
            return sum(row[0] for row in updated.fetchall())

        return self._write(work) if values else 0

    def update_video_documents(self, video_id: str, values: Mapping[str, object]) -> int:
        """Update the video's fields (VIDEO_FIELDS) of its documents; how many documents."""
        unknown = set(values) - layout.VIDEO_FIELDS
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by video")
        if not values:
            return 0
        return self._write(lambda conn: layout.update_video(conn, video_id, values))

    # -- reads ----------------------------------------------------------------------

    def search(self, query: SearchQuery) -> SearchResults:
        try:
            return hits.search_hits(self._db(), query)
        except sqlite3.Error as error:
            raise SearchError(f"embedded search: {error}") from error

    def search_videos(self, query: SearchQuery) -> VideoResults:
        try:
            return videos.search_videos(self._db(), query)
        except sqlite3.Error as error:
            raise SearchError(f"embedded search: {error}") from error

    # -- the rest -----------------------------------------------------------------------

    def video_segments(self, video_id: str) -> list[Segment]:
        rows = self._db().execute(
            'SELECT start, "end", text FROM segments WHERE rowid BETWEEN ? AND ? ORDER BY start',
            bounds(self._key(video_id)),
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
        return layout.count_documents(self._db())
