"""Every moment of a video (issue 47): a grouped answer counts each video's moments
(`total_moments`) and `video_moments` lists them all, the card's first, paged, on every
engine (the embedded one and Meilisearch's stand-in; a real Meilisearch when
MEILI_TEST_URL is set). docs/search.md, Every moment."""

from __future__ import annotations

import pytest

from models.search import SearchQuery, Segment, meili_request, video_documents
from models.search.embedded import moments as embedded_moments
from models.search.highlight import Marker
from models.search.meili_meaning import Meaning
from models.search.moments import group_spans, rank_moments
from tests.models.search.engines import EVERY_ENGINE, engine_named, on_stand_in
from tests.models.search.test_conformance import (
    KANSAI,
    E5SmallEmbedder,
    channel,
    index_meant,
    meaning_engine,
    video,
)

pytestmark = pytest.mark.database_independent


@pytest.fixture(params=EVERY_ENGINE)
def engine(request, tmp_path):
    yield from engine_named(request.param, tmp_path / "search.db")


def index(engine, vid, segments, *, description="", **video_fields):
    """Index segments as given (start, end, text), whatever cutting cues would make."""
    engine.replace_video_documents(
        vid,
        video_documents(
            video(vid, **video_fields),
            channel(),
            description,
            [Segment(*segment) for segment in segments],
        ),
    )


def apart(count, text="ramen again", every=20.0):
    """Segments `every` seconds apart: `count` moments of their own."""
    return [(n * every, n * every + 3.0, f"{text} {n}") for n in range(count)]


def grouped(engine, q, **kw):
    return engine.search_videos(SearchQuery(q=q, **kw))


def moments(engine, video_id, q, **kw):
    return engine.video_moments(SearchQuery(q=q, **kw), video_id)


def shown(hits):
    return [(hit.start, hit.end, hit.highlight) for hit in hits]


# -- the rule --------------------------------------------------------------------------------


def test_windows_that_overlap_in_a_row_are_a_moment_every_other_window():
    # Given windows sharing a cue with the next one, all matching (0-9, 6-15, 12-21, ...)
    spans = [(n, n * 6.0, n * 6.0 + 9.0) for n in range(5)]

    # Then each moment is a window and the next, which overlaps it; the third window
    # overlaps only the second, so it starts a moment of its own (not chained)
    assert [[s[0] for s in group] for group in group_spans(spans)] == [[0, 1], [2, 3], [4]]
    # whatever order the engine read them in
    assert group_spans(list(reversed(spans))) == group_spans(spans)


def test_moments_rank_by_their_best_segment_the_unranked_after_in_time_order():
    groups = group_spans([(n, n * 20.0, n * 20.0 + 3.0) for n in range(5)])

    ranked = rank_moments(groups, [3, 1])

    assert [moment.shown[0] for moment in ranked] == [3, 1, 0, 2, 4]
    assert [m.shown[0] for m in rank_moments(groups, [3, 1], 3)] == [3, 1, 0]


# -- every engine ----------------------------------------------------------------------------


def test_a_grouped_answer_counts_every_moment_and_the_list_starts_with_the_card(engine):
    # Given a video saying the word in eight moments apart, once louder than the rest
    cues = apart(8)
    cues[5] = (100.0, 103.0, "ramen ramen ramen")
    index(engine, "ramen000001", cues)
    index(engine, "other000001", [(0, 3, "udon tonight")])

    # When the search is grouped, and the video's moments listed
    [video] = grouped(engine, "ramen").videos
    listed = moments(engine, "ramen000001", "ramen")

    # Then the card shows three moments and counts eight, as the list does
    assert (len(video.moments), video.total_moments) == (3, 8)
    assert listed.total_moments == 8 and len(listed.moments) == 8
    # And the list starts with the card's moments, as the card shows them
    assert shown(listed.moments[:3]) == shown(video.moments)
    # And holds each moment once, every one marked
    assert sorted(hit.start for hit in listed.moments) == [n * 20.0 for n in range(8)]
    assert all("<mark>ramen</mark>" in hit.highlight for hit in listed.moments)
    assert listed.semantic_applied is False


