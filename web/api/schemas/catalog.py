"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, Any, Literal, Self, get_args

from pydantic import (
    Discriminator,
    Field,
    PrivateAttr,
    RootModel,
    Tag,
    field_validator,
    model_validator,
)

from models import tables
from models.credits import calculate_credit_cost
from models.errors import ValidationError
from models.search import (
    DEFAULT_SEMANTIC_RATIO,
    SORTS,
    TARGETS,
    TOTAL_VIDEOS_CAP,
    SearchQuery,
    bounds,
)
from models.search import base as engine
from models.search.query import MAX_NUMBER, QueryError
from models.search.snippets import Snippet
from web.api.schemas.common import (
    PLATFORM_ID,
    PathParams,
    PlatformId,
    Query,
    Response,
    RowId,
    Timestamp,
    known,
    pattern,
    text,
)
from web.search_refusals import bound_message, problem_message

MAX_CHANNELS = 50
CHANNEL_ID = re.compile(PLATFORM_ID)
MatchedIn = Literal["subtitle", "title", "description"]
MATCHED_IN: tuple[MatchedIn, ...] = get_args(MatchedIn)
SubtitleStatus = Literal["pending", "completed", "failed", "unavailable", "deleted"]
SUBTITLE_STATUSES: tuple[SubtitleStatus, ...] = get_args(SubtitleStatus)
# The search's channels and targets as its address carries them, comma-separated.
ChannelList = Annotated[str, pattern(r"^[A-Za-z0-9_,\s-]*$", max_length=MAX_CHANNELS * 66)]
TargetList = Annotated[str, pattern(r"^[a-z,\s]*$", max_length=64)]


def watch_url(video_id: str, start: float | None) -> str:
    """The video on the platform, at `start` seconds when there is one."""
    url = f"https://www.youtube.com/watch?v={video_id}"
    return f"{url}&t={int(start)}s" if start else url


