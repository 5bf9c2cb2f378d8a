"""Results by video: the page's videos, counted (exactly up to TOTAL_VIDEOS_CAP), each
with its best moments.

Rowids carry the video key (layout.py), so the full-text index groups matches by video
without reading a row. Relevance ranks videos by their candidates' scores (matching.py);
the other orders probe the videos in that order and score only the page's matches, to
choose each video's moments. A VideoFinder, built once a search, holds its query read
and its keyword side and takes each of these steps.
"""

from __future__ import annotations

import html
import itertools
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cached_property
from typing import Any, NamedTuple

from models.search.base import (
    MOMENTS_PER_VIDEO,
    TOTAL_VIDEOS_CAP,
    Hit,
    SearchQuery,
    VideoHit,
    VideoMoments,
    VideoResults,
)
from models.search.embedded import layout
from models.search.embedded.filters import video_filter
from models.search.embedded.layout import FTS_COLUMNS, VIDEO_SHIFT, is_segment, video_key
from models.search.embedded.matching import EVERY, RANKED, VIDEO_ORDER, Matching, in_sort_order
from models.search.embedded.meaning import (
    NEIGHBOURS,
    Meaning,
    by_video,
    fuse,
)
from models.search.embedded.moments import MatchedSegments, segment_spans, video_key_of
from models.search.embedded.scan import TARGET_COLUMNS, needs_scan, scan_rowids
from models.search.highlight import Indexed, Marker, matches
from models.search.moments import (
    VideoMoment,
    group_spans,
    list_moments,
    rank_moments,
)
from models.search.text import Term

# One video's scores: its video document's (None when it did not match), and its best
# segments' by rowid, best first.
Scores = tuple[float | None, dict[int, float]]
# A page of results: (LIMIT, OFFSET).
Page = tuple[int, int]
# Segments of one video read to choose its moments (overlapping ones merge into one).
CANDIDATES = 2 * MOMENTS_PER_VIDEO
# Matches of one video scored to choose its moments when the order is not relevance.
MOMENTS_READ = 64
# The segments of each video found by meaning, by rowid with their similarity.
Similar = Mapping[int, Mapping[int, float]]


class Listed(NamedTuple):
    """A video's moments for a search: how many, those listed (the first
    MOMENTS_PER_VIDEO for a page of videos, else all), and its segments found by
    keywords (a moment shown by one of them is highlighted; by meaning alone, not)."""

    total: int
    moments: list[VideoMoment]
    keyword: set[int]


def search_videos(
    conn: sqlite3.Connection, query: SearchQuery, meant: Meaning | None = None
) -> VideoResults:
    """The page of videos of `query` (its query read: SearchQuery.read), by meaning too
    when `meant` is given."""
    if not query.read.terms and meant is None:
        return VideoResults(total_videos=0, more_than_cap=False, videos=[])
    finder = VideoFinder(conn, query)
    return finder.by_meaning(meant) if meant is not None else finder.by_keywords()


def video_moments(
    conn: sqlite3.Connection, query: SearchQuery, video_id: str, meant: Meaning | None = None
) -> VideoMoments:
    """Every moment of one video for `query`, the page of them its page and per_page
    ask: the moments a page of videos shows it with first, then the others best first
    (embedded/moments.py); by meaning too when `meant` is given, its segments found among
    the NEIGHBOURS nearest documents, as a page of videos finds them."""
    key = video_key_of(conn, video_id)
    if key is None or (not query.read.terms and meant is None):
        return VideoMoments(total_moments=0, moments=[], semantic_applied=meant is not None)
    finder = VideoFinder(conn, query)
    similar = finder.similar(meant, NEIGHBOURS) if meant is not None else None
    listed = finder.moment_lists([key], meant, similar, every=True)[key]
    first = (query.page - 1) * query.per_page
    page = listed.moments[first : first + query.per_page]
    rows = layout.document_rows(conn, [int(moment.shown[0]) for moment in page])
    marked = listed.keyword if meant is not None else None
    return VideoMoments(
        total_moments=listed.total,
        moments=finder.moment_hits(page, rows, marked),
        semantic_applied=meant is not None,
    )


