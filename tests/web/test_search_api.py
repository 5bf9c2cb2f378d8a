"""The search API as a client uses it: search, history, favorites, metadata, subtitles."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from models import ingest, library
from models.credits import unlock_video
from models.tables import SearchHistory
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


def test_the_page_and_the_api_make_one_search_call_and_show_the_same_hits(
    client, indexed, monkeypatch
):
    # Given the one search call that the page and the API share, watched
    calls = []
    shared = library.search

    def watched(user_id, query):
        results = shared(user_id, query)
        calls.append((user_id, query, results))
        return results

    monkeypatch.setattr(library, "search", watched)
    user = make_user()
    sign_in(client, user)
    # When one query is asked of the API and of the page
    answer = client.get("/api/search?q=旅&target=title,subtitle").get_json()
    page = client.get("/search?q=旅&target=title,subtitle").get_data(as_text=True)
    # Then both went through the call, with the same query, for the signed-in user
    [(api_user, api_query, api_results), (page_user, page_query, page_results)] = calls
    assert (api_user, page_user) == (user.id, user.id)
    assert api_query == page_query and api_results == page_results
    # And they show the same hits in the same order, remembered once in the history
    hits = [hit["videoId"] for hit in answer["hits"]]
    assert len(hits) == 2
    assert re.findall(r'data-video-id="([^"]+)"', page) == hits
    assert SearchHistory.select().where(SearchHistory.user == user.id).count() == 1


def test_title_hits_have_no_times(client, indexed):
    hits = client.get("/api/search?q=東京&target=title").get_json()["hits"]
    assert [(h["matchedIn"], h["start"], h["end"]) for h in hits] == [("title", None, None)]


def test_semantic_is_reported_requested_and_not_applied(client, indexed):
    body = client.get("/api/search?q=大阪&semantic=1&sr=0.7").get_json()
    assert body["semantic"] == {"requested": True, "applied": False}


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
    ],
)
def test_bad_parameters_are_400_with_the_field(client, query, field):
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["fields"]


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


def test_full_subtitles_need_unexpired_access(client, app, indexed):
    user = make_user()
    sign_in(client, user)
    locked = client.get("/api/videos/apiVideo001/subtitles")
    assert (locked.status_code, locked.get_json()["error"]["code"]) == (403, "locked")
    unlock_video(user.id, "apiVideo001")
    body = client.get("/api/videos/apiVideo001/subtitles").get_json()
    assert body["videoId"] == "apiVideo001"
    assert [s["text"] for s in body["segments"]] == [
        "大阪の広告を見ました。<script>x</script> です"
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
