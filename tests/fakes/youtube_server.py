"""Stand-ins for YouTube: a recording WSGI fake of the three Data API v3 endpoints the engine
calls (served under `/youtube/v3/`), and a fake of youtube-transcript-api's
`YouTubeTranscriptApi` whose `list()` answers with the library's own TranscriptList and raises
the library's own exceptions.

    fake = FakeYouTube()
    fake.add_channel("UC" + "a" * 22, handle="@tanaka", uploads=["v1", "v2"])
    fake.add_video("v1", duration="PT4M13S")
    fake.fail_with(403, "quotaExceeded")   # every request from now on

Like the API's documentation, the fake takes no `maxResults` beside `id` on videos and channels.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from werkzeug.wrappers import Request, Response
from youtube_transcript_api import (
    FetchedTranscript,
    FetchedTranscriptSnippet,
    Transcript,
    TranscriptList,
    VideoUnavailable,
)

API_KEY = "yt-test-key"
PREFIX = "/youtube/v3"
MAX_PAGE = 50
# Lists that refuse `maxResults` beside `id` (400 incompatibleParameters): the API documents
# videos' maxResults for `myRating`/`chart` only, and channels' not as usable with `id`.
NO_MAX_RESULTS_WITH_ID = ("channels", "videos")

ERROR_MESSAGES = {
    "quotaExceeded": (
        "The request cannot be completed because you have exceeded your "
        '<a href="/youtube/v3/getting-started#quota">quota</a>.'
    ),
    "dailyLimitExceeded": "Daily Limit Exceeded. The quota will be reset at midnight Pacific Time.",
    "rateLimitExceeded": "Rate Limit Exceeded",
    "keyInvalid": "API key not valid. Please pass a valid API key.",
    "forbidden": "The request is not properly authorized.",
    "backendError": "Backend Error",
    "incompatibleParameters": (
        "The request specifies parameters that cannot be used together: maxResults is not "
        "supported with the id filter."
    ),
}
ERROR_DOMAINS = {"quotaExceeded": "youtube.quota", "dailyLimitExceeded": "usageLimits"}


def thumbnails(*sizes: str, base: str = "https://i.ytimg.example/x") -> dict:
    return {size: {"url": f"{base}/{size}.jpg", "width": 1, "height": 1} for size in sizes}


class FakeYouTube:
    def __init__(self, api_key: str = API_KEY):
        self.api_key = api_key
        self.requests: list[dict] = []
        self.channels: dict[str, dict] = {}  # channel id -> channel resource
        self.playlists: dict[str, list[str]] = {}  # playlist id -> video ids, newest first
        self.videos: dict[str, dict] = {}  # video id -> video resource
        self.failure: tuple[int, str, str] | None = None
        self._answered_before_failing = 0

    # --- set-up ---------------------------------------------------------------------------

    def add_channel(
        self,
        channel_id: str,
        *,
        title: str = "A channel",
        handle: str | None = "@achannel",
        country: str | None = "jp",
        thumbs: dict | None = None,
        subscribers: int | None = 1200,
        uploads: list[str] | None = None,
        video_count: int | None = None,
    ) -> dict:
        """`subscribers=None` hides the count (flagged, with a meaningless "0" beside it, as
        the API has sent it); `uploads=None` makes an uploads playlist the API cannot find (a
        channel that never uploaded)."""
        snippet = {
            "title": title,
            "description": "about",
            "publishedAt": "2015-03-04T05:06:07Z",
            "thumbnails": thumbnails("default", "medium", "high") if thumbs is None else thumbs,
        }
        if handle is not None:
            snippet["customUrl"] = handle
        if country is not None:
            snippet["country"] = country
        statistics = {
            "viewCount": "999",
            "hiddenSubscriberCount": subscribers is None,
            "videoCount": str(len(uploads or []) if video_count is None else video_count),
        }
        statistics["subscriberCount"] = "0" if subscribers is None else str(subscribers)
        uploads_id = "UU" + channel_id[2:]
        if uploads is not None:
            self.playlists[uploads_id] = list(uploads)
        channel = {
            "kind": "youtube#channel",
            "etag": "e",
            "id": channel_id,
            "snippet": snippet,
            "contentDetails": {"relatedPlaylists": {"likes": "", "uploads": uploads_id}},
            "statistics": statistics,
        }
        self.channels[channel_id] = channel
        return channel

    def add_video(
        self,
        video_id: str,
        *,
        channel_id: str = "UCaaaaaaaaaaaaaaaaaaaaaa",
        title: str = "A video",
        description: str = "words",
        published_at: str = "2024-05-01T12:34:56Z",
        duration: str | None = "PT4M13S",
        views: int | None = 1234,
        likes: int | None = 56,
        category_id: str = "22",
        thumbs: dict | None = None,
    ) -> dict:
        """`views=None` / `likes=None` leave the count out, as the API does when it is hidden."""
        statistics = {"favoriteCount": "0", "commentCount": "7"}
        if views is not None:
            statistics["viewCount"] = str(views)
        if likes is not None:
            statistics["likeCount"] = str(likes)
        details = {"dimension": "2d", "definition": "hd", "caption": "false"}
        if duration is not None:
            details["duration"] = duration
        video = {
            "kind": "youtube#video",
            "etag": "e",
            "id": video_id,
            "snippet": {
                "publishedAt": published_at,
                "channelId": channel_id,
                "title": title,
                "description": description,
                "thumbnails": (
                    thumbnails("default", "medium", "high", "standard", "maxres")
                    if thumbs is None
                    else thumbs
                ),
                "channelTitle": "A channel",
                "categoryId": category_id,
                "liveBroadcastContent": "none",
            },
            "contentDetails": details,
            "statistics": statistics,
        }
        self.videos[video_id] = video
        return video

    def fail_with(self, status: int, reason: str, message: str | None = None, *, after: int = 0):
        """Answer every request with this error (`fail_with(403, "quotaExceeded")`), once
        `after` more requests have been answered normally."""
        self.failure = (status, reason, message or ERROR_MESSAGES.get(reason, reason))
        self._answered_before_failing = after

    # --- inspection -----------------------------------------------------------------------

    def calls(self, resource: str) -> list[dict]:
        """The query parameters of every request to `resource`, in order."""
        return [r["query"] for r in self.requests if r["path"] == f"{PREFIX}/{resource}"]

    # --- WSGI -----------------------------------------------------------------------------

    def __call__(self, environ, start_response):
        request = Request(environ)
        query = dict(parse_qsl(request.query_string.decode(), keep_blank_values=True))
        self.requests.append({"method": request.method, "path": request.path, "query": query})
        status, payload = self.route(request.method, request.path, query)
        response = Response(json.dumps(payload), status=status, mimetype="application/json")
        return response(environ, start_response)

    def route(self, method, path, query):
        if query.get("key") != self.api_key:
            return error(400, "keyInvalid")
        if self.failure:
            if self._answered_before_failing <= 0:
                return error(*self.failure)
            self._answered_before_failing -= 1
        if method != "GET" or not path.startswith(PREFIX + "/"):
            return error(404, "notFound", f"no route {method} {path}")
        resource = path[len(PREFIX) + 1 :]
        if "part" not in query:
            return error(400, "required", "No filter selected. Expected one of: ...")
        if resource in NO_MAX_RESULTS_WITH_ID and "id" in query and "maxResults" in query:
            return error(400, "incompatibleParameters")
        if resource == "channels":
            return self.list_channels(query)
        if resource == "playlistItems":
            return self.list_playlist_items(query)
        if resource == "videos":
            return self.list_videos(query)
        return error(404, "notFound", f"no route {method} {path}")

    def list_channels(self, query):
        if "id" in query:
            wanted = query["id"].split(",")
            found = [self.channels[i] for i in wanted if i in self.channels]
        elif "forHandle" in query:
            # The API accepts the handle with or without "@", in any case.
            handle = "@" + query["forHandle"].lstrip("@").lower()
            found = [
                c
                for c in self.channels.values()
                if c["snippet"].get("customUrl", "").lower() == handle
            ][:1]
        else:
            return error(400, "missingRequiredParameter", "No filter selected.")
        answer = {"kind": "youtube#channelListResponse", "etag": "e"}
        answer["pageInfo"] = {"totalResults": len(found), "resultsPerPage": 5}
        if found:  # the real API leaves out "items" when nothing matched
            answer["items"] = found
        return 200, answer

    def list_playlist_items(self, query):
        playlist_id = query.get("playlistId")
        if playlist_id not in self.playlists:
            return error(
                404,
                "playlistNotFound",
                "The playlist identified with the request's <code>playlistId</code> "
                "parameter cannot be found.",
            )
        size = min(int(query.get("maxResults", 5)), MAX_PAGE)
        offset = int(query["pageToken"][len("tok") :]) if query.get("pageToken") else 0
        ids = self.playlists[playlist_id]
        page = ids[offset : offset + size]
        answer = {
            "kind": "youtube#playlistItemListResponse",
            "etag": "e",
            "items": [
                {
                    "kind": "youtube#playlistItem",
                    "etag": "e",
                    "id": f"item-{video_id}",
                    "contentDetails": {
                        "videoId": video_id,
                        "videoPublishedAt": "2024-05-01T12:34:56Z",
                    },
                }
                for video_id in page
            ],
            "pageInfo": {"totalResults": len(ids), "resultsPerPage": size},
        }
        if offset + size < len(ids):
            answer["nextPageToken"] = f"tok{offset + size}"
        if offset:
            answer["prevPageToken"] = f"tok{max(offset - size, 0)}"
        return 200, answer

    def list_videos(self, query):
        wanted = [i for i in query.get("id", "").split(",") if i]
        if len(wanted) > MAX_PAGE:
            return error(400, "badRequest", "Too many video ids in one request.")
        found = [self.videos[i] for i in wanted if i in self.videos]
        return 200, {
            "kind": "youtube#videoListResponse",
            "etag": "e",
            "items": found,
            "pageInfo": {"totalResults": len(found), "resultsPerPage": len(found)},
        }


def error(status: int, reason: str, message: str | None = None):
    message = message or ERROR_MESSAGES.get(reason, reason)
    return status, {
        "error": {
            "code": status,
            "message": message,
            "errors": [
                {
                    "message": message,
                    "domain": ERROR_DOMAINS.get(reason, "global"),
                    "reason": reason,
                }
            ],
        }
    }


# --- transcripts ------------------------------------------------------------------------------

LANGUAGE_NAMES = {"ja": "Japanese", "en": "English", "fr": "French", "ko": "Korean"}


class FakeTranscript(Transcript):
    """The library's Transcript, with `fetch()` answering from memory (or raising)."""

    def __init__(self, owner, video_id, language_code, cues, *, generated, fetch_error=None):
        name = LANGUAGE_NAMES.get(language_code, language_code)
        super().__init__(
            None,
            video_id,
            f"fake://timedtext/{video_id}/{language_code}",
            f"{name} (auto-generated)" if generated else name,
            language_code,
            generated,
            [],
        )
        self._owner = owner
        self._cues = list(cues)
        self._fetch_error = fetch_error

    def fetch(self, preserve_formatting: bool = False) -> FetchedTranscript:
        self._owner.calls.append(("fetch", self.video_id, self.language_code, self.is_generated))
        if self._fetch_error is not None:
            raise self._fetch_error
        return FetchedTranscript(
            snippets=[
                FetchedTranscriptSnippet(text=text, start=start, duration=duration)
                for start, duration, text in self._cues
            ],
            video_id=self.video_id,
            language=self.language,
            language_code=self.language_code,
            is_generated=self.is_generated,
        )


