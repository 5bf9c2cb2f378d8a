"""Readings (issue 46) on the meilisearch engine, by what it sends: the reading fields of
each document, the branches by reading (their q, the fields they search, their weights),
excluded terms excluded by reading, and MAX_BRANCHES held. What readings find on every
engine is tests/models/search/test_readings.py."""

from __future__ import annotations

import pytest

from models.search.base import SearchQuery
from models.search.bounds import MAX_BRANCHES
from models.search.meili_request import READING_WEIGHT, ROMAJI_WEIGHT, plan_query
from tests.models.search.engines import on_stand_in
from tests.models.search.test_meili_engine import READINGS, SEARCHABLE, SETTINGS, subtitle

pytestmark = pytest.mark.database_independent


@pytest.fixture
def engine(url, fake):
    fake.add_index(settings=SETTINGS)
    return on_stand_in(url)


def federated_queries(fake):
    [body] = [body for _, path, body in fake.calls() if path == "/multi-search"]
    return body["queries"]


def test_documents_carry_the_readings_of_their_searchable_fields_words(engine, fake):
    engine.replace_videos({"vid1": [subtitle(text="大阪の串カツ and more")]})

    read = fake.documents()["vid1-s0000"]["textReading"].split(" ")
    assert {"オサカ", "クシカツ"} <= set(read)
    assert "and" not in read and "more" not in read  # Latin words have no reading


def test_a_term_with_readings_is_also_asked_by_reading_weighted_below(engine, fake):
    engine.search(SearchQuery(q="おおさか"))

    written, by_reading = federated_queries(fake)
    assert (written["q"], written["attributesToSearchOn"]) == ("おおさか", SEARCHABLE)
    assert "federationOptions" in written and written["federationOptions"]["weight"] == 1.0
    assert by_reading["q"] == "オサカ"
    assert by_reading["attributesToSearchOn"] == [*SEARCHABLE[3:], *READINGS]
    assert by_reading["federationOptions"] == {"weight": READING_WEIGHT}


def test_romaji_is_weighted_below_kana_and_several_keys_are_a_phrase(engine, fake):
    engine.search(SearchQuery(q="kushikatsu"))

    assert [(q["q"], q["federationOptions"]["weight"]) for q in federated_queries(fake)] == [
        ('"kushikatsu"', 1.0),
        ("クシカツ", ROMAJI_WEIGHT),
        ('"クシ カツ"', ROMAJI_WEIGHT),
    ]


def test_anchors_go_with_the_reading_as_words(engine, fake):
    engine.search(SearchQuery(q="二度漬け"))

    [written, *by_reading] = [q["q"] for q in federated_queries(fake)]
    assert written == "2 度 漬け"
    assert by_reading and all(q.startswith('2 度 "ニ ') for q in by_reading)


def test_an_excluded_term_is_excluded_by_its_reading_on_every_branch(engine, fake):
    engine.search(SearchQuery(q="大阪 OR 京都 -おおさか"))

    queries = federated_queries(fake)
    assert [q["q"] for q in queries] == ['-"おおさか" -"オサカ" 大阪', '-"おおさか" -"オサカ" 京都']
    assert all(q["attributesToSearchOn"] == [*SEARCHABLE, *READINGS] for q in queries)


def test_readings_never_make_more_than_max_branches():
    # Two groups of two kana terms: 4 branches as written, 30 with every reading; with
    # each term's first reading only, 16
    two = plan_query(SearchQuery(q="くしかつ OR かまくら あらしやま OR ならこうえん").read)
    # Three such groups: 8 as written, 64 even with each term's first reading only
    three = plan_query(
        SearchQuery(q="くしかつ OR かまくら あらしやま OR ならこうえん かき OR おおさか").read
    )

    # Then readings are cut down to fit, else left out; the branches as written come
    # first, as without readings
    assert len(two.qs) == MAX_BRANCHES
    assert two.tiers[:4] == (1.0,) * 4
    assert all(tier < 1.0 for tier in two.tiers[4:])
    assert three.tiers == (1.0,) * 8


def test_a_query_without_readings_is_asked_as_before(engine, fake):
    engine.search(SearchQuery(q="大阪"))

    [body] = [body for _, path, body in fake.calls() if path == "/indexes/subtitles/search"]
    assert (body["q"], body["attributesToSearchOn"]) == ("大阪", SEARCHABLE)
