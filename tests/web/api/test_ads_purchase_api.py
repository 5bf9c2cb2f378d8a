"""The ad purchase and administration API as clients use it, and the whole journey."""

from __future__ import annotations

import io

import pytest
import requests

from models.ads.months import add_months, month_of
from models.clock import utcnow
from models.tables import AdReservation
from tests.factories import (
    csrf_token,
    image_bytes,
    make_admin,
    make_profile,
    make_upload,
    make_user,
    sign_in,
)
from tests.fakes.ad_pages import PAGES
from tests.fixtures import drain
from web.devtools.local_payments.tables import LocalCheckoutSession
from web.urls import AD_PAGES

NEXT = add_months(month_of(utcnow()), 1)


def body(user, **overrides):
    data = {
        "profileId": make_profile(user).id,
        "slot": "video-detail-below-player",
        "country": "JP",
        "startMonth": NEXT,
        "months": 2,
        "advertiserName": "Kitchen & Code",
        "imageUrl": make_upload(user),
        "redirectUrl": "https://example.com/",
        "consent": True,
    }
    data.update(overrides)
    return data


def code(response):
    return response.get_json()["error"]["code"]


def test_pricing_and_inventory(client):
    user = make_user()
    sign_in(client, user)
    assert client.get("/api/ads/pricing?country=JP").get_json() == {
        "country": "JP",
        "currency": "jpy",
        "unitAmount": 50000,
        "priceId": "price_local_ad_jp",
    }
    missing = client.get("/api/ads/pricing?country=US")
    assert (missing.status_code, code(missing)) == (404, "not_found")
    assert client.get("/api/ads/pricing?country=XX").status_code == 400
    client.post("/api/ads/reservations", json=body(user, months=1))
    inventory = client.get(
        f"/api/ads/inventory?slot=video-detail-below-player&country=JP&month={NEXT}&months=3"
    ).get_json()
    assert inventory == {
        "slot": "video-detail-below-player",
        "country": "JP",
        "month": NEXT,
        "months": 3,
        "occupiedPositions": [1],
        "nextPosition": 2,
        "full": False,
        "price": {"currency": "jpy", "unitAmount": 50000, "priceId": "price_local_ad_jp"},
    }
    bad = client.get("/api/ads/inventory?slot=x&country=JP&month=2027-1&months=13")
    assert set(bad.get_json()["error"]["fields"]) == {"slot", "month", "months"}


def test_pricing_needs_sign_in(client):
    assert client.get("/api/ads/pricing?country=JP").status_code == 401
    assert client.get("/api/ads/inventory?slot=x").status_code == 401
    assert client.post("/api/ads/reservations", json={}).status_code == 401


def test_reservation_answers_201_with_the_checkout(client):
    user = make_user()
    sign_in(client, user)
    response = client.post("/api/ads/reservations", json=body(user))
    assert response.status_code == 201
    created = response.get_json()
    assert created["reservation"]["status"] == "pending_review"
    assert created["reservation"]["position"] == 1
    assert created["reservation"]["endMonth"] == add_months(NEXT, 1)
    assert created["checkoutUrl"].startswith("http://127.0.0.1:8000/_local-payments/checkout/")


