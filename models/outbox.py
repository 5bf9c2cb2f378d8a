"""The transactional outbox (docs/operating.md, Faults and recovery): work whose loss
would cost money or a promise is written to the database in the transaction that makes
it necessary, sent to the queue after commit, and sent again by `redrive()` until its
actor has run.

Two kinds of rows wait here:
- verified webhook events (`payment_events` with a payload), applied by the actor
  named for their endpoint, which sets `processed_at` in the transaction that
  applies them;
- `outbox_messages`: any actor with its arguments, marked processed by the
  `OutboxAck` worker middleware when the actor returns.

Redis may lose a message (a restart without its data, eviction, a flush); the
database does not. Actors fed from here are safe to run twice, because a redrive
may cross a delivery that was only slow.

The queue itself is not known here: a process's queue set-up (`workers.broker.setup`)
installs its `Sender` once with `use_sender`. It is installed rather than passed in
because the rows are sent from deep in the domain (a duplicate charge, a local
payment event), from the web and from the scheduler, none of which holds the queue;
each send still goes through `redis_client.handed_over`, the one rule for Redis being
down.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from peewee import Expression

from models import redis_client
from models.clock import iso, now_iso, parse_iso, utcnow
from models.db import db
from models.tables import OutboxMessage, PaymentEvent

log = logging.getLogger(__name__)

# The message options naming the outbox row, or the stored event, a message is for.
OPTION = "outbox_id"
EVENT_OPTION = "outbox_event"
# A row still unprocessed this long after it was written is sent again...
REDRIVE_AFTER = timedelta(minutes=2)
# ...and again after 2, 4, 8... minutes, at most hourly, while it stays unprocessed.
# A message that a worker is still retrying touches its row on every attempt, so the
# redrive leaves it alone once the interval passes Dramatiq's own backoff: repeats
# stay few however long an outage lasts.
REDRIVE_MAX_INTERVAL = timedelta(hours=1)
REDRIVE_BATCH = 500

# The actor that applies a stored event, per webhook endpoint. Endpoints not listed
# apply their events in the request that receives them (the ad checkout).
EVENT_ACTORS = {"subscription": "process_subscription_event"}


class Sender(Protocol):
    """Puts a message for the actor named `actor_name` on the queue, or raises."""

    def __call__(self, actor_name: str, args: tuple[Any, ...], options: dict[str, Any]) -> None: ...


class QueueNotSetUp(RuntimeError):
    """A row was sent before the process's queue set-up installed its Sender."""


_sender: Sender | None = None


def use_sender(sender: Sender) -> None:
    """Send through `sender` from now on (the process's queue set-up calls this once)."""
    global _sender
    _sender = sender


def _installed_sender() -> Sender:
    if _sender is None:
        raise QueueNotSetUp("no queue to send to: the process calls tasks.setup() first")
    return _sender


# -- messages ---------------------------------------------------------------------------


def add(actor: str, *args: object) -> str:
    """Write a message for `actor` in the caller's transaction; `send` it after commit."""
    message_id = str(uuid.uuid4())
    OutboxMessage.insert(
        id=message_id, actor=actor, args=json.dumps(list(args), ensure_ascii=False)
    ).execute()
    return message_id


def send(message_id: str) -> bool:
    """Send one outbox message now. False when it is already processed, or the queue
    is unavailable (the row waits for `redrive`): the caller has nothing to undo."""
    row = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
    if row is None or row.processed_at is not None:
        return False
    return _send_message(row)


def _send_message(row: OutboxMessage) -> bool:
    sender = _installed_sender()

    def send() -> bool:
        sender(row.actor, tuple(json.loads(row.args)), {OPTION: row.id})
        return True

    if not redis_client.handed_over(
        send, f"outbox message {row.id} ({row.actor}) not sent; it waits"
    ):
        return False
    _mark_sent(OutboxMessage, OutboxMessage.id == row.id)
    return True


def touch(message_id: str) -> None:
    """A worker is attempting the message now: it is not lost (see REDRIVE_MAX_INTERVAL)."""
    OutboxMessage.update(sent_at=now_iso()).where(
        (OutboxMessage.id == message_id) & OutboxMessage.processed_at.is_null()
    ).execute()


def touch_event(endpoint: str, event_id: str) -> None:
    PaymentEvent.update(sent_at=now_iso()).where(
        _event_key(endpoint, event_id) & PaymentEvent.processed_at.is_null()
    ).execute()


def mark_processed(message_id: str) -> bool:
    """The message's actor has run; False when it was marked already."""
    return bool(
        OutboxMessage.update(processed_at=now_iso())
        .where((OutboxMessage.id == message_id) & OutboxMessage.processed_at.is_null())
        .execute()
    )


# -- webhook events ---------------------------------------------------------------------


@dataclass(frozen=True)
class Receipt:
    new: bool  # first delivery of this event id to this endpoint
    pending: bool  # still waiting to be applied


def receive_event(
    endpoint: str, event_id: str, event_type: str, payload: str, *, needs_work: bool
) -> Receipt:
    """Store a verified event once per endpoint, with its payload; an event that asks
    nothing of us is stored as processed. One INSERT ... ON CONFLICT DO NOTHING, so two
    deliveries at once cannot both be new."""
    now = now_iso()
    query = PaymentEvent.insert(
        id=event_id,
        endpoint=endpoint,
        type=event_type[:200],
        payload=payload,
        created_at=now,
        processed_at=None if needs_work else now,
    ).on_conflict_ignore()
    if db.execute(query).rowcount == 1:
        return Receipt(new=True, pending=needs_work)
    row = PaymentEvent.get(_event_key(endpoint, event_id))
    return Receipt(new=False, pending=row.processed_at is None)


