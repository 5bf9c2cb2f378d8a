"""The local payment provider (PAYMENT_BACKEND=local), a development stand-in for Stripe:
its tables (tables.py), the simulator behind the payment interface (engine.py), the
Stripe-shaped signed events it sends (events.py), its checkout and portal pages
(pages.py) and its work on the queue (actors.py). docs/payments.md describes it; the
domain only ever sees the payment interface (models/payments/base.py)."""

from __future__ import annotations

from web.devtools.local_payments import actors
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.pages import init_app

__all__ = ["LocalProvider", "actors", "init_app"]
