"""The search page: results by video with their ads, the filter panel and the query
language on the page (its filters folded into `q`, the applied parts as removable chips,
a query that cannot be read or is past a bound said in the reader's words)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import asdict, replace
from datetime import date, timedelta
from types import SimpleNamespace
from typing import NamedTuple, cast
from urllib.parse import urlencode

from babel import Locale
from flask import redirect, render_template, request
from werkzeug.wrappers import Response as HttpResponse

from models import alerts, library
from models.ads.delivery import MIDROLL_EVERY_HITS, ads_enabled_for, search_page_ads
from models.ads.months import month_of
from models.clock import utcnow
from models.errors import ValidationError
from models.search import DEFAULT_SEMANTIC_RATIO, SearchQuery
from models.search.bounds import MAX_QUERY_LENGTH
from models.search.query import (
    DURATIONS,
    SUBTITLE_TYPES,
    Part,
    Query,
    QueryError,
    grammar,
    parse_search,
    part_bounds,
    without,
)
from models.subtitles import moment_snippets
from models.tables import Channel
from web.api.operation import parse_query
from web.api.schemas.catalog import QueryRefused, SearchParams, total_pages
from web.i18n import locale_code, number
from web.pages.blueprint import bp
from web.pages.served_ads import PageAds, ad_label
from web.search_refusals import BOUNDS, bound_words, problem_words
from web.translation import gettext as _
from web.translation import lazy_gettext
from web.urls import search_url
from web.visitor import viewer_id, visitor_country

# Lists a search keeps comma-separated in its address, as the API takes them.
LIST_PARAMS = ("channels", "target")


def _search_refusal(error: ValidationError) -> str:
    """Why a search was refused, in the reader's language: a bound of its cost
    (models/search/bounds.py), or the API's own words for anything else."""
    problems = set((error.fields or {}).values())
    for problem in BOUNDS:
        if problem in problems:
            return bound_words(problem)
    # An address made by hand (the form only sends these right): said in the reader's
    # words rather than the API's "Some fields are not valid."
    fields = set(error.fields or {})
    if "q" in fields:
        return _("Search with at most %(count)s characters.", count=MAX_QUERY_LENGTH)
    if "sr" in fields:
        return _("The weight of keywords and meaning (sr) is a number from 0 to 1.")
    if "semantic" in fields:
        return _("Search by meaning (semantic) is 1 for on or 0 for off.")
    if not fields:
        return _("This search's address cannot be read.")
    return _(
        "This search's address holds a value the page cannot use (%(fields)s).",
        fields=", ".join(sorted(fields)),
    )


@bp.get("/search")
def search() -> str | tuple[str, int] | HttpResponse:
    """Results by video (the API's `groupBy=video`): one card per video with its best
    moments, pages over videos, and the ads between and below them (docs/ads.md,
    Pages). The filters (channels, targets, sort) are
    in the address under the API's names, and those of the query language (after:,
    duration:, lang: ...) in `q` itself, so a link restores the whole search and the box,
    the address and the history say the same."""
    if not (request.args.get("q") or "").strip():
        return redirect("/")
    canonical = _canonical_address()
    if canonical is not None:
        return redirect(canonical)
    try:
        query = parse_query(SearchParams, known_only=True).search_query()
    except QueryRefused as refused:
        return _unreadable_search(refused)
    except ValidationError as error:
        return _refused_search(error)
    user_id = viewer_id()
    results = library.search_videos(user_id, query)

    def page_link(page: int) -> str:
        return search_url(query, page=page)

    ads = None
    if ads_enabled_for(viewer_id()):
        decided = search_page_ads(visitor_country(), month_of(utcnow()), results.total_videos)
        ads = PageAds(decided)
    form = search_form(user_id, query, query.read)
    return render_template(
        "search.html",
        results=results,
        total_pages=max(1, total_pages(results.total_videos, query.per_page)),
        page_link=page_link,
        snippets=moment_snippets(results.videos),
        applied=applied_parts(query),
        **form,
        alert_offer=alert_offer(user_id, query, cast(SearchFilters, form["filters"])),
        ads=ads,
        midroll_every=MIDROLL_EVERY_HITS,
        ad_label=ad_label(),
    )


def _unreadable_search(refused: QueryRefused) -> tuple[str, int]:
    """The search page for a query that cannot be read, as the API refuses it (400): the
    box still holds the text, the form every other condition, and the page says what is
    wrong and where in the reader's words; nothing is searched."""
    query = refused.search
    form = search_form(viewer_id(), query, refusal=problem_words(refused.error))
    return render_template("search.html", applied=[], **form), 400


