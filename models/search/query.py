"""The query language (docs/search.md, The query language): what a person types in the
search box, read once into a Query both engines execute.

    ラーメン -カップ "替え玉 無料" うどん OR そば work* after:2024-01-01 duration:long

- words and CJK runs must all match (in one document: a moment, or a video's title and
  description); `"a phrase"` matches its words in a row;
- `-word` and `-"a phrase"` leave out the documents that hold them;
- `A OR B` (or `A | B`, `A|B`) matches either; each side is one word or phrase;
- `word*` matches Latin words starting with `word` (Japanese is found inside longer
  words already: `東京*` is `東京`);
- filters, on the video: `after:` and `before:` a date (YYYY-MM-DD, YYYY-MM or YYYY; both
  days included), `duration:short|medium|long` (under 4 minutes, 4 to 20, over 20) or
  `duration:>20m` / `<4m` / `>=1h30m`, `type:manual|auto` (the subtitles), `lang:` an
  ISO 639-1 code (the subtitles' language), `views:>10000` / `views:<500`.

A part that only looks like a filter is text: a name that is not ASCII letters (例：東京),
a time (12:30), a value that is not ASCII (Re:ゼロ) or an address (https://...). A
malformed query raises QueryError: what is wrong, the part as typed and where it starts.
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

import pycountry

from models.search.text import ASCII_WORD, CJK_RUN, Term, make_term

FILTER_NAMES = ("after", "before", "duration", "type", "lang", "views")
SUBTITLE_TYPES = ("manual", "auto")
# The platform's own length classes, in seconds: short under 4 minutes, medium 4 to 20,
# long over 20 (minimum, maximum; both included).
DURATIONS: dict[str, tuple[int | None, int | None]] = {
    "short": (None, 239),
    "medium": (240, 1200),
    "long": (1201, None),
}
# The fewest letters a prefix (word*) holds: a shorter one would match most words.
MIN_PREFIX = 2
# The largest length (in seconds) or view count a filter may bound by: past any video's,
# and well inside what the engines compare exactly (SQLite's 64-bit integers,
# Meilisearch's doubles, exact up to 2^53). A number past it is refused by name.
MAX_NUMBER = 10**15
# Digits (leading zeros aside) a number within MAX_NUMBER holds at most: a longer run is
# past it without converting it (int() refuses 4,300 digits and more).
_MAX_DIGITS = len(str(MAX_NUMBER))
_PAST = MAX_NUMBER * 10  # the least number of more digits than that

# What separates parts: any whitespace, the ideographic space included.
_SPACE = re.compile(r"\s+")
_QUOTES = {'"': '"', "＂": "＂", "“": "”"}  # opening quote -> its closing one
_MINUS = ("-", "－")
_BARS = ("|", "｜")
_OPERATOR = re.compile(r"([A-Za-z]+)[:：](.*)", re.DOTALL)
_DATE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_LENGTH = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")
_COMPARISON = re.compile(r"(>=|<=|>|<)(.+)")
_COUNT = re.compile(r"(\d+)(?:\.(\d+))?([km]?)")


# What can be wrong with a query: each QueryError's `problem`. The API and the pages say
# each in words (web/search_refusals.py); this module only names them.
PROBLEMS = (
    "unknown_filter",  # name:value with an ASCII value, the name no filter's
    "empty_filter",  # a filter without its value (lang:)
    "bad_date",  # after: / before: a value that is no day of the calendar
    "empty_range",  # bounds no video can be between (after: later than before:)
    "bad_duration",  # duration: neither a length class nor a length compared
    "bad_type",  # type: neither manual nor auto
    "bad_language",  # lang: no ISO 639-1 code
    "bad_views",  # views: no count compared
    "too_large",  # a length or a view count past MAX_NUMBER
    "repeated_filter",  # a filter (or one bound of a number) given twice
    "lone_minus",  # a "-" with nothing after it
    "dangling_or",  # OR (|) without a side
    "excluded_filter",  # -lang:ja
    "excluded_in_or",  # an excluded word as one side of OR
    "filter_in_or",  # a filter as one side of OR
    "short_prefix",  # word* with fewer than MIN_PREFIX letters
    "no_words",  # only filters and excluded words
)


class QueryError(ValueError):
    """A query that cannot be read: `problem` (one of PROBLEMS), `part` (as typed) and
    `position` (its first character, from 1)."""

    def __init__(self, problem: str, part: str, position: int) -> None:
        if problem not in PROBLEMS:  # each one the API and the pages have words for
            raise KeyError(problem)
        self.problem, self.part, self.position = problem, part, position
        super().__init__(self.short())

    def short(self) -> str:
        """The problem as the error's `fields.q` says it."""
        return f"{self.problem.replace('_', ' ')}: “{self.part}” at character {self.position}"


