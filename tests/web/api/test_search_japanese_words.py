"""Japanese words as a client meets them through the API (issue 28): videos fetched and
indexed as the service does, searched over HTTP."""

from __future__ import annotations

import pytest

from models import ingest
from tests.fakes.platform_files import manual

CH = "UCwordsWordsWordsWords01"
VIDEOS = {
    # the two that say 京都 are the oldest, so an order by date alone would list them last
    "kyotoSaid01": ("京都の抹茶を飲みました。", "2025-01-01T00:00:00.000Z"),
    "kyotoSaid02": ("明日は京都に行きます。", "2025-02-01T00:00:00.000Z"),
    "tochouOnly1": ("東京都庁の前に来ました。", "2026-03-01T00:00:00.000Z"),
    "tonaiOnly01": ("東京都内は雨でした。", "2026-04-01T00:00:00.000Z"),
    "simulation1": ("シュミレーションゲームの話です。", "2026-05-01T00:00:00.000Z"),
}


@pytest.fixture
def indexed(platform_files):
    platform_files.channel(CH, list(VIDEOS), title="ことばチャンネル")
    for video_id, (said, published) in VIDEOS.items():
        platform_files.video(video_id, CH, manual(said), title="旅の記録", publishedAt=published)
    ingest.import_channel(CH)
    for video_id in VIDEOS:
        ingest.fetch_subtitles(video_id)


@pytest.mark.parametrize("grouped", [False, True])
def test_kyoto_lists_the_videos_that_say_it_first(client, indexed, grouped):
    url = "/api/search?q=京都" + ("&groupBy=video" if grouped else "")
    body = client.get(url).get_json()
    listed = [item["videoId"] for item in body["videos" if grouped else "hits"]]
    assert set(listed[:2]) == {"kyotoSaid01", "kyotoSaid02"}
    assert set(listed[2:]) == {"tochouOnly1", "tonaiOnly01"}


def test_a_variant_spelling_is_found_and_marked_as_written(client, indexed):
    body = client.get("/api/search?q=シミュレーション").get_json()
    [hit] = body["hits"]
    assert hit["videoId"] == "simulation1"
    assert "<mark>シュミレーション</mark>ゲーム" in hit["highlight"]
