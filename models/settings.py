"""Configuration: every setting the service reads, parsed once from the environment.

In development a `.env` file in the working directory is read first (variables
already set win). Production refuses to start without its secrets.
"""

from __future__ import annotations

import os
import re
import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import overload
from urllib.parse import urlsplit

from dotenv import dotenv_values
from limits import parse_many

ENVIRONMENTS = ("development", "test", "production")
LOG_FORMATS = ("json", "text")
LOCAL_WEBHOOK_SECRET = "whsec_local_development"
TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


class ConfigError(RuntimeError):
    """The environment does not describe a service that may start."""


@overload
def _text(env: Mapping[str, str], name: str) -> str | None: ...
@overload
def _text(env: Mapping[str, str], name: str, default: str) -> str: ...
def _text(env: Mapping[str, str], name: str, default: str | None = None) -> str | None:
    value = env.get(name)
    if value is None:
        return default
    # Secrets are supplied without a trailing newline; tolerate one anyway.
    value = value.strip()
    return value if value else default


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name} must be one of on/off, true/false, 1/0 (got {raw!r})")


def _int(env: Mapping[str, str], name: str, default: int, minimum: int | None = None) -> int:
    raw = _text(env, name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number (got {raw!r})") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be at least {minimum} (got {value})")
    return value


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    value = _text(env, name, default)
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)} (got {value!r})")
    return value


