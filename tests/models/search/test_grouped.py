"""Results by video from the embedded engine: one entry per video with its best moments,
ranked by bm25 and title matches with recency as the tie-break, paged and counted by
video (docs/api.md, Search)."""

from __future__ import annotations

import pytest

from models.search import SearchQuery, Segment, video_documents
from models.search.embedded import matching, videos
from tests.models.search.test_conformance import channel, video

pytestmark = pytest.mark.database_independent


def index(engine, vid, segments, *, ch=None, description="", **video_fields):
    """Index segments as given (start, end, text), whatever cutting cues would make."""
    engine.replace_video_documents(
        vid,
        video_documents(
            video(vid, **video_fields),
            ch or channel(),
            description,
            [Segment(*segment) for segment in segments],
        ),
    )


@pytest.fixture
def engine(embedded):
    # Videos that match nothing, so the words searched are rare and bm25 tells them apart.
    for n in range(8):
        index(embedded, f"filler{n:05d}", [(0, 3, "nothing to see here"), (3, 6, "何もない話")])
    return embedded


def grouped(engine, q, **kw):
    return engine.search_videos(SearchQuery(q=q, **kw))


def ids(results):
    return [video.video_id for video in results.videos]


def test_matches_of_one_video_come_back_as_one_entry_with_at_most_three_moments(engine):
    # Given a video saying the word in five separate moments, once louder than the rest
    cues = [(n * 20.0, n * 20.0 + 3, "ramen again") for n in range(5)]
    cues[3] = (60.0, 63.0, "ramen ramen ramen")
    index(engine, "ramen000001", cues)
    # When grouped results are asked
    results = grouped(engine, "ramen")
    # Then the video is one entry with three moments, the strongest first
    [video] = results.videos
    assert (results.total_videos, results.more_than_cap) == (1, False)
    assert video.matched_in == ("subtitle",)
    assert len(video.moments) == 3
    assert video.moments[0].start == 60.0
    assert all("<mark>ramen</mark>" in moment.highlight for moment in video.moments)
    assert all(moment.matched_in == "subtitle" for moment in video.moments)


def test_a_title_match_alone_lists_the_video_without_moments(engine):
    index(engine, "titleonly01", [(0, 3, "something else")], title="ramen tour")
    [video] = grouped(engine, "ramen").videos
    assert (video.video_id, video.moments, video.matched_in) == ("titleonly01", [], ("title",))
    assert video.video_title == "ramen tour"
    assert video.thumbnail_url.endswith("/titleonly01/hqdefault.jpg")


def test_a_video_matching_in_subtitles_and_title_says_both_and_ranks_above_subtitles_alone(
    engine,
):
    index(engine, "subsonly001", [(0, 3, "ramen time")], published="2026-05-01T00:00:00.000Z")
    index(engine, "both0000001", [(0, 3, "ramen time")], title="ramen tour")
    results = grouped(engine, "ramen")
    assert ids(results) == ["both0000001", "subsonly001"]
    assert results.videos[0].matched_in == ("subtitle", "title")
    assert results.videos[0].score > results.videos[1].score


def test_an_exact_phrase_beats_scattered_words(engine):
    # Given the words apart in a newer video and together in an older one
    index(
        engine,
        "scattered01",
        [(0, 3, "quick thinking and a fox")],
        published="2026-06-01T00:00:00.000Z",
    )
    index(engine, "phrase00001", [(0, 3, "a quick fox")], published="2025-01-01T00:00:00.000Z")
    # Then the video saying the phrase comes first
    assert ids(grouped(engine, "quick fox")) == ["phrase00001", "scattered01"]


def test_an_exact_phrase_moment_comes_first_inside_its_video(engine):
    index(engine, "moments0001", [(0, 3, "fox and quick quick"), (30, 33, "one quick fox")])
    [video] = grouped(engine, "quick fox").videos
    assert [moment.start for moment in video.moments] == [30.0, 0.0]


def test_recency_breaks_ties(engine):
    index(engine, "older000001", [(0, 3, "ramen time")], published="2025-01-01T00:00:00.000Z")
    index(engine, "newer000001", [(0, 3, "ramen time")], published="2026-01-01T00:00:00.000Z")
    assert ids(grouped(engine, "ramen")) == ["newer000001", "older000001"]


@pytest.fixture
def seven(engine):
    for n in range(7):
        index(
            engine,
            f"page{n:07d}",
            [(0, 3, f"餃子 {n}"), (20, 23, "また餃子")],
            published=f"2026-01-0{n + 1}T00:00:00.000Z",
            views=(n * 37) % 7,
        )
    return engine


