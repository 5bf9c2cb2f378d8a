"""Japanese by reading on the sample data `make run` loads (issue 46), through the search
API as a newcomer types: kana and romaji find every video that says the kanji, with the
kanji marked; on the embedded engine and on Meilisearch (its local stand-in)."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import pytest

from models import ingest
from models.platform.fixture import FixturePlatform
from models.search import engine_service, get_engine
from models.tables import Video
from tests.models.search.engines import stand_in_engine


@pytest.fixture(name="settings")
def unlimited_settings(settings):
    """A reader's searches in a row: limits have their own tests."""
    return replace(settings, rate_limits_enabled=False)


@pytest.fixture(params=["embedded", "meilisearch"])
def engine(request):
    if request.param == "embedded":
        yield get_engine()
        return
    for engine in stand_in_engine(time_budget_ms=30_000):
        with engine_service.swap(engine):
            yield engine


@pytest.fixture
def sample(stub_broker, engine):
    for channel_id in FixturePlatform().channel_ids():
        ingest.import_channel(channel_id)
    for video in Video.select().where(Video.subtitle_status == "pending"):
        ingest.fetch_subtitles(video.id)


def videos(client, q):
    query = urlencode({"q": q, "groupBy": "video", "perPage": 50})
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()["videos"]


def ids(client, q):
    return [video["videoId"] for video in videos(client, q)]


@pytest.mark.parametrize("q", ["おおさか", "オオサカ", "osaka"])
def test_kana_and_romaji_find_every_video_that_says_osaka(client, sample, q):
    said = ids(client, "大阪")
    assert len(said) >= 5
    assert set(ids(client, q)) >= set(said)


@pytest.mark.parametrize(
    ("q", "kanji"),
    [
        ("くしかつ", "串カツ"),
        ("あらしやま", "嵐山"),
        ("かまくら", "鎌倉"),
        ("ならこうえん", "奈良公園"),
        ("二度漬け", "二度づけ"),
    ],
)
def test_the_video_that_says_the_kanji_is_found_with_it_marked(client, sample, q, kanji):
    [expected] = set(ids(client, f'"{kanji}"'))
    found = videos(client, q)
    assert expected in [video["videoId"] for video in found]
    video = next(video for video in found if video["videoId"] == expected)
    marked = [moment["highlight"] for moment in video["moments"]]
    assert any(f"<mark>{kanji}</mark>" in highlight for highlight in marked), marked
