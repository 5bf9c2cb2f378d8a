"""The SMTP mailer against a real SMTP server on a loopback port: a sent message
arrives; "not now" answers and an unreachable server are deferrals, a refusal for good
is a rejection; SMTP_URL is checked when the settings load."""

from __future__ import annotations

from dataclasses import replace
from email.message import EmailMessage

import pytest

from models import logs
from models.mail import (
    MailDeferred,
    MailRejected,
    NullMailer,
    SmtpMailer,
    build_mailer,
    get_mailer,
    parse_smtp_url,
)
from models.settings import ConfigError, get_settings, load_settings, use_settings
from tests.smtp import SmtpServer, free_port

pytestmark = pytest.mark.database_independent


def message(to: str = "member@example.jp") -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = "subsearch <alerts@example.jp>"
    mail["To"] = to
    mail["Subject"] = "「たこ焼き」の新着"
    mail.set_content("本文です。\n")
    return mail


def test_a_message_arrives_as_sent(smtp_server):
    SmtpMailer(parse_smtp_url(smtp_server.url)).send(message())
    [received] = smtp_server.inbox.messages
    assert received["Subject"] == "「たこ焼き」の新着"
    assert received.get_content().splitlines() == ["本文です。"]
    assert smtp_server.inbox.envelopes == [("alerts@example.jp", ["member@example.jp"])]


def test_a_temporary_refusal_is_a_deferral(smtp_server):
    smtp_server.inbox.data_replies.append("451 4.3.0 Try again later")
    with pytest.raises(MailDeferred, match="451"):
        SmtpMailer(parse_smtp_url(smtp_server.url)).send(message())
    smtp_server.inbox.rcpt_replies.append("450 4.2.1 Mailbox busy")
    with pytest.raises(MailDeferred, match="450"):
        SmtpMailer(parse_smtp_url(smtp_server.url)).send(message())
    assert smtp_server.inbox.messages == []


def test_a_refusal_for_good_is_a_rejection_with_the_servers_words(smtp_server):
    smtp_server.inbox.rcpt_replies.append("550 5.1.1 No such user here")
    with pytest.raises(MailRejected) as refused:
        SmtpMailer(parse_smtp_url(smtp_server.url)).send(message())
    assert refused.value.code == 550
    assert str(refused.value) == "550 5.1.1 No such user here"
    smtp_server.inbox.data_replies.append("554 5.7.1 Message refused")
    with pytest.raises(MailRejected, match=r"^554 5\.7\.1"):
        SmtpMailer(parse_smtp_url(smtp_server.url)).send(message())


def test_an_unreachable_server_is_a_deferral():
    nobody = parse_smtp_url(f"smtp://127.0.0.1:{free_port()}")
    with pytest.raises(MailDeferred):
        SmtpMailer(nobody, timeout=5).send(message())


def test_it_logs_in_with_the_user_and_password_of_the_url():
    seen = []

    def check(server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult  # noqa: PLC0415  # aiosmtpd only here

        seen.append((auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.password == b"p@ss:word", handled=False)

    with SmtpServer(
        authenticator=check, auth_require_tls=False, auth_exclude_mechanism=["LOGIN"]
    ) as server:
        url = f"smtp://mailer:p%40ss%3Aword@127.0.0.1:{server.port}"
        SmtpMailer(parse_smtp_url(url)).send(message())
        assert seen == [(b"mailer", b"p@ss:word")]
        assert len(server.inbox.messages) == 1
        wrong = f"smtp://mailer:nope@127.0.0.1:{server.port}"
        # A refused login is the operator's to fix: retried, never held against a member.
        with pytest.raises(MailDeferred, match="535"):
            SmtpMailer(parse_smtp_url(wrong)).send(message())


def test_smtp_urls():
    assert parse_smtp_url("smtp://mail.example.jp") == parse_smtp_url("smtp://mail.example.jp:25")
    secure = parse_smtp_url("smtps://a%40b:c@mail.example.jp")
    assert (secure.secure, secure.port, secure.username, secure.password) == (
        True,
        465,
        "a@b",
        "c",
    )
    for bad in ("http://mail.example.jp", "smtp://", "mail.example.jp:25"):
        with pytest.raises(ValueError, match="SMTP_URL"):
            parse_smtp_url(bad)


def test_without_smtp_url_the_mailer_sends_nothing():
    settings = load_settings({"APP_ENV": "test"}, read_dotenv=False)
    assert settings.smtp_url is None
    mailer = build_mailer(settings)
    assert isinstance(mailer, NullMailer) and not mailer.delivers
    mailer.send(message())  # and says so in the log only


def test_the_process_mailer_follows_the_settings(smtp_server):
    assert get_mailer().delivers
    previous = get_settings()
    use_settings(replace(previous, smtp_url=None))
    try:
        assert not get_mailer().delivers
    finally:
        use_settings(previous)


def test_mail_settings_are_checked_when_they_load():
    base = {"APP_ENV": "test"}
    settings = load_settings({**base, "SMTP_URL": "smtps://u:s3cret@mail.example.jp"})
    assert settings.smtp_url == "smtps://u:s3cret@mail.example.jp"
    assert settings.mail_from == "subsearch <noreply@127.0.0.1>"
    assert settings.alert_digest_hour == 8
    assert "s3cret" in logs.secret_values(settings)
    with pytest.raises(ConfigError, match="SMTP_URL") as refused:
        load_settings({**base, "SMTP_URL": "http://u:s3cret@mail.example.jp"})
    assert "s3cret" not in str(refused.value)
    for hour in ("24", "-1", "eight"):
        with pytest.raises(ConfigError, match="ALERT_DIGEST_HOUR"):
            load_settings({**base, "ALERT_DIGEST_HOUR": hour})
    assert load_settings({**base, "ALERT_DIGEST_HOUR": "0"}).alert_digest_hour == 0


def test_production_with_smtp_names_its_sender():
    production = {
        "APP_ENV": "production",
        "SECRET_KEY": "k" * 40,
        "SUPPORT_EMAIL": "ads@example.jp",
        "PAYMENT_BACKEND": "stripe",
        "INVOICE_ISSUER_NAME": "株式会社",
        "INVOICE_ISSUER_ADDRESS": "東京都",
        "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
        "SMTP_URL": "smtp://mail.example.jp",
    }
    with pytest.raises(ConfigError, match="MAIL_FROM"):
        load_settings(production, read_dotenv=False)
    named = load_settings({**production, "MAIL_FROM": "alerts@example.jp"}, read_dotenv=False)
    assert named.mail_from == "alerts@example.jp"