def _list(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    raw = _text(env, name, "")
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _absolute(path: str) -> str:
    """A relative path is taken from the working directory, once, when settings load:
    Flask would otherwise resolve a relative folder from the web package."""
    return str(Path(path).expanduser().absolute())


def _rate(env: Mapping[str, str], name: str, default: str) -> str:
    """A rate limit in the `limits` notation: one or more `N/period`, separated by `;`
    (`60/minute;1200/hour`). Checked here, so a typo stops the start, not a request."""
    value = _text(env, name, default)
    try:
        parse_many(value)
    except ValueError:
        raise ConfigError(
            f"{name} must be limits such as 60/minute;1200/hour (got {value!r})"
        ) from None
    return value


def _email(env: Mapping[str, str], name: str) -> str | None:
    """An e-mail address people are told to write to; the shape the advertiser
    profiles' contact address is held to (models.ads.profiles.EMAIL)."""
    value = _text(env, name)
    if value is not None and not EMAIL.match(value):
        raise ConfigError(
            f"{name} must be an e-mail address such as ads@example.com (got {value!r})"
        )
    return value


ANY_ORIGIN = "*"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origins(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated web origins (`https://example.com,http://localhost:5173`), each
    written as a browser sends it in `Origin` (scheme and host in lower case, a default
    port left out), or `*` alone for any site. An origin with a path, a query, a user,
    a wildcard or another scheme than http/https refuses the start."""
    values = _list(env, name)
    if ANY_ORIGIN in values:
        if len(values) > 1:
            raise ConfigError(f"{name}: * (any site) stands alone (got {', '.join(values)})")
        return (ANY_ORIGIN,)
    return tuple(dict.fromkeys(_origin(name, value) for value in values))


def _origin(name: str, value: str) -> str:
    problem = (
        f"{name}: {value!r} is not an origin: write scheme://host[:port], http or https,"
        " without a path (not even /), such as https://example.com"
    )
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(problem) from None
    host = (parts.hostname or "").lower()
    if (
        scheme not in _DEFAULT_PORTS
        or not host
        or "*" in host
        or parts.username is not None
        or parts.path
        or parts.query
        or parts.fragment
        or value.endswith(("?", "#"))
    ):
        raise ConfigError(problem)
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


REGISTRATION_NUMBER = re.compile(r"^T\d{13}$")
# Development and tests: an issuer that is plainly a sample (production names its own).
SAMPLE_INVOICE_ISSUER = {
    "INVOICE_ISSUER_NAME": "サンプル株式会社（開発用）",
    "INVOICE_ISSUER_ADDRESS": "東京都千代田区千代田1-1（開発用の見本）",
    "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
}


def _registration_number(env: Mapping[str, str], name: str) -> str | None:
    """A qualified invoice issuer's registration number: T and 13 digits. Full-width
    characters and hyphens, as people copy it from the registry's site, are taken."""
    raw = _text(env, name)
    if raw is None:
        return None
    value = unicodedata.normalize("NFKC", raw).replace("-", "").replace(" ", "").upper()
    if not REGISTRATION_NUMBER.match(value):
        raise ConfigError(
            f"{name} must be T followed by 13 digits, such as T1234567890123 (got {raw!r})"
        )
    return value


def _smtp_url(env: Mapping[str, str], name: str) -> str | None:
    """smtp://[user:pass@]host[:port] or smtps://...; anything else refuses the start."""
    value = _text(env, name)
    if value is None:
        return None
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018  # raises for a port that is not a number
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme.lower() not in ("smtp", "smtps") or not parts.hostname:
        raise ConfigError(
            f"{name} must be smtp://[user:pass@]host[:port] or smtps://... (got a value of"
            f" scheme {parts.scheme or 'none'!r})"
        )
    return value


def _hour(env: Mapping[str, str], name: str, default: int) -> int:
    value = _int(env, name, default, minimum=0)
    if value > 23:
        raise ConfigError(f"{name} must be an hour from 0 to 23 (got {value})")
    return value


def _dev_default_country(env: Mapping[str, str], app_env: str) -> str | None:
    """DEV_DEFAULT_COUNTRY (default JP): the country of a development request without
    Edge-IPCountry. Ignored outside development: the edge always sends the header."""
    if app_env != "development":
        return None
    value = _text(env, "DEV_DEFAULT_COUNTRY", "JP").upper()
    if len(value) != 2 or not value.isalpha():
        raise ConfigError(f"DEV_DEFAULT_COUNTRY must be a two-letter country code (got {value!r})")
    return value


@dataclass(frozen=True)
class Settings:
    app_env: str = "development"
    secret_key: str = ""
    database_url: str = "sqlite:///var/subsearch.db"
    redis_url: str = "redis://127.0.0.1:6379/0"
    search_backend: str = "embedded"
    search_host: str | None = None
    search_api_key: str | None = None
    search_master_key: str | None = None
    search_path: str = "var/search.db"
    # SEARCH_TIME_BUDGET_MS: what one search may take on either engine before it is
    # stopped (503 search_busy); models.search.base.DEFAULT_TIME_BUDGET_MS.
    search_time_budget_ms: int = 1000
    # SEARCH_EMBEDDER: what searches by meaning (models/search/embedder.py): e5-small,
    # sentence-transformers (a model directory, SEARCH_EMBEDDER_PATH) or none.
    search_embedder: str = "e5-small"
    search_embedder_path: str | None = None
    # SEARCH_MEANING_CONCURRENCY: questions of one process on their way to its model at
    # once; past it a search by meaning is 503 search_busy (models/search/embedder.py).
    search_meaning_concurrency: int = 2
    payment_backend: str = "local"
    payment_api_key: str | None = None
    payment_api_base: str | None = None
    payment_webhook_secrets: tuple[str, ...] = ()
    payment_ad_price_ids: dict[str, str] = field(default_factory=dict)
    payment_plus_price_id: str | None = None
    payment_pro_price_id: str | None = None
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = None
    dev_login: bool = True
    video_api_backend: str = "fixture"
    video_api_key: str | None = None
    video_fixture_dir: str | None = None
    # PLATFORM_BACKOFF_SECONDS, PLATFORM_BACKOFF_MAX_SECONDS: how long every subtitle
    # fetch pauses after the platform refuses this service's address, doubling while it
    # goes on refusing (models/platform_pause.py).
    platform_backoff_seconds: int = 300
    platform_backoff_max_seconds: int = 21600
    # VIDEO_API_BASE: the Data API's address; VIDEO_API_DAILY_UNITS: its quota per Pacific
    # day, which imports and refreshes stop before (models/platform/quota.py).
    video_api_base: str = "https://www.googleapis.com/youtube/v3"
    video_api_daily_units: int = 10000
    # SUBTITLE_PROXY_URL: an HTTP(S) proxy every transcript fetch goes through; or
    # Webshare's rotating residential proxies by their account (only transcript fetches).
    subtitle_proxy_url: str | None = None
    subtitle_proxy_webshare_username: str | None = None
    subtitle_proxy_webshare_password: str | None = None
    # SUBTITLE_FETCHES_PER_MINUTE: transcript fetches across every worker process.
    subtitle_fetches_per_minute: int = 30
    upload_dir: str = "var/uploads"
    public_base_url: str = "http://127.0.0.1:8000"
    ad_checkout_ttl_minutes: int = 60
    # AD_UNPAID_HOLDS_PER_MEMBER: reservations one member may hold unpaid at once, so one
    # account cannot fill slots with checkouts it never pays (docs/ads.md).
    ad_unpaid_holds_per_member: int = 2
    service_name: str = "subsearch"
    # SUPPORT_EMAIL: the contact address in stop notices and on the advertisers' pages;
    # required in production, else ads@<host of PUBLIC_BASE_URL>.
    support_email: str = ""
    session_days: int = 30
    queue_dead_letter_days: int = 30
    # WORKER_POISON_DEATHS: a message that has killed this many worker processes is
    # dead-lettered instead of run again (workers/poison.py).
    worker_poison_deaths: int = 3
    queue_broker: str = "redis"
    dev_default_country: str | None = None
    metrics_token: str | None = None  # GET /metrics answers only with it (unset: 404)
    log_format: str = "text"  # LOG_FORMAT: json or text lines on standard error
    # Rate limits (web/limits.py; docs/operating.md, Rate limits): per signed-in user,
    # else per client address; each the `limits` notation. The defaults are above what a
    # person using the site by hand, however fast, ever sends.
    rate_limits_enabled: bool = True
    rate_limit_search: str = "60/minute;1200/hour"
    # RATE_LIMIT_SEARCH_MEANING_COST: how many searches a search by meaning counts for in
    # RATE_LIMIT_SEARCH (its question costs the model about what several keyword
    # searches cost the index).
    rate_limit_search_meaning_cost: int = 5
    rate_limit_unlock: str = "20/minute;300/hour"
    rate_limit_referral_claim: str = "5/minute;30/day"
    rate_limit_upload: str = "20/minute;200/hour"
    rate_limit_ad_profiles: str = "20/minute;200/hour"
    rate_limit_reservations: str = "20/minute;200/hour"
    rate_limit_billing: str = "10/minute;100/hour"
    rate_limit_alerts: str = "20/minute;200/hour"
    rate_limit_sign_in: str = "30/minute;300/hour"
    # Invalid impression beacons (bad, expired or replayed view tokens) from one address;
    # past it they are answered at once, checked no further.
    rate_limit_invalid_beacons: str = "30/minute"
    # Proxies in front of the web process whose X-Forwarded-For is trusted (0: none; the
    # address of the connection is the client's).
    trusted_proxy_hops: int = 0
    # Seconds a counted beacon entry may stay unacknowledged before another consumer of
    # the beacons' stream claims it (workers/beacons.py): its reader is taken for dead.
    ad_counting_claim_seconds: int = 30
    # CORS_ORIGINS: the sites whose pages may read the public read API (web/cors.py), as
    # browsers write their Origin; ("*",) for any site; () for none.
    cors_origins: tuple[str, ...] = ()
    # INVOICE_ISSUER_NAME, INVOICE_ISSUER_ADDRESS, INVOICE_REGISTRATION_NUMBER: the seller
    # every receipt (qualified invoice, 適格請求書) names (models/invoices.py); required in
    # production, a plain sample in development and tests.
    invoice_issuer_name: str | None = None
    invoice_issuer_address: str | None = None
    invoice_registration_number: str | None = None
    # SMTP_URL: the operator's SMTP server for alert mail (models/mail.py), smtp:// (with
    # STARTTLS when offered) or smtps://, user:pass@ to log in; unset: no mail is sent
    # (news still shows in the app and the feeds). MAIL_FROM: the mails' From.
    smtp_url: str | None = None
    mail_from: str = ""
    # ALERT_DIGEST_HOUR: the hour (0-23, the member's own time zone) of the daily digests.
    alert_digest_hour: int = 8

    @property
    def is_production(self) -> bool:
        return self.app_env == "production"

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def load_settings(
    environ: Mapping[str, str] | None = None, *, read_dotenv: bool = True
) -> Settings:
    env = dict(os.environ if environ is None else environ)
    app_env = _choice(env, "APP_ENV", "development", ENVIRONMENTS)
    if read_dotenv and app_env == "development" and Path(".env").is_file():
        file_values = {k: v for k, v in dotenv_values(".env").items() if v is not None}
        env = {**file_values, **env}
        app_env = _choice(env, "APP_ENV", "development", ENVIRONMENTS)
    production = app_env == "production"

    secret_key = _text(env, "SECRET_KEY")
    search_host = _text(env, "SEARCH_HOST")
    ad_prices = {
        name[len("PAYMENT_AD_PRICE_") : -len("_ID")]: value.strip()
        for name, value in env.items()
        if name.startswith("PAYMENT_AD_PRICE_") and name.endswith("_ID") and value.strip()
    }
    settings = Settings(
        app_env=app_env,
        secret_key=secret_key or secrets.token_urlsafe(32),
        database_url=_text(env, "DATABASE_URL", "sqlite:///var/subsearch.db"),
        redis_url=_text(env, "REDIS_URL", "redis://127.0.0.1:6379/0"),
        search_backend=_choice(
            env,
            "SEARCH_BACKEND",
            "meilisearch" if search_host else "embedded",
            ("embedded", "meilisearch"),
        ),
        search_host=search_host,
        search_api_key=_text(env, "SEARCH_API_KEY"),
        search_master_key=_text(env, "SEARCH_MASTER_KEY"),
        search_path=_absolute(_text(env, "SEARCH_EMBEDDED_PATH", "var/search.db")),
        search_time_budget_ms=_int(env, "SEARCH_TIME_BUDGET_MS", 1000, minimum=10),
        search_embedder=_choice(
            env, "SEARCH_EMBEDDER", "e5-small", ("e5-small", "sentence-transformers", "none")
        ),
        search_embedder_path=_text(env, "SEARCH_EMBEDDER_PATH"),
        search_meaning_concurrency=_int(env, "SEARCH_MEANING_CONCURRENCY", 2, minimum=1),
        payment_backend=_choice(
            env, "PAYMENT_BACKEND", "stripe" if production else "local", ("local", "stripe")
        ),
        payment_api_key=_text(env, "PAYMENT_API_KEY"),
        payment_api_base=_text(env, "PAYMENT_API_BASE"),
        payment_webhook_secrets=_list(env, "PAYMENT_WEBHOOK_SECRET"),
        payment_ad_price_ids=ad_prices,
        payment_plus_price_id=_text(env, "PAYMENT_PLUS_PRICE_ID"),
        payment_pro_price_id=_text(env, "PAYMENT_PRO_PRICE_ID"),
        oidc_issuer=_text(env, "OIDC_ISSUER"),
        oidc_client_id=_text(env, "OIDC_CLIENT_ID"),
        oidc_client_secret=_text(env, "OIDC_CLIENT_SECRET"),
        dev_login=_flag(env, "DEV_LOGIN", not production),
        video_api_backend=_choice(env, "VIDEO_API_BACKEND", "fixture", ("fixture", "youtube")),
        video_api_key=_text(env, "VIDEO_API_KEY"),
        video_fixture_dir=_text(env, "VIDEO_FIXTURE_DIR"),
        platform_backoff_seconds=_int(env, "PLATFORM_BACKOFF_SECONDS", 300, minimum=1),
        platform_backoff_max_seconds=_int(env, "PLATFORM_BACKOFF_MAX_SECONDS", 21600, minimum=1),
        video_api_base=_text(env, "VIDEO_API_BASE", "https://www.googleapis.com/youtube/v3"),
        video_api_daily_units=_int(env, "VIDEO_API_DAILY_UNITS", 10000, minimum=1),
        subtitle_proxy_url=_text(env, "SUBTITLE_PROXY_URL"),
        subtitle_proxy_webshare_username=_text(env, "SUBTITLE_PROXY_WEBSHARE_USERNAME"),
        subtitle_proxy_webshare_password=_text(env, "SUBTITLE_PROXY_WEBSHARE_PASSWORD"),
        subtitle_fetches_per_minute=_int(env, "SUBTITLE_FETCHES_PER_MINUTE", 30, minimum=1),
        upload_dir=_absolute(_text(env, "UPLOAD_DIR", "var/uploads")),
        public_base_url=_text(env, "PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/"),
        ad_checkout_ttl_minutes=_int(env, "AD_CHECKOUT_TTL_MINUTES", 60, minimum=30),
        ad_unpaid_holds_per_member=_int(env, "AD_UNPAID_HOLDS_PER_MEMBER", 2, minimum=1),
        service_name=_text(env, "SERVICE_NAME", "subsearch"),
        support_email=_email(env, "SUPPORT_EMAIL") or "",
        session_days=_int(env, "SESSION_DAYS", 30, minimum=1),
        queue_dead_letter_days=_int(env, "QUEUE_DEAD_LETTER_DAYS", 30, minimum=1),
        worker_poison_deaths=_int(env, "WORKER_POISON_DEATHS", 3, minimum=1),
        queue_broker=_choice(env, "QUEUE_BROKER", "redis", ("redis", "stub")),
        dev_default_country=_dev_default_country(env, app_env),
        metrics_token=_text(env, "METRICS_TOKEN"),
        log_format=_choice(env, "LOG_FORMAT", "json" if production else "text", LOG_FORMATS),
        rate_limits_enabled=_flag(env, "RATE_LIMITS_ENABLED", True),
        rate_limit_search=_rate(env, "RATE_LIMIT_SEARCH", Settings.rate_limit_search),
        rate_limit_search_meaning_cost=_int(env, "RATE_LIMIT_SEARCH_MEANING_COST", 5, minimum=1),
        rate_limit_unlock=_rate(env, "RATE_LIMIT_UNLOCK", Settings.rate_limit_unlock),
        rate_limit_referral_claim=_rate(
            env, "RATE_LIMIT_REFERRAL_CLAIM", Settings.rate_limit_referral_claim
        ),
        rate_limit_upload=_rate(env, "RATE_LIMIT_UPLOAD", Settings.rate_limit_upload),
        rate_limit_ad_profiles=_rate(
            env, "RATE_LIMIT_AD_PROFILES", Settings.rate_limit_ad_profiles
        ),
        rate_limit_reservations=_rate(
            env, "RATE_LIMIT_RESERVATIONS", Settings.rate_limit_reservations
        ),
        rate_limit_billing=_rate(env, "RATE_LIMIT_BILLING", Settings.rate_limit_billing),
        rate_limit_alerts=_rate(env, "RATE_LIMIT_ALERTS", Settings.rate_limit_alerts),
        rate_limit_sign_in=_rate(env, "RATE_LIMIT_SIGN_IN", Settings.rate_limit_sign_in),
        rate_limit_invalid_beacons=_rate(
            env, "RATE_LIMIT_INVALID_BEACONS", Settings.rate_limit_invalid_beacons
        ),
        trusted_proxy_hops=_int(env, "TRUSTED_PROXY_HOPS", 0, minimum=0),
        ad_counting_claim_seconds=_int(env, "AD_COUNTING_CLAIM_SECONDS", 30, minimum=1),
        cors_origins=_origins(env, "CORS_ORIGINS"),
        invoice_issuer_name=_text(env, "INVOICE_ISSUER_NAME"),
        invoice_issuer_address=_text(env, "INVOICE_ISSUER_ADDRESS"),
        invoice_registration_number=_registration_number(env, "INVOICE_REGISTRATION_NUMBER"),
        smtp_url=_smtp_url(env, "SMTP_URL"),
        mail_from=_text(env, "MAIL_FROM", ""),
        alert_digest_hour=_hour(env, "ALERT_DIGEST_HOUR", 8),
    )
    if not production:
        # Development and tests: a sample issuer for what is unset (one named by the
        # environment stays), so receipts can be tried out of the box.
        settings = replace(
            settings,
            invoice_issuer_name=settings.invoice_issuer_name
            or SAMPLE_INVOICE_ISSUER["INVOICE_ISSUER_NAME"],
            invoice_issuer_address=settings.invoice_issuer_address
            or SAMPLE_INVOICE_ISSUER["INVOICE_ISSUER_ADDRESS"],
            invoice_registration_number=settings.invoice_registration_number
            or SAMPLE_INVOICE_ISSUER["INVOICE_REGISTRATION_NUMBER"],
        )
    if not settings.support_email and not production:
        # Development and tests only: production names its own (refused without it).
        host = urlsplit(settings.public_base_url).hostname or "localhost"
        settings = replace(settings, support_email=f"ads@{host}")
    mail_from_given = bool(settings.mail_from)
    if not settings.mail_from:
        # Without MAIL_FROM (refused in production when SMTP_URL is set): the service's
        # name at the host of PUBLIC_BASE_URL.
        host = urlsplit(settings.public_base_url).hostname or "localhost"
        settings = replace(settings, mail_from=f"{settings.service_name} <noreply@{host}>")
    if settings.payment_backend == "local" and not settings.payment_webhook_secrets:
        # The offline provider signs its events too; give it a secret out of the box.
        settings = replace(settings, payment_webhook_secrets=(LOCAL_WEBHOOK_SECRET,))
    if settings.search_embedder == "sentence-transformers" and not settings.search_embedder_path:
        raise ConfigError(
            "SEARCH_EMBEDDER=sentence-transformers needs SEARCH_EMBEDDER_PATH, the model's folder"
        )
    if production:
        _refuse_unsafe_production(settings, secret_key, mail_from_given=mail_from_given)
    return settings


def _refuse_unsafe_production(
    settings: Settings, secret_key: str | None, *, mail_from_given: bool = True
) -> None:
    problems: list[str] = []
    if not secret_key:
        problems.append("SECRET_KEY is required in production")
    if settings.dev_login:
        problems.append("DEV_LOGIN must be off in production")
    if settings.payment_backend == "local":
        problems.append("PAYMENT_BACKEND=local is for development only")
    if settings.queue_broker != "redis":
        problems.append("QUEUE_BROKER=stub is for tests only")
    if settings.smtp_url and not mail_from_given:
        problems.append("MAIL_FROM (the alert mails' sender) is required with SMTP_URL")
    if not settings.support_email:
        problems.append("SUPPORT_EMAIL (the contact address pages and notices give) is required")
    for name, value in (
        ("INVOICE_ISSUER_NAME", settings.invoice_issuer_name),
        ("INVOICE_ISSUER_ADDRESS", settings.invoice_issuer_address),
        ("INVOICE_REGISTRATION_NUMBER", settings.invoice_registration_number),
    ):
        if not value:
            problems.append(f"{name} (the seller every receipt, 適格請求書, names) is required")
    if problems:
        raise ConfigError("; ".join(problems))


_current: Settings | None = None


def get_settings() -> Settings:
    """The process-wide settings, loaded on first use."""
    global _current
    if _current is None:
        _current = load_settings()
    return _current


def use_settings(settings: Settings) -> Settings:
    """Replace the process-wide settings (app factory, tests)."""
    global _current
    _current = settings
    return settings