@dataclass(frozen=True)
class Filters:
    """What a video must be to be found. Times are ISO 8601 UTC as the index stores
    them: published at or after `published_from`, before `published_until`; bounds of
    numbers are included."""

    published_from: str | None = None
    published_until: str | None = None
    min_duration: int | None = None
    max_duration: int | None = None
    subtitle_type: str | None = None
    language: str | None = None
    min_views: int | None = None
    max_views: int | None = None

    @property
    def active(self) -> bool:
        return any(value is not None for value in vars(self).values())


@dataclass(frozen=True)
class Part:
    """A part of the query a person may take out again (the page's applied filters):
    a filter or an excluded word, its text as typed and where it stands in the query."""

    kind: str  # "filter" or "excluded"
    name: str  # the filter's name; "" for an excluded word
    text: str
    start: int  # offsets in the query, [start, end)
    end: int


@dataclass(frozen=True)
class Query:
    """A query read: every group must match (a group matches when any of its terms
    does), no excluded term may, and the video must pass the filters."""

    groups: tuple[tuple[Term, ...], ...] = ()
    excluded: tuple[Term, ...] = ()
    filters: Filters = field(default_factory=Filters)
    parts: tuple[Part, ...] = ()
    # The words searched, as typed, without filters or excluded words: what a search by
    # meaning embeds.
    text: str = ""

    @property
    def terms(self) -> list[Term]:
        """Every term a match may hold (for scores and highlights), in query order."""
        return [term for group in self.groups for term in group]

    @property
    def simple(self) -> bool:
        """Whether it is words and phrases alone, all required (no OR, no prefix)."""
        return all(len(group) == 1 and not group[0].prefix for group in self.groups)

    @property
    def narrowed(self) -> bool:
        """Whether something beyond its words narrows it (excluded words, filters)."""
        return bool(self.excluded) or self.filters.active


def without(q: str, part: Part) -> str:
    """The query with `part` taken out (the page's remove button), spaces tidied."""
    return " ".join(_SPACE.split((q[: part.start] + " " + q[part.end :]).strip()))


def part_bounds(part: Part) -> tuple[int | None, int | None]:
    """The bounds a length or view count compared sets (duration:>20m: 1201 and None), as
    the query read took them; the part need not be read again."""
    value = part.text[len(part.name) + 1 :]
    return _duration(value) if part.name == "duration" else _views(value)


def parse_search(q: str) -> Query:
    """The query read (QueryError when it cannot be). A search reads it once, where its
    request is read, and hands it on (base.SearchQuery.read)."""
    return _Reader(q).read()


def parse_query(q: str) -> list[Term]:
    """The terms a match may hold, for highlighting a text (the video page's `?q=`):
    those of the query read, or of its words alone when it cannot be read."""
    try:
        return parse_search(q).terms
    except QueryError:
        found = (make_term(part) for part in _SPACE.split(q) if not _OPERATOR.fullmatch(part))
        return [term for term in found if term is not None]


@functools.cache
def language_codes() -> frozenset[str]:
    """The codes lang: takes: ISO 639-1's two letters (pycountry's languages that have one)."""
    return frozenset(
        language.alpha_2 for language in pycountry.languages if hasattr(language, "alpha_2")
    )


@dataclass(frozen=True)
class Grammar:
    """What another reader needs to find a query's filters as this one does: the search
    page's script (web/static/search-query.js), which holds no rule of its own. Patterns
    use only what Python's re and JavaScript's RegExp both read, each matched whole, `.`
    taking line ends too (they differ on one point: a digit, for Python, is any script's)."""

    space: str  # what separates parts
    quotes: dict[str, str]  # an opening quote -> its closing one: a phrase is no filter
    minus: tuple[str, ...]  # a part starting with one is left out: no filter either
    operator: str  # name:value, the name (ASCII letters, any case) and the value
    names: tuple[str, ...]  # the filters' names, in lower case
    date: str  # after:'s and before:'s value: year, month and day, the last two optional
    lengths: tuple[str, ...]  # duration:'s length classes
    kinds: tuple[str, ...]  # type:'s values
    languages: tuple[str, ...]  # lang:'s values


