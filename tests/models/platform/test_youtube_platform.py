"""The youtube engine against a local stand-in of the Data API v3 (the exact requests it
sends, the mapping of the answers, errors mapped to ours) and a fake of
youtube-transcript-api that answers with the library's own objects and exceptions."""

from __future__ import annotations

import socket

import pytest
import requests
from youtube_transcript_api import (
    AgeRestricted,
    IpBlocked,
    NoTranscriptFound,
    PoTokenRequired,
    RequestBlocked,
    TranscriptList,
    TranscriptsDisabled,
    VideoUnavailable,
    VideoUnplayable,
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
from models.platform.youtube import YouTubePlatform
from tests.fakes.http import serve
from tests.fakes.youtube_server import API_KEY, FakeTranscripts, FakeYouTube, thumbnails

pytestmark = pytest.mark.database_independent

CHANNEL_ID = "UCtanakaTANAKA_tanaka-01"
UPLOADS_ID = "UUtanakaTANAKA_tanaka-01"
THUMBS = "https://i.ytimg.example/x"


@pytest.fixture
def fake():
    return FakeYouTube()


@pytest.fixture
def transcripts():
    return FakeTranscripts()


@pytest.fixture
def api_base(fake):
    with serve(fake) as url:
        yield f"{url}/youtube/v3"


@pytest.fixture
def youtube(api_base, transcripts):
    return YouTubePlatform(API_KEY, api_base=api_base, transcripts=transcripts)


# --- channels ---------------------------------------------------------------------------------


def test_channel_by_id_sends_the_exact_requests_and_maps_every_field(youtube, fake):
    # given
    fake.add_channel(
        CHANNEL_ID,
        title="Tanaka Channel",
        handle="@tanaka",
        country="jp",
        subscribers=1200,
        uploads=["vid1", "vid2", "vid3"],
        video_count=3,
    )

    # when
    channel = youtube.get_channel(CHANNEL_ID)

    # then
    assert [r["path"] for r in fake.requests] == [
        "/youtube/v3/channels",
        "/youtube/v3/playlistItems",
    ]
    assert fake.calls("channels") == [
        {"part": "snippet,statistics,contentDetails", "id": CHANNEL_ID, "key": API_KEY}
    ]
    assert fake.calls("playlistItems") == [
        {"part": "contentDetails", "playlistId": UPLOADS_ID, "maxResults": "50", "key": API_KEY}
    ]
    assert channel == ChannelInfo(
        id=CHANNEL_ID,
        title="Tanaka Channel",
        handle="@tanaka",
        thumbnail_url=f"{THUMBS}/high.jpg",
        country="JP",
        subscriber_count=1200,
        video_count=3,
        video_ids=["vid1", "vid2", "vid3"],
    )


@pytest.mark.parametrize("asked", ["@tanaka", "tanaka", " @tanaka "])
def test_channel_by_handle_asks_for_the_at_handle_with_or_without_the_at(youtube, fake, asked):
    # given
    fake.add_channel(CHANNEL_ID, handle="@tanaka", uploads=["vid1"])

    # when
    channel = youtube.get_channel(asked)

    # then
    assert fake.calls("channels") == [
        {"part": "snippet,statistics,contentDetails", "forHandle": "@tanaka", "key": API_KEY}
    ]
    assert (channel.id, channel.handle, channel.video_ids) == (CHANNEL_ID, "@tanaka", ["vid1"])


def test_a_handle_that_starts_with_uc_is_not_taken_for_an_id(youtube, fake):
    # given a channel whose handle looks like the start of an id
    fake.add_channel(CHANNEL_ID, handle="@ucla", uploads=[])

    # when
    channel = youtube.get_channel("UCLA")

    # then
    assert fake.calls("channels")[0]["forHandle"] == "@UCLA"
    assert "id" not in fake.calls("channels")[0]
    assert channel.id == CHANNEL_ID


def test_hidden_subscriber_count_is_none(youtube, fake):
    # given
    fake.add_channel(CHANNEL_ID, subscribers=None, uploads=[])

    # when
    channel = youtube.get_channel(CHANNEL_ID)

    # then
    statistics = fake.channels[CHANNEL_ID]["statistics"]
    assert (statistics["hiddenSubscriberCount"], statistics["subscriberCount"]) == (True, "0")
    assert channel.subscriber_count is None


def test_channel_thumbnail_falls_back_and_country_may_be_absent(youtube, fake):
    # given a channel with no "high" thumbnail and no country
    fake.add_channel(CHANNEL_ID, country=None, thumbs=thumbnails("default", "medium"), uploads=[])

    # when
    channel = youtube.get_channel(CHANNEL_ID)

    # then
    assert channel.thumbnail_url == f"{THUMBS}/medium.jpg"
    assert channel.country is None


def test_uploads_are_paged_through_with_the_next_page_token(youtube, fake):
    # given 60 uploads: a page of 50 and a page of 10
    uploads = [f"vid{n:02d}" for n in range(60)]
    fake.add_channel(CHANNEL_ID, uploads=uploads)

    # when
    channel = youtube.get_channel(CHANNEL_ID)

    # then
    first, second = fake.calls("playlistItems")
    assert "pageToken" not in first
    assert second == {
        "part": "contentDetails",
        "playlistId": UPLOADS_ID,
        "maxResults": "50",
        "pageToken": "tok50",
        "key": API_KEY,
    }
    assert channel.video_ids == uploads
    assert channel.video_count == 60


def test_a_channel_that_never_uploaded_has_no_video_ids(youtube, fake):
    # given an uploads playlist the API answers 404 playlistNotFound for
    fake.add_channel(CHANNEL_ID, uploads=None, video_count=0)

    # when
    channel = youtube.get_channel(CHANNEL_ID)

    # then
    assert len(fake.calls("playlistItems")) == 1
    assert (channel.video_ids, channel.video_count) == ([], 0)


@pytest.mark.parametrize("asked", [CHANNEL_ID, "@nobody", "nobody"])
def test_an_unknown_channel_is_not_found(youtube, fake, asked):
    # given no channel at all

    # when / then
    with pytest.raises(NotFoundOnPlatform):
        youtube.get_channel(asked)
    assert fake.calls("playlistItems") == []


# --- videos -----------------------------------------------------------------------------------


def test_videos_request_and_mapping(youtube, fake):
    # given
    fake.add_video(
        "vid1",
        channel_id=CHANNEL_ID,
        title="Episode 1",
        description="the first one",
        published_at="2024-05-01T12:34:56Z",
        duration="PT4M13S",
        views=1234,
        likes=56,
        category_id="22",
    )

    # when
    videos = youtube.get_videos(["vid1"])

    # then
    assert [r["path"] for r in fake.requests] == ["/youtube/v3/videos"]
    assert fake.calls("videos") == [
        {"part": "snippet,contentDetails,statistics", "id": "vid1", "key": API_KEY}
    ]
    assert videos == {
        "vid1": VideoInfo(
            id="vid1",
            channel_id=CHANNEL_ID,
            title="Episode 1",
            description="the first one",
            thumbnail_url=f"{THUMBS}/maxres.jpg",
            duration_seconds=253,
            view_count=1234,
            like_count=56,
            published_at="2024-05-01T12:34:56.000Z",
            category_id="22",
            deleted=False,
            channel_title="A channel",
        )
    }


def test_120_video_ids_go_in_batches_of_50_50_and_20(youtube, fake):
    # given
    ids = [f"vid{n:03d}" for n in range(120)]
    for video_id in ids:
        fake.add_video(video_id)

    # when
    videos = youtube.get_videos(ids)

    # then
    batches = [call["id"].split(",") for call in fake.calls("videos")]
    assert [len(batch) for batch in batches] == [50, 50, 20]
    assert batches == [ids[:50], ids[50:100], ids[100:]]
    assert list(videos) == ids
    assert not any(video.deleted for video in videos.values())


def test_video_requests_by_id_send_no_max_results(youtube, fake):
    # given more ids than one request takes (the API documents no maxResults beside id)
    ids = [f"vid{n:03d}" for n in range(120)]
    for video_id in ids:
        fake.add_video(video_id)

    # when
    youtube.get_videos(ids)

    # then every batch carries only part, id and key
    assert [sorted(call) for call in fake.calls("videos")] == [["id", "key", "part"]] * 3


@pytest.mark.parametrize(("resource", "wanted"), [("videos", "vid1"), ("channels", CHANNEL_ID)])
def test_the_fake_api_refuses_max_results_beside_id(api_base, fake, resource, wanted):
    # given
    fake.add_video("vid1")
    fake.add_channel(CHANNEL_ID, uploads=[])
    query = {"part": "snippet", "id": wanted, "key": API_KEY}

    # when
    refused = requests.get(f"{api_base}/{resource}", params={**query, "maxResults": 50}, timeout=5)
    answered = requests.get(f"{api_base}/{resource}", params=query, timeout=5)

    # then
    assert refused.status_code == 400
    assert refused.json()["error"]["errors"][0]["reason"] == "incompatibleParameters"
    assert answered.status_code == 200
    assert [item["id"] for item in answered.json()["items"]] == [wanted]


def test_no_video_ids_make_no_request(youtube, fake):
    # given / when
    videos = youtube.get_videos([])

    # then
    assert videos == {}
    assert fake.requests == []


@pytest.mark.parametrize(
    ("duration", "seconds"),
    [
        ("PT1H2M3S", 3723),
        ("P1DT2M", 86_520),
        ("PT45S", 45),
        ("P0D", 0),
        ("PT10M", 600),
        ("PT2H", 7200),
        (None, 0),  # upcoming live streams have no duration yet
    ],
)
def test_iso_8601_durations_become_seconds(youtube, fake, duration, seconds):
    # given
    fake.add_video("vid1", duration=duration)

    # when
    video = youtube.get_videos(["vid1"])["vid1"]

    # then
    assert video.duration_seconds == seconds


@pytest.mark.parametrize(
    ("published_at", "normalised"),
    [
        ("2024-05-01T12:34:56Z", "2024-05-01T12:34:56.000Z"),
        ("2024-05-01T12:34:56.5Z", "2024-05-01T12:34:56.500Z"),
        ("2024-05-01T21:34:56+09:00", "2024-05-01T12:34:56.000Z"),
        ("2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00.123Z"),
    ],
)
def test_published_at_is_fixed_width_utc(youtube, fake, published_at, normalised):
    # given
    fake.add_video("vid1", published_at=published_at)

    # when
    video = youtube.get_videos(["vid1"])["vid1"]

    # then
    assert video.published_at == normalised


def test_a_video_the_api_does_not_return_comes_back_deleted(youtube, fake):
    # given one of two videos is gone from the platform
    fake.add_video("alive", title="Still here")

    # when
    videos = youtube.get_videos(["alive", "gone"])

    # then
    assert fake.calls("videos")[0]["id"] == "alive,gone"
    assert videos["alive"].deleted is False
    assert videos["alive"].title == "Still here"
    assert videos["gone"] == VideoInfo(
        id="gone",
        channel_id="",
        title="",
        description="",
        thumbnail_url=None,
        duration_seconds=0,
        view_count=None,
        like_count=None,
        published_at="1970-01-01T00:00:00.000Z",
        category_id=None,
        deleted=True,
    )


def test_hidden_likes_are_none_and_views_are_kept(youtube, fake):
    # given
    fake.add_video("vid1", views=10, likes=None)

    # when
    video = youtube.get_videos(["vid1"])["vid1"]

    # then
    assert "likeCount" not in fake.videos["vid1"]["statistics"]
    assert (video.view_count, video.like_count) == (10, None)


def test_missing_view_count_is_none(youtube, fake):
    # given
    fake.add_video("vid1", views=None, likes=3)

    # when
    video = youtube.get_videos(["vid1"])["vid1"]

    # then
    assert (video.view_count, video.like_count) == (None, 3)


def test_video_thumbnail_is_the_best_available(youtube, fake):
    # given
    fake.add_video("big", thumbs=thumbnails("default", "medium", "high", "standard"))
    fake.add_video("small", thumbs=thumbnails("default"))
    fake.add_video("none", thumbs={})

    # when
    videos = youtube.get_videos(["big", "small", "none"])

    # then
    assert videos["big"].thumbnail_url == f"{THUMBS}/standard.jpg"
    assert videos["small"].thumbnail_url == f"{THUMBS}/default.jpg"
    assert videos["none"].thumbnail_url is None


# --- Data API errors --------------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["quotaExceeded", "dailyLimitExceeded"])
def test_a_403_for_used_up_quota_raises_quota_exceeded(youtube, fake, reason):
    # given
    fake.add_video("vid1")
    fake.fail_with(403, reason)

    # when / then
    with pytest.raises(QuotaExceeded):
        youtube.get_videos(["vid1"])
    with pytest.raises(QuotaExceeded):
        youtube.get_channel(CHANNEL_ID)


def test_a_429_rate_limit_raises_quota_exceeded(youtube, fake):
    # given
    fake.fail_with(429, "rateLimitExceeded")

    # when / then
    with pytest.raises(QuotaExceeded):
        youtube.get_videos(["vid1"])


def test_quota_exceeded_on_the_second_uploads_page_is_not_swallowed(youtube, fake):
    # given a channel whose second uploads page will hit the quota
    fake.add_channel(CHANNEL_ID, uploads=[f"vid{n:02d}" for n in range(60)])
    fake.fail_with(403, "quotaExceeded", after=2)

    # when / then
    with pytest.raises(QuotaExceeded):
        youtube.get_channel(CHANNEL_ID)
    assert len(fake.calls("playlistItems")) == 2


def test_any_other_403_is_a_platform_error_with_the_api_message(youtube, fake):
    # given
    fake.fail_with(403, "forbidden")

    # when
    with pytest.raises(PlatformError) as raised:
        youtube.get_videos(["vid1"])

    # then
    assert not isinstance(raised.value, QuotaExceeded)
    assert "The request is not properly authorized." in str(raised.value)
    assert "403" in str(raised.value)


def test_a_wrong_key_is_a_platform_error_and_the_key_is_not_in_the_message(api_base, fake):
    # given
    youtube = YouTubePlatform("wrong-key-123", api_base=api_base, transcripts=FakeTranscripts())

    # when
    with pytest.raises(PlatformError) as raised:
        youtube.get_channel(CHANNEL_ID)

    # then
    assert fake.calls("channels")[0]["key"] == "wrong-key-123"
    assert not isinstance(raised.value, QuotaExceeded | NotFoundOnPlatform)
    assert "API key not valid" in str(raised.value)
    assert "wrong-key-123" not in str(raised.value)


def test_a_server_error_is_a_platform_error(youtube, fake):
    # given
    fake.fail_with(500, "backendError")

    # when / then
    with pytest.raises(PlatformError, match="Backend Error"):
        youtube.get_videos(["vid1"])


def test_an_unreachable_api_is_a_platform_error_without_the_key():
    # given a loopback port nothing listens on
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    youtube = YouTubePlatform(
        "secret-key-456",
        api_base=f"http://127.0.0.1:{port}/youtube/v3",
        transcripts=FakeTranscripts(),
        timeout=2,
    )

    # when
    with pytest.raises(PlatformError) as raised:
        youtube.get_videos(["vid1"])

    # then
    assert "unreachable" in str(raised.value)
    assert "secret-key-456" not in str(raised.value)


def test_defaults_are_the_real_clients_and_nothing_is_sent_on_construction():
    # given / when
    youtube = YouTubePlatform("k")

    # then
    assert youtube.name == "youtube"
    assert isinstance(youtube._transcripts, YouTubeTranscriptApi)
    assert isinstance(youtube._session, requests.Session)
    assert youtube._api_base == "https://www.googleapis.com/youtube/v3"


# --- subtitles --------------------------------------------------------------------------------


def test_a_manual_transcript_is_preferred_over_an_auto_one(youtube, transcripts):
    # given an auto transcript in the first language and a manual one in the second
    transcripts.add("vid1", "ja", [(0.0, 1.0, "じどう")], generated=True)
    transcripts.add(
        "vid1",
        "en",
        [(0.5, 1.25, "Hello"), (1.75, 2.0, "  "), (3.0, 0.5, "world ")],
    )

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert subtitles == Subtitles(
        type="manual",
        language="en",
        cues=[Cue(0.5, 1.75, "Hello"), Cue(3.0, 3.5, "world")],
    )
    assert transcripts.calls == [("list", "vid1"), ("fetch", "vid1", "en", False)]


@pytest.mark.parametrize(("languages", "chosen"), [(("ja", "en"), "ja"), (("en", "ja"), "en")])
def test_manual_transcripts_are_chosen_in_language_order(api_base, transcripts, languages, chosen):
    # given manual transcripts in both languages
    transcripts.add("vid1", "en", [(0.0, 1.0, "Hello")])
    transcripts.add("vid1", "ja", [(0.0, 1.0, "こんにちは")])
    youtube = YouTubePlatform(
        API_KEY, api_base=api_base, transcripts=transcripts, languages=languages
    )

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert (subtitles.type, subtitles.language) == ("manual", chosen)


def test_a_manual_transcript_in_another_language_beats_an_auto_one(youtube, transcripts):
    # given
    transcripts.add("vid1", "fr", [(0.0, 1.0, "Bonjour")])
    transcripts.add("vid1", "ja", [(0.0, 1.0, "じどう")], generated=True)

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert (subtitles.type, subtitles.language) == ("manual", "fr")


def test_auto_transcripts_are_used_when_there_is_no_manual_one(youtube, transcripts):
    # given auto transcripts in the second and first language
    transcripts.add("vid1", "en", [(0.0, 1.0, "hello")], generated=True)
    transcripts.add("vid1", "ja", [(2.0, 1.5, "こんにちは")], generated=True)

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert subtitles == Subtitles(type="auto", language="ja", cues=[Cue(2.0, 3.5, "こんにちは")])


def test_an_auto_transcript_in_another_language_is_the_last_resort(youtube, transcripts):
    # given
    transcripts.add("vid1", "ko", [(0.0, 1.0, "안녕")], generated=True)

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert (subtitles.type, subtitles.language) == ("auto", "ko")


def test_no_transcript_at_all_is_none(youtube, transcripts):
    # given a video that lists no transcript
    transcripts.add_video("vid1")

    # when
    subtitles = youtube.get_subtitles("vid1")

    # then
    assert subtitles is None
    assert transcripts.calls == [("list", "vid1")]


def test_disabled_subtitles_fail_as_disabled_for_a_second_fetch_to_confirm(youtube, transcripts):
    # given (a blocked address has shown up as this too: ingestion waits for a second)
    transcripts.fail("vid1", TranscriptsDisabled("vid1"))

    # when / then
    with pytest.raises(SubtitlesFailed) as raised:
        youtube.get_subtitles("vid1")
    assert raised.value.kind == "transcripts_disabled"
    assert not raised.value.host_level


def test_no_transcript_found_fails_as_disabled(youtube, transcripts):
    # given
    empty = TranscriptList("vid1", {}, {}, [])
    transcripts.fail("vid1", NoTranscriptFound("vid1", ["ja", "en"], empty))

    # when / then
    with pytest.raises(SubtitlesFailed) as raised:
        youtube.get_subtitles("vid1")
    assert raised.value.kind == "transcripts_disabled"


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (IpBlocked("vid1"), "ip_blocked"),
        (RequestBlocked("vid1"), "request_blocked"),
        (YouTubeRequestFailed("vid1", requests.HTTPError("500 Server Error")), "network"),
        (YouTubeRequestFailed("vid1", requests.HTTPError("429 Too Many Requests")), "network"),
        (YouTubeRequestFailed("vid1", requests.HTTPError("404 Not Found")), "broken"),
        (VideoUnplayable("vid1", "Sign in to confirm your age", []), "broken"),
        (AgeRestricted("vid1"), "age_restricted"),
        (PoTokenRequired("vid1"), "po_token_required"),
    ],
    ids=lambda value: value if isinstance(value, str) else type(value).__name__,
)
def test_a_failed_listing_raises_subtitles_failed_with_its_kind_and_reason(
    youtube, transcripts, error, kind
):
    # given
    transcripts.fail("vid1", error)

    # when
    with pytest.raises(SubtitlesFailed) as raised:
        youtube.get_subtitles("vid1")

    # then the kind decides the outcome: the address refused is not the video's failure
    assert raised.value.kind == kind
    assert raised.value.host_level == (kind in ("ip_blocked", "request_blocked", "network"))
    assert type(error).__name__ in str(raised.value)
    assert raised.value.__cause__ is error


