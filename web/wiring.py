"""The composition root: the one place that decides which implementation each service
of the domain is, and wires a process with them.

Every process starts here: the app factory (`create_app`), the command line (`subsearch`,
so the scheduler too), and each worker process (Dramatiq's CLI calls `worker()`, see
`subsearch worker`). `wire` makes the settings the process's, installs how the payment
provider, the search engine, the embedder and the mailer are built from them
(models/services.py holds them; a change of settings builds anew), and sets up the broker
with every actor.

It sits in web/ because the local payment provider, a development stand-in with pages
of its own, lives in web/devtools and the domain may not import it.
"""

from __future__ import annotations

import dramatiq

import tasks
from models import mail, payments, search
from models.payments import PaymentProvider
from models.payments.stripe_engine import StripeProvider
from models.settings import Settings, get_settings, use_settings
from web.devtools.local_payments.engine import LocalProvider


def build_payment_provider(settings: Settings) -> PaymentProvider:
    """The provider PAYMENT_BACKEND names: Stripe, or the local stand-in."""
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


def install() -> None:
    """How each service is built from the settings in use (tests call this alone: they
    swap settings and brokers themselves)."""
    payments.provider_service.install(build_payment_provider)
    search.engine_service.install(search.build_engine)
    search.embedder_service.install(search.build_embedder)
    mail.mailer_service.install(mail.build_mailer)


def wire(settings: Settings) -> dramatiq.Broker:
    """Wire this process for `settings`; the process's broker. Again is harmless: the
    builders stay, the settings are the new ones, and the broker is the one it has."""
    use_settings(settings)
    install()
    return tasks.setup(settings)


def worker() -> dramatiq.Broker:
    """A worker process's set-up, as Dramatiq's CLI calls it (`web.wiring:worker`): the
    settings from the environment, wired."""
    return wire(get_settings())
