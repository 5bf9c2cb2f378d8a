"""The subscription endpoints under repetition (issue 26): a second plan checkout over
HTTP is refused in the contract's format, and one signed event for a subscription
nobody knows, delivered again and again, is applied once and ends."""

from __future__ import annotations

from models.tables import PaymentEvent
from tests.factories import make_user, sign_in
from tests.fixtures import drain, take_messages
from tests.web.api.test_subscription_outbox import deliver


def unknown_subscription_event():
    return {
        "id": "evt_unknown_subscription",
        "object": "event",
        "type": "customer.subscription.updated",
        "data": {"object": {"id": "sub_nobody_knows", "object": "subscription"}},
    }


def test_a_second_checkout_for_another_plan_answers_409_checkout_open(client):
    sign_in(client, make_user())
    assert client.post("/api/billing/checkout", json={"plan": "plus"}).status_code == 200

    response = client.post("/api/billing/checkout", json={"plan": "pro"})

    assert response.status_code == 409
    error = response.get_json()["error"]
    assert error["code"] == "checkout_open"
    assert "checkout" in error["message"]


def test_a_redelivered_event_is_queued_once(client, stub_broker):
    payload = unknown_subscription_event()

    answers = [deliver(client, payload).status_code for _ in range(20)]

    assert set(answers) == {200}
    assert len(take_messages(stub_broker, "billing")) == 1


def test_an_event_for_an_unknown_subscription_is_applied_once_and_ends(
    client, stub_broker, stub_worker
):
    payload = unknown_subscription_event()
    for _ in range(20):
        deliver(client, payload)

    drain(stub_broker, stub_worker)

    assert PaymentEvent.get(PaymentEvent.id == payload["id"]).processed_at is not None
    assert stub_broker.dead_letters == []
    assert take_messages(stub_broker, "billing") == []  # no retry waits
