"""A video title changed on the platform reaches every document of the video, on both
engines: the embedded index, and Meilisearch's requests against the local stand-in."""

from __future__ import annotations

import pytest

from models.search import SearchQuery
from models.search.base import SearchError
from tests.models.search.engines import on_stand_in
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent

SETTINGS = {"filterableAttributes": ["videoId", "channelId", "kind"]}


def test_embedded_video_update_changes_the_shown_and_the_searchable_title(embedded):
    # given a video with two segments and another video of the same title
    index(
        embedded,
        "upd00000001",
        [(0, 2, "大阪に来ました"), (2, 4, "たこ焼きです")],
        title="大阪の旅",
    )
    index(embedded, "upd00000002", [(0, 2, "東京です")], title="大阪の旅")

    # when
    updated = embedded.update_video_documents(
        "upd00000001", {"video_title": "神戸の旅", "title": "神戸の旅"}
    )

    # then every document of that video (its video document and its segments)
    assert updated == 1 + len(embedded.video_segments("upd00000001"))
    subtitle_hits = embedded.search(SearchQuery(q="たこ焼き", targets=("subtitle",))).hits
    assert {h.video_title for h in subtitle_hits} == {"神戸の旅"}
    found = embedded.search(SearchQuery(q="神戸", targets=("title",))).hits
    assert [(h.video_id, h.video_title, h.highlight) for h in found] == [
        ("upd00000001", "神戸の旅", "<mark>神戸</mark>の旅")
    ]
    old = embedded.search(SearchQuery(q="大阪の旅", targets=("title",))).hits
    assert [h.video_id for h in old] == ["upd00000002"]


def test_embedded_video_update_of_an_unindexed_video_changes_nothing(embedded):
    assert embedded.update_video_documents("missing0001", {"video_title": "x"}) == 0


def test_a_video_update_refuses_fields_a_video_change_does_not_own(embedded):
    with pytest.raises(SearchError, match="channel_title"):
        embedded.update_video_documents("upd00000001", {"channel_title": "x"})


# -- meilisearch -------------------------------------------------------------------------


@pytest.fixture
def meili(url, fake):
    fake.add_index(settings=SETTINGS)
    return on_stand_in(url)


def test_meili_video_update_sets_the_title_on_the_video_document_only(meili, fake):
    common = {"videoId": "vid1", "channelId": "chan1", "videoTitle": "Old"}
    fake.seed(
        {"id": "vid1-v", "kind": "video", "title": "Old", "description": "d", **common},
        {"id": "vid1-s0000", "kind": "subtitle", "text": "hello", **common},
        {"id": "vid2-v", "kind": "video", "title": "Old", "videoId": "vid2", "channelId": "c"},
    )

    updated = meili.update_video_documents("vid1", {"video_title": "New", "title": "New"})

    assert updated == 2
    calls = fake.calls()
    assert calls[0] == (
        "POST",
        "/indexes/subtitles/documents/fetch",
        {"filter": 'videoId = "vid1"', "fields": ["id", "kind"], "limit": 1000, "offset": 0},
    )
    [put] = [body for method, _, body in calls if method == "PUT"]
    assert put == [
        {
            "id": "vid1-v",
            "videoTitle": "New",
            "title": "New",
            "titleWords": "new",
            "titleReading": "",
        },
        {"id": "vid1-s0000", "videoTitle": "New"},
    ]
    assert calls[-1] == (
        "POST",
        "/indexes/subtitles/documents/delete",
        {"filter": "channelId NOT EXISTS"},
    )
    docs = fake.documents()
    assert (docs["vid1-v"]["title"], docs["vid1-v"]["videoTitle"]) == ("New", "New")
    assert "title" not in docs["vid1-s0000"] and docs["vid1-s0000"]["videoTitle"] == "New"
    assert docs["vid2-v"]["title"] == "Old"


def test_meili_video_update_of_an_unindexed_video_sends_no_update(meili, fake):
    assert meili.update_video_documents("nobody", {"video_title": "x"}) == 0
    assert [method for method, _, _ in fake.calls()] == ["POST"]  # the fetch only


def test_meili_video_update_refuses_other_fields_before_any_request(meili, fake):
    with pytest.raises(SearchError, match="view_count"):
        meili.update_video_documents("vid1", {"view_count": 3})
    assert fake.requests == []
