"""A real SMTP server on a loopback port for the mail tests (aiosmtpd), which keeps what
it accepts and can be told to answer the next commands otherwise (a 451, a 550)."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Inbox:
    """aiosmtpd's handler: each accepted message, parsed; `rcpt_replies` and
    `data_replies` are answers given (once each, in order) instead of accepting."""

    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    rcpt_replies: list[str] = field(default_factory=list)
    data_replies: list[str] = field(default_factory=list)

    async def handle_RCPT(  # aiosmtpd names its hooks so
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if self.rcpt_replies:
            return self.rcpt_replies.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.data_replies:
            return self.data_replies.pop(0)
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SmtpServer:
    def __init__(self, inbox: Inbox | None = None, **smtp_options: Any) -> None:
        self.inbox = inbox or Inbox()
        self.port = free_port()
        self.controller = Controller(
            self.inbox, hostname="127.0.0.1", port=self.port, **smtp_options
        )

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()
