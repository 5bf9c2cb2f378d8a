"""The reader's language and time zone, and the words pages use for the service's codes.

Every sentence a person reads goes through gettext (Flask-Babel; catalogs in
`web/translations`, English source strings, compiled by `make install`). The locale is
the signed-in user's choice, else the `lang` cookie a visitor chose, else the best of
`Accept-Language`, else Japanese. Times are stored in UTC and shown in the reader's
zone: the user's choice, else Asia/Tokyo for Japanese readers and UTC for English ones.

The API keeps English messages and stable codes; `client_text()` hands the pages'
scripts the reader's words for those codes and field names.
"""

from __future__ import annotations

import gettext as stdlib_gettext
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import cache, wraps
from typing import Any, TypedDict
from zoneinfo import ZoneInfo, available_timezones

import pycountry
from babel.dates import format_date, format_datetime, format_skeleton
from babel.numbers import format_decimal
from flask import Flask, request
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from models.clock import parse_iso
from models.problems import ENGLISH, Problem
from web.translation import get_locale, get_timezone, init_babel, lazy_gettext
from web.translation import gettext as _
from web.visitor import viewer

LOCALES = ("ja", "en")
DEFAULT_LOCALE = "ja"
LOCALE_COOKIE = "lang"
DEFAULT_ZONES = {"ja": "Asia/Tokyo", "en": "UTC"}
LANGUAGE_NAMES = {"ja": "日本語", "en": "English"}

# Currencies whose amounts have no minor unit (the provider's "zero-decimal" list).
ZERO_DECIMAL = {"jpy", "krw", "vnd", "clp", "pyg", "ugx", "xaf", "xof"}


def select_locale() -> str:
    user = viewer()
    chosen = user.locale if user is not None else None
    if chosen in LOCALES:
        return chosen
    cookie = request.cookies.get(LOCALE_COOKIE)
    if cookie in LOCALES:
        return cookie
    return request.accept_languages.best_match(LOCALES) or DEFAULT_LOCALE


def select_timezone() -> str:
    user = viewer()
    chosen = user.time_zone if user is not None else None
    if chosen and chosen in time_zones():
        return chosen
    return DEFAULT_ZONES.get(str(get_locale()), "UTC")


@cache
def time_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def locale_code() -> str:
    return str(get_locale() or DEFAULT_LOCALE)


# --- codes shown as people say them -------------------------------------------------

STATUSES = {
    "pending_payment": lazy_gettext("Awaiting payment"),
    "pending_review": lazy_gettext("In review"),
    # An approved ad: whether it is shown yet is its delivery state (DELIVERY below).
    "active": lazy_gettext("Approved"),
    "stopped": lazy_gettext("Stopped"),
    "expired": lazy_gettext("Ended"),
    "rejected": lazy_gettext("Rejected"),
    "refunded": lazy_gettext("Refunded"),
    "cancelled": lazy_gettext("Cancelled"),
    "paid": lazy_gettext("Paid"),
    "open": lazy_gettext("Open"),
    "complete": lazy_gettext("Completed"),
    "processing": lazy_gettext("Processing"),
    "requires_payment_method": lazy_gettext("Awaiting payment"),
    "succeeded": lazy_gettext("Paid"),
    "canceled": lazy_gettext("Cancelled"),
    "trialing": lazy_gettext("Trial"),
    "past_due": lazy_gettext("Payment overdue"),
    "unpaid": lazy_gettext("Unpaid"),
}

# Where an ad's delivery stands today (models/ads/delivery_state.py), beside its status.
DELIVERY = {
    "scheduled": lazy_gettext("Scheduled"),
    "running": lazy_gettext("Running"),
    "ended": lazy_gettext("Delivery ended"),
    "stopped": lazy_gettext("Stopped"),
}

PLANS = {
    "free": lazy_gettext("Free"),
    "plus": lazy_gettext("Plus"),
    "pro": lazy_gettext("Pro"),
}

SLOTS = {
    "search-result-midroll": lazy_gettext("Between search results"),
    "search-result-bottom": lazy_gettext("Below search results"),
    "video-detail-below-player": lazy_gettext("Below the video player"),
    "video-detail-below-subtitle": lazy_gettext("Below the subtitles"),
}

