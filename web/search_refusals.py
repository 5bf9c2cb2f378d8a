"""Why a search is refused, in words, each once: every problem of the query language
(models/search/query.py, QueryError.problem) and every bound of a search
(models/search/bounds.py), for the API's `message` (English) and for the pages (the
reader's language)."""

from __future__ import annotations

from typing import NamedTuple

from models.search import bounds
from models.search.query import MAX_NUMBER, MIN_PREFIX, QueryError
from web.i18n import number
from web.translation import LazyText, in_source_language, lazy_gettext


class Refusal(NamedTuple):
    """A refusal's words: `words` as the pages say it, translated; `api` the API's message
    where the API published other English before (clients read it as it is, so it
    stays), else None: the API says `words` in English. Both take the same %(name)s
    values."""

    words: LazyText
    api: str | None = None

    def said(self, values: dict[str, object]) -> str:
        """In the reader's language."""
        return str(self.words) % values

    def message(self, values: dict[str, object]) -> str:
        """In the API's words (English)."""
        english = self.api if self.api is not None else in_source_language(self.words)
        return english % values


# Each problem of a query that cannot be read (query.PROBLEMS): the part as typed
# (%(part)s), the character it starts at, from 1 (%(at)s).
QUERY_PROBLEMS = {
    "unknown_filter": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) is not a filter: the filters are after:, before:,"
            " duration:, type:, lang: and views:. Put it in quotes to search for the text."
        ),
        api="“%(part)s” at character %(at)s is not a filter: the filters are after:,"
        " before:, duration:, type:, lang: and views:. Put it in quotes to search for the"
        " text.",
    ),
    "empty_filter": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) has no value: write it as in after:2024-01-01."
        ),
        api="“%(part)s” at character %(at)s has no value: write it as in after:2024-01-01.",
    ),
    "bad_date": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) is not a date: write YYYY-MM-DD, YYYY-MM or YYYY,"
            " as in after:2024-01-01."
        ),
        api="“%(part)s” at character %(at)s is not a date: write YYYY-MM-DD, YYYY-MM or"
        " YYYY (after:2024-01-01).",
    ),
    "empty_range": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) leaves nothing between the lower and the upper"
            " bound: no video can match."
        ),
        api="“%(part)s” at character %(at)s leaves no day between after: and before:; no"
        " video can match.",
    ),
    "bad_duration": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s): write duration:short, medium or long, or a length"
            " such as duration:>20m, duration:<4m or duration:>=1h30m."
        ),
        api="“%(part)s” at character %(at)s: write duration:short, medium or long, or a"
        " length such as duration:>20m, duration:<4m or duration:>=1h30m.",
    ),
    "bad_type": Refusal(
        lazy_gettext("“%(part)s” (character %(at)s): subtitles are type:manual or type:auto."),
        api="“%(part)s” at character %(at)s: subtitles are type:manual or type:auto.",
    ),
    "bad_language": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s): lang: takes a two-letter ISO 639-1 code, such as"
            " lang:ja or lang:en."
        ),
        api="“%(part)s” at character %(at)s: lang: takes a two-letter ISO 639-1 code, such"
        " as lang:ja or lang:en.",
    ),
    "bad_views": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s): write a view count such as views:>10000,"
            " views:<500 or views:>=1.5m."
        ),
        api="“%(part)s” at character %(at)s: write a view count such as views:>10000,"
        " views:<500 or views:>=1.5m.",
    ),
    "too_large": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) holds a number past any video's length or view"
            " count: a filter's bound is at most %(max)s (seconds or views)."
        ),
        api="“%(part)s” at character %(at)s holds a number past any video's length or view"
        " count: a filter's bound is at most %(max)s (seconds or views).",
    ),
    "repeated_filter": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s) repeats a filter given before: give each filter"
            " once (a length or a view count may have one lower and one upper bound)."
        ),
        api="“%(part)s” at character %(at)s repeats a filter given before; give each filter"
        " once (a length or a view count may have one lower and one upper bound).",
    ),
    "lone_minus": Refusal(
        lazy_gettext(
            "The “-” at character %(at)s leaves nothing out: put the word right after it, as"
            " in -word."
        ),
        api="The “-” at character %(at)s excludes nothing: put the word right after it, as"
        " in -word.",
    ),
    "dangling_or": Refusal(
        lazy_gettext("“%(part)s” (character %(at)s) needs a word or a phrase on each side."),
        api="“%(part)s” at character %(at)s needs a word or a phrase on each side.",
    ),
    "excluded_filter": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s): a filter cannot be left out; choose the values"
            " you want instead."
        ),
        api="“%(part)s” at character %(at)s: a filter cannot be excluded; choose the values"
        " you want instead.",
    ),
    "excluded_in_or": Refusal(
        lazy_gettext("“%(part)s” (character %(at)s): a word left out cannot be one side of OR."),
        api="“%(part)s” at character %(at)s: an excluded word cannot be one side of OR.",
    ),
    "filter_in_or": Refusal(
        lazy_gettext("“%(part)s” (character %(at)s): a filter cannot be one side of OR."),
        api="“%(part)s” at character %(at)s: a filter cannot be one side of OR.",
    ),
    "short_prefix": Refusal(
        lazy_gettext(
            "“%(part)s” (character %(at)s): a prefix needs at least %(n)s letters before *."
        ),
        api="“%(part)s” at character %(at)s: a prefix needs at least %(n)s letters before *.",
    ),
    "no_words": Refusal(
        lazy_gettext(
            "There is no word to search for: filters and words left out only narrow a"
            " search. Add the words you are looking for."
        ),
        api="The query has no word to search for at character %(at)s: filters and excluded"
        " words only narrow a search.",
    ),
}


