"""Japanese normalisation, one rule per test: the index and the query meet in one form,
and the highlight marks the characters of the stored text, whatever form they are in.

Each rule is checked through the embedded engine: a document indexed in one form is
found by a query in the other, and its highlight marks the stored characters.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.search import SearchQuery
from models.search.highlight import highlight
from models.search.query import parse_query
from models.search.text import normalize, normalized_with_map, tokens
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent

# Every mark that captions write for the long vowel ー.
LONG_VOWEL_MARKS = [
    "ー",  # U+30FC
    "ｰ",  # U+FF70 half-width
    "－",  # U+FF0D full-width hyphen-minus
    "-",  # hyphen-minus
    "‐",  # U+2010 hyphen
    "‑",  # U+2011 non-breaking hyphen
    "–",  # U+2013 en dash
    "—",  # U+2014 em dash
    "―",  # U+2015 horizontal bar
    "−",  # U+2212 minus sign
    "~",  # tilde
    "〜",  # U+301C wave dash
    "～",  # U+FF5E full-width tilde
]


def found(engine, stored: str, q: str, **kw) -> str:
    """Index `stored` as a subtitle, search `q`, and answer the one hit's highlight."""
    index(engine, "norm0000001", [(0, 3, stored)])
    [hit] = engine.search(SearchQuery(q=q, **kw)).hits
    return hit.highlight


# -- NFKC -------------------------------------------------------------------------------


def test_full_width_letters_find_half_width_ones(embedded):
    assert found(embedded, "abc news", "ＡＢＣ") == "<mark>abc</mark> news"


def test_half_width_letters_find_full_width_ones(embedded):
    assert found(embedded, "ＡＢＣニュース", "abc") == "<mark>ＡＢＣ</mark>ニュース"


def test_full_width_digits_find_half_width_ones(embedded):
    assert found(embedded, "2026年の予定", "２０２６") == "<mark>2026</mark>年の予定"


def test_half_width_digits_find_full_width_ones(embedded):
    assert found(embedded, "２０２６年の予定", "2026") == "<mark>２０２６</mark>年の予定"


def test_half_width_katakana_finds_full_width_katakana(embedded):
    assert found(embedded, "コーヒーを飲む", "ｺｰﾋｰ") == "<mark>コーヒー</mark>を飲む"


def test_full_width_katakana_finds_half_width_katakana_with_voiced_marks(embedded):
    # ｶﾞ and ﾄﾞ are two characters each that become one: the mark covers all four pairs.
    assert found(embedded, "ｶﾞｲﾄﾞさんと歩く", "ガイド") == "<mark>ｶﾞｲﾄﾞ</mark>さんと歩く"


def test_a_compatibility_character_is_found_by_what_it_stands_for(embedded):
    # One stored character becomes four: the mark covers the one.
    assert found(embedded, "㍿の話です", "株式会社") == "<mark>㍿</mark>の話です"


def test_a_lone_character_scan_compares_normalised_text(embedded):
    # A one-character query has no bigram and is looked up in the normalised columns.
    assert found(embedded, "うちのﾈｺです", "ネ") == "うちの<mark>ﾈ</mark>ｺです"


def test_titles_are_normalised_too(embedded):
    index(embedded, "norm0000002", [(0, 3, "本編")], title="ＹｏｕＴｕｂｅ特集")
    [hit] = embedded.search(SearchQuery(q="youtube", targets=("title",))).hits
    assert hit.highlight == "<mark>ＹｏｕＴｕｂｅ</mark>特集"


# -- case folding -----------------------------------------------------------------------


def test_latin_case_is_folded(embedded):
    assert found(embedded, "Welcome to YouTube Live", "youtube LIVE") == (
        "Welcome to <mark>YouTube</mark> <mark>Live</mark>"
    )


def test_case_folding_is_full_folding(embedded):
    assert found(embedded, "Die STRASSE ist lang", "straße") == "Die <mark>STRASSE</mark> ist lang"


# -- long-vowel marks -------------------------------------------------------------------


@pytest.mark.parametrize("mark", LONG_VOWEL_MARKS)
def test_a_long_vowel_variant_in_the_query_finds_the_long_vowel(embedded, mark):
    assert found(embedded, "コーヒーを飲む", f"コーヒ{mark}") == "<mark>コーヒー</mark>を飲む"


@pytest.mark.parametrize("mark", LONG_VOWEL_MARKS)
def test_a_long_vowel_variant_in_the_text_is_found_by_the_long_vowel(embedded, mark):
    assert found(embedded, f"コーヒ{mark}を飲む", "コーヒー") == f"<mark>コーヒ{mark}</mark>を飲む"


@pytest.mark.parametrize("mark", ["〜", "～", "~", "ー"])
def test_a_wave_dash_after_hiragana_is_a_long_vowel(embedded, mark):
    assert found(embedded, "すごーい景色", f"すご{mark}い") == "<mark>すごーい</mark>景色"


def test_repeated_long_vowel_marks_each_become_one(embedded):
    assert normalize("ね〜〜") == "ねーー"
    assert found(embedded, "すご〜〜い", "すごーーい") == "<mark>すご〜〜い</mark>"


def test_a_hyphen_between_latin_letters_or_digits_stays(embedded):
    assert normalize("e-mail COVID-19 3-2") == "e-mail covid-19 3-2"
    assert found(embedded, "COVID-19 の話", "covid-19") == "<mark>COVID-19</mark> の話"


def test_a_dash_or_wave_dash_after_kanji_stays():
    # A range or a dash after a kanji is not a long vowel.
    assert normalize("東京〜大阪 3時-5時") == "東京〜大阪 3時-5時"
    assert tokens("東京〜大阪") == ["東京", "大阪"]


# -- what is left alone -----------------------------------------------------------------


def test_small_kana_and_iteration_marks_stay_distinct():
    # キャ and キヤ are different words; いすゞ is written so, not as いすず.
    assert normalize("キャ キヤ いすゞ 時々") == "キャ キヤ いすゞ 時々"


# -- the map back to the stored text ----------------------------------------------------

TRICKY = "aZ ßİ-~ｶﾞｺｰﾋｰﾊﾟＡ１㍿ﬁ①カ\u3099か\u309bㄱㅏ가\u11a8é\u0301\u0315\u0327〜―－。、！ー東京"


@given(st.text(alphabet=TRICKY, max_size=30))
def test_the_mapped_normalisation_is_normalize(text):
    normalized, where = normalized_with_map(text)
    assert normalized == normalize(text)
    assert len(where) == len(normalized)
    assert all(0 <= start < end <= len(text) for start, end in where)
    assert where == sorted(where)


@given(st.text(alphabet=TRICKY + " ", max_size=30), st.text(alphabet=TRICKY, max_size=30))
def test_the_highlight_only_adds_marks_to_the_escaped_text(before, after):
    text = before + "ｺｰﾋｰ" + after
    marked = highlight(text, parse_query("コーヒー"))
    assert "<mark>" in marked
    assert marked.replace("<mark>", "").replace("</mark>", "") == highlight(text, [])


def test_highlight_marks_the_original_characters_of_every_form():
    assert highlight("ｶﾞｲﾄﾞ", parse_query("ガイド")) == "<mark>ｶﾞｲﾄﾞ</mark>"
    marked = highlight("株式会社と㍿", parse_query("株式"))
    assert marked == "<mark>株式</mark>会社と<mark>㍿</mark>"
    assert highlight("ﬁne", parse_query("fine")) == "<mark>ﬁne</mark>"
    assert highlight("ＡＢＣ＆abc", parse_query("abc")) == "<mark>ＡＢＣ</mark>＆<mark>abc</mark>"