# The spec's 15 business categories (models.ads.profiles.BUSINESS_CATEGORIES), in the
# reader's words; the Japanese catalog holds the spec's own labels.
CATEGORIES = {
    "it_saas": lazy_gettext("IT / SaaS"),
    "ec_retail": lazy_gettext("E-commerce and retail"),
    "beauty_cosmetics": lazy_gettext("Beauty and cosmetics"),
    "food_beverage": lazy_gettext("Food and drink"),
    "media": lazy_gettext("Media"),
    "entertainment_games": lazy_gettext("Entertainment and games"),
    "education": lazy_gettext("Education"),
    "hr_recruiting": lazy_gettext("Recruiting"),
    "automotive": lazy_gettext("Automotive"),
    "real_estate": lazy_gettext("Real estate"),
    "travel_tourism": lazy_gettext("Travel and tourism"),
    "medical_healthcare": lazy_gettext("Medical and healthcare"),
    "finance": lazy_gettext("Finance"),
    "gambling_gaming": lazy_gettext("Gambling and gaming"),
    "other": lazy_gettext("Other"),
}

INTERVALS = {
    "day": lazy_gettext("day"),
    "week": lazy_gettext("week"),
    "month": lazy_gettext("month"),
    "year": lazy_gettext("year"),
}


def status_label(code: str | None) -> str:
    return str(STATUSES.get(code or "", code or ""))


def delivery_label(code: str | None) -> str:
    return str(DELIVERY.get(code or "", code or ""))


def plan_label(code: str | None) -> str:
    return str(PLANS.get(code or "", code or ""))


def slot_label(code: str | None) -> str:
    return str(SLOTS.get(code or "", code or ""))


def category_label(code: str | None) -> str:
    return str(CATEGORIES.get(code or "", code or ""))


@cache
def _country_catalog(locale: str) -> stdlib_gettext.NullTranslations:
    return stdlib_gettext.translation(
        "iso3166-1", pycountry.LOCALES_DIR, languages=[locale], fallback=True
    )


def country_name(code: str | None) -> str:
    """A country as the reader names it (pycountry's catalogs), the code when unknown."""
    country = pycountry.countries.get(alpha_2=(code or "").upper()) if code else None
    if country is None:
        return code or ""
    return _country_catalog(locale_code()).gettext(country.name)


def price(amount: int | None, currency: str = "jpy", interval: str | None = None) -> str:
    """`¥60,000 / 月`: the amount in the provider's minor units, with its period."""
    if amount is None:
        return ""
    code = (currency or "jpy").lower()
    if code == "jpy":
        shown = f"¥{format_decimal(amount, locale=locale_code())}"
    elif code in ZERO_DECIMAL:
        shown = f"{format_decimal(amount, locale=locale_code())} {code.upper()}"
    else:
        amount_shown = format_decimal(amount / 100, format="#,##0.00", locale=locale_code())
        shown = f"{amount_shown} {code.upper()}"
    if interval:
        shown = f"{shown} / {INTERVALS.get(interval, interval)}"
    return shown


def number(value: int | float | None) -> str:
    return "" if value is None else format_decimal(value, locale=locale_code())


def _moment(value: str | int | float | datetime | None) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):  # milliseconds since the epoch, as rows keep them
        return datetime.fromtimestamp(value / 1000, UTC)
    try:
        return parse_iso(value)
    except ValueError:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))


def when(value: str | int | float | datetime | None, form: str = "medium") -> str:
    """A stored UTC moment in the reader's zone and words (`2026年11月24日 18:16`)."""
    moment = _moment(value)
    if moment is None:
        return ""
    pattern = {
        "medium": "yyyy/MM/dd HH:mm" if locale_code() == "ja" else "MMM d, yyyy HH:mm",
        "short": "MM/dd HH:mm" if locale_code() == "ja" else "MMM d HH:mm",
    }.get(form, form)
    return format_datetime(moment, pattern, tzinfo=get_timezone(), locale=locale_code())


def day(value: str | date | None, form: str = "long") -> str:
    """A calendar date (`2026年11月24日`); a `YYYY-MM` month reads `2026年11月`. A stored
    UTC moment (`2026-11-29T15:05:00.000Z`) is the day it was in the reader's zone, as
    `when` shows its time: 00:05 in Japan is the next day's."""
    if not value:
        return ""
    if isinstance(value, str):
        if re.fullmatch(r"\d{4}-\d{2}", value):
            return format_skeleton("yMMMM", date.fromisoformat(value + "-01"), locale=locale_code())
        if "T" in value:
            moment = _moment(value)
            assert moment is not None
            value = moment.astimezone(get_timezone()).date()
        else:
            value = date.fromisoformat(value[:10])
    return format_date(value, form, locale=locale_code())


