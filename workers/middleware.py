"""Per-message scope: a database connection opened for each message and closed after it,
the worker's longer Redis timeouts, and the outbox kept informed of each attempt."""

from __future__ import annotations

import logging
from typing import Any

import dramatiq
from dramatiq.broker import MessageProxy

from models import outbox, redis_client
from models.db import db, init_db
from models.settings import get_settings

log = logging.getLogger(__name__)


class WorkerTimeouts(dramatiq.Middleware):
    """A worker process waits up to redis_client.WORKER_TIMEOUT for Redis, where a web
    request gives up after SEND_TIMEOUT: the broker's pool is replaced at boot."""

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        redis_client.use_worker_timeouts()
        client = getattr(broker, "client", None)
        url = getattr(broker, "redis_url", None)
        if client is not None and url:
            previous = client.connection_pool
            client.connection_pool = redis_client.connection_pool(url)
            previous.disconnect()


class DatabaseConnection(dramatiq.Middleware):
    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        init_db(get_settings().database_url)

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        if db.obj is None:
            init_db(get_settings().database_url)
        db.connect(reuse_if_open=True)

    def _close(self) -> None:
        if db.obj is not None and not db.is_closed():
            db.close()

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        self._close()

    def after_skip_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        self._close()


class OutboxAck(dramatiq.Middleware):
    """Keeps the outbox informed: an attempt touches the message's row (it is alive, so
    the redrive leaves it be), and a message whose actor returned is marked processed.
    Declared after DatabaseConnection: `after_` hooks run in reverse order, so the
    connection is still open here. A failure here only makes the redrive send an
    (idempotent) message once more, which is the safe side."""

    def before_process_message(self, broker: dramatiq.Broker, message: MessageProxy) -> None:
        try:
            if outbox_id := message.options.get(outbox.OPTION):
                outbox.touch(outbox_id)
            elif event := message.options.get(outbox.EVENT_OPTION):
                outbox.touch_event(*event)
        except Exception:
            log.warning("could not touch the outbox row of %s", message.message_id, exc_info=True)

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        outbox_id = message.options.get(outbox.OPTION)
        if exception is None and outbox_id:
            outbox.mark_processed(outbox_id)
