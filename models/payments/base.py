"""What the service needs from a payment provider, whichever provider it is."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from models.invoices import InvoiceRequest, Issuer
from models.payments.events import WebhookEvent


class PaymentError(Exception):
    """The provider could not do what was asked."""


class PaymentUnavailable(PaymentError):
    """The provider did not answer, or answered with a failure of its own: try again later."""


class PaymentRejected(PaymentError):
    """The provider refused the request as made (unknown price, bad parameters)."""


class PaymentNotFound(PaymentRejected):
    """The object asked for does not exist at the provider."""


class PaymentMisconfigured(PaymentError):
    """The provider refused our credentials."""


class WebhookSignatureInvalid(PaymentError):
    """A webhook's signature header is missing, stale, or matches none of our secrets."""


@dataclass(frozen=True)
class Price:
    id: str
    unit_amount: int
    currency: str
    active: bool
    product: str | None = None
    recurring_interval: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LineItem:
    price_id: str
    quantity: int


# A checkout's payment_status when the money has arrived. A delayed method (konbini)
# completes the checkout `unpaid` and is paid, or fails, days later (docs/payments.md).
PAID_STATUSES = frozenset({"paid", "no_payment_required"})


@dataclass(frozen=True)
class CheckoutSession:
    id: str
    url: str | None
    mode: str
    status: str
    expires_at: int | None = None
    payment_intent_id: str | None = None
    subscription_id: str | None = None
    customer_id: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    payment_status: str | None = None

    @property
    def paid(self) -> bool:
        return self.status == "complete" and self.payment_status in PAID_STATUSES


@dataclass(frozen=True)
class ProviderSubscription:
    """A subscription as the provider holds it now; times in Unix milliseconds."""

    id: str
    customer_id: str | None
    status: str
    price_id: str | None
    interval: str | None = None
    period_start: int | None = None
    period_end: int | None = None
    trial_start: int | None = None
    trial_end: int | None = None
    cancel_at_period_end: bool = False
    cancel_at: int | None = None
    canceled_at: int | None = None
    ended_at: int | None = None
    schedule_id: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PaymentIntent:
    id: str
    amount_received: int
    currency: str
    created: int  # Unix seconds, as the provider gives it
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Receipt:
    """A paid subscription invoice (a qualified invoice, 適格請求書) as the provider hosts
    it: the period it paid for (Unix milliseconds), what was paid, and its address."""

    id: str
    period_start: int
    period_end: int
    amount: int
    currency: str
    url: str


class PaymentProvider(Protocol):
    """One provider's operations. Every create takes an idempotency key, so a retried
    call (a redelivered message, a double click) creates nothing twice."""

    name: str

    def get_price(self, price_id: str) -> Price: ...

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
        """A one-time checkout; with `invoice`, the provider issues a qualified invoice
        once it is paid (ad_receipt_url finds it)."""
        ...

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
        """A checkout for one subscription to `price_id`, payable until `expires_at`
        (Unix seconds; the provider's default when None)."""
        ...

    def get_checkout_session(self, session_id: str) -> CheckoutSession: ...

    def expire_checkout_session(self, session_id: str) -> CheckoutSession:
        """Close an open checkout so it can no longer be paid (PaymentRejected when it
        is already complete)."""
        ...

    def create_customer(
        self,
        *,
        email: str,
        name: str,
        user_id: str,
        idempotency_key: str,
        invoice_issuer: Issuer | None = None,
    ) -> str:
        """A customer; with `invoice_issuer`, its invoices (the subscription's) name the
        issuer and its registration number."""
        ...

    def set_invoice_issuer(self, customer_id: str, issuer: Issuer) -> None:
        """Make the customer's future invoices name `issuer` (a customer created before
        receipts existed). Doing it again changes nothing."""
        ...

    def ad_receipt_url(self, checkout_session_id: str) -> str | None:
        """The address of the invoice a paid one-time checkout issued; None while there is
        none (unpaid, or the checkout was made without an invoice)."""
        ...

    def subscription_receipts(self, customer_id: str) -> list[Receipt]:
        """The customer's paid subscription invoices, newest first."""
        ...

    def get_subscription(self, subscription_id: str) -> ProviderSubscription: ...

    def cancel_and_refund_subscription(self, subscription_id: str, *, idempotency_key: str) -> int:
        """End a subscription now and refund what was paid for it (a member's second
        paid subscription); returns the amount refunded. Doing it again refunds nothing
        more. PaymentRejected when the provider cannot refund it."""
        ...

    def create_portal_session(self, *, customer_id: str, return_url: str) -> str:
        """The address of a billing portal visit where the customer manages their
        subscriptions (plan change, cancel at period end, resume, payment method) and
        from which they come back to `return_url`."""
        ...

    def list_ad_payment_intents(
        self, *, created_from: int | None = None, created_to: int | None = None
    ) -> Iterator[PaymentIntent]: ...

    def create_price(
        self,
        *,
        unit_amount: int,
        currency: str,
        product_name: str,
        product_id: str | None,
        metadata: dict[str, str],
        idempotency_key: str,
    ) -> Price: ...

    def archive_price(self, price_id: str) -> Price: ...

    def verify_webhook(self, payload: bytes, signature_header: str | None) -> WebhookEvent:
        """The event a webhook delivers, in our terms (WebhookSignatureInvalid when the
        signature is not ours, or the signed body is not an event)."""
        ...

    def read_event(self, body: Mapping[str, Any]) -> WebhookEvent:
        """An event body verified and stored earlier (parsed JSON), in our terms."""
        ...
