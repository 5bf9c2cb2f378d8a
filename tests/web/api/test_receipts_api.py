"""Receipts over HTTP (issue 48): the API's two calls, the report's link and its
redirect, the account's list, and the local provider's invoice page."""

from __future__ import annotations

import re

import pytest

from models.ads.months import add_months, month_of
from models.ads.reservations import reserve
from models.billing import start_subscription_checkout
from models.clock import utcnow
from models.payments import PaymentUnavailable, get_provider
from models.tables import AdCheckout, AdReservation, SubscriptionCheckout
from tests.factories import make_order, make_profile, make_user, sign_in
from tests.fakes.ad_pages import PAGES
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.tables import LocalCheckoutSession, LocalInvoice

NEXT = add_months(month_of(utcnow()), 1)


def paid_reservation(user, months=1, registration=None) -> AdReservation:
    """A reservation bought through the local checkout, paid by card, the payment
    recorded as the webhook records it."""
    profile = make_profile(
        user, business_legal_name="株式会社サンプル広告", invoice_registration_number=registration
    )
    order = make_order(user, profile, months=months)
    reservation = reserve(user.id, order, PAGES).reservation
    session_id = AdCheckout.get_by_id(reservation.id).checkout_session_id
    get_provider().complete(session_id)
    intent = LocalCheckoutSession.get_by_id(session_id).payment_intent_id
    AdReservation.update(payment_intent_id=intent).where(
        AdReservation.id == reservation.id
    ).execute()
    return AdReservation.get_by_id(reservation.id)


def unpaid_reservation(user) -> AdReservation:
    order = make_order(user)
    return reserve(user.id, order, PAGES).reservation


def test_the_receipt_of_an_own_paid_reservation(client):
    user = make_user()
    reservation = paid_reservation(user)
    sign_in(client, user)
    answer = client.get(f"/api/ads/reservations/{reservation.id}/receipt")
    assert answer.status_code == 200
    invoice = LocalInvoice.get()
    assert answer.get_json() == {
        "url": f"{get_provider().public_base_url}/_local-payments/invoices/{invoice.id}"
    }


def test_no_receipt_for_someone_elses_an_unknown_or_an_unpaid_reservation(client):
    owner = make_user()
    paid = paid_reservation(owner)
    other = make_user()
    unpaid = unpaid_reservation(other)
    sign_in(client, other)
    for reservation_id in (paid.id, unpaid.id, "00000000-0000-4000-8000-000000000000"):
        answer = client.get(f"/api/ads/reservations/{reservation_id}/receipt")
        assert answer.status_code == 404, reservation_id
        assert answer.get_json()["error"]["code"] == "not_found"


def test_receipts_need_a_member(client):
    assert client.get("/api/billing/receipts").status_code == 401


def subscribe(user, plan="plus") -> str:
    start_subscription_checkout(user.id, plan, "http://127.0.0.1:8000")
    session_id = SubscriptionCheckout.get_by_id(user.id).session_id
    get_provider().complete(session_id)
    return LocalCheckoutSession.get_by_id(session_id).subscription_id