class FakeTranscripts:
    """Stands in for `YouTubeTranscriptApi()`: `list(video_id)` gives the library's own
    TranscriptList of the transcripts added here. An unknown video raises VideoUnavailable,
    as the library does."""

    def __init__(self):
        self.calls: list[tuple] = []
        self._manual: dict[str, dict[str, FakeTranscript]] = {}
        self._generated: dict[str, dict[str, FakeTranscript]] = {}
        self._list_errors: dict[str, Exception] = {}

    def add(self, video_id, language_code, cues, *, generated=False, fetch_error=None):
        """Cues are `(start, duration, text)`; `fetch_error` is raised by that transcript's
        fetch()."""
        self.add_video(video_id)
        transcript = FakeTranscript(
            self, video_id, language_code, cues, generated=generated, fetch_error=fetch_error
        )
        tracks = self._generated if generated else self._manual
        tracks[video_id][language_code] = transcript
        return transcript

    def add_video(self, video_id):
        """A known video; without `add()` it lists no transcript at all."""
        self._manual.setdefault(video_id, {})
        self._generated.setdefault(video_id, {})

    def fail(self, video_id, error: Exception):
        """`list(video_id)` raises `error` (one of the library's exceptions)."""
        self._list_errors[video_id] = error

    def list(self, video_id: str) -> TranscriptList:
        self.calls.append(("list", video_id))
        if video_id in self._list_errors:
            raise self._list_errors[video_id]
        if video_id not in self._manual:
            raise VideoUnavailable(video_id)
        return TranscriptList(
            video_id, dict(self._manual[video_id]), dict(self._generated[video_id]), []
        )
