"""Log lines of every process: one line per event on standard error, JSON or text
(LOG_FORMAT), carrying the context of the request or message being handled, with
secrets taken out.

Each process calls `configure()` once it knows its settings: the app factory and
gunicorn's logger class (web.gunicorn_log), Dramatiq's main process (workers.command)
and each worker at boot (workers.log_context), the CLI for itself and for the
scheduler it runs. Everything else logs through the standard library as usual;
`bind()` adds fields (request id, user id, message id...) to every line logged in the
current context until it is reset.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, TextIO
from urllib.parse import unquote, urlsplit

from models.settings import LOG_FORMATS, Settings

REDACTED = "[REDACTED]"
# A secret shorter than this is not looked for in lines: it would blank out common
# words, and no configured secret is that short in practice.
MIN_SECRET_LENGTH = 8

# Never mutated: bind() sets a new mapping.
_context: ContextVar[Mapping[str, Any]] = ContextVar(
    "subsearch_log_context", default=MappingProxyType({})
)

# Header-like pairs whose whole value is a credential: `Authorization: Bearer ...`,
# `Cookie: a=b; c=d`, `{'X-CSRFToken': '...'}`, `api_key=...`. The value runs to the
# next quote or the end of the line.
_CREDENTIAL_PAIR = re.compile(
    r"(?i)\b((?:proxy-)?authorization|(?:set-)?cookie|x-csrf-?token|csrf_token"
    r"|stripe-signature|x-api-key|api[_-]?key|x-meili-api-key|metrics[_-]?token"
    r"|secret[_-]?key|password)"
    r"(\"?'?\s*[:=]\s*\"?'?)[^\"'\n]+"
)
_SESSION_COOKIE = re.compile(r"(?i)\b(subsearch_session|session)=[^\s;\"',]+")
# Provider secrets by their well-known prefixes: webhook signing secrets, secret and
# restricted API keys.
_PREFIXED_SECRET = re.compile(r"\b(?:whsec_[A-Za-z0-9_]+|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]+)")
# A payment card number (15 or 16 digits, maybe grouped by spaces or dashes) that passes
# the Luhn check. The service never sees one (the provider's checkout takes cards); this
# keeps a pasted one out of the logs anyway. Its digits stand apart from ASCII letters:
# a run inside an id (a UUID, `pi_...`) is part of that id, not a card.
_CARD_CANDIDATE = re.compile(r"(?<![0-9A-Za-z_-])\d(?:[ -]?\d){13,15}(?![0-9A-Za-z_-])")


def _luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card_or_same(match: re.Match[str]) -> str:
    digits = re.sub(r"[ -]", "", match.group(0))
    return REDACTED if len(digits) in (15, 16) and _luhn_valid(digits) else match.group(0)


class Redactor:
    """Takes secrets out of a piece of text: the configured secret values, and anything
    shaped like a credential whatever its value (the session cookie, headers, keys)."""

    def __init__(self, secrets: Iterable[str] = ()):
        values = {value for value in secrets if value and len(value) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret containing another is removed whole.
        self.secrets = tuple(sorted(values, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        text = _CREDENTIAL_PAIR.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
        text = _SESSION_COOKIE.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
        text = _PREFIXED_SECRET.sub(REDACTED, text)
        return _CARD_CANDIDATE.sub(_card_or_same, text)


def secret_values(settings: Settings) -> tuple[str, ...]:
    """Every configured secret a log line must never show."""
    return tuple(
        value
        for value in (
            settings.secret_key,
            settings.search_api_key,
            settings.search_master_key,
            settings.payment_api_key,
            *settings.payment_webhook_secrets,
            settings.oidc_client_secret,
            settings.video_api_key,
            settings.metrics_token,
            # The SMTP login's password inside SMTP_URL (the alert mails).
            unquote(urlsplit(settings.smtp_url).password or "") if settings.smtp_url else None,
        )
        if value
    )


# Context: fields added to every line logged while they are bound.


def bind(**fields: Any) -> Token[Mapping[str, Any]]:
    """Add fields to the current context; `reset(token)` puts the previous one back.
    A field given None is left out of the lines."""
    return _context.set({**_context.get(), **fields})


def reset(token: Token[Mapping[str, Any]]) -> None:
    _context.reset(token)


@contextmanager
def bound(**fields: Any) -> Iterator[None]:
    token = bind(**fields)
    try:
        yield
    finally:
        reset(token)


def current_context() -> dict[str, Any]:
    return {key: value for key, value in _context.get().items() if value is not None}


# Formatting.

# What every LogRecord carries by itself; anything else on a record came from `extra=`.
_RECORD_ATTRIBUTES = frozenset(
    {
        *logging.LogRecord("", 0, "", 0, "", (), None).__dict__,
        "message",
        "asctime",
        "taskName",
        "log_context",
        "component",
    }
)


def iso_time(created: float) -> str:
    """The contract's time format: ISO 8601 UTC with milliseconds and a Z."""
    moment = datetime.fromtimestamp(created, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    """The context bound when the record was made, then the record's own extra fields."""
    own = {
        key: value
        for key, value in record.__dict__.items()
        if key not in _RECORD_ATTRIBUTES and not key.startswith("_")
    }
    return {**getattr(record, "log_context", {}), **own}


def _clean(value: Any, redact: Redactor) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(key): _clean(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_clean(item, redact) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(str(value))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, component, pid, logger, message, then the
    context and extra fields, and the traceback when there is one."""

    def __init__(self, component: str, redact: Redactor):
        super().__init__()
        self.component = component
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": iso_time(record.created),
            "level": record.levelname.lower(),
            "component": self.component,
            "pid": record.process,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in _fields(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(_clean(line, self.redact), ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """A line for a person at a terminal: time, level, component, logger, message, then
    the context and extra fields as key=value."""

    def __init__(self, component: str, redact: Redactor):
        super().__init__()
        self.component = component
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = (
            f"{iso_time(record.created)} {record.levelname} [{self.component}] "
            f"{record.name}: {record.getMessage()}"
        )
        fields = " ".join(f"{key}={value}" for key, value in _fields(record).items())
        if fields:
            text = f"{text} {fields}"
        if record.exc_info:
            text = f"{text}\n{self.formatException(record.exc_info)}"
        elif record.exc_text:
            text = f"{text}\n{record.exc_text}"
        if record.stack_info:
            text = f"{text}\n{self.formatStack(record.stack_info)}"
        return self.redact(text)


class _StampContext(logging.Filter):
    """Copies the bound context onto the record when it is handled, in the thread that
    logged it (context variables are per thread and per request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "log_context"):
            record.log_context = current_context()
        return True


class StandardErrorHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever sys.stderr is when a line is written, not when it was made:
    Dramatiq's worker processes point sys.stderr at a pipe to their parent, which
    writes each line out whole, and test runners swap it for a capture."""

    def __init__(self, stream: TextIO | None = None):
        super().__init__(stream)
        self._fixed = stream

    @property
    def stream(self) -> TextIO:
        return self._fixed if self._fixed is not None else sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        # StreamHandler.__init__ sets it; only an explicit stream is kept.
        pass


class _DropServerAccessLines(logging.Filter):
    """The development server's own access line (`127.0.0.1 - - [date] "GET /path?q
    HTTP/1.1" 200 -`) is dropped: ours replaces it, without the raw path and query
    string. Its other lines (where it listens, errors) still come through."""

    _ACCESS = re.compile(r"\S+ - - \[")

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno <= logging.INFO and self._ACCESS.match(str(record.msg)))


def _writes_to_console(handler: logging.Handler) -> bool:
    """A handler made by an earlier configure(), or by a logging.basicConfig() on
    standard error or output (Dramatiq's worker sets one up before our code runs)."""
    if isinstance(handler, StandardErrorHandler):
        return True
    stream = getattr(handler, "stream", None)
    return type(handler) is logging.StreamHandler and stream in (sys.stderr, sys.stdout)


def configure(
    log_format: str,
    *,
    component: str,
    secrets: Iterable[str] = (),
    level: int = logging.INFO,
    stream: TextIO | None = None,
) -> logging.Handler:
    """Send every log line of this process to standard error (or `stream`) in
    `log_format`, replacing the console handler of an earlier call or basicConfig.
    Other handlers (a test's log capture) stay. Returns the handler installed."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)} (got {log_format!r})")
    redact = Redactor(secrets)
    handler = StandardErrorHandler(stream)
    formatter_type = JsonFormatter if log_format == "json" else TextFormatter
    handler.setFormatter(formatter_type(component, redact))
    handler.addFilter(_StampContext())
    root = logging.getLogger()
    for previous in [h for h in root.handlers if _writes_to_console(h)]:
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(level)
    werkzeug = logging.getLogger("werkzeug")
    if not any(isinstance(f, _DropServerAccessLines) for f in werkzeug.filters):
        werkzeug.addFilter(_DropServerAccessLines())
    # gunicorn's own lines come through ours in its worker processes.
    for name in ("gunicorn.error", "gunicorn.access"):
        gunicorn = logging.getLogger(name)
        gunicorn.handlers.clear()
        gunicorn.propagate = True
    return handler
