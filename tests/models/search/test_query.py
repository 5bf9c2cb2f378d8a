"""The query language read (models/search/query.py): what each part means, where a
malformed one is, and that no text at all makes the reader fail otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.search.query import (
    DURATIONS,
    MAX_NUMBER,
    PROBLEMS,
    Filters,
    QueryError,
    parse_search,
    without,
)

pytestmark = pytest.mark.database_independent


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


def test_the_last_month_there_is_reaches_the_end_of_time():
    # Its last day is the last there is (9999-12-31): no upper bound at all.
    assert parse_search("x before:9999-12").filters.published_until is None
    assert parse_search("x after:9999-12").filters.published_from == "9999-12-01T00:00:00.000Z"


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
    assert parse_search("x views:>=1.05m").filters.min_views == 1_050_000
    assert parse_search("x views:<=2.500k").filters.max_views == 2500
    assert parse_search("x duration:<=１０m").filters.max_duration == 600  # full-width digits
    assert parse_search(f"x views:<={MAX_NUMBER}").filters.max_views == MAX_NUMBER
    assert parse_search("x duration:>=000000000000000000000001h").filters.min_duration == 3600


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
        # Numbers past any video's: refused by name, never handed to an engine.
        ("猫 duration:>99999999999999999999h", "too_large", "duration:>99999999999999999999h", 3),
        ("猫 duration:<99999999999999999999", "too_large", "duration:<99999999999999999999", 3),
        ("猫 duration:>" + "9" * 5000 + "s", "too_large", "duration:>" + "9" * 5000 + "s", 3),
        ("猫 views:>99999999999999999999", "too_large", "views:>99999999999999999999", 3),
        ("猫 views:>" + "9" * 400, "too_large", "views:>" + "9" * 400, 3),
        ("猫 views:<" + "9" * 400, "too_large", "views:<" + "9" * 400, 3),
        ("猫 views:<" + "9" * 17, "too_large", "views:<" + "9" * 17, 3),
        ("猫 views:<=1" + "0" * 15 + "k", "too_large", "views:<=1" + "0" * 15 + "k", 3),
        (f"猫 views:>{MAX_NUMBER}", "too_large", f"views:>{MAX_NUMBER}", 3),
        # A number that is no whole count, however many digits say so.
        (
            "猫 views:>1.9999999999999999999999999",
            "bad_views",
            "views:>1.9999999999999999999999999",
            3,
        ),
        ("猫 views:>1.0001k", "bad_views", "views:>1.0001k", 3),
        # Digits that are no decimal digits (²: str.isdigit says yes, int() says no).
        ("猫 duration:>²", "bad_duration", "duration:>²", 3),
        ("猫 duration:>①m", "bad_duration", "duration:>①m", 3),
        # Dates outside the calendar.
        ("猫 after:9999-99-99", "bad_date", "after:9999-99-99", 3),
        ("猫 after:0000-01-01", "bad_date", "after:0000-01-01", 3),
        ("猫 before:0000", "bad_date", "before:0000", 3),
        ("猫 after:10000", "bad_date", "after:10000", 3),
        ("猫 after:10000-01-01", "bad_date", "after:10000-01-01", 3),
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
    assert str(raised.value) == f"{problem.replace('_', ' ')}: “{part}” at character {position}"
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
        assert error.part and error.problem in PROBLEMS  # noqa: PT017
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


# Operator-shaped text: a filter's name, a comparison, then numbers of any length (in
# any kind of digit), units, signs and dates, where the reader converts text to numbers.
NUMBERS = st.one_of(
    st.text("0123456789", min_size=1, max_size=400),
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=30),
    st.integers(min_value=0, max_value=10**40).map(str),
)
OPERATOR_PIECES = st.one_of(
    NUMBERS,
    st.sampled_from(["h", "m", "s", "k", "M", ".", ",", "-", "+", "e", "E", "_", "inf", "nan"]),
    st.text(max_size=3),
)
OPERATOR_SHAPED = st.builds(
    lambda name, colon, comparison, pieces: f"{name}{colon}{comparison}{''.join(pieces)}",
    st.sampled_from(["after", "before", "duration", "views", "Duration", "VIEWS"]),
    st.sampled_from([":", "："]),
    st.sampled_from(["", ">", ">=", "<", "<=", "=", "<<"]),
    st.lists(OPERATOR_PIECES, max_size=6),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(OPERATOR_SHAPED, FRAGMENTS, st.text(max_size=6)), max_size=8))
def test_no_operator_shaped_text_makes_the_reader_fail_otherwise(pieces):
    """Whatever numbers an operator holds, the reader answers a Query whose numbers every
    engine can take (SQLite's 64-bit integers, Meilisearch's exact doubles, calendar
    days), or a QueryError: never another exception."""
    q = "猫 " + " ".join(pieces)
    try:
        read = parse_search(q)
    except QueryError as error:
        assert error.part and error.problem in PROBLEMS  # noqa: PT017  (refused by name)
        return
    filters = read.filters
    for number in (
        filters.min_duration,
        filters.max_duration,
        filters.min_views,
        filters.max_views,
    ):
        assert number is None or 0 <= number <= MAX_NUMBER
    for moment in (filters.published_from, filters.published_until):
        assert moment is None or ("0001-01-01" <= moment[:10] <= "9999-12-31")
