"""A first run that shows everything: `subsearch sample load` also makes a demo
advertiser with a paid, approved ad this month on two slots, a demo admin and a little
history, the same rows however often it runs; and in development a request without
Edge-IPCountry is taken as DEV_DEFAULT_COUNTRY (JP), never in production."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from models.ads.admin import revenue
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reports import advertiser_reservations
from models.ads.reservations import approve
from models.clock import utcnow
from models.settings import get_settings, load_settings, use_settings
from models.tables import (
    AdCheckout,
    AdClickLog,
    AdImage,
    AdImpressionDaily,
    AdImpressionEvent,
    AdReservation,
    AdvertiserProfile,
    User,
)
from tests.factories import make_reservation
from web.app import create_app
from web.cli import main
from web.devtools.demo import ADMIN_EMAIL, ADVERTISER_EMAIL, SLOTS

TABLES = (
    User,
    AdvertiserProfile,
    AdImage,
    AdReservation,
    AdCheckout,
    AdImpressionDaily,
    AdImpressionEvent,
    AdClickLog,
)


def load():
    result = CliRunner().invoke(main, ["sample", "load"])
    assert result.exit_code == 0, result.output
    return result.output


def rows():
    counts = {table.__name__: table.select().count() for table in TABLES}
    counts["impressions"] = sum(d.impressions for d in AdImpressionDaily.select())
    return counts


def test_sample_load_makes_a_demo_advertiser_with_live_paid_ads_and_a_history(client, stub_broker):
    output = load()
    assert ADVERTISER_EMAIL in output and ADMIN_EMAIL in output
    advertiser = User.get(User.email == ADVERTISER_EMAIL)
    assert User.get(User.email == ADMIN_EMAIL).role == "admin"
    month = month_of(utcnow())
    own = advertiser_reservations(advertiser.id)
    assert sorted(o.reservation.slot_id for o in own) == sorted(SLOTS)
    for item in own:
        reservation = item.reservation
        assert reservation.status == "active"
        assert reservation.payment_intent_id
        assert reservation.start_month <= month <= reservation.end_month
        assert item.figures.impressions > 0
        assert item.figures.clicks <= item.figures.impressions
        assert AdImage.get(AdImage.user == advertiser.id)
    assert sum(row.amount_received for row in revenue().by_month) > 0  # paid at the provider
    clear_process_cache()
    served = client.get(f"/api/ads/serve?slot={SLOTS[0]}&country=JP").get_json()
    shown = [p["ad"]["reservationId"] for p in served["positions"] if p["ad"]]
    assert {o.reservation.id for o in own} & set(shown)
    image = client.get(next(p["ad"]["imageUrl"] for p in served["positions"] if p["ad"]))
    assert image.status_code == 200 and image.mimetype.startswith("image/")
    image.close()


def test_sample_load_twice_gives_the_same_rows(stub_broker):
    load()
    first = rows()
    assert first["AdReservation"] == len(SLOTS)
    assert first["AdClickLog"] > 0
    second_output = load()
    assert rows() == first
    assert "demo ad placed" not in second_output


# --- DEV_DEFAULT_COUNTRY --------------------------------------------------------------


@pytest.fixture
def live_midroll_ad():
    month = month_of(utcnow())
    reservation = make_reservation(
        slot="search-result-midroll",
        start_month=month,
        end_month=month,
        payment_intent_id="pi",
        advertiser_name="デフォルト国",
    )
    approve(reservation.id)
    clear_process_cache()
    return reservation


@pytest.fixture
def development_app():
    previous = get_settings()
    settings = load_settings({**os.environ, "APP_ENV": "development"}, read_dotenv=False)
    app = create_app(settings)
    app.config.update(TESTING=True)
    yield app
    use_settings(previous)


def test_a_development_request_without_the_header_is_taken_as_jp(development_app, live_midroll_ad):
    html = development_app.test_client().get("/search?q=存在しない").get_data(as_text=True)
    assert f'data-reservation-id="{live_midroll_ad.id}"' in html


def test_dev_default_country_can_name_another_country(live_midroll_ad):
    previous = get_settings()
    try:
        settings = load_settings(
            {**os.environ, "APP_ENV": "development", "DEV_DEFAULT_COUNTRY": "us"},
            read_dotenv=False,
        )
        assert settings.dev_default_country == "US"
        html = create_app(settings).test_client().get("/search?q=存在しない").get_data(as_text=True)
        assert f'data-reservation-id="{live_midroll_ad.id}"' not in html
    finally:
        use_settings(previous)


def test_a_production_request_without_the_header_is_not(live_midroll_ad):
    previous = get_settings()
    try:
        settings = load_settings(
            {
                "APP_ENV": "production",
                "SECRET_KEY": "prod-secret",
                "PAYMENT_BACKEND": "stripe",
                "DATABASE_URL": previous.database_url,
                "SEARCH_EMBEDDED_PATH": previous.search_path,
                "QUEUE_BROKER": "redis",
                "DEV_DEFAULT_COUNTRY": "JP",  # ignored in production
                "SUPPORT_EMAIL": "support@subsearch.example",
                "INVOICE_ISSUER_NAME": "subsearch 株式会社",
                "INVOICE_ISSUER_ADDRESS": "東京都千代田区千代田1-1",
                "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
            },
            read_dotenv=False,
        )
        assert settings.dev_default_country is None
        html = create_app(settings).test_client().get("/search?q=存在しない").get_data(as_text=True)
        assert f'data-reservation-id="{live_midroll_ad.id}"' not in html
        assert 'data-network-slot="search-result-midroll"' in html
    finally:
        use_settings(previous)
