"""The query language read (models/search/query.py): what each part means, where a
malformed one is, and that no text at all makes the reader fail otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.search.query import DURATIONS, Filters, QueryError, parse_search, without


def texts(groups):
    return [[term.text for term in group] for group in groups]


def test_words_phrases_exclusions_or_and_prefixes():
    read = parse_search('ラーメン -カップ "替え玉 無料" うどん OR そば work* -"cup noodles"')
    assert texts(read.groups) == [["ラーメン"], ["替え玉 無料"], ["うどん", "そば"], ["work"]]
    assert [term.text for term in read.excluded] == ["カップ", "cup noodles"]
    assert [group[0].prefix for group in read.groups] == [False, False, False, True]
    assert read.text == "ラーメン 替え玉 無料 うどん そば work"
    assert not read.filters.active


@pytest.mark.parametrize("q", ["うどん | そば", "うどん|そば", "うどん ｜ そば", "うどん OR そば"])
def test_the_ways_to_say_or(q):
    assert texts(parse_search(q).groups) == [["うどん", "そば"]]


def test_a_lowercase_or_is_a_word():
    assert texts(parse_search("this or that").groups) == [["this"], ["or"], ["that"]]


def test_filters_are_read_into_typed_values():
    read = parse_search(
        "猫 after:2024-01-05 before:2024-12 duration:>=1h30m type:Auto lang:JA views:>10k"
    )
    assert read.filters == Filters(
        published_from="2024-01-05T00:00:00.000Z",
        published_until="2025-01-01T00:00:00.000Z",
        min_duration=5400,
        subtitle_type="auto",
        language="ja",
        min_views=10_001,
    )
    assert [part.name for part in read.parts] == [
        "after",
        "before",
        "duration",
        "type",
        "lang",
        "views",
    ]


def test_a_year_and_a_month_cover_their_days():
    assert parse_search("x after:2024").filters.published_from == "2024-01-01T00:00:00.000Z"
    assert parse_search("x before:2024").filters.published_until == "2025-01-01T00:00:00.000Z"
    assert parse_search("x before:2024-02").filters.published_until == "2024-03-01T00:00:00.000Z"
    assert parse_search("x before:2023-12").filters.published_until == "2024-01-01T00:00:00.000Z"


@pytest.mark.parametrize(("value", "bounds"), [*DURATIONS.items()])
def test_duration_classes(value, bounds):
    filters = parse_search(f"x duration:{value}").filters
    assert (filters.min_duration, filters.max_duration) == bounds


def test_lengths_and_counts_with_their_comparisons():
    assert parse_search("x duration:>20m").filters.min_duration == 1201
    assert parse_search("x duration:<4m").filters.max_duration == 239
    assert parse_search("x duration:<=90s").filters.max_duration == 90
    both = parse_search("x duration:>=4m duration:<=20m").filters
    assert (both.min_duration, both.max_duration) == (240, 1200)
    assert parse_search("x views:<1.5m").filters.max_views == 1_499_999
    assert parse_search("x views:>=1,000").filters.min_views == 1000


@pytest.mark.parametrize(
    "q",
    ["12:30", "例：東京", "Re:ゼロから", "https://example.com", "note:", "a-b", "Wi-Fi", "東京*"],
)
def test_text_that_only_looks_like_an_operator_is_text(q):
    read = parse_search(q)
    assert read.groups and not read.filters.active and not read.excluded


@pytest.mark.parametrize(
    ("q", "problem", "part", "position"),
    [
        ("猫 foo:bar", "unknown_filter", "foo:bar", 3),
        ("猫 after:2024-02-30", "bad_date", "after:2024-02-30", 3),
        ("猫 after:yesterday", "bad_date", "after:yesterday", 3),
        ("猫 before:", "empty_filter", "before:", 3),
        ("猫 after:2025-01-01 before:2024-12-31", "empty_range", "before:2024-12-31", 20),
        ("猫 duration:forever", "bad_duration", "duration:forever", 3),
        ("猫 duration:>20m duration:>30m", "repeated_filter", "duration:>30m", 17),
        ("猫 type:subtitles", "bad_type", "type:subtitles", 3),
        ("猫 lang:japanese", "bad_language", "lang:japanese", 3),
        ("猫 lang:xx", "bad_language", "lang:xx", 3),
        ("猫 views:many", "bad_views", "views:many", 3),
        ("猫 lang:ja lang:en", "repeated_filter", "lang:en", 11),
        ("猫 - 犬", "lone_minus", "-", 3),
        ("猫 OR", "dangling_or", "OR", 3),
        ("| 猫", "dangling_or", "|", 1),
        ("猫 -lang:ja", "excluded_filter", "-lang:ja", 3),
        ("猫 OR -犬", "excluded_in_or", "-犬", 6),
        ("猫 OR lang:ja", "filter_in_or", "lang:ja", 6),
        ("猫 a*", "short_prefix", "a*", 3),
        ("-猫 after:2024", "no_words", "-猫 after:2024", 1),
    ],
)
def test_a_malformed_query_says_what_and_where(q, problem, part, position):
    with pytest.raises(QueryError) as raised:
        parse_search(q)
    assert (raised.value.problem, raised.value.part, raised.value.position) == (
        problem,
        part,
        position,
    )
    assert f"character {position}" in raised.value.describe()
    assert q[position - 1 :].startswith(part)


def test_a_part_taken_out_leaves_the_rest_as_typed():
    q = "ラーメン  -カップ after:2024-01-01 type:manual"
    read = parse_search(q)
    assert [part.text for part in read.parts] == ["-カップ", "after:2024-01-01", "type:manual"]
    assert without(q, read.parts[0]) == "ラーメン after:2024-01-01 type:manual"
    assert without(q, read.parts[1]) == "ラーメン -カップ type:manual"


def test_a_query_of_punctuation_reads_as_nothing_to_find():
    assert parse_search("!!! ???").groups == ()


# -- any text -------------------------------------------------------------------------------

ALPHABET = st.sampled_from(
    list('abcOR |｜-－"＂“”*:：<>=0123456789hms.,') + list("猫東京ラーメン ー　\t")
)
FRAGMENTS = st.sampled_from(
    [
        "after:",
        "before:",
        "duration:",
        "type:",
        "lang:",
        "views:",
        "2024-01-01",
        "2024-13",
        "long",
        ">20m",
        "manual",
        "ja",
        "OR",
        "|",
        "-",
        '"',
        "foo:bar",
        "12:30",
        "word*",
        " ",
        "猫",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(ALPHABET, FRAGMENTS, st.text(max_size=4)), max_size=30).map("".join))
def test_any_text_is_read_or_refused_with_a_place_in_it(q):
    """Whatever is typed, the reader answers a Query or a QueryError pointing inside the
    text, and each part it reports can be taken out again."""
    try:
        read = parse_search(q)
    except QueryError as error:
        assert 1 <= error.position <= max(len(q), 1)  # noqa: PT017  (any text, read or refused)
        assert error.part and error.describe()  # noqa: PT017
        return
    for part in read.parts:
        assert q[part.start : part.end] == part.text
        rest = without(q, part)
        try:
            again = parse_search(rest)
        except QueryError as error:
            # Taking a filter out may leave only excluded words or nothing to search.
            assert error.problem == "no_words"  # noqa: PT017
            continue
        assert len(again.parts) == len(read.parts) - 1


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["猫", "cat", "東京都", '"a phrase"', "dogs*"]), min_size=1),
    st.dates(),
    st.integers(min_value=0, max_value=10**9),
    st.sampled_from(["manual", "auto"]),
)
def test_a_written_query_reads_back_its_filters(words, day, views, kind):
    q = " ".join([*words, f"after:{day.isoformat()}", f"views:>={views}", f"type:{kind}"])
    filters = parse_search(q).filters
    assert filters.published_from == f"{day.isoformat()}T00:00:00.000Z"
    assert (filters.min_views, filters.subtitle_type) == (views, kind)