def test_rejections_are_400_with_fields_and_a_full_slot_is_409(client):
    user = make_user()
    sign_in(client, user)
    bad = client.post(
        "/api/ads/reservations", json=body(user, advertiserName="PR担当", months=14, consent=None)
    )
    assert bad.status_code == 400
    assert set(bad.get_json()["error"]["fields"]) == {"advertiserName", "months", "consent"}
    assert client.post("/api/ads/reservations", json=["x"]).status_code == 400
    # Four members take the four positions (one member may hold only two unpaid)
    for _ in range(4):
        buyer = make_user()
        sign_in(client, buyer)
        assert client.post("/api/ads/reservations", json=body(buyer)).status_code == 201
    sign_in(client, user)
    full = client.post("/api/ads/reservations", json=body(user))
    assert (full.status_code, code(full)) == (409, "slot_full")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        # refused by the schema
        ({"slot": "sidebar"}, "slot"),
        ({"country": "XX"}, "country"),
        ({"startMonth": "2027-13"}, "startMonth"),
        ({"months": "3"}, "months"),
        ({"months": True}, "months"),
        ({"consent": "yes"}, "consent"),
        # refused by the domain, under the name the request used
        ({"country": "US"}, "country"),  # a real country without a price
        ({"startMonth": month_of(utcnow())}, "startMonth"),
        ({"imageUrl": "https://elsewhere.example/a.png"}, "imageUrl"),
        ({"profileId": "00000000-0000-4000-8000-000000000000"}, "profileId"),
        ({"profileId": None}, "profileId"),
    ],
)
def test_each_rejection_names_the_field_as_the_request_did(client, change, field):
    user = make_user()
    sign_in(client, user)
    refused = client.post("/api/ads/reservations", json=body(user, **change))
    assert refused.status_code == 400
    assert field in refused.get_json()["error"]["fields"]
    assert AdReservation.select().count() == 0


def test_a_new_profiles_problem_is_named_by_its_path(client):
    user = make_user()
    sign_in(client, user)
    profile = {
        "businessLegalName": "株式会社新",
        "businessAddress": "大阪府大阪市1-1",
        "contactName": "佐藤",
        "contactEmail": "sato",
        "businessCategory": "food_beverage",
    }
    refused = client.post("/api/ads/reservations", json=body(user, profileId=None, profile=profile))
    assert refused.get_json()["error"]["fields"] == {
        "profile.contactEmail": "not an e-mail address"
    }


def test_the_checkout_and_the_stop_notice_point_to_the_sites_own_pages(client, app):
    # Given a reservation made through the API
    user = make_user()
    sign_in(client, user)
    created = client.post("/api/ads/reservations", json=body(user)).get_json()
    rid = created["reservation"]["id"]
    # Then its checkout comes back to the reservation's page, or the form when cancelled
    session = LocalCheckoutSession.get_by_id(created["checkoutUrl"].rsplit("/", 1)[1])
    base = "http://127.0.0.1:8000"
    assert session.success_url == f"{base}/ads/{rid}?paid=1"
    assert session.cancel_url == f"{base}/ads/new?cancelled={rid}"
    # And when it is stopped, the notice ends with the reservation's page
    admin = app.test_client()
    sign_in(admin, make_admin())
    stopped = admin.post(
        f"/api/admin/ads/reservations/{rid}/stop", json={"reason": "画像が規約に反します"}
    ).get_json()
    assert stopped["notice"]["body"].endswith(f"\n{base}/ads/{rid}")
    # And the spelled-out pages of the domain tests are the same addresses
    with app.test_request_context():
        for page in ("reservation", "paid", "cancelled"):
            assert getattr(AD_PAGES, page)(rid) == getattr(PAGES, page)(rid)


def test_admin_review_endpoints(client, app):
    user = make_user()
    sign_in(client, user)
    reservation_id = client.post("/api/ads/reservations", json=body(user)).get_json()[
        "reservation"
    ]["id"]
    approve = f"/api/admin/ads/reservations/{reservation_id}/approve"
    assert client.post(approve, json={}).status_code == 403
    admin = app.test_client()
    sign_in(admin, make_admin())
    unpaid = admin.post(approve, json={})
    assert (unpaid.status_code, code(unpaid)) == (409, "not_paid")
    assert admin.post("/api/admin/ads/reservations/nope/approve", json={}).status_code == 404
    no_reason = admin.post(f"/api/admin/ads/reservations/{reservation_id}/stop", json={})
    assert (no_reason.status_code, no_reason.get_json()["error"]["fields"]) == (
        400,
        {"reason": "required"},
    )
    stopped = admin.post(
        f"/api/admin/ads/reservations/{reservation_id}/stop",
        json={"reason": "画像が規約に反します"},
    )
    assert stopped.status_code == 200
    answer = stopped.get_json()
    assert answer["reservation"]["status"] == "stopped"
    assert answer["notice"]["to"] == "ads@example.jp"
    assert answer["notice"]["mailto"].startswith("mailto:ads@example.jp?subject=")
    again = admin.post(f"/api/admin/ads/reservations/{reservation_id}/stop", json={"reason": "x"})
    assert (again.status_code, code(again)) == (409, "invalid_status")
    listed = admin.get("/api/admin/ads/reservations?status=stopped&country=JP").get_json()
    assert [r["id"] for r in listed["reservations"]] == [reservation_id]
    assert listed["reservations"][0]["ctr"] is None
    assert admin.get("/api/admin/ads/reservations?slot=nope").status_code == 400
    assert admin.get("/api/admin/revenue").get_json() == {
        "adRevenue": [],
        "totals": [],
        "paidAfterStop": [],
    }


