"""The local payment provider's side of things: delivering its signed events to this
service's webhook endpoints, and expiring its abandoned checkouts."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import requests

from models.payments import get_provider, local_events
from models.payments.local_engine import LocalProvider
from models.payments.local_events import LocalEvent, signed_delivery
from models.settings import get_settings
from workers.actors import actor

log = logging.getLogger(__name__)

# Like the real provider: keep trying for days, backing off up to an hour.
DELIVERY_RETRIES = 60
DELIVERY_MAX_BACKOFF_MS = 60 * 60_000


class DeliveryFailed(Exception):
    pass


@actor(queue_name="payments", max_retries=DELIVERY_RETRIES, max_backoff=DELIVERY_MAX_BACKOFF_MS)
def deliver_local_event(endpoint_path: str, event_body: str) -> None:
    """POST one signed event to one endpoint; retried until it answers 2xx, and sent
    again from the outbox while undelivered. Endpoints recognise a redelivered event id,
    so a second delivery changes nothing."""
    settings = get_settings()
    if not settings.payment_webhook_secrets:
        raise DeliveryFailed("PAYMENT_WEBHOOK_SECRET is not set; events cannot be signed")
    body = event_body.encode()
    url = f"{settings.public_base_url}{endpoint_path}"
    try:
        response = requests.post(
            url,
            data=body,
            headers=signed_delivery(body, settings.payment_webhook_secrets[0]),
            timeout=10,
        )
    except requests.RequestException as error:
        raise DeliveryFailed(f"{url}: {error}") from error
    if not 200 <= response.status_code < 300:
        raise DeliveryFailed(f"{url} answered {response.status_code}")
    log.info("delivered local event to %s", endpoint_path)


def send_local_events(events: Iterable[LocalEvent]) -> None:
    """Queue the deliveries of events already in the outbox (call after commit); one the
    queue cannot take now is sent by the outbox's redrive."""
    local_events.send(events)


@actor(queue_name="payments", max_retries=3)
def expire_local_checkouts() -> None:
    """The local provider's clock: expire checkouts past their time and end the periods
    of subscriptions past theirs (renew, or end a cancelled one), and announce it. A
    rerun finds none left."""
    provider = get_provider()
    if not isinstance(provider, LocalProvider):
        return
    send_local_events(provider.expire_due())
    send_local_events(provider.end_due_periods())
