"""The ad purchase's edges: a rejection closes the checkout and frees the position, a
payment that still arrives is flagged for a refund, a cancelled checkout frees the
position at once, an unpaid hold can be paid later from /ads, and the stop notice is
kept to be opened again. On the local engine over real HTTP, and on the stripe engine
against a stand-in of its API."""

from __future__ import annotations

from datetime import timedelta

import requests

from models.ads import admin
from models.ads.checkout import mark_paid
from models.ads.months import add_months, month_of
from models.ads.reservations import approve, reserve, stop
from models.clock import iso, utcnow
from models.payments.stripe_engine import StripeProvider
from models.tables import AdCheckout, AdReservation, AdStopNotice
from tests.factories import make_admin, make_profile, make_upload, make_user, sign_in
from tests.fakes.ad_pages import PAGES
from tests.fakes.http import serve
from tests.fakes.stripe_server import FakeStripe
from tests.fixtures import drain
from tests.web.api.test_payment_webhooks import AD, event, post
from web.api.schemas.ads import ReservationBody
from web.devtools.local_payments.tables import LocalCheckoutSession, LocalPaymentIntent

NEXT = add_months(month_of(utcnow()), 1)


def order(user, **overrides):
    body = {
        "profileId": make_profile(user).id,
        "slot": "search-result-bottom",
        "country": "JP",
        "startMonth": NEXT,
        "months": 1,
        "advertiserName": "山田商店",
        "imageUrl": make_upload(user),
        "redirectUrl": "https://example.jp/shop",
        "consent": True,
    }
    return {**body, **overrides}


def buy(user=None):
    """A reservation and its local checkout URL."""
    user = user or make_user()
    return reserve(user.id, ReservationBody.model_validate(order(user)).order(), PAGES)


def session_of(reservation) -> str:
    return AdCheckout.get_by_id(reservation.id).checkout_session_id


# -- 1. a rejected reservation cannot be paid, and gives its position back --------------


def test_rejecting_an_unpaid_reservation_closes_its_checkout_and_frees_its_position(
    site, stub_broker, stub_worker
):
    reservation, url = buy()
    stop(reservation.id, "掲載基準に合いません", PAGES)
    drain(stub_broker, stub_worker)

    # the checkout is closed at the provider: paying it is refused
    assert LocalCheckoutSession.get_by_id(session_of(reservation)).status == "expired"
    paid = requests.post(f"{url}/complete", allow_redirects=False, timeout=5)
    assert paid.status_code == 409
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None

    # the row stays, stopped, and the same position can be bought again at once
    kept = AdReservation.get_by_id(reservation.id)
    assert (kept.status, kept.position_released_at is not None) == ("stopped", True)
    again, _ = buy()
    assert again.position == reservation.position


def test_rejecting_a_paid_reservation_keeps_its_position(site):
    reservation, _ = buy()
    mark_paid(reservation.id, "pi_paid")
    stop(reservation.id, "規約違反", PAGES)
    assert AdReservation.get_by_id(reservation.id).position_released_at is None
    assert buy()[0].position == reservation.position + 1


def paid_after_rejection(stub_broker, stub_worker):
    """A konbini checkout (complete, the money not yet in) rejected by the admin, then
    paid at the shop anyway."""
    reservation, url = buy()
    requests.post(f"{url}/konbini", allow_redirects=False, timeout=5)
    drain(stub_broker, stub_worker)
    stop(reservation.id, "掲載基準に合いません", PAGES)
    requests.post(f"{url}/settle", allow_redirects=False, timeout=5)
    drain(stub_broker, stub_worker)
    return reservation


