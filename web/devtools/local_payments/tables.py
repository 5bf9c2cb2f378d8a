"""The local payment provider's tables: prices, customers, checkout sessions, payment
intents, subscriptions, portal visits and invoices. Their own module so that the engine that
changes them (engine.py) and the events that report them (events.py) both
read them without importing each other."""

from __future__ import annotations

import json
from typing import Any

from peewee import BigIntegerField, IntegerField, TextField

from models.clock import now_iso
from models.tables import BaseModel


class JsonField(TextField):
    def db_value(self, value: Any) -> str:
        return json.dumps(value if value is not None else {}, ensure_ascii=False, sort_keys=True)

    def python_value(self, value: str | None) -> Any:
        return json.loads(value) if value else {}


class LocalPrice(BaseModel):
    id = TextField(primary_key=True)
    unit_amount = BigIntegerField()
    currency = TextField()
    active = IntegerField(default=1)
    product = TextField()
    recurring_interval = TextField(null=True)
    metadata = JsonField(default=dict)
    idempotency_key = TextField(null=True)
    created_at = TextField(default=now_iso)

    class Meta:
        table_name = "local_payment_prices"


class LocalCustomer(BaseModel):
    id = TextField(primary_key=True)
    email = TextField()
    name = TextField()
    user_id = TextField(null=True)
    idempotency_key = TextField(null=True)
    created_at = TextField(default=now_iso)

    class Meta:
        table_name = "local_payment_customers"


class LocalCheckoutSession(BaseModel):
    id = TextField(primary_key=True)
    mode = TextField()
    status = TextField(default="open")
    line_items = JsonField()
    metadata = JsonField(default=dict)
    customer_id = TextField(null=True)
    client_reference_id = TextField(null=True)
    success_url = TextField()
    cancel_url = TextField()
    expires_at = BigIntegerField()
    amount_total = BigIntegerField()
    currency = TextField()
    payment_intent_id = TextField(null=True)
    subscription_id = TextField(null=True)
    idempotency_key = TextField(null=True)
    created_at = TextField(default=now_iso)
    updated_at = TextField(default=now_iso)
    # "paid" once the money arrived; a konbini checkout is complete and still "unpaid".
    payment_status = TextField(default="unpaid")
    payment_method = TextField(null=True)  # "card" or "konbini", once completed
    # What the invoice of a one-time checkout says once it is paid (the provider's
    # invoice_creation): issuer, buyer, description, metadata; {} for none.
    invoice_data = JsonField(null=True, default=dict)

    class Meta:
        table_name = "local_payment_checkout_sessions"


class LocalPaymentIntent(BaseModel):
    id = TextField(primary_key=True)
    amount_received = BigIntegerField()
    currency = TextField()
    metadata = JsonField(default=dict)
    checkout_session_id = TextField()
    created = BigIntegerField()
    created_at = TextField(default=now_iso)
    # The provider's: "requires_action" while a konbini voucher awaits payment, then
    # "succeeded" (amount_received filled) or "canceled"; a card succeeds at once.
    status = TextField(default="requires_action")

    class Meta:
        table_name = "local_payment_intents"


class LocalSubscription(BaseModel):
    id = TextField(primary_key=True)
    customer_id = TextField(null=True)
    price_id = TextField()
    status = TextField()
    current_period_start = BigIntegerField()
    current_period_end = BigIntegerField()
    cancel_at_period_end = IntegerField(default=0)
    canceled_at = BigIntegerField(null=True)
    ended_at = BigIntegerField(null=True)
    metadata = JsonField(default=dict)
    # The moment it started (its first period's start): the provider's `created`,
    # `start_date` and `billing_cycle_anchor` are read from it.
    created_at = TextField(default=now_iso)
    updated_at = TextField(default=now_iso)
    # A plan change waiting for the period end (a downgrade), as the provider's
    # subscription schedule holds it: the schedule's id and the price it moves to.
    schedule_id = TextField(null=True)
    scheduled_price_id = TextField(null=True)
    refunded_amount = BigIntegerField(null=True)  # refunded when cancelled as a duplicate

    class Meta:
        table_name = "local_payment_subscriptions"


class LocalPortalSession(BaseModel):
    """A customer's visit to the billing portal: whose subscriptions it may change, and
    where the customer goes back to."""

    id = TextField(primary_key=True)
    customer_id = TextField()
    return_url = TextField()
    created = BigIntegerField()
    created_at = TextField(default=now_iso)

    class Meta:
        table_name = "local_payment_portal_sessions"


class LocalInvoice(BaseModel):
    """A qualified invoice (適格請求書) the local provider issued: for a paid one-time
    checkout, or one paid period of a subscription. `source` names what it was issued
    for (unique: issued once); `id` carries a random token, so its page is found only by
    whoever was given its address, as the provider's hosted invoice is."""

    id = TextField(primary_key=True)
    number = TextField(unique=True)
    source = TextField(unique=True)
    customer_id = TextField(null=True)
    checkout_session_id = TextField(null=True)
    subscription_id = TextField(null=True)
    period_start = BigIntegerField(null=True)  # Unix seconds, a subscription's period
    period_end = BigIntegerField(null=True)
    amount = BigIntegerField()  # tax-inclusive total
    currency = TextField()
    description = TextField()
    quantity = IntegerField(default=1)
    buyer_name = TextField()
    buyer_email = TextField(null=True)
    buyer_registration_number = TextField(null=True)
    issuer_name = TextField(null=True)
    issuer_address = TextField(null=True)
    issuer_registration_number = TextField(null=True)
    metadata = JsonField(default=dict)
    issued_at = BigIntegerField()  # Unix seconds
    created_at = TextField(default=now_iso)

    class Meta:
        table_name = "local_payment_invoices"