def grammar() -> Grammar:
    """The rules as the reader below applies them, as data."""
    return Grammar(
        space=_SPACE.pattern,
        quotes=dict(_QUOTES),
        minus=_MINUS,
        operator=_OPERATOR.pattern,
        names=FILTER_NAMES,
        date=_DATE.pattern,
        lengths=tuple(DURATIONS),
        kinds=SUBTITLE_TYPES,
        languages=tuple(sorted(language_codes())),
    )


# -- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    kind: str  # "word", "phrase", "or"
    text: str  # a word as typed; a phrase's inside
    raw: str  # the part as typed, quotes and minus included
    start: int
    end: int
    excluded: bool = False


class _Reader:
    def __init__(self, q: str) -> None:
        self.q = q
        self.groups: list[list[Term]] = []
        self.excluded: list[Term] = []
        self.parts: list[Part] = []
        self.words: list[str] = []
        self.filters: dict[str, object] = {}
        self.seen: dict[str, _Token] = {}

    def read(self) -> Query:
        tokens = list(self._tokens())
        n = 0
        while n < len(tokens):
            token = tokens[n]
            if token.kind == "or":
                raise QueryError("dangling_or", token.raw, token.start + 1)
            alternatives = [token]
            while n + 1 < len(tokens) and tokens[n + 1].kind == "or":
                if n + 2 >= len(tokens) or tokens[n + 2].kind == "or":
                    bar = tokens[n + 1]
                    raise QueryError("dangling_or", bar.raw, bar.start + 1)
                alternatives.append(tokens[n + 2])
                n += 2
            n += 1
            if len(alternatives) == 1:
                self._single(token)
            else:
                self._alternatives(alternatives)
        if not self.groups and (self.excluded or self.filters):
            raise QueryError("no_words", self.q.strip(), 1)
        query_filters = _filters(self.filters)
        if (
            query_filters.published_from
            and query_filters.published_until
            and query_filters.published_from >= query_filters.published_until
        ):
            later = self.seen["before"] if "before" in self.seen else self.seen["after"]
            raise QueryError("empty_range", later.raw, later.start + 1)
        return Query(
            groups=tuple(tuple(group) for group in self.groups),
            excluded=tuple(self.excluded),
            filters=query_filters,
            parts=tuple(sorted(self.parts, key=lambda part: part.start)),
            text=" ".join(self.words),
        )

    # -- tokens ---------------------------------------------------------------------------

    def _tokens(self) -> Iterator[_Token]:
        """The query's parts in order: words (bare, possibly with a leading minus),
        phrases, and OR / | between them."""
        q, at = self.q, 0
        while at < len(q):
            if q[at].isspace():
                at += 1
                continue
            start = at
            excluded = q[at] in _MINUS
            if excluded:
                at += 1
                if at == len(q) or q[at].isspace():
                    raise QueryError("lone_minus", q[start], start + 1)
            if q[at] in _QUOTES:
                closing = _QUOTES[q[at]]
                end = q.find(closing, at + 1)
                inside_end = len(q) if end < 0 else end
                at = len(q) if end < 0 else end + 1
                yield _Token(
                    "phrase", q[start + excluded + 1 : inside_end], q[start:at], start, at, excluded
                )
                continue
            end = at
            while end < len(q) and not q[end].isspace() and q[end] not in _QUOTES:
                end += 1
            word = q[at:end]
            if not excluded and word == "OR":
                yield _Token("or", word, word, start, end)
            else:
                yield from self._split_bars(q[start:end], start, excluded)
            at = end

    @staticmethod
    def _split_bars(raw: str, start: int, excluded: bool) -> Iterator[_Token]:
        """A bare part, cut at each | (A|B is A | B) unless it is a filter."""
        body = raw[1:] if excluded else raw
        if _OPERATOR.fullmatch(body) or not any(bar in raw for bar in _BARS):
            yield _Token("word", body, raw, start, start + len(raw), excluded)
            return
        at = start
        for piece in re.split(r"([|｜])", raw):
            if piece in _BARS:
                yield _Token("or", piece, piece, at, at + 1)
            elif piece:
                lead = piece[0] in _MINUS
                if lead and at != start:
                    raise QueryError("excluded_in_or", piece, at + 1)
                text = piece[1:] if lead else piece
                if lead and not text:
                    raise QueryError("lone_minus", piece, at + 1)
                yield _Token("word", text, piece, at, at + len(piece), lead)
            at += len(piece)

    # -- groups ---------------------------------------------------------------------------

    def _single(self, token: _Token) -> None:
        if token.kind == "word":
            operator = _OPERATOR.fullmatch(token.text)
            if operator and self._is_filter(operator, token):
                if token.excluded:
                    raise QueryError("excluded_filter", token.raw, token.start + 1)
                self._filter(operator.group(1).lower(), operator.group(2), token)
                return
        term = self._term(token)
        if term is None:
            return
        if token.excluded:
            self.excluded.append(term)
            self.parts.append(Part("excluded", "", token.raw, token.start, token.end))
        else:
            self.groups.append([term])
            self.words.append(token.text.rstrip("*"))

    def _alternatives(self, tokens: list[_Token]) -> None:
        group = []
        for token in tokens:
            if token.excluded:
                raise QueryError("excluded_in_or", token.raw, token.start + 1)
            operator = _OPERATOR.fullmatch(token.text) if token.kind == "word" else None
            if operator and self._is_filter(operator, token):
                raise QueryError("filter_in_or", token.raw, token.start + 1)
            term = self._term(token)
            if term is not None and term not in group:
                group.append(term)
                self.words.append(token.text.rstrip("*"))
        if group:
            self.groups.append(group)

    @staticmethod
    def _is_filter(operator: re.Match[str], token: _Token) -> bool:
        """Whether a name:value part is a filter (a known name), a mistake (an unknown
        name with an ASCII value: QueryError), or text that only looks like one."""
        name, value = operator.group(1).lower(), operator.group(2)
        if name in FILTER_NAMES:
            return True
        if value and value.isascii() and not value.startswith("//") and not value.isspace():
            raise QueryError("unknown_filter", token.raw, token.start + 1)
        return False

    def _term(self, token: _Token) -> Term | None:
        if token.kind == "phrase":
            term = make_term(token.text)
            return replace(term, phrase=True) if term is not None else None
        text = token.text
        if token.kind == "word" and text.endswith("*") and text.strip("*"):
            stem = text.rstrip("*")
            if ASCII_WORD.fullmatch(stem) or (stem.isalnum() and not CJK_RUN.search(stem)):
                if len(stem) < MIN_PREFIX:
                    raise QueryError("short_prefix", token.raw, token.start + 1)
                term = make_term(stem)
                if term is not None and len(term.tokens) == 1:
                    return replace(term, prefix=True, words=(), readings=(), romaji=False)
            text = stem  # Japanese: found inside longer words already
        return make_term(text)

    # -- filters --------------------------------------------------------------------------

    def _filter(self, name: str, value: str, token: _Token) -> None:
        if not value:
            raise QueryError("empty_filter", token.raw, token.start + 1)
        problem = {"after": "bad_date", "before": "bad_date", "type": "bad_type"}.get(name, "")
        if name in ("after", "before"):
            self._once(name, token)
            day = _day(value, last=name == "before")
            if day is None:
                raise QueryError(problem, token.raw, token.start + 1)
            if name == "after":
                self.filters["published_from"] = _iso(day)
            elif day < date.max:  # before the last day there is: no bound at all
                self.filters["published_until"] = _iso(day + timedelta(days=1))
        elif name == "type":
            self._once(name, token)
            if value.lower() not in SUBTITLE_TYPES:
                raise QueryError(problem, token.raw, token.start + 1)
            self.filters["subtitle_type"] = value.lower()
        elif name == "lang":
            self._once(name, token)
            code = value.lower()
            if code not in language_codes():
                raise QueryError("bad_language", token.raw, token.start + 1)
            self.filters["language"] = code
        elif name == "duration":
            low, high = _duration(value)
            if low is None and high is None:
                raise QueryError("bad_duration", token.raw, token.start + 1)
            self._bounds("duration", low, high, token)
        else:
            low, high = _views(value)
            if low is None and high is None:
                raise QueryError("bad_views", token.raw, token.start + 1)
            self._bounds("views", low, high, token)
        self.parts.append(Part("filter", name, token.raw, token.start, token.end))

    def _once(self, name: str, token: _Token) -> None:
        if name in self.seen:
            raise QueryError("repeated_filter", token.raw, token.start + 1)
        self.seen[name] = token

    def _bounds(self, name: str, low: int | None, high: int | None, token: _Token) -> None:
        """A lower and an upper bound of one number, each given at most once, each at
        most MAX_NUMBER."""
        for bound, value in (("min", low), ("max", high)):
            if value is None:
                continue
            if value > MAX_NUMBER:
                raise QueryError("too_large", token.raw, token.start + 1)
            key = f"{bound}_{name}"
            if key in self.filters:
                raise QueryError("repeated_filter", token.raw, token.start + 1)
            self.filters[key] = value
        low_set, high_set = self.filters.get(f"min_{name}"), self.filters.get(f"max_{name}")
        if isinstance(low_set, int) and isinstance(high_set, int) and low_set > high_set:
            raise QueryError("empty_range", token.raw, token.start + 1)


