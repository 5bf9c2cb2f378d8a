"""Every moment of a video on the embedded engine (the rule: models/search/moments.py).

A video's matching segments are read as rowids and times alone, every one of them: the
moments are made from their times, so counting them costs no score and no highlight.
Ranking does: a segment's score is read from its token columns (scoring.py, about 8 us
a segment). So a page of videos ranks at most SHOWN_SCORED segments of each video for
the moments it shows (its matches of the query's phrase, then as words, then as written,
each in time order, then the others), and the list of one video's moments ranks every
one of them; the list starts with the moments the page shows all the same.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from models.search.base import SearchQuery
from models.search.embedded.filters import VideoFilter
from models.search.embedded.layout import bounds, is_segment, video_key
from models.search.embedded.matching import ROWID, Matching
from models.search.embedded.scan import TARGET_COLUMNS, scan_rowids
from models.search.moments import Span

# Segments of one video a page of videos scores to choose the moments it shows, when the
# video has more matches (the page's own ranking scored most of them already).
SHOWN_SCORED = 16


class MatchedSegments:
    """One search's matching segments, video by video: `matching` is its query over the
    full-text index, None when the query needs a scan (scan.py), whose matches come with
    their score (the scanned characters held as words)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        query: SearchQuery,
        matching: Matching | None,
        passing: VideoFilter | None = None,
    ) -> None:
        self.conn, self.query, self.matching, self.passing = conn, query, matching, passing
        self.scanned: dict[int, float] = {}  # a scan's scores, by rowid

    def spans(self, keys: list[int]) -> dict[int, list[Span]]:
        """Each video's matching segments (of `keys`, of videos passing the filters) with
        their times: one statement a video, read as plain rows, no score."""
        if not keys or not self.query.read.terms:
            return {}
        cursor = self.conn.cursor()
        cursor.row_factory = None  # plain tuples: thousands of rows for a page of long videos
        found: dict[int, list[Span]] = {}
        held = self.matching.complete if self.matching is not None else {}
        if any(key in held for key in keys):
            found.update(self._known(cursor, [key for key in keys if key in held], held))
        for key in keys:
            if key in held:
                continue
            if self.matching is None:
                rows = cursor.execute(*self._scan(key)).fetchall()
                self.scanned.update((row[0], float(row[3])) for row in rows)
                spans: list[Span] = [row[:3] for row in rows]
            else:
                spans = cursor.execute(*self._matched(key, self.matching)).fetchall()
            if spans:
                found[key] = spans
        return found

    @staticmethod
    def _known(
        cursor: sqlite3.Cursor, keys: list[int], held: dict[int, list[int]]
    ) -> dict[int, list[Span]]:
        """The segments of videos whose matching rowids the ranking read whole
        (Matching.complete), with their times: one read of the segments alone."""
        listed = ",".join(str(r) for key in keys for r in held[key] if is_segment(r))
        found: dict[int, list[Span]] = {}
        if listed:
            rows = cursor.execute(
                f'SELECT rowid, start, "end" FROM segments WHERE rowid IN ({listed})'
            )
            for row in rows:
                found.setdefault(video_key(row[0]), []).append(row)
        return found

    def _matched(self, key: int, matching: Matching) -> tuple[str, list[object]]:
        first, last = bounds(key)
        sql, params = matching.matches(f"{ROWID} AS rowid", f" AND {ROWID} BETWEEN ? AND ?")
        # Its segments, not its video document.
        return _with_times(sql), [*params, first + 1, last]

    def _scan(self, key: int) -> tuple[str, list[object]]:
        """The scan (scan.py) of the video's documents alone, its `words` the score."""
        query = self.query
        columns = tuple(TARGET_COLUMNS[t] for t in query.targets)
        sql, params = scan_rowids(query.read, columns, query.channels, [key], self.passing)
        return _with_times(sql, ", m.words"), params

    def ranked(self, spans: dict[int, list[Span]], *, shown: bool) -> dict[int, list[int]]:
        """Each video's matching segments best first (score, then time), as rowids.
        `shown`: as a page of videos ranks them, at most SHOWN_SCORED of a video with
        more (its others are left out: their moments follow in time order)."""
        chosen = {key: [int(span[0]) for span in found] for key, found in spans.items()}
        if shown and self.matching is not None:
            many = [key for key, rowids in chosen.items() if len(rowids) > SHOWN_SCORED]
            chosen.update(self._shown_candidates(many, chosen, self.matching))
        scores = self._scores([rowid for rowids in chosen.values() for rowid in rowids])
        # Ties in time order, which is a video's rowid order (its segments are placed so).
        return {
            key: sorted(
                (rowid for rowid in rowids if rowid in scores),
                key=lambda rowid: (-scores[rowid], rowid),
            )
            for key, rowids in chosen.items()
        }

    def _shown_candidates(
        self, keys: list[int], matched: dict[int, list[int]], matching: Matching
    ) -> dict[int, list[int]]:
        """The SHOWN_SCORED segments a page ranks of each video of `keys` (videos with
        more matches): those holding the query's words as one phrase, then its terms as
        words, then as written (not by reading), each in time order, then the others in
        time order. One statement a kind of match for all of them."""
        chosen: dict[int, dict[int, None]] = {key: {} for key in keys}
        for tier in (matching.phrase, matching.words, matching.written):
            wanting = [key for key in keys if len(chosen[key]) < SHOWN_SCORED]
            if tier is None or not wanting:
                continue
            for rowid in matching.in_videos(wanting, SHOWN_SCORED + 1, tier):
                chosen[video_key(rowid)].setdefault(rowid)
        found = {}
        for key in keys:
            every = set(matched[key])
            tiered = [rowid for rowid in chosen[key] if rowid in every]  # segments it matches
            found[key] = list(dict.fromkeys([*tiered, *matched[key]]))[:SHOWN_SCORED]
        return found

    def _scores(self, rowids: list[int]) -> dict[int, float]:
        if self.matching is None:
            return {rowid: self.scanned[rowid] for rowid in rowids if rowid in self.scanned}
        scored = self.matching.scored
        missing = [rowid for rowid in rowids if rowid not in scored]
        if missing:
            self.matching.scores(missing)
        return {rowid: scored[rowid] for rowid in rowids if rowid in scored}


def _with_times(matching: str, more: str = "") -> str:
    """Matching rowids (`matching`, a statement of `rowid`) with their segments' times
    (and `more` of its columns), in no order (moments.group_spans takes them by time); a
    video document (no segment) drops out."""
    return (
        f'SELECT s.rowid, s.start, s."end"{more} FROM ({matching}) AS m'
        " JOIN segments s ON s.rowid = m.rowid"
    )


def segment_spans(conn: sqlite3.Connection, rowids: Iterable[int]) -> list[Span]:
    """The segments at `rowids` (video documents left out) with their times."""
    listed = ",".join(str(int(rowid)) for rowid in rowids if is_segment(rowid))
    if not listed:
        return []
    rows = conn.execute(f'SELECT rowid, start, "end" FROM segments WHERE rowid IN ({listed})')
    return [(row[0], row[1], row[2]) for row in rows]


def video_key_of(conn: sqlite3.Connection, video_id: str) -> int | None:
    """The video's key in the index; None when the index holds no document of it."""
    row = conn.execute("SELECT key FROM videos WHERE video_id = ?", (video_id,)).fetchone()
    return int(row[0]) if row is not None else None
