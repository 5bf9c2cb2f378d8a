"""The ads a page shows, decided for its reader and served as the API serves them."""

from __future__ import annotations

from typing import Any

from models.ads import view_tokens
from models.ads.delivery import DirectAd, SearchPageAds, ads_enabled_for, video_page_ads
from models.ads.months import month_of
from models.clock import utcnow
from web.api.schemas.ad_delivery import ServedAd
from web.translation import gettext as _
from web.visitor import viewer_id, visitor_country


def ad_label() -> str:
    """The label over every ad, in the reader's language."""
    return _("Advertisement")


class PageAds:
    """A search page's decided ads, as the API serves them (dictionaries for the
    template), all under one render id (each ad's view token differs by its
    reservation and position)."""

    def __init__(self, page: SearchPageAds) -> None:
        self.page = page
        self.render = view_tokens.new_render_id()
        self.bottom = served(page.bottom, self.render) if page.bottom is not None else None

    def midroll(self, firing: int) -> list[dict[str, Any] | None]:
        return served(self.page.midroll(firing), self.render)


def served(positions: list[DirectAd | None], render: bytes) -> list[dict[str, Any] | None]:
    return [ServedAd.of(ad, render).as_json() if ad else None for ad in positions]


def video_ads() -> dict[str, list[dict[str, Any] | None]] | None:
    if not ads_enabled_for(viewer_id()):
        return None
    decided = video_page_ads(visitor_country(), month_of(utcnow()))
    render = view_tokens.new_render_id()
    return {slot: served(positions, render) for slot, positions in decided.items()}
