"""The tokenizer's and highlighter's quick paths give what the general rules give."""

from __future__ import annotations

import pytest

from models.search.highlight import highlight
from models.search.query import parse_query
from models.search.text import TOKEN_RUN, normalize, tokens

pytestmark = pytest.mark.database_independent


def _general_tokens(text: str) -> list[str]:
    out: list[str] = []
    for cjk, word in TOKEN_RUN.findall(normalize(text)):
        if cjk:
            out.extend([cjk] if len(cjk) == 1 else [cjk[i : i + 2] for i in range(len(cjk) - 1)])
        elif word:
            out.append(word)
    return out


def test_ascii_text_gives_the_tokens_of_the_general_rule():
    for text in ["Hello, World_2026!", "a-b~c", "\x00x\x7fY", "", "  ", "don't STOP"]:
        assert tokens(text) == _general_tokens(text)


def test_cjk_bigrams_are_the_general_rule_s():
    for text in ["大阪の広告", "猫", "ｶﾞｰﾙ ＡＤ", "東京tokyo大阪"]:
        assert tokens(text) == _general_tokens(text)


def test_latin_terms_match_whole_words_between_cjk_and_inside_phrases():
    assert highlight("東京paris大阪", parse_query("paris")) == "東京<mark>paris</mark>大阪"
    assert highlight("xtokyo tokyox", parse_query("tokyo")) == "xtokyo tokyox"
    text = "quickbrown quick, brown quick brownie"
    assert highlight(text, parse_query('"quick brown"')) == (
        "quickbrown <mark>quick, brown</mark> quick brownie"
    )


def test_a_rejected_match_does_not_hide_the_next_one():
    assert highlight("aworkwork work", parse_query("work")) == "aworkwork <mark>work</mark>"
