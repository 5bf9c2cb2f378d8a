"""Webhook signatures: the provider's documented scheme, verified with its SDK. Both
engines verify with it (the local one signs its events the same way), and a verified
body is read into a typed event (models/payments/stripe_events.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import stripe

from models.payments.base import WebhookSignatureInvalid
from models.payments.events import WebhookEvent
from models.payments.stripe_events import parse_event, usable_id

SIGNATURE_HEADER = "Stripe-Signature"
TOLERANCE_SECONDS = stripe.Webhook.DEFAULT_TOLERANCE


def sign(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """The signature header for `payload`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def signed_at(signature_header: str) -> int:
    """The header's `t=` timestamp, read as the SDK reads it (the first `t` item)."""
    for item in signature_header.split(","):
        parts = item.split("=", 2)
        if parts[0] == "t" and len(parts) > 1:
            try:
                return int(parts[1])
            except ValueError:
                break
    raise WebhookSignatureInvalid("the signature header has no timestamp")


def verify(payload: bytes, signature_header: str | None, secrets: tuple[str, ...]) -> WebhookEvent:
    """The event, when the header is signed by any of `secrets` within the tolerance.

    The SDK refuses timestamps older than the tolerance only; one as far in the future
    is refused here too, or a signature made ahead of time would be replayable for as
    long as its signer chose.
    """
    if not signature_header:
        raise WebhookSignatureInvalid("missing signature header")
    if not secrets:
        raise WebhookSignatureInvalid("no webhook secret is configured")
    if not signature_header.isascii():
        # The SDK's constant-time comparison raises TypeError on other characters.
        raise WebhookSignatureInvalid("the signature header is not ASCII")
    if signed_at(signature_header) > time.time() + TOLERANCE_SECONDS:
        raise WebhookSignatureInvalid("the signature's timestamp is in the future")
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
        if not isinstance(event, dict) or usable_id(event.get("id")) is None:
            raise WebhookSignatureInvalid("signed body is not an event")
        return parse_event(event)
    raise WebhookSignatureInvalid("signature matches no secret, or is too old")