def _refused_search(error: ValidationError) -> tuple[str, int]:
    """The search page for a search refused before its words were read (a bound of its
    cost, a value of the address out of range): the box holds what was typed, search by
    meaning stays as it was asked, the reason stands beside the box in the reader's
    words; nothing is searched."""
    semantic = request.args.get("semantic") == "1"
    query = SearchQuery(q=request.args.get("q", ""), semantic=semantic)
    form = search_form(viewer_id(), query, refusal=_search_refusal(error))
    return render_template("search.html", applied=[], **form), 400


def search_form(
    user_id: str | None,
    query: SearchQuery,
    read: Query | None = None,
    refusal: str | None = None,
) -> dict[str, object]:
    """What the search form (_search_form.html) reads, on the search page and the home
    page: the search (`read`: its query read; None when it cannot be), why it was refused
    if it was, the defaults it is told from, the filter panel and the channels."""
    return {
        "query": query,
        "refusal": refusal,
        "default": SearchQuery(q=query.q),
        "panel": query_panel(query.q, read),
        "filters": _search_filters(user_id, query),
    }


def _canonical_address() -> str | None:
    """The address as the API takes it and the page's links write it, when the form sent
    it otherwise (a browser without script sends every field): each list parameter sent
    more than once (the filter form's checkboxes) joined with commas, sorted; the filter
    panel's controls folded into `q` (fold_controls); and `sr` left out where it counts
    for nothing, so one search is one history row. None when the address already is so."""
    joined = any(len(request.args.getlist(key)) > 1 for key in LIST_PARAMS)
    folded = any(key in request.args for key in (*CONTROLS, DRAWN))
    idle = _idle_strength()
    if not joined and not folded and not idle:
        return None
    args = request.args.copy()
    if joined:
        for key in LIST_PARAMS:
            values = sorted({v.strip() for v in request.args.getlist(key) if v.strip()})
            if values:
                args.setlist(key, [",".join(values)])
            else:
                args.poplist(key)
    if folded:
        sent = {key: request.args.get(key, "") for key in CONTROLS if key in request.args}
        args["q"] = fold_controls(request.args.get("q", ""), sent, request.args.get(DRAWN))
        for key in (*CONTROLS, DRAWN):
            args.poplist(key)
    if idle:
        args.poplist("sr")
    return request.path + "?" + urlencode(list(args.items(multi=True)), safe=",")


def _idle_strength() -> bool:
    """Whether the address's `sr` counts for nothing: search by meaning is off, or the
    strength is at its default (the range input is always sent). Only a number in 0..1
    is dropped; anything else is left for the check to refuse, as the API does."""
    values = request.args.getlist("sr")
    if len(values) != 1:
        return False
    try:
        sr = float(values[0])
    except ValueError:
        return False
    if not 0 <= sr <= 1:  # nan too
        return False
    return request.args.get("semantic") != "1" or sr == DEFAULT_SEMANTIC_RATIO


# -- the query language on the page (models/search/query.py) ---------------------------

# The filter panel (search.html): each control sets one filter of the query. A browser
# without script sends them as parameters of their own, with the query as the page drew
# it (DRAWN), and the page folds them into `q` (fold_controls) then moves to the address
# that holds `q` alone; with script (search-query.js) they write into the box as they
# change and are not sent.
CONTROLS = ("after", "before", "duration", "type", "lang")
DRAWN = "shown"
# The length control's value for a length typed otherwise than as a class (>20m): the
# length stays as typed.
TYPED_LENGTH = "typed"
# The languages the panel offers; the query's own is added.
PANEL_LANGUAGES = ("ja", "en", "ko", "zh", "es", "fr", "de", "pt")

SUBTITLE_KINDS = {
    "manual": lazy_gettext("Manual subtitles"),
    "auto": lazy_gettext("Auto-generated subtitles"),
}
# A length or a view count compared, by the operator typed.
LENGTH_BOUNDS = {
    ">": lazy_gettext("Over %(length)s"),
    ">=": lazy_gettext("%(length)s or longer"),
    "<": lazy_gettext("Under %(length)s"),
    "<=": lazy_gettext("%(length)s or shorter"),
}
VIEW_BOUNDS = {
    ">": lazy_gettext("Over %(count)s views"),
    ">=": lazy_gettext("%(count)s views or more"),
    "<": lazy_gettext("Under %(count)s views"),
    "<=": lazy_gettext("%(count)s views or fewer"),
}


class QueryPanel(NamedTuple):
    """The filter panel for a query: each control's value (control_values), how many
    filters the query holds, the length classes and the subtitle kinds in words and the
    languages to choose from, and the query without its filters (the panel's reset)."""

    values: dict[str, str]
    filter_count: int
    lengths: dict[str, str]
    kinds: dict[str, str]
    languages: list[tuple[str, str]]
    unfiltered_q: str


