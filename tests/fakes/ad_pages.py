"""The site's ad pages as domain tests hand them to reserve() and stop(), with the
routes spelled out; web/urls.py builds the real ones from the routes (a test checks
that the two agree)."""

from __future__ import annotations

from models.settings import get_settings


class SpelledOutAdPages:
    """models.ads.reservations.AdPages without a request."""

    def reservation(self, reservation_id: str) -> str:
        return f"{get_settings().public_base_url}/ads/{reservation_id}"

    def paid(self, reservation_id: str) -> str:
        return f"{get_settings().public_base_url}/ads/{reservation_id}?paid=1"

    def cancelled(self, reservation_id: str) -> str:
        return f"{get_settings().public_base_url}/ads/new?cancelled={reservation_id}"


PAGES = SpelledOutAdPages()
