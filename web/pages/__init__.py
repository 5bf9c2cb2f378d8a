"""HTML pages for people: the search box and the account page."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import NamedTuple
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    abort,
    g,
    redirect,
    render_template,
    request,
    send_from_directory,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required
from markupsafe import Markup
from werkzeug.wrappers import Response as HttpResponse

from models import library
from models.ads import SLOT_IDS, slot_names, view_tokens
from models.ads.delivery import (
    MIDROLL_EVERY_HITS,
    DirectAd,
    SearchPageAds,
    ads_enabled_for,
    search_page_ads,
    video_page_ads,
)
from models.ads.images import storage
from models.ads.months import add_months, month_of
from models.ads.profiles import BUSINESS_CATEGORIES, list_profiles
from models.ads.reports import advertiser_reservation, advertiser_reservations
from models.billing import subscription_summary
from models.clock import parse_iso, utcnow
from models.credits import calculate_credit_cost, has_access
from models.errors import ValidationError
from models.home import home
from models.plans import PLAN_LIMITS, plan_of
from models.referrals import referral_count
from models.search import SearchQuery, bounds
from models.search.base import Segment
from models.search.text import highlight
from models.search.text import parse_query as parse_terms
from models.subtitles import video_transcript
from models.tables import Channel, Video
from web.api.operation import parse_path, parse_query
from web.api.schemas.account import VideoPath
from web.api.schemas.ads import OwnReservation, OwnReservationDetail, ReservationPath, ServedAd
from web.api.schemas.catalog import SearchParams, total_pages
from web.charts import daily_lines
from web.i18n import time_zones
from web.urls import history_search_url, search_url

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html", home=home())


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
    return error.message


@bp.get("/search")
def search() -> str | tuple[str, int] | HttpResponse:
    """Results by video (the API's `groupBy=video`): one card per video with its best
    moments, pages over videos, and the ads between and below them (README, Direct
    ads: delivery, measurement and reports). The filters (channels, targets, sort) are
    in the address under the API's names, so a link restores the whole search."""
    if not (request.args.get("q") or "").strip():
        return redirect("/")
    joined = _joined_list_params()
    if joined is not None:
        return redirect(joined)
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
        ads = _PageAds(decided)
    return render_template(
        "search.html",
        query=query,
        results=results,
        total_pages=max(1, total_pages(results.total_videos, query.per_page)),
        page_link=page_link,
        filters=_search_filters(user_id, query),
        default=SearchQuery(q=query.q),
        ads=ads,
        midroll_every=MIDROLL_EVERY_HITS,
        ad_label=ad_label(),
    )


def _joined_list_params() -> str | None:
    """The address with each list parameter sent more than once (the filter form's
    checkboxes) joined with commas, sorted, as the API takes it; None when the address
    already is so."""
    if all(len(request.args.getlist(key)) <= 1 for key in LIST_PARAMS):
        return None
    args = request.args.copy()
    for key in LIST_PARAMS:
        values = sorted({v.strip() for v in request.args.getlist(key) if v.strip()})
        if values:
            args.setlist(key, [",".join(values)])
        else:
            args.poplist(key)
    return request.path + "?" + urlencode(list(args.items(multi=True)), safe=",")


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


@bp.get("/videos/<video_id>")
def video(video_id: str) -> str:
    video_id = parse_path(VideoPath, {"video_id": video_id}).video_id
    found = Video.get_or_none(Video.id == video_id)
    if found is None or found.subtitle_status == "deleted":
        abort(404)
    allowed = current_user.is_authenticated and has_access(current_user, video_id)
    start = request.args.get("t", type=int)
    start = start if start and start > 0 else None
    q = (request.args.get("q") or "").strip()[:200]
    segments = video_transcript(video_id) if allowed else None
    return render_template(
        "video.html",
        video=found,
        channel=Channel.get_by_id(found.channel_id),
        segments=_marked_segments(segments, q) if segments is not None else None,
        current_start=_current_start(segments or [], start),
        q=q,
        player_url=_player_url(video_id, start),
        cost=calculate_credit_cost(found.duration_seconds),
        start=start,
        ads=_video_ads(),
        ad_label=ad_label(),
    )


PLAYER_HOST = "https://www.youtube-nocookie.com"


def _player_url(video_id: str, start: int | None) -> str:
    """The embedded player, listening to the page's postMessage commands (static/
    video-player.js: seek on a timestamp, mark the cue being played)."""
    params = {"enablejsapi": "1", "origin": request.host_url.rstrip("/")}
    if start:
        params["start"] = str(start)
    return f"{PLAYER_HOST}/embed/{video_id}?{urlencode(params)}"


def _marked_segments(segments: list[Segment], q: str) -> list[SimpleNamespace]:
    """Each cue with its text as escaped HTML, the query's words in <mark>."""
    terms = parse_terms(q) if q else []
    return [
        SimpleNamespace(
            start=s.start, end=s.end, text=s.text, html=Markup(highlight(s.text, terms))
        )
        for s in segments
    ]


def _current_start(segments: list[Segment], start: int | None) -> float | None:
    """The start of the cue playing at `start` seconds (the last one begun by then)."""
    if start is None:
        return None
    begun = [s.start for s in segments if s.start <= start]
    return begun[-1] if begun else None


@bp.get("/ads/new")
@login_required
def new_ad() -> str:
    names = slot_names()
    return render_template(
        "ads/new.html",
        slots=[SimpleNamespace(id=s, display_name=names.get(s, s)) for s in SLOT_IDS],
        profiles=list_profiles(current_user.id),
        categories=BUSINESS_CATEGORIES,
        next_month=add_months(month_of(utcnow()), 1),
        cancelled=bool(request.args.get("cancelled")),
    )


def minutes_left(expires_at: str) -> int:
    """Whole minutes until an ISO time, rounded up (a checkout's time left)."""
    return max(0, math.ceil((parse_iso(expires_at) - utcnow()).total_seconds() / 60))


@bp.get("/ads")
@login_required
def own_ads() -> str:
    own = advertiser_reservations(current_user.id)
    return render_template(
        "ads/list.html",
        minutes_left=minutes_left,
        reservations=[OwnReservation.of(r).as_json() for r in own],
    )


@bp.get("/ads/<reservation_id>")
@login_required
def own_ad(reservation_id: str) -> str:
    reservation_id = parse_path(ReservationPath, {"reservation_id": reservation_id}).reservation_id
    detail = advertiser_reservation(current_user.id, reservation_id)
    report = OwnReservationDetail.of(detail).as_json()
    return render_template(
        "ads/detail.html",
        r=report,
        minutes_left=minutes_left,
        chart=daily_lines(report["daily"], until=utcnow().date()),
        paid=request.args.get("paid"),
    )


@bp.get("/uploads/<name>")
def uploaded(name: str) -> HttpResponse:
    """Ad images, as stored (re-encoded) by the upload."""
    if not storage().exists(name) or name.startswith("."):
        abort(404)
    response = send_from_directory(storage().path(name).parent, name, max_age=86400)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def ad_label() -> str:
    """The label over every ad, in the reader's language."""
    return _("Advertisement")


class _PageAds:
    """A search page's decided ads, as the API serves them (dictionaries for the
    template), all under one render id (each ad's view token differs by its
    reservation and position)."""

    def __init__(self, page: SearchPageAds):
        self.page = page
        self.render = view_tokens.new_render_id()
        self.bottom = _served(page.bottom, self.render) if page.bottom is not None else None

    def midroll(self, firing: int) -> list[dict | None]:
        return _served(self.page.midroll(firing), self.render)


def _served(positions: list[DirectAd | None], render: bytes) -> list[dict | None]:
    return [ServedAd.of(ad, render).as_json() if ad else None for ad in positions]


def _video_ads() -> dict[str, list[dict | None]] | None:
    if not ads_enabled_for(current_user):
        return None
    decided = video_page_ads(request.headers.get("Edge-IPCountry"), month_of(utcnow()))
    render = view_tokens.new_render_id()
    return {slot: _served(positions, render) for slot, positions in decided.items()}


@bp.get("/account")
@login_required
def account() -> str:
    plan = plan_of(current_user.id)
    return render_template(
        "account.html",
        user=current_user,
        plan=plan,
        plan_limit=PLAN_LIMITS[plan],
        subscription=subscription_summary(current_user.id),
        referral_count=referral_count(current_user.id),
        history=library.history(current_user.id)[:20],
        favorites=library.favorites(current_user.id),
        time_zones=sorted(time_zones()),
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