def months(start: str, end: str) -> str:
    """A reservation's period of `YYYY-MM` months: `2027年1月`, or `2027年1月 〜 2027年3月`."""
    if start == end:
        return day(start)
    return _("%(start)s to %(end)s", start=day(start), end=day(end))


def placement(slot: str, position: int, country: str) -> str:
    """Where an ad runs: `検索結果下部 × 1 × 日本`."""
    return _(
        "%(slot)s × %(position)s × %(country)s",
        slot=slot_label(slot),
        position=position,
        country=country_name(country),
    )


def zone_abbreviation() -> str:
    return datetime.now(ZoneInfo(str(get_timezone()))).strftime("%Z")


# --- the API's codes and fields, for the pages' scripts ------------------------------

ERROR_CODES = {
    "invalid_request": lazy_gettext("Please check what you entered."),
    "unauthenticated": lazy_gettext("Please sign in to continue."),
    "forbidden": lazy_gettext("You do not have access to this."),
    "not_found": lazy_gettext("Not found."),
    "conflict": lazy_gettext("This conflicts with the current state. Reload and try again."),
    "payload_too_large": lazy_gettext("The file is too large."),
    "unsupported_media_type": lazy_gettext("This kind of file is not accepted."),
    "too_many_requests": lazy_gettext("Too many requests. Wait a moment and try again."),
    "internal_error": lazy_gettext("Something went wrong on our side."),
    "unavailable": lazy_gettext("The service is busy. Try again in a moment."),
    "search_unavailable": lazy_gettext("Search is being set up; try again later."),
    "search_busy": lazy_gettext("Search is busy right now; try again in a few seconds."),
    "insufficient_credits": lazy_gettext("You do not have enough credits."),
    "no_subtitles": lazy_gettext("The subtitles of this video are not ready yet."),
    "unknown_code": lazy_gettext("No user has this referral code."),
    "own_code": lazy_gettext("You cannot use your own referral code."),
    "already_referred": lazy_gettext("A referral code has already been applied to your account."),
    "mutual_referral": lazy_gettext(
        "This member was referred by you; two members cannot refer each other."
    ),
    "already_subscribed": lazy_gettext(
        "Referral codes can only be used before subscribing to a paid plan."
    ),
    "checkout_open": lazy_gettext(
        "A plan checkout is already open or being paid; finish or cancel it, or wait until"
        " it expires."
    ),
    "slot_full": lazy_gettext("All four positions of this slot are taken for that period."),
    "too_many_unpaid_holds": lazy_gettext(
        "You already have as many reservations awaiting payment as one member may hold at"
        " once. Pay for one of them, or wait until its checkout expires, then apply again."
    ),
    "not_paid": lazy_gettext("The reservation has not been paid yet."),
    "invalid_status": lazy_gettext("The reservation's status does not allow this."),
    "no_subscription": lazy_gettext(
        "You have no subscription to manage; subscribe to a plan first."
    ),
    "locked": lazy_gettext("Unlock this video to read its full subtitles."),
    "image_too_large": lazy_gettext("The image is larger than 500 KB."),
    "sign_in_failed": lazy_gettext("Sign-in could not be completed."),
    "request_in_progress": lazy_gettext("The first request is still running. Wait a moment."),
    "idempotency_key_reused": lazy_gettext("This request was already sent. Reload the page."),
    "checkout_closed": lazy_gettext("This checkout has closed."),
    "already_paid": lazy_gettext(
        "It has already been paid (or a convenience-store payment is under way), so it"
        " cannot be cancelled."
    ),
}