class VideoFinder:
    """One search's results by video, built once per search: it holds what every step
    reads (the connection, the search and its query read, the page, the filters) and its
    keyword side, and each step is one of its methods.

    The keyword side is the full-text index's Matching (matching.py), built once for the
    search; for a query the index cannot answer alone (a lone CJK character), a scan of
    the indexed text (scan.py), relevance being the videos holding the characters as
    words first, each part newest first, one scan finding the page and the count; none
    for a query with no words (a search by meaning alone)."""

    def __init__(self, conn: sqlite3.Connection, query: SearchQuery) -> None:
        self.conn, self.query = conn, query
        self.read = query.read
        self.terms = self.read.terms
        self.columns = tuple(TARGET_COLUMNS[t] for t in query.targets)
        self.page: Page = (query.per_page, (query.page - 1) * query.per_page)
        self.passing = video_filter(self.read.filters)
        self.scan = (
            scan_rowids(self.read, self.columns, query.channels, passing=self.passing)
            if self.terms and needs_scan(self.read)
            else None
        )
        self.ranked: dict[int, Scores] = {}  # the page's scores, when ranking found them
        self.candidate_keys: set[int] = set()  # the videos ranking scored

    @cached_property
    def matching(self) -> Matching:
        """The query over the full-text index (a query with words and no scan only)."""
        return Matching(self.conn, self.read, self.columns, self.query.channels, self.passing)

    @cached_property
    def marker(self) -> Marker:
        """Where the query's terms are in the page's moments (highlight.py), worked out
        once for all of them."""
        return Marker(self.terms)

    @cached_property
    def segments(self) -> MatchedSegments:
        """The keyword side's matching segments, video by video (every moment of them)."""
        indexed = self.matching if self.terms and self.scan is None else None
        return MatchedSegments(self.conn, self.query, indexed, self.passing)

    # -- the answers ------------------------------------------------------------------------

    def by_keywords(self) -> VideoResults:
        """Results by video for a search by its words alone."""
        total, keys = self.videos(self.query.sort, self.page)
        scores: dict[int, Scores] = {key: (None, {}) for key in keys}
        scores.update(self.scores(keys) if keys else {})
        listed = self.moment_lists(keys)
        rows = self._rows(keys, listed)
        found = [
            video for key in keys if (video := self._video_hit(scores[key], key, rows, listed[key]))
        ]
        return _results(total, found, semantic_applied=False)

    def by_meaning(self, meant: Meaning) -> VideoResults:
        """Results by video for a search by meaning: the keyword side's videos (to the
        page's depth) and the meaning side's (the videos of the nearest documents), fused
        by `sr` for relevance (meaning.fuse) or put in the sort's order for the others;
        each video's moments fused the same way from its keyword scores and its segments
        among the nearest documents."""
        query = self.query
        per_page, offset = self.page
        depth = offset + per_page
        keyword_total, keyword_keys = 0, list[int]()
        if meant.keywords_count and self.terms:
            keyword_total, keyword_keys = self.videos(query.sort, (depth, 0))
        nearest = by_video(
            meant.neighbours(
                self.conn, query.targets, query.channels, max(NEIGHBOURS, depth), self.passing
            )
        )
        meant_keys = list(nearest)  # nearest first
        fused: dict[int, float] = {}
        if query.sort == "relevance":
            fused = dict(fuse(keyword_keys, meant_keys, meant.sr))
            ranked = list(fused)
        else:
            ranked = in_sort_order(self.conn, [*keyword_keys, *meant_keys], query.sort)
        only_meant = [key for key in meant_keys if key not in set(keyword_keys)]
        total = (keyword_total if meant.keywords_count else 0) + len(only_meant)
        keys = ranked[offset:depth]
        keyword_scores = (
            self.scores([key for key in keys if key in set(keyword_keys)]) if keys else {}
        )
        scores: dict[int, Scores] = {}
        for key in keys:
            meta_score, keyword_segments = keyword_scores.get(key, (None, {}))
            meant_meta = nearest.get(key, {}).get(key << VIDEO_SHIFT)
            similar = {
                rowid: sim for rowid, sim in nearest.get(key, {}).items() if is_segment(rowid)
            }
            segments = _fused_moments(keyword_segments, similar, meant.sr)
            meta = meta_score if meta_score is not None else meant_meta
            scores[key] = (meta, segments)
        # The moments by meaning are those of the NEIGHBOURS nearest documents, as the
        # list of one video's moments finds them, however deep the page.
        moments_near = nearest if depth <= NEIGHBOURS else self.similar(meant, NEIGHBOURS)
        listed = self.moment_lists(keys, meant, moments_near)
        rows = self._rows(keys, listed)
        found = []
        for key in keys:
            video = self._video_hit(scores[key], key, rows, listed[key], marked=True)
            if video is None:
                continue
            if key in nearest and (key << VIDEO_SHIFT) in nearest[key]:
                video = replace(video, matched_in=_meant_fields(video.matched_in, query.targets))
            if key in fused:  # the order's own score: higher is better within the answer
                video = replace(video, score=fused[key])
            found.append(video)
        return _results(total, found, semantic_applied=True)

    def _rows(self, keys: list[int], listed: Mapping[int, Listed]) -> dict[int, sqlite3.Row]:
        """The page's video documents and the segments showing their moments, by rowid."""
        shown = [int(moment.shown[0]) for key in keys for moment in listed[key].moments]
        documents = [*(key << VIDEO_SHIFT for key in keys), *shown]
        if self.terms and self.scan is None:
            self.matching.token_columns(documents)  # read once, for fields and highlights
        return layout.document_rows(self.conn, documents)

    # -- moments ------------------------------------------------------------------------

    def similar(self, meant: Meaning, count: int) -> dict[int, dict[int, float]]:
        """The `count` documents nearest the query, grouped by video (meaning.by_video)."""
        found = meant.neighbours(
            self.conn, self.query.targets, self.query.channels, count, self.passing
        )
        return by_video(found)

    def moment_lists(
        self,
        keys: list[int],
        meant: Meaning | None = None,
        similar: Similar | None = None,
        *,
        every: bool = False,
    ) -> dict[int, Listed]:
        """Each video's moments (models/search/moments.py): its matching segments by
        keywords (every one, by their times) and, given `similar`, those found by meaning,
        made into moments in time order and ranked, for a page of videos from at most
        SHOWN_SCORED keyword segments of each (embedded/moments.py), fused with the
        meaning ranking by `sr`. `every`: all the moments, the rest ranked from every
        segment; else the first MOMENTS_PER_VIDEO."""
        keyword = self.segments.spans(keys) if meant is None or meant.keywords_count else {}
        near = {
            key: {
                rowid: sim
                for rowid, sim in (similar or {}).get(key, {}).items()
                if is_segment(rowid)
            }
            for key in keys
        }
        meant_spans = {
            span[0]: span
            for span in segment_spans(self.conn, [r for n in near.values() for r in n])
        }
        shown_ranks = self.segments.ranked(keyword, shown=True)
        every_ranks = self.segments.ranked(keyword, shown=False) if every else shown_ranks
        listed = {}
        for key in keys:
            spans = keyword.get(key, [])
            found_by_keywords: set[int] = set()
            if meant is not None:
                found_by_keywords = {int(span[0]) for span in spans}
                meant_only = set(near[key]) - found_by_keywords
                spans = [*spans, *(span for r, span in meant_spans.items() if r in meant_only)]
            groups = group_spans(spans)
            by_meaning = sorted(near[key], key=lambda rowid: (-near[key][rowid], rowid))
            shown = _ranking(shown_ranks.get(key, []), by_meaning, meant)
            if every:
                every_rank = _ranking(every_ranks.get(key, []), by_meaning, meant)
                ranked = list_moments(groups, shown, every_rank)
            else:
                ranked = rank_moments(groups, shown, MOMENTS_PER_VIDEO)
            listed[key] = Listed(len(groups), ranked, found_by_keywords)
        return listed

    def moment_hits(
        self, moments: list[VideoMoment], rows: Mapping[int, sqlite3.Row], marked: set[int] | None
    ) -> list[Hit]:
        """The moments as hits, each the text of the segment showing it over the moment's
        range; highlighted (told by its token columns where the words are) unless
        `marked` is given and it is not in it (found by meaning alone: escaped). A
        moment whose segment has gone meanwhile is left out. Each hit is built once, with
        its video's fields read once a video."""
        hits = []
        fields: dict[int, dict[str, Any]] = {}
        for moment in moments:
            rowid = int(moment.shown[0])
            row = rows.get(rowid)
            if row is None:
                continue
            key = video_key(rowid)
            if key not in fields:
                fields[key] = layout.video_fields(row)
            text = row["text"] or ""
            if marked is None or rowid in marked:
                marks = self.marker.highlight(text, self._text_tokens(rowid))
            else:
                marks = html.escape(text)
            hits.append(
                Hit(
                    **fields[key],
                    matched_in="subtitle",
                    start=moment.start,
                    end=moment.end,
                    text=text,
                    highlight=marks,
                )
            )
        return hits

    def _video_hit(
        self,
        scores: Scores,
        key: int,
        rows: Mapping[int, sqlite3.Row],
        listed: Listed,
        *,
        marked: bool = False,
    ) -> VideoHit | None:
        """One video of the page from its scores, moments and rows; None if it has gone
        meanwhile. `marked`: only moments shown by a keyword segment are highlighted (a
        search by meaning)."""
        meta_score, _ = scores
        video = rows.get(key << VIDEO_SHIFT)
        if video is None:
            return None
        # Highlighting is the costly part of a hit: only the moments shown get it.
        moments = self.moment_hits(listed.moments, rows, listed.keyword if marked else None)
        matched = ["subtitle"] if moments else []
        if meta_score is not None:
            targets = self.query.targets
            fields = tuple(target for target in ("title", "description") if target in targets)
            held = self._meta_fields(key, fields)
            matched.extend(held if held is not None else _meta_matches(video, self.terms, fields))
        return VideoHit(
            **layout.video_fields(video),
            score=_total(scores),
            moments=moments,
            matched_in=tuple(matched),
            total_moments=listed.total if moments else 0,
        )

    def _meta_fields(self, key: int, fields: tuple[str, ...]) -> list[str] | None:
        """Which of `fields` (title, description) of the video's document hold a term,
        from its token columns when they were read (None: look in the text)."""
        if not self.terms:
            return []
        if self.scan is not None:
            return None
        found = self.matching.columns_read.get(key << VIDEO_SHIFT)
        if found is None:
            return None
        return [field for field in fields if self.matching.scorer.holds(found, field)]

    def _text_tokens(self, rowid: int) -> Indexed | None:
        """A segment's subtitle word and reading columns, when they were read (for
        highlight)."""
        if not self.terms or self.scan is not None:
            return None
        found = self.matching.columns_read.get(rowid)
        if found is None:
            return None
        return Indexed(
            found[FTS_COLUMNS.index("text_words")], found[FTS_COLUMNS.index("text_reading")]
        )

    # -- the keyword side -----------------------------------------------------------------

    def videos(self, sort: str, page: Page) -> tuple[int, list[int]]:
        """How many videos match (exact up to TOTAL_VIDEOS_CAP, more beyond) and the
        keys of the page's videos in order."""
        if not self.terms:
            return 0, []
        if self.scan is not None:
            return self._scanned_videos(self.scan, sort, page)
        latest = self.matching.latest_matches()
        if latest is not None and len(latest) <= EVERY:
            return self._among(latest, sort, page)
        if sort == "relevance":
            # The candidates first: their read tells the count how to go (or is it).
            candidates = latest[:RANKED] if latest else self.matching.candidates()
            if not candidates:
                return 0, []
            total = self.matching.videos(TOTAL_VIDEOS_CAP)
            keys = self._by_relevance(page, candidates)
            if len(keys) < page[0] and total > page[1] + len(keys):
                keys += self._beyond_ranked(page, len(keys), total)
            return total, keys
        total = self.matching.videos(TOTAL_VIDEOS_CAP)
        if not total:
            return 0, []
        if total > TOTAL_VIDEOS_CAP:
            return total, self._probed(sort, page)
        sql, params = self.matching.videos_in_order(sort, " LIMIT ? OFFSET ?")
        rows = self.conn.execute(sql, (*params, *page))
        return total, [row["vkey"] for row in rows]

    def scores(self, keys: list[int]) -> dict[int, Scores]:
        """For each video: its video document's score (None when it did not match) and
        its best matching segments' rowids with their scores, best first (higher is
        better)."""
        if not self.terms:
            return {}
        if self.scan is not None:
            return self._scanned_scores(keys)
        if all(key in self.ranked for key in keys):
            return self.ranked
        scored = self.matching.scores(self.matching.moment_candidates(keys, MOMENTS_READ))
        split = _split(sorted(scored.items(), key=lambda item: -item[1]))
        return {key: _best(scores) for key, scores in split.items()}

    def _among(self, every: list[int], sort: str, page: Page) -> tuple[int, list[int]]:
        """The page when `every` is all the query's matches: each scored for relevance,
        their videos put in order for the other sorts."""
        keys = list(dict.fromkeys(video_key(rowid) for rowid in every))
        if sort == "relevance":
            return len(keys), self._by_relevance(page, every)
        per_page, offset = page
        return len(keys), in_sort_order(self.conn, keys, sort)[offset : offset + per_page]

    def _by_relevance(self, page: Page, candidates: list[int] | None = None) -> list[int]:
        """Videos by their best segment's score plus their video document's, then the
        newest; past the candidates' videos, the others newest first (_beyond_ranked)."""
        found = candidates if candidates is not None else self.matching.candidates()
        scored = self.matching.scores(found)
        self.candidate_keys = {video_key(rowid) for rowid in scored}
        ranked = _split(sorted(scored.items(), key=lambda item: -item[1]))
        totals = {key: _total(scores) for key, scores in ranked.items()}
        per_page, offset = page
        keys = self.matching.best_first(totals, _itself, offset + per_page)[offset:]
        self.ranked = {key: _best(ranked[key]) for key in keys}
        return keys

    def _beyond_ranked(self, page: Page, found: int, total: int) -> list[int]:
        """The rest of a relevance page past the ranked videos: the other matching
        videos, newest first (sorted when they are counted, probed in order when more
        than that match)."""
        per_page, offset = page
        skip = max(0, offset - len(self.candidate_keys))
        if total <= TOTAL_VIDEOS_CAP:
            newest: Iterable[int] = self.matching.matching_videos("newest")
        else:
            holds, params = self.matching.in_video_sql()
            newest = (
                row[0]
                for row in self.conn.execute(
                    f"SELECT v.key FROM videos v WHERE {holds} ORDER BY {VIDEO_ORDER['newest']}",
                    params,
                )
            )
        rest = (key for key in newest if key not in self.candidate_keys)
        return list(itertools.islice(rest, skip, skip + per_page - found))

    def _probed(self, sort: str, page: Page) -> list[int]:
        """Videos in the sort's order, each asked whether it matches: quick when many do,
        which is when this is used (more than TOTAL_VIDEOS_CAP match)."""
        holds, params = self.matching.in_video_sql()
        rows = self.conn.execute(
            f"SELECT v.key AS vkey FROM videos v WHERE {holds}"
            f" ORDER BY {VIDEO_ORDER[sort]} LIMIT ? OFFSET ?",
            (*params, *page),
        )
        return [row["vkey"] for row in rows]

    def _scanned_videos(
        self, scan: tuple[str, list[object]], sort: str, page: Page
    ) -> tuple[int, list[int]]:
        """The page's videos and their count from one `scan` (a second one only for a
        page past the last)."""
        matching, params = scan
        order = VIDEO_ORDER.get(sort, VIDEO_ORDER["newest"])
        if sort == "relevance":
            order = f"g.words DESC, {order}"
        grouped = (
            f"SELECT rowid >> {VIDEO_SHIFT} AS vkey, max(words) AS words FROM ({matching})"
            " GROUP BY vkey"
        )
        rows = self.conn.execute(
            f"SELECT g.vkey, count(*) OVER () AS total FROM ({grouped}) AS g"
            f" JOIN videos v ON v.key = g.vkey ORDER BY {order} LIMIT ? OFFSET ?",
            (*params, *page),
        ).fetchall()
        if rows:
            return rows[0]["total"], [row["vkey"] for row in rows]
        if not page[1]:
            return 0, []  # the first page is empty: nothing matches, no second scan
        counted: int = self.conn.execute(
            f"SELECT count(*) FROM ({grouped} LIMIT ?)", (*params, TOTAL_VIDEOS_CAP + 1)
        ).fetchone()[0]
        return counted, []

    def _scanned_scores(self, keys: list[int]) -> dict[int, Scores]:
        """The videos' moments by a scan of their documents alone (rowid ranges): those
        holding the characters as words first."""
        matching, params = scan_rowids(self.read, self.columns, self.query.channels, keys)
        rows = self.conn.execute(
            f"SELECT rowid, words AS score FROM (SELECT rowid, words, row_number() OVER ("
            f" PARTITION BY rowid >> {VIDEO_SHIFT} ORDER BY words DESC, rowid) AS n"
            f" FROM ({matching})) WHERE n <= {CANDIDATES + 1} ORDER BY words DESC, rowid",
            params,
        )
        return _split((row[0], row[1]) for row in rows)


