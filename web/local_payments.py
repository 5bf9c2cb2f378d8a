"""The local payment provider's checkout page (PAYMENT_BACKEND=local only).

It stands in for the provider's own hosted page, so its posts need no CSRF token, as
the real page's would not be ours to protect. Besides Pay and Cancel, a one-time
checkout offers konbini (paid later): the page then waits for the tester to settle
the payment or let it lapse, standing in for the buyer at the convenience store.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template

from models.payments import PaymentNotFound, PaymentRejected, get_provider
from tasks.payments import send_local_events

bp = Blueprint("local_payments", __name__, url_prefix="/_local-payments")

ZERO_DECIMAL = {"jpy", "krw", "vnd", "clp", "pyg", "ugx", "xaf", "xof"}


def money(amount: int, currency: str) -> str:
    if currency.lower() in ZERO_DECIMAL:
        symbol = "¥" if currency.lower() == "jpy" else ""
        return f"{symbol}{amount:,} {currency.upper()}"
    return f"{amount / 100:,.2f} {currency.upper()}"


@bp.get("/checkout/<session_id>")
def checkout(session_id):
    provider = get_provider()
    try:
        row = provider.checkout(session_id)
    except PaymentNotFound:
        return render_template("error.html", status=404, message="決済が見つかりません。"), 404
    lines = provider.checkout_lines(row)
    return render_template(
        "local_payments/checkout.html",
        session=row,
        state=provider.payment_state(row),
        lines=lines,
        money=money,
        total=money(row.amount_total, row.currency),
    )


def _act(session_id, action, then, **options):
    """Act on a session, queue the events it produced, and go where the buyer returns:
    the session's `then` URL, or back to this page (`then="page"`)."""
    provider = get_provider()
    try:
        events = getattr(provider, action)(session_id, **options)
    except PaymentNotFound:
        return render_template("error.html", status=404, message="決済が見つかりません。"), 404
    except PaymentRejected as error:
        return render_template("error.html", status=409, message=str(error)), 409
    send_local_events(events)
    if then == "page":
        return redirect(provider.get_checkout_session(session_id).url, code=303)
    return redirect(getattr(provider.checkout(session_id), then), code=303)


@bp.post("/checkout/<session_id>/complete")
def complete(session_id):
    return _act(session_id, "complete", "success_url")


@bp.post("/checkout/<session_id>/cancel")
def cancel(session_id):
    return _act(session_id, "cancel", "cancel_url")


@bp.post("/checkout/<session_id>/konbini")
def konbini(session_id):
    """Complete the checkout unpaid; this page then waits for the money."""
    return _act(session_id, "complete", "page", method="konbini")


@bp.post("/checkout/<session_id>/settle")
def settle(session_id):
    return _act(session_id, "settle", "page")


@bp.post("/checkout/<session_id>/fail")
def fail(session_id):
    return _act(session_id, "fail", "page")


def init_app(app, csrf):
    app.register_blueprint(bp)
    csrf.exempt(bp)
