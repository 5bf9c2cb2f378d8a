"""Configuration from the environment, and what production refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.settings import ConfigError, load_settings

pytestmark = pytest.mark.database_independent

PRODUCTION = {
    "APP_ENV": "production",
    "SECRET_KEY": "s3cret",
    "DEV_LOGIN": "off",
    "PAYMENT_BACKEND": "stripe",
    "SUPPORT_EMAIL": "support@subsearch.example",
    "INVOICE_ISSUER_NAME": "subsearch 株式会社",
    "INVOICE_ISSUER_ADDRESS": "東京都千代田区千代田1-1",
    "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
}


def test_development_defaults():
    settings = load_settings({}, read_dotenv=False)
    assert settings.app_env == "development"
    assert settings.database_url == "sqlite:///var/subsearch.db"
    assert settings.redis_url == "redis://127.0.0.1:6379/0"
    assert settings.search_backend == "embedded"
    assert settings.payment_backend == "local"
    assert settings.dev_login is True
    assert settings.video_api_backend == "fixture"
    assert settings.upload_dir == str(Path.cwd() / "var" / "uploads")
    assert settings.public_base_url == "http://127.0.0.1:8000"
    assert settings.ad_checkout_ttl_minutes == 60
    assert settings.secret_key  # random per start


def test_the_local_provider_has_a_signing_secret_out_of_the_box():
    assert load_settings({}, read_dotenv=False).payment_webhook_secrets == (
        "whsec_local_development",
    )
    stripe = load_settings({**PRODUCTION}, read_dotenv=False)
    assert stripe.payment_webhook_secrets == ()


def test_search_backend_follows_search_host():
    settings = load_settings({"SEARCH_HOST": "http://127.0.0.1:7700"}, read_dotenv=False)
    assert settings.search_backend == "meilisearch"


def test_several_webhook_secrets_and_per_country_prices():
    settings = load_settings(
        {
            "PAYMENT_WEBHOOK_SECRET": "whsec_a, whsec_b",
            "PAYMENT_AD_PRICE_JP_ID": "price_jp",
            "PAYMENT_AD_PRICE_US_ID": "price_us",
        },
        read_dotenv=False,
    )
    assert settings.payment_webhook_secrets == ("whsec_a", "whsec_b")
    assert settings.payment_ad_price_ids == {"JP": "price_jp", "US": "price_us"}


def test_a_complete_production_configuration_starts():
    settings = load_settings(PRODUCTION, read_dotenv=False)
    assert settings.is_production
    assert settings.dev_login is False
    assert settings.payment_backend == "stripe"


def test_production_defaults_to_stripe_and_no_dev_login():
    settings = load_settings(
        {
            **{name: PRODUCTION[name] for name in PRODUCTION if name.startswith("INVOICE_")},
            "APP_ENV": "production",
            "SECRET_KEY": "x",
            "SUPPORT_EMAIL": "a@b.example",
        },
        read_dotenv=False,
    )
    assert settings.payment_backend == "stripe"
    assert settings.dev_login is False


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY"),
        ({"DEV_LOGIN": "on"}, "DEV_LOGIN"),
        ({"PAYMENT_BACKEND": "local"}, "PAYMENT_BACKEND"),
        ({"QUEUE_BROKER": "stub"}, "QUEUE_BROKER"),
        ({"SUPPORT_EMAIL": ""}, "SUPPORT_EMAIL"),
        ({"INVOICE_ISSUER_NAME": ""}, "INVOICE_ISSUER_NAME"),
        ({"INVOICE_ISSUER_ADDRESS": ""}, "INVOICE_ISSUER_ADDRESS"),
        ({"INVOICE_REGISTRATION_NUMBER": ""}, "INVOICE_REGISTRATION_NUMBER"),
    ],
)
def test_production_refuses_to_start(change, problem):
    with pytest.raises(ConfigError, match=problem):
        load_settings({**PRODUCTION, **change}, read_dotenv=False)


@pytest.mark.parametrize(
    "env",
    [
        {"APP_ENV": "staging"},
        {"DEV_LOGIN": "maybe"},
        {"AD_CHECKOUT_TTL_MINUTES": "ten"},
        {"SEARCH_BACKEND": "elastic"},
        {"SUPPORT_EMAIL": "ads at example.com"},
    ],
)
def test_bad_values_are_named(env):
    with pytest.raises(ConfigError, match=next(iter(env))):
        load_settings(env, read_dotenv=False)


def test_the_contact_address_is_configured_in_production():
    settings = load_settings(PRODUCTION, read_dotenv=False)
    assert settings.support_email == "support@subsearch.example"
    without = {name: value for name, value in PRODUCTION.items() if name != "SUPPORT_EMAIL"}
    with pytest.raises(ConfigError, match="SUPPORT_EMAIL"):
        load_settings(
            {**without, "PUBLIC_BASE_URL": "https://subsearch.example"}, read_dotenv=False
        )


def test_development_writes_to_the_host_of_the_public_address_unless_told():
    assert load_settings({}, read_dotenv=False).support_email == "ads@127.0.0.1"
    told = load_settings({"SUPPORT_EMAIL": " help@example.jp "}, read_dotenv=False)
    assert told.support_email == "help@example.jp"


def test_dotenv_is_read_in_development_and_the_environment_wins(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("REDIS_URL=redis://10.0.0.1:6379/2\nSERVICE_NAME=字幕さん\n")
    monkeypatch.chdir(tmp_path)
    settings = load_settings({"SERVICE_NAME": "override"})
    assert settings.redis_url == "redis://10.0.0.1:6379/2"
    assert settings.service_name == "override"


def test_dotenv_is_ignored_in_production(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("REDIS_URL=redis://10.0.0.1:6379/2\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings(PRODUCTION).redis_url == "redis://127.0.0.1:6379/0"


def test_the_sample_file_lists_every_variable_and_loads_as_development(tmp_path, monkeypatch):
    root = Path(__file__).resolve().parents[2]
    sample = (root / ".env.sample").read_text()
    for name in (
        "APP_ENV",
        "SECRET_KEY",
        "DATABASE_URL",
        "REDIS_URL",
        "SEARCH_BACKEND",
        "SEARCH_HOST",
        "SEARCH_API_KEY",
        "SEARCH_MASTER_KEY",
        "METRICS_TOKEN",
        "PAYMENT_BACKEND",
        "PAYMENT_API_KEY",
        "PAYMENT_WEBHOOK_SECRET",
        "PAYMENT_AD_PRICE_JP_ID",
        "PAYMENT_PLUS_PRICE_ID",
        "PAYMENT_PRO_PRICE_ID",
        "OIDC_ISSUER",
        "OIDC_CLIENT_ID",
        "OIDC_CLIENT_SECRET",
        "DEV_LOGIN",
        "VIDEO_API_BACKEND",
        "VIDEO_API_KEY",
        "UPLOAD_DIR",
        "PUBLIC_BASE_URL",
        "AD_CHECKOUT_TTL_MINUTES",
        "SUPPORT_EMAIL",
        "CORS_ORIGINS",
        "INVOICE_ISSUER_NAME",
        "INVOICE_ISSUER_ADDRESS",
        "INVOICE_REGISTRATION_NUMBER",
    ):
        assert f"\n{name}=" in sample, name
    (tmp_path / ".env").write_text(sample)
    monkeypatch.chdir(tmp_path)
    settings = load_settings({})
    assert settings.app_env == "development"
    assert settings.dev_login is True
    assert settings.payment_backend == "local"
    assert settings.search_backend == "embedded"


def test_unpaid_holds_per_member_is_two_unless_set_and_at_least_one():
    assert load_settings({}, read_dotenv=False).ad_unpaid_holds_per_member == 2
    set_to = load_settings({"AD_UNPAID_HOLDS_PER_MEMBER": "5"}, read_dotenv=False)
    assert set_to.ad_unpaid_holds_per_member == 5
    with pytest.raises(ConfigError, match="AD_UNPAID_HOLDS_PER_MEMBER"):
        load_settings({"AD_UNPAID_HOLDS_PER_MEMBER": "0"}, read_dotenv=False)


def test_the_invoice_issuer_is_named_in_production():
    settings = load_settings(PRODUCTION, read_dotenv=False)
    assert settings.invoice_issuer_name == "subsearch 株式会社"
    assert settings.invoice_issuer_address == "東京都千代田区千代田1-1"
    assert settings.invoice_registration_number == "T1234567890123"


def test_development_and_tests_have_a_sample_issuer_unless_told():
    sample = load_settings({}, read_dotenv=False)
    assert sample.invoice_registration_number == "T1234567890123"
    assert "開発用" in (sample.invoice_issuer_name or "")
    named = load_settings({"INVOICE_ISSUER_NAME": "株式会社テスト"}, read_dotenv=False)
    assert named.invoice_issuer_name == "株式会社テスト"


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("T1234567890123", "T1234567890123"),
        ("Ｔ１２３４５６７８９０１２３", "T1234567890123"),
        ("t1-2345-6789-0123", "T1234567890123"),
    ],
)
def test_a_registration_number_is_taken_as_people_copy_it(given, kept):
    settings = load_settings({"INVOICE_REGISTRATION_NUMBER": given}, read_dotenv=False)
    assert settings.invoice_registration_number == kept


@pytest.mark.parametrize(
    "bad", ["1234567890123", "T123456789012", "T12345678901234", "TX234567890123"]
)
def test_a_bad_registration_number_refuses_the_start(bad):
    with pytest.raises(ConfigError, match="INVOICE_REGISTRATION_NUMBER must be T followed by 13"):
        load_settings({**PRODUCTION, "INVOICE_REGISTRATION_NUMBER": bad}, read_dotenv=False)
