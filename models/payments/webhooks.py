"""Webhook signatures (the provider's documented scheme, verified with its SDK) and
the record of events already received."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import stripe

from models.db import db
from models.payments.base import WebhookSignatureInvalid
from models.tables import PaymentEvent

SIGNATURE_HEADER = "Stripe-Signature"
TOLERANCE_SECONDS = stripe.Webhook.DEFAULT_TOLERANCE


def sign(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """The signature header for `payload`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(payload: bytes, signature_header: str | None, secrets: tuple[str, ...]) -> dict:
    """The event, when the header is signed by any of `secrets` within the tolerance."""
    if not signature_header:
        raise WebhookSignatureInvalid("missing signature header")
    if not secrets:
        raise WebhookSignatureInvalid("no webhook secret is configured")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise WebhookSignatureInvalid("body is not UTF-8") from None
    for secret in secrets:
        try:
            stripe.WebhookSignature.verify_header(
                text, signature_header, secret, tolerance=TOLERANCE_SECONDS
            )
        except stripe.SignatureVerificationError:
            continue
        try:
            event = json.loads(text)
        except ValueError:
            raise WebhookSignatureInvalid("signed body is not JSON") from None
        if not isinstance(event, dict) or not isinstance(event.get("id"), str):
            raise WebhookSignatureInvalid("signed body is not an event")
        return event
    raise WebhookSignatureInvalid("signature matches no secret, or is too old")


def record_event(event: dict, endpoint: str) -> bool:
    """Store the event id for this endpoint; False when it was received before.

    One INSERT ... ON CONFLICT DO NOTHING: two deliveries at once cannot both be new.
    """
    query = PaymentEvent.insert(
        id=event["id"], endpoint=endpoint, type=str(event.get("type", ""))[:200]
    ).on_conflict_ignore()
    return db.execute(query).rowcount == 1


def forget_event(event: dict, endpoint: str) -> None:
    """Undo `record_event` when the event could not be handed on, so a redelivery is new."""
    PaymentEvent.delete().where(
        (PaymentEvent.id == event["id"]) & (PaymentEvent.endpoint == endpoint)
    ).execute()
