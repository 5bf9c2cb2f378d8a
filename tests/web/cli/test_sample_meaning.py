"""Search by meaning on the sample data `make run` loads (issue 29): once the embedding
queue has run, a paraphrase and a question in the other language find their videos on
the search page, as a newcomer would try them."""

from __future__ import annotations

import pytest

from models import indexing, ingest
from models.platform.fixture import FixturePlatform
from models.tables import Video, VideoVectors


@pytest.fixture
def sample(stub_broker):
    """The bundled channels fetched and indexed, then embedded as the embedder worker
    does."""
    for channel_id in FixturePlatform().channel_ids():
        ingest.import_channel(channel_id)
    for video in Video.select().where(Video.subtitle_status == "pending"):
        ingest.fetch_subtitles(video.id)
    searchable = indexing.indexed_video_ids()
    indexing.embed_videos(searchable)
    assert VideoVectors.select().count() == len(searchable)


# Said otherwise (no video holds these words), and in the other language; each with
# the title its video's contains.
QUERIES = [
    ("小麦粉の生地を鉄板で焼く料理", "お好み焼き"),
    ("公園で動物にせんべいをあげる", "奈良公園の鹿"),
    ("quick noodle soup after work", "Weeknight ramen"),
    ("ネットワーク機器の設定", "Home networking basics"),
    ("bamboo forest early morning", "嵐山の竹林"),
    ("cats in a hillside town", "猫の細道"),
]


def test_a_paraphrase_or_the_other_language_finds_its_sample_video_first(client, sample):
    # One test for every query: the sample is embedded once (about ten seconds).
    firsts = {}
    for query, title in QUERIES:
        keywords = client.get(f"/api/search?q={query}&groupBy=video").get_json()
        body = client.get(f"/api/search?q={query}&groupBy=video&semantic=1").get_json()
        assert body["semantic"] == {"requested": True, "applied": True}
        assert not any(title in video["title"] for video in keywords["videos"]), query
        firsts[query] = title in body["videos"][0]["title"] if body["videos"] else False
    assert firsts == {query: True for query, _ in QUERIES}
