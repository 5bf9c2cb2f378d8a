"""The administrator's review and the delivery state on the pages: an administrator sees
each ad's creative, landing host and buyer, and opens any reservation on its page with
the review's actions; an approved ad for next month reads 配信予定, not 配信中."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from models.ads.months import add_months, month_of
from models.clock import iso, utcnow
from models.tables import AdCheckout
from tests.factories import make_admin, make_profile, make_reservation, make_user, sign_in
from web.i18n import LOCALE_COOKIE

NEXT = add_months(month_of(utcnow()), 1)


@pytest.fixture
def waiting():
    """A paid reservation in review for next month, with a landing page on another host
    than the name suggests."""
    owner = make_user(email="review-owner@example.jp")
    profile = make_profile(
        owner,
        business_legal_name="株式会社審査テスト",
        contact_name="審査花子",
        contact_email="review-contact@example.jp",
        business_category="finance",
    )
    return make_reservation(
        owner,
        profile,
        start_month=NEXT,
        end_month=NEXT,
        payment_intent_id="pi_review",
        advertiser_name="銀行公式",
        image_url="/uploads/review.png",
        redirect_url="https://bank-official.example.net/login?ref=ad",
    )


def scheduled(owner=None):
    return make_reservation(
        owner,
        status="active",
        start_month=NEXT,
        end_month=NEXT,
        payment_intent_id="pi_scheduled",
        advertiser_name="来月の広告",
        position=2,
    )


def row_of(html, reservation):
    found = re.search(rf'<tr data-reservation-id="{reservation.id}".*?</tr>', html, re.S)
    assert found, "no row"
    return found.group(0)


def test_the_admin_list_shows_each_creative_its_host_and_its_buyer(client, waiting):
    sign_in(client, make_admin())
    row = row_of(client.get("/admin/ads").get_data(as_text=True), waiting)
    assert 'src="/uploads/review.png"' in row
    assert f'href="/ads/{waiting.id}"' in row
    assert re.search(
        r"<strong[^>]*data-redirect-host[^>]*>bank-official\.example\.net</strong>", row
    )
    assert "https://bank-official.example.net/login?ref=ad" in row
    assert "株式会社審査テスト" in row and "審査花子" in row and "review-contact@example.jp" in row
    assert "金融" in row  # the business category, as people say it


def test_an_admin_opens_anyones_reservation_with_the_reviews_actions(client, waiting):
    sign_in(client, make_admin())
    answer = client.get(f"/ads/{waiting.id}")
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    assert f'data-approve="{waiting.id}"' in page and f'data-stop="{waiting.id}"' in page
    assert 'id="stop-dialog"' in page and "admin-ads.js" in page
    assert "株式会社審査テスト" in page and "review-contact@example.jp" in page
    assert re.search(r"data-redirect-host[^>]*>bank-official\.example\.net<", page)


def test_others_reservations_stay_404_to_members(client, waiting):
    sign_in(client, make_user())
    assert client.get(f"/ads/{waiting.id}").status_code == 404


def test_the_owner_sees_no_review_actions(client, waiting):
    sign_in(client, waiting.user)
    page = client.get(f"/ads/{waiting.id}").get_data(as_text=True)
    assert "data-approve" not in page and 'id="stop-dialog"' not in page


def test_an_approved_ad_for_next_month_reads_scheduled_to_its_advertiser(client):
    owner = make_user()
    ad = scheduled(owner)
    sign_in(client, owner)
    listed = row_of(client.get("/ads").get_data(as_text=True), ad)
    detail = client.get(f"/ads/{ad.id}").get_data(as_text=True)
    for page in (listed, detail):
        assert 'data-delivery="scheduled"' in page and "配信予定" in page
        assert "配信中" not in page
        # when it starts, in place of days left
        assert f"{int(NEXT[:4])}年{int(NEXT[5:])}月1日" in page and "data-starts" in page
    assert "日から" in listed and "残り日数" not in detail


def test_an_approved_ad_for_next_month_reads_scheduled_to_the_admin(client):
    ad = scheduled()
    sign_in(client, make_admin())
    row = row_of(client.get("/admin/ads").get_data(as_text=True), ad)
    assert "承認済み" in row and "配信予定" in row and "配信中" not in row
    report = client.get(f"/admin/ads/report?endDate={NEXT}-01").get_data(as_text=True)
    assert 'data-delivery="scheduled"' in report and "配信予定" in report


def test_english_readers_read_scheduled(client):
    owner = make_user(locale="en")
    ad = scheduled(owner)
    client.set_cookie(LOCALE_COOKIE, "en")
    sign_in(client, owner)
    listed = row_of(client.get("/ads").get_data(as_text=True), ad)
    assert "Scheduled" in listed and "Running" not in listed and "Starts" in listed


def test_an_admin_reviewing_an_unpaid_reservation_is_not_offered_its_payment(client):
    # Given someone's reservation whose checkout is still open
    unpaid = make_reservation(make_user(), advertiser_name="支払い待ちの広告")
    AdCheckout.create(
        ad_reservation=unpaid.id,
        checkout_session_id="cs_review_unpaid",
        expires_at=iso(utcnow() + timedelta(minutes=30)),
    )
    # Then its buyer may go to the payment, and the administrator only sees it awaited
    sign_in(client, unpaid.user)
    assert "data-resume-checkout" in client.get(f"/ads/{unpaid.id}").get_data(as_text=True)
    sign_in(client, make_admin())
    page = client.get(f"/ads/{unpaid.id}").get_data(as_text=True)
    assert 'data-payment-state="awaiting_payment"' in page
    assert "data-resume-checkout" not in page