# A stored event's message is waiting in Redis: a marker in the same Redis, so a Redis
# that loses the queue loses the marker too. A redelivery queues the event again only
# without it (twenty deliveries of one event queued twenty messages before).
QUEUED_MARKER = "subsearch:event-queued:{endpoint}:{event_id}"


def send_event(endpoint: str, event_id: str, *, unless_queued: bool = False) -> bool:
    """Send a stored event to its actor now; False when the queue is unavailable (the
    event waits for `redrive`), or, `unless_queued`, when its message still waits in
    Redis (a redelivery)."""
    marker = QUEUED_MARKER.format(endpoint=endpoint, event_id=event_id)
    sender = _installed_sender()

    def send() -> bool:
        fresh = redis_client.get_redis().set(
            marker, "1", nx=True, ex=int(REDRIVE_MAX_INTERVAL.total_seconds())
        )
        if unless_queued and not fresh:
            return False
        sender(EVENT_ACTORS[endpoint], (event_id,), {EVENT_OPTION: [endpoint, event_id]})
        return True

    if not redis_client.handed_over(send, f"event {event_id} ({endpoint}) not sent; it waits"):
        return False
    _mark_sent(PaymentEvent, _event_key(endpoint, event_id))
    return True


def stored_event(endpoint: str, event_id: str) -> dict[str, Any] | None:
    """The payload of a stored event still waiting to be applied, else None."""
    row = PaymentEvent.get_or_none(_event_key(endpoint, event_id))
    if row is None or row.processed_at is not None or not row.payload:
        return None
    payload: dict[str, Any] = json.loads(row.payload)
    return payload


def mark_event_processed(endpoint: str, event_id: str) -> bool:
    """Call in the transaction that applies the event; False when it was applied already."""
    return bool(
        PaymentEvent.update(processed_at=now_iso())
        .where(_event_key(endpoint, event_id) & PaymentEvent.processed_at.is_null())
        .execute()
    )


def _event_key(endpoint: str, event_id: str) -> Expression:
    return (PaymentEvent.id == event_id) & (PaymentEvent.endpoint == endpoint)


def _waiting_events() -> Expression:
    return PaymentEvent.processed_at.is_null() & PaymentEvent.endpoint.in_(list(EVENT_ACTORS))


# -- redrive ----------------------------------------------------------------------------


def _mark_sent(model: type[OutboxMessage | PaymentEvent], where: Expression) -> None:
    model.update(sent_at=now_iso(), send_count=model.send_count + 1).where(where).execute()


def _due(row: OutboxMessage | PaymentEvent, now: datetime) -> bool:
    """Written over REDRIVE_AFTER ago, and not sent within its backoff."""
    if row.sent_at is None:
        return True
    backoff: timedelta = min(REDRIVE_AFTER * 2 ** max(row.send_count - 1, 0), REDRIVE_MAX_INTERVAL)
    return parse_iso(row.sent_at) <= now - backoff


@dataclass(frozen=True)
class Redriven:
    events: int
    messages: int


def redrive(now: datetime | None = None) -> Redriven:
    """Send again every event and message still unprocessed REDRIVE_AFTER after it was
    written (with a growing interval between repeats). Safe to run at any time."""
    now = now or utcnow()
    cutoff = iso(now - REDRIVE_AFTER)
    events = messages = 0
    # Each batch is read whole before anything is written: on SQLite a write made while
    # this connection's read is still open cannot take the write lock once another
    # connection has committed since the read began ("database is locked", at once).
    waiting_events = list(
        PaymentEvent.select()
        .where(_waiting_events() & (PaymentEvent.created_at <= cutoff))
        .order_by(PaymentEvent.created_at)
        .limit(REDRIVE_BATCH)
    )
    for event in waiting_events:
        if _due(event, now) and send_event(event.endpoint, event.id):
            events += 1
    waiting_messages = list(
        OutboxMessage.select()
        .where(OutboxMessage.processed_at.is_null() & (OutboxMessage.created_at <= cutoff))
        .order_by(OutboxMessage.created_at)
        .limit(REDRIVE_BATCH)
    )
    for message in waiting_messages:
        if _due(message, now) and _send_message(message):
            messages += 1
    if events or messages:
        log.warning(
            "redrove %d event(s) and %d message(s) unprocessed after 2 min", events, messages
        )
    return Redriven(events=events, messages=messages)


@dataclass(frozen=True)
class Waiting:
    count: int
    oldest_seconds: float | None


def waiting(now: datetime | None = None) -> Waiting:
    """How much waits to be processed, and the age of the oldest, for operators."""
    now = now or utcnow()
    oldest: list[datetime] = []
    count = 0
    for model, where in (
        (PaymentEvent, _waiting_events()),
        (OutboxMessage, OutboxMessage.processed_at.is_null()),
    ):
        count += model.select().where(where).count()
        first = model.select(model.created_at).where(where).order_by(model.created_at).first()
        if first is not None:
            oldest.append(parse_iso(first.created_at))
    return Waiting(
        count=count,
        oldest_seconds=(now - min(oldest)).total_seconds() if oldest else None,
    )
