"""Dramatiq actors, one module per domain, declared without a broker (workers/actors.py).

Every process that sends or runs them calls `setup()` once: the web app (create_app),
the worker (`dramatiq tasks:setup`, which `subsearch worker` runs), the scheduler and
the CLI.
"""

from __future__ import annotations

import dramatiq

from models.settings import Settings
from tasks import ads, alert_mail, alerts, billing, channels, credits, maintenance, outbox, search
from workers import broker

__all__ = [
    "ads",
    "alert_mail",
    "alerts",
    "billing",
    "channels",
    "credits",
    "maintenance",
    "outbox",
    "search",
    "setup",
]


def setup(settings: Settings | None = None) -> dramatiq.Broker:
    """The process's broker (built on the first call, see workers.broker.setup) with
    every actor of the modules above declared on it."""
    return broker.setup(settings)
