"""The query language through GET /api/search, as a client uses it: videos fetched from
the platform keep their length and their subtitles' kind and language, the filters and
exclusions narrow both answers, history keeps the query as typed, and a query that
cannot be read is a 400 naming the part and where it is."""

from __future__ import annotations

import pytest

from models import ingest
from models.tables import SearchHistory
from tests.factories import make_user, sign_in
from tests.fakes.platform_files import auto, manual

CH = "UCquerylangquerylangqu1"


@pytest.fixture
def indexed(platform_files):
    platform_files.channel(CH, ["qlManualJa1", "qlAutoJa001", "qlManualEn1", "qlCupRamen1"])
    platform_files.video(
        "qlManualJa1",
        CH,
        manual("ラーメンの話です。"),
        publishedAt="2024-03-01T00:00:00.000Z",
        durationSeconds=1500,
        viewCount=50_000,
    )
    platform_files.video(
        "qlAutoJa001",
        CH,
        auto("ラーメンの話です。"),
        publishedAt="2023-03-01T00:00:00.000Z",
        durationSeconds=120,
        viewCount=10,
    )
    platform_files.video(
        "qlManualEn1",
        CH,
        manual("ラーメン ramen review", language="en-GB"),
        publishedAt="2024-08-01T00:00:00.000Z",
        durationSeconds=600,
        viewCount=900,
    )
    platform_files.video(
        "qlCupRamen1",
        CH,
        manual("カップラーメンの話です。"),
        publishedAt="2024-05-01T00:00:00.000Z",
        durationSeconds=300,
        viewCount=70,
    )
    ingest.import_channel(CH)
    for video_id in ("qlManualJa1", "qlAutoJa001", "qlManualEn1", "qlCupRamen1"):
        ingest.fetch_subtitles(video_id)


def found(client, q, **params):
    """The videos of both answers (they must agree)."""
    flat = client.get("/api/search", query_string={"q": q, **params})
    grouped = client.get("/api/search", query_string={"q": q, "groupBy": "video", **params})
    assert flat.status_code == grouped.status_code == 200, flat.get_json()
    videos = {hit["videoId"] for hit in flat.get_json()["hits"]}
    assert {video["videoId"] for video in grouped.get_json()["videos"]} == videos
    return videos


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("ラーメン", {"qlManualJa1", "qlAutoJa001", "qlManualEn1", "qlCupRamen1"}),
        ("ラーメン -カップ", {"qlManualJa1", "qlAutoJa001", "qlManualEn1"}),
        ("ラーメン type:auto", {"qlAutoJa001"}),
        ("ラーメン type:manual lang:ja", {"qlManualJa1", "qlCupRamen1"}),
        ("ラーメン lang:en", {"qlManualEn1"}),
        ("ラーメン duration:long", {"qlManualJa1"}),
        ("ラーメン duration:short", {"qlAutoJa001"}),
        ("ラーメン duration:>4m duration:<=10m", {"qlManualEn1", "qlCupRamen1"}),
        ("ラーメン after:2024-01-01 before:2024-06-30", {"qlManualJa1", "qlCupRamen1"}),
        ("ラーメン views:>=900", {"qlManualJa1", "qlManualEn1"}),
        ("review OR カップ", {"qlManualEn1", "qlCupRamen1"}),
        # romaji: ramen reads ラメン, as ラーメン does (below what was written)
        ("ramen", {"qlManualJa1", "qlAutoJa001", "qlManualEn1", "qlCupRamen1"}),
        ("rev*", {"qlManualEn1"}),
    ],
)
def test_fetched_videos_obey_every_operator(client, indexed, q, expected):
    assert found(client, q) == expected


def test_history_keeps_the_query_with_its_filters(client, indexed):
    user = make_user()
    sign_in(client, user)
    assert found(client, "ラーメン -カップ after:2024-01-01") == {"qlManualJa1", "qlManualEn1"}
    entry = SearchHistory.get(SearchHistory.user == user.id)
    assert entry.query == "ラーメン -カップ after:2024-01-01"


@pytest.mark.parametrize(
    ("q", "part", "position"),
    [
        ("ラーメン color:red", "color:red", 6),
        ("ラーメン after:2024-02-30", "after:2024-02-30", 6),
        ("ラーメン - カップ", "-", 6),
        ("ラーメン OR", "OR", 6),
        ("ラーメン lang:zz", "lang:zz", 6),
    ],
)
def test_a_query_that_cannot_be_read_is_a_400_naming_the_part(client, q, part, position):
    answer = client.get("/api/search", query_string={"q": q})
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert f"“{part}”" in error["message"] or "“-”" in error["message"]
    assert f"character {position}" in error["message"]
    assert f"at character {position}" in error["fields"]["q"]


@pytest.mark.parametrize(
    ("q", "part"),
    [
        ("ラーメン duration:>99999999999999999999h", "duration:>99999999999999999999h"),
        ("ラーメン duration:<=99999999999999999999m", "duration:<=99999999999999999999m"),
        ("ラーメン duration:>" + "9" * 150 + "s", "duration:>" + "9" * 150 + "s"),
        ("ラーメン views:>99999999999999999999", "views:>99999999999999999999"),
        ("ラーメン views:<" + "9" * 180, "views:<" + "9" * 180),
        ("ラーメン duration:>²", "duration:>²"),
        ("ラーメン after:9999-99-99", "after:9999-99-99"),
        ("ラーメン after:0000-01-01", "after:0000-01-01"),
        ("ラーメン before:10000", "before:10000"),
    ],
)
def test_a_number_out_of_range_in_an_operator_is_a_400_naming_it(client, indexed, q, part):
    for params in ({}, {"groupBy": "video"}, {"sort": "newest"}):
        answer = client.get("/api/search", query_string={"q": q, **params})
        assert answer.status_code == 400, answer.get_data(as_text=True)[:300]
        error = answer.get_json()["error"]
        assert error["code"] == "invalid_request"
        assert f"“{part}” at character 6" in error["message"]
        assert error["fields"]["q"].endswith(f"“{part}” at character 6")


def test_the_largest_bounds_still_search(client, indexed):
    assert found(client, "ラーメン views:<=1000000000000000 duration:<=277777777h") == {
        "qlManualJa1",
        "qlAutoJa001",
        "qlManualEn1",
        "qlCupRamen1",
    }
    assert found(client, "ラーメン before:9999-12 after:0001-01") == found(client, "ラーメン")


def test_text_that_looks_like_a_filter_is_searched_as_text(client, indexed):
    answer = client.get("/api/search", query_string={"q": "12:30 例：東京"})
    assert answer.status_code == 200
    assert answer.get_json()["totalHits"] == 0


def test_too_many_combinations_of_or_are_refused(client):
    q = "a OR b c OR d e OR f g OR h i OR j"  # 2^5 ways to choose
    answer = client.get("/api/search", query_string={"q": q})
    assert answer.status_code == 400
    assert answer.get_json()["error"]["fields"] == {"q": "at most 16 combinations of OR"}
    assert (
        client.get("/api/search", query_string={"q": "a OR b c OR d e OR f g OR h"}).status_code
        == 200
    )