def test_overlapping_windows_are_counted_as_the_moments_they_make(engine):
    # Given windows of three 3-second cues, each sharing its last cue with the next
    # (segments.py), all saying the word
    starts = (0.0, 6.0, 12.0, 18.0, 24.0)
    index(engine, "every000001", [(a, min(a + 9.0, 30.0), f"ramen {a}") for a in starts])

    [video] = grouped(engine, "ramen").videos
    listed = moments(engine, "every000001", "ramen")

    # Then five windows (0-9, 6-15, 12-21, 18-27, 24-30) make three moments
    assert video.total_moments == listed.total_moments == 3
    assert sorted((hit.start, hit.end) for hit in listed.moments) == [
        (0.0, 15.0),
        (12.0, 27.0),
        (24.0, 30.0),
    ]


def test_the_list_is_paged(engine):
    index(engine, "paged000001", apart(7))
    every = moments(engine, "paged000001", "ramen", per_page=20)

    pages = [moments(engine, "paged000001", "ramen", page=n, per_page=3) for n in (1, 2, 3, 4)]

    assert [page.total_moments for page in pages] == [7] * 4
    assert [len(page.moments) for page in pages] == [3, 3, 1, 0]
    assert [h for page in pages for h in shown(page.moments)] == shown(every.moments)


def test_a_video_found_by_its_title_alone_has_no_moment(engine):
    index(engine, "titleonly01", [(0, 3, "something else")], title="ramen tour")

    [video] = grouped(engine, "ramen").videos
    listed = moments(engine, "titleonly01", "ramen")

    assert (video.moments, video.total_moments) == ([], 0)
    assert (listed.total_moments, listed.moments) == (0, [])


def test_a_video_the_index_does_not_hold_has_no_moment(engine):
    index(engine, "ramen000002", apart(2))

    listed = moments(engine, "unknown0001", "ramen")

    assert (listed.total_moments, listed.moments) == (0, [])


def test_the_query_s_own_filters_and_exclusions_apply_to_the_list(engine):
    # Given a video published in 2026 saying ramen alone, then ramen with cup
    index(
        engine,
        "filtered001",
        [(0, 3, "ramen tonight"), (20, 23, "cup ramen"), (40, 43, "ramen again")],
        published="2026-01-01T00:00:00.000Z",
    )

    # Then an excluded word leaves its moment out, and a filter the video fails all
    assert moments(engine, "filtered001", "ramen -cup").total_moments == 2
    assert [v.total_moments for v in grouped(engine, "ramen -cup").videos] == [2]
    assert moments(engine, "filtered001", "ramen before:2025-01-01").total_moments == 0
    assert moments(engine, "filtered001", "ramen after:2025-01-01").total_moments == 3


def test_only_the_subtitles_target_lists_moments(engine):
    index(engine, "targets0001", apart(4), title="ramen tour")

    assert moments(engine, "targets0001", "ramen", targets=("title",)).total_moments == 0
    [video] = grouped(engine, "ramen", targets=("title",)).videos
    assert video.total_moments == 0


def test_an_or_counts_the_moments_of_either_side(engine):
    index(engine, "either00001", [(0, 3, "ramen"), (20, 23, "udon"), (40, 43, "soba")])

    [video] = grouped(engine, "ramen OR udon").videos
    listed = moments(engine, "either00001", "ramen OR udon")

    assert video.total_moments == listed.total_moments == 2
    assert shown(listed.moments[:2]) == shown(video.moments)


# -- the embedded engine's costs -------------------------------------------------------------


@pytest.fixture
def embedded_engine(tmp_path):
    yield from engine_named("embedded", tmp_path / "search.db")