FIELDS = {
    "advertiserName": lazy_gettext("Advertiser name"),
    "title": lazy_gettext("Title"),
    "body": lazy_gettext("Text"),
    "linkUrl": lazy_gettext("Link URL"),
    "imageUrl": lazy_gettext("Image"),
    "file": lazy_gettext("Image"),
    "slotId": lazy_gettext("Position"),
    "slotIds": lazy_gettext("Positions"),
    "month": lazy_gettext("Month"),
    "months": lazy_gettext("Months"),
    "country": lazy_gettext("Country"),
    "countries": lazy_gettext("Countries"),
    "profileId": lazy_gettext("Advertiser profile"),
    "profile": lazy_gettext("Advertiser profile"),
    "businessLegalName": lazy_gettext("Legal name"),
    "businessAddress": lazy_gettext("Business address"),
    "contactName": lazy_gettext("Contact name"),
    "contactEmail": lazy_gettext("Contact e-mail"),
    "businessCategory": lazy_gettext("Business category"),
    "invoiceRegistrationNumber": lazy_gettext("Invoice registration number"),
    "code": lazy_gettext("Referral code"),
    "email": lazy_gettext("E-mail address"),
    "name": lazy_gettext("Name"),
    "plan": lazy_gettext("Plan"),
    "reason": lazy_gettext("Reason"),
    "q": lazy_gettext("Search words"),
    "startDate": lazy_gettext("Start date"),
    "endDate": lazy_gettext("End date"),
    # The ad purchase form's fields (POST /api/ads/reservations).
    "redirectUrl": lazy_gettext("Link URL"),
    "slot": lazy_gettext("Ad slot"),
    "startMonth": lazy_gettext("First month"),
    "consent": lazy_gettext("Consent to the terms"),
    # An alert's fields (POST /api/alerts), as the search page's 通知 control names them.
    "query": lazy_gettext("Search words"),
    "frequency": lazy_gettext("How often"),
    "channels": lazy_gettext("Channels"),
}

# Each field problem (models/problems.py) in the reader's words, by its code; {n} stands
# for the problem's value of that name.
PROBLEMS = {
    "required": lazy_gettext("required"),
    "too_long": lazy_gettext("at most {n} characters"),
    "unknown_field": lazy_gettext("not a field of this form"),
    "bad_format": lazy_gettext("not in the expected format"),
    "control_characters": lazy_gettext("must not contain control characters"),
    "invalid_unicode": lazy_gettext("must be valid text"),
    "not_an_email": lazy_gettext("not an e-mail address"),
    "not_a_choice": lazy_gettext("choose one of the choices"),
    "too_small": lazy_gettext("at least {n}"),
    "too_large": lazy_gettext("at most {n}"),
    "not_an_integer": lazy_gettext("a whole number"),
    "unreadable_integer": lazy_gettext("a whole number"),
    "not_true": lazy_gettext("tick the box to confirm the ad follows the terms of use"),
    "not_a_country": lazy_gettext("not a country"),
    "not_a_month": lazy_gettext("choose a month"),
    "too_early": lazy_gettext("choose {n} or a later month"),
    "too_late": lazy_gettext("choose {n} or an earlier month"),
    "not_an_image_format": lazy_gettext("must be a JPG, PNG or WebP image"),
    "unreadable_image": lazy_gettext("not a readable image"),
    "too_many_pixels": lazy_gettext("the image has too many pixels"),
    "image_too_small": lazy_gettext("at least 640 x 360 px"),
    "not_uploaded": lazy_gettext("upload the image again (the upload is no longer available)"),
    "invalid_url": lazy_gettext("not a valid URL"),
    "not_http": lazy_gettext("must start with http:// or https://"),
    "credentials_in_url": lazy_gettext("must not contain a user name or password"),
    "backslash_in_url": lazy_gettext("must not contain a backslash"),
    "no_host": lazy_gettext("must name a host"),
    "local_network": lazy_gettext(
        "enter a public website: an address on a local or private network (localhost,"
        " 192.168.x.x, a name without a dot) cannot be an ad's link"
    ),
    "not_a_web_address": lazy_gettext(
        "enter an address starting with http:// or https://, with a site name and without"
        " a user name, password or backslash"
    ),
    "multiple_lines": lazy_gettext("must be a single line"),
    "ad_label": lazy_gettext(
        "must not contain a word that labels it as an ad (広告, AD, PR, Sponsored)"
    ),
    "affiliation_claim": lazy_gettext(
        "must not claim to be official or an authorised agent (公式, 正規代理店)"
    ),
    "service_name": lazy_gettext("must not contain this service's name"),
    "not_sold_here": lazy_gettext("ads are not sold in this country"),
    "months_out_of_range": lazy_gettext("a whole number from 1 to {n}"),
    "before_next_month": lazy_gettext("from next month ({n}) on"),
    "too_far_ahead": lazy_gettext("within {n} years from now"),
    "no_profile": lazy_gettext("choose a saved profile or enter a new one"),
    "not_your_profile": lazy_gettext("not one of your profiles"),
    "unconfirmed": lazy_gettext("tick the box to confirm the ad follows the terms of use"),
    "not_a_category": lazy_gettext("choose a business category"),
    "not_an_invoice_number": lazy_gettext("T followed by 13 digits"),
}
# What a problem without words of its own reads as.
FALLBACK = lazy_gettext("please check this value")


