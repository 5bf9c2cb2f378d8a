"""The local provider's own work on the queue: delivering its signed events to this
service's webhook endpoints (as the real provider's servers would), and its clock,
which expires abandoned checkouts and ends billing periods. The actors keep the names
queued messages and the schedule (scheduler/schedule.py) know them by."""

from __future__ import annotations

import logging

import requests

from models.payments import get_provider
from models.settings import get_settings
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.events import send, signed_delivery
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


@actor(queue_name="payments", max_retries=3)
def expire_local_checkouts() -> None:
    """The local provider's clock: expire checkouts past their time and end the periods
    of subscriptions past theirs (renew, or end a cancelled one), and announce it. A
    rerun finds none left. With another provider configured it has nothing to do."""
    provider = get_provider()
    if not isinstance(provider, LocalProvider):
        return
    send(provider.expire_due())
    send(provider.end_due_periods())