def test_pages_count_videos(seven):
    first = grouped(seven, "餃子", per_page=3, page=1, sort="newest")
    last = grouped(seven, "餃子", per_page=3, page=3, sort="newest")
    beyond = grouped(seven, "餃子", per_page=3, page=4, sort="newest")
    assert first.total_videos == last.total_videos == beyond.total_videos == 7
    assert ids(first) == ["page0000006", "page0000005", "page0000004"]
    assert ids(last) == ["page0000000"]
    assert beyond.videos == []


@pytest.mark.parametrize("sort", ["relevance", "newest", "oldest", "views"])
def test_every_sort_orders_videos(seven, sort):
    videos = grouped(seven, "餃子", sort=sort, per_page=50).videos
    dates = [v.published_at for v in videos]
    assert len(videos) == 7 and all(len(v.moments) == 2 for v in videos)
    if sort == "newest":
        assert dates == sorted(dates, reverse=True)
    elif sort == "oldest":
        assert dates == sorted(dates)
    elif sort == "views":
        views = [(int(v.video_id[4:]) * 37) % 7 for v in videos]
        assert views == sorted(views, reverse=True)
    else:
        scores = [v.score for v in videos]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("sort", ["relevance", "newest"])
def test_more_videos_than_the_cap_are_counted_as_the_cap(seven, monkeypatch, sort):
    monkeypatch.setattr(videos, "TOTAL_VIDEOS_CAP", 5)
    results = grouped(seven, "餃子", sort=sort, per_page=2)
    assert (results.total_videos, results.more_than_cap, len(results.videos)) == (5, True, 2)
    beyond = grouped(seven, "餃子", sort=sort, per_page=2, page=9)
    assert (beyond.total_videos, beyond.more_than_cap, beyond.videos) == (5, True, [])
    exact = grouped(seven, "餃子 0", sort=sort)
    assert (exact.total_videos, exact.more_than_cap) == (1, False)


def test_channel_filter_and_targets(engine):
    a, b = channel("UCaaaaaaaaaaaaaaaaaaaaaa"), channel("UCbbbbbbbbbbbbbbbbbbbbbb")
    index(engine, "chanA000001", [(0, 3, "ラーメンの話")], ch=a)
    index(engine, "chanB000001", [(0, 3, "ラーメンの話")], ch=b, title="ラーメン特集")
    assert ids(grouped(engine, "ラーメン", channels=(b.id,))) == ["chanB000001"]
    [title_only] = grouped(engine, "ラーメン", targets=("title",)).videos
    assert (title_only.video_id, title_only.moments, title_only.matched_in) == (
        "chanB000001",
        [],
        ("title",),
    )
    by_subtitle = grouped(engine, "ラーメン", targets=("subtitle",))
    assert {v.matched_in for v in by_subtitle.videos} == {("subtitle",)}
    assert by_subtitle.total_videos == 2


def test_a_description_match_is_named(engine):
    index(engine, "described01", [(0, 3, "今日の話")], description="ラーメンを食べる回")
    [video] = grouped(engine, "ラーメン").videos
    assert (video.moments, video.matched_in) == ([], ("description",))


def test_a_lone_character_query_groups_through_the_scan(engine):
    index(engine, "cat00000001", [(0, 3, "うちの猫"), (30, 33, "猫が寝た")], title="猫の日")
    index(engine, "dog00000001", [(0, 3, "うちの犬")])
    [video] = grouped(engine, "猫").videos
    assert video.video_id == "cat00000001"
    assert video.matched_in == ("subtitle", "title")
    assert [m.start for m in video.moments] == [0.0, 30.0]


def test_overlapping_segments_of_one_moment_give_one_moment(engine):
    # Overlapping windows hold the middle cue twice; its match is one moment
    index(engine, "overlap0001", [(0, 8, "intro ramen here"), (4, 12, "ramen here outro")])
    [video] = grouped(engine, "ramen").videos
    assert [(m.start, m.end) for m in video.moments] == [(0.0, 12.0)]


def test_an_empty_query_finds_nothing(engine):
    results = grouped(engine, "  ")
    assert (results.total_videos, results.more_than_cap, results.videos) == (0, False, [])


def test_relevance_pages_go_on_past_the_ranked_matches_newest_first(seven, monkeypatch):
    # Given fewer matches ranked by bm25 than there are matching videos
    monkeypatch.setattr(matching, "RANKED", 3)
    # When every page by relevance is asked
    pages = [grouped(seven, "餃子", per_page=3, page=n) for n in (1, 2, 3, 4)]
    # Then every video comes once, the total holds, and the last page is short
    seen = [video for results in pages for video in ids(results)]
    assert sorted(seen) == [f"page{n:07d}" for n in range(7)]
    assert [len(results.videos) for results in pages] == [3, 3, 1, 0]
    assert {results.total_videos for results in pages} == {7}
