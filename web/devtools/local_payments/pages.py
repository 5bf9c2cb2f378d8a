"""The local payment provider's checkout and billing portal pages (PAYMENT_BACKEND=local
only).

It stands in for the provider's own hosted page, so its posts need no CSRF token, as
the real page's would not be ours to protect. Besides Pay and Cancel, a one-time
checkout offers konbini (paid later): the page then waits for the tester to settle
the payment or let it lapse, standing in for the buyer at the convenience store.

The portal changes the customer's subscription as the provider's portal is configured
to (docs/accounts.md, Managing the subscription): plus <-> pro (a dearer plan at once,
a cheaper one at the period end), cancel at the period end, resume; and lets the tester
end the billing period, standing in for the calendar.

An invoice the provider issued (a qualified invoice, 適格請求書) has a printable page of
its own, as the provider's hosted invoice does, found by its unguessable id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from flask import Blueprint, Flask, redirect, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFProtect

from models.invoices import TaxLine
from models.payments import (
    PaymentError,
    PaymentNotFound,
    PaymentRejected,
    get_provider,
    plan_for_price,
    plan_price_id,
)
from models.plans import PLAN_LIMITS
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.events import LocalEvent
from web.devtools.local_payments.events import send as send_events
from web.i18n import country_name, day, plan_label, slot_label
from web.i18n import price as format_price

bp = Blueprint("local_payments", __name__, url_prefix="/_local-payments")


def line_label(price_id: str, metadata: Mapping[str, str]) -> str:
    """What a checkout line buys, as a person says it, never the price's id: the plan,
    or the ad's slot, country and first month from the checkout's metadata."""
    plan = plan_for_price(price_id)
    if plan:
        return str(_("%(plan)s plan", plan=plan_label(plan)))
    if metadata.get("ad_reservation_id") and metadata.get("slot"):
        return str(
            _(
                "Ad position: %(slot)s, %(country)s, from %(month)s (price per month)",
                slot=slot_label(metadata.get("slot")),
                country=country_name(metadata.get("country")),
                month=day(metadata.get("start_month")),
            )
        )
    if metadata.get("ad_reservation_id"):
        return str(_("Ad position, 1 month"))
    return str(_("Item"))


def local_provider() -> LocalProvider:
    """The local provider: these pages are only served while it is the configured one."""
    provider = get_provider()
    if not isinstance(provider, LocalProvider):
        raise PaymentError("the local payment pages need PAYMENT_BACKEND=local")
    return provider


@bp.get("/checkout/<session_id>")
def checkout(session_id: str) -> ResponseReturnValue:
    provider = local_provider()
    try:
        row = provider.checkout(session_id)
    except PaymentNotFound:
        return render_template(
            "error.html", status=404, message=_("This checkout does not exist.")
        ), 404
    lines = provider.checkout_lines(row)
    return render_template(
        "local_payments/checkout.html",
        session=row,
        state=provider.payment_state(row),
        lines=lines,
        line_label=line_label,
        total=format_price(row.amount_total, row.currency),
    )


def _act(
    session_id: str,
    action: Callable[[LocalProvider], Iterable[LocalEvent]],
    then: Callable[[LocalProvider], str | None],
) -> ResponseReturnValue:
    """Act on a session, queue the events it produced, and go where the buyer returns
    (`then`: the session's success or cancel URL, or this page)."""
    provider = local_provider()
    try:
        events = list(action(provider))
    except PaymentNotFound:
        return render_template(
            "error.html", status=404, message=_("This checkout does not exist.")
        ), 404
    except PaymentRejected as error:
        return _refused(error)
    send_events(events)
    return redirect(then(provider) or _page_url(provider, session_id), code=303)


def _page_url(provider: LocalProvider, session_id: str) -> str:
    return f"{provider.public_base_url}/_local-payments/checkout/{session_id}"


def _page(session_id: str) -> Callable[[LocalProvider], str | None]:
    return lambda provider: _page_url(provider, session_id)


@bp.post("/checkout/<session_id>/complete")
def complete(session_id: str) -> ResponseReturnValue:
    return _act(
        session_id,
        lambda provider: provider.complete(session_id),
        lambda provider: provider.checkout(session_id).success_url,
    )


@bp.post("/checkout/<session_id>/cancel")
def cancel(session_id: str) -> ResponseReturnValue:
    return _act(
        session_id,
        lambda provider: provider.cancel(session_id),
        lambda provider: provider.checkout(session_id).cancel_url,
    )


@bp.post("/checkout/<session_id>/konbini")
def konbini(session_id: str) -> ResponseReturnValue:
    """Complete the checkout unpaid; this page then waits for the money."""
    return _act(
        session_id,
        lambda provider: provider.complete(session_id, method="konbini"),
        _page(session_id),
    )


@bp.post("/checkout/<session_id>/settle")
def settle(session_id: str) -> ResponseReturnValue:
    return _act(session_id, lambda provider: provider.settle(session_id), _page(session_id))


@bp.post("/checkout/<session_id>/fail")
def fail(session_id: str) -> ResponseReturnValue:
    return _act(session_id, lambda provider: provider.fail(session_id), _page(session_id))


PLANS = ("plus", "pro")


def _date(unix: int) -> str:
    return day(datetime.fromtimestamp(unix, UTC).date())


def _not_found() -> ResponseReturnValue:
    return render_template(
        "error.html", status=404, message=_("This subscription portal does not exist.")
    ), 404


def _refused(error: PaymentRejected) -> ResponseReturnValue:
    """The provider said no: the reader's sentence, the provider's words as small print."""
    return render_template(
        "error.html",
        status=409,
        message=_("The payment provider refused this. Reload the page and try again."),
        detail=str(error),
    ), 409


@bp.get("/portal/<portal_id>")
def portal(portal_id: str) -> ResponseReturnValue:
    provider = local_provider()
    try:
        session = provider.portal(portal_id)
        rows = provider.portal_subscriptions(portal_id)
    except PaymentNotFound:
        return _not_found()
    offers = []
    for plan in PLANS:
        price_id = plan_price_id(plan)
        if price_id:
            price = provider.get_price(price_id)
            offers.append(
                {
                    "plan": plan,
                    "price": price_id,
                    "amount": price.unit_amount,
                    "currency": price.currency,
                    "credits": PLAN_LIMITS[plan],
                }
            )
    subscriptions = []
    for row in rows:
        price = provider.get_price(row.price_id)
        subscriptions.append(
            {
                "id": row.id,
                "plan": plan_for_price(row.price_id),
                "price": format_price(price.unit_amount, price.currency, "month"),
                "status": row.status,
                "period_end": _date(row.current_period_end),
                "cancel_at_period_end": bool(row.cancel_at_period_end),
                "scheduled_plan": plan_for_price(row.scheduled_price_id)
                if row.scheduled_price_id
                else None,
                "amount": price.unit_amount,
            }
        )
    return render_template(
        "local_payments/portal.html",
        session=session,
        subscriptions=subscriptions,
        offers=offers,
    )


def _act_in_portal(
    portal_id: str, action: Callable[[LocalProvider, str], Iterable[LocalEvent]]
) -> ResponseReturnValue:
    """Act on one of the portal's subscriptions (the form's `subscription`), queue the
    events it produced, and come back to the portal page."""
    provider = local_provider()
    try:
        row = provider.portal_subscription(portal_id, request.form.get("subscription", ""))
        events = list(action(provider, row.id))
    except PaymentNotFound:
        return _not_found()
    except PaymentRejected as error:
        return _refused(error)
    send_events(events)
    return redirect(f"{provider.public_base_url}/_local-payments/portal/{portal_id}", code=303)


@bp.post("/portal/<portal_id>/plan")
def portal_change_plan(portal_id: str) -> ResponseReturnValue:
    price_id = plan_price_id(request.form.get("plan", ""))
    if request.form.get("plan") not in PLANS or not price_id:
        return render_template("error.html", status=400, message=_("Choose a plan.")), 400
    return _act_in_portal(portal_id, lambda provider, row: provider.change_plan(row, price_id))


@bp.post("/portal/<portal_id>/cancel")
def portal_cancel(portal_id: str) -> ResponseReturnValue:
    return _act_in_portal(
        portal_id, lambda provider, row: provider.set_cancel_at_period_end(row, True)
    )


@bp.post("/portal/<portal_id>/resume")
def portal_resume(portal_id: str) -> ResponseReturnValue:
    return _act_in_portal(
        portal_id, lambda provider, row: provider.set_cancel_at_period_end(row, False)
    )


@bp.post("/portal/<portal_id>/end-period")
def portal_end_period(portal_id: str) -> ResponseReturnValue:
    return _act_in_portal(portal_id, lambda provider, row: provider.end_period(row))


JAPAN = ZoneInfo("Asia/Tokyo")


@bp.get("/invoices/<invoice_id>")
def invoice(invoice_id: str) -> ResponseReturnValue:
    """The invoice as the buyer prints it: issuer and registration number, buyer, what was
    bought, the 10% total and its tax (docs/payments.md, Receipts). Dates are Japan's."""
    provider = local_provider()
    try:
        row = provider.invoice(invoice_id)
    except PaymentNotFound:
        return render_template(
            "error.html", status=404, message=_("This invoice does not exist.")
        ), 404
    period = None
    if row.period_start is not None and row.period_end is not None:
        period = (_japan_day(row.period_start), _japan_day(row.period_end))
    return render_template(
        "local_payments/invoice.html",
        invoice=row,
        issued=_japan_day(row.issued_at),
        period=period,
        tax=TaxLine(row.amount, row.currency),
        # An ad is bought by a business (御中), a plan by a person (様).
        honorific="御中" if row.checkout_session_id else "様",
    )


def _japan_day(unix: int) -> str:
    return day(datetime.fromtimestamp(unix, JAPAN).date())


def init_app(app: Flask, csrf: CSRFProtect) -> None:
    app.register_blueprint(bp)
    csrf.exempt(bp)
