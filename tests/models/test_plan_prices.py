"""The plans' prices as the account page shows them: read from the provider once per ten
minutes, a provider that does not answer asked again a minute later, and meanwhile the
price last read, or none."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import replace

import pytest

from models import plan_prices
from models.db import db
from models.payments import PaymentUnavailable, get_provider, provider_service
from models.plan_prices import CACHE_SECONDS, RETRY_SECONDS, plan_offers
from models.settings import get_settings, use_settings
from web.devtools.local_payments.tables import LocalPrice


class Provider:
    """The local provider, counting its price reads; `down` makes them fail as a provider
    out of reach does."""

    def __init__(self):
        self.real = get_provider()
        self.asked = 0
        self.down = False

    def get_price(self, price_id):
        self.asked += 1
        if self.down:
            raise PaymentUnavailable("connection refused")
        return self.real.get_price(price_id)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.fixture
def provider():
    with provider_service.swap(Provider()) as stand_in:
        yield stand_in


@contextmanager
def settings_changed(**changes):
    previous = get_settings()
    use_settings(replace(previous, **changes))
    try:
        yield
    finally:
        use_settings(previous)


def prices(offers) -> dict[str, int | None]:
    return {o.plan: o.price.unit_amount if o.price else None for o in offers.plans}


def test_every_plan_with_what_it_gives_and_each_paid_one_its_price(provider):
    offers = plan_offers(now=0)
    assert [(o.plan, o.monthly_credits, o.ads_shown) for o in offers.plans] == [
        ("free", 50, True),
        ("plus", 500, False),
        ("pro", 2000, False),
    ]
    assert prices(offers) == {"free": None, "plus": 980, "pro": 2980}
    assert offers.complete and not offers.prices_unreadable
    assert offers.currency == "jpy"


def test_the_provider_is_asked_again_only_after_ten_minutes(provider):
    plan_offers(now=0)
    plan_offers(now=CACHE_SECONDS - 1)
    assert provider.asked == 2  # plus and pro, once
    plan_offers(now=CACHE_SECONDS)
    assert provider.asked == 4


def test_a_provider_out_of_reach_leaves_the_plans_without_prices_for_a_minute(provider):
    provider.down = True
    offers = plan_offers(now=0)
    assert prices(offers) == {"free": None, "plus": None, "pro": None}
    assert not offers.complete and offers.prices_unreadable
    # not asked by every page meanwhile
    plan_offers(now=RETRY_SECONDS - 1)
    assert provider.asked == 2
    # a minute later it is asked again, and its answer kept for ten minutes
    provider.down = False
    offers = plan_offers(now=RETRY_SECONDS)
    assert prices(offers)["plus"] == 980 and offers.complete
    assert plan_offers(now=RETRY_SECONDS + CACHE_SECONDS - 1) == offers
    assert provider.asked == 4


def test_a_price_read_before_is_kept_while_the_provider_is_out_of_reach(provider):
    plan_offers(now=0)
    provider.down = True
    offers = plan_offers(now=CACHE_SECONDS)
    assert prices(offers) == {"free": None, "plus": 980, "pro": 2980}
    assert not offers.complete and not offers.prices_unreadable  # nothing missing to say


def test_an_archived_price_is_not_offered(provider):
    get_provider().archive_price("price_local_pro")
    offers = plan_offers(now=0)
    assert prices(offers) == {"free": None, "plus": 980, "pro": None}
    assert offers.complete  # the provider answered: nothing to ask again soon


def test_a_price_the_provider_does_not_know_is_not_offered(provider):
    with settings_changed(payment_plus_price_id="price_gone"):
        offers = plan_offers(now=0)
    assert prices(offers)["plus"] is None and offers.complete


def test_new_settings_read_the_prices_again(provider):
    plan_offers(now=0)
    with settings_changed():
        plan_offers(now=1)
    assert provider.asked == 4


def test_reading_the_prices_writes_nothing(provider):
    plan_offers(now=0)
    assert LocalPrice.select().count() == 0


def test_forget_reads_again(provider):
    plan_offers(now=0)
    plan_prices.forget()
    plan_offers(now=1)
    assert provider.asked == 4


def test_a_page_does_not_wait_long_for_another_page_reading_a_slow_provider(provider, monkeypatch):
    # Given one request of the process waiting on a provider that hangs
    monkeypatch.setattr(plan_prices, "WAIT_SECONDS", 0.2)
    asking, release = threading.Event(), threading.Event()
    real_get_price = provider.get_price

    def hanging(price_id):
        asking.set()
        release.wait(10)
        return real_get_price(price_id)

    provider.get_price = hanging

    def first_page():
        try:
            plan_offers()
        finally:
            db.close()  # the thread's own connection

    first = threading.Thread(target=first_page)
    first.start()
    try:
        assert asking.wait(10)
        # When another page asks meanwhile
        started = time.monotonic()
        offers = plan_offers()
        # Then it answers after the short wait, without prices, saying why
        assert time.monotonic() - started < 2
        assert offers.prices_unreadable
    finally:
        release.set()
        first.join(10)
    # and the first request's answer serves the pages after it
    assert prices(plan_offers())["pro"] == 2980