def test_a_failed_fetch_raises_subtitles_failed(youtube, transcripts):
    # given a transcript that lists fine but is blocked when fetched
    transcripts.add(
        "vid1",
        "ja",
        [(0.0, 1.0, "x")],
        fetch_error=YouTubeRequestFailed("vid1", requests.HTTPError("429 Too Many Requests")),
    )

    # when
    with pytest.raises(SubtitlesFailed, match="429 Too Many Requests"):
        youtube.get_subtitles("vid1")

    # then
    assert transcripts.calls == [("list", "vid1"), ("fetch", "vid1", "ja", False)]


def test_a_network_error_while_fetching_raises_subtitles_failed(youtube, transcripts):
    # given
    transcripts.add(
        "vid1", "ja", [(0.0, 1.0, "x")], fetch_error=requests.ConnectionError("reset by peer")
    )

    # when / then: the host failed (or its proxy), not the video
    with pytest.raises(SubtitlesFailed, match="reset by peer") as raised:
        youtube.get_subtitles("vid1")
    assert raised.value.kind == "network"


def test_an_unavailable_video_is_not_found(youtube, transcripts):
    # given
    transcripts.fail("gone", VideoUnavailable("gone"))

    # when / then
    with pytest.raises(NotFoundOnPlatform):
        youtube.get_subtitles("gone")
    with pytest.raises(NotFoundOnPlatform):
        youtube.get_subtitles("never-known")  # the fake, like the library, knows no such video
