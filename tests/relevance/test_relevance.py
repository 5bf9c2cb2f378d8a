"""The relevance set scored on the embedded engine (and on a real Meilisearch when
MEILI_TEST_URL is set): nDCG@10 and precision@3 by query class may not fall below the
floors set from issue 28's result (bench/relevance.py prints the table)."""

from __future__ import annotations

import os

import pytest

from models.search.embedded import EmbeddedEngine
from models.search.meili import MeilisearchEngine
from tests.relevance import measure

ENGINES = ["embedded"] + (["meilisearch"] if os.environ.get("MEILI_TEST_URL") else [])
# nDCG@10 by class on the embedded engine with Japanese words (issue 28), less a margin of
# about one query's worth; before words were indexed the same set gave 0.911 in all, 0.647
# for variants and 0.904 for two-character words (bench/relevance_before.json).
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
    "all": 0.97,
}
P3_FLOOR = 0.52  # all queries: 0.532 with words, 0.478 before
# Meilisearch cannot run on the machines the floors were set on: its floor is the embedded
# engine's before words, which its own word segmentation should not fall below.
MEILI_NDCG_FLOOR = 0.91


@pytest.fixture(scope="module", params=ENGINES)
def scored(request, tmp_path_factory):
    if request.param == "embedded":
        engine = EmbeddedEngine(str(tmp_path_factory.mktemp("relevance") / "search.db"))
    else:
        key = os.environ.get("MEILI_TEST_KEY") or None
        engine = MeilisearchEngine(os.environ["MEILI_TEST_URL"], key, key)
    engine.apply_settings()
    measure.index_corpus(engine)
    yield request.param, measure.score_all(engine)


def test_ranking_meets_the_floors(scored):
    kind, results = scored
    table = measure.by_class(results)
    if kind == "meilisearch":
        assert table["all"]["ndcg10"] >= MEILI_NDCG_FLOOR, table
        return
    below = {
        name: figures["ndcg10"]
        for name, figures in table.items()
        if figures["ndcg10"] < NDCG_FLOORS[name]
    }
    assert not below, below
    assert table["all"]["p3"] >= P3_FLOOR, table["all"]


def test_two_character_words_rank_a_video_that_says_them_first(scored):
    """京都, 本当 and the other two-character words: the first video is one judged
    relevant, never one holding the characters only across a word boundary."""
    _, results = scored
    words = [item for item in results if item.judged.kind == "two_char_word"]
    first_wrong = {
        item.judged.q: item.ranked[0]
        for item in words
        if item.ranked and item.judged.grades.get(item.ranked[0], 0) == 0
    }
    assert not first_wrong


def test_variant_spellings_meet(scored):
    """Every video judged for a variant query is found, whichever spelling it uses."""
    _, results = scored
    missing = {
        item.judged.q: sorted(set(item.judged.grades) - set(item.ranked))
        for item in results
        if item.judged.kind == "variant" and set(item.judged.grades) - set(item.ranked)
    }
    assert not missing
