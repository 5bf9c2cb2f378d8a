"""The `youtube` engine: channels and videos from the YouTube Data API v3, subtitles through
youtube-transcript-api.

Data API calls (each costs one quota unit):

- `channels?part=snippet,statistics,contentDetails&id=UC...` (or `&forHandle=@name`)
- `playlistItems?part=contentDetails&playlistId=<uploads>&maxResults=50[&pageToken=...]`
- `videos?part=snippet,contentDetails,statistics&id=a,b,c`, 50 ids at a time

A list by `id` (channels, videos) sends no `maxResults`: the API documents that parameter only
for its other filters, not beside `id`; the `id` list itself (at most 50) sizes the answer.

Errors: a used-up quota (403 `quotaExceeded` / `dailyLimitExceeded`, 429 `rateLimitExceeded`)
raises QuotaExceeded; any other error answer, an unreachable API or an unreadable body raises
PlatformError with the API's own message. The API key never appears in an error message.

Subtitles: a manually created transcript is preferred over a generated one, each looked for in
`languages` order first and then in any language. A video whose listing holds no transcript
gives None; a failed fetch raises SubtitlesFailed with its kind (`kind_of`): a blocked
address, disabled transcripts (which a blocked address has also shown up as, so ingestion
waits for a second fetch to agree), an age restriction, a token asked for.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from xml.etree.ElementTree import ParseError

import requests
from youtube_transcript_api import (
    AgeRestricted,
    CouldNotRetrieveTranscript,
    InvalidVideoId,
    IpBlocked,
    NoTranscriptFound,
    PoTokenRequired,
    RequestBlocked,
    Transcript,
    TranscriptList,
    TranscriptsDisabled,
    VideoUnavailable,
    YouTubeRequestFailed,
    YouTubeTranscriptApi,
)

from models.platform.base import (
    ChannelInfo,
    Cue,
    NotFoundOnPlatform,
    PlatformError,
    QuotaExceeded,
    Subtitles,
    SubtitlesFailed,
    VideoInfo,
)
from models.platform.quota import QuotaLedger

API_BASE = "https://www.googleapis.com/youtube/v3"
PAGE_SIZE = 50  # the most the API gives per playlistItems page
MAX_IDS = 50  # the most ids one videos request may carry
EPOCH = "1970-01-01T00:00:00.000Z"

_CHANNEL_ID = re.compile(r"UC[0-9A-Za-z_-]{22}")
_DURATION = re.compile(
    r"P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?"
)
_CHANNEL_THUMBNAILS = ("high", "medium", "default")
_VIDEO_THUMBNAILS = ("maxres", "standard", "high", "medium", "default")


class _ApiError(PlatformError):
    """An error answer of the Data API; callers see it as a PlatformError."""

    def __init__(self, message: str, status: int, reasons: set[str]) -> None:
        super().__init__(message)
        self.status = status
        self.reasons = reasons


class YouTubePlatform:
    name = "youtube"

    def __init__(
        self,
        api_key: str,
        *,
        api_base: str = API_BASE,
        transcripts: YouTubeTranscriptApi | None = None,
        session: requests.Session | None = None,
        timeout: float = 10,
        languages: tuple[str, ...] | list[str] = ("ja", "en"),
        ledger: QuotaLedger | None = None,
    ) -> None:
        self._api_key = api_key
        self._api_base = api_base.rstrip("/")
        self._transcripts = YouTubeTranscriptApi() if transcripts is None else transcripts
        self._session = requests.Session() if session is None else session
        self._timeout = timeout
        self._languages = tuple(languages)
        self._ledger = ledger  # the day's units, counted before each call (None: not counted)

    # --- channels -------------------------------------------------------------------------

    def get_channel(self, id_or_handle: str) -> ChannelInfo:
        wanted = id_or_handle.strip()
        if not wanted.lstrip("@"):
            raise NotFoundOnPlatform("no channel id or handle given")
        if _CHANNEL_ID.fullmatch(wanted):
            lookup = {"id": wanted}
        else:
            lookup = {"forHandle": "@" + wanted.lstrip("@")}
        data = self._get("channels", {"part": "snippet,statistics,contentDetails", **lookup})
        items = data.get("items") or []
        if not items:
            raise NotFoundOnPlatform(f"no YouTube channel {id_or_handle!r}")
        item = items[0]
        snippet = item.get("snippet") or {}
        statistics = item.get("statistics") or {}
        uploads = ((item.get("contentDetails") or {}).get("relatedPlaylists") or {}).get("uploads")
        country = snippet.get("country")
        return ChannelInfo(
            id=item["id"],
            title=snippet.get("title", ""),
            handle=snippet.get("customUrl") or None,
            thumbnail_url=_thumbnail(snippet, _CHANNEL_THUMBNAILS),
            country=country.upper() if country else None,
            subscriber_count=(
                None
                if statistics.get("hiddenSubscriberCount")
                else _int_or_none(statistics.get("subscriberCount"))
            ),
            video_count=_int_or_none(statistics.get("videoCount")) or 0,
            video_ids=self._playlist_video_ids(uploads) if uploads else [],
        )

    def _playlist_video_ids(self, playlist_id: str) -> list[str]:
        ids: list[str] = []
        token = None
        seen_tokens: set[str] = set()
        while True:
            params: dict[str, str | int] = {
                "part": "contentDetails",
                "playlistId": playlist_id,
                "maxResults": PAGE_SIZE,
            }
            if token:
                params["pageToken"] = token
            try:
                data = self._get("playlistItems", params)
            except _ApiError as error:
                # A channel that never uploaded has an uploads playlist the API cannot find.
                if error.status == 404 and "playlistNotFound" in error.reasons:
                    break
                raise
            for item in data.get("items") or []:
                video_id = (item.get("contentDetails") or {}).get("videoId")
                if video_id:
                    ids.append(video_id)
            token = data.get("nextPageToken")
            if not token or token in seen_tokens:
                break
            seen_tokens.add(token)
        return list(dict.fromkeys(ids))

    # --- videos ---------------------------------------------------------------------------

    def get_videos(self, video_ids: list[str]) -> dict[str, VideoInfo]:
        wanted = list(dict.fromkeys(video_ids))
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(wanted), MAX_IDS):
            batch = wanted[start : start + MAX_IDS]
            # No maxResults: the API does not support it together with id.
            data = self._get(
                "videos", {"part": "snippet,contentDetails,statistics", "id": ",".join(batch)}
            )
            for item in data.get("items") or []:
                found[item["id"]] = item
        return {
            video_id: _video(found[video_id]) if video_id in found else _deleted_video(video_id)
            for video_id in wanted
        }

    # --- subtitles ------------------------------------------------------------------------

    def get_subtitles(self, video_id: str) -> Subtitles | None:
        # The library may raise on listing and on fetching alike.
        try:
            transcript = self._choose_transcript(self._transcripts.list(video_id))
            if transcript is None:
                return None
            fetched = transcript.fetch()
        except (VideoUnavailable, InvalidVideoId) as error:
            raise NotFoundOnPlatform(f"no YouTube video {video_id!r}") from error
        except CouldNotRetrieveTranscript as error:
            raise SubtitlesFailed(_transcript_failure(video_id, error), kind_of(error)) from error
        except requests.RequestException as error:  # connection, proxy, timeout
            raise SubtitlesFailed(
                f"fetching the subtitles of {video_id} failed: {type(error).__name__}: {error}",
                "network",
            ) from error
        except ParseError as error:
            raise SubtitlesFailed(
                f"fetching the subtitles of {video_id} failed: {type(error).__name__}: {error}"
            ) from error
        return Subtitles(
            type="auto" if transcript.is_generated else "manual",
            language=transcript.language_code,
            cues=[
                Cue(start=s.start, end=round(s.start + s.duration, 3), text=s.text.strip())
                for s in fetched
                if s.text and s.text.strip()
            ],
        )

    def _choose_transcript(self, listing: TranscriptList) -> Transcript | None:
        """Manual in `languages` order, any manual, generated in `languages` order, any
        generated; None when the video has no transcript at all."""
        for find, generated in (
            (listing.find_manually_created_transcript, False),
            (listing.find_generated_transcript, True),
        ):
            try:
                return find(self._languages)
            except NoTranscriptFound:
                pass
            for transcript in listing:
                if transcript.is_generated == generated:
                    return transcript
        return None

    # --- the Data API ---------------------------------------------------------------------

    def _get(self, resource: str, params: dict[str, str | int]) -> dict[str, Any]:
        url = f"{self._api_base}/{resource}"
        if self._ledger is not None:
            self._ledger.spend(1)  # every call this engine makes costs one unit
        try:
            response = self._session.get(
                url, params={**params, "key": self._api_key}, timeout=self._timeout
            )
        except requests.RequestException as error:
            raise PlatformError(
                self._redacted(f"YouTube Data API unreachable ({resource}): {error}")
            ) from error
        if response.status_code >= 400:
            refused = self._error(resource, response)
            if isinstance(refused, QuotaExceeded) and self._ledger is not None:
                self._ledger.close_day()
            raise refused
        try:
            data = response.json()
        except ValueError as error:
            raise PlatformError(f"YouTube Data API sent no JSON ({resource})") from error
        if not isinstance(data, dict):
            raise PlatformError(f"YouTube Data API sent an unexpected answer ({resource})")
        return data

    def _error(self, resource: str, response: requests.Response) -> PlatformError:
        status = response.status_code
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            error = None
        if not isinstance(error, dict):
            error = {}
        reasons: set[str] = {
            entry["reason"]
            for entry in error.get("errors") or []
            if isinstance(entry, dict) and entry.get("reason")
        }
        message = error.get("message") or response.reason or "no message"
        text = self._redacted(f"YouTube Data API {status} ({resource}): {message}")
        if (status == 403 and reasons & {"quotaExceeded", "dailyLimitExceeded"}) or (
            status == 429 and "rateLimitExceeded" in reasons
        ):
            return QuotaExceeded(text)
        return _ApiError(text, status, reasons)

    def _redacted(self, text: str) -> str:
        return text.replace(self._api_key, "<key>") if self._api_key else text


# --- mapping --------------------------------------------------------------------------------


def _video(item: dict[str, Any]) -> VideoInfo:
    snippet = item.get("snippet") or {}
    statistics = item.get("statistics") or {}
    details = item.get("contentDetails") or {}
    return VideoInfo(
        id=item["id"],
        channel_id=snippet.get("channelId", ""),
        title=snippet.get("title", ""),
        description=snippet.get("description", ""),
        thumbnail_url=_thumbnail(snippet, _VIDEO_THUMBNAILS),
        duration_seconds=parse_duration(details.get("duration")),
        view_count=_int_or_none(statistics.get("viewCount")),
        like_count=_int_or_none(statistics.get("likeCount")),
        published_at=utc_timestamp(snippet.get("publishedAt"), item["id"]),
        category_id=snippet.get("categoryId") or None,
        channel_title=snippet.get("channelTitle") or None,
    )


def _deleted_video(video_id: str) -> VideoInfo:
    return VideoInfo(
        id=video_id,
        channel_id="",
        title="",
        description="",
        thumbnail_url=None,
        duration_seconds=0,
        view_count=None,
        like_count=None,
        published_at=EPOCH,
        category_id=None,
        deleted=True,
    )


def parse_duration(value: str | None) -> int:
    """Whole seconds of an ISO 8601 duration (`PT1H2M3S`, `P1DT2M`, `P0D`); 0 when absent
    or unreadable (live and upcoming videos)."""
    match = _DURATION.fullmatch(value or "")
    if not match:
        return 0
    parts = {name: float(number) for name, number in match.groupdict(default="0").items()}
    return int(
        parts["weeks"] * 604_800
        + parts["days"] * 86_400
        + parts["hours"] * 3_600
        + parts["minutes"] * 60
        + parts["seconds"]
    )


def utc_timestamp(value: str | None, video_id: str = "") -> str:
    """`YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC from the API's RFC 3339 time."""
    if not value:
        return EPOCH
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as error:
        raise PlatformError(f"unreadable publishedAt {value!r} of video {video_id}") from error
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def _thumbnail(snippet: dict[str, Any], sizes: tuple[str, ...]) -> str | None:
    thumbnails = snippet.get("thumbnails") or {}
    for size in sizes:
        url: str | None = (thumbnails.get(size) or {}).get("url")
        if url:
            return url
    return None


def _int_or_none(value: str | int | float | None) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


# An HTTP status the platform answers a refused address with (too many requests, or its
# servers failing), at the start of YouTubeRequestFailed's reason ("429 Client Error...").
_HOST_STATUS = re.compile(r"^\s*(429|5\d\d)\b")


def kind_of(error: CouldNotRetrieveTranscript) -> str:
    """How a fetch failed, by youtube-transcript-api's exception (CONTRACT §12.2). The
    address refused (IpBlocked: 429 or a captcha page; RequestBlocked: "Sign in to
    confirm you're not a bot"; 429 and 5xx answers) is the host's failure, not the
    video's."""
    if isinstance(error, IpBlocked):
        return "ip_blocked"
    if isinstance(error, RequestBlocked):
        return "request_blocked"
    if isinstance(error, YouTubeRequestFailed):
        return "network" if _HOST_STATUS.match(error.reason) else "broken"
    if isinstance(error, PoTokenRequired):
        return "po_token_required"
    if isinstance(error, TranscriptsDisabled | NoTranscriptFound):
        return "transcripts_disabled"
    if isinstance(error, AgeRestricted):
        return "age_restricted"
    return "broken"


def _transcript_failure(video_id: str, error: CouldNotRetrieveTranscript) -> str:
    # The library's str() is a long help text; its `cause` starts with the reason itself.
    cause = (getattr(error, "cause", "") or "").strip().splitlines()
    reason = cause[0].rstrip(":") if cause else "no reason given"
    return f"subtitles of {video_id}: {type(error).__name__}: {reason}"
