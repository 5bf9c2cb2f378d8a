"""One query over the full-text index: its MATCH expressions and the reads both answers
(hits one by one, results by video) are built from.

Ranking by relevance scores only candidates, the RANKED latest indexed matches (and half
as many of the phrase's, a quarter of the titles' and descriptions', so neither is
crowded out), with scoring.py's scores: exact for a query matching fewer documents;
beyond that, what was not scored follows newest first. The other orders walk the
videos in that order and read each one's matches, so a page stops when it is full.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping

from models.search.embedded import layout
from models.search.embedded.filters import VideoFilter
from models.search.embedded.fts import (
    fts_match,
    fts_pairs_match,
    fts_words_match,
    fts_written_match,
    phrases,
)
from models.search.embedded.layout import (
    READING_COLUMNS,
    VIDEO_SHIFT,
    WORD_COLUMNS,
    is_segment,
    scope_token,
    video_key,
)
from models.search.embedded.scoring import (
    IN_SQLITE,
    WORD_BONUS,
    WRITTEN_FLOOR,
    Scorer,
    scores_in_sqlite,
)
from models.search.query import Query
from models.search.text import Term, join_texts, make_term

# A match's rowid in statements that may join the videos table (whose key is a rowid too).
ROWID = "documents_fts.rowid"
# Matches scored for a page by relevance.
RANKED = 400
# A filtered query's matches read at once: all of them are scored when no more match
# (about 13 us each).
EVERY = 1000
# Matches as words of one video read to choose its moments outside relevance order.
WORD_MOMENTS = 16
# Hits in an order but relevance walk the videos when at least WALK_FROM documents
# match, and go back to sorting the matching videos when fewer than one in WALK_SPARSE
# of the first WALK_PROBES videos walked matches (see Matching.in_order).
WALK_FROM = 20_000
WALK_PROBES = 200
WALK_SPARSE = 4
# Each order but relevance is an index on videos read in one direction (a NULL view
# count sorts last in DESC), ties to the latest indexed video: a walk through the videos
# in order stops after the page instead of sorting every match.
VIDEO_ORDER = {
    "newest": "v.published_at DESC, v.key DESC",
    "oldest": "v.published_at ASC, v.key ASC",
    "views": "v.view_count DESC, v.key DESC",
}


class Matching:
    def __init__(
        self,
        conn: sqlite3.Connection,
        query: Query,
        columns: tuple[str, ...],
        channels: tuple[str, ...],
        passing: VideoFilter | None = None,
    ) -> None:
        self.conn = conn
        self.channels = channels
        scope = ""
        if channels:
            scope = " AND {scope} : (" + " OR ".join(scope_token(c) for c in channels) + ")"
        words_in = tuple(WORD_COLUMNS[column] for column in columns)
        readings_in = tuple(READING_COLUMNS[column] for column in columns)
        groups, excluded = query.groups, query.excluded
        self.match = fts_match(groups, columns, words_in, excluded, readings_in) + scope
        # The same terms by their pairs alone: a subset of `match` read from one list per
        # term instead of two, which settles a count past the cap or a video's probe for
        # a common word at half the cost (about 1 ms instead of 3 at 200k segments).
        pairs = fts_pairs_match(groups, columns, words_in, excluded, readings_in)
        self.pairs = pairs + scope if pairs else None
        phrase = phrase_term(query)
        self.phrase = (
            fts_match(((phrase,),), columns, words_in, excluded, readings_in) + scope
            if phrase
            else None
        )
        # The documents holding the terms as words, ranked apart so that pair-only
        # matches (京都 inside 東京都) never crowd a word match out of the candidates.
        words = fts_words_match(groups, columns, words_in, excluded, readings_in)
        self.words = words + scope if words else None
        # The same for what was written against what was found by reading.
        written = fts_written_match(groups, columns, words_in, excluded, readings_in)
        self.written = written + scope if written else None
        # Title and description matches, ranked apart so a title alone still lists its
        # video however many segments match.
        meta_columns = tuple(c for c in columns if c != "text")
        meta_words = tuple(WORD_COLUMNS[c] for c in meta_columns)
        meta_readings = tuple(READING_COLUMNS[c] for c in meta_columns)
        self.meta = (
            fts_match(groups, meta_columns, meta_words, excluded, meta_readings) + scope
            if meta_columns and len(meta_columns) < len(columns)
            else None
        )
        # A query of one term: a document holding it as words scores WORD_BONUS or more,
        # any other less (candidates()).
        self.one_term = len(query.terms) == 1
        group_of = [number for number, group in enumerate(query.groups) for _ in group]
        self.scorer = Scorer(
            query.terms, columns, phrase, layout.token_averages(conn), groups=group_of
        )
        # The query's filters, checked on each match's video row (filters.py).
        self.passing = passing
        # A format: the full-text table read ({table}) goes in.
        join = f" CROSS JOIN videos v ON v.key = {{table}}.rowid >> {VIDEO_SHIFT}"
        self.join = join if passing else ""
        self.where = f" AND {passing.condition}" if passing else ""
        self.filter_params: tuple[object, ...] = passing.params if passing else ()
        # The scorer's plan for the C scorer in SQLite (scoring.py), None where documents
        # are scored in Python.
        self.plan = self.scorer.plan_text() if IN_SQLITE else None
        # And the phrases of `match` the FTS5 ranking function reads (None: the latest
        # matches are scored apart, by the plan or in Python).
        self.ranking = (
            self.scorer.phrase_numbers(phrases(self.match)) if self.plan is not None else None
        )
        # The token columns read, by rowid: results by video read from them which fields
        # of a video document match and where a moment's words are (videos.py), not by
        # analysing the text again. Scored in SQLite, only the page's are read.
        self.columns_read: dict[int, tuple[str, ...]] = {}
        # The scores given so far, by rowid: a video's moments rank segments the page's
        # ranking scored already (embedded/moments.py).
        self.scored: dict[int, float] = {}
        # Each video's matching rowids, where a read of the query's matches in rowid
        # order held them all: a page's moments are made from them without reading them
        # again (embedded/moments.py).
        self.complete: dict[int, list[int]] = {}
        # The latest matches candidates() read, latest first (the count goes by them).
        self.latest: list[int] | None = None

    # -- counts -------------------------------------------------------------------------

    def documents(self) -> int:
        """How many documents match."""
        counted: int = self.conn.execute(*self.matches("count(*)")).fetchone()[0]
        return counted

    def matches(
        self, columns: str, tail: str = "", match: str | None = None, table: str = "documents_fts"
    ) -> tuple[str, list[object]]:
        """A statement reading the documents of `match` (the query's by default) in a
        full-text `table` whose video passes the filters, and its parameters (`tail`'s go
        after them)."""
        join = self.join.format(table=table)
        return (
            f"SELECT {columns} FROM {table}{join} WHERE {table} MATCH ?{self.where}{tail}",
            [match or self.match, *self.filter_params],
        )

    def videos(self, cap: int) -> int:
        """How many videos match, exact up to `cap`, `cap` + 1 beyond.

        Where candidates() read every match, their videos. Else the count goes by the
        terms' pairs first, which settle a count past the cap at half the cost of the
        query, unless the latest matches show too few videos for that (a phrase, whose
        pairs would be read to the end before the query is): then by the query alone."""
        if self.latest is not None and len(self.latest) < RANKED:
            return min(len({video_key(rowid) for rowid in self.latest}), cap + 1)
        counts = (self.pairs, self.match) if self._many_videos(cap) else (self.match,)
        for match in counts:
            if match is None:
                continue
            sql, params = self.matches(f"DISTINCT {ROWID} >> {VIDEO_SHIFT}", " LIMIT ?", match)
            counted: int = self.conn.execute(
                f"SELECT count(*) FROM ({sql})", (*params, cap + 1)
            ).fetchone()[0]
            if counted > cap:
                return counted  # past the cap by its pairs alone: no need for the rest
        return counted

    def _many_videos(self, cap: int) -> bool:
        """Whether more than `cap` videos may match, by the share of the videos the latest
        matches span that hold one, times every video indexed (more than there are, where
        videos were deleted: then the pairs go first, as without the estimate). Filtered,
        the pairs would be read to the end as often as not: never."""
        if self.passing is not None:
            return False
        if not self.latest:
            return True
        newest, oldest = video_key(self.latest[0]), video_key(self.latest[-1])
        held = len({video_key(rowid) for rowid in self.latest})
        indexed = self.conn.execute("SELECT max(key) FROM videos").fetchone()[0] or 0
        return held * indexed > cap * (newest - oldest + 1)

    def in_video_sql(self) -> tuple[str, list[object]]:
        """A condition on a video row `v`: the video holds a match. By its pairs first,
        which a common word's videos almost all do."""
        exists = (
            "EXISTS (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ?"
            " AND rowid BETWEEN v.key << ? AND (v.key << ?) | ?)"
        )
        bounds = [VIDEO_SHIFT, VIDEO_SHIFT, layout.PLACES]
        passes = f" AND {self.passing.condition}" if self.passing else ""
        if self.pairs is None:
            return exists + passes, [self.match, *bounds, *self.filter_params]
        return (
            f"({exists} OR {exists}){passes}",
            [self.pairs, *bounds, self.match, *bounds, *self.filter_params],
        )

    def latest_matches(self) -> list[int] | None:
        """A filtered query's latest EVERY + 1 matching rowids, latest first (None when
        nothing is filtered). When they are all its matches (EVERY or fewer) they are
        counted and scored whole: one read instead of a count and four candidate lists,
        each of which reads every match when a filter lets few videos through (a month
        of them at a million segments: 25 ms instead of 55). Past that, the first
        RANKED of them are the candidates (the words', the phrase's and the titles' lists
        would each read every match again)."""
        if self.passing is None:
            return None
        sql, params = self.matches(ROWID, f" ORDER BY {ROWID} DESC LIMIT {EVERY + 1}")
        found = [row[0] for row in self.conn.execute(sql, params)]
        self._held_whole(found, EVERY + 1)
        return found

    def _held_whole(self, rowids: list[int], limit: int) -> None:
        """Note the videos whose matches `rowids` holds whole (`rowids`: one read of the
        query's matches in rowid order, at most `limit` of them): every video in it when
        the read stopped short of its limit, else all but the one it stopped in."""
        by_video: dict[int, list[int]] = {}
        for rowid in rowids:
            by_video.setdefault(video_key(rowid), []).append(rowid)
        if rowids and len(rowids) >= limit:
            by_video.pop(video_key(rowids[-1]), None)
        for key, found in by_video.items():
            self.complete.setdefault(key, sorted(found))

    # -- relevance ------------------------------------------------------------------------

    def candidates(self) -> list[int]:
        """The rowids relevance scores (each of the phrase's and the titles' is one of the
        matches too, so a rowid comes once).

        The latest matches are read and scored first. When they are all the matches, or
        when their scores show that the newest of a narrower list are they (every one of
        them found as written, or as words for a query of one term), that list is not
        read: the answer is the same, and a phrase of common words costs a read of its
        matches less for each list left out."""
        # The matches themselves are read apart (and scored as they are read, where the
        # ranking function can): the videos they hold whole are noted.
        tail = f" ORDER BY {ROWID} DESC LIMIT {RANKED}"
        if self.ranking is not None:
            sql, params = self.matches(f"{ROWID}, subsearch_rank(documents_fts, ?, ?)", tail)
            ranked = self.conn.execute(sql, [self.plan, self.ranking, *params]).fetchall()
            self.scored.update((row[0], row[1]) for row in ranked)
            latest = [row[0] for row in ranked]
        else:
            sql, params = self.matches(ROWID, tail)
            latest = [row[0] for row in self.conn.execute(sql, params)]
        self._held_whole(latest, RANKED)
        self.latest = latest
        if len(latest) < RANKED:
            return sorted(latest)  # every match: each narrower list is among them
        scored = self.scores(latest).values()
        written = self.written
        if written is not None and min(scored) >= WRITTEN_FLOOR:
            written = None
        words = self.words
        if words is not None and self.one_term and min(scored) >= WORD_BONUS:
            words = None
        parts, params = [], []
        # The titles' and descriptions' from the video documents' own table: a title
        # match is found without walking every segment that says the same words.
        lists = (
            (written, RANKED, "documents_fts"),
            (words, RANKED, "documents_fts"),
            (self.phrase, RANKED // 2, "documents_fts"),
            (self.meta, RANKED // 4, "video_fts"),
        )
        for match, limit, table in lists:
            if match is None:
                continue
            # Scored as they are read, where the ranking function can (the query has
            # no phrase of all its words): a document needing a phrase the list's
            # expression lacks is scored from its columns.
            ranking = self.scorer.phrase_numbers(phrases(match)) if self.ranking else None
            score = f"subsearch_rank({table}, ?, ?)" if ranking else "NULL"
            sql, found = self.matches(
                f"{table}.rowid AS rowid, {score} AS score",
                f" ORDER BY {table}.rowid DESC LIMIT {limit}",
                match,
                table,
            )
            parts.append(f"SELECT rowid, score FROM ({sql})")
            params.extend([self.plan, ranking, *found] if ranking else found)
        others = self.conn.execute(" UNION ".join(parts), params).fetchall() if parts else []
        self.scored.update((row[0], row[1]) for row in others if row[1] is not None)
        return sorted({*latest, *(row[0] for row in others)})

    def scores(self, rowids: list[int]) -> dict[int, float]:
        """Each document's score (scoring.py), higher is better, each computed once a
        search: in SQLite by the C scorer, the documents' columns never read into
        Python; else from their columns here (kept for the page's hits)."""
        missing = [rowid for rowid in rowids if rowid not in self.scored]
        if missing and self.plan is not None:
            self.scored.update(scores_in_sqlite(self.conn, self.plan, missing))
        elif missing:
            columns = layout.token_columns(self.conn, missing)
            self.columns_read.update(columns)
            scorer = self.scorer
            self.scored.update((rowid, scorer.score(found)) for rowid, found in columns.items())
        return {rowid: self.scored[rowid] for rowid in rowids if rowid in self.scored}

    def token_columns(self, rowids: Iterable[int]) -> dict[int, tuple[str, ...]]:
        """The token columns of the documents at `rowids` (those that exist), each read
        once a search: the page's video documents and moments, for their fields and
        highlights."""
        missing = [rowid for rowid in rowids if rowid not in self.columns_read]
        if missing:
            self.columns_read.update(layout.token_columns(self.conn, missing))
        return self.columns_read

    def best_first(
        self, scores: Mapping[int, float], video_of: Callable[[int], int], count: int
    ) -> list[int]:
        """The `count` best of `scores` (rowids or video keys), higher first; a tie goes
        to the newest video, then the latest indexed, then the earlier document. Only
        the ties at the cut need their videos' dates, so only those are read."""
        ordered = sorted(scores, key=lambda item: -scores[item])
        if len(ordered) > count > 0:
            floor = scores[ordered[count - 1]]
            ordered = [item for item in ordered if scores[item] >= floor]
        keys = {video_of(item) for item in ordered}
        listed = ",".join(str(int(key)) for key in keys)  # integers: nothing to escape
        found = self.conn.execute(f"SELECT key, published_at FROM videos WHERE key IN ({listed})")
        published = {row[0]: row[1] for row in found}
        ordered.sort(
            key=lambda item: (published.get(video_of(item), ""), video_of(item), -item),
            reverse=True,
        )
        ordered.sort(key=lambda item: -scores[item])  # stable: the tie order stays
        return ordered[:count]

    # -- other orders -------------------------------------------------------------------

    def in_order(self, sort: str, documents: int) -> Iterator[int]:
        """The matching rowids in the sort's order: the videos in order, each video's
        matches by rowid. `documents` is how many match.

        Sorting the matching videos costs a read of every match, 100 ms for a word in
        a quarter of a million segments; when at least WALK_FROM documents match, the
        videos (of the channels asked) are walked in order instead, each asked for its
        matches, which fills a page after a few videos when most match. A walk that
        finds fewer than one video in WALK_SPARSE matching after WALK_PROBES videos
        (the matches sit in few videos) goes on with the sorted ones it has not seen."""
        walked: set[int] = set()
        if documents >= WALK_FROM:
            matched = 0
            for key in self._all_videos(sort):
                walked.add(key)
                found = self.in_video(key)
                matched += bool(found)
                yield from found
                if len(walked) >= WALK_PROBES and matched * WALK_SPARSE < len(walked):
                    break
            else:
                return
        for key in self.matching_videos(sort):
            if key not in walked:
                yield from self.in_video(key)

    def _all_videos(self, sort: str) -> Iterator[int]:
        conditions, params = [], list[object]()
        if self.channels:
            conditions.append(f"v.channel_id IN ({', '.join('?' * len(self.channels))})")
            params.extend(self.channels)
        if self.passing:
            conditions.append(self.passing.condition)
            params.extend(self.filter_params)
        where = " WHERE " + " AND ".join(conditions) if conditions else ""
        walked = self.conn.execute(
            f"SELECT v.key FROM videos v{where} ORDER BY {VIDEO_ORDER[sort]}", params
        )
        return (row[0] for row in walked)

    def matching_videos(self, sort: str) -> list[int]:
        """The keys of every matching video, in the sort's order."""
        return [row[0] for row in self.conn.execute(*self.videos_in_order(sort))]

    def videos_in_order(self, sort: str, tail: str = "") -> tuple[str, list[object]]:
        """A statement reading the matching videos' keys (`vkey`) in the sort's order."""
        where = f" WHERE {self.passing.condition}" if self.passing else ""
        return (
            (
                f"SELECT g.vkey FROM (SELECT DISTINCT rowid >> {VIDEO_SHIFT} AS vkey"
                " FROM documents_fts WHERE documents_fts MATCH ?) AS g"
                f" JOIN videos v ON v.key = g.vkey{where} ORDER BY {VIDEO_ORDER[sort]}{tail}"
            ),
            [self.match, *self.filter_params],
        )

    def in_video(self, key: int, limit: int = -1) -> list[int]:
        """The rowids of the video's matching documents, in order (the video document,
        then its segments by time)."""
        found = self.conn.execute(
            "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?"
            " AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?",
            (self.match, *layout.bounds(key), limit),
        )
        return [row[0] for row in found]

    def in_videos(self, keys: list[int], limit: int, match: str | None = None) -> list[int]:
        """The first `limit` matching documents of each video (of `match`, by default the
        query's), in one statement."""
        part = (
            "SELECT rowid FROM (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?"
            f" AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT {int(limit)})"
        )
        params: list[object] = []
        for key in keys:
            params.extend((match or self.match, *layout.bounds(key)))
        found = [
            row[0] for row in self.conn.execute(" UNION ALL ".join([part] * len(keys)), params)
        ]
        if match is None or match == self.match:
            held = {key: list[int]() for key in keys}
            for rowid in found:
                held[video_key(rowid)].append(rowid)
            for key, rowids in held.items():
                if limit < 0 or len(rowids) < limit:
                    self.complete.setdefault(key, rowids)
        return found

    def moment_candidates(self, keys: list[int], limit: int) -> list[int]:
        """The documents each video's moments are chosen from, outside relevance order: its
        first WORD_MOMENTS matches as words when it has any (they outrank the others, all
        alike but for bm25; one list is read instead of two, and a common word's page
        costs half), its first `limit` matches otherwise; and its video document when
        that matches."""
        if self.words is None:
            return self.in_videos(keys, limit)
        found = self.in_videos(keys, min(limit, WORD_MOMENTS), self.words)
        worded = {video_key(rowid) for rowid in found if is_segment(rowid)}
        found += self.in_videos([key for key in keys if key not in worded], limit)
        listed = set(found)
        documents = [key << VIDEO_SHIFT for key in worded if key << VIDEO_SHIFT not in listed]
        if documents:
            rows = self.conn.execute(
                "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?"
                f" AND rowid IN ({','.join(str(int(rowid)) for rowid in documents)})",
                (self.match,),
            )
            found += [row[0] for row in rows]
        return found


def in_sort_order(
    conn: sqlite3.Connection, items: list[int], sort: str, shift: int = 0
) -> list[int]:
    """`items` without repeats in their videos' order for `sort`, then by value: video
    keys, or rowids with `shift` VIDEO_SHIFT (a video's documents in place order)."""
    if not items:
        return []
    rows = conn.execute(
        f"SELECT f.value FROM json_each(?) AS f JOIN videos v ON v.key = f.value >> {shift}"
        f" GROUP BY f.value ORDER BY {VIDEO_ORDER[sort]}, f.value",
        ("[" + ",".join(str(int(item)) for item in items) + "]",),
    )
    return [row[0] for row in rows]


def phrase_term(query: Query) -> Term | None:
    """The query's words as one contiguous phrase, when it has several and is words and
    phrases alone (no OR, no prefix)."""
    if len(query.groups) < 2 or not query.simple:
        return None
    return make_term(join_texts([term.text for term in query.terms]))
