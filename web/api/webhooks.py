"""The payment provider's webhooks: signature checked against every configured secret,
event ids recorded so a redelivery is recognised, work handed on."""

from __future__ import annotations

import logging

from flask import jsonify, request

from models import counters
from models.ad_checkout import apply_ad_checkout_event
from models.billing import subscription_work
from models.payments import WebhookSignatureInvalid, get_provider, webhooks
from web.api import accepts_any_body, bp
from web.errors import error_response

log = logging.getLogger(__name__)

SUBSCRIPTION_ENDPOINT = "subscription"


def _verified_event() -> dict:
    return get_provider().verify_webhook(
        request.get_data(cache=False), request.headers.get(webhooks.SIGNATURE_HEADER)
    )


@bp.post("/webhooks/payment/ad-checkout")
def ad_checkout_webhook():
    """Always 200, so the provider stops retrying; failures are logged and counted."""
    try:
        outcome = apply_ad_checkout_event(_verified_event())
    except WebhookSignatureInvalid as error:
        outcome = "bad_signature"
        log.warning("ad checkout webhook: %s", error)
    except Exception:
        outcome = "error"
        log.exception("ad checkout webhook failed")
    if outcome not in ("paid", "already_paid"):
        log.info("ad checkout webhook: %s", outcome)
    counters.count("ad_checkout_webhook", outcome)
    return jsonify(received=True)


@bp.post("/auth/payment/webhook")
def subscription_webhook():
    from tasks.billing import handle_subscription_event

    try:
        event = _verified_event()
    except WebhookSignatureInvalid as error:
        log.warning("subscription webhook: %s", error)
        return error_response(400, "invalid_request", "The webhook signature is not valid.")
    if not webhooks.record_event(event, SUBSCRIPTION_ENDPOINT):
        return jsonify(received=True, duplicate=True)
    work = subscription_work(event)
    if work is not None:
        try:
            handle_subscription_event.send(*work)
        except Exception:
            # Not handed on: forget the event so the provider's retry is new to us.
            webhooks.forget_event(event, SUBSCRIPTION_ENDPOINT)
            log.exception("could not enqueue subscription event %s", event["id"])
            return error_response(503, "unavailable", "Try again later.")
    return jsonify(received=True)


accepts_any_body("api.ad_checkout_webhook")
accepts_any_body("api.subscription_webhook")
