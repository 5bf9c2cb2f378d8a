"""The checkouts left open, through the API (issue 48, Back from a checkout):
GET /api/billing/checkout shows the plan checkout, DELETE cancels it (204) so the
other plan can be chosen; DELETE /api/ads/reservations/{id}/checkout cancels an own
unpaid reservation's checkout and frees its position."""

from __future__ import annotations

from models.payments import get_provider
from models.tables import AdReservation
from tests.factories import make_user, sign_in
from tests.models.ads.test_delayed_payments import buy, session_of


def test_a_plan_checkout_left_open_is_shown_then_cancelled(client):
    user = make_user()
    sign_in(client, user)
    assert client.get("/api/billing/checkout").get_json() == {"openCheckout": None}
    url = client.post("/api/billing/checkout", json={"plan": "plus"}).get_json()["checkoutUrl"]

    shown = client.get("/api/billing/checkout").get_json()["openCheckout"]
    assert (shown["plan"], shown["url"]) == ("plus", url)
    assert shown["expiresAt"].endswith("Z")
    refused = client.post("/api/billing/checkout", json={"plan": "pro"})
    assert refused.get_json()["error"]["code"] == "checkout_open"

    cancelled = client.delete("/api/billing/checkout", json={})
    assert (cancelled.status_code, cancelled.get_data()) == (204, b"")
    assert client.get("/api/billing/checkout").get_json() == {"openCheckout": None}
    assert client.post("/api/billing/checkout", json={"plan": "pro"}).status_code == 200


def test_the_plan_checkout_calls_need_a_member(client):
    assert client.get("/api/billing/checkout").status_code == 401
    assert client.delete("/api/billing/checkout", json={}).status_code == 401


def test_cancelling_an_ad_checkout_frees_its_position(client):
    reservation = buy()
    sign_in(client, AdReservation.get_by_id(reservation.id).user)
    path = f"/api/ads/reservations/{reservation.id}/checkout"
    response = client.delete(path, json={})
    assert response.status_code == 204
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()
    assert client.delete(path, json={}).get_json()["error"]["code"] == "not_found"


def test_an_ad_checkout_paid_meanwhile_is_not_cancelled(client):
    reservation = buy()
    get_provider().complete(session_of(reservation))
    sign_in(client, AdReservation.get_by_id(reservation.id).user)
    response = client.delete(f"/api/ads/reservations/{reservation.id}/checkout", json={})
    assert (response.status_code, response.get_json()["error"]["code"]) == (409, "already_paid")


def test_someone_elses_ad_checkout_is_not_found(client):
    reservation = buy()
    sign_in(client, make_user())
    response = client.delete(f"/api/ads/reservations/{reservation.id}/checkout", json={})
    assert response.status_code == 404
    assert AdReservation.get_by_id(reservation.id).status == "pending_review"
