"""Receipts (qualified invoices, 適格請求書; issue 48): the tax of a tax-inclusive price,
what an ad checkout asks the provider to put on its invoice, the local provider issuing
one invoice per paid checkout and per paid subscription period, and who may see which."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from models.ads.reservations import Order, reserve
from models.billing import ensure_payment_customer, start_subscription_checkout
from models.errors import NotFound
from models.invoices import TaxLine, consumption_tax, current_issuer, money
from models.payments import get_provider
from models.receipts import ad_receipt_url, plan_receipts
from models.settings import use_settings
from models.tables import AdCheckout, AdReservation, Subscription, SubscriptionCheckout, User
from tests.factories import make_order, make_profile, make_upload, make_user
from tests.fakes.ad_pages import PAGES
from web.devtools.local_payments.tables import LocalCheckoutSession, LocalInvoice


@pytest.mark.parametrize(
    ("total", "tax"),
    [
        (55_000, 5_000),
        (980, 89),  # 89.09
        (2_980, 271),  # 270.91
        (150_000, 13_636),  # 13,636.36
        (3_150, 286),  # 286.36
        (115, 10),  # 10.45
        (116, 11),  # 10.545...
        (6, 1),  # 0.545...
        (5, 0),  # 0.4545...
        (0, 0),
    ],
)
def test_the_tax_inside_a_tax_inclusive_total_is_rounded_half_up(total, tax):
    assert consumption_tax(total) == tax


def test_the_tax_is_worked_out_once_on_the_total_not_per_month():
    # Three months at ¥980: per month 89 × 3 = 267; once on ¥2,940: 267 as well, but
    # three months at ¥1,050 show the difference: 95 × 3 = 285, once: 286.
    assert TaxLine(3 * 1_050, "jpy").tax == 286
    assert TaxLine(55_000, "jpy").text == "¥55,000（うち消費税 ¥5,000）"
    assert TaxLine(55_000, "jpy").label == "10%対象（税込）"
    assert TaxLine(980, "jpy").net == 891


def test_amounts_print_in_their_currency():
    assert money(55_000, "jpy") == "¥55,000"
    assert money(1_234, "usd") == "12.34 USD"


@pytest.fixture
def buyer():
    user = make_user()
    profile = make_profile(user, invoice_registration_number="T9876543210987")
    return user, profile, make_upload(user)


def ad_order(buyer, months=1) -> Order:
    user, profile, image = buyer
    return make_order(user, profile, months=months, image_url=image)


def placed_checkout(buyer, months=1) -> tuple[AdReservation, str]:
    placed = reserve(buyer[0].id, ad_order(buyer, months), PAGES)
    return placed.reservation, AdCheckout.get_by_id(placed.reservation.id).checkout_session_id


def test_an_ad_checkout_says_what_its_invoice_is_to_say(buyer):
    reservation, session_id = placed_checkout(buyer, months=2)
    data = LocalCheckoutSession.get_by_id(session_id).invoice_data
    issuer = current_issuer()
    assert issuer is not None
    assert data["issuer"]["registration_number"] == issuer.registration_number
    assert data["buyer_name"] == "株式会社テスト"
    assert data["buyer_registration_number"] == "T9876543210987"
    assert data["description"].startswith("広告掲載 検索結果下部 位置1（JP）")
    assert data["description"].endswith("から2か月")
    assert data["metadata"] == {"ad_reservation_id": reservation.id}


def test_a_paid_ad_checkout_issues_one_invoice_even_when_completed_twice(buyer):
    _reservation, session_id = placed_checkout(buyer, months=2)
    provider = get_provider()
    assert provider.ad_receipt_url(session_id) is None  # not paid yet
    provider.complete(session_id)
    provider.complete(session_id)  # a second completion (a double click) does nothing
    invoice = LocalInvoice.get()
    assert LocalInvoice.select().count() == 1
    assert (invoice.amount, invoice.currency, invoice.quantity) == (100_000, "jpy", 2)
    assert invoice.buyer_name == "株式会社テスト"
    assert invoice.issuer_registration_number == current_issuer().registration_number
    assert provider.ad_receipt_url(session_id) == (
        f"{provider.public_base_url}/_local-payments/invoices/{invoice.id}"
    )
    assert len(invoice.id) > 24  # a random token, not a counter


def test_issuing_for_the_same_source_again_inserts_nothing(buyer):
    _reservation, session_id = placed_checkout(buyer)
    provider = get_provider()
    provider.complete(session_id)
    row = LocalCheckoutSession.get_by_id(session_id)
    provider._issue_checkout_invoice(row, 1_900_000_000)  # a redelivered completion
    assert LocalInvoice.select().count() == 1


def test_konbini_issues_the_invoice_when_the_money_arrives(buyer):
    _reservation, session_id = placed_checkout(buyer)
    provider = get_provider()
    provider.complete(session_id, method="konbini")
    assert LocalInvoice.select().count() == 0
    provider.settle(session_id)
    provider.settle(session_id)
    assert LocalInvoice.select().count() == 1


def test_a_lapsed_konbini_payment_issues_none(buyer):
    _reservation, session_id = placed_checkout(buyer)
    provider = get_provider()
    provider.complete(session_id, method="konbini")
    provider.fail(session_id)
    assert LocalInvoice.select().count() == 0


def test_the_receipt_is_the_buyers_and_only_once_paid(buyer):
    reservation, session_id = placed_checkout(buyer)
    with pytest.raises(NotFound):
        ad_receipt_url(buyer[0].id, reservation.id)  # unpaid
    get_provider().complete(session_id)
    AdReservation.update(payment_intent_id="pi_x").where(
        AdReservation.id == reservation.id
    ).execute()  # as the webhook records it
    assert "/_local-payments/invoices/in_local_" in ad_receipt_url(buyer[0].id, reservation.id)
    with pytest.raises(NotFound):
        ad_receipt_url(make_user().id, reservation.id)  # someone else's
    with pytest.raises(NotFound):
        ad_receipt_url(buyer[0].id, "00000000-0000-4000-8000-000000000000")


def subscribe(user, plan="plus"):
    start_subscription_checkout(user.id, plan, "http://127.0.0.1:8000")
    session_id = SubscriptionCheckout.get_by_id(user.id).session_id
    get_provider().complete(session_id)
    return LocalCheckoutSession.get_by_id(session_id).subscription_id


def test_each_paid_subscription_period_issues_one_invoice():
    user = make_user(name="花子", email="hanako@example.jp")
    subscription_id = subscribe(user)
    provider = get_provider()
    provider.end_period(subscription_id)
    receipts = plan_receipts(user.id)
    assert len(receipts) == 2
    newest, first = receipts
    assert newest.period_start == first.period_end  # newest first, one period each
    assert (newest.amount, newest.currency) == (980, "jpy")
    invoice = LocalInvoice.get(LocalInvoice.id == first.id)
    assert (invoice.buyer_name, invoice.buyer_email) == ("花子", "hanako@example.jp")
    assert "Plusプラン" in invoice.description


def test_a_period_issued_again_is_not_issued_twice():
    user = make_user()
    subscription_id = subscribe(user)
    provider = get_provider()
    row = provider._subscription_row(subscription_id)
    provider._issue_period_invoice(row, 1_900_000_000)
    assert len(plan_receipts(user.id)) == 1


def test_a_member_without_a_customer_has_no_receipts():
    assert plan_receipts(make_user().id) == []


def test_a_customer_made_earlier_is_given_the_issuer_before_a_checkout(monkeypatch):
    user = make_user()
    ensure_payment_customer(user.id)
    calls = []
    provider = get_provider()
    monkeypatch.setattr(
        type(provider), "set_invoice_issuer", lambda self, c, i: calls.append((c, i))
    )
    start_subscription_checkout(user.id, "plus", "http://127.0.0.1:8000")
    customer = User.get_by_id(user.id).payment_customer_id
    assert calls == [(customer, current_issuer())]


def test_an_ad_checkout_without_an_issuer_asks_for_no_invoice(buyer, settings):
    use_settings(replace(settings, invoice_registration_number=None))
    _reservation, session_id = placed_checkout(buyer)
    assert LocalCheckoutSession.get_by_id(session_id).invoice_data == {}
    get_provider().complete(session_id)
    assert LocalInvoice.select().count() == 0


def test_the_provider_is_asked_again_only_once_a_new_period_is_billed(monkeypatch):
    # Given a member's paid plan, its receipts read once
    user = make_user()
    subscription_id = subscribe(user)
    provider = get_provider()
    asked = []
    reading = provider.subscription_receipts
    monkeypatch.setattr(
        provider,
        "subscription_receipts",
        lambda customer: asked.append(customer) or reading(customer),
    )
    Subscription.create(
        id=str(uuid.uuid4()),
        plan="plus",
        reference_id=user.id,
        payment_subscription_id=subscription_id,
        status="active",
        period_start=1,
    )
    assert len(plan_receipts(user.id)) == 1
    # When the account page is shown again, nothing is asked of the provider
    assert len(plan_receipts(user.id)) == 1
    assert len(asked) == 1
    # When the next period is paid and its event moves the subscription on
    provider.end_period(subscription_id)
    Subscription.update(period_start=2).where(Subscription.reference_id == user.id).execute()
    # Then the provider is asked again, and the new receipt is listed
    assert len(plan_receipts(user.id)) == 2
    assert len(asked) == 2
