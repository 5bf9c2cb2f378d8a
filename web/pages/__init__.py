"""HTML pages for people: the home page, search results and the account page; the
video page and the advertiser's pages are in their own modules on the same blueprint."""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple
from urllib.parse import urlencode

from flask import Flask, g, redirect, render_template, request
from flask_babel import gettext as _
from flask_login import current_user, login_required
from werkzeug.wrappers import Response as HttpResponse

from models import library
from models.ads.delivery import MIDROLL_EVERY_HITS, ads_enabled_for, search_page_ads
from models.ads.months import month_of
from models.billing import subscription_summary
from models.clock import utcnow
from models.errors import ValidationError
from models.home import home
from models.plans import PLAN_LIMITS, plan_of
from models.referrals import referral_count
from models.search import DEFAULT_SEMANTIC_RATIO, SearchQuery, bounds
from models.subtitles import moment_snippets
from models.tables import Channel
from web.api.operation import parse_query
from web.api.schemas.catalog import SearchParams, total_pages
from web.i18n import locale_code
from web.pages import advertise, own_ads, video
from web.pages.blueprint import bp
from web.pages.served_ads import PageAds, ad_label
from web.urls import history_search_url, public_url, search_url
from web.zone_choices import zone_choices

# Pages on the same blueprint, in modules of their own: their routes are on bp once imported.
ROUTE_MODULES = (video, own_ads)


@bp.get("/")
def index() -> str:
    return render_template("index.html", home=home(locale_code()))


# Lists a search keeps comma-separated in its address, as the API takes them.
LIST_PARAMS = ("channels", "target")


def _search_refusal(error: ValidationError) -> str:
    """Why a search was refused, in the reader's language: a bound of its cost
    (models/search/bounds.py), or the API's own words for anything else."""
    problems = set((error.fields or {}).values())
    if bounds.TOO_DEEP in problems:
        return _(
            "Results can be read up to the %(n)sth. Narrow the search with more words or"
            " channels instead of going further.",
            n=bounds.MAX_DEPTH,
        )
    if bounds.TOO_MANY_TERMS in problems:
        return _("Search with at most %(n)s words.", n=bounds.MAX_TERMS)
    if bounds.TOO_MANY_SCAN_TERMS in problems:
        return _(
            "Search with at most %(n)s words of a single kanji or kana;"
            " words of two characters or more are found faster.",
            n=bounds.MAX_SCAN_TERMS,
        )
    # An address made by hand (the form only sends these right): said in the reader's
    # words rather than the API's "Some fields are not valid."
    fields = set(error.fields or {})
    if "sr" in fields:
        return _("The weight of keywords and meaning (sr) is a number from 0 to 1.")
    if "semantic" in fields:
        return _("Search by meaning (semantic) is 1 for on or 0 for off.")
    return error.message


@bp.get("/search")
def search() -> str | tuple[str, int] | HttpResponse:
    """Results by video (the API's `groupBy=video`): one card per video with its best
    moments, pages over videos, and the ads between and below them (README, Direct
    ads: delivery, measurement and reports). The filters (channels, targets, sort) are
    in the address under the API's names, so a link restores the whole search."""
    if not (request.args.get("q") or "").strip():
        return redirect("/")
    canonical = _canonical_address()
    if canonical is not None:
        return redirect(canonical)
    try:
        query = parse_query(SearchParams, known_only=True).search_query()
    except ValidationError as error:
        return render_template("error.html", status=400, message=_search_refusal(error)), 400
    user_id = current_user.id if current_user.is_authenticated else None
    results = library.search_videos(user_id, query)

    def page_link(page: int) -> str:
        return search_url(query, page=page)

    ads = None
    if ads_enabled_for(current_user):
        decided = search_page_ads(
            request.headers.get("Edge-IPCountry"), month_of(utcnow()), results.total_videos
        )
        ads = PageAds(decided)
    return render_template(
        "search.html",
        query=query,
        results=results,
        total_pages=max(1, total_pages(results.total_videos, query.per_page)),
        page_link=page_link,
        snippets=moment_snippets(results.videos),
        filters=_search_filters(user_id, query),
        default=SearchQuery(q=query.q),
        ads=ads,
        midroll_every=MIDROLL_EVERY_HITS,
        ad_label=ad_label(),
    )


def _canonical_address() -> str | None:
    """The address as the API takes it and the page's links write it, when the form sent
    it otherwise (a browser without script sends every field): each list parameter sent
    more than once (the filter form's checkboxes) joined with commas, sorted; and `sr`
    left out where it counts for nothing, so one search is one history row. None when
    the address already is so."""
    joined = any(len(request.args.getlist(key)) > 1 for key in LIST_PARAMS)
    idle = _idle_strength()
    if not joined and not idle:
        return None
    args = request.args.copy()
    if joined:
        for key in LIST_PARAMS:
            values = sorted({v.strip() for v in request.args.getlist(key) if v.strip()})
            if values:
                args.setlist(key, [",".join(values)])
            else:
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


@bp.app_template_global()
def favourite_channel_ids() -> frozenset[str]:
    """The signed-in member's favourite channels, read once a request, for the favourite
    toggles (templates/_favourite.html); empty when signed out."""
    if not current_user.is_authenticated:
        return frozenset()
    if "favourite_channel_ids" not in g:
        g.favourite_channel_ids = frozenset(library.favorite_channel_ids(current_user.id))
    ids: frozenset[str] = g.favourite_channel_ids
    return ids


@bp.app_template_filter()
def initials(title: str | None) -> str:
    """The first two letters of a title for its drawn thumbnail: `【たこ焼き】…` -> `たこ`."""
    return "".join(ch for ch in title or "" if ch.isalnum())[:2]


# The one link to a history entry's search, for every template (the account page).
bp.add_app_template_global(history_search_url)


@bp.get("/account")
@login_required
def account() -> str:
    """The member's account. Back from a plan checkout (`subscribed=<plan>`), the plan
    reads as being confirmed until the provider's webhook has made it the member's plan;
    the page's script follows /api/me until then (README, Credits, plans and referrals)."""
    plan = plan_of(current_user.id)
    returned_for = request.args.get("subscribed")
    if returned_for not in PLAN_LIMITS or returned_for == "free":
        returned_for = None
    return render_template(
        "account.html",
        user=current_user,
        plan=plan,
        plan_limit=PLAN_LIMITS[plan],
        plan_limits=PLAN_LIMITS,
        confirming=returned_for if returned_for and plan == "free" else None,
        confirmed=plan if returned_for and plan != "free" else None,
        subscription=subscription_summary(current_user.id),
        referral_count=referral_count(current_user.id),
        share_url=public_url("pages.account", ref=current_user.referral_code),
        history=library.history(current_user.id)[:20],
        favorites=library.favorites(current_user.id),
        zone_choices=zone_choices(locale_code(), current_user.time_zone),
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    advertise.init_app(app)
