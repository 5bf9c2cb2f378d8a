"""Japanese by reading (issue 46), on every engine: a term in kana or romaji finds the
words that read so (おおさか, osaka → 大阪), a term in kanji with kana finds its other
okurigana (二度漬け → 二度づけ), below what was written, with the kanji marked."""

from __future__ import annotations

import pytest

from models.search import SearchQuery
from tests.models.search.engines import EVERY_ENGINE, engine_named
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent


@pytest.fixture(params=EVERY_ENGINE)
def engine(request, tmp_path):
    yield from engine_named(request.param, tmp_path / "search.db")


@pytest.fixture
def library(engine):
    index(engine, "osakakanji1", [(0, 3, "大阪の串カツは二度づけ禁止です")], title="大阪の夜")
    index(engine, "osakakana01", [(0, 3, "おおさかに行きたいな")], title="旅の話")
    index(engine, "kyotokanji1", [(0, 3, "京都の嵐山で竹林を歩く")], title="京都散歩")
    index(engine, "naraparkvid", [(0, 3, "奈良公園の鹿にせんべいをあげた")], title="奈良")
    index(engine, "ramenenglis", [(0, 3, "this ramen is great")], title="ramen in english")
    index(engine, "ramenjapane", [(0, 3, "このラーメンは美味しい")], title="ラーメン")
    index(engine, "kamakuravid", [(0, 3, "鎌倉の大仏を見に行く")], title="鎌倉")
    index(engine, "kakifruit01", [(0, 3, "秋は柿が美味しい")], title="果物")
    index(engine, "kakioyster1", [(0, 3, "広島の牡蠣を食べる")], title="海の幸")
    return engine


def videos(engine, q, **kw):
    return engine.search_videos(SearchQuery(q=q, **kw)).videos


def ids(engine, q, **kw):
    return [video.video_id for video in videos(engine, q, **kw)]


@pytest.mark.parametrize("q", ["おおさか", "オオサカ", "osaka", "Osaka", "ōsaka"])
def test_kana_and_romaji_find_the_kanji(library, q):
    found = ids(library, q)
    assert set(found) == {"osakakanji1", "osakakana01"}


def test_what_was_written_comes_before_what_reads_so(library):
    # おおさか is written in one video, read in the other's 大阪
    assert ids(library, "おおさか") == ["osakakana01", "osakakanji1"]
    # osaka is written in neither: both by reading, in the library's usual order
    assert ids(library, "大阪") == ["osakakanji1"]


def test_romaji_keeps_its_english_videos_first(library):
    found = ids(library, "ramen")
    assert found == ["ramenenglis", "ramenjapane"]
    [english, japanese] = videos(library, "ramen")
    assert english.score > japanese.score


@pytest.mark.parametrize(
    ("q", "video", "marked"),
    [
        ("くしかつ", "osakakanji1", "<mark>串カツ</mark>"),
        ("kushikatsu", "osakakanji1", "<mark>串カツ</mark>"),
        ("あらしやま", "kyotokanji1", "<mark>嵐山</mark>"),
        ("かまくら", "kamakuravid", "<mark>鎌倉</mark>"),
        ("ならこうえん", "naraparkvid", "<mark>奈良公園</mark>"),
    ],
)
def test_the_kanji_found_by_reading_are_marked(library, q, video, marked):
    [found] = videos(library, q)
    assert found.video_id == video
    assert marked in found.moments[0].highlight


def test_okurigana_variants_meet_by_reading(library):
    [found] = videos(library, "二度漬け")
    assert found.video_id == "osakakanji1"
    assert "<mark>二度づけ</mark>" in found.moments[0].highlight


def test_a_kanji_word_does_not_find_its_homophones(library):
    # 柿 and 牡蠣 both read カキ: written in kanji, each finds itself only
    assert ids(library, "柿") == ["kakifruit01"]
    assert ids(library, "牡蠣") == ["kakioyster1"]


def test_a_kana_homophone_finds_every_word_that_reads_so(library):
    assert set(ids(library, "かき")) == {"kakifruit01", "kakioyster1"}


def test_phrases_and_exclusions_work_by_reading(library):
    assert ids(library, '"なら こうえん"') == ["naraparkvid"]
    assert ids(library, "こうえん しか") == ["naraparkvid"]
    assert "osakakanji1" not in ids(library, "くしかつ OR かまくら -おおさか")
    assert ids(library, "くしかつ OR かまくら -おおさか") == ["kamakuravid"]


def test_filters_hold_beside_readings(library):
    assert ids(library, "おおさか after:2027-01-01") == []
    assert set(ids(library, "おおさか after:2025-01-01")) == {"osakakanji1", "osakakana01"}


def test_hits_one_by_one_find_by_reading_too(library):
    found = library.search(SearchQuery(q="くしかつ"))
    assert found.total_hits == 1
    assert "<mark>串カツ</mark>" in found.hits[0].highlight


def test_english_words_are_not_taken_for_romaji(library):
    # made and take cut into romaji (まで, たけ) but read as two kana: not looked up
    index(library, "madeparticl", [(0, 3, "駅まで歩く")], title="散歩")
    assert ids(library, "made") == []
    assert ids(library, "great") == ["ramenenglis"]


def test_an_or_found_as_written_is_not_ranked_as_a_reading(library):
    # 鎌倉 is written in its video; かき only read (柿) in another: the video that holds
    # one side as written comes first
    index(library, "bothkamakur", [(0, 3, "鎌倉で柿を買った")], title="買い物")
    found = ids(library, "鎌倉 OR かき")
    assert found.index("bothkamakur") < found.index("kakioyster1")
    assert found.index("kamakuravid") < found.index("kakifruit01")


def test_a_word_inside_a_longer_one_is_found_by_reading_below_the_word(library):
    index(library, "shinosaka01", [(0, 3, "新大阪駅で豚まんを買う")], title="駅")
    found = ids(library, "おおさか")
    assert set(found) == {"osakakanji1", "osakakana01", "shinosaka01"}
    assert found[-1] == "shinosaka01"


def test_kana_finds_the_other_kana_as_written(library):
    # らーめん is written nowhere: ラーメン in katakana is found, below nothing written so
    assert ids(library, "らーめん") == ["ramenjapane"]
    [found] = videos(library, "らーめん")
    assert "<mark>ラーメン</mark>" in found.moments[0].highlight
