"""The `stripe` engine: the official SDK's StripeClient, errors mapped to ours."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import stripe
from stripe.params import (
    CustomerCreateParams,
    CustomerCreateParamsInvoiceSettings,
    CustomerCreateParamsInvoiceSettingsCustomField,
    CustomerUpdateParams,
    InvoiceListParams,
    PaymentIntentListParams,
    PaymentIntentListParamsCreated,
    PriceCreateParams,
    TaxRateCreateParams,
)
from stripe.params.billing_portal import SessionCreateParams as PortalSessionCreateParams
from stripe.params.checkout import (
    SessionCreateParams,
    SessionCreateParamsInvoiceCreation,
    SessionCreateParamsInvoiceCreationInvoiceDataCustomField,
    SessionCreateParamsLineItem,
)

from models.invoices import STANDARD_RATE_PERCENT, InvoiceRequest, Issuer
from models.payments import stripe_events, webhooks
from models.payments.base import (
    CheckoutSession,
    LineItem,
    PaymentIntent,
    PaymentMisconfigured,
    PaymentNotFound,
    PaymentRejected,
    PaymentUnavailable,
    Price,
    ProviderSubscription,
    Receipt,
)
from models.payments.events import WebhookEvent

# The provider's limits on an invoice's custom fields (Stripe's API reference:
# invoice_creation.invoice_data.custom_fields, customer invoice_settings.custom_fields).
MAX_CUSTOM_FIELDS = 4
MAX_FIELD_NAME = 40
MAX_FIELD_VALUE = 140
# The service's own tax rate at the provider, found by this metadata: the consumption tax
# at the standard rate, inside every price (docs/decisions.md, Qualified invoices). On
# each line it makes the provider's invoice state the rate and the tax, as a qualified
# invoice must; the provider rounds it to the yen, half up, once per line, and every
# checkout and subscription here has one line.
TAX_RATE_MARK = {"subsearch_tax": f"consumption-{STANDARD_RATE_PERCENT}-inclusive"}


@contextmanager
def _mapped_errors() -> Iterator[None]:
    try:
        yield
    except stripe.InvalidRequestError as error:
        if error.code == "resource_missing":
            raise PaymentNotFound(error.user_message or str(error)) from error
        raise PaymentRejected(error.user_message or str(error)) from error
    except (stripe.AuthenticationError, stripe.PermissionError) as error:
        raise PaymentMisconfigured(str(error)) from error
    except stripe.CardError as error:
        raise PaymentRejected(error.user_message or str(error)) from error
    except stripe.StripeError as error:
        # Connection failures, rate limits, the provider's own errors: retry later.
        raise PaymentUnavailable(str(error)) from error


def _ms(seconds: Any) -> int | None:
    return None if seconds is None else int(seconds) * 1000


def _dict(obj: Any) -> dict[str, Any]:
    return dict(obj.to_dict() if hasattr(obj, "to_dict") else (obj or {}))


def _ref(value: Any) -> Any:
    """An expandable reference: the id, or the expanded object's id."""
    return value.get("id") if isinstance(value, dict) else value


def _price(obj: Any) -> Price:
    data = _dict(obj)
    product = data.get("product")
    recurring = data.get("recurring") or {}
    return Price(
        id=data["id"],
        unit_amount=int(data.get("unit_amount") or 0),
        currency=str(data.get("currency", "")).lower(),
        active=bool(data.get("active")),
        product=product.get("id") if isinstance(product, dict) else product,
        recurring_interval=recurring.get("interval"),
        metadata=dict(data.get("metadata") or {}),
    )


def _session(obj: Any) -> CheckoutSession:
    data = _dict(obj)
    return CheckoutSession(
        id=data["id"],
        url=data.get("url"),
        mode=data.get("mode", ""),
        status=data.get("status") or "open",
        expires_at=data.get("expires_at"),
        payment_intent_id=_ref(data.get("payment_intent")),
        subscription_id=_ref(data.get("subscription")),
        customer_id=_ref(data.get("customer")),
        metadata=dict(data.get("metadata") or {}),
        payment_status=data.get("payment_status"),
    )