def query_panel(q: str, read: Query | None) -> QueryPanel:
    """The panel for the query `q` as read (None: it cannot be)."""
    values = read_controls(read)
    filters = [part for part in read.parts if part.kind == "filter"] if read else []
    codes = list(PANEL_LANGUAGES)
    if values["lang"] and values["lang"] not in codes:
        codes.append(values["lang"])
    return QueryPanel(
        values=values,
        filter_count=len(filters),
        lengths={name: length_class(name) for name in DURATIONS},
        kinds={kind: str(SUBTITLE_KINDS[kind]) for kind in SUBTITLE_TYPES},
        languages=[(code, language_name(code)) for code in codes],
        unfiltered_q=_cut(q, filters),
    )


def control_values(q: str) -> dict[str, str]:
    """What each control of the filter panel shows for the query `q`: the first and the
    last day of the dates, the length class (TYPED_LENGTH for a length typed otherwise),
    the subtitles' kind and language; "" for none, and for every one when `q` cannot be
    read."""
    try:
        read: Query | None = parse_search(q)
    except QueryError:
        read = None
    return read_controls(read)


def read_controls(read: Query | None) -> dict[str, str]:
    """control_values of a query read (None: one that cannot be)."""
    if read is None:
        return dict.fromkeys(CONTROLS, "")
    found = read.filters
    lengths = [_value(part).lower() for part in read.parts if part.name == "duration"]
    length = ""
    if lengths:
        length = lengths[0] if lengths[0] in DURATIONS and len(lengths) == 1 else TYPED_LENGTH
    return {
        "after": (found.published_from or "")[:10],
        "before": _last_day(found.published_until),
        "duration": length,
        "type": found.subtitle_type or "",
        "lang": found.language or "",
    }


def fold_controls(q: str, sent: Mapping[str, str], drawn: str | None) -> str:
    """The query with each control the reader changed written in as its filter. A control
    changed is one sent with another value than it showed for the query as drawn (one
    not sent, or showing a length as typed, changes nothing). Its filter replaces the one
    typed where it stands (and any repeat of it), or goes at the end; "any" takes it out;
    the rest stays as typed. A query that cannot be read gets the changed filters at the
    end, and the page then says what is wrong with it."""
    shown = control_values(drawn) if drawn is not None else dict.fromkeys(CONTROLS, "")
    changed = {}
    for name in CONTROLS:
        value = "".join(sent.get(name, shown[name]).split())
        if value not in (shown[name], TYPED_LENGTH):
            changed[name] = value
    if not changed:
        return q
    try:
        parts: tuple[Part, ...] = parse_search(q).parts
    except QueryError:
        parts = ()
    edits: list[tuple[Part, str]] = []
    added: list[str] = []
    for name, value in changed.items():
        token = f"{name}:{value}" if value else ""
        typed = [part for part in parts if part.name == name]
        if typed:
            edits += [(typed[0], token), *((part, "") for part in typed[1:])]
        elif token:
            added.append(token)
    text = q
    for part, token in sorted(edits, key=lambda edit: edit[0].start, reverse=True):
        text = text[: part.start] + token + text[part.end :]
    return " ".join([*text.split(), *added])


def _cut(q: str, parts: list[Part]) -> str:
    """The query without these parts, spaces tidied as `without` does."""
    for part in sorted(parts, key=lambda part: part.start, reverse=True):
        q = q[: part.start] + " " + q[part.end :]
    return " ".join(q.split())


def _value(part: Part) -> str:
    """A filter's value as typed: its name and colon (ASCII or full width) cut."""
    return part.text[len(part.name) + 1 :]


def _last_day(until: str | None) -> str:
    """The last day a `before:` takes in (the filter holds the moment after it)."""
    return (date.fromisoformat(until[:10]) - timedelta(days=1)).isoformat() if until else ""


class AppliedPart(NamedTuple):
    """A filter or a word left out of the query, in the reader's words, and the address
    of the same search without it."""

    words: str
    without_url: str


def applied_parts(query: SearchQuery) -> list[AppliedPart]:
    """The query's filters and words left out, in the order typed."""
    return [
        AppliedPart(part_words(part), search_url(replace(query, q=without(query.q, part), page=1)))
        for part in query.read.parts
    ]


def part_words(part: Part) -> str:
    """A filter or a word left out as the reader says it: 2024-01-01 以降, 20分超, 手動字幕,
    日本語, 除外: カップ."""
    value = _value(part)
    if part.kind == "excluded":
        return _("Without %(words)s", words=part.text[1:])
    if part.name == "after":
        return _("From %(day)s", day=value)
    if part.name == "before":
        return _("Until %(day)s", day=value)
    if part.name == "type":
        return str(SUBTITLE_KINDS[value.lower()])
    if part.name == "lang":
        return language_name(value.lower())
    if part.name == "duration" and value.lower() in DURATIONS:
        return length_class(value.lower())
    return _bound_words(part, value)


