"""Per-message scope: a database connection opened for each message and closed after it."""

from __future__ import annotations

import dramatiq

from models.db import db, init_db
from models.settings import get_settings


class DatabaseConnection(dramatiq.Middleware):
    def before_worker_boot(self, broker, worker):
        init_db(get_settings().database_url)

    def before_process_message(self, broker, message):
        if db.obj is None:
            init_db(get_settings().database_url)
        db.connect(reuse_if_open=True)

    def _close(self):
        if db.obj is not None and not db.is_closed():
            db.close()

    def after_process_message(self, broker, message, *, result=None, exception=None):
        self._close()

    def after_skip_message(self, broker, message):
        self._close()