def _results(total: int, found: list[VideoHit], *, semantic_applied: bool) -> VideoResults:
    return VideoResults(
        total_videos=min(total, TOTAL_VIDEOS_CAP),
        more_than_cap=total > TOTAL_VIDEOS_CAP,
        videos=found,
        semantic_applied=semantic_applied,
    )


def _meant_fields(matched: tuple[str, ...], targets: tuple[str, ...]) -> tuple[str, ...]:
    """What a video whose title and description were found by meaning matched in: its
    title (they are embedded together), or its description when only that is searched."""
    if {"title", "description"} & set(matched):
        return matched
    return (*matched, "title" if "title" in targets else "description")


def _fused_moments(
    keyword: Mapping[int, float], similar: Mapping[int, float], sr: float
) -> dict[int, float]:
    """A video's CANDIDATES best segments by the fusion of their keyword and meaning
    ranks."""
    by_keyword = sorted(keyword, key=lambda rowid: -keyword[rowid])
    by_meaning = sorted(similar, key=lambda rowid: -similar[rowid])
    return dict(fuse(by_keyword, by_meaning, sr)[:CANDIDATES])


def _split(rows: Iterable[tuple[int, float]]) -> dict[int, Scores]:
    """Scored rows of several videos as each video's Scores, segments in the rows' order."""
    found: dict[int, Scores] = {}
    for rowid, score in rows:
        key = video_key(rowid)
        segments = found.setdefault(key, (None, {}))[1]
        if is_segment(rowid):
            segments[rowid] = score
        else:
            found[key] = (score, segments)
    return found


def _best(scores: Scores) -> Scores:
    """The video's CANDIDATES best segments (its segments come best first)."""
    meta, segments = scores
    return meta, dict(list(segments.items())[:CANDIDATES])


def _itself(key: int) -> int:
    return key


def _total(scores: Scores) -> float:
    meta, segments = scores
    return max(segments.values(), default=0.0) + (meta or 0.0)


def _ranking(keyword: list[int], by_meaning: list[int], meant: Meaning | None) -> list[int]:
    """A video's segments best first: by keywords, or fused with the meaning ranking by
    `sr` (a segment of a side without weight left out)."""
    if meant is None:
        return keyword
    return [rowid for rowid, _ in fuse(keyword, by_meaning, meant.sr)]


def _meta_matches(row: sqlite3.Row, terms: list[Term], fields: tuple[str, ...]) -> list[str]:
    """Which of the video document's `fields` hold a match, read in their text."""
    return [field for field in fields if matches(row[field] or "", terms)]