def test_a_payment_arriving_after_rejection_is_kept_and_flagged_for_refund(
    site, stub_broker, stub_worker
):
    reservation = paid_after_rejection(stub_broker, stub_worker)
    # then the payment is recorded, flagged, and kept out of revenue
    intent = LocalPaymentIntent.get()
    row = AdReservation.get_by_id(reservation.id)
    assert (row.status, row.payment_intent_id) == ("stopped", intent.id)
    assert row.paid_after_stop_at is not None
    listed = {r.reservation.id: r.reservation for r in admin.list_reservations()}
    assert listed[reservation.id].paid_after_stop_at == row.paid_after_stop_at
    revenue = admin.revenue()
    assert revenue.by_month == []
    assert [(r.reservation.id, r.amount_received) for r in revenue.paid_after_stop] == [
        (reservation.id, intent.amount_received)
    ]


def test_the_admin_pages_show_the_refund_and_keep_it_apart(app, site, stub_broker, stub_worker):
    reservation = paid_after_rejection(stub_broker, stub_worker)
    client = app.test_client()
    sign_in(client, make_admin())
    assert "停止後に入金 — 要返金" in client.get("/admin/ads").get_data(as_text=True)
    revenue = client.get("/admin/revenue").get_data(as_text=True)
    refunds = revenue[revenue.index("data-paid-after-stop") :]
    assert reservation.id in refunds


def test_rejection_closes_the_checkout_on_the_stripe_engine(monkeypatch):
    fake = FakeStripe()
    reservation = AdReservation.get_by_id(buy()[0].id)
    AdCheckout.update(checkout_session_id="cs_open_7").where(
        AdCheckout.ad_reservation == reservation.id
    ).execute()
    with serve(fake) as url:
        monkeypatch.setattr(
            "models.ads.checkout.get_provider",
            lambda: StripeProvider("sk_test_fake", api_base=url),
        )
        stop(reservation.id, "掲載基準に合いません", PAGES)
    assert fake.last("POST", "/v1/checkout/sessions/cs_open_7/expire")
    assert AdReservation.get_by_id(reservation.id).position_released_at is not None


# -- 2. a cancelled checkout frees the position at once ------------------------------


def test_cancel_on_the_checkout_page_frees_the_position_at_once(
    client, site, stub_broker, stub_worker
):
    user = make_user()
    sign_in(client, user)
    first = client.post("/api/ads/reservations", json=order(user)).get_json()
    cancelled = requests.post(f"{first['checkoutUrl']}/cancel", allow_redirects=False, timeout=5)
    assert cancelled.status_code == 303
    drain(stub_broker, stub_worker)
    assert AdReservation.get_or_none(AdReservation.id == first["reservation"]["id"]) is None
    again = client.post("/api/ads/reservations", json=order(user))
    assert again.status_code == 201
    assert again.get_json()["reservation"]["position"] == first["reservation"]["position"]


def test_an_expired_checkout_event_from_the_provider_releases_the_hold(client):
    reservation, _ = buy()
    expired = event(
        "checkout.session.expired",
        id=session_of(reservation),
        status="expired",
        metadata={"ad_reservation_id": reservation.id},
    )
    assert post(client, AD, expired).status_code == 200
    assert AdReservation.get_or_none(AdReservation.id == reservation.id) is None


def test_an_expired_event_of_an_older_checkout_keeps_the_hold(client):
    reservation, _ = buy()
    old = event(
        "checkout.session.expired",
        id="cs_an_older_one",
        metadata={"ad_reservation_id": reservation.id},
    )
    assert post(client, AD, old).status_code == 200
    assert AdReservation.get_or_none(AdReservation.id == reservation.id) is not None


def test_an_expired_event_never_releases_a_paid_reservation(client):
    reservation, _ = buy()
    mark_paid(reservation.id, "pi_1")
    expired = event(
        "checkout.session.expired",
        id=session_of(reservation),
        metadata={"ad_reservation_id": reservation.id},
    )
    post(client, AD, expired)
    assert AdReservation.get_by_id(reservation.id).payment_intent_id == "pi_1"


# -- 3. back to an unpaid checkout from /ads -------------------------------------------