def test_upload_reserve_pay_approve_and_see_it_on_the_timeline(site, stub_broker, stub_worker):
    """The whole journey over HTTP, as an advertiser's browser and an admin would go."""
    advertiser = requests.Session()
    assert (
        advertiser.post(
            f"{site}/auth/dev-login", json={"email": "ad@example.jp"}, timeout=5
        ).status_code
        == 200
    )
    uploaded = advertiser.post(
        f"{site}/api/uploads/ad-image",
        files={"file": ("banner.png", io.BytesIO(image_bytes(1280, 720)), "image/png")},
        headers={"X-CSRFToken": csrf_token(advertiser, site)},
        timeout=5,
    )
    assert uploaded.status_code == 201, uploaded.text
    profile = advertiser.post(
        f"{site}/api/ads/profiles",
        json={
            "businessLegalName": "広島食品株式会社",
            "businessAddress": "広島県広島市1-2-3",
            "contactName": "田中",
            "contactEmail": "tanaka@example.jp",
            "businessCategory": "food_beverage",
            "invoiceRegistrationNumber": "T1234567890123",
        },
        timeout=5,
    ).json()
    reserved = advertiser.post(
        f"{site}/api/ads/reservations",
        json={
            "profileId": profile["id"],
            "slot": "search-result-bottom",
            "country": "JP",
            "startMonth": NEXT,
            "months": 3,
            "advertiserName": "広島のお好み焼き",
            "imageUrl": uploaded.json()["url"],
            "redirectUrl": "https://okonomi.example.jp/",
            "consent": True,
        },
        timeout=5,
    )
    assert reserved.status_code == 201, reserved.text
    reservation_id = reserved.json()["reservation"]["id"]
    page = advertiser.get(reserved.json()["checkoutUrl"], timeout=5)
    assert "¥150,000" in page.text
    paid = advertiser.post(
        f"{reserved.json()['checkoutUrl']}/complete", allow_redirects=False, timeout=5
    )
    assert paid.status_code == 303
    drain(stub_broker, stub_worker)
    assert AdReservation.get_by_id(reservation_id).payment_intent_id is not None

    administrator = requests.Session()
    admin_user = make_admin()
    assert (
        administrator.post(
            f"{site}/auth/dev-login", json={"email": admin_user.email}, timeout=5
        ).status_code
        == 200
    )
    approved = administrator.post(
        f"{site}/api/admin/ads/reservations/{reservation_id}/approve", json={}, timeout=5
    )
    assert approved.status_code == 200, approved.text
    assert approved.json()["reservation"]["status"] == "active"
    timeline = administrator.get(f"{site}/api/admin/ads/timeline", timeout=5).json()
    row = next(
        r
        for r in timeline["rows"]
        if (r["slot"], r["position"], r["country"]) == ("search-result-bottom", 1, "JP")
    )
    names = [cell and cell["advertiserName"] for cell in row["cells"]]
    assert names[1:4] == ["広島のお好み焼き"] * 3
    revenue = administrator.get(f"{site}/api/admin/revenue", timeout=5).json()
    assert revenue["totals"] == [{"currency": "jpy", "amountReceived": 150_000}]


@pytest.mark.parametrize(
    "path", ["/api/admin/ads/reservations", "/api/admin/ads/timeline", "/api/admin/revenue"]
)
def test_admin_ad_pages_need_the_admin_role(client, path):
    assert client.get(path).status_code == 401
    sign_in(client, make_user())
    assert client.get(path).status_code == 403
