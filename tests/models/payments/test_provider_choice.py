"""The provider and the ad prices follow the settings in use: a deployment (or a test
server) that swaps its settings never gets what was built for the old ones, even when
the new settings object lands at the address the freed old one had."""

from __future__ import annotations

from dataclasses import replace

from models.ads.price_list import ad_prices, forget
from models.payments import get_provider
from models.settings import use_settings


def swap_in(settings, **changes):
    """Free the settings in use first, so the new object may take its address."""
    use_settings(settings)
    return use_settings(replace(settings, **changes))


def test_each_new_base_url_gets_a_provider_that_links_to_it(settings):
    try:
        for n in range(200):
            url = f"http://127.0.0.1:{20000 + n}"
            swap_in(settings, public_base_url=url)
            assert get_provider().public_base_url == url
    finally:
        use_settings(settings)


def test_ad_prices_are_read_again_for_new_settings(settings):
    forget()
    try:
        for n in range(200):
            withdrawn = n % 2 == 1
            swap_in(settings, payment_ad_price_ids={"JP": "price_gone"} if withdrawn else {})
            assert ("JP" in ad_prices().by_country) != withdrawn, n
    finally:
        use_settings(settings)
        forget()
