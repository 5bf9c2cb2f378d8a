"""The subscription webhook as a transactional outbox: the verified event is stored with
its payload before anything is queued, and a message the queue loses is sent again,
so a paying user always gets the plan and credits, exactly once."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from models import outbox, redis_client
from models.clock import utcnow
from models.payments import webhooks
from models.referrals import claim_referral
from models.tables import OutboxMessage, PaymentEvent, User
from tasks.billing import process_subscription_event
from tests.factories import make_user
from tests.fixtures import drain, take_messages
from tests.models.test_subscription_events import complete_subscription

SUBSCRIPTION = "/api/auth/payment/webhook"


def completion_event(user, price="price_local_plus"):
    """A paid subscription at the local provider, and the completion event it sends."""
    events = complete_subscription(user, price)
    # These tests deliver the event themselves, not through the provider's outbox.
    OutboxMessage.delete().execute()
    return next(e.payload for e in events if e.type == "checkout.session.completed")


def deliver(client, payload):
    body = json.dumps(payload).encode()
    return client.post(
        SUBSCRIPTION,
        data=body,
        headers={
            "Content-Type": "application/json",
            webhooks.SIGNATURE_HEADER: webhooks.sign(body, "whsec_test_one"),
        },
    )


def credits_of(user):
    fresh = User.get_by_id(user.id)
    return fresh.credit_balance, fresh.bonus_credit


@pytest.fixture
def referred_user():
    referrer = make_user()
    user = make_user()
    claim_referral(user.id, referrer.referral_code)
    return user, referrer


def test_the_event_is_stored_with_its_payload_before_it_is_applied(client, stub_broker):
    user = make_user()
    payload = completion_event(user)

    assert deliver(client, payload).status_code == 200

    row = PaymentEvent.get(PaymentEvent.id == payload["id"])
    assert json.loads(row.payload) == payload
    assert row.processed_at is None
    assert [m["args"] for m in take_messages(stub_broker, "billing")] == [[payload["id"]]]


def test_the_worker_applies_the_stored_event_and_marks_it_processed(
    client, stub_broker, stub_worker, referred_user
):
    user, referrer = referred_user
    payload = completion_event(user)

    deliver(client, payload)
    drain(stub_broker, stub_worker)

    assert credits_of(user) == (500, 100)
    assert credits_of(referrer) == (50, 100)
    assert PaymentEvent.get(PaymentEvent.id == payload["id"]).processed_at is not None


def test_a_lost_message_and_a_redelivery_give_the_plan_and_credits_exactly_once(
    client, stub_broker, stub_worker, referred_user, redis_client
):
    """The worker is paused, Redis loses the queued message, the provider redelivers."""
    user, referrer = referred_user
    payload = completion_event(user)
    stub_worker.pause()
    deliver(client, payload)
    # The message is gone, as after a Redis restart without data: the queue and every key
    stub_broker.flush_all()
    redis_client.flushdb()

    again = deliver(client, payload)
    assert again.status_code == 200
    assert again.get_json()["duplicate"] is True
    stub_worker.resume()
    drain(stub_broker, stub_worker)

    assert credits_of(user) == (500, 100)
    assert credits_of(referrer) == (50, 100)
    deliver(client, payload)  # once processed, a redelivery queues nothing
    assert take_messages(stub_broker, "billing") == []
    assert credits_of(user) == (500, 100)


def test_a_queue_that_is_down_loses_nothing_and_the_redrive_sends_it(
    client, stub_broker, stub_worker, monkeypatch
):
    user = make_user()
    payload = completion_event(user, "price_local_pro")

    def down(*_args, **_kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(process_subscription_event, "send_with_options", down)
    assert deliver(client, payload).status_code == 200  # stored: nothing to retry
    monkeypatch.undo()
    redis_client.reset()  # Redis is back
    drain(stub_broker, stub_worker)
    assert credits_of(user) == (50, 0)

    assert outbox.redrive(now=utcnow() + timedelta(minutes=2, seconds=1)).events == 1
    drain(stub_broker, stub_worker)
    assert credits_of(user) == (2000, 0)


def test_the_redrive_waits_two_minutes_then_backs_off(client, stub_broker):
    user = make_user()
    payload = completion_event(user)
    deliver(client, payload)
    take_messages(stub_broker, "billing")  # lost
    now = utcnow()

    assert outbox.redrive(now=now + timedelta(minutes=1)).events == 0
    assert outbox.redrive(now=now + timedelta(minutes=2, seconds=1)).events == 1
    assert outbox.redrive(now=now + timedelta(minutes=3)).events == 0  # sent a minute ago
    assert outbox.redrive(now=now + timedelta(minutes=6, seconds=2)).events == 1
    assert len(take_messages(stub_broker, "billing")) == 2


def test_an_event_that_asks_nothing_is_stored_as_processed(client, stub_broker):
    payload = {
        "id": "evt_expired_1",
        "object": "event",
        "type": "checkout.session.expired",
        "data": {"object": {"mode": "subscription"}},
    }
    assert deliver(client, payload).status_code == 200
    assert PaymentEvent.get(PaymentEvent.id == "evt_expired_1").processed_at is not None
    assert take_messages(stub_broker, "billing") == []
    assert outbox.waiting().count == 0


def test_waiting_counts_unprocessed_work_and_the_oldest_age(client, stub_broker):
    user = make_user()
    deliver(client, completion_event(user))
    waiting = outbox.waiting(now=utcnow() + timedelta(minutes=5))
    assert waiting.count == 1
    assert 299 <= waiting.oldest_seconds <= 301