def field_name(name: str) -> str:
    """`profile.businessAddress` reads as its last part's label."""
    last = name.rsplit(".", 1)[-1]
    return str(FIELDS.get(last, last))


def field_problem(problem: str) -> str:
    """A field's problem in the reader's words, found by its code; a sentence without
    one (models/problems.py) reads as FALLBACK."""
    if not isinstance(problem, Problem):
        return str(FALLBACK)
    words = str(PROBLEMS[problem.code])
    for name, value in problem.params.items():
        words = words.replace(f"{{{name}}}", str(value))
    return words


class ApiWords(TypedDict):
    """The API's codes, fields and problems in the reader's words (web/static/i18n.js)."""

    codes: dict[str, str]
    fields: dict[str, str]
    # code -> [the API's English sentence, the reader's words], each with its {values}
    problems: dict[str, tuple[str, str]]
    fallback: str


class ClientText(ApiWords):
    """What base.html hands the pages' scripts (client_text)."""

    locale: str
    timeZone: str
    page: dict[str, str]


def client_text(page_text: dict[str, str] | list[dict[str, str]] | None = None) -> ClientText:
    """What the pages' scripts need to speak the reader's language (base.html embeds it;
    web/static/i18n.js reads it). `page_text`: a page's own sentences by key, which a
    template sets (`{% set page_text = {"saved": _("Saved.")} %}`) before extending, or
    a list of such sets (a page with a chart and a checkout button)."""
    parts = page_text if isinstance(page_text, list) else [page_text or {}]
    page = {key: str(words) for part in parts for key, words in part.items()}
    return {
        "locale": locale_code(),
        "timeZone": str(get_timezone()),
        **_api_words(locale_code()),
        "page": page,
    }


@cache
def _api_words(locale: str) -> ApiWords:
    """The API's codes, fields and problems in `locale` (the current one: the key keeps
    each language's words apart); the same on every page, so made once a language."""
    return {
        "codes": {code: str(words) for code, words in ERROR_CODES.items()},
        "fields": {name: str(words) for name, words in FIELDS.items()},
        "problems": {code: (ENGLISH[code], str(words)) for code, words in PROBLEMS.items()},
        "fallback": str(FALLBACK),
    }


def reader_filter(function: Callable[..., Any]) -> Callable[..., Any]:
    """A template filter whose answer is the reader's (language, zone): marked as using
    the render's context, for Jinja works out a filter of a constant once, when it
    compiles the template, and `{{ "JP"|country_name }}` would keep the first reader's
    words for everyone after."""

    @pass_context
    @wraps(function)
    def per_render(_context: Context, *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return per_render


# The filters that speak the reader's words.
READER_FILTERS: dict[str, Callable[..., Any]] = {
    "price": price,
    "when": when,
    "day": day,
    "number": number,
    "country_name": country_name,
    "status_label": status_label,
    "delivery_label": delivery_label,
    "plan_label": plan_label,
    "slot_label": slot_label,
    "category_label": category_label,
    "field_name": field_name,
}


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LOCALE)
    app.config.setdefault("BABEL_DEFAULT_TIMEZONE", DEFAULT_ZONES[DEFAULT_LOCALE])
    init_babel(app, select_locale, select_timezone)
    app.jinja_env.filters.update(
        {name: reader_filter(function) for name, function in READER_FILTERS.items()}
    )
    app.jinja_env.globals.update(
        locale_code=locale_code,
        months=months,
        placement=placement,
        client_text=client_text,
        language_names=LANGUAGE_NAMES,
        zone_abbreviation=zone_abbreviation,
        Markup=Markup,
    )
