"""The member's account page: plan and credits, the plans with their prices
(models/plan_prices.py), the subscription and its receipts, the alerts and their news,
referrals, history, favourites and the reader's time zone."""

from __future__ import annotations

import html
import logging
import re
from datetime import datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from flask import render_template, request, url_for
from markupsafe import Markup, escape

from models import alerts, library
from models.billing import open_plan_checkout, subscription_summary
from models.payments import PaymentError
from models.plan_prices import plan_offers
from models.plans import PLAN_LIMITS, plan_of
from models.receipts import plan_receipts
from models.referrals import referral_count
from models.search import SearchQuery
from web.auth import login_required
from web.i18n import locale_code, select_timezone
from web.pages.blueprint import bp
from web.urls import history_search_url, public_url, search_url
from web.visitor import member
from web.zone_choices import zone_choices

log = logging.getLogger(__name__)

# The one link to a history entry's search, for every template (the account page).
bp.add_app_template_global(history_search_url)


def _receipts(user_id: str) -> tuple[list[SimpleNamespace], bool]:
    """The plan's receipts with their periods as the reader's calendar days, and whether
    the provider could not be asked (the page is shown all the same)."""
    try:
        found = plan_receipts(user_id)
    except PaymentError as error:
        log.warning("receipts of %s not readable: %s", user_id, error)
        return [], True
    zone = ZoneInfo(select_timezone())
    return [
        SimpleNamespace(
            start=datetime.fromtimestamp(r.period_start / 1000, zone).date(),
            end=datetime.fromtimestamp(r.period_end / 1000, zone).date(),
            amount=r.amount,
            currency=r.currency,
            url=r.url,
        )
        for r in found
    ], False


@bp.get("/account")
@login_required
def account() -> str:
    """The member's account. Back from a plan checkout (`subscribed=<plan>`), the plan
    reads as being confirmed until the provider's webhook has made it the member's plan;
    the page's script follows /api/me until then (docs/accounts.md, Coming back from a
    plan checkout). A free member's plan checkout still open (back by the browser's
    button) is shown, to continue or to cancel."""
    user = member()
    plan = plan_of(user.id)
    returned_for = request.args.get("subscribed")
    if returned_for not in PLAN_LIMITS or returned_for == "free":
        returned_for = None
    open_checkout = open_plan_checkout(user.id) if plan == "free" and not returned_for else None
    receipts, receipts_unreadable = _receipts(user.id)
    return render_template(
        "account.html",
        user=user,
        plan=plan,
        plan_limit=PLAN_LIMITS[plan],
        plan_limits=PLAN_LIMITS,
        offers=plan_offers(),
        confirming=returned_for if returned_for and plan == "free" else None,
        confirmed=plan if returned_for and plan != "free" else None,
        subscription=subscription_summary(user.id),
        open_checkout=open_checkout,
        receipts=receipts,
        receipts_unreadable=receipts_unreadable,
        referral_count=referral_count(user.id),
        share_url=public_url("pages.account", ref=user.referral_code),
        history=library.history(user.id)[:20],
        favorites=library.favorites(user.id),
        alerts=alert_rows(user.id),
        alert_limit=alerts.PLAN_LIMITS.get(plan, alerts.PLAN_LIMITS["free"]),
        zone_choices=zone_choices(locale_code(), user.time_zone),
    )


# -- the alerts (_account_alerts.html) --------------------------------------------------

MARK = re.compile(r"(</?mark>)")


def alert_rows(user_id: str) -> list[SimpleNamespace]:
    """The member's alerts (models.alerts.list_alerts) as the page shows them: the
    search they save as its address, their channels by name, why their mail is paused,
    and their latest news with links to the moment."""
    found = alerts.list_alerts(user_id)
    names = library.channels_by_id(sorted({c for summary in found for c in summary.channels}))
    separator = "・" if locale_code() == "ja" else ", "
    rows = []
    for summary in found:
        alert = summary.alert
        query = SearchQuery(
            q=alert.query,
            channels=tuple(summary.channels),
            semantic=bool(alert.semantic),
            sr=float(alert.sr),
        )
        rows.append(
            SimpleNamespace(
                id=alert.id,
                query=alert.query,
                frequency=alert.frequency,
                semantic=bool(alert.semantic),
                created_at=alert.created_at,
                search_url=search_url(query),
                channel_names=separator.join(
                    names[c].title if c in names else c for c in summary.channels
                ),
                paused=bool(alert.paused_at),
                paused_reason=summary.paused_reason,
                match_count=summary.match_count,
                latest=[_news_row(news, alert.query) for news in summary.latest],
                feed_url=summary.feed_url,
            )
        )
    return rows


def _news_row(news: alerts.News, query: str) -> SimpleNamespace:
    """A video an alert heard of: its title linked to the moment, with the search's
    words, and the moment's words with only the engine's <mark> kept as markup."""
    at = f"{news.start:.2f}".rstrip("0").rstrip(".") if news.start and news.start > 0 else None
    return SimpleNamespace(
        video_id=news.video_id,
        title=news.title or news.video_id,
        url=url_for("pages.video", video_id=news.video_id, t=at, q=query),
        start=news.start,
        found_at=news.found_at,
        highlight=_marked(news.highlight),
    )


def _marked(highlight: str) -> Markup:
    """Escaped text with <mark> around matches (models/search/base.py, Hit.highlight),
    made safe whatever else it holds: every part but the marks is read as text."""
    parts = MARK.split(highlight or "")
    return Markup("").join(
        Markup(part) if MARK.fullmatch(part) else escape(html.unescape(part)) for part in parts
    )
