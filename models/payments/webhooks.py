"""Webhook signatures (the provider's documented scheme, verified with its SDK) and
the record of events already received."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import stripe

from models.clock import now_iso
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


def verify(payload: bytes, signature_header: str | None, secrets: tuple[str, ...]) -> dict:
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
        if not isinstance(event, dict) or not _usable_id(event.get("id")):
            raise WebhookSignatureInvalid("signed body is not an event")
        return event
    raise WebhookSignatureInvalid("signature matches no secret, or is too old")


def _usable_id(value) -> bool:
    # PostgreSQL refuses NUL in text; a real event id is about 30 characters.
    return isinstance(value, str) and 0 < len(value) <= 255 and "\x00" not in value


def record_event(event: dict, endpoint: str, *, processed: bool = False) -> bool:
    """Store the event id for this endpoint; False when it was received before.
    `processed`: the caller applies the event in this same transaction.

    One INSERT ... ON CONFLICT DO NOTHING: two deliveries at once cannot both be new.
    """
    query = PaymentEvent.insert(
        id=event["id"],
        endpoint=endpoint,
        type=str(event.get("type", "")).replace("\x00", "")[:200],
        processed_at=now_iso() if processed else None,
    ).on_conflict_ignore()
    return db.execute(query).rowcount == 1
