"""Payments: one provider interface (base.py), the Stripe engine, and the typed events
their webhooks deliver (events.py). `get_provider()` returns the provider the
composition root (web/wiring.py) built for PAYMENT_BACKEND: the Stripe engine, or the
local stand-in for development, which lives outside the domain (web/devtools)."""

from __future__ import annotations

from models.payments.base import (
    CheckoutSession,
    LineItem,
    PaymentError,
    PaymentIntent,
    PaymentMisconfigured,
    PaymentNotFound,
    PaymentProvider,
    PaymentRejected,
    PaymentUnavailable,
    Price,
    ProviderSubscription,
    Receipt,
    WebhookSignatureInvalid,
)
from models.payments.events import (
    BaseEvent,
    CheckoutEvent,
    CheckoutExpired,
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    UnhandledEvent,
    WebhookEvent,
)
from models.services import Service
from models.settings import get_settings

__all__ = [
    "BaseEvent",
    "CheckoutEvent",
    "CheckoutExpired",
    "CheckoutPaid",
    "CheckoutPaymentFailed",
    "CheckoutPaymentPending",
    "CheckoutSession",
    "LineItem",
    "PaymentError",
    "PaymentIntent",
    "PaymentMisconfigured",
    "PaymentNotFound",
    "PaymentProvider",
    "PaymentRejected",
    "PaymentUnavailable",
    "Price",
    "ProviderSubscription",
    "Receipt",
    "SubscriptionChanged",
    "SubscriptionCheckoutCompleted",
    "UnhandledEvent",
    "WebhookEvent",
    "WebhookSignatureInvalid",
    "ad_price_id",
    "get_provider",
    "plan_price_id",
]

LOCAL_AD_PRICE = "price_local_ad_{country}"
LOCAL_PLAN_PRICES = {"plus": "price_local_plus", "pro": "price_local_pro"}

# Built by the composition root from the settings in use (models/services.py).
provider_service: Service[PaymentProvider] = Service("the payment provider")


def get_provider() -> PaymentProvider:
    """The provider for the current settings, as the composition root builds it."""
    return provider_service()


def ad_price_id(country: str) -> str | None:
    """The current ad price id of a country: PAYMENT_AD_PRICE_<COUNTRY>_ID, or the local
    engine's default price for Japan when unset."""
    settings = get_settings()
    configured = settings.payment_ad_price_ids.get(country.upper())
    if configured:
        return configured
    if settings.payment_backend == "local" and country.upper() == "JP":
        return LOCAL_AD_PRICE.format(country=country.lower())
    return None


def plan_price_id(plan: str) -> str | None:
    settings = get_settings()
    configured = {"plus": settings.payment_plus_price_id, "pro": settings.payment_pro_price_id}
    if configured.get(plan):
        return configured[plan]
    if settings.payment_backend == "local":
        return LOCAL_PLAN_PRICES.get(plan)
    return None


def plan_for_price(price_id: str | None) -> str | None:
    """Which plan a subscription price belongs to."""
    for plan in ("plus", "pro"):
        if price_id and plan_price_id(plan) == price_id:
            return plan
    return None