def test_the_plans_receipts_newest_first(client):
    user = make_user()
    subscription_id = subscribe(user)
    get_provider().end_period(subscription_id)
    sign_in(client, user)
    answer = client.get("/api/billing/receipts")
    assert answer.status_code == 200
    receipts = answer.get_json()["receipts"]
    assert len(receipts) == 2
    assert receipts[0]["periodStart"] == receipts[1]["periodEnd"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", receipts[0]["periodStart"])
    assert {k: receipts[0][k] for k in ("amount", "currency")} == {"amount": 980, "currency": "jpy"}
    assert "/_local-payments/invoices/in_local_" in receipts[0]["url"]


def test_a_member_never_subscribed_has_an_empty_list(client):
    sign_in(client, make_user())
    assert client.get("/api/billing/receipts").get_json() == {"receipts": []}


def test_a_provider_out_of_reach_answers_503(client, monkeypatch):
    user = make_user()
    subscribe(user)
    sign_in(client, user)

    def down(self, customer_id):
        raise PaymentUnavailable("connection refused")

    monkeypatch.setattr(LocalProvider, "subscription_receipts", down)
    answer = client.get("/api/billing/receipts")
    assert answer.status_code == 503
    assert answer.get_json()["error"]["code"] == "unavailable"


def test_the_report_links_to_the_receipt_which_redirects_to_it(client):
    user = make_user()
    reservation = paid_reservation(user)
    sign_in(client, user)
    page = client.get(f"/ads/{reservation.id}").get_data(as_text=True)
    assert f'href="/ads/{reservation.id}/receipt"' in page
    assert "領収書（適格請求書）" in page
    answer = client.get(f"/ads/{reservation.id}/receipt")
    assert answer.status_code == 302
    assert "/_local-payments/invoices/in_local_" in answer.headers["Location"]


def test_an_unpaid_reservation_has_no_receipt_link(client):
    user = make_user()
    reservation = unpaid_reservation(user)
    sign_in(client, user)
    page = client.get(f"/ads/{reservation.id}").get_data(as_text=True)
    assert "/receipt" not in page
    assert client.get(f"/ads/{reservation.id}/receipt").status_code == 404


def test_the_account_lists_the_plans_receipts(client):
    user = make_user()
    subscribe(user)
    sign_in(client, user)
    page = client.get("/account").get_data(as_text=True)
    section = page[page.index("data-receipts") :]
    assert "領収書" in section
    assert "¥980" in section and "税込" in section
    assert "/_local-payments/invoices/in_local_" in section


def test_the_account_without_receipts_has_no_section(client):
    sign_in(client, make_user())
    assert "data-receipts" not in client.get("/account").get_data(as_text=True)


def test_the_account_still_opens_when_receipts_cannot_be_read(client, monkeypatch):
    user = make_user()
    subscribe(user)
    sign_in(client, user)

    def down(self, customer_id):
        raise PaymentUnavailable("connection refused")

    monkeypatch.setattr(LocalProvider, "subscription_receipts", down)
    page = client.get("/account")
    assert page.status_code == 200
    assert "data-receipts-unavailable" in page.get_data(as_text=True)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize(
    ("months", "total", "tax"), [(1, "¥50,000", "¥4,545"), (2, "¥100,000", "¥9,091")]
)
def test_the_ad_invoice_page_is_a_qualified_invoice(client, settings, months, total, tax):
    user = make_user()
    paid_reservation(user, months=months, registration="T9876543210987")
    invoice = LocalInvoice.get()
    page = client.get(f"/_local-payments/invoices/{invoice.id}")
    assert page.status_code == 200
    text = text_of(page.get_data(as_text=True))
    assert "適格請求書" in text
    assert invoice.number in text
    assert settings.invoice_registration_number in text
    assert settings.invoice_issuer_name in text
    assert settings.invoice_issuer_address in text
    assert "株式会社サンプル広告 御中" in text
    assert "T9876543210987" in text
    assert "広告掲載 検索結果下部" in text
    assert "10%対象（税込）" in text
    assert f"消費税（10%） {tax}" in text
    assert f"合計（税込） {total}" in text


def test_the_tax_line_rounds_down_once(client):
    # ¥55,000 holds ¥5,000 exactly; ¥980 holds ¥89.09..., shown as ¥89.
    user = make_user()
    subscribe(user)
    invoice = LocalInvoice.get()
    for amount, tax in ((55_000, "¥5,000"), (980, "¥89")):
        LocalInvoice.update(amount=amount).where(LocalInvoice.id == invoice.id).execute()
        text = text_of(client.get(f"/_local-payments/invoices/{invoice.id}").get_data(as_text=True))
        assert f"消費税（10%） {tax}" in text


def test_the_plan_invoice_names_the_member_and_the_period(client):
    user = make_user(name="花子", email="hanako@example.jp")
    subscribe(user)
    invoice = LocalInvoice.get()
    text = text_of(client.get(f"/_local-payments/invoices/{invoice.id}").get_data(as_text=True))
    assert "花子 様" in text and "hanako@example.jp" in text
    assert "Plusプラン" in text
    assert "期間" in text


def test_an_unknown_invoice_is_404(client):
    assert client.get("/_local-payments/invoices/in_local_nope").status_code == 404


def test_the_pages_that_show_a_price_say_tax_included(client):
    advertise = client.get("/advertise").get_data(as_text=True)
    prices = advertise[advertise.index('id="prices"') :]
    assert "¥50,000" in prices and "税込" in prices
    assert "data-tax-note" in advertise
    sign_in(client, make_user())
    assert "消費税（10%）込み" in client.get("/ads/new").get_data(as_text=True)
    account = client.get("/account").get_data(as_text=True)
    assert "税込" in account[account.index("data-plan-offers") :]
