"""The `local` engine: an offline payment provider for development and tests.

It keeps prices, customers, checkout sessions, payment intents and
subscriptions in its own tables (tables.py), serves a checkout page of this
service, and on completion or expiry produces the same events the real provider sends
(built in events.py).
The caller delivers those events (signed, through the queue) after commit.

Besides the card (paid at once), a payment-mode checkout offers a delayed method,
konbini: the checkout completes unpaid, and the tester later settles the payment or
lets it lapse, as a convenience store would, each with the provider's async event.

Like the real provider it issues invoices (qualified invoices, 適格請求書; issue 48): one
for each paid one-time checkout made with an invoice, and one for each subscription
period paid (the first at checkout, then each renewal), each shown on a printable page
of its own at an address with a random token (pages.py).
"""

from __future__ import annotations

import time
from calendar import monthrange
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from peewee import IntegrityError

from models.clock import iso, now_iso
from models.db import is_postgres, write_transaction
from models.invoices import InvoiceRequest, Issuer, current_issuer
from models.payments import plan_for_price, stripe_events, webhooks
from models.payments.base import (
    PAID_STATUSES,
    CheckoutSession,
    LineItem,
    PaymentIntent,
    PaymentNotFound,
    PaymentRejected,
    Price,
    ProviderSubscription,
    Receipt,
)
from models.payments.events import WebhookEvent
from models.settings import get_settings
from web.devtools.local_payments import events as local_events
from web.devtools.local_payments.events import LocalEvent, checkout_event, new_id
from web.devtools.local_payments.tables import (
    LocalCheckoutSession,
    LocalCustomer,
    LocalInvoice,
    LocalPaymentIntent,
    LocalPortalSession,
    LocalPrice,
    LocalSubscription,
)

# Prices that exist when the price variables are unset (amounts in yen).
DEFAULT_PRICES = {
    "price_local_ad_jp": {
        "unit_amount": 50_000,
        "currency": "jpy",
        "product": "prod_local_ads_jp",
        "recurring_interval": None,
    },
    "price_local_plus": {
        "unit_amount": 980,
        "currency": "jpy",
        "product": "prod_local_plans",
        "recurring_interval": "month",
    },
    "price_local_pro": {
        "unit_amount": 2_980,
        "currency": "jpy",
        "product": "prod_local_plans",
        "recurring_interval": "month",
    },
}

# Card pays at once; konbini completes the checkout unpaid and is paid (or lapses) later.
PAYMENT_METHODS = ("card", "konbini")


def _one_month_later(unix: int) -> int:
    moment = datetime.fromtimestamp(unix, UTC)
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    day = min(moment.day, monthrange(year, month)[1])
    return int(moment.replace(year=year, month=month, day=day).timestamp())