def test_only_the_page_of_the_list_is_highlighted(embedded_engine, monkeypatch):
    # Given a video of thirty moments
    index(embedded_engine, "costly00001", apart(30))
    marked = []
    highlight = Marker.highlight
    monkeypatch.setattr(
        Marker, "highlight", lambda self, text, *a: marked.append(text) or highlight(self, text, *a)
    )

    # When a page of five is listed, and a grouped page shown
    listed = moments(embedded_engine, "costly00001", "ramen", per_page=5)
    count = len(marked)
    grouped(embedded_engine, "ramen")

    # Then five moments were highlighted for the list, three for the card, though all
    # thirty were counted
    assert (listed.total_moments, count, len(marked) - count) == (30, 5, 3)


def test_a_page_of_videos_scores_a_bounded_share_of_a_long_video(embedded_engine, monkeypatch):
    # Given a video saying the word in more moments than a page scores
    monkeypatch.setattr(embedded_moments, "SHOWN_SCORED", 4)
    cues = apart(12)
    cues[9] = (180.0, 183.0, "ramen ramen ramen")  # its best moment, past the first four
    index(embedded_engine, "bounded0001", cues)

    # When grouped, and listed
    [video] = grouped(embedded_engine, "ramen").videos
    listed = moments(embedded_engine, "bounded0001", "ramen")

    # Then the card ranks the first four it scored; the list starts with those, then
    # ranks every other moment (the best one next), then the rest
    assert video.total_moments == listed.total_moments == 12
    assert shown(listed.moments[:3]) == shown(video.moments)
    assert 180.0 not in [hit.start for hit in video.moments]
    assert listed.moments[3].start == 180.0


# -- by meaning ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def e5():
    return E5SmallEmbedder()


@pytest.fixture(params=["embedded", "meilisearch-fake"])
def meaning(request, tmp_path, e5):
    yield from meaning_engine(request.param, tmp_path, e5)


def test_by_meaning_the_list_holds_what_the_card_found_by_meaning_and_by_keywords(meaning):
    # Given a video saying たこ焼き once, and meaning a flour dish of Kansai elsewhere
    index_meant(
        meaning,
        "takoyaki009",
        [
            (0, 4, "大阪でたこ焼きを買いました。"),
            (40, 44, "お好み焼きを焼きました。"),
            (80, 84, "今日は電車で帰ります。"),
        ],
    )
    index_meant(meaning, "garden00009", [(0, 4, "I planted tomatoes this spring.")])

    # When たこ焼き is searched with keywords and meaning, grouped and listed
    asked = {"semantic": True, "sr": 0.5}
    [video] = [
        v for v in grouped(meaning, "たこ焼き", **asked).videos if v.video_id == "takoyaki009"
    ]
    listed = moments(meaning, "takoyaki009", "たこ焼き", **asked)

    # Then the list counts and starts as the card, the keyword moment marked first
    assert listed.semantic_applied is True
    assert listed.total_moments == video.total_moments >= 1
    assert shown(listed.moments[: len(video.moments)]) == shown(video.moments)
    assert "<mark>たこ焼き</mark>" in listed.moments[0].highlight
    assert all("<mark>" not in hit.highlight for hit in listed.moments[1:])


def test_by_meaning_alone_the_list_counts_what_meaning_finds(meaning):
    index_meant(meaning, "takoyaki010", [(0, 4, "大阪の屋台でたこ焼きを六個買いました。")])
    index_meant(meaning, "garden00010", [(0, 4, "I planted tomatoes this spring.")])

    results = grouped(meaning, KANSAI, semantic=True, sr=1.0)
    [video] = [v for v in results.videos if v.video_id == "takoyaki010"]
    listed = moments(meaning, "takoyaki010", KANSAI, semantic=True, sr=1.0)

    assert listed.total_moments == video.total_moments == 1
    assert shown(listed.moments) == shown(video.moments)
    assert "<mark>" not in listed.moments[0].highlight


