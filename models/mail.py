"""Outgoing mail: a small Mailer interface with the operator's SMTP server behind it
(SMTP_URL), or a null one when SMTP_URL is unset (`make run`), which sends nothing.

A send either goes through, or fails in one of two ways the caller treats apart:
`MailDeferred` (the server or the network said "not now": try again later) and
`MailRejected` (the server refused this message for good, 5xx on its recipient or its
content: trying again will not help). Built by the composition root (web/wiring.py)
from the settings in use, as the other services are (models/services.py).
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol
from urllib.parse import unquote, urlsplit

from models.services import Service
from models.settings import Settings

log = logging.getLogger(__name__)

# What one SMTP conversation may take before it counts as a deferral (each socket
# operation; smtplib's own default is to wait for ever).
SMTP_TIMEOUT_SECONDS = 30


class MailError(Exception):
    """A message was not sent."""


class MailDeferred(MailError):
    """Not sent this time (unreachable server, 4xx, a refused login): try again later."""


class MailRejected(MailError):
    """Refused for good (5xx on the recipient or the message): do not try it again.
    Its text is the server's reply, code first (`550 5.1.1 No such user`)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class Mailer(Protocol):
    """Sends one message, or raises MailDeferred or MailRejected."""

    @property
    def delivers(self) -> bool:
        """False for the null mailer: callers keep what they would have sent."""
        ...

    def send(self, message: EmailMessage) -> None: ...


class NullMailer:
    """No SMTP_URL: nothing is sent. Callers see `delivers` False and keep their news
    unsent (in the app and the feed), so setting SMTP_URL later loses nothing."""

    delivers = False

    def send(self, message: EmailMessage) -> None:
        log.info("mail not sent (no SMTP_URL): %s", message.get("Subject", ""))


@dataclass(frozen=True)
class SmtpAddress:
    """SMTP_URL taken apart: `smtp://[user:pass@]host[:port]` (STARTTLS when the server
    offers it) or `smtps://...` (TLS from the start)."""

    secure: bool
    host: str
    port: int
    username: str | None
    password: str | None


def parse_smtp_url(url: str) -> SmtpAddress:
    """ValueError for anything but smtp:// or smtps:// with a host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError("SMTP_URL must be smtp://[user:pass@]host[:port] or smtps://...")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("SMTP_URL has a port that is not a number") from None
    return SmtpAddress(
        secure=scheme == "smtps",
        host=parts.hostname,
        port=port or (465 if scheme == "smtps" else 25),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


class SmtpMailer:
    """One SMTP conversation per message through smtplib: a mail is rare enough (a
    batch of news, a daily digest) that a held connection would only go stale."""

    delivers = True

    def __init__(self, address: SmtpAddress, *, timeout: float = SMTP_TIMEOUT_SECONDS) -> None:
        self.address = address
        self.timeout = timeout

    def send(self, message: EmailMessage) -> None:
        try:
            with self._connect() as smtp:
                if self.address.username:
                    smtp.login(self.address.username, self.address.password or "")
                smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as refused:
            # One recipient a message: its code and the server's words.
            code, answer_words = next(iter(refused.recipients.values()), (0, b""))
            said = f"{code} {_reply(answer_words)}"
            if code >= 500:
                raise MailRejected(said, code) from None
            raise MailDeferred(said) from None
        except smtplib.SMTPResponseException as answer:
            code, reply = answer.smtp_code, _reply(answer.smtp_error)
            # Only a refused message is the member's: a refused connection, greeting,
            # login or sender is the operator's to fix, and waits (retries) rather
            # than counting against the alert.
            if isinstance(answer, smtplib.SMTPDataError) and code >= 500:
                raise MailRejected(f"{code} {reply}", code) from None
            raise MailDeferred(f"{code} {reply}") from None
        except (smtplib.SMTPException, OSError) as trouble:
            raise MailDeferred(f"{type(trouble).__name__}: {trouble}") from None

    def _connect(self) -> smtplib.SMTP:
        address = self.address
        if address.secure:
            return smtplib.SMTP_SSL(
                address.host,
                address.port,
                timeout=self.timeout,
                context=ssl.create_default_context(),
            )
        smtp = smtplib.SMTP(address.host, address.port, timeout=self.timeout)
        try:
            smtp.ehlo()
            if smtp.has_extn("starttls"):
                smtp.starttls(context=ssl.create_default_context())
                smtp.ehlo()
        except BaseException:
            smtp.close()
            raise
        return smtp


def _reply(raw: bytes | str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return " ".join(text.split())[:300]


def build_mailer(settings: Settings) -> Mailer:
    """The SMTP mailer SMTP_URL names, or the null one without it."""
    if not settings.smtp_url:
        return NullMailer()
    return SmtpMailer(parse_smtp_url(settings.smtp_url))


# Built by the composition root from the settings in use (models/services.py).
mailer_service: Service[Mailer] = Service("the mailer")


def get_mailer() -> Mailer:
    return mailer_service()
