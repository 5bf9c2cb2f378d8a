"""The worker's log lines: the process's logging set up when the worker boots, each
message's id, actor and attempt bound to every line logged while it is processed, and
one line per processed message with its outcome and duration."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import dramatiq
from dramatiq import Retry
from dramatiq.broker import MessageProxy

from models import logs
from models.settings import get_settings

log = logging.getLogger(__name__)


class LogContext(dramatiq.Middleware):
    """First in the broker's middleware list: its `before_` hook runs before every
    other one and its `after_` hooks after them (Dramatiq runs those in reverse), so the
    lines of every other middleware (a retry scheduled, a dead letter) carry the
    message's fields too. Hooks of one message run in one worker thread."""

    def __init__(self) -> None:
        self._local = threading.local()

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        # The dramatiq CLI has set up its own text lines on a pipe to its parent (now
        # sys.stderr); ours replace them, in the format the settings ask for.
        settings = get_settings()
        logs.configure(
            settings.log_format, component="worker", secrets=logs.secret_values(settings)
        )

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self._local.token = logs.bind(
            message_id=message.message_id,
            actor=message.actor_name,
            queue=message.queue_name,
            # Retries counts the failures so far: the first try is attempt 1.
            attempt=int(message.options.get("retries", 0)) + 1,
        )
        self._local.started = time.perf_counter()

    def _finish(self, outcome: str, level: int, error: BaseException | None = None) -> None:
        started = getattr(self._local, "started", None)
        duration_ms = round((time.perf_counter() - started) * 1000, 1) if started else None
        extra: dict[str, Any] = {"outcome": outcome, "duration_ms": duration_ms}
        if error is not None:
            extra["error"] = type(error).__name__
        log.log(level, "message %s", outcome, extra=extra)
        token = getattr(self._local, "token", None)
        self._local.token = self._local.started = None
        if token is not None:
            logs.reset(token)

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        if exception is None:
            self._finish("done", logging.INFO)
        elif isinstance(exception, Retry):
            self._finish("retry", logging.INFO, exception)
        else:
            self._finish("failed", logging.WARNING, exception)

    def after_skip_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self._finish("skipped", logging.INFO)
