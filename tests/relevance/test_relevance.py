"""The relevance set scored on the embedded engine (and on a real Meilisearch when
MEILI_TEST_URL is set), each query asked with keywords alone and by meaning and
keywords together (the hybrid, sr 0.5, with multilingual-e5-small): nDCG@10 and
precision@3 by query class may not fall below the floors set from issue 28's result
(keywords) and issue 29's (the hybrid); bench/relevance.py prints the table."""

from __future__ import annotations

import os

import pytest

from models.search.embedded import EmbeddedEngine
from models.search.embedder import E5SmallEmbedder
from models.search.meili import MeilisearchEngine
from tests.relevance import measure

pytestmark = pytest.mark.database_independent

ENGINES = ["embedded"] + (["meilisearch"] if os.environ.get("MEILI_TEST_URL") else [])
# nDCG@10 by class on the embedded engine with Japanese words (issue 28), less a margin of
# about one query's worth; before words were indexed the same set gave 0.911 over these
# classes (exact_words, then called "all"), 0.647 for variants and 0.904 for
# two-character words (bench/relevance_before.json).
NDCG_FLOORS = {
    "two_char_word": 0.97,
    "compound": 0.95,
    "variant": 0.97,
    "katakana": 0.97,
    "name_number": 0.97,
    "english": 0.92,
    "phrase": 0.97,
    "multi_word": 0.96,
    "one_char": 0.90,
    "exact_words": 0.97,
    # Issue 46: kana, romaji and okurigana for words the corpus writes otherwise, 0.917
    # over its 32 queries, less about one query's worth. What it loses: what was written
    # ranks above what is found by reading, so English videos that write tokyo, osaka or
    # onsen come before the Japanese ones that are about them (0.83 to 0.91), and
    # かわいい before 川 and 皮 for かわ (0.62); a term in kanji with kana and no word in
    # kanji alone is not read (受入れ 0, 繰返し 0.61: docs/search.md says why).
    "reading": 0.89,
}
P3_FLOOR = 0.52  # exact_words: 0.532 with words, 0.478 before
# Meilisearch cannot run on the machines the floors were set on: its floor is the embedded
# engine's before words, which its own word segmentation should not fall below.
MEILI_NDCG_FLOOR = 0.91
# The hybrid's nDCG@10 on the classes asked by meaning, where keywords find nothing at
# all (0.000): 0.938 on paraphrase and 0.463 across languages at issue 29, less a margin
# of less than half a query's worth. Across languages e5-small ranks an unrelated video
# in the query's language above the judged one for most queries (docs/search.md, Search
# by meaning, says why).
# Issue 45's figures, vectors centred by language: paraphrase 0.976 (0.938 before),
# cross_language 0.795 over its 47 queries (0.417 before; 0.463 over issue 29's 11).
HYBRID_NDCG_FLOORS = {"paraphrase": 0.95, "cross_language": 0.78}
# Of the cross-language questions, those with their video in the first three: 41 of 47
# (17 before); the issue asks 12 of 14.
FIRST_THREE_SHARE = 0.85
# A question the corpus does not answer lists at most this many videos by meaning (26
# on average before, 55 at most).
UNANSWERED_AT_MOST = 3
# How far the hybrid may fall below keywords on the classes that ask for words a video
# says (0.985 against 0.983 at issue 29: it gained; two-character words lost 0.032).
EXACT_WORDS_SLACK = 0.01


@pytest.fixture(scope="module")
def embedder():
    return measure.measuring_embedder(E5SmallEmbedder())


@pytest.fixture(scope="module", params=ENGINES)
def scored(request, tmp_path_factory, embedder):
    if request.param == "embedded":
        path = tmp_path_factory.mktemp("relevance") / "search.db"
        engine = EmbeddedEngine(str(path), embedder=embedder)
    else:
        key = os.environ.get("MEILI_TEST_KEY") or None
        engine = MeilisearchEngine(os.environ["MEILI_TEST_URL"], key, key, embedder=embedder)
    engine.apply_settings()
    measure.index_corpus(engine, embedder)
    modes = (measure.KEYWORD, measure.HYBRID)
    return request.param, {mode.name: measure.score_all(engine, mode) for mode in modes}


