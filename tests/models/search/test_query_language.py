"""The query language (models/search/query.py) as every engine executes it: exclusion,
OR, prefixes and the filters on date, length, subtitle kind and language, and views.

Each test runs on the embedded engine, on the Meilisearch engine against its local
stand-in (tests/fakes/meili_server.py), and on a real Meilisearch when MEILI_TEST_URL
(and MEILI_TEST_KEY) are set."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from models.platform.base import Cue
from models.search import SearchQuery, video_documents
from models.search.embedded import EmbeddedEngine, matching
from models.search.embedded import hits as embedded_hits
from models.search.embedded import videos as embedded_videos
from models.search.segments import build_segments
from tests.models.search.engines import EVERY_ENGINE, engine_named

pytestmark = pytest.mark.database_independent

CHANNEL = SimpleNamespace(id="UCaaaaaaaaaaaaaaaaaaaaaa", title="チャンネル", subscriber_count=100)
OTHER = SimpleNamespace(id="UCbbbbbbbbbbbbbbbbbbbbbb", title="別の", subscriber_count=5)


@pytest.fixture(params=EVERY_ENGINE)
def engine(request, tmp_path):
    yield from engine_named(request.param, tmp_path / "search.db")


def add(
    engine,
    vid,
    *texts,
    title="動画",
    description="",
    published="2024-06-01T00:00:00.000Z",
    views=100,
    duration=600,
    subtitles=("manual", "ja"),
    ch=CHANNEL,
):
    """A video saying `texts` (one cue each, a minute apart: one moment each)."""
    video = SimpleNamespace(
        id=vid,
        title=title,
        published_at=published,
        thumbnail_url=None,
        view_count=views,
        duration_seconds=duration,
    )
    cues = [Cue(n * 60.0, n * 60.0 + 3.0, text) for n, text in enumerate(texts)]
    segments = build_segments(cues, auto=False) if subtitles else []
    engine.replace_video_documents(
        vid, video_documents(video, ch, description, segments, subtitles if texts else None)
    )


def videos(engine, q, **asked):
    """The ids of the videos found, grouped (the page's answer), in order."""
    return [v.video_id for v in engine.search_videos(SearchQuery(q=q, **asked)).videos]


def hits(engine, q, **asked):
    """The ids of the videos of the hits one by one (the flat answer), as a set."""
    return {h.video_id for h in engine.search(SearchQuery(q=q, **asked)).hits}


def both(engine, q, **asked):
    """The videos found, the same by both answers."""
    grouped = set(videos(engine, q, **asked))
    assert hits(engine, q, **asked) == grouped
    return grouped


# -- words ---------------------------------------------------------------------------------


def test_an_excluded_word_leaves_out_what_says_it(engine):
    add(engine, "ramen000001", "ラーメンが好きです")
    add(engine, "cupramen001", "カップラーメンを食べた")
    add(engine, "udon0000001", "うどんが好きです")
    assert both(engine, "ラーメン") == {"ramen000001", "cupramen001"}
    assert both(engine, "ラーメン -カップ") == {"ramen000001"}
    assert both(engine, "好き -ラーメン") == {"udon0000001"}


def test_an_excluded_latin_word_and_phrase(engine):
    add(engine, "noodles0001", "fresh noodles every day")
    add(engine, "cupnoodle01", "cup noodles again")
    add(engine, "cupboard001", "noodles in the cup board")
    assert both(engine, "noodles -cup") == {"noodles0001"}
    assert both(engine, 'noodles -"cup noodles"') == {"noodles0001", "cupboard001"}


def test_exclusion_is_per_moment_so_a_video_keeps_its_other_moments(engine):
    # Windows of two cues (segments.py): ラーメン in the first and the last, カップ in the
    # last two.
    said = (
        "ラーメンの話です。",
        "別の話です。",
        "また別の話です。",
        "カップの話です。",
        "カップラーメンです。",
    )
    add(engine, "twomoments1", *said)
    found = engine.search_videos(SearchQuery(q="ラーメン -カップ")).videos
    assert [v.video_id for v in found] == ["twomoments1"]
    assert [m.text for m in found[0].moments] == ["ラーメンの話です。別の話です。"]


def test_or_finds_either_side(engine):
    add(engine, "udon0000001", "うどんを食べる")
    add(engine, "soba0000001", "そばを食べる")
    add(engine, "rice0000001", "ご飯を食べる")
    for q in ("うどん OR そば", "うどん | そば", "うどん|そば"):
        assert both(engine, q) == {"udon0000001", "soba0000001"}, q
    assert both(engine, "うどん OR そば OR ご飯") == {"udon0000001", "soba0000001", "rice0000001"}


def test_or_binds_its_two_sides_and_the_rest_must_match_too(engine):
    add(engine, "udonhot0001", "熱いうどん")
    add(engine, "sobacold001", "冷たいそば")
    add(engine, "sobahot0001", "熱いそば")
    assert both(engine, "熱い うどん OR そば") == {"udonhot0001", "sobahot0001"}
    assert both(engine, '"冷たいそば" OR うどん') == {"sobacold001", "udonhot0001"}


def test_every_side_of_or_is_highlighted(engine):
    add(engine, "bothsides01", "うどんとそばの店")
    [hit] = engine.search(SearchQuery(q="うどん OR そば")).hits
    assert "<mark>うどん</mark>" in hit.highlight and "<mark>そば</mark>" in hit.highlight


def test_a_prefix_finds_latin_words_starting_so(engine):
    add(engine, "programs001", "my program crashed")
    add(engine, "programm001", "programming is fun")
    add(engine, "aprogram001", "reprogram the robot")
    add(engine, "progress001", "slow progress today")
    assert both(engine, "program*") == {"programs001", "programm001"}
    assert both(engine, "progr*") == {"programs001", "programm001", "progress001"}
    [hit] = engine.search(SearchQuery(q="programm*")).hits
    assert "<mark>programming</mark>" in hit.highlight


# -- filters --------------------------------------------------------------------------------


@pytest.fixture
def dated(engine):
    add(engine, "y2023june01", "桜の季節", published="2023-06-15T09:00:00.000Z")
    add(engine, "y2024jan001", "桜の季節", published="2024-01-01T00:00:00.000Z")
    add(engine, "y2024dec311", "桜の季節", published="2024-12-31T23:59:59.000Z")
    add(engine, "y2025feb001", "桜の季節", published="2025-02-01T12:00:00.000Z")
    return engine


def test_after_and_before_include_their_days(dated):
    assert both(dated, "桜 after:2024-01-01") == {"y2024jan001", "y2024dec311", "y2025feb001"}
    assert both(dated, "桜 before:2024-12-31") == {"y2023june01", "y2024jan001", "y2024dec311"}
    assert both(dated, "桜 after:2024-01-01 before:2024-12-31") == {"y2024jan001", "y2024dec311"}


def test_a_year_or_a_month_is_the_whole_of_it(dated):
    assert both(dated, "桜 after:2024 before:2024") == {"y2024jan001", "y2024dec311"}
    assert both(dated, "桜 after:2024-12 before:2025-02") == {"y2024dec311", "y2025feb001"}


def test_filters_keep_the_order_asked(dated):
    newest = videos(dated, "桜 after:2024-01-01", sort="newest")
    assert newest == ["y2025feb001", "y2024dec311", "y2024jan001"]
    assert videos(dated, "桜 before:2024-06-01", sort="oldest") == ["y2023june01", "y2024jan001"]


def test_filters_count_only_what_they_let_through(dated):
    found = dated.search_videos(SearchQuery(q="桜 after:2024-06-01"))
    assert found.total_videos == 2
    assert dated.search(SearchQuery(q="桜 after:2024-06-01")).total_hits == 2


def test_duration_by_class_and_by_length(engine):
    add(engine, "short000001", "料理の話", duration=239)
    add(engine, "medium00001", "料理の話", duration=240)
    add(engine, "medium00002", "料理の話", duration=1200)
    add(engine, "long0000001", "料理の話", duration=1201)
    assert both(engine, "料理 duration:short") == {"short000001"}
    assert both(engine, "料理 duration:medium") == {"medium00001", "medium00002"}
    assert both(engine, "料理 duration:long") == {"long0000001"}
    assert both(engine, "料理 duration:>20m") == {"long0000001"}
    assert both(engine, "料理 duration:<4m") == {"short000001"}
    assert both(engine, "料理 duration:>=4m duration:<=20m") == {"medium00001", "medium00002"}


def test_subtitle_kind_and_language(engine):
    add(engine, "manualja001", "旅行の話", subtitles=("manual", "ja"))
    add(engine, "autoja00001", "旅行の話", subtitles=("auto", "ja"))
    add(engine, "manualen001", "旅行の話 travel", subtitles=("manual", "en-US"))
    add(engine, "nosubs00001", title="旅行の話", subtitles=None)
    assert both(engine, "旅行 type:manual") == {"manualja001", "manualen001"}
    assert both(engine, "旅行 type:auto") == {"autoja00001"}
    assert both(engine, "旅行 lang:ja") == {"manualja001", "autoja00001"}
    assert both(engine, "旅行 lang:en") == {"manualen001"}
    assert both(engine, "旅行 lang:ja type:auto") == {"autoja00001"}
    assert both(engine, "旅行") == {"manualja001", "autoja00001", "manualen001", "nosubs00001"}


def test_views(engine):
    add(engine, "few00000001", "猫の動画", views=10)
    add(engine, "some0000001", "猫の動画", views=10_000)
    add(engine, "many0000001", "猫の動画", views=2_000_000)
    add(engine, "hidden00001", "猫の動画", views=None)
    assert both(engine, "猫 views:>10000") == {"many0000001"}
    assert both(engine, "猫 views:>=10k") == {"some0000001", "many0000001"}
    assert both(engine, "猫 views:<500") == {"few00000001"}
    assert both(engine, "猫 views:>5 views:<1m") == {"few00000001", "some0000001"}


def test_filters_apply_to_titles_and_descriptions_too(engine):
    add(engine, "titleold001", title="キャンプ入門", published="2020-01-01T00:00:00.000Z")
    add(engine, "titlenew001", title="キャンプ入門", published="2025-01-01T00:00:00.000Z")
    add(engine, "describe001", description="キャンプの道具", published="2025-03-01T00:00:00.000Z")
    assert both(engine, "キャンプ after:2024-01-01") == {"titlenew001", "describe001"}
    assert both(engine, "キャンプ after:2024-01-01", targets=("title",)) == {"titlenew001"}


def test_filters_with_channels_exclusion_and_or_together(engine):
    add(engine, "keep0000001", "味噌ラーメン", published="2024-05-01T00:00:00.000Z")
    add(engine, "keepsoba001", "年越しそば", published="2024-12-31T00:00:00.000Z")
    add(engine, "cup00000001", "カップラーメン", published="2024-05-01T00:00:00.000Z")
    add(engine, "otherch0001", "味噌ラーメン", published="2024-05-01T00:00:00.000Z", ch=OTHER)
    add(engine, "tooold00001", "味噌ラーメン", published="2022-05-01T00:00:00.000Z")
    q = "ラーメン OR そば -カップ after:2024-01-01 type:manual"
    assert both(engine, q, channels=(CHANNEL.id,)) == {"keep0000001", "keepsoba001"}
    assert both(engine, q) == {"keep0000001", "keepsoba001", "otherch0001"}


def test_a_single_kanji_with_filters_and_exclusion(engine):
    add(engine, "rain2024001", "雨が降る", published="2024-05-01T00:00:00.000Z")
    add(engine, "umbrella001", "雨と傘", published="2024-05-01T00:00:00.000Z")
    add(engine, "rain2020001", "雨が降る", published="2020-05-01T00:00:00.000Z")
    assert both(engine, "雨 after:2024-01-01") == {"rain2024001", "umbrella001"}
    assert both(engine, "雨 -傘 after:2024-01-01") == {"rain2024001"}
    assert both(engine, "雨 OR 雪 -傘") == {"rain2024001", "rain2020001"}


def test_text_that_only_looks_like_a_filter_is_text(engine):
    add(engine, "clock000001", "会議は12:30から")
    add(engine, "example0001", "例：東京の話")
    assert both(engine, "12:30") == {"clock000001"}
    assert both(engine, "例：東京") == {"example0001"}


@pytest.mark.parametrize("every", [1000, 2])
def test_a_filtered_search_reads_its_matches_whole_or_by_candidates(tmp_path, monkeypatch, every):
    """The embedded engine reads every match of a filtered query that has few (at most
    matching.EVERY), and counts and ranks candidates otherwise: the same answers."""
    for module in (matching, embedded_videos, embedded_hits):
        monkeypatch.setattr(module, "EVERY", every)
    engine = EmbeddedEngine(str(tmp_path / "search.db"))
    engine.apply_settings()
    for n in range(6):
        year = 2020 + n
        add(
            engine,
            f"cat{year}0001",
            "ラーメンの話です。",
            "別の話です。",
            "ラーメンが好き。",
            published=f"{year}-05-01T00:00:00.000Z",
        )
    q = "ラーメン after:2022-01-01"
    expected = {f"cat{year}0001" for year in range(2022, 2026)}
    assert both(engine, q) == expected
    assert videos(engine, q, sort="oldest") == sorted(expected)
    assert engine.search_videos(SearchQuery(q=q)).total_videos == 4
    flat = engine.search(SearchQuery(q=q, sort="newest"))
    assert flat.total_hits == 8
    assert [hit.video_id for hit in flat.hits][:2] == ["cat20250001", "cat20250001"]
    engine.close()