def problem_words(error: QueryError) -> str:
    """What is wrong with a query and where, in the reader's words."""
    return QUERY_PROBLEMS[error.problem].said(_problem_values(error, number(MAX_NUMBER)))


def problem_message(error: QueryError) -> str:
    """The same in the API's words."""
    return QUERY_PROBLEMS[error.problem].message(_problem_values(error, f"{MAX_NUMBER:,}"))


def _problem_values(error: QueryError, largest: str) -> dict[str, object]:
    return {"part": error.part, "at": error.position, "n": MIN_PREFIX, "max": largest}


# Each bound of a search (bounds.py's problems), with its number (%(n)s).
BOUNDS = {
    bounds.TOO_DEEP: Refusal(
        lazy_gettext(
            "Results can be read up to the %(n)sth. Narrow the search with more words or"
            " channels instead of going further."
        )
    ),
    bounds.TOO_MANY_TERMS: Refusal(lazy_gettext("Search with at most %(n)s words.")),
    bounds.TOO_MANY_SCAN_TERMS: Refusal(
        lazy_gettext(
            "Search with at most %(n)s words of a single kanji or kana;"
            " words of two characters or more are found faster."
        )
    ),
    bounds.TOO_MANY_BRANCHES: Refusal(
        lazy_gettext(
            "Search with at most %(n)s combinations of the sides of its ORs"
            " (a OR b c OR d makes 4)."
        ),
        api="Search with at most %(n)s ways to choose the sides of its ORs (a OR b c OR d is 4).",
    ),
}
BOUND_NUMBERS = {
    bounds.TOO_DEEP: bounds.MAX_DEPTH,
    bounds.TOO_MANY_TERMS: bounds.MAX_TERMS,
    bounds.TOO_MANY_SCAN_TERMS: bounds.MAX_SCAN_TERMS,
    bounds.TOO_MANY_BRANCHES: bounds.MAX_BRANCHES,
}


def bound_words(problem: str) -> str:
    """A search past one of its bounds, in the reader's words."""
    return BOUNDS[problem].said({"n": BOUND_NUMBERS[problem]})


def bound_message(problem: str) -> str:
    """The same in the API's words."""
    return BOUNDS[problem].message({"n": BOUND_NUMBERS[problem]})