def test_an_unpaid_hold_shows_as_awaiting_payment_and_reopens_its_checkout(client, site):
    user = make_user()
    sign_in(client, user)
    created = client.post("/api/ads/reservations", json=order(user)).get_json()
    rid = created["reservation"]["id"]

    listed = client.get("/api/ads/reservations").get_json()["reservations"][0]
    assert listed["paymentState"] == "awaiting_payment"
    assert listed["checkoutExpiresAt"] > iso(utcnow())
    page = client.get("/ads").get_data(as_text=True)
    assert "支払い待ち" in page and "お支払いへ進む" in page and "審査待ち" not in page
    assert "残り 60 分" in page or "残り 59 分" in page

    resumed = client.post(f"/api/ads/reservations/{rid}/checkout", content_type="application/json")
    assert resumed.status_code == 200
    assert resumed.get_json()["checkoutUrl"] == created["checkoutUrl"]


def test_a_paid_or_expired_hold_cannot_be_reopened(client, site):
    user = make_user()
    sign_in(client, user)
    rid = client.post("/api/ads/reservations", json=order(user)).get_json()["reservation"]["id"]
    AdCheckout.update(expires_at=iso(utcnow() - timedelta(minutes=1))).where(
        AdCheckout.ad_reservation == rid
    ).execute()
    closed = client.post(f"/api/ads/reservations/{rid}/checkout", content_type="application/json")
    assert closed.status_code == 409
    assert closed.get_json()["error"]["code"] == "checkout_closed"
    assert client.get(f"/api/ads/reservations/{rid}").get_json()["paymentState"] == "processing"

    mark_paid(rid, "pi_1")
    paid = client.post(f"/api/ads/reservations/{rid}/checkout", content_type="application/json")
    assert paid.status_code == 409
    listed = client.get("/api/ads/reservations").get_json()["reservations"][0]
    assert (listed["paymentState"], listed["checkoutExpiresAt"]) == ("paid", None)
    assert "審査待ち" in client.get("/ads").get_data(as_text=True)


def test_someone_elses_checkout_is_not_found(client, site):
    reservation, _ = buy()
    sign_in(client, make_user())
    resumed = client.post(
        f"/api/ads/reservations/{reservation.id}/checkout", content_type="application/json"
    )
    assert resumed.status_code == 404


# -- 5. the stop notice is kept ---------------------------------------------------------


def test_the_stop_notice_is_kept_and_opens_again(client, site):
    reservation, _ = buy()
    mark_paid(reservation.id, "pi_1")
    approve(reservation.id)
    sign_in(client, make_admin())
    answered = client.post(
        f"/api/admin/ads/reservations/{reservation.id}/stop", json={"reason": "誇大な表現"}
    ).get_json()["notice"]
    assert AdStopNotice.select().count() == 1

    again = client.get(f"/api/admin/ads/reservations/{reservation.id}/stop-notice")
    assert again.status_code == 200
    assert again.get_json()["notice"] == answered
    assert "誇大な表現" in answered["body"] and answered["createdAt"]

    listed = client.get("/api/admin/ads/reservations").get_json()["reservations"][0]
    assert listed["hasStopNotice"] is True
    page = client.get("/admin/ads").get_data(as_text=True)
    assert f'data-show-notice="{reservation.id}"' in page


def test_a_stopped_ad_holding_its_unit_shows_in_the_timeline(client, site):
    reservation, _ = buy()
    AdReservation.update(start_month=month_of(utcnow()), end_month=month_of(utcnow())).where(
        AdReservation.id == reservation.id
    ).execute()
    mark_paid(reservation.id, "pi_1")
    approve(reservation.id)
    stop(reservation.id, "誇大な表現", PAGES)
    cells = [
        cell
        for row in admin.timeline().rows
        for cell in row.cells
        if cell and cell.id == reservation.id
    ]
    assert [(cell.advertiser_name, cell.status) for cell in cells] == [("山田商店", "stopped")]


def test_a_reservation_never_stopped_has_no_notice(client):
    reservation, _ = buy()
    sign_in(client, make_admin())
    missing = client.get(f"/api/admin/ads/reservations/{reservation.id}/stop-notice")
    assert missing.status_code == 404
    assert client.get("/api/admin/ads/reservations/nope/stop-notice").status_code == 404
