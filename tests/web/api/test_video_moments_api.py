"""GET /api/videos/{videoId}/moments (issue 47; docs/api.md, Moments of a video): every
moment of a video for a search, paged, counted as the grouped answer's `totalMoments`,
its first the moments the grouped answer shows; free, refused as a search is."""

from __future__ import annotations

import pytest

from models import indexing, library
from models.tables import Channel, SearchHistory, SubtitleTrack, Video
from tests.factories import make_user, sign_in
from tests.web.api.test_search_api import GROUPED, videos  # noqa: F401  (ramen asks it)


@pytest.fixture
def ramen(videos):  # noqa: F811  (the fixture imported above)
    """test_search_api's three videos about ラーメン: five moments in grpVideo001, one in
    grpVideo002, none in grpVideo003 (its title says it)."""
    return videos


def moments_of(client, video_id, query="q=ラーメン"):
    return client.get(f"/api/videos/{video_id}/moments?{query}")


def listed(client, video_id, query="q=ラーメン"):
    response = moments_of(client, video_id, query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def without_cues(moments):
    return [{k: v for k, v in moment.items() if k != "cues"} for moment in moments]


def grouped_video(client, video_id, query=""):
    body = client.get(f"/api/search?q=ラーメン&groupBy=video&{query}").get_json()
    return next(video for video in body["videos"] if video["videoId"] == video_id)


def test_the_answer_lists_every_moment_the_card_counts_its_own_first(client, ramen):
    # Given a video saying ラーメン in five moments, its card showing three
    card = grouped_video(client, "grpVideo001")

    # When its moments are listed
    body = listed(client, "grpVideo001")

    # Then the answer is the search's shape for one video's moments
    assert set(body) == {
        "videoId",
        "query",
        "page",
        "perPage",
        "totalMoments",
        "totalPages",
        "semantic",
        "moments",
    }
    assert (body["videoId"], body["query"], body["page"], body["perPage"]) == (
        "grpVideo001",
        "ラーメン",
        1,
        20,
    )
    assert body["semantic"] == {"requested": False, "applied": False}
    # And it counts and lists the five, as the card counts them, the card's three first
    assert body["totalMoments"] == card["totalMoments"] == 5
    assert (len(body["moments"]), body["totalPages"]) == (5, 1)
    assert without_cues(body["moments"][:3]) == card["moments"]
    # each a moment as the grouped answer gives it, and its cues as the page shows them
    for moment in body["moments"]:
        assert set(moment) == {"start", "end", "highlight", "matchedIn", "url", "cues"}
        assert moment["matchedIn"] == "subtitle"
        assert "<mark>ラーメン</mark>" in moment["highlight"]
        assert [set(cue) for cue in moment["cues"]] == [{"start", "highlight"}] * len(
            moment["cues"]
        )
        [said] = [cue for cue in moment["cues"] if "<mark>" in cue["highlight"]]
        assert said["highlight"].startswith("<mark>ラーメン</mark>の話")
        assert moment["start"] <= said["start"] <= moment["end"]
    assert len({moment["start"] for moment in body["moments"]}) == 5


def test_the_moments_are_paged(client, ramen):
    every = listed(client, "grpVideo001")["moments"]

    pages = [listed(client, "grpVideo001", f"q=ラーメン&perPage=2&page={n}") for n in (1, 2, 3, 4)]

    assert [page["totalMoments"] for page in pages] == [5] * 4
    assert [page["totalPages"] for page in pages] == [3] * 4
    assert [len(page["moments"]) for page in pages] == [2, 2, 1, 0]
    assert [moment for page in pages for moment in page["moments"]] == every


def test_a_video_found_by_its_title_alone_has_none(client, ramen):
    body = listed(client, "grpVideo003")

    assert (body["totalMoments"], body["totalPages"], body["moments"]) == (0, 0, [])


def test_the_query_language_and_the_targets_apply(client, ramen):
    # A filter the video fails, an excluded word it says, a target without subtitles
    assert listed(client, "grpVideo001", "q=ラーメン%20after:2026-02-01")["totalMoments"] == 0
    assert listed(client, "grpVideo001", "q=ラーメン%20-話")["totalMoments"] == 0
    assert listed(client, "grpVideo001", "q=ラーメン&target=title")["totalMoments"] == 0
    assert listed(client, "grpVideo001", f"q=ラーメン&channels={GROUPED}")["totalMoments"] == 5


def test_an_unknown_video_is_404(client, ramen):
    response = moments_of(client, "noSuchVideo")

    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("table", "status"),
    [(Video, "deleted"), (Channel, "deleted"), (Channel, "opted_out")],
)
def test_a_video_no_search_lists_is_404(client, ramen, table, status):
    # Given the video deleted, or its channel deleted or opted out
    key = table.id == ("grpVideo002" if table is Video else GROUPED)
    table.update(subtitle_status=status).where(key).execute()

    response = moments_of(client, "grpVideo002")

    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "q"),
        ("q=", "q"),
        ("q=" + "あ" * 201, "q"),
        ("q=ラーメン%20lang:japanese", "q"),  # cannot be read
        ("q=" + "%20".join(f"w{n}" for n in range(11)), "q"),  # past a bound
        ("q=a&target=subtitle,comments", "target"),
        ("q=a&semantic=2", "semantic"),
        ("q=a&sr=1.5", "sr"),
        ("q=a&page=0", "page"),
        ("q=a&perPage=101", "perPage"),
        ("q=a&channels=bad%20id", "channels"),
        ("q=a&sort=newest", "sort"),  # not a parameter of this call
        ("q=a&groupBy=video", "groupBy"),
    ],
)
def test_a_refused_query_is_400_as_the_search_refuses_it(client, ramen, query, field):
    response = moments_of(client, "grpVideo001", query)

    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert field in error["fields"]


