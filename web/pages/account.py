"""The member's account page: plan and credits, the plans with their prices
(models/plan_prices.py), the subscription and its receipts, referrals, history,
favourites and the reader's time zone."""

from __future__ import annotations

import logging
from datetime import datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from flask import render_template, request

from models import library
from models.billing import open_plan_checkout, subscription_summary
from models.payments import PaymentError
from models.plan_prices import plan_offers
from models.plans import PLAN_LIMITS, plan_of
from models.receipts import plan_receipts
from models.referrals import referral_count
from web.auth import login_required
from web.i18n import locale_code, select_timezone
from web.pages.blueprint import bp
from web.urls import history_search_url, public_url
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
        zone_choices=zone_choices(locale_code(), user.time_zone),
    )
