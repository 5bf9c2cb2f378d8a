"""Addresses of this site as people reach it (PUBLIC_BASE_URL), built from the routes
with url_for: the domain never spells a route, it is handed these."""

from __future__ import annotations

from flask import url_for

from models.settings import get_settings


def public_url(endpoint: str, **values: object) -> str:
    return get_settings().public_base_url + url_for(endpoint, **values)


class SiteAdPages:
    """The advertiser's pages of a reservation (models.ads.reservations.AdPages)."""

    def reservation(self, reservation_id: str) -> str:
        return public_url("pages.own_ad", reservation_id=reservation_id)

    def paid(self, reservation_id: str) -> str:
        return public_url("pages.own_ad", reservation_id=reservation_id, paid=1)

    def cancelled(self, reservation_id: str) -> str:
        return public_url("pages.new_ad", cancelled=reservation_id)


AD_PAGES = SiteAdPages()
