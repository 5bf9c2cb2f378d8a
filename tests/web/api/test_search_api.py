"""The search API as a client uses it: search, history, favorites, metadata, subtitles."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from click.testing import CliRunner

from models import indexing, ingest, library
from models.credits import unlock_video
from models.search import TOTAL_VIDEOS_CAP, Hit, VideoHit, VideoResults
from models.settings import use_settings
from models.tables import SearchHistory, Video
from tests.factories import make_admin, make_user, sign_in
from tests.fakes.platform_files import manual
from tests.fixtures import drain
from web.cli import main

CH = "UCapitestapitestapites1"


@pytest.fixture
def indexed(platform_files):
    platform_files.channel(CH, ["apiVideo001", "apiVideo002"], title="API チャンネル")
    platform_files.video(
        "apiVideo001",
        CH,
        manual("大阪の広告を見ました。", "<script>x</script> です"),
        title="大阪の旅",
        publishedAt="2026-03-01T00:00:00.000Z",
    )
    platform_files.video(
        "apiVideo002", CH, manual("東京の話です。"), title="東京の旅", durationSeconds=1800
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles("apiVideo001")
    ingest.fetch_subtitles("apiVideo002")


def test_search_answers_the_contract(client, indexed):
    body = client.get("/api/search?q=大阪&target=subtitle").get_json()
    assert {k: body[k] for k in ("query", "page", "perPage", "totalHits", "totalPages")} == {
        "query": "大阪",
        "page": 1,
        "perPage": 20,
        "totalHits": 1,
        "totalPages": 1,
    }
    assert body["semantic"] == {"requested": False, "applied": False}
    [hit] = body["hits"]
    assert hit["videoId"] == "apiVideo001"
    assert hit["videoTitle"] == "大阪の旅"
    assert hit["channelId"] == CH
    assert hit["channelTitle"] == "API チャンネル"
    assert hit["matchedIn"] == "subtitle"
    assert (hit["start"], hit["end"]) == (0.0, 6.0)
    assert "<mark>大阪</mark>" in hit["highlight"]
    assert "&lt;script&gt;" in hit["highlight"]
    assert hit["url"] == "https://www.youtube.com/watch?v=apiVideo001"
    assert hit["publishedAt"] == "2026-03-01T00:00:00.000Z"
    assert hit["thumbnailUrl"].endswith("/apiVideo001/hqdefault.jpg")


def test_the_page_and_the_grouped_api_make_one_search_call_and_show_the_same_videos(
    client, indexed, monkeypatch
):
    # Given the one grouped search call that the page and the API share, watched
    calls = []
    shared = library.search_videos

    def watched(user_id, query):
        results = shared(user_id, query)
        calls.append((user_id, query, results))
        return results

    monkeypatch.setattr(library, "search_videos", watched)
    user = make_user()
    sign_in(client, user)
    # When one query is asked of the API (grouped by video) and of the page
    answer = client.get("/api/search?q=旅&target=title,subtitle&groupBy=video").get_json()
    page = client.get("/search?q=旅&target=title,subtitle").get_data(as_text=True)
    # Then both went through the call, with the same query, for the signed-in user
    [(api_user, api_query, api_results), (page_user, page_query, page_results)] = calls
    assert (api_user, page_user) == (user.id, user.id)
    assert api_query == page_query and api_results == page_results
    # And they show the same videos in the same order, remembered once in the history
    videos = [video["videoId"] for video in answer["videos"]]
    assert len(videos) == 2
    assert re.findall(r'<li class="result" data-video-id="([^"]+)"', page) == videos
    assert SearchHistory.select().where(SearchHistory.user == user.id).count() == 1


def test_title_hits_have_no_times(client, indexed):
    hits = client.get("/api/search?q=東京&target=title").get_json()["hits"]
    assert [(h["matchedIn"], h["start"], h["end"]) for h in hits] == [("title", None, None)]


def test_a_search_by_meaning_finds_a_paraphrase_once_the_videos_are_embedded(client, indexed):
    # Before the embedding queue has run, the model is loaded but nothing is embedded
    before = client.get("/api/search?q=近畿地方の観光&semantic=1&sr=1&groupBy=video").get_json()
    assert before["semantic"] == {"requested": True, "applied": True}
    assert before["videos"] == []

    indexing.embed_videos(["apiVideo001", "apiVideo002"])

    body = client.get("/api/search?q=近畿地方の観光&semantic=1&sr=1&groupBy=video").get_json()
    keywords = client.get("/api/search?q=近畿地方の観光&groupBy=video").get_json()
    assert body["videos"][0]["videoId"] == "apiVideo001"
    assert keywords["videos"] == [] and keywords["semantic"]["applied"] is False


def test_with_the_model_off_semantic_is_reported_requested_and_not_applied(
    client, indexed, settings
):
    use_settings(replace(settings, search_embedder="none"))
    try:
        body = client.get("/api/search?q=大阪&semantic=1&sr=0.7").get_json()
    finally:
        use_settings(settings)
    assert body["semantic"] == {"requested": True, "applied": False}
    assert [hit["videoId"] for hit in body["hits"]] == ["apiVideo001", "apiVideo001"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "q"),
        ("q=" + "あ" * 201, "q"),
        ("q=a&sort=best", "sort"),
        ("q=a&target=subtitle,comments", "target"),
        ("q=a&semantic=2", "semantic"),
        ("q=a&sr=1.5", "sr"),
        ("q=a&sr=x", "sr"),
        ("q=a&page=0", "page"),
        ("q=a&perPage=101", "perPage"),
        ("q=a&perPage=-1", "perPage"),
        ("q=a&channels=bad%20id", "channels"),
        ("q=a&groupBy=channel", "groupBy"),
        ("q=a&groupBy=Video", "groupBy"),
    ],
)
def test_bad_parameters_are_400_with_the_field(client, query, field):
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["fields"]


def test_the_flat_answer_keeps_its_shape(client, indexed):
    # Existing clients: without groupBy nothing is added, renamed or removed.
    body = client.get("/api/search?q=大阪").get_json()
    assert set(body) == {"query", "page", "perPage", "totalHits", "totalPages", "semantic", "hits"}
    assert {frozenset(hit) for hit in body["hits"]} == {
        frozenset(
            {
                "videoId",
                "videoTitle",
                "channelId",
                "channelTitle",
                "publishedAt",
                "thumbnailUrl",
                "matchedIn",
                "start",
                "end",
                "text",
                "highlight",
                "url",
            }
        )
    }
    assert body["totalHits"] == 2  # the subtitle and the title, each a hit


# Results by video (docs/api.md, Search).

GROUPED = "UCgroupedgroupedgrouped1"


def spaced(*texts, gap=10):
    """Manual cues of 3 s with `gap - 1` filler cues between the given ones, so each
    given cue is a moment of its own (no two share a segment)."""
    cues, start = [], 0.0
    for text in texts:
        for n in range(gap):
            said = text if n == 0 else f"間の話 {n} です。"
            cues.append({"start": start, "end": start + 3.0, "text": said})
            start += 3.0
    return {"type": "manual", "language": "ja", "cues": cues}


@pytest.fixture
def videos(platform_files):
    """Three videos about ラーメン: five moments in the oldest, one in the newest, and
    one that says it only in its title."""
    ids = ["grpVideo001", "grpVideo002", "grpVideo003"]
    platform_files.channel(GROUPED, ids, title="麺のチャンネル")
    platform_files.video(
        "grpVideo001",
        GROUPED,
        spaced(*(f"ラーメンの話 {n} です。" for n in range(5))),
        title="昼ごはん",
        publishedAt="2026-01-01T00:00:00.000Z",
    )
    platform_files.video(
        "grpVideo002",
        GROUPED,
        spaced("今日はラーメンを食べました。"),
        title="晩ごはん",
        publishedAt="2026-03-01T00:00:00.000Z",
    )
    platform_files.video(
        "grpVideo003",
        GROUPED,
        spaced("今日はうどんを食べました。"),
        title="ラーメン屋めぐり",
        publishedAt="2026-02-01T00:00:00.000Z",
    )
    ingest.import_channel(GROUPED)
    for video_id in ids:
        ingest.fetch_subtitles(video_id)


def grouped(client, query):
    response = client.get(f"/api/search?q=ラーメン&groupBy=video&{query}")
    assert response.status_code == 200
    return response.get_json()


def test_grouped_results_list_each_video_once_with_its_best_moments(client, videos):
    body = grouped(client, "")
    assert set(body) == {
        "query",
        "page",
        "perPage",
        "totalVideos",
        "totalVideosCapped",
        "totalPages",
        "semantic",
        "videos",
    }
    assert (body["query"], body["page"], body["perPage"]) == ("ラーメン", 1, 20)
    assert (body["totalVideos"], body["totalVideosCapped"], body["totalPages"]) == (3, False, 1)
    assert body["semantic"] == {"requested": False, "applied": False}
    found = {video["videoId"]: video for video in body["videos"]}
    assert sorted(found) == ["grpVideo001", "grpVideo002", "grpVideo003"]
    many = found["grpVideo001"]
    assert set(many) == {
        "videoId",
        "title",
        "channel",
        "publishedAt",
        "thumbnailUrl",
        "score",
        "url",
        "moments",
        "totalMoments",
    }
    assert many["title"] == "昼ごはん"
    assert many["channel"] == {"id": GROUPED, "title": "麺のチャンネル"}
    assert many["publishedAt"] == "2026-01-01T00:00:00.000Z"
    assert many["thumbnailUrl"].endswith("/grpVideo001/hqdefault.jpg")
    assert many["url"] == "https://www.youtube.com/watch?v=grpVideo001"
    assert isinstance(many["score"], float)
    # At most three of its five moments, each a subtitle moment with its own link
    assert (len(many["moments"]), many["totalMoments"]) == (3, 5)
    for moment in many["moments"]:
        assert set(moment) == {"start", "end", "highlight", "matchedIn", "url"}
        assert moment["matchedIn"] == "subtitle"
        assert "<mark>ラーメン</mark>" in moment["highlight"]
        assert moment["start"] < moment["end"]
        at = f"&t={int(moment['start'])}s" if moment["start"] else ""
        assert moment["url"] == f"https://www.youtube.com/watch?v=grpVideo001{at}"
    assert len({moment["start"] for moment in many["moments"]}) == 3
    # A video found only by its title is listed, with no moment
    assert (found["grpVideo003"]["moments"], found["grpVideo003"]["totalMoments"]) == ([], 0)
    assert [len(found["grpVideo002"]["moments"])] == [1]


def test_grouped_results_are_sorted_as_videos(client, videos):
    def order(sort):
        return [video["videoId"] for video in grouped(client, f"sort={sort}")["videos"]]

    assert order("newest") == ["grpVideo002", "grpVideo003", "grpVideo001"]
    assert order("oldest") == ["grpVideo001", "grpVideo003", "grpVideo002"]
    scores = [video["score"] for video in grouped(client, "sort=relevance")["videos"]]
    assert scores == sorted(scores, reverse=True)


def test_grouped_results_page_over_videos(client, videos):
    first = grouped(client, "sort=newest&perPage=2")
    second = grouped(client, "sort=newest&perPage=2&page=2")
    assert (first["totalVideos"], first["totalPages"], second["totalPages"]) == (3, 2, 2)
    assert [v["videoId"] for v in first["videos"]] == ["grpVideo002", "grpVideo003"]
    assert [v["videoId"] for v in second["videos"]] == ["grpVideo001"]
    assert len(second["videos"][0]["moments"]) == 3  # moments are not what pages count
    assert grouped(client, "sort=newest&perPage=2&page=3")["videos"] == []


def test_grouped_results_with_nothing_found(client, videos):
    body = client.get("/api/search?q=存在しない言葉&groupBy=video").get_json()
    assert (body["totalVideos"], body["totalVideosCapped"], body["totalPages"]) == (0, False, 0)
    assert body["videos"] == []


def _many_videos(count: int) -> VideoResults:
    moment = Hit(
        video_id="capVideo001",
        video_title="多い",
        channel_id=GROUPED,
        channel_title="麺のチャンネル",
        published_at="2026-01-01T00:00:00.000Z",
        thumbnail_url=None,
        matched_in="subtitle",
        start=61.5,
        end=64.5,
        text="ラーメン",
        highlight="<mark>ラーメン</mark>",
    )
    video = VideoHit(
        video_id="capVideo001",
        video_title="多い",
        channel_id=GROUPED,
        channel_title="麺のチャンネル",
        published_at="2026-01-01T00:00:00.000Z",
        thumbnail_url=None,
        score=3.5,
        moments=[moment],
        matched_in=("subtitle",),
    )
    return VideoResults(total_videos=count, more_than_cap=True, videos=[video])


def test_more_than_the_cap_is_said_rather_than_counted(client, monkeypatch):
    # Given an engine that stopped counting at the cap
    monkeypatch.setattr(library, "search_videos", lambda user_id, query: _many_videos(1000))
    body = grouped(client, "")
    # Then the answer says "1,000+" as the cap and a flag, and pages up to the cap
    assert TOTAL_VIDEOS_CAP == 1000
    assert (body["totalVideos"], body["totalVideosCapped"], body["totalPages"]) == (1000, True, 50)
    [video] = body["videos"]
    assert video["thumbnailUrl"] is None
    assert video["moments"] == [
        {
            "start": 61.5,
            "end": 64.5,
            "highlight": "<mark>ラーメン</mark>",
            "matchedIn": "subtitle",
            "url": "https://www.youtube.com/watch?v=capVideo001&t=61s",
        }
    ]


def test_a_grouped_search_is_recorded_like_a_flat_one(client, videos):
    sign_in(client, make_user())
    client.get("/api/search?q=ラーメン&groupBy=video")
    client.get("/api/search?q=ラーメン")
    [entry] = SearchHistory.select()
    assert (entry.query, entry.sort) == ("ラーメン", "relevance")


def test_a_signed_in_search_is_recorded_once_per_condition(client, indexed):
    sign_in(client, make_user())
    client.get(f"/api/search?q=大阪&target=title,subtitle&channels={CH}")
    first = SearchHistory.get()
    client.get(f"/api/search?q=大阪&target=subtitle,title,subtitle&channels={CH},{CH}")
    assert SearchHistory.select().count() == 1
    again = SearchHistory.get()
    assert again.created_at == first.created_at
    assert again.searched_at >= first.searched_at
    assert (again.target, again.channels, again.sort, again.semantic, again.sr) == (
        "subtitle,title",
        CH,
        "relevance",
        0,
        0.5,
    )
    client.get("/api/search?q=大阪&sort=newest")
    history = client.get("/api/search/history").get_json()["history"]
    assert [(h["query"], h["sort"]) for h in history] == [("大阪", "newest"), ("大阪", "relevance")]
    assert history[1]["target"] == ["subtitle", "title"]
    assert history[1]["channels"] == [CH]


def test_anonymous_searches_are_not_recorded(client, indexed):
    client.get("/api/search?q=大阪")
    assert SearchHistory.select().count() == 0


def test_history_entries_can_be_deleted_one_or_all_and_only_ones_own(client, app, indexed):
    sign_in(client, make_user())
    client.get("/api/search?q=大阪")
    client.get("/api/search?q=東京")
    history = client.get("/api/search/history").get_json()["history"]
    other = app.test_client()
    sign_in(other, make_user())
    first = f"/api/search/history/{history[0]['id']}"
    assert other.delete(first, content_type="application/json").status_code == 404
    assert client.delete(first, content_type="application/json").status_code == 204
    assert len(client.get("/api/search/history").get_json()["history"]) == 1
    assert client.delete("/api/search/history", content_type="application/json").status_code == 204
    assert client.get("/api/search/history").get_json() == {"history": []}
    assert client.get("/api/search/history").status_code == 200


def test_favorites_are_idempotent(client, indexed):
    sign_in(client, make_user())
    assert client.put(f"/api/favorites/{CH}", content_type="application/json").status_code == 204
    assert client.put(f"/api/favorites/{CH}", content_type="application/json").status_code == 204
    favorites = client.get("/api/favorites").get_json()["favorites"]
    assert [(f["channelId"], f["title"]) for f in favorites] == [(CH, "API チャンネル")]
    assert client.delete(f"/api/favorites/{CH}", content_type="application/json").status_code == 204
    assert client.delete(f"/api/favorites/{CH}", content_type="application/json").status_code == 204
    assert client.get("/api/favorites").get_json() == {"favorites": []}
    assert client.put("/api/favorites/UCnope", content_type="application/json").status_code == 404


def test_favorites_and_history_need_sign_in(client):
    assert client.get("/api/favorites").status_code == 401
    assert client.get("/api/search/history").status_code == 401


def test_channel_and_video_metadata_are_public(client, indexed):
    channel = client.get(f"/api/channels/{CH}").get_json()
    assert (channel["title"], channel["videoCount"], channel["subtitleStatus"]) == (
        "API チャンネル",
        2,
        "completed",
    )
    video = client.get("/api/videos/apiVideo002").get_json()
    assert (video["durationSeconds"], video["creditCost"], video["subtitleStatus"]) == (
        1800,
        3,
        "completed",
    )
    assert client.get("/api/videos/nope").status_code == 404
    assert client.get("/api/channels/nope").status_code == 404


def test_a_video_shows_its_failed_fetch_and_when_it_is_retried(client, platform_files):
    # given a video whose subtitle fetch failed once
    platform_files.channel(CH, ["apiFailing1"])
    platform_files.video("apiFailing1", CH, "error")
    ingest.import_channel(CH)
    ingest.fetch_subtitles("apiFailing1")
    retry_at = Video.get_by_id("apiFailing1").next_fetch_at

    # when / then
    failed = client.get("/api/videos/apiFailing1").get_json()
    assert (failed["subtitleStatus"], failed["fetchAttempts"], failed["nextRetryAt"]) == (
        "failed",
        1,
        retry_at,
    )
    assert retry_at is not None

    # and once a retry found the subtitles, nothing is pending any more
    platform_files.update("videos", "apiFailing1", subtitles=manual("直りました"))
    ingest.retry_subtitles("apiFailing1", 1)
    done = client.get("/api/videos/apiFailing1").get_json()
    assert (done["subtitleStatus"], done["fetchAttempts"], done["nextRetryAt"]) == (
        "completed",
        0,
        None,
    )


def test_the_video_document_declares_the_retry_state(client):
    schema = client.get("/api/openapi.json").get_json()["components"]["schemas"]["Video"]
    assert {"subtitleStatus", "fetchAttempts", "nextRetryAt"} <= set(schema["properties"])


def test_full_subtitles_need_unexpired_access(client, app, indexed):
    user = make_user()
    sign_in(client, user)
    locked = client.get("/api/videos/apiVideo001/subtitles")
    assert (locked.status_code, locked.get_json()["error"]["code"]) == (403, "locked")
    unlock_video(user.id, "apiVideo001")
    body = client.get("/api/videos/apiVideo001/subtitles").get_json()
    assert body["videoId"] == "apiVideo001"
    # Every cue as it was said, with its own time
    assert [(s["start"], s["text"]) for s in body["segments"]] == [
        (0.0, "大阪の広告を見ました。"),
        (3.0, "<script>x</script> です"),
    ]
    admin = app.test_client()
    sign_in(admin, make_admin())
    assert admin.get("/api/videos/apiVideo002/subtitles").status_code == 200
    assert client.get("/api/videos/nope/subtitles").status_code == 404


def test_sample_load_and_a_worker_make_the_sample_searchable(client, stub_broker, stub_worker):
    result = CliRunner().invoke(main, ["sample", "load"])
    assert result.exit_code == 0, result.output
    assert "4 channel" in result.output
    drain(stub_broker, stub_worker, queues=("channels", "subtitles"))

    osaka = client.get("/api/search?q=大阪&target=subtitle").get_json()
    assert {"osakaFood01", "autoOsaka01"} <= {h["videoId"] for h in osaka["hits"]}
    phrase = client.get('/api/search?q="brown fox"').get_json()
    assert [h["videoId"] for h in phrase["hits"]] == ["phraseSpan1"]
    work = client.get("/api/search?q=work&target=subtitle").get_json()
    assert "networkOnly" not in {h["videoId"] for h in work["hits"]}
    assert work["totalHits"] > 0
    script = client.get("/api/search?q=alert").get_json()["hits"]
    assert any("&lt;script&gt;" in h["highlight"] for h in script)
    assert client.get("/api/search?q=京都&target=subtitle").get_json()["totalHits"] == 0
    assert client.get("/api/search?q=京都&target=title").get_json()["totalHits"] >= 1
    cat = client.get("/api/search?q=猫&target=subtitle").get_json()["hits"]
    assert {h["videoId"] for h in cat} == {"Yc8nPa3KzRf"}
    statuses = {
        vid: client.get(f"/api/videos/{vid}").get_json()["subtitleStatus"]
        for vid in ("osakaFood01", "autoOsaka01", "noSubs00001", "fetchFails1")
    }
    assert statuses == {
        "osakaFood01": "completed",
        "autoOsaka01": "completed",
        "noSubs00001": "unavailable",
        "fetchFails1": "failed",
    }
    assert client.get("/api/videos/deletedVid1").status_code == 404
