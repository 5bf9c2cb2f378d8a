"""The tokenizer, query parsing and highlighting (segments: test_segments.py)."""

from __future__ import annotations

import pytest

from models.search.highlight import highlight
from models.search.query import parse_query
from models.search.text import tokens

pytestmark = pytest.mark.database_independent


def test_cjk_runs_become_bigrams_and_latin_text_words():
    assert tokens("大阪の広告") == ["大阪", "阪の", "の広", "広告"]
    assert tokens("Network WORKS") == ["network", "works"]
    assert tokens("ＡＤ　２０２６年") == ["ad", "2026", "年"]


def test_a_lone_cjk_character_needs_a_scan():
    assert [t.needs_scan for t in parse_query("猫 大阪 cat")] == [True, False, False]


def test_quoted_text_is_one_phrase():
    terms = parse_query('"brown fox" 大阪城')
    assert [t.tokens for t in terms] == [("brown", "fox"), ("大阪", "阪城")]


def test_highlight_escapes_html_and_marks_whole_words_only():
    text = "<script>x</script> network work Work"
    assert highlight(text, parse_query("work")) == (
        "&lt;script&gt;x&lt;/script&gt; network <mark>work</mark> <mark>Work</mark>"
    )


def test_highlight_maps_full_width_text_back_to_the_original():
    assert highlight("ＡＤの広告", parse_query("ad 広告")) == "<mark>ＡＤ</mark>の<mark>広告</mark>"
