"""The ad prices one can buy now, per country, as the payment provider states them, kept
for a few minutes: public pages (the page for advertisers, house cards) show them to
anyone, and a provider call per page view would be slow and limited by the provider."""

from __future__ import annotations

import logging
import threading
import time
from typing import NamedTuple

from models.ads.inventory import fetch_ad_price
from models.payments import PaymentError, Price, ad_price_id
from models.settings import Settings, get_settings

log = logging.getLogger(__name__)

# Prices change twice a year (a new price id): minutes of delay are harmless.
CACHE_SECONDS = 300.0
FIRST_COUNTRY = "JP"


class AdPrices(NamedTuple):
    """Country -> its current active price per slot-month, in sold_countries() order;
    `complete` is False when the provider could not be asked for some country now."""

    by_country: dict[str, Price]
    complete: bool = True


_lock = threading.Lock()
# (the settings they were read for, monotonic time read, prices); the settings object is
# kept, not its id(), which a new object may reuse once the old one is freed
_kept: tuple[Settings, float, AdPrices] | None = None


def sold_countries() -> list[str]:
    """Countries with a price id (PAYMENT_AD_PRICE_<COUNTRY>_ID, or the local engine's
    Japan), Japan first, then by code."""
    candidates = set(get_settings().payment_ad_price_ids) | {FIRST_COUNTRY}
    sold = [country for country in candidates if ad_price_id(country)]
    return sorted(sold, key=lambda country: (country != FIRST_COUNTRY, country))


def ad_prices() -> AdPrices:
    """The prices of the countries sold; a country without an active price is left out,
    and one the provider could not be asked about is asked again next time (an
    incomplete answer is not kept)."""
    global _kept
    settings = get_settings()
    now = time.monotonic()
    with _lock:
        kept = _kept
        if kept is not None and kept[0] is settings and now - kept[1] < CACHE_SECONDS:
            return kept[2]
    prices: dict[str, Price] = {}
    complete = True
    for country in sold_countries():
        try:
            price = fetch_ad_price(country)
        except PaymentError:
            log.warning("the ad price of %s could not be read", country, exc_info=True)
            complete = False
            continue
        if price is not None:
            prices[country] = price
    found = AdPrices(prices, complete)
    if complete:
        with _lock:
            _kept = (settings, now, found)
    return found


def ad_price(country: str | None) -> Price | None:
    return ad_prices().by_country.get(country.upper()) if country else None


def forget() -> None:
    """Read the prices from the provider next time (a price was switched, or tests)."""
    global _kept
    with _lock:
        _kept = None