def _bound_words(part: Part, value: str) -> str:
    """A length or a view count compared (duration:>20m, views:<=500), in words: the
    bound as the query language reads it, back to the number typed."""
    operator = next(op for op in (">=", "<=", ">", "<") if value.startswith(op))
    low, high = part_bounds(part)
    typed = {">": (low or 0) - 1, ">=": low or 0, "<": (high or 0) + 1, "<=": high or 0}
    if part.name == "duration":
        return str(LENGTH_BOUNDS[operator]) % {"length": length_words(typed[operator])}
    return str(VIEW_BOUNDS[operator]) % {"count": number(typed[operator])}


def length_class(name: str) -> str:
    """A length class in words, from its bounds (DURATIONS): 4分未満, 4分〜20分, 20分超."""
    low, high = DURATIONS[name]
    if low is None:
        return str(LENGTH_BOUNDS["<"]) % {"length": length_words((high or 0) + 1)}
    if high is None:
        return str(LENGTH_BOUNDS[">"]) % {"length": length_words(low - 1)}
    return _("%(low)s to %(high)s", low=length_words(low), high=length_words(high))


def length_words(seconds: int) -> str:
    """A length as the reader writes it: 1時間30分, 1 h 30 min."""
    hours, rest = divmod(seconds, 3600)
    minutes, rest = divmod(rest, 60)
    pieces = [
        _("%(n)s h", n=hours) if hours else "",
        _("%(n)s min", n=minutes) if minutes else "",
        _("%(n)s s", n=rest) if rest or not seconds else "",
    ]
    return ("" if locale_code() == "ja" else " ").join(piece for piece in pieces if piece)


def language_name(code: str) -> str:
    """A language as the reader names it (babel's names), the code when unknown."""
    return str(Locale.parse(locale_code()).languages.get(code, code))


@bp.app_template_global()
def query_script_rules() -> dict[str, object]:
    """What search-query.js reads the search box by (search.html embeds it as JSON): the
    query language's rules as the server reads a query (models/search/query.py, grammar),
    with each language lang: takes named as language_name names it."""
    rules = asdict(grammar())
    rules["languages"] = _language_names(locale_code(), rules["languages"])
    return rules


@functools.cache
def _language_names(locale: str, codes: tuple[str, ...]) -> dict[str, str]:
    names = Locale.parse(locale).languages
    return {code: str(names.get(code, code)) for code in codes}


class SearchFilters(NamedTuple):
    """The search page's channel filter: the member's favourites first, then the other
    channels one may choose; `chosen` are the query's channels (unknown ids by id)."""

    favourites: list[Channel]
    others: list[Channel]
    chosen: list[SimpleNamespace]


def _search_filters(user_id: str | None, query: SearchQuery) -> SearchFilters:
    favourites = [channel for _, channel in library.favorites(user_id)] if user_id else []
    shown = {channel.id for channel in favourites}
    others = [c for c in library.channel_choices() if c.id not in shown]
    shown |= {channel.id for channel in others}
    known = library.channels_by_id(query.channels)
    chosen = [
        SimpleNamespace(
            id=channel_id, title=known[channel_id].title if channel_id in known else channel_id
        )
        for channel_id in query.channels
    ]
    # A chosen channel beyond the list stays choosable, so the form keeps it.
    others += [known[c.id] for c in chosen if c.id not in shown and c.id in known]
    return SearchFilters(favourites, others, chosen)


@bp.app_template_filter()
def initials(title: str | None) -> str:
    """The first two letters of a title for its drawn thumbnail: `【たこ焼き】…` -> `たこ`."""
    return "".join(ch for ch in title or "" if ch.isalnum())[:2]


# -- the 通知 control (_alert_me.html, static/alerts.js) --------------------------------


class AlertOffer(NamedTuple):
    """What the 通知 control saves and says: the body of POST /api/alerts for the search
    being looked at (without its frequency, which the reader chooses), the chosen
    channels by name, and whether the member already has this very alert."""

    body: dict[str, object]
    channel_names: str
    saved: bool


def alert_offer(user_id: str | None, query: SearchQuery, filters: SearchFilters) -> AlertOffer:
    body: dict[str, object] = {"query": query.q, "semantic": query.semantic}
    if query.semantic:
        body["sr"] = query.sr
    if query.channels:
        body["channels"] = list(query.channels)
    separator = "・" if locale_code() == "ja" else ", "
    names = separator.join(channel.title for channel in filters.chosen)
    return AlertOffer(body, names, bool(user_id) and alerts.has_alert(user_id or "", query))
