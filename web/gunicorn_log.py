"""gunicorn's own lines (its master's too: boot, a worker timed out or died) in this
service's log format: `gunicorn --logger-class web.gunicorn_log.Logger`."""

from __future__ import annotations

from gunicorn import glogging  # type: ignore[import-untyped]  # gunicorn ships no types

from models import logs
from models.settings import get_settings


class Logger(glogging.Logger):  # type: ignore[misc]  # its base is untyped (gunicorn's)
    def setup(self, cfg: object) -> None:
        super().setup(cfg)
        # configure() hands gunicorn's loggers over to the root's one handler.
        settings = get_settings()
        logs.configure(settings.log_format, component="web", secrets=logs.secret_values(settings))