def subscription_from_object(data: dict[str, Any]) -> ProviderSubscription:
    """A provider subscription object (API or event body) in our terms.

    Recent API versions keep the billing period on the subscription item, older
    ones on the subscription itself; both are read.
    """
    items = ((data.get("items") or {}).get("data")) or []
    item = items[0] if items else {}
    price = item.get("price") or {}
    if not isinstance(price, dict):
        price = {"id": price}
    customer = data.get("customer")
    schedule = data.get("schedule")
    return ProviderSubscription(
        id=data["id"],
        customer_id=_ref(customer),
        status=data.get("status", "incomplete"),
        price_id=price.get("id"),
        interval=(price.get("recurring") or {}).get("interval"),
        period_start=_ms(item.get("current_period_start") or data.get("current_period_start")),
        period_end=_ms(item.get("current_period_end") or data.get("current_period_end")),
        trial_start=_ms(data.get("trial_start")),
        trial_end=_ms(data.get("trial_end")),
        cancel_at_period_end=bool(data.get("cancel_at_period_end")),
        cancel_at=_ms(data.get("cancel_at")),
        canceled_at=_ms(data.get("canceled_at")),
        ended_at=_ms(data.get("ended_at")),
        schedule_id=_ref(schedule),
        metadata=dict(data.get("metadata") or {}),
    )