def test_a_moment_of_many_segments_leaves_room_for_the_others_on_the_card(engine):
    # Given one long segment that five others fall inside (one moment of six segments),
    # then two moments of their own
    inside = [(10.0 * n, 10.0 * n + 5.0, f"ramen inside {n}") for n in range(1, 6)]
    apart_ = [(200.0, 203.0, "ramen later"), (300.0, 303.0, "ramen last")]
    index(engine, "crowded0001", [(0.0, 100.0, "ramen all along"), *inside, *apart_])

    [video] = grouped(engine, "ramen").videos
    listed = moments(engine, "crowded0001", "ramen")

    # Then the card shows the three moments, each marked, and the list starts with them
    assert video.total_moments == listed.total_moments == 3
    assert sorted((hit.start, hit.end) for hit in video.moments) == [
        (0.0, 100.0),
        (200.0, 203.0),
        (300.0, 303.0),
    ]
    assert all("<mark>ramen</mark>" in hit.highlight for hit in video.moments)
    assert shown(listed.moments) == shown(video.moments)


# -- Meilisearch's requests ------------------------------------------------------------------


@pytest.fixture
def stand_in(url):
    engine = on_stand_in(url)
    engine.apply_settings()
    return engine


def multi_searches(fake):
    return [body for _, path, body in fake.calls() if path == "/multi-search"]


def test_meilisearch_asks_a_shown_moment_the_card_did_not_read_at_its_place(stand_in, fake):
    # Given a video whose six best segments are one moment, then two moments apart (an
    # English word: no branch by reading, so the highlights are Meilisearch's)
    inside = [(10.0 * n, 10.0 * n + 5.0, f"noodle inside {n}") for n in range(1, 6)]
    apart_ = [(200.0, 203.0, "noodle later"), (300.0, 303.0, "noodle last")]
    index(stand_in, "crowded0002", [(0.0, 100.0, "noodle all along"), *inside, *apart_])
    fake.requests.clear()

    [video_hit] = grouped(stand_in, "noodle").videos

    # Then a second multi-search asks those two at their places, highlighted
    _, shown_ = multi_searches(fake)
    assert [(q["offset"], q["limit"]) for q in shown_["queries"]] == [(6, 1), (7, 1)]
    assert all(q["attributesToHighlight"] == ["text"] for q in shown_["queries"])
    assert [hit.start for hit in video_hit.moments] == [0.0, 200.0, 300.0]
    assert all("<mark>noodle</mark>" in hit.highlight for hit in video_hit.moments)
    # And the list asks its page at once, highlighted at its places
    fake.requests.clear()
    listed = moments(stand_in, "crowded0002", "noodle", per_page=2, page=2)
    every, placed = multi_searches(fake)
    assert [q["limit"] for q in every["queries"]] == [meili_request.EVERY_MATCH]
    assert [(q["offset"], q["limit"]) for q in placed["queries"]] == [(7, 1)]
    assert [(hit.start, hit.highlight) for hit in listed.moments] == [
        (300.0, "<mark>noodle</mark> last")
    ]


@pytest.mark.parametrize(
    ("sr", "limits"),
    [
        (1.0, [meili_request.MEANING_MATCHES]),
        (0.5, [meili_request.EVERY_MATCH, meili_request.MEANING_MATCHES]),
    ],
)
def test_meilisearch_counts_a_video_s_nearest_by_meaning_as_the_embedded_engine(sr, limits):
    # Every keyword match of the video, and its nearest 100 by meaning (the embedded
    # engine's 100 nearest documents), whether meaning ranks alone or with keywords
    query = SearchQuery(q="noodle", semantic=True, sr=sr)
    plan = meili_request.plan_query(query.read)

    asked = meili_request.match_queries(query, plan, ["vid1"], Meaning([0.1, 0.2], sr), text=False)

    assert [body["limit"] for body in asked] == limits
    assert "vector" in asked[-1] and all("vector" not in body for body in asked[:-1])
