"""The local payment provider (PAYMENT_BACKEND=local), a development stand-in for Stripe:
its tables (tables.py), the simulator behind the payment interface (engine.py), the
Stripe-shaped signed events it sends (events.py), its checkout and portal pages
(pages.py) and its work on the queue (actors.py). docs/payments.md describes it; the
domain only ever sees the payment interface (models/payments/base.py).

The pages are not imported here: the composition root (web/wiring.py) imports this
package for the provider in every process, the command line too, and only the app
factory (web/app.py) registers the pages, with Flask."""

from __future__ import annotations

from web.devtools.local_payments import actors
from web.devtools.local_payments.engine import LocalProvider

__all__ = ["LocalProvider", "actors"]
