"""Fixtures the ad tests share: an approved ad whose contract period the measurement
and beacon tests count clicks and impressions inside and outside of."""

from __future__ import annotations

import pytest

from models.ads.reservations import approve
from tests.factories import make_reservation


@pytest.fixture
def ad():
    """An approved ad running from January to March 2027 (UTC), sending visitors on to
    https://example.jp/go."""
    reservation = make_reservation(
        start_month="2027-01",
        end_month="2027-03",
        payment_intent_id="pi",
        redirect_url="https://example.jp/go",
    )
    approve(reservation.id)
    return reservation