class LocalProvider:
    name = "local"

    def __init__(self, *, public_base_url: str, webhook_secrets: Iterable[str] = ()):
        self.public_base_url = public_base_url.rstrip("/")
        self.webhook_secrets = tuple(webhook_secrets)

    # -- prices ---------------------------------------------------------------------

    def _price_row(self, price_id: str) -> LocalPrice:
        row = LocalPrice.get_or_none(LocalPrice.id == price_id)
        if row is None and price_id in DEFAULT_PRICES:
            LocalPrice.insert(
                id=price_id, **DEFAULT_PRICES[price_id]
            ).on_conflict_ignore().execute()
            row = LocalPrice.get_by_id(price_id)
        if row is None:
            raise PaymentNotFound(f"No such price: '{price_id}'")
        return row

    def get_price(self, price_id: str) -> Price:
        # Reading a price writes nothing (public pages show it to any visitor): a default
        # price not used yet reads as it will be stored.
        row = LocalPrice.get_or_none(LocalPrice.id == price_id)
        if row is None and price_id in DEFAULT_PRICES:
            row = LocalPrice(id=price_id, **DEFAULT_PRICES[price_id])
        return _price(row if row is not None else self._price_row(price_id))

    def create_price(
        self,
        *,
        unit_amount: int,
        currency: str,
        product_name: str,
        product_id: str | None,
        metadata: dict[str, str],
        idempotency_key: str,
    ) -> Price:
        existing = LocalPrice.get_or_none(LocalPrice.idempotency_key == idempotency_key)
        if existing is not None:
            return _price(existing)
        if int(unit_amount) <= 0:
            raise PaymentRejected("unit_amount must be positive")
        row = LocalPrice.create(
            id=new_id("price"),
            unit_amount=int(unit_amount),
            currency=currency.lower(),
            product=product_id or new_id("prod"),
            metadata={**metadata, "product_name": product_name},
            idempotency_key=idempotency_key,
        )
        return _price(row)

    def archive_price(self, price_id: str) -> Price:
        row = self._price_row(price_id)
        LocalPrice.update(active=0).where(LocalPrice.id == row.id).execute()
        return self.get_price(price_id)

    # -- customers and checkouts ------------------------------------------------------

    def create_customer(
        self,
        *,
        email: str,
        name: str,
        user_id: str,
        idempotency_key: str,
        invoice_issuer: Issuer | None = None,
    ) -> str:
        # The issuer is not kept: a period's invoice names the issuer the settings name
        # when it is issued (_issue_period_invoice).
        existing = LocalCustomer.get_or_none(LocalCustomer.idempotency_key == idempotency_key)
        if existing is not None:
            return existing.id
        # Two calls with one key at once: one row, as the provider's idempotency gives.
        LocalCustomer.insert(
            id=new_id("cus"),
            email=email,
            name=name,
            user_id=user_id,
            idempotency_key=idempotency_key,
        ).on_conflict_ignore().execute()
        return str(LocalCustomer.get(LocalCustomer.idempotency_key == idempotency_key).id)

    def _create_session(self, *, idempotency_key: str, **values: Any) -> CheckoutSession:
        existing = LocalCheckoutSession.get_or_none(
            LocalCheckoutSession.idempotency_key == idempotency_key
        )
        if existing is not None:
            return self._session(existing)
        prices = [self._price_row(item["price"]) for item in values["line_items"]]
        inactive = [p.id for p in prices if not p.active]
        if inactive:
            raise PaymentRejected(f"The price {inactive[0]} is archived")
        if len({p.currency for p in prices}) != 1:
            raise PaymentRejected("All line items must share one currency")
        amount = sum(
            p.unit_amount * item["quantity"]
            for p, item in zip(prices, values["line_items"], strict=True)
        )
        try:
            row = LocalCheckoutSession.create(
                id=new_id("cs"),
                amount_total=amount,
                currency=prices[0].currency,
                idempotency_key=idempotency_key,
                **values,
            )
        except IntegrityError:
            row = LocalCheckoutSession.get(LocalCheckoutSession.idempotency_key == idempotency_key)
        return self._session(row)

    def create_payment_checkout(
        self,
        *,
        line_items: list[LineItem],
        metadata: dict[str, str],
        success_url: str,
        cancel_url: str,
        expires_at: int,
        idempotency_key: str,
        invoice: InvoiceRequest | None = None,
    ) -> CheckoutSession:
        if not line_items or any(item.quantity < 1 for item in line_items):
            raise PaymentRejected("line_items need a positive quantity")
        return self._create_session(
            idempotency_key=idempotency_key,
            mode="payment",
            line_items=[{"price": i.price_id, "quantity": i.quantity} for i in line_items],
            metadata=dict(metadata),
            success_url=success_url,
            cancel_url=cancel_url,
            expires_at=int(expires_at),
            invoice_data=_invoice_data(invoice),
        )

    def create_subscription_checkout(
        self,
        *,
        customer_id: str,
        price_id: str,
        reference_id: str,
        success_url: str,
        cancel_url: str,
        idempotency_key: str,
        expires_at: int | None = None,
    ) -> CheckoutSession:
        return self._create_session(
            idempotency_key=idempotency_key,
            mode="subscription",
            line_items=[{"price": price_id, "quantity": 1}],
            metadata={"reference_id": reference_id},
            customer_id=customer_id,
            client_reference_id=reference_id,
            success_url=success_url,
            cancel_url=cancel_url,
            expires_at=int(expires_at) if expires_at else int(time.time()) + 24 * 3600,
        )

    def get_checkout_session(self, session_id: str) -> CheckoutSession:
        return self._session(self.checkout(session_id))

    def checkout(self, session_id: str) -> LocalCheckoutSession:
        row = LocalCheckoutSession.get_or_none(LocalCheckoutSession.id == session_id)
        if row is None:
            raise PaymentNotFound(f"No such checkout session: '{session_id}'")
        return row

    def _locked(self, session_id: str) -> LocalCheckoutSession:
        """The session row, locked until the transaction ends (SQLite: the write lock
        taken by BEGIN IMMEDIATE already serialises writers)."""
        query = LocalCheckoutSession.select().where(LocalCheckoutSession.id == session_id)
        if is_postgres():
            query = query.for_update()
        row: LocalCheckoutSession | None = query.first()
        if row is None:
            raise PaymentNotFound(f"No such checkout session: '{session_id}'")
        return row

    def checkout_lines(self, row: LocalCheckoutSession) -> list[dict[str, Any]]:
        """The session's line items with their prices, for the checkout page."""
        lines = []
        for item in row.line_items:
            price = self._price_row(item["price"])
            lines.append(
                {
                    "price": price.id,
                    "quantity": item["quantity"],
                    "unit_amount": price.unit_amount,
                    "amount": price.unit_amount * item["quantity"],
                    "currency": price.currency,
                    "interval": price.recurring_interval,
                }
            )
        return lines

    def complete(
        self, session_id: str, now: int | None = None, *, method: str = "card"
    ) -> list[LocalEvent]:
        """Pay an open session. Paying a paid session again does nothing and sends nothing.

        `method="konbini"` (payment mode only) completes it unpaid: a payment intent
        waiting for the money, and a `checkout.session.completed` whose payment_status
        is `unpaid`; `settle` or `fail` follows.
        """
        if method not in PAYMENT_METHODS:
            raise PaymentRejected(f"Unknown payment method: {method!r}")
        now = int(time.time()) if now is None else now
        with write_transaction():
            row = self._locked(session_id)
            if row.status == "complete":
                return []
            if row.status == "expired" or row.expires_at <= now:
                raise PaymentRejected("This checkout session has expired")
            if method == "konbini" and row.mode != "payment":
                raise PaymentRejected("Konbini pays one-time checkouts only")
            events = []
            paid = method == "card"
            changes = {
                "status": "complete",
                "payment_status": "paid" if paid else "unpaid",
                "payment_method": method,
                "updated_at": now_iso(),
            }
            if row.mode == "payment":
                intent = LocalPaymentIntent.create(
                    id=new_id("pi"),
                    amount_received=row.amount_total if paid else 0,
                    currency=row.currency,
                    metadata=row.metadata,
                    checkout_session_id=row.id,
                    created=now,
                    status="succeeded" if paid else "requires_action",
                )
                changes["payment_intent_id"] = intent.id
                if paid:
                    self._issue_checkout_invoice(row, now)
            else:
                subscription = LocalSubscription.create(
                    id=new_id("sub"),
                    customer_id=row.customer_id,
                    price_id=row.line_items[0]["price"],
                    status="active",
                    current_period_start=now,
                    current_period_end=_one_month_later(now),
                    metadata=row.metadata,
                    created_at=iso(datetime.fromtimestamp(now, UTC)),
                )
                changes["subscription_id"] = subscription.id
                self._issue_period_invoice(subscription, now)
                events.append(
                    self._subscription_event("customer.subscription.created", subscription)
                )
            LocalCheckoutSession.update(**changes).where(
                LocalCheckoutSession.id == row.id
            ).execute()
            row = self.checkout(session_id)
            events.append(checkout_event("checkout.session.completed", row))
        return events

    def settle(self, session_id: str) -> list[LocalEvent]:
        """The buyer pays the konbini voucher: the intent receives the amount, the
        session becomes paid, `checkout.session.async_payment_succeeded` is sent.
        Settling again does nothing and sends nothing."""
        with write_transaction():
            row = self._locked(session_id)
            intent = self._awaited_intent(row, "succeeded")
            if intent is None:
                return []
            LocalPaymentIntent.update(status="succeeded", amount_received=row.amount_total).where(
                LocalPaymentIntent.id == intent.id
            ).execute()
            LocalCheckoutSession.update(payment_status="paid", updated_at=now_iso()).where(
                LocalCheckoutSession.id == row.id
            ).execute()
            self._issue_checkout_invoice(row, int(time.time()))
            row = self.checkout(session_id)
            return [checkout_event("checkout.session.async_payment_succeeded", row)]

    def fail(self, session_id: str) -> list[LocalEvent]:
        """The konbini voucher lapses unpaid: the intent is canceled, the session stays
        complete and unpaid, `checkout.session.async_payment_failed` is sent. Failing
        again does nothing and sends nothing."""
        with write_transaction():
            row = self._locked(session_id)
            intent = self._awaited_intent(row, "canceled")
            if intent is None:
                return []
            LocalPaymentIntent.update(status="canceled").where(
                LocalPaymentIntent.id == intent.id
            ).execute()
            LocalCheckoutSession.update(updated_at=now_iso()).where(
                LocalCheckoutSession.id == row.id
            ).execute()
            row = self.checkout(session_id)
            return [checkout_event("checkout.session.async_payment_failed", row)]

    def _awaited_intent(self, row: LocalCheckoutSession, outcome: str) -> LocalPaymentIntent | None:
        """The intent of a konbini payment still awaited; None when it already ended
        with `outcome` (asked twice: nothing to do); refused when it ended otherwise."""
        if row.payment_method != "konbini" or row.payment_intent_id is None:
            raise PaymentRejected("This checkout session has no konbini payment")
        intent = LocalPaymentIntent.get_by_id(row.payment_intent_id)
        if intent.status == "requires_action":
            return intent
        if intent.status == outcome:
            return None
        raise PaymentRejected(f"This konbini payment has already ended ({intent.status})")

    def payment_state(self, row: LocalCheckoutSession) -> str:
        """Where the session stands, for its page: open, paid, awaiting_payment (konbini),
        payment_failed, or expired."""
        if row.status != "complete":
            return row.status
        if row.payment_status in PAID_STATUSES:
            return "paid"
        intent = LocalPaymentIntent.get_or_none(LocalPaymentIntent.id == row.payment_intent_id)
        if intent is not None and intent.status == "canceled":
            return "payment_failed"
        return "awaiting_payment"

    def cancel(self, session_id: str) -> list[LocalEvent]:
        """Abandon an open session: it expires, as an abandoned checkout does."""
        with write_transaction():
            row = self._locked(session_id)
            if row.status == "complete":
                raise PaymentRejected("This checkout session is already complete")
            return self._expire([row])

    def expire_checkout_session(self, session_id: str) -> CheckoutSession:
        """Expire an open session now (the provider's "expire" call), and announce it as
        an abandoned one is. A complete session cannot be expired."""
        local_events.send(self.cancel(session_id))
        return self.get_checkout_session(session_id)

    def expire_due(self, now: int | None = None) -> list[LocalEvent]:
        """Expire every open session past its expiry time."""
        now = int(time.time()) if now is None else now
        with write_transaction():
            due = list(
                LocalCheckoutSession.select().where(
                    (LocalCheckoutSession.status == "open")
                    & (LocalCheckoutSession.expires_at <= now)
                )
            )
            return self._expire(due)

    def _expire(self, rows: Iterable[LocalCheckoutSession]) -> list[LocalEvent]:
        events = []
        for row in rows:
            changed = (
                LocalCheckoutSession.update(status="expired", updated_at=now_iso())
                .where(
                    (LocalCheckoutSession.id == row.id) & (LocalCheckoutSession.status == "open")
                )
                .execute()
            )
            if changed:
                fresh = self.checkout(row.id)
                events.append(checkout_event("checkout.session.expired", fresh))
        return events

    # -- subscriptions and payments ------------------------------------------------------

    def get_subscription(self, subscription_id: str) -> ProviderSubscription:
        row = self._subscription_row(subscription_id)
        price = self._price_row(row.price_id)
        return ProviderSubscription(
            id=row.id,
            customer_id=row.customer_id,
            status=row.status,
            price_id=row.price_id,
            interval=price.recurring_interval,
            period_start=row.current_period_start * 1000,
            period_end=row.current_period_end * 1000,
            cancel_at_period_end=bool(row.cancel_at_period_end),
            canceled_at=row.canceled_at * 1000 if row.canceled_at else None,
            ended_at=row.ended_at * 1000 if row.ended_at else None,
            schedule_id=row.schedule_id,
            metadata=row.metadata,
        )

    def update_subscription(
        self,
        subscription_id: str,
        *,
        price_id: str | None = None,
        cancel_at_period_end: bool | None = None,
        renew: bool = False,
        now: int | None = None,
    ) -> list[LocalEvent]:
        """Change a subscription as the provider's API would: switch its price now,
        cancel at period end (or restore), or start its next billing period (taking up
        the plan change scheduled for it, if any)."""
        now = int(time.time()) if now is None else now
        with write_transaction():
            row = self._subscription_row(subscription_id, lock=True)
            changes: dict[str, Any] = {"updated_at": now_iso()}
            if price_id is not None:
                self._price_row(price_id)
                changes.update(price_id=price_id, schedule_id=None, scheduled_price_id=None)
            if cancel_at_period_end is not None:
                changes["cancel_at_period_end"] = int(cancel_at_period_end)
                changes["canceled_at"] = now if cancel_at_period_end else None
            if renew:
                changes["current_period_start"] = row.current_period_end
                changes["current_period_end"] = _one_month_later(row.current_period_end)
                if row.scheduled_price_id:
                    changes.update(
                        price_id=row.scheduled_price_id, schedule_id=None, scheduled_price_id=None
                    )
            LocalSubscription.update(**changes).where(LocalSubscription.id == row.id).execute()
            row = self._subscription_row(subscription_id)
            if renew:
                self._issue_period_invoice(row, now)
            return [self._subscription_event("customer.subscription.updated", row)]

    def cancel_subscription(self, subscription_id: str, now: int | None = None) -> list[LocalEvent]:
        """End a subscription now. Ending an ended one does nothing and sends nothing."""
        now = int(time.time()) if now is None else now
        with write_transaction():
            row = self._subscription_row(subscription_id, lock=True)
            if row.status == "canceled":
                return []
            LocalSubscription.update(
                status="canceled",
                ended_at=now,
                canceled_at=row.canceled_at or now,
                updated_at=now_iso(),
            ).where(LocalSubscription.id == row.id).execute()
            row = self._subscription_row(subscription_id)
            return [self._subscription_event("customer.subscription.deleted", row)]

    def cancel_and_refund_subscription(self, subscription_id: str, *, idempotency_key: str) -> int:
        """End a subscription now and refund its price (the local provider charges one
        period's price at checkout); a second call refunds nothing more."""
        with write_transaction():
            row = self._subscription_row(subscription_id, lock=True)
            if row.refunded_amount is not None:
                return 0
            amount = self._price_row(row.price_id).unit_amount
            LocalSubscription.update(refunded_amount=amount).where(
                LocalSubscription.id == row.id
            ).execute()
            events = self.cancel_subscription(subscription_id)
        local_events.send(events)
        return int(amount)

    # -- invoices (receipts) --------------------------------------------------------------

    def invoice_url(self, invoice_id: str) -> str:
        return f"{self.public_base_url}/_local-payments/invoices/{invoice_id}"

    def invoice(self, invoice_id: str) -> LocalInvoice:
        row = LocalInvoice.get_or_none(LocalInvoice.id == invoice_id)
        if row is None:
            raise PaymentNotFound(f"No such invoice: '{invoice_id}'")
        return row

    def _issue(self, source: str, *, issued_at: int, **values: Any) -> None:
        """Issue the invoice for `source` once: one conditional insert on its unique
        source, so a completion or renewal handled twice issues one invoice."""
        invoice_id = new_id("in")
        day = datetime.fromtimestamp(issued_at, UTC).strftime("%Y%m%d")
        LocalInvoice.insert(
            id=invoice_id,
            number=f"LP-{day}-{invoice_id[-8:].upper()}",
            source=source,
            issued_at=issued_at,
            **values,
        ).on_conflict_ignore().execute()

    def _issue_checkout_invoice(self, row: LocalCheckoutSession, now: int) -> None:
        """The invoice of a paid one-time checkout made with one (invoice_creation)."""
        data = row.invoice_data or {}
        if not data:
            return
        issuer = data.get("issuer") or {}
        self._issue(
            f"checkout:{row.id}",
            issued_at=now,
            customer_id=row.customer_id,
            checkout_session_id=row.id,
            amount=row.amount_total,
            currency=row.currency,
            description=data.get("description") or "",
            quantity=sum(int(item["quantity"]) for item in row.line_items),
            buyer_name=data.get("buyer_name") or "",
            buyer_registration_number=data.get("buyer_registration_number"),
            issuer_name=issuer.get("name"),
            issuer_address=issuer.get("address"),
            issuer_registration_number=issuer.get("registration_number"),
            metadata=data.get("metadata") or {},
        )

    def _issue_period_invoice(self, row: LocalSubscription, now: int) -> None:
        """The invoice of one subscription period, paid at its start: the price of the
        plan it renews on, to the customer, from the issuer the settings name."""
        price = self._price_row(row.price_id)
        customer = LocalCustomer.get_or_none(LocalCustomer.id == row.customer_id)
        issuer = current_issuer()
        plan = plan_for_price(price.id)
        service = get_settings().service_name
        self._issue(
            f"subscription:{row.id}:{row.current_period_start}",
            issued_at=now,
            customer_id=row.customer_id,
            subscription_id=row.id,
            period_start=row.current_period_start,
            period_end=row.current_period_end,
            amount=price.unit_amount,
            currency=price.currency,
            description=f"{service} {plan.capitalize()}プラン 利用料（1か月）"
            if plan
            else f"{service} 定期購読（{price.id}）",
            buyer_name=customer.name if customer is not None else "",
            buyer_email=customer.email if customer is not None else None,
            issuer_name=issuer.name if issuer else None,
            issuer_address=issuer.address if issuer else None,
            issuer_registration_number=issuer.registration_number if issuer else None,
        )

    def set_invoice_issuer(self, customer_id: str, issuer: Issuer) -> None:
        if LocalCustomer.get_or_none(LocalCustomer.id == customer_id) is None:
            raise PaymentNotFound(f"No such customer: '{customer_id}'")

    def ad_receipt_url(self, checkout_session_id: str) -> str | None:
        row = LocalInvoice.get_or_none(LocalInvoice.checkout_session_id == checkout_session_id)
        return self.invoice_url(row.id) if row is not None else None

    def subscription_receipts(self, customer_id: str) -> list[Receipt]:
        rows = (
            LocalInvoice.select()
            .where(
                (LocalInvoice.customer_id == customer_id)
                & LocalInvoice.subscription_id.is_null(False)
            )
            .order_by(LocalInvoice.period_start.desc(), LocalInvoice.issued_at.desc())
        )
        return [
            Receipt(
                id=row.id,
                period_start=int(row.period_start or 0) * 1000,
                period_end=int(row.period_end or 0) * 1000,
                amount=row.amount,
                currency=row.currency,
                url=self.invoice_url(row.id),
            )
            for row in rows
        ]

    # -- the billing portal ----------------------------------------------------------------

    def create_portal_session(self, *, customer_id: str, return_url: str) -> str:
        """A portal visit for the customer; returns the address of its page."""
        if LocalCustomer.get_or_none(LocalCustomer.id == customer_id) is None:
            raise PaymentNotFound(f"No such customer: '{customer_id}'")
        row = LocalPortalSession.create(
            id=new_id("bps"),
            customer_id=customer_id,
            return_url=return_url,
            created=int(time.time()),
        )
        return f"{self.public_base_url}/_local-payments/portal/{row.id}"

    def portal(self, portal_id: str) -> LocalPortalSession:
        row = LocalPortalSession.get_or_none(LocalPortalSession.id == portal_id)
        if row is None:
            raise PaymentNotFound(f"No such portal session: '{portal_id}'")
        return row

    def portal_subscriptions(self, portal_id: str) -> list[LocalSubscription]:
        """The subscriptions the portal shows: the customer's, not yet ended."""
        row = self.portal(portal_id)
        return list(
            LocalSubscription.select()
            .where(
                (LocalSubscription.customer_id == row.customer_id)
                & (LocalSubscription.status != "canceled")
            )
            .order_by(LocalSubscription.created_at, LocalSubscription.id)
        )

    def portal_subscription(self, portal_id: str, subscription_id: str) -> LocalSubscription:
        """One of the portal's subscriptions (PaymentNotFound for anyone else's)."""
        for row in self.portal_subscriptions(portal_id):
            if row.id == subscription_id:
                return row
        raise PaymentNotFound(f"No such subscription: '{subscription_id}'")

    def change_plan(
        self, subscription_id: str, price_id: str, now: int | None = None
    ) -> list[LocalEvent]:
        """Switch to another price as the portal is configured to: a dearer one at once
        (the period is kept, its difference prorated), a cheaper one at the period end (a
        subscription schedule); choosing the current price drops a scheduled change."""
        now = int(time.time()) if now is None else now
        with write_transaction():
            row = self._subscription_row(subscription_id, lock=True)
            if row.status == "canceled":
                raise PaymentRejected("This subscription has ended")
            if row.cancel_at_period_end:
                raise PaymentRejected("This subscription is cancelled; resume it first")
            new = self._price_row(price_id)
            if not new.active or new.recurring_interval is None:
                raise PaymentRejected(f"The price {price_id} cannot be subscribed to")
            current = self._price_row(row.price_id)
            changes: dict[str, Any]
            if new.id == current.id:
                if row.scheduled_price_id is None:
                    return []
                changes = {"schedule_id": None, "scheduled_price_id": None}
            elif new.unit_amount > current.unit_amount:
                changes = {"price_id": new.id, "schedule_id": None, "scheduled_price_id": None}
            else:
                if row.scheduled_price_id == new.id:
                    return []
                changes = {
                    "schedule_id": row.schedule_id or new_id("sub_sched"),
                    "scheduled_price_id": new.id,
                }
            LocalSubscription.update(updated_at=now_iso(), **changes).where(
                LocalSubscription.id == row.id
            ).execute()
            row = self._subscription_row(subscription_id)
            return [self._subscription_event("customer.subscription.updated", row)]

    def set_cancel_at_period_end(self, subscription_id: str, cancel: bool) -> list[LocalEvent]:
        """Cancel at the period end, or (`cancel=False`) resume a cancelled one. Asking
        for the state it is already in changes nothing and sends nothing."""
        row = self._subscription_row(subscription_id)
        if row.status == "canceled":
            raise PaymentRejected("This subscription has ended")
        if bool(row.cancel_at_period_end) == cancel:
            return []
        return self.update_subscription(subscription_id, cancel_at_period_end=cancel)

    def end_period(self, subscription_id: str) -> list[LocalEvent]:
        """The tester lets the billing period end, standing in for the calendar: a
        subscription cancelled at period end ends then, any other renews (with its
        scheduled plan change)."""
        row = self._subscription_row(subscription_id)
        if row.status == "canceled":
            raise PaymentRejected("This subscription has ended")
        if row.cancel_at_period_end:
            return self.cancel_subscription(subscription_id, now=row.current_period_end)
        return self.update_subscription(subscription_id, renew=True)

    def end_due_periods(self, now: int | None = None) -> list[LocalEvent]:
        """The calendar of local subscriptions, as the provider keeps it: every live
        subscription whose period has ended renews (taking up a scheduled plan change),
        or ends when it was cancelled at period end. Each is checked again under its
        lock, so two runs at once end a period once."""
        now = int(time.time()) if now is None else now
        due = [
            row.id
            for row in LocalSubscription.select(LocalSubscription.id).where(
                (LocalSubscription.status == "active")
                & (LocalSubscription.current_period_end <= now)
            )
        ]
        events: list[LocalEvent] = []
        for subscription_id in due:
            with write_transaction():
                row = self._subscription_row(subscription_id, lock=True)
                if row.status == "active" and row.current_period_end <= now:
                    events.extend(self.end_period(subscription_id))
        return events

    def _subscription_event(self, event_type: str, row: LocalSubscription) -> LocalEvent:
        return local_events.subscription_event(event_type, row, self._price_row(row.price_id))

    def _subscription_row(self, subscription_id: str, *, lock: bool = False) -> LocalSubscription:
        query = LocalSubscription.select().where(LocalSubscription.id == subscription_id)
        if lock and is_postgres():
            query = query.for_update()
        row: LocalSubscription | None = query.first()
        if row is None:
            raise PaymentNotFound(f"No such subscription: '{subscription_id}'")
        return row

    def list_ad_payment_intents(
        self, *, created_from: int | None = None, created_to: int | None = None
    ) -> Iterator[PaymentIntent]:
        # Money received only: a konbini intent still awaited (or lapsed) received 0.
        query = (
            LocalPaymentIntent.select()
            .where(
                (LocalPaymentIntent.status == "succeeded")
                & (LocalPaymentIntent.amount_received > 0)
            )
            .order_by(LocalPaymentIntent.created.desc())
        )
        if created_from is not None:
            query = query.where(LocalPaymentIntent.created >= created_from)
        if created_to is not None:
            query = query.where(LocalPaymentIntent.created < created_to)
        for row in query:
            if "ad_reservation_id" in row.metadata:
                yield PaymentIntent(
                    id=row.id,
                    amount_received=row.amount_received,
                    currency=row.currency,
                    created=row.created,
                    metadata=row.metadata,
                )

    def verify_webhook(self, payload: bytes, signature_header: str | None) -> WebhookEvent:
        return webhooks.verify(payload, signature_header, self.webhook_secrets)

    def read_event(self, body: Mapping[str, Any]) -> WebhookEvent:
        return stripe_events.parse_event(body)

    # -- provider-shaped objects ---------------------------------------------------------

    def _session(self, row: LocalCheckoutSession) -> CheckoutSession:
        return CheckoutSession(
            id=row.id,
            url=f"{self.public_base_url}/_local-payments/checkout/{row.id}",
            mode=row.mode,
            status=row.status,
            expires_at=row.expires_at,
            payment_intent_id=row.payment_intent_id,
            subscription_id=row.subscription_id,
            customer_id=row.customer_id,
            metadata=row.metadata,
            payment_status=row.payment_status,
        )


def _price(row: LocalPrice) -> Price:
    return Price(
        id=row.id,
        unit_amount=row.unit_amount,
        currency=row.currency,
        active=bool(row.active),
        product=row.product,
        recurring_interval=row.recurring_interval,
        metadata=row.metadata,
    )


def _invoice_data(invoice: InvoiceRequest | None) -> dict[str, Any]:
    """What a one-time checkout's invoice is to say, kept on the checkout ({}: none)."""
    if invoice is None:
        return {}
    return {
        "issuer": {
            "name": invoice.issuer.name,
            "address": invoice.issuer.address,
            "registration_number": invoice.issuer.registration_number,
        },
        "buyer_name": invoice.buyer_name,
        "buyer_registration_number": invoice.buyer_registration_number,
        "description": invoice.description,
        "metadata": dict(invoice.metadata),
    }
