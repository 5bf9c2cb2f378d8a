"""Every event the local provider sends has Stripe's shape: each object in it (the
event, the checkout session, the subscription, its item list, item, price and
recurring terms) carries every field Stripe's API schema requires, and the SDK and
our reader parse it as they parse the real provider's.

The required lists are Stripe's OpenAPI spec, `components.schemas.<name>.required`,
in openapi/spec3.json of github.com/stripe/openapi at commit af5309cae53e (2026-07-29),
written out here so that a field the provider starts requiring shows up as a change
to this file, not as a surprise in production.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import stripe

from models.payments import LineItem, UnhandledEvent, webhooks
from models.payments.stripe_events import parse_event
from web.devtools.local_payments.engine import LocalProvider


@dataclass(frozen=True)
class Shape:
    """A schema's required fields, the value its `object` field must hold (None for a
    sub-object without one), and the shapes of nested objects; a nested list field
    applies its shape to each element, a null nested field is not checked."""

    schema: str
    object: str | None
    required: tuple[str, ...]
    nested: dict[str, Shape] = field(default_factory=dict)


RECURRING = Shape("recurring", None, ("interval", "interval_count", "usage_type"))
PRICE = Shape(
    "price",
    "price",
    (
        "active",
        "billing_scheme",
        "created",
        "currency",
        "id",
        "livemode",
        "metadata",
        "object",
        "product",
        "type",
    ),
    {"recurring": RECURRING},
)
SUBSCRIPTION_ITEM = Shape(
    "subscription_item",
    "subscription_item",
    (
        "created",
        "current_period_end",
        "current_period_start",
        "discounts",
        "id",
        "metadata",
        "object",
        "price",
        "subscription",
    ),
    {"price": PRICE},
)
# subscription.properties.items (title SubscriptionItemList)
SUBSCRIPTION_ITEM_LIST = Shape(
    "subscription.items", "list", ("data", "has_more", "object", "url"), {"data": SUBSCRIPTION_ITEM}
)
SUBSCRIPTION = Shape(
    "subscription",
    "subscription",
    (
        "automatic_tax",
        "billing_cycle_anchor",
        "billing_mode",
        "billing_schedules",
        "cancel_at_period_end",
        "collection_method",
        "created",
        "currency",
        "customer",
        "discounts",
        "id",
        "invoice_settings",
        "items",
        "livemode",
        "metadata",
        "object",
        "start_date",
        "status",
    ),
    {
        "automatic_tax": Shape("subscription_automatic_tax", None, ("enabled",)),
        "billing_mode": Shape("subscriptions_resource_billing_mode", None, ("type",)),
        "invoice_settings": Shape(
            "subscriptions_resource_subscription_invoice_settings", None, ("issuer",)
        ),
        "items": SUBSCRIPTION_ITEM_LIST,
    },
)
CHECKOUT_SESSION = Shape(
    "checkout.session",
    "checkout.session",
    (
        "automatic_tax",
        "created",
        "custom_fields",
        "custom_text",
        "expires_at",
        "id",
        "livemode",
        "mode",
        "object",
        "payment_method_types",
        "payment_status",
        "shipping_options",
    ),
    {"automatic_tax": Shape("payment_pages_checkout_session_automatic_tax", None, ("enabled",))},
)
EVENT = Shape(
    "event",
    "event",
    ("created", "data", "id", "livemode", "object", "pending_webhooks", "type"),
)
# The object an event of each type carries in `data.object`.
EVENT_OBJECTS = {
    "checkout.session.completed": CHECKOUT_SESSION,
    "checkout.session.async_payment_succeeded": CHECKOUT_SESSION,
    "checkout.session.async_payment_failed": CHECKOUT_SESSION,
    "checkout.session.expired": CHECKOUT_SESSION,
    "customer.subscription.created": SUBSCRIPTION,
    "customer.subscription.updated": SUBSCRIPTION,
    "customer.subscription.deleted": SUBSCRIPTION,
}
# The SDK's class for each object kind.
SDK_CLASSES = {"checkout.session": stripe.checkout.Session, "subscription": stripe.Subscription}


def missing(value: dict[str, Any], shape: Shape, path: str) -> list[str]:
    """The required fields absent from `value` (and its nested objects), as paths."""
    gaps = [f"{path}.{name} ({shape.schema})" for name in shape.required if name not in value]
    if shape.object is not None and value.get("object") != shape.object:
        gaps.append(f"{path}.object is {value.get('object')!r}, not {shape.object!r}")
    for name, inner in shape.nested.items():
        nested = value.get(name)
        elements = nested if isinstance(nested, list) else [nested]
        for index, element in enumerate(elements):
            where = f"{path}.{name}[{index}]" if isinstance(nested, list) else f"{path}.{name}"
            if isinstance(element, dict):
                gaps.extend(missing(element, inner, where))
    return gaps


# -- driving the simulator through every event it sends -------------------------------------

SECRET = "whsec_a"


@pytest.fixture
def local() -> LocalProvider:
    return LocalProvider(public_base_url="http://127.0.0.1:8000", webhook_secrets=(SECRET,))


def ad_checkout(local: LocalProvider, key: str) -> str:
    session = local.create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", 2)],
        metadata={"ad_reservation_id": "r-1", "country": "JP"},
        success_url="http://127.0.0.1:8000/ads/ok",
        cancel_url="http://127.0.0.1:8000/ads/new",
        expires_at=int(time.time()) + 3600,
        idempotency_key=key,
    )
    return session.id


def plan_checkout(local: LocalProvider, key: str) -> str:
    customer = local.create_customer(
        email="member@example.com", name="Member", user_id="user-1", idempotency_key=key
    )
    session = local.create_subscription_checkout(
        customer_id=customer,
        price_id="price_local_plus",
        reference_id="user-1",
        success_url="http://127.0.0.1:8000/account",
        cancel_url="http://127.0.0.1:8000/pricing",
        idempotency_key=key,
    )
    return session.id


def card_payment(local: LocalProvider) -> list[Any]:
    return local.complete(ad_checkout(local, "card"))


def konbini_settled(local: LocalProvider) -> list[Any]:
    session = ad_checkout(local, "konbini-paid")
    return local.complete(session, method="konbini") + local.settle(session)


def konbini_lapsed(local: LocalProvider) -> list[Any]:
    session = ad_checkout(local, "konbini-lapsed")
    return local.complete(session, method="konbini") + local.fail(session)


def abandoned(local: LocalProvider) -> list[Any]:
    return local.cancel(ad_checkout(local, "abandoned")) + local.cancel(
        plan_checkout(local, "abandoned-plan")
    )


def subscription_lifetime(local: LocalProvider) -> list[Any]:
    """Subscribe, upgrade, schedule a downgrade, cancel at the period end, resume,
    renew (taking up the downgrade), then end it now."""
    events = local.complete(plan_checkout(local, "plan"))
    sub = next(e.payload["data"]["object"]["id"] for e in events if e.type.startswith("customer"))
    events += local.change_plan(sub, "price_local_pro")
    events += local.change_plan(sub, "price_local_plus")
    events += local.set_cancel_at_period_end(sub, True)
    events += local.set_cancel_at_period_end(sub, False)
    events += local.end_period(sub)
    events += local.cancel_subscription(sub)
    return events


SCENARIOS = [card_payment, konbini_settled, konbini_lapsed, abandoned, subscription_lifetime]


@pytest.fixture(params=SCENARIOS, ids=lambda scenario: scenario.__name__)
def events(request, local) -> list[Any]:
    return request.param(local)


def test_the_scenarios_send_every_event_type_the_simulator_sends(local):
    sent = {event.type for scenario in SCENARIOS for event in scenario(local)}
    assert sent == set(EVENT_OBJECTS)


def test_each_event_has_every_field_stripe_requires(events):
    for event in events:
        payload = json.loads(event.body())
        gaps = missing(payload, EVENT, "event")
        obj = payload.get("data", {}).get("object", {})
        gaps += missing(obj, EVENT_OBJECTS[event.type], f"{event.type}.data.object")
        assert gaps == [], event.type


def test_the_sdk_parses_each_event_into_its_objects(events):
    for event in events:
        parsed = stripe.Event.construct_from(json.loads(event.body()), "sk_test_local")
        obj = parsed.data.object
        assert isinstance(obj, SDK_CLASSES[EVENT_OBJECTS[event.type].object or ""]), event.type
        if isinstance(obj, stripe.Subscription):
            [item] = obj["items"].data
            assert isinstance(item, stripe.SubscriptionItem)
            assert isinstance(item.price, stripe.Price)
            assert item.price.recurring is not None
            assert item.price.recurring.interval == "month"


def test_our_reader_reads_each_signed_delivery_as_the_event_it_is(events):
    for event in events:
        body = event.body()
        read = webhooks.verify(body, webhooks.sign(body, SECRET), (SECRET,))
        assert read == event.event == parse_event(json.loads(body))
        assert not isinstance(read, UnhandledEvent)
        assert read.id == event.payload["id"]


# -- the values are the simulated object's --------------------------------------------------


def test_an_event_is_pending_for_each_endpoint_it_goes_to(events):
    for event in events:
        assert event.payload["pending_webhooks"] == len(event.endpoints) > 0
        assert event.payload["livemode"] is False


def test_a_new_subscription_starts_its_period_and_billing_at_its_creation(local):
    now = int(time.time()) - 3600
    events = local.complete(plan_checkout(local, "plan"), now=now)
    [created] = [e.payload["data"]["object"] for e in events if e.type.endswith("created")]
    [item] = created["items"]["data"]
    assert created["created"] == created["start_date"] == created["billing_cycle_anchor"] == now
    assert item["current_period_start"] == item["created"] == now
    assert item["subscription"] == created["id"]
    assert created["currency"] == item["price"]["currency"] == "jpy"
    assert created["collection_method"] == "charge_automatically"
    assert created["items"]["url"] == f"/v1/subscription_items?subscription={created['id']}"
    assert item["price"]["type"] == "recurring"
    assert item["price"]["recurring"]["interval_count"] == 1


def test_a_subscription_keeps_its_item_across_plan_changes(local):
    events = subscription_lifetime(local)
    objects = [e.payload["data"]["object"] for e in events if e.type.startswith("customer")]
    item_ids = {obj["items"]["data"][0]["id"] for obj in objects}
    prices = [obj["items"]["data"][0]["price"]["id"] for obj in objects]
    assert len(item_ids) == 1
    assert "price_local_pro" in prices


def test_cancelling_at_the_period_end_sets_when_it_ends(local):
    events = local.complete(plan_checkout(local, "plan"))
    sub = next(e.payload["data"]["object"]["id"] for e in events if e.type.startswith("customer"))
    [cancelled] = local.set_cancel_at_period_end(sub, True)
    obj = cancelled.payload["data"]["object"]
    assert obj["cancel_at"] == obj["items"]["data"][0]["current_period_end"]
    [resumed] = local.set_cancel_at_period_end(sub, False)
    assert resumed.payload["data"]["object"]["cancel_at"] is None