def _filters(found: dict[str, object]) -> Filters:
    return Filters(
        published_from=_str(found.get("published_from")),
        published_until=_str(found.get("published_until")),
        min_duration=_int(found.get("min_duration")),
        max_duration=_int(found.get("max_duration")),
        subtitle_type=_str(found.get("subtitle_type")),
        language=_str(found.get("language")),
        min_views=_int(found.get("min_views")),
        max_views=_int(found.get("max_views")),
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _day(value: str, *, last: bool) -> date | None:
    """The day a date names: YYYY-MM-DD, or the first (last) day of YYYY-MM or YYYY;
    None outside the calendar (year 0, month 13, 9999-99-99)."""
    found = _DATE.fullmatch(value)
    if found is None:
        return None
    year, month, day = (int(part) if part else None for part in found.groups())
    assert year is not None
    try:
        if month is None:
            return date(year, 12, 31) if last else date(year, 1, 1)
        if day is None:
            return date(year, month, calendar.monthrange(year, month)[1] if last else 1)
        return date(year, month, day)
    except ValueError:  # calendar.IllegalMonthError is one
        return None


def _iso(day: date) -> str:
    return f"{day.isoformat()}T00:00:00.000Z"


def _duration(value: str) -> tuple[int | None, int | None]:
    """A length filter's bounds in seconds (None, None: not one)."""
    named = DURATIONS.get(value.lower())
    if named is not None:
        return named
    compared = _COMPARISON.fullmatch(value)
    if compared is None:
        return None, None
    seconds = _seconds(compared.group(2).lower())
    if seconds is None:
        return None, None
    return _bound(compared.group(1), seconds)


def _seconds(value: str) -> int | None:
    """1h30m, 20m, 90s, or a bare number of minutes."""
    if value.isdecimal():  # not isdigit(), which takes ² that int() refuses
        return _number(value) * 60
    found = _LENGTH.fullmatch(value)
    if found is None or not any(found.groups()):
        return None
    hours, minutes, seconds = (_number(part or "0") for part in found.groups())
    return hours * 3600 + minutes * 60 + seconds


def _views(value: str) -> tuple[int | None, int | None]:
    compared = _COMPARISON.fullmatch(value)
    if compared is None:
        return None, None
    count = _count(compared.group(2).lower().replace(",", ""))
    if count is None:
        return None, None
    return _bound(compared.group(1), count)


def _count(value: str) -> int | None:
    """A view count as typed (1500, 1.5k, 2m), exactly, in digits alone; None when it is
    no whole number (1.5, 1.0001k)."""
    found = _COUNT.fullmatch(value)
    if found is None:
        return None
    whole, fraction, unit = found.group(1), found.group(2) or "", found.group(3)
    scale = {"": 1, "k": 1_000, "m": 1_000_000}[unit]
    places = len(str(scale)) - 1  # the digits a fraction may have
    fraction = fraction.rstrip("0")
    if len(fraction) > places:
        return None
    return _number(whole) * scale + _number(fraction.ljust(places, "0") or "0")


def _number(digits: str) -> int:
    """Decimal digits as a number; for a longer run than any number within MAX_NUMBER,
    the least such a run can be (_PAST, past MAX_NUMBER even as `<N`'s N - 1), which is
    refused all the same without converting thousands of digits."""
    if len(digits.lstrip("0")) > _MAX_DIGITS:
        return _PAST
    return int(digits)


def _bound(operator: str, number: int) -> tuple[int | None, int | None]:
    """`>N` as a lower bound N + 1, `<N` as an upper bound N - 1, `>=`/`<=` as N."""
    if operator == ">":
        return number + 1, None
    if operator == ">=":
        return number, None
    if operator == "<":
        return (None, number - 1) if number > 0 else (1, 0)  # nothing is under 0
    return None, number
