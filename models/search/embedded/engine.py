"""The engine: its connection, writes and a video's segments; hits one by one are read
in hits.py, results by video in videos.py."""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from models.search.base import (
    DEFAULT_TIME_BUDGET_MS,
    Document,
    IndexedVideo,
    IndexNotReady,
    SearchBusy,
    SearchError,
    SearchQuery,
    SearchResults,
    Segment,
    VideoMoments,
    VideoResults,
)
from models.search.embedded import hits, layout, meaning, scoring, vectors, videos
from models.search.embedded.layout import LAYOUT_VERSION, bounds
from models.search.embedder import Embedder, NoEmbedder, Questions
from models.search.segments import transcript

T = TypeVar("T")
# Pages of write-ahead log between automatic checkpoints (40 MB at 4 KiB a page).
WAL_PAGES = 10_000
# Virtual machine steps between two looks at a search's clock: about a millisecond of
# work, so a search stops within a few ms of its budget and the look itself (which takes
# the GIL) costs nothing measurable.
BUDGET_STEPS = 20_000


class EmbeddedEngine:
    name = "embedded"

    def __init__(
        self,
        path: str,
        *,
        time_budget_ms: int = DEFAULT_TIME_BUDGET_MS,
        embedder: Embedder | None = None,
        questions: Questions | None = None,
    ) -> None:
        self.path = path
        self.time_budget_ms = time_budget_ms
        self.embedder: Embedder = embedder or NoEmbedder()
        self.questions = questions or Questions()
        self._local = threading.local()
        # The nearest-neighbour index's snapshot files live beside the file (none for an
        # index in memory: its delta is all there is).
        self.vector_folder = Path(f"{path}.vectors") if path != ":memory:" else None
        self.nearest = vectors.NearestIndex(self.vector_folder or Path("."))

    # -- connection ---------------------------------------------------------------

    def _db(self, *, create: bool = False) -> sqlite3.Connection:
        """This thread's connection. Only set-up (`create`) may create the file: anyone
        else finding none has an index that is not set up."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            memory = self.path == ":memory:"
            if create and not memory:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            elif not memory and not Path(self.path).exists():
                raise IndexNotReady(layout.NOT_READY.format(found="none", wanted=LAYOUT_VERSION))
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
            # What a connection keeps in memory, whatever the SQLite build's defaults: a
            # page cache of 2 MB (the index's pages come from the OS's cache; 8 MB kept
            # 6 MB more a process and searched no faster at 1M), and no memory map (one
            # counts each page read in the process's RSS: 160 MB more after the query
            # mix at 1M, for no faster search).
            conn.execute("PRAGMA cache_size = -2000")
            conn.execute("PRAGMA mmap_size = 0")
            scoring.register(conn)  # documents scored in SQLite, where compiled
            self._local.conn = conn
            self._local.depth = 0
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The file's write lock (BEGIN IMMEDIATE) for the block; the writes inside it are
        one transaction, committed at its end, none if it fails."""
        conn = self._db()
        if self._local.depth:
            self._local.depth += 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            layout.check_layout(conn)
        except sqlite3.Error as error:
            self._rollback(conn)
            raise SearchError(f"embedded index: {error}") from error
        except IndexNotReady:
            self._rollback(conn)
            raise
        self._local.depth = 1
        try:
            yield
            conn.execute("COMMIT")
        except sqlite3.Error as error:
            self._rollback(conn)
            raise SearchError(f"embedded index: {error}") from error
        except BaseException:
            self._rollback(conn)
            raise
        finally:
            self._local.depth = 0

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self.writing():
            try:
                return work(self._db())
            except sqlite3.Error as error:
                raise SearchError(f"embedded index: {error}") from error

    def _read(self, work: Callable[[sqlite3.Connection], T], *, deadline: float | None = None) -> T:
        """Read in one snapshot of a file laid out for this version (inside `writing`,
        its transaction). A read with a `deadline` (a search: a monotonic time) is
        interrupted by SQLite once it runs past it: SearchBusy."""
        conn = self._db()
        if self._local.depth:
            with self._budget(conn, deadline):
                return work(conn)
        try:
            conn.execute("BEGIN")
            layout.check_layout(conn)
            with self._budget(conn, deadline):
                return work(conn)
        except sqlite3.Error as error:
            raise SearchError(f"embedded search: {error}") from error
        finally:
            self._rollback(conn)  # a read transaction: nothing to keep

    @contextmanager
    def _budget(self, conn: sqlite3.Connection, deadline: float | None) -> Iterator[None]:
        """Past the deadline, SQLite's progress handler interrupts the statement running
        (and any later one): the worker is free again within milliseconds, whatever the
        query's shape."""
        if deadline is None:
            yield
            return
        if time.monotonic() > deadline:  # the question's vector took the whole budget
            raise SearchBusy(f"embedded search: past its {self.time_budget_ms} ms")
        conn.set_progress_handler(lambda: time.monotonic() > deadline, BUDGET_STEPS)
        try:
            yield
        except sqlite3.OperationalError as error:
            if time.monotonic() > deadline and "interrupt" in str(error):
                raise SearchBusy(f"embedded search: past its {self.time_budget_ms} ms") from error
            raise
        finally:
            conn.set_progress_handler(None, 0)

    # -- writes ---------------------------------------------------------------------

    def apply_settings(self) -> bool:
        """Create the file's layout, or lay out again a file of another version (emptied);
        True when it did. `subsearch db upgrade` calls it, nothing else that runs."""
        return layout.lay_out(self._db(create=True))

    def replace_video_documents(self, video_id: str, documents: list[Document]) -> None:
        self.replace_videos({video_id: documents})

    def replace_videos(self, replaced: Mapping[str, list[Document]]) -> None:
        """replace_video_documents for several videos in one transaction ([]: the video
        goes)."""

        model, dims = self.embedder.model, self.embedder.dims

        def work(conn: sqlite3.Connection) -> None:
            for video_id, documents in replaced.items():
                key = layout.write_video(conn, video_id, documents)
                if key is not None:
                    vectors.write(conn, key, layout.vectors_by_place(documents), model, dims)

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
        deadline = self._deadline()
        meant = self._meaning(query, deadline)
        return self._read(lambda conn: hits.search_hits(conn, query, meant), deadline=deadline)

    def search_videos(self, query: SearchQuery) -> VideoResults:
        deadline = self._deadline()
        meant = self._meaning(query, deadline)
        return self._read(lambda conn: videos.search_videos(conn, query, meant), deadline=deadline)

    def video_moments(self, query: SearchQuery, video_id: str) -> VideoMoments:
        deadline = self._deadline()
        meant = self._meaning(query, deadline)
        return self._read(
            lambda conn: videos.video_moments(conn, query, video_id, meant), deadline=deadline
        )

    def _deadline(self) -> float:
        return time.monotonic() + self.time_budget_ms / 1000

    def _meaning(self, query: SearchQuery, deadline: float) -> meaning.Meaning | None:
        """The vector side of a search by meaning (None: keywords only). The question is
        embedded on the process's embedding thread while the keyword side reads the
        index, within the search's budget (SearchBusy past it, or when the process's
        model already has its fill of questions)."""
        text = query.read.text  # its words, without filters or exclusions
        if not (query.semantic and self.embedder.loaded and text.strip()):
            return None
        vector = self.questions.submit(self.embedder, text)
        return meaning.Meaning(self.nearest, vector, self.embedder.model, query.sr, deadline)

    # -- vectors --------------------------------------------------------------------------

    def merge_full_text(self, steps: int = 50) -> int:
        """Merge the full-text index's segments (layout.merge_step), each step its own
        transaction so that writers wait for one step at most; how many steps did work
        (fewer than `steps`: the index is merged). Safe in several processes at once:
        each step holds the write lock."""
        done = 0
        while done < steps and self._write(layout.merge_step):
            done += 1
        return done

    def compact_vectors(self, *, force: bool = False) -> int:
        """Fold the vectors written since the last snapshot into a new one when they are
        DELTA_LIMIT or more (any, when `force`), so each process searches them through
        the nearest-neighbour index instead of one by one; how many vectors the new
        snapshot holds (0: none was needed). Safe to run in several processes at once:
        the newest snapshot wins, and an older one never replaces it."""
        if self.vector_folder is None:
            return 0
        folder = self.vector_folder

        def build(conn: sqlite3.Connection) -> tuple[int, str, str] | None:
            found = vectors.state(conn)
            pending = conn.execute(
                "SELECT count(*) FROM vectors WHERE seq > ?", (found.snapshot,)
            ).fetchone()[0]
            if not found.model or not pending or (pending < vectors.DELTA_LIMIT and not force):
                return None
            name = f"{found.seq}-{secrets.token_hex(4)}"
            previous = found if found.snapshot_name else None
            vectors.build_snapshot(conn, folder, name, found.seq, found.dims, previous)
            return found.seq, name, found.generation

        built = self._read(build)
        if built is None:
            return 0
        upto, name, generation = built

        def publish(conn: sqlite3.Connection) -> bool:
            found = vectors.state(conn)
            # Not over a newer snapshot, nor over vectors that started over (laid out
            # anew, another model) since the build read them.
            if found.snapshot >= upto or found.seq < upto or found.generation != generation:
                return False
            conn.execute(
                "INSERT INTO vector_state (name, value) VALUES ('snapshot', ?),"
                " ('snapshot_name', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (str(upto), name),
            )
            vectors.remove_old_snapshots(folder, (name, found.snapshot_name))
            return True

        if not self._write(publish):
            vectors.remove_old_snapshots(
                folder, (vectors.state(self._db()).snapshot_name,), only=name
            )
            return 0
        return self._read(vectors.count)

    def vector_count(self) -> int:
        return self._read(vectors.count)

    # -- the rest -----------------------------------------------------------------------

    def video_segments(self, video_id: str) -> list[Segment]:
        def read(conn: sqlite3.Connection) -> list[Segment]:
            found = conn.execute("SELECT key FROM videos WHERE video_id = ?", (video_id,))
            row = found.fetchone()
            rows = conn.execute(
                'SELECT start, "end", text FROM segments WHERE rowid BETWEEN ? AND ?'
                " ORDER BY start",
                bounds(row[0] if row is not None else -1),
            )
            return [Segment(start=r["start"], end=r["end"], text=r["text"]) for r in rows]

        return transcript(self._read(read))

    def inventory(self) -> Iterator[IndexedVideo]:
        return iter(self._read(layout.inventory))

    def prune_orphans(self) -> int:
        """Documents left without their video row (deleted by hand); how many went."""
        return self._write(layout.prune_orphans)

    def health(self) -> dict[str, Any]:
        self._read(lambda conn: conn.execute("SELECT 1").fetchone())
        return {"status": "available"}

    def keys(self) -> list[dict[str, str | None]]:
        return []  # an in-process index has no API keys

    def document_count(self) -> int:
        return self._read(layout.count_documents)
