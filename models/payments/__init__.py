"""Payments: one provider interface (base.py), the `stripe` and `local` engines, and the
typed events their webhooks deliver (events.py). `get_provider()` returns the engine
PAYMENT_BACKEND names."""

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
from models.payments.local_engine import LocalProvider
from models.payments.stripe_engine import StripeProvider
from models.settings import Settings, get_settings

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

# the settings a provider was built for, kept alive with it: keyed by id() instead, a
# new settings object at a freed one's address would get the old provider
_built: tuple[Settings, PaymentProvider] | None = None


def build_provider(settings: Settings) -> PaymentProvider:
    if settings.payment_backend == "stripe":
        return StripeProvider(
            settings.payment_api_key or "",
            webhook_secrets=settings.payment_webhook_secrets,
            api_base=settings.payment_api_base,
        )
    return LocalProvider(
        public_base_url=settings.public_base_url,
        webhook_secrets=settings.payment_webhook_secrets,
    )


def get_provider() -> PaymentProvider:
    """The provider for the current settings (built once per settings object)."""
    global _built
    settings = get_settings()
    built = _built
    if built is None or built[0] is not settings:
        built = _built = (settings, build_provider(settings))
    return built[1]


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
