"""Delivery: which direct ad (or network fallback) fills each position, decided on the
server for a slot, country, month and viewer.

Active reservations are cached per process for a few seconds under the delivery
generation (delivery_cache), which approve, stop and expiry bump.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime

from models.ads import POSITIONS, delivery_cache, price_list, view_tokens
from models.countries import usable_country
from models.plans import plan_of
from models.tables import AdReservation

CACHE_SECONDS = 10
MIDROLL_EVERY_HITS = 12  # 3 rows of 4, 4 rows of 3, 6 rows of 2: the same 12 results
# Same-position direct ad displays per page.
PAGE_LIMIT = 2


@dataclass(frozen=True)
class DirectAd:
    reservation_id: str
    slot: str
    position: int
    advertiser_name: str
    image_url: str

    def view_token(self, render_id: bytes, now: datetime | None = None) -> str:
        """This ad's view token in one render: its click and impression carry it."""
        return view_tokens.make(self.reservation_id, self.position, render_id, now)


@dataclass(frozen=True)
class LiveAd:
    """What a click or an impression on an active reservation needs to know."""

    redirect_url: str
    start_month: str
    end_month: str

    def in_period(self, month: str) -> bool:
        return self.start_month <= month <= self.end_month


# (cached at, delivery generation, value): the ads of a (slot, country, month), and the
# live reservations by id.
_cache: dict[tuple[str, str, str], tuple[float, int, list[DirectAd]]] = {}
_live: dict[str, tuple[float, int, dict[str, LiveAd]]] = {}
_lock = threading.Lock()


def _active(slot: str, country: str, month: str) -> list[DirectAd]:
    """Active reservations of the slot and country covering the month, oldest first."""
    rows = (
        AdReservation.select(
            AdReservation.id,
            AdReservation.slot,
            AdReservation.position,
            AdReservation.advertiser_name,
            AdReservation.image_url,
        )
        .where(
            (AdReservation.slot == slot)
            & (AdReservation.country == country)
            & (AdReservation.status == "active")
            & (AdReservation.start_month <= month)
            & (AdReservation.end_month >= month)
        )
        .order_by(AdReservation.created_at, AdReservation.id)
        .limit(len(POSITIONS))
    )
    return [DirectAd(r.id, r.slot_id, r.position, r.advertiser_name, r.image_url) for r in rows]


def active_ads(slot: str, country: str, month: str) -> list[DirectAd]:
    generation = delivery_cache.generation()
    key = (slot, country, month)
    now = time.monotonic()
    if generation >= 0:
        with _lock:
            cached = _cache.get(key)
        if cached and cached[1] == generation and now - cached[0] < CACHE_SECONDS:
            return cached[2]
    ads = _active(slot, country, month)
    if generation >= 0:
        with _lock:
            _cache[key] = (now, generation, ads)
    return ads


def active_reservations() -> dict[str, LiveAd]:
    """Every active reservation's redirect URL and period by id, cached like delivery, so
    a click or an impression on a live ad needs no database read."""
    generation = delivery_cache.generation()
    now = time.monotonic()
    if generation >= 0:
        with _lock:
            known = _live.get("live")
        if known and known[1] == generation and now - known[0] < CACHE_SECONDS:
            return known[2]
    rows = AdReservation.select(
        AdReservation.id,
        AdReservation.redirect_url,
        AdReservation.start_month,
        AdReservation.end_month,
    ).where(AdReservation.status == "active")
    live = {r.id: LiveAd(r.redirect_url, r.start_month, r.end_month) for r in rows}
    if generation >= 0:
        with _lock:
            _live["live"] = (now, generation, live)
    return live


def clear_process_cache() -> None:
    with _lock:
        _cache.clear()
        _live.clear()
    delivery_cache.forget()
    price_list.forget()  # the prices house cards show


def ads_enabled_for(user_id: str | None) -> bool:
    """Anonymous (None) and free viewers see ads (direct and network); plus and pro see
    none."""
    return user_id is None or plan_of(user_id) == "free"


def assignment(slot: str, country_header: str | None, month: str) -> list[DirectAd | None]:
    """Four positions: each active reservation at its own position, None (network
    fallback) elsewhere; a stopped position leaves a gap, nothing moves up. An unusable
    country (XX, T1, anything not among the 249 codes) gives four fallbacks."""
    country = usable_country(country_header)
    if country is None:
        return [None] * len(POSITIONS)
    by_position = {ad.position: ad for ad in active_ads(slot, country, month)}
    return [by_position.get(position) for position in POSITIONS]


@dataclass(frozen=True)
class SearchPageAds:
    """The ads of one /search page: direct ads for the bottom slot and the first
    midroll firing (one display each per position, two in all), network fallback for
    later firings; with zero hits, one row from the midroll slot and no bottom slot."""

    midroll_first: list[DirectAd | None]
    bottom: list[DirectAd | None] | None
    zero_hits: bool

    def midroll(self, firing: int) -> list[DirectAd | None]:
        return self.midroll_first if firing == 1 else [None] * len(POSITIONS)


def search_page_ads(country_header: str | None, month: str, hit_count: int) -> SearchPageAds:
    midroll = assignment("search-result-midroll", country_header, month)
    if hit_count == 0:
        return SearchPageAds(midroll_first=midroll, bottom=None, zero_hits=True)
    bottom = assignment("search-result-bottom", country_header, month)
    return SearchPageAds(midroll_first=midroll, bottom=bottom, zero_hits=False)


def video_page_ads(country_header: str | None, month: str) -> dict[str, list[DirectAd | None]]:
    return {
        slot: assignment(slot, country_header, month)
        for slot in ("video-detail-below-player", "video-detail-below-subtitle")
    }