class StripeProvider:
    name = "stripe"

    def __init__(
        self,
        api_key: str,
        *,
        webhook_secrets: Iterable[str] = (),
        api_base: str | None = None,
        network_retries: int = 2,
    ):
        if not api_key:
            raise PaymentMisconfigured("PAYMENT_API_KEY is not set")
        self.webhook_secrets = tuple(webhook_secrets)
        self.client = stripe.StripeClient(
            api_key,
            base_addresses={"api": api_base} if api_base else None,
            max_network_retries=network_retries,
        )
        self.v1 = self.client.v1
        self._tax_rate_id: str | None = None

    def consumption_tax_rate(self) -> str:
        """The id of the service's inclusive consumption tax rate at the provider: found
        by its mark among the active inclusive rates, or made once (the idempotency key
        keeps two processes asking at once to one within the provider's 24 hours, and
        the next lookup finds it after that). Kept for the life of the process."""
        if self._tax_rate_id:
            return self._tax_rate_id
        mark = next(iter(TAX_RATE_MARK.items()))
        with _mapped_errors():
            rates = self.v1.tax_rates.list(params={"active": True, "inclusive": True, "limit": 100})
            for rate in rates.auto_paging_iter():
                if _dict(rate).get("metadata", {}).get(mark[0]) == mark[1]:
                    self._tax_rate_id = str(rate.id)
                    return self._tax_rate_id
            params: TaxRateCreateParams = {
                "display_name": "消費税",
                "description": f"消費税 {STANDARD_RATE_PERCENT}%（標準税率、税込価格）",
                "percentage": float(STANDARD_RATE_PERCENT),
                "inclusive": True,
                "country": "JP",
                "jurisdiction": "JP",
                "tax_type": "jct",
                "metadata": dict(TAX_RATE_MARK),
            }
            created = self.v1.tax_rates.create(
                params=params, options={"idempotency_key": f"tax-rate-{mark[1]}"}
            )
        self._tax_rate_id = str(created.id)
        return self._tax_rate_id

    def get_price(self, price_id: str) -> Price:
        with _mapped_errors():
            return _price(self.v1.prices.retrieve(price_id))

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
        tax_rate = self.consumption_tax_rate()
        params: SessionCreateParams = {
            "mode": "payment",
            "line_items": [_line(item, tax_rate) for item in line_items],
            "metadata": dict(metadata),
            # The payment intent carries the same metadata, so payments can be
            # traced to reservations (and summed per country) from the provider.
            "payment_intent_data": {"metadata": dict(metadata)},
            "success_url": success_url,
            "cancel_url": cancel_url,
            "expires_at": int(expires_at),
        }
        if invoice is not None:
            params["invoice_creation"] = _invoice_creation(invoice)
        with _mapped_errors():
            return _session(
                self.v1.checkout.sessions.create(
                    params=params, options={"idempotency_key": idempotency_key}
                )
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
        params: SessionCreateParams = {
            "mode": "subscription",
            "customer": customer_id,
            "client_reference_id": reference_id,
            "line_items": [{"price": price_id, "quantity": 1}],
            "metadata": {"reference_id": reference_id},
            # Each period's invoice states the tax inside the price (a qualified invoice).
            "subscription_data": {
                "metadata": {"reference_id": reference_id},
                "default_tax_rates": [self.consumption_tax_rate()],
            },
            "success_url": success_url,
            "cancel_url": cancel_url,
        }
        if expires_at:
            params["expires_at"] = int(expires_at)
        with _mapped_errors():
            return _session(
                self.v1.checkout.sessions.create(
                    params=params, options={"idempotency_key": idempotency_key}
                )
            )

    def get_checkout_session(self, session_id: str) -> CheckoutSession:
        with _mapped_errors():
            return _session(self.v1.checkout.sessions.retrieve(session_id))

    def expire_checkout_session(self, session_id: str) -> CheckoutSession:
        with _mapped_errors():
            return _session(self.v1.checkout.sessions.expire(session_id))

    def create_customer(
        self,
        *,
        email: str,
        name: str,
        user_id: str,
        idempotency_key: str,
        invoice_issuer: Issuer | None = None,
    ) -> str:
        params: CustomerCreateParams = {
            "email": email,
            "name": name,
            "metadata": {"user_id": user_id},
        }
        if invoice_issuer is not None:
            params["invoice_settings"] = _customer_invoice_settings(invoice_issuer)
        with _mapped_errors():
            customer = self.v1.customers.create(
                params=params, options={"idempotency_key": idempotency_key}
            )
        return customer.id

    def set_invoice_issuer(self, customer_id: str, issuer: Issuer) -> None:
        # The same values sent again replace them with themselves: harmless to repeat.
        params: CustomerUpdateParams = {"invoice_settings": _customer_invoice_settings(issuer)}
        with _mapped_errors():
            self.v1.customers.update(customer_id, params=params)

    def ad_receipt_url(self, checkout_session_id: str) -> str | None:
        """The hosted page of the invoice the checkout issued (invoice_creation): its
        `invoice`, expanded in the one request."""
        with _mapped_errors():
            session = _dict(
                self.v1.checkout.sessions.retrieve(
                    checkout_session_id, params={"expand": ["invoice"]}
                )
            )
            invoice = session.get("invoice")
            if isinstance(invoice, str):
                invoice = _dict(self.v1.invoices.retrieve(invoice))
        if not isinstance(invoice, dict) or invoice.get("status") != "paid":
            return None
        url = invoice.get("hosted_invoice_url")
        return str(url) if url else None

    def subscription_receipts(self, customer_id: str) -> list[Receipt]:
        """The customer's paid invoices with money in them (a trial's ¥0 invoice is no
        receipt), newest first as the provider lists them, every page."""
        params: InvoiceListParams = {"customer": customer_id, "status": "paid", "limit": 100}
        receipts: list[Receipt] = []
        with _mapped_errors():
            for invoice in self.v1.invoices.list(params=params).auto_paging_iter():
                receipt = _receipt(_dict(invoice))
                if receipt is not None:
                    receipts.append(receipt)
        return receipts

    def get_subscription(self, subscription_id: str) -> ProviderSubscription:
        with _mapped_errors():
            return subscription_from_object(_dict(self.v1.subscriptions.retrieve(subscription_id)))

    def cancel_and_refund_subscription(self, subscription_id: str, *, idempotency_key: str) -> int:
        """Cancel now (no proration, no final invoice), then refund every paid payment
        of its latest invoice: the first period's, since a duplicate is found when it
        starts. Idempotency keys make a repeat refund nothing more."""
        with _mapped_errors():
            subscription = _dict(self.v1.subscriptions.retrieve(subscription_id))
            if subscription.get("status") not in ("canceled", "incomplete_expired"):
                subscription = _dict(
                    self.v1.subscriptions.cancel(
                        subscription_id,
                        params={"prorate": False, "invoice_now": False},
                        options={"idempotency_key": f"{idempotency_key}-cancel"},
                    )
                )
            invoice = _ref(subscription.get("latest_invoice"))
            if not invoice:
                return 0
            refunded = 0
            payments = self.v1.invoice_payments.list(params={"invoice": invoice, "status": "paid"})
            for payment in payments.auto_paging_iter():
                data = _dict(payment)
                paid_with = data.get("payment") or {}
                intent = _ref(paid_with.get("payment_intent"))
                if not intent:
                    # Paid some other way (a charge, an out-of-band record): not ours to
                    # refund blindly, so the operator settles it.
                    raise PaymentRejected(
                        f"invoice {invoice} was paid by {paid_with.get('type') or 'an unknown'}"
                        " payment, which is refunded by hand"
                    )
                refunded += self._refund_rest(intent, subscription_id, idempotency_key)
            return refunded

    def _refund_rest(self, intent: str, subscription_id: str, idempotency_key: str) -> int:
        """Refund what the intent still holds and return all that was refunded of it: a
        repeat after the provider forgot the idempotency key (24 hours) finds the earlier
        refund and sends none."""
        received = int(_dict(self.v1.payment_intents.retrieve(intent)).get("amount_received") or 0)
        refunds = self.v1.refunds.list(params={"payment_intent": intent})
        done = sum(
            int(_dict(r).get("amount") or 0)
            for r in refunds.auto_paging_iter()
            if _dict(r).get("status") in ("succeeded", "pending", "requires_action")
        )
        if received - done <= 0:
            return done
        refund = _dict(
            self.v1.refunds.create(
                params={
                    "payment_intent": intent,
                    "amount": received - done,
                    "reason": "duplicate",
                    "metadata": {"duplicate_subscription": subscription_id},
                },
                options={"idempotency_key": f"{idempotency_key}-refund-{intent}"},
            )
        )
        return done + int(refund.get("amount") or 0)

    def create_portal_session(self, *, customer_id: str, return_url: str) -> str:
        # What the portal offers (plan change between the plan prices, downgrades at the
        # period end, cancel at period end, resume, payment method) is the account's
        # default portal configuration (docs/accounts.md, Managing the subscription).
        params: PortalSessionCreateParams = {"customer": customer_id, "return_url": return_url}
        with _mapped_errors():
            session = self.v1.billing_portal.sessions.create(params=params)
        if not session.url:
            raise PaymentUnavailable("The provider gave the portal session no address.")
        return str(session.url)

    def list_ad_payment_intents(
        self, *, created_from: int | None = None, created_to: int | None = None
    ) -> Iterator[PaymentIntent]:
        params: PaymentIntentListParams = {"limit": 100}
        created: PaymentIntentListParamsCreated = {}
        if created_from is not None:
            created["gte"] = int(created_from)
        if created_to is not None:
            created["lt"] = int(created_to)
        if created:
            params["created"] = created
        with _mapped_errors():
            for intent in self.v1.payment_intents.list(params=params).auto_paging_iter():
                data = _dict(intent)
                metadata = dict(data.get("metadata") or {})
                if stripe_events.AD_RESERVATION_KEY not in metadata:
                    continue  # subscriptions and anything else: not ad revenue
                received = int(data.get("amount_received") or 0)
                if received <= 0:
                    continue  # a delayed payment still awaited, failed or cancelled
                yield PaymentIntent(
                    id=data["id"],
                    amount_received=received,
                    currency=str(data.get("currency", "")).lower(),
                    created=int(data.get("created") or 0),
                    metadata=metadata,
                )

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
        params: PriceCreateParams = {
            "unit_amount": int(unit_amount),
            "currency": currency.lower(),
            "metadata": dict(metadata),
        }
        if product_id:
            params["product"] = product_id
        else:
            params["product_data"] = {"name": product_name}
        with _mapped_errors():
            return _price(
                self.v1.prices.create(params=params, options={"idempotency_key": idempotency_key})
            )

    def archive_price(self, price_id: str) -> Price:
        # Prices cannot be edited or deleted at the provider; archiving retires one.
        with _mapped_errors():
            return _price(self.v1.prices.update(price_id, params={"active": False}))

    def verify_webhook(self, payload: bytes, signature_header: str | None) -> WebhookEvent:
        return webhooks.verify(payload, signature_header, self.webhook_secrets)

    def read_event(self, body: Mapping[str, Any]) -> WebhookEvent:
        return stripe_events.parse_event(body)


def _line(item: LineItem, tax_rate: str) -> SessionCreateParamsLineItem:
    return {"price": item.price_id, "quantity": int(item.quantity), "tax_rates": [tax_rate]}


def _field(name: str, value: str) -> SessionCreateParamsInvoiceCreationInvoiceDataCustomField:
    """A custom field within the provider's limits (a longer buyer name is cut, never
    refused: the checkout must open)."""
    return {"name": name[:MAX_FIELD_NAME], "value": value[:MAX_FIELD_VALUE]}


def _invoice_creation(invoice: InvoiceRequest) -> SessionCreateParamsInvoiceCreation:
    """What makes the invoice of a paid ad checkout a qualified invoice (適格請求書): the
    issuer's registration number, the buyer (宛名) and theirs, and the tax at 10% of the
    tax-inclusive total (models/invoices.py); the issuer's name and address in the
    footer. Four custom fields at most: the provider's limit."""
    tax = invoice.tax_line
    fields = [
        _field("登録番号", invoice.issuer.registration_number),
        _field("宛名", f"{invoice.buyer_name} 御中"),
    ]
    if invoice.buyer_registration_number:
        fields.append(_field("お客様の登録番号", invoice.buyer_registration_number))
    fields.append(_field(tax.label, tax.text))
    return {
        "enabled": True,
        "invoice_data": {
            "custom_fields": fields[:MAX_CUSTOM_FIELDS],
            "description": invoice.description,
            "footer": invoice.issuer.footer,
            "metadata": dict(invoice.metadata),
        },
    }


def _customer_invoice_settings(issuer: Issuer) -> CustomerCreateParamsInvoiceSettings:
    """The customer's invoice defaults, which its subscription invoices take: the
    issuer's registration number, the rate the tax-inclusive prices hold, and the
    issuer's name and address in the footer."""
    fields: list[CustomerCreateParamsInvoiceSettingsCustomField] = [
        {"name": "登録番号", "value": issuer.registration_number},
        {"name": "適用税率", "value": f"{STANDARD_RATE_PERCENT}%（価格は税込）"},
    ]
    return {"custom_fields": fields, "footer": issuer.footer}


def _receipt(data: dict[str, Any]) -> Receipt | None:
    """A paid invoice as a receipt: the period of its (subscription) line, else the
    invoice's own period; None without a hosted page or money paid."""
    url = data.get("hosted_invoice_url")
    amount = int(data.get("amount_paid") or 0)
    if not url or amount <= 0:
        return None
    lines = (data.get("lines") or {}).get("data") or []
    period = (lines[0].get("period") if lines else None) or {}
    start = period.get("start") or data.get("period_start")
    end = period.get("end") or data.get("period_end")
    return Receipt(
        id=str(data["id"]),
        period_start=_ms(start) or 0,
        period_end=_ms(end) or 0,
        amount=amount,
        currency=str(data.get("currency", "")).lower(),
        url=str(url),
    )
