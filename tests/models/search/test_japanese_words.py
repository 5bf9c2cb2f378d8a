"""Japanese words before character pairs on the embedded engine (issue 28): a query's
words rank the videos that say them first, videos holding only its characters across a
word boundary still come, lower; spelling variants meet; highlights mark the words."""

from __future__ import annotations

import pytest

from models.search import SearchQuery
from models.search.highlight import highlight
from models.search.query import parse_query
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent


def grouped(engine, q, **kw):
    return [video.video_id for video in engine.search_videos(SearchQuery(q=q, **kw)).videos]


def flat(engine, q, **kw):
    return [hit.video_id for hit in engine.search(SearchQuery(q=q, **kw)).hits]


def newest_first(engine, cues_by_video):
    """Index each (video id, text) with later videos published later, so that the pair-only
    videos, indexed last, would come first by date alone."""
    for n, (video_id, text) in enumerate(cues_by_video):
        index(engine, video_id, [(0, 3, text)], published=f"2026-01-{n + 1:02d}T00:00:00.000Z")


@pytest.mark.parametrize("listing", [grouped, flat])
def test_a_two_character_word_ranks_its_own_videos_before_the_boundary_ones(embedded, listing):
    newest_first(
        embedded,
        [
            ("kyoto000001", "今日は京都に来ています。"),
            ("kyoto000002", "京都の抹茶はおいしい。"),
            ("tochou00001", "ここは東京都庁の前です。"),
            ("tochiji0001", "東京都知事が発表しました。"),
            ("tonai000001", "東京都内は雨でした。"),
        ],
    )
    found = listing(embedded, "京都")
    assert set(found[:2]) == {"kyoto000001", "kyoto000002"}
    # the pair-only ones are still listed, below
    assert set(found[2:]) == {"tochou00001", "tochiji0001", "tonai000001"}


def test_hontou_before_the_authorities_of_japan(embedded):
    newest_first(
        embedded,
        [
            ("hontou00001", "それは本当ですか？"),
            ("toukyoku001", "日本当局は調査を始めました。"),
            ("ippon000001", "1本当たり300円です。"),
        ],
    )
    found = grouped(embedded, "本当")
    assert found[0] == "hontou00001"
    assert set(found[1:]) == {"toukyoku001", "ippon000001"}


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("シミュレーション", "シュミレーション"),
        ("コンピューター", "コンピュータ"),
        ("芸術", "藝術"),
        ("引っ越し", "引越し"),
        ("打ち合わせ", "打合せ"),
        ("ウイルス", "ウィルス"),
        ("バイオリン", "ヴァイオリン"),
    ],
)
def test_spelling_variants_meet(embedded, one, other):
    index(embedded, "spelling001", [(0, 3, f"今日は{one}の話です。")])
    index(embedded, "spelling002", [(0, 3, f"昨日も{other}の話をしました。")])
    for q in (one, other):
        assert set(grouped(embedded, q)) == {"spelling001", "spelling002"}, q
        assert set(flat(embedded, q)) == {"spelling001", "spelling002"}, q


def test_a_variant_is_highlighted_as_the_word_written(embedded):
    index(embedded, "spelling002", [(0, 3, "シュミレーションゲームが好きです。")])
    [video] = embedded.search_videos(SearchQuery(q="シミュレーション")).videos
    assert "<mark>シュミレーション</mark>ゲーム" in video.moments[0].highlight


def test_highlights_mark_the_word_not_its_characters_inside_another():
    text = "東京都庁から京都へ向かいます"
    assert highlight(text, parse_query("京都")) == "東京都庁から<mark>京都</mark>へ向かいます"
    # where the text holds only the characters, they are marked: the reader sees why
    assert highlight("東京都庁です", parse_query("京都")) == "東<mark>京都</mark>庁です"


def test_a_part_of_a_compound_is_found_as_words(embedded):
    newest_first(
        embedded,
        [
            ("haneda00001", "東京国際空港に着きました。"),
            ("kansai00001", "国際線の空港は遠いです。"),
        ],
    )
    assert grouped(embedded, "国際空港") == ["haneda00001"]
    # both say 空港 as a word (one inside the compound): both, the newest first
    assert grouped(embedded, "空港") == ["kansai00001", "haneda00001"]


def test_a_year_and_a_price_are_found_as_words(embedded):
    index(embedded, "year0000001", [(0, 3, "2024年の夏に行きました。")])
    index(embedded, "price000001", [(0, 3, "ラーメンは1,200円でした。")])
    assert grouped(embedded, "2024年") == ["year0000001"]
    assert grouped(embedded, "1,200円") == ["price000001"]
    assert grouped(embedded, "1200円") == ["price000001"]


def test_a_lone_character_ranks_the_word_first(embedded):
    newest_first(
        embedded,
        [
            ("nara0000001", "奈良公園には鹿がたくさんいます。"),
            ("nara0000002", "公園の鹿"),  # the word last in its column
            ("suzuka00001", "鈴鹿サーキットで走りました。"),
        ],
    )
    assert grouped(embedded, "鹿") == ["nara0000002", "nara0000001", "suzuka00001"]
    assert flat(embedded, "鹿") == ["nara0000002", "nara0000001", "suzuka00001"]
    # other orders are the order asked, words or not
    assert grouped(embedded, "鹿", sort="newest") == ["suzuka00001", "nara0000002", "nara0000001"]


def test_a_quoted_phrase_of_words(embedded):
    newest_first(
        embedded,
        [
            ("phrase00001", "それは本当ですか？"),
            ("phrase00002", "本当に大丈夫ですか？"),
        ],
    )
    assert grouped(embedded, '"本当ですか"') == ["phrase00001"]


def test_latin_words_are_as_before(embedded):
    index(embedded, "network0001", [(0, 3, "新しいnetworkを作りました")])
    index(embedded, "workwork001", [(0, 3, "back to work now")])
    assert grouped(embedded, "work") == ["workwork001"]
    assert grouped(embedded, "network") == ["network0001"]


def test_a_title_is_found_by_its_words_after_a_rename(embedded):
    index(embedded, "renamed0001", [(0, 3, "こんにちは")], title="大阪の旅")
    embedded.update_video_documents("renamed0001", {"title": "シュミレーション入門"})
    assert grouped(embedded, "シミュレーション", targets=("title",)) == ["renamed0001"]


@pytest.mark.parametrize("sort", ["relevance", "newest", "views"])
def test_a_moment_is_where_the_word_is_said_in_every_order(embedded, sort):
    cues = [
        (0, 3, "東京都庁の前に来ました。"),
        (20, 23, "天気がいいですね。"),
        (40, 43, "お昼を食べました。"),
        (60, 63, "明日は京都に行きます。"),
    ]
    index(embedded, "both0000001", cues, title="東京都の旅")
    index(embedded, "pairs000001", [(0, 3, "東京都内は雨でした。")])
    found = embedded.search_videos(SearchQuery(q="京都", sort=sort)).videos
    both = next(video for video in found if video.video_id == "both0000001")
    assert both.moments[0].start == 40  # the window of the cues at 40 and 60
    assert "<mark>京都</mark>に" in both.moments[0].highlight
    # the title holds the characters only, and still says where the video matched
    assert set(both.matched_in) == {"subtitle", "title"}
    # a video holding the characters only still has its moment
    pairs = next(video for video in found if video.video_id == "pairs000001")
    assert pairs.moments[0].highlight == "東<mark>京都</mark>内は雨でした。"