def tables(runs):
    return {name: measure.by_class(results) for name, results in runs.items()}


def test_ranking_meets_the_floors(scored):
    kind, runs = scored
    table = measure.by_class(runs["keyword"])
    if kind == "meilisearch":
        assert table["exact_words"]["ndcg10"] >= MEILI_NDCG_FLOOR, table
        return
    below = {
        name: table[name]["ndcg10"]
        for name, floor in NDCG_FLOORS.items()
        if table[name]["ndcg10"] < floor
    }
    assert not below, below
    assert table["exact_words"]["p3"] >= P3_FLOOR, table["exact_words"]


def test_two_character_words_rank_a_video_that_says_them_first(scored):
    """京都, 本当 and the other two-character words: the first video is one judged
    relevant, never one holding the characters only across a word boundary."""
    _, runs = scored
    words = [item for item in runs["keyword"] if item.judged.kind == "two_char_word"]
    first_wrong = {
        item.judged.q: item.ranked[0]
        for item in words
        if item.ranked and item.judged.grades.get(item.ranked[0], 0) == 0
    }
    assert not first_wrong


def test_variant_spellings_meet(scored):
    """Every video judged for a variant query is found, whichever spelling it uses."""
    _, runs = scored
    missing = {
        item.judged.q: sorted(set(item.judged.grades) - set(item.ranked))
        for item in runs["keyword"]
        if item.judged.kind == "variant" and set(item.judged.grades) - set(item.ranked)
    }
    assert not missing


def test_the_hybrid_meets_its_floors(scored):
    kind, runs = scored
    if kind != "embedded":
        pytest.skip("the floors were measured on the embedded engine")
    table = measure.by_class(runs["hybrid"])
    below = {
        name: table[name]["ndcg10"]
        for name, floor in HYBRID_NDCG_FLOORS.items()
        if table[name]["ndcg10"] < floor
    }
    assert not below, below


def test_a_question_in_the_other_language_finds_its_video_in_the_first_three(scored):
    kind, runs = scored
    if kind != "embedded":
        pytest.skip("the floors were measured on the embedded engine")
    placed, asked = measure.first_three(runs["hybrid"], "cross_language")
    assert placed >= FIRST_THREE_SHARE * asked, (placed, asked)


def test_a_question_the_corpus_does_not_answer_lists_a_few_videos_at_most(scored):
    kind, runs = scored
    if kind != "embedded":
        pytest.skip("the floors were measured on the embedded engine")
    counts = {
        item.judged.q: len(item.ranked)
        for item in runs["hybrid"]
        if item.judged.kind == measure.NO_ANSWER
    }
    assert counts and max(counts.values()) <= UNANSWERED_AT_MOST, counts


def test_meaning_finds_what_keywords_miss(scored):
    """A paraphrase and a query in the other language rank better by meaning than by
    their words, on either engine."""
    _, runs = scored
    by_mode = tables(runs)
    not_better = {
        name: (by_mode["keyword"][name]["ndcg10"], by_mode["hybrid"][name]["ndcg10"])
        for name in measure.BY_MEANING
        if by_mode["hybrid"][name]["ndcg10"] <= by_mode["keyword"][name]["ndcg10"]
    }
    assert not not_better, not_better


def test_meaning_keeps_the_exact_words(scored):
    """Over the classes that ask for words a video says, the hybrid ranks as well as the
    keywords (within EXACT_WORDS_SLACK): what meaning adds does not push out what was
    said."""
    kind, runs = scored
    if kind != "embedded":
        pytest.skip("Meilisearch fuses its hybrid ranking itself; measured on the embedded")
    by_mode = tables(runs)
    keyword = by_mode["keyword"]["exact_words"]["ndcg10"]
    hybrid = by_mode["hybrid"]["exact_words"]["ndcg10"]
    assert hybrid >= keyword - EXACT_WORDS_SLACK, {
        name: (by_mode["keyword"][name]["ndcg10"], by_mode["hybrid"][name]["ndcg10"])
        for name in measure.EXACT_WORDS
    }
