"""One member holds at most AD_UNPAID_HOLDS_PER_MEMBER unpaid positions at once, so one
account cannot fill a slot for a year with checkouts it never pays (issue 42)."""

from __future__ import annotations

from dataclasses import replace

from models.ads.months import add_months, month_of
from models.ads.reservations import release_hold
from models.clock import utcnow
from models.settings import get_settings, use_settings
from models.tables import AdReservation
from tests.factories import make_profile, make_upload, make_user, sign_in

NEXT = add_months(month_of(utcnow()), 1)
SLOTS = ("search-result-bottom", "search-result-midroll", "video-detail-below-player")


def body(user, slot, **overrides):
    return {
        "profileId": make_profile(user).id,
        "slot": slot,
        "country": "JP",
        "startMonth": NEXT,
        "months": 12,
        "advertiserName": "山田商店",
        "imageUrl": make_upload(user),
        "redirectUrl": "https://example.jp/shop",
        "consent": True,
        **overrides,
    }


def reserve(client, user, slot):
    return client.post("/api/ads/reservations", json=body(user, slot))


def test_a_third_unpaid_hold_is_409_too_many_unpaid_holds(client):
    # Given a member with two checkouts open and unpaid
    user = make_user()
    sign_in(client, user)
    assert reserve(client, user, SLOTS[0]).status_code == 201
    assert reserve(client, user, SLOTS[1]).status_code == 201
    # When they reserve a third position
    refused = client.post("/api/ads/reservations", json=body(user, SLOTS[2]))
    # Then it is refused in the contract's format, saying what to do
    assert refused.status_code == 409
    error = refused.get_json()["error"]
    assert error["code"] == "too_many_unpaid_holds"
    assert "2" in error["message"] and "pay" in error["message"].lower()
    assert "fields" not in error or not error["fields"]
    assert AdReservation.select().count() == 2


def test_a_paid_or_released_hold_no_longer_counts(client):
    user = make_user()
    sign_in(client, user)
    first = reserve(client, user, SLOTS[0]).get_json()["reservation"]
    second = reserve(client, user, SLOTS[1]).get_json()["reservation"]
    assert reserve(client, user, SLOTS[2]).status_code == 409
    # Once one is paid, another may be held
    AdReservation.update(payment_intent_id="pi_paid").where(
        AdReservation.id == first["id"]
    ).execute()
    assert reserve(client, user, SLOTS[2]).status_code == 201
    assert reserve(client, user, SLOTS[0]).status_code == 409
    # And once an unpaid one is released (its checkout lapsed), another
    assert release_hold(AdReservation.get_by_id(second["id"]), "test: checkout expired")
    assert reserve(client, user, SLOTS[0]).status_code == 201


def test_another_member_still_reserves_when_one_is_at_the_limit(client):
    hoarder, other = make_user(), make_user()
    sign_in(client, hoarder)
    assert reserve(client, hoarder, SLOTS[0]).status_code == 201
    assert reserve(client, hoarder, SLOTS[0]).status_code == 201
    assert reserve(client, hoarder, SLOTS[0]).status_code == 409
    sign_in(client, other)
    created = reserve(client, other, SLOTS[0])
    assert created.status_code == 201
    assert created.get_json()["reservation"]["position"] == 3


def test_the_limit_is_a_setting(client):
    previous = get_settings()
    use_settings(replace(previous, ad_unpaid_holds_per_member=1))
    try:
        user = make_user()
        sign_in(client, user)
        assert reserve(client, user, SLOTS[0]).status_code == 201
        refused = reserve(client, user, SLOTS[1])
        assert (refused.status_code, refused.get_json()["error"]["code"]) == (
            409,
            "too_many_unpaid_holds",
        )
    finally:
        use_settings(previous)


def test_the_document_names_the_conflict(client):
    document = client.get("/api/openapi.json").get_json()
    conflict = document["paths"]["/api/ads/reservations"]["post"]["responses"]["409"]
    assert "too_many_unpaid_holds" in conflict["description"]
    assert "slot_full" in conflict["description"]


def test_the_purchase_form_says_so_before_anything_is_typed(client):
    # Given a member at the limit
    user = make_user()
    sign_in(client, user)
    reserve(client, user, SLOTS[0])
    reserve(client, user, SLOTS[1])
    # Then the form says it in Japanese, with the way to the reservations to pay
    japanese = client.get("/ads/new", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "支払い待ちの予約が 2 件あり、1 人が同時に持てる上限に達しています" in japanese
    assert "60 分" in japanese and 'href="/ads"' in japanese
    # And in English
    english = client.get("/ads/new", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "You already have 2 reservations awaiting payment" in english
    # And a member under the limit is not told
    sign_in(client, make_user())
    fresh = client.get("/ads/new", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "data-holds-full" not in fresh
