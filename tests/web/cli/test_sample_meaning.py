"""Search by meaning on the sample data `make run` loads (issue 29): once the embedding
queue has run, a paraphrase and a question in the other language find their videos on
the search page, as a newcomer would try them; on the embedded engine and on Meilisearch
(its local stand-in), which must answer alike (issue 45)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

import pytest

from models import indexing, ingest
from models.platform.fixture import FixturePlatform
from models.search import engine_service, get_embedder, get_engine
from models.tables import Video, VideoVectors
from tests.models.search.engines import stand_in_engine


@pytest.fixture(name="settings")
def unlimited_settings(settings):
    """A reader's hundred searches in a row: limits have their own tests."""
    return replace(settings, rate_limits_enabled=False)


@pytest.fixture(params=["embedded", "meilisearch"])
def engine(request):
    """The service's search engine: the configured embedded one, or Meilisearch's stand-in
    with the same embedder."""
    if request.param == "embedded":
        yield get_engine()
        return
    # The stand-in is Python answering in this process: on busy cores a search of its
    # many queries can pass the production budget, which test_search_budget.py tests.
    for engine in stand_in_engine(embedder=get_embedder(), time_budget_ms=30_000):
        with engine_service.swap(engine):
            yield engine


@pytest.fixture
def sample(stub_broker, engine):
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
# Questions judged by reading the sample before any search ran (issue 45): in the
# other language than their video's, with the cues that answer them; and questions the
# sample does not answer.
JUDGED = json.loads((Path(__file__).with_name("sample_questions.json")).read_text("utf-8"))
REPORTED, DEER = "why do the deer in Nara bow to people", "Gx1mVb7TnQs"
IN_FIRST_THREE = 0.86  # the 12 of 14
MOMENTS_FIRST = 0.75
UNANSWERED_AT_MOST = 3
# A moment is one segment: two or three cues (models/search/segments.py), never the video.
MOMENT_SECONDS = 45


def search(client, q, **params):
    query = urlencode({"q": q, "groupBy": "video", "semantic": 1, **params})
    body = client.get(f"/api/search?{query}").get_json()
    assert body.get("semantic") == {"requested": True, "applied": True}, body
    return body["videos"]


def answers_first(video, moments):
    """Whether the video's first moment holds a cue judged to answer the question."""
    if not video["moments"]:
        return False
    first = video["moments"][0]
    return any(first["start"] - 0.5 <= moment <= first["end"] for moment in moments)


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

    # A question asked in the other language than its video's finds the video in the
    # first three, at the page's default strength and by meaning alone, and the
    # moment that answers comes first
    for strength in ({}, {"sr": 1}):
        placed, answered, missed = 0, 0, {}
        for judged in JUDGED["cross_language"]:
            videos = search(client, judged["q"], **strength)
            ids = [video["videoId"] for video in videos]
            if judged["video"] in ids[:3]:
                placed += 1
                video = videos[ids.index(judged["video"])]
                answered += answers_first(video, judged["moments"])
                # a moment is a few cues, not the whole video
                spans = [m["end"] - m["start"] for m in video["moments"]]
                assert max(spans, default=0) <= MOMENT_SECONDS, (judged["q"], video["moments"])
            else:
                missed[judged["q"]] = ids[:3]
        asked = len(JUDGED["cross_language"])
        assert placed >= IN_FIRST_THREE * asked, (strength, missed)
        assert answered >= MOMENTS_FIRST * placed, (strength, answered, placed)

    # The question of the report finds the deer video (e5-small rates it 0.28, under
    # the floor of a sure answer: it is among the three nearest videos)
    for strength in ({}, {"sr": 1}):
        ids = [video["videoId"] for video in search(client, REPORTED, **strength)]
        assert DEER in ids[:3], (strength, ids)

    # A question the sample does not answer lists a few videos by meaning, not the
    # library
    listed = {j["q"]: len(search(client, j["q"], sr=1)) for j in JUDGED["no_answer"]}
    assert max(listed.values()) <= UNANSWERED_AT_MOST, listed
