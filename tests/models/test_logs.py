"""models.logs: LOG_FORMAT read from the environment, the secrets taken out of lines, the
context carried by lines, and configure() replacing console handlers only."""

from __future__ import annotations

import io
import json
import logging

import pytest

from models import logs
from models.settings import ConfigError, get_settings, load_settings

pytestmark = pytest.mark.database_independent

PRODUCTION = {
    "APP_ENV": "production",
    "SECRET_KEY": "a-production-secret",
    "SUPPORT_EMAIL": "support@subsearch.example",
    "INVOICE_ISSUER_NAME": "subsearch 株式会社",
    "INVOICE_ISSUER_ADDRESS": "東京都千代田区千代田1-1",
    "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
}

log = logging.getLogger("tests.models.logs")


@pytest.fixture
def lines():
    """lines(log_format) -> a function reading what was logged since, as text lines."""
    buffers = []

    def start(log_format="json", secrets=()):
        buffer = io.StringIO()
        buffers.append(buffer)
        logs.configure(log_format, component="test", secrets=secrets, stream=buffer)
        return lambda: [line for line in buffer.getvalue().splitlines() if line.strip()]

    yield start
    logs.configure(get_settings().log_format, component="test")


def test_log_format_is_json_in_production_and_text_elsewhere():
    assert load_settings(PRODUCTION, read_dotenv=False).log_format == "json"
    for app_env in ("development", "test"):
        assert load_settings({"APP_ENV": app_env}, read_dotenv=False).log_format == "text"
    chosen = load_settings({**PRODUCTION, "LOG_FORMAT": "text"}, read_dotenv=False)
    assert chosen.log_format == "text"


@pytest.mark.parametrize("value", ["xml", "JSON", "plain"])
def test_an_unknown_log_format_is_a_configuration_error(value):
    with pytest.raises(ConfigError, match=r"LOG_FORMAT must be one of json, text"):
        load_settings({"LOG_FORMAT": value}, read_dotenv=False)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Authorization: Bearer abc.def-ghi", "Authorization: "),
        (
            "{'Authorization': 'Basic dXNlcjpwYXNz', 'Host': 'x'}",
            "{'Authorization': '', 'Host': 'x'}",
        ),
        ("Cookie: subsearch_session=eyJhbGciOi.x; lang=ja", "Cookie: "),
        (
            "set subsearch_session=eyJfZnJlc2giOmZhbHNlfQ.Z; Path=/",
            "set subsearch_session=; Path=/",
        ),
        ('{"X-CSRFToken": "IjQ5ZWM0ZjE3"}', '{"X-CSRFToken": ""}'),
        ("Stripe-Signature: t=1700000000,v1=5257a869e7", "Stripe-Signature: "),
        ("signing with whsec_abc123XYZ now", "signing with  now"),
        ("key sk_live_51Habc and sk_test_4eC39 and rk_live_9z", "key  and  and "),
        ("card 4242 4242 4242 4242 declined", "card  declined"),
        ("card 378282246310005 (amex)", "card  (amex)"),
        ("カード番号4242-4242-4242-4242です", "カード番号です"),
    ],
)
def test_credentials_are_taken_out_whatever_their_value(text, kept):
    redacted = logs.Redactor()(text)
    assert "[REDACTED]" in redacted
    assert redacted.replace("[REDACTED]", "") == kept


@pytest.mark.parametrize(
    "text",
    [
        "user 26bca037-494a-4ae8-aff4-b07bec820c2f unlocked Kq3ZtV8mWxA",
        "at 1764064748000 ms, 4242424242424241 is not a card (Luhn)",
        "the password reset page and an authorization step",
        "checkout_session=cs_test_1 paid",
        # ids whose digits happen to pass the card check: a UUID (its 16 digits from
        # 28 to 952400 are Luhn-valid) and a provider id
        "request fe88da78-5c28-4546-9331-952400c5061b answered",
        "payment pi_4242424242424242 and intent_4242-4242-4242-4242x",
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert logs.Redactor()(text) == text


def test_configured_secret_values_are_taken_out_and_short_ones_ignored():
    redact = logs.Redactor(["a-long-metrics-token", "short", ""])
    assert redact("token=a-long-metrics-token; short") == "token=[REDACTED]; short"


def test_secret_values_lists_every_configured_secret():
    env = {
        "SEARCH_API_KEY": "search-key-1",
        "SEARCH_MASTER_KEY": "master-key-1",
        "PAYMENT_API_KEY": "sk_test_key_1",
        "PAYMENT_WEBHOOK_SECRET": "whsec_one,whsec_two",
        "OIDC_CLIENT_SECRET": "oidc-secret-1",
        "VIDEO_API_KEY": "video-key-1",
        "METRICS_TOKEN": "metrics-token-1",
        "SECRET_KEY": "flask-secret-1",
    }
    expected = {value for value in env.values() if "," not in value} | {"whsec_one", "whsec_two"}
    assert set(logs.secret_values(load_settings(env, read_dotenv=False))) == expected


def test_a_json_line_has_the_fields_the_context_and_the_extras(lines):
    read = lines("json")
    with logs.bound(request_id="r-1", user_id=None):
        log.warning("hello %s", "world", extra={"status": 201})
    log.info("outside")

    first, second = (json.loads(line) for line in read())
    assert first["level"] == "warning"
    assert first["logger"] == "tests.models.logs"
    assert first["message"] == "hello world"
    assert first["component"] == "test"
    assert first["request_id"] == "r-1"
    assert "user_id" not in first  # None is left out
    assert first["status"] == 201
    assert second["message"] == "outside" and "request_id" not in second


def test_a_json_line_keeps_its_traceback_and_takes_secrets_out_of_it(lines):
    read = lines("json", secrets=["do-not-show-this"])
    try:
        raise ValueError("failed with do-not-show-this")
    except ValueError:
        log.exception("it failed")
    (line,) = (json.loads(text) for text in read())
    assert "ValueError: failed with [REDACTED]" in line["exception"]
    assert "do-not-show-this" not in json.dumps(line)


def test_a_text_line_is_not_json_and_carries_the_context(lines):
    read = lines("text", secrets=["do-not-show-this"])
    with logs.bound(message_id="m-1", attempt=2):
        log.info("sent do-not-show-this")
    (line,) = read()
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)
    assert line.endswith(" INFO [test] tests.models.logs: sent [REDACTED] message_id=m-1 attempt=2")


def test_configure_replaces_console_handlers_and_keeps_the_others(lines):
    root = logging.getLogger()
    console = logging.StreamHandler()  # what logging.basicConfig() adds
    keeper = logging.StreamHandler(io.StringIO())
    root.addHandler(console)
    root.addHandler(keeper)
    try:
        read = lines("json")
        ours = [h for h in root.handlers if isinstance(h, logs.StandardErrorHandler)]
        assert len(ours) == 1
        assert console not in root.handlers
        assert keeper in root.handlers
        log.info("once")
        assert len(read()) == 1  # one line, not one per configure()
    finally:
        root.removeHandler(keeper)
        root.removeHandler(console)


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="json, text"):
        logs.configure("yaml", component="test")
