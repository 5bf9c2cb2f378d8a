"""The payment provider's webhooks: signature checked against every configured secret,
event ids recorded so a redelivery is recognised, work handed on."""

from __future__ import annotations

import logging

from flask import Response, jsonify, request

from models import billing, outbox
from models.ads.checkout_events import apply_checkout_event
from models.metrics import HOLD_RELEASES, WEBHOOK_EVENTS
from models.payments import WebhookEvent, WebhookSignatureInvalid, get_provider, webhooks
from web.api.blueprint import accepts_any_body, bp
from web.api.operation import SIGNED, operation
from web.api.schemas.common import ErrorBody
from web.api.schemas.system import ProviderEvent, Received
from web.errors import error_response

log = logging.getLogger(__name__)

AD_CHECKOUT = "ad-checkout"
SUBSCRIPTION = "subscription"


def _outcome(endpoint: str, outcome: str) -> None:
    WEBHOOK_EVENTS.labels(endpoint=endpoint, outcome=outcome).inc()


def _verified_event() -> WebhookEvent:
    return get_provider().verify_webhook(
        request.get_data(cache=False), request.headers.get(webhooks.SIGNATURE_HEADER)
    )


@bp.post("/webhooks/payment/ad-checkout")
@operation(
    "The payment provider's ad checkout events",
    body=ProviderEvent,
    body_kind=SIGNED,
    responses={200: Received, 500: ErrorBody},
    tags=("webhooks",),
)
def ad_checkout_webhook() -> Response | tuple[Response, int]:
    """200 when there is nothing (more) to do, bad signatures and unusable events
    included, so the provider stops sending (spec); 500 when a verified event could not
    be applied, so it sends it again (docs/payments.md). Outcomes are logged and
    counted."""
    try:
        event = _verified_event()
        outcome = apply_checkout_event(event)
    except WebhookSignatureInvalid as error:
        log.warning("ad checkout webhook: %s", error)
        _outcome(AD_CHECKOUT, "bad_signature")
        return jsonify(received=True)
    except Exception:
        # Nothing was written (the event's record shares the write's transaction).
        log.exception("ad checkout webhook failed; the provider will send it again")
        _outcome(AD_CHECKOUT, "error")
        return error_response(
            500, "internal_error", "The event could not be applied; send it again."
        )
    if outcome not in ("paid", "already_paid"):
        log.info("ad checkout webhook: %s (event %s)", outcome, event.id)
    _outcome(AD_CHECKOUT, outcome)
    if outcome == "hold_released":
        HOLD_RELEASES.labels(source="webhook").inc()
    return jsonify(received=True)


@bp.post("/auth/payment/webhook")
@operation(
    "The payment provider's subscription events",
    body=ProviderEvent,
    body_kind=SIGNED,
    responses={200: Received},
    tags=("webhooks",),
)
def subscription_webhook() -> Response | tuple[Response, int]:
    """Store the verified event (the outbox), then hand it to the worker. A queue that
    cannot take it now loses nothing: the stored event is sent again until applied."""
    try:
        payload = request.get_data(cache=True)
        event = _verified_event()
    except WebhookSignatureInvalid as error:
        log.warning("subscription webhook: %s", error)
        _outcome(SUBSCRIPTION, "bad_signature")
        return error_response(400, "invalid_request", "The webhook signature is not valid.")
    receipt = billing.receive_webhook_event(event, payload.decode("utf-8"))
    if receipt.pending:
        # Through the outbox, not workers.sending: the event is stored, so with the queue
        # down it waits and the redrive sends it (docs/operating.md, Faults and
        # recovery). A redelivery sends it again only when Redis no longer holds its
        # message (lost with the queue); twenty deliveries while it waits queue one
        # message.
        outbox.send_event(billing.EVENT_ENDPOINT, event.id, unless_queued=True)
    if not receipt.new:
        _outcome(SUBSCRIPTION, "duplicate")
        return jsonify(received=True, duplicate=True)
    _outcome(SUBSCRIPTION, "stored")
    return jsonify(received=True)


accepts_any_body("api.ad_checkout_webhook")
accepts_any_body("api.subscription_webhook")