def test_the_same_words_are_refused_the_same_way_by_the_search(client, ramen):
    asked = "q=ラーメン%20lang:japanese"

    moments = moments_of(client, "grpVideo001", asked).get_json()
    search = client.get(f"/api/search?{asked}&groupBy=video").get_json()

    assert moments == search


def test_a_deep_page_is_no_bound_for_one_video(client, ramen):
    body = listed(client, "grpVideo001", "q=ラーメン&page=60&perPage=100")

    assert (body["totalMoments"], body["moments"]) == (5, [])


def test_it_is_free_and_not_remembered(client, ramen):
    user = make_user()
    sign_in(client, user)

    assert moments_of(client, "grpVideo001").status_code == 200
    assert SearchHistory.select().where(SearchHistory.user == user.id).count() == 0


def test_by_meaning_it_counts_and_starts_as_the_card(client, ramen):
    # Given the videos embedded
    indexing.embed_videos(["grpVideo001", "grpVideo002", "grpVideo003"])
    asked = "semantic=1&sr=0.5"

    card = grouped_video(client, "grpVideo001", asked)
    body = listed(client, "grpVideo001", f"q=ラーメン&{asked}")

    assert body["semantic"] == {"requested": True, "applied": True}
    assert body["totalMoments"] == card["totalMoments"] >= 5
    assert without_cues(body["moments"][: len(card["moments"])]) == card["moments"]


def test_the_view_asks_the_library(client, ramen, monkeypatch):
    asked = []
    real = library.video_moments
    monkeypatch.setattr(
        library,
        "video_moments",
        lambda query, video_id: asked.append(query) or real(query, video_id),
    )

    listed(client, "grpVideo001", "q=ラーメン&perPage=7&page=2&target=subtitle")

    [query] = asked
    assert (query.q, query.page, query.per_page, query.targets) == ("ラーメン", 2, 7, ("subtitle",))


def test_without_its_stored_subtitles_a_moment_is_one_piece(client, ramen):
    # Given the video's stored track gone (a video fetched before tracks were kept)
    SubtitleTrack.delete().where(SubtitleTrack.video == "grpVideo001").execute()

    body = listed(client, "grpVideo001")

    # Then each moment is its highlight in one piece, from its start
    assert body["totalMoments"] == 5
    for moment in body["moments"]:
        assert moment["cues"] == [{"start": moment["start"], "highlight": moment["highlight"]}]
