"""Every month a request names lies in a window the service can answer for: no year 0,
no year 9999 (issue 42). The window runs from MONTHS_OF_HISTORY before this month to
the last first month a purchase may take (docs/ads.md, Months)."""

from __future__ import annotations

import pytest

from models.ads import MAX_YEARS_AHEAD, MONTHS_OF_HISTORY
from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.factories import make_profile, make_upload, make_user, sign_in

THIS = month_of(utcnow())
NEXT = add_months(THIS, 1)
LAST = add_months(NEXT, MAX_YEARS_AHEAD * 12)
EARLIEST = add_months(THIS, -MONTHS_OF_HISTORY)
OUTSIDE = [
    "0000-01",
    "0001-01",
    "1999-12",
    add_months(EARLIEST, -1),
    add_months(LAST, 1),
    "9999-12",
]
SLOT = "search-result-bottom"


def error_of(response):
    return response.status_code, response.get_json()["error"]


@pytest.mark.parametrize("month", OUTSIDE)
def test_inventory_of_a_month_outside_the_window_is_400_naming_month(client, month):
    sign_in(client, make_user())
    status, error = error_of(
        client.get(f"/api/ads/inventory?slot={SLOT}&country=JP&month={month}&months=12")
    )
    assert (status, error["code"], set(error["fields"])) == (400, "invalid_request", {"month"})


@pytest.mark.parametrize("month", [EARLIEST, THIS, NEXT, LAST])
def test_inventory_answers_for_every_month_of_the_window(client, month):
    sign_in(client, make_user())
    answer = client.get(f"/api/ads/inventory?slot={SLOT}&country=JP&month={month}&months=12")
    assert answer.status_code == 200
    assert answer.get_json()["month"] == month


@pytest.mark.parametrize("month", OUTSIDE)
def test_serving_a_month_outside_the_window_is_400_naming_month(client, month):
    status, error = error_of(client.get(f"/api/ads/serve?slot={SLOT}&country=JP&month={month}"))
    assert (status, error["code"], set(error["fields"])) == (400, "invalid_request", {"month"})


@pytest.mark.parametrize("month", [EARLIEST, THIS, LAST])
def test_serving_answers_for_every_month_of_the_window(client, month):
    answer = client.get(f"/api/ads/serve?slot={SLOT}&country=JP&month={month}")
    assert answer.status_code == 200
    assert answer.get_json()["month"] == month


@pytest.mark.parametrize(
    ("start", "months"),
    [("0000-01", 1), ("9999-12", 12), (add_months(LAST, 1), 1), (THIS, 1), ("2027-00", 1)],
)
def test_a_purchase_outside_the_window_is_400_naming_start_month(client, start, months):
    user = make_user()
    sign_in(client, user)
    order = {
        "profileId": make_profile(user).id,
        "slot": SLOT,
        "country": "JP",
        "startMonth": start,
        "months": months,
        "advertiserName": "山田商店",
        "imageUrl": make_upload(user),
        "redirectUrl": "https://example.jp/",
        "consent": True,
    }
    status, error = error_of(client.post("/api/ads/reservations", json=order))
    assert (status, error["code"], set(error["fields"])) == (400, "invalid_request", {"startMonth"})


@pytest.mark.parametrize("months", [0, -1, 13, 10**30])
def test_a_months_count_outside_1_to_12_is_400_naming_months(client, months):
    sign_in(client, make_user())
    status, error = error_of(
        client.get(f"/api/ads/inventory?slot={SLOT}&country=JP&month={NEXT}&months={months}")
    )
    assert (status, error["code"], set(error["fields"])) == (400, "invalid_request", {"months"})