def total_pages(total: int, per_page: int) -> int:
    return -(-total // per_page)


def _split(value: str | None) -> list[str]:
    return sorted({part.strip() for part in (value or "").split(",") if part.strip()})


class QueryRefused(ValidationError):
    """A query that cannot be read (models/search/query.py): the problem, the part and
    where it stands, in the API's words; the search page says it in the reader's (both
    web/search_refusals.py). It is
    found once every other parameter has been read, so it carries the search they ask
    for, with the text that cannot be read as its `q`; the page keeps it in its form."""

    def __init__(self, error: QueryError, search: SearchQuery) -> None:
        super().__init__(problem_message(error), fields={"q": error.short()})
        self.error = error
        self.search = search


def _refused(field: str, problem: str) -> ValidationError:
    """A search past one of its bounds (models/search/bounds.py): the field and the
    problem in the API's words."""
    return ValidationError(bound_message(problem), fields={field: problem})


class SearchWords(Query):
    """What a search asks, whatever lists its answer: the words and where to look
    (SearchParams for the search, MomentsParams for the moments of one video)."""

    q: Annotated[str, text(bounds.MAX_QUERY_LENGTH, min_length=1)] = Field(
        description=f"What was said (1-{bounds.MAX_QUERY_LENGTH} characters; at most"
        f" {bounds.MAX_TERMS} words or quoted phrases, of which at most"
        f" {bounds.MAX_SCAN_TERMS} single CJK characters), in the query language: words"
        ' all match, `"a phrase"` in a row, `-word` and `-"a phrase"` leave out what says'
        " them, `A OR B` (or `A | B`) either, `word*` Latin words starting so; filters"
        " `after:YYYY-MM-DD`, `before:YYYY-MM-DD` (YYYY-MM and YYYY too; both days"
        " included), `duration:short|medium|long` (under 4 min, 4-20, over 20) or"
        " `duration:>20m` / `<4m` / `>=1h30m`, `type:manual|auto`, `lang:` an ISO 639-1"
        " code of the subtitles, `views:>10000` / `views:<500`. Example:"
        ' `ラーメン -カップ "替え玉" after:2024-01-01 duration:long type:manual`. A query'
        " that cannot be read (an unknown filter, a date outside the calendar, a length"
        f" or view count past {MAX_NUMBER:,}, a lone `-`) is 400"
        " invalid_request, the message naming the part and its character position;"
        " text that only looks like a filter (12:30, 例：東京) is text.",
        examples=["ラーメン -カップ after:2024-01-01 duration:long", "うどん OR そば lang:ja"],
    )
    channels: ChannelList | None = Field(
        default=None, description=f"Up to {MAX_CHANNELS} comma-separated channel ids"
    )
    target: TargetList | None = Field(
        default=None, description=f"A comma-separated subset of {', '.join(TARGETS)}"
    )
    semantic: Literal["0", "1"] = Field(
        default="0",
        description="1: search by meaning as well as by keywords, weighed by `sr`;"
        " 0: keywords only",
    )
    sr: float = Field(
        default=DEFAULT_SEMANTIC_RATIO,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="With semantic=1, how far the ranking leans to meaning: 0 keywords only,"
        f" 1 meaning only (default {DEFAULT_SEMANTIC_RATIO}); counts for nothing without it",
    )

    @field_validator("channels")
    @classmethod
    def _channels(cls, value: str | None) -> str | None:
        parts = _split(value)
        if len(parts) > MAX_CHANNELS or not all(CHANNEL_ID.match(part) for part in parts):
            raise ValueError(f"up to {MAX_CHANNELS} comma-separated channel ids")
        return value

    @field_validator("target")
    @classmethod
    def _targets(cls, value: str | None) -> str | None:
        if set(_split(value)) - set(TARGETS):
            raise ValueError(f"a comma-separated subset of {', '.join(TARGETS)}")
        return value

    # The search asked, its query read here once and handed on (SearchQuery.read).
    _search: SearchQuery = PrivateAttr()

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        """The query read (models/search/query.py) and what a search may cost
        (models/search/bounds.py), checked once the fields are."""
        search = self._asked()
        try:
            read = search.read
        except QueryError as error:
            raise QueryRefused(error, search) from None
        problem = bounds.query_problem(read)
        if problem:
            raise _refused("q", problem)
        problem = self._depth_problem()
        if problem:
            raise _refused("page", problem)
        self._search = search
        return self

    def _depth_problem(self) -> str | None:
        """Why the page asked is refused (bounds.py); None: it is not."""
        return None

    def search_query(self) -> SearchQuery:
        """The search asked, with its query read (SearchQuery.read): the engine and the
        page take it from there instead of reading `q` again."""
        return self._search

    def _asked(self) -> SearchQuery:
        """Channels and targets normalised (sorted, unique), so one search condition
        is one history row."""
        return SearchQuery(
            q=self.q,
            channels=tuple(_split(self.channels)),
            targets=tuple(_split(self.target)) or TARGETS,
            semantic=self.semantic == "1",
            sr=round(self.sr, 4),
        )


class SearchParams(SearchWords):
    sort: Literal[SORTS] = "relevance"  # type: ignore[valid-type]
    page: int = Field(
        default=1,
        ge=1,
        le=bounds.MAX_DEPTH,
        description=f"From 1; page x perPage at most {bounds.MAX_DEPTH}",
    )
    per_page: int = Field(default=20, ge=1, le=100)
    group_by: Literal["video"] | None = Field(
        default=None,
        description="`video`: one entry per video with its best moments, pages over "
        "videos (VideoSearchResults); absent: one entry per hit (SearchResults)",
    )

    def _depth_problem(self) -> str | None:
        return bounds.depth_problem(self.page, self.per_page)

    def _asked(self) -> SearchQuery:
        return replace(super()._asked(), sort=self.sort, page=self.page, per_page=self.per_page)


# A video's moments listed at most, perPage 100 a page: more than any video has (a
# moment holds a segment, a video at most a million of them).
MAX_MOMENT_PAGE = 10_000


class MomentsParams(SearchWords):
    """The search whose moments of one video are listed (GET /api/videos/{id}/moments):
    the words, targets, channels and meaning as the search asked them, and a page of
    moments. Any page may be asked: listing a video's moments costs the same at any
    depth, unlike ranking videos (the search's page x perPage bound)."""

    page: int = Field(default=1, ge=1, le=MAX_MOMENT_PAGE, description="From 1")
    per_page: int = Field(default=20, ge=1, le=100, description="Moments a page")

    def _asked(self) -> SearchQuery:
        return replace(super()._asked(), page=self.page, per_page=self.per_page)


class SemanticState(Response):
    requested: bool = Field(description="`semantic=1` was sent")
    applied: bool = Field(
        description="The embedding model is loaded and the search was made by meaning;"
        " false: keyword results only"
    )


class SearchHit(Response):
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    published_at: str | None
    thumbnail_url: str | None
    matched_in: MatchedIn
    start: float | None = Field(description="Seconds; null for title and description hits")
    end: float | None
    text: str
    highlight: str = Field(
        description="HTML-escaped text with <mark> around matched words; none when found"
        " by meaning alone"
    )
    url: str

    @classmethod
    def of(cls, hit: engine.Hit) -> SearchHit:
        return cls(
            video_id=hit.video_id,
            video_title=hit.video_title,
            channel_id=hit.channel_id,
            channel_title=hit.channel_title,
            published_at=hit.published_at,
            thumbnail_url=hit.thumbnail_url,
            matched_in=known(hit.matched_in, MATCHED_IN),
            start=hit.start,
            end=hit.end,
            text=hit.text,
            highlight=hit.highlight,
            url=watch_url(hit.video_id, hit.start),
        )


class SearchResults(Response):
    """Without `groupBy`: one entry per hit (a subtitle moment, a title or a
    description), pages over hits."""

    query: str
    page: int
    per_page: int
    total_hits: int
    total_pages: int
    semantic: SemanticState
    hits: list[SearchHit]

    @classmethod
    def of(cls, query: SearchQuery, found: engine.SearchResults) -> SearchResults:
        return cls(
            query=query.q,
            page=query.page,
            per_page=query.per_page,
            total_hits=found.total_hits,
            total_pages=total_pages(found.total_hits, query.per_page),
            semantic=SemanticState(requested=query.semantic, applied=found.semantic_applied),
            hits=[SearchHit.of(hit) for hit in found.hits],
        )


class Moment(Response):
    start: float = Field(description="Seconds")
    end: float
    highlight: str = Field(
        description="HTML-escaped text with <mark> around matched words; none when found"
        " by meaning alone"
    )
    matched_in: MatchedIn
    url: str = Field(description="The video on the platform at this moment")

    @classmethod
    def of(cls, hit: engine.Hit) -> Moment:
        if hit.start is None or hit.end is None:  # a moment is a subtitle hit, with its times
            raise ValueError(f"a moment of {hit.video_id} without its start and end")
        return cls(
            start=hit.start,
            end=hit.end,
            highlight=hit.highlight,
            matched_in=known(hit.matched_in, MATCHED_IN),
            url=watch_url(hit.video_id, hit.start),
        )


class VideoChannel(Response):
    id: str
    title: str


class VideoResult(Response):
    video_id: str
    title: str
    channel: VideoChannel
    published_at: str | None
    thumbnail_url: str | None
    score: float = Field(description="Higher is better; comparable within one answer")
    url: str
    moments: list[Moment] = Field(
        description="Up to 3 subtitle moments, best first; empty when only the title or "
        "the description matched"
    )
    total_moments: int = Field(
        ge=0,
        description="Every moment of the video for this search, as "
        "GET /api/videos/{videoId}/moments lists them (its first are `moments`); 0 when "
        "only the title or the description matched",
    )

    @classmethod
    def of(cls, video: engine.VideoHit) -> VideoResult:
        return cls(
            video_id=video.video_id,
            title=video.video_title,
            channel=VideoChannel(id=video.channel_id, title=video.channel_title),
            published_at=video.published_at,
            thumbnail_url=video.thumbnail_url,
            score=video.score,
            url=watch_url(video.video_id, None),
            moments=[Moment.of(hit) for hit in video.moments],
            total_moments=video.total_moments,
        )


class VideoSearchResults(Response):
    """With `groupBy=video`: one entry per video with its best moments; the sort and
    the pages apply to videos."""

    query: str
    page: int
    per_page: int
    total_videos: int = Field(
        description=f"Exact up to {TOTAL_VIDEOS_CAP:,}; {TOTAL_VIDEOS_CAP:,} when more match"
    )
    total_videos_capped: bool = Field(
        description=f"More than {TOTAL_VIDEOS_CAP:,} videos match: read totalVideos as "
        f'"{TOTAL_VIDEOS_CAP:,}+"'
    )
    total_pages: int
    semantic: SemanticState
    videos: list[VideoResult]

    @classmethod
    def of(cls, query: SearchQuery, found: engine.VideoResults) -> VideoSearchResults:
        return cls(
            query=query.q,
            page=query.page,
            per_page=query.per_page,
            total_videos=found.total_videos,
            total_videos_capped=found.more_than_cap,
            total_pages=total_pages(found.total_videos, query.per_page),
            semantic=SemanticState(requested=query.semantic, applied=found.semantic_applied),
            videos=[VideoResult.of(video) for video in found.videos],
        )


class MomentCue(Response):
    start: float = Field(description="Seconds")
    highlight: str = Field(description="The cue's words, HTML-escaped, <mark> around matches")


class ListedMoment(Moment):
    cues: list[MomentCue] = Field(
        description="The moment cut back into the subtitle cues it was joined from, in "
        "time order, as the search page shows it; one piece (its highlight, from its "
        "start) when the stored subtitles no longer give its words"
    )

    @classmethod
    def listed(cls, hit: engine.Hit, snippet: Snippet) -> ListedMoment:
        cues = [MomentCue(start=cue.start, highlight=cue.html) for cue in snippet.cues]
        return cls(**Moment.of(hit).model_dump(), cues=cues)


class VideoMoments(Response):
    """Every moment of one video for a search, a page of them: the moments its grouped
    answer shows first, then the others, best first."""

    video_id: str
    query: str
    page: int
    per_page: int
    total_moments: int = Field(
        ge=0, description="The video's moments for this search: its `totalMoments`"
    )
    total_pages: int
    semantic: SemanticState
    moments: list[ListedMoment]

    @classmethod
    def of(
        cls,
        video_id: str,
        query: SearchQuery,
        found: engine.VideoMoments,
        snippets: list[Snippet],
    ) -> VideoMoments:
        return cls(
            video_id=video_id,
            query=query.q,
            page=query.page,
            per_page=query.per_page,
            total_moments=found.total_moments,
            total_pages=total_pages(found.total_moments, query.per_page),
            semantic=SemanticState(requested=query.semantic, applied=found.semantic_applied),
            moments=[
                ListedMoment.listed(hit, snippet)
                for hit, snippet in zip(found.moments, snippets, strict=True)
            ],
        )


def _shape(body: Any) -> str:
    """Which answer a body is: grouped ones carry `videos`, flat ones `hits`."""
    if isinstance(body, dict):
        return "videos" if "videos" in body else "hits"
    return "videos" if isinstance(body, VideoSearchResults) else "hits"


class SearchAnswer(
    RootModel[
        Annotated[
            Annotated[SearchResults, Tag("hits")] | Annotated[VideoSearchResults, Tag("videos")],
            Discriminator(_shape),
        ]
    ]
):
    """One of two shapes, by `groupBy`: SearchResults without it, VideoSearchResults
    with `groupBy=video`."""


class HistoryEntry(Response):
    id: int
    query: str
    channels: list[str]
    target: list[str]
    sort: str
    semantic: bool
    sr: float
    searched_at: Timestamp
    created_at: Timestamp

    @classmethod
    def of(cls, entry: tables.SearchHistory) -> HistoryEntry:
        return cls(
            id=entry.id,
            query=entry.query,
            channels=[c for c in entry.channels.split(",") if c],
            target=entry.target.split(","),
            sort=entry.sort,
            semantic=bool(entry.semantic),
            sr=entry.sr,
            searched_at=entry.searched_at,
            created_at=entry.created_at,
        )


class History(Response):
    history: list[HistoryEntry]

    @classmethod
    def of(cls, entries: list[tables.SearchHistory]) -> History:
        return cls(history=[HistoryEntry.of(entry) for entry in entries])


class HistoryEntryPath(PathParams):
    entry_id: RowId


class ChannelPath(PathParams):
    channel_id: PlatformId


class Channel(Response):
    id: str
    title: str
    handle: str | None
    thumbnail_url: str | None
    subtitle_status: str
    video_count: int
    country: str | None
    subscriber_count: int | None

    @classmethod
    def fields_of(cls, channel: tables.Channel) -> dict[str, Any]:
        return {
            "id": channel.id,
            "title": channel.title,
            "handle": channel.handle,
            "thumbnail_url": channel.thumbnail_url,
            "subtitle_status": channel.subtitle_status,
            "video_count": channel.video_count,
            "country": channel.country,
            "subscriber_count": channel.subscriber_count,
        }

    @classmethod
    def of(cls, channel: tables.Channel) -> Channel:
        return cls(**cls.fields_of(channel))


class Favorite(Channel):
    channel_id: str
    created_at: Timestamp


class Favorites(Response):
    favorites: list[Favorite]

    @classmethod
    def of(cls, rows: list[tuple[tables.FavoriteChannel, tables.Channel]]) -> Favorites:
        return cls(
            favorites=[
                Favorite(
                    **Channel.fields_of(channel),
                    channel_id=channel.id,
                    created_at=row.created_at,
                )
                for row, channel in rows
            ]
        )


class Video(Response):
    id: str
    channel_id: str
    title: str
    thumbnail_url: str | None
    duration_seconds: int
    view_count: int | None
    like_count: int | None
    published_at: str
    category_id: str | None
    subtitle_status: SubtitleStatus
    subtitle_type: str | None
    fetch_attempts: int = Field(
        ge=0,
        description="Failed subtitle fetches in a row (0 unless `subtitleStatus` is "
        "`failed`); fetches are retried after 1 h, 6 h and 24 h",
    )
    next_retry_at: Timestamp | None = Field(
        description="When the failed fetch is tried again; null when no retry is due "
        "(not failed, or failed for good)"
    )
    credit_cost: int
    url: str

    @classmethod
    def of(cls, video: tables.Video) -> Video:
        return cls(
            id=video.id,
            channel_id=video.channel_id,
            title=video.title,
            thumbnail_url=video.thumbnail_url,
            duration_seconds=video.duration_seconds,
            view_count=video.view_count,
            like_count=video.like_count,
            published_at=video.published_at,
            category_id=video.category_id,
            subtitle_status=known(video.subtitle_status, SUBTITLE_STATUSES),
            subtitle_type=video.subtitle_type,
            fetch_attempts=video.fetch_attempts,
            next_retry_at=video.next_fetch_at,
            credit_cost=calculate_credit_cost(video.duration_seconds),
            url=watch_url(video.id, None),
        )


class Segment(Response):
    start: float
    end: float
    text: str


# JSON, or the transcript as a file (models/transcript_files.py, FILE_FORMATS).
SubtitleFormat = Literal["json", "srt", "vtt", "txt"]


class SubtitlesParams(Query):
    format: SubtitleFormat = Field(
        default="json",
        description="`json` (default): the segments as JSON. A file to download, with its "
        "name from the video's title: `srt` (SubRip, `application/x-subrip`), `vtt` "
        "(WebVTT, `text/vtt`), `txt` (the words, one cue a line, a blank line at a pause "
        "of 3 seconds or more; `text/plain`); each UTF-8",
    )


class Subtitles(Response):
    video_id: str
    segments: list[Segment]

    @classmethod
    def of(cls, video_id: str, segments: list[engine.Segment]) -> Subtitles:
        return cls(
            video_id=video_id,
            segments=[Segment(start=s.start, end=s.end, text=s.text) for s in segments],
        )
