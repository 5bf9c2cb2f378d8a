"""Receipts through the stripe engine (issue 48): the qualified invoice an ad checkout
asks the provider to issue, the issuer on a customer's subscription invoices, and
reading them back, against the local stand-in of the provider's API (the exact
form-encoded requests the SDK sends).

Every parameter name sent is checked against the SDK's request TypedDicts, which are
generated from Stripe's OpenAPI spec (stripe-python 16, API version 2026-10-28); the
fields read back (checkout.session `invoice`; invoice `hosted_invoice_url`,
`amount_paid`, `currency`, `status`, `lines`, `period_start`, `period_end`; invoice line
`period`) are checked against the SDK's resource classes, generated from the same spec.
The spec file itself (openapi/spec3.json of github.com/stripe/openapi at commit
f6c2a48fbac2, 2026-08-21) was not readable here: it is kept out of the snapshot as a
large file.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
import stripe
import typing_extensions
from stripe.params import (
    CustomerCreateParams,
    CustomerUpdateParams,
    InvoiceListParams,
    TaxRateCreateParams,
    TaxRateListParams,
)
from stripe.params.checkout import SessionCreateParams

from models.invoices import InvoiceRequest, Issuer
from models.payments import LineItem, PaymentUnavailable
from models.payments.stripe_engine import StripeProvider
from tests.fakes.http import serve

pytestmark = pytest.mark.database_independent

ISSUER = Issuer("subsearch 株式会社", "東京都千代田区千代田1-1", "T1234567890123")


def _typed_dict(owner: type, hint: Any) -> Any:
    """The request TypedDict a field's hint names (`NotRequired["X"]`,
    `"Literal['']|List[X]"`), looked up in the module that defines `owner`."""
    module = sys.modules[owner.__module__]
    for name in re.findall(r"[A-Za-z_]\w*", str(hint)):
        found = getattr(module, name, None)
        if found is not None and typing_extensions.is_typeddict(found):
            return found
    return None


def assert_known_to_the_spec(params: type, form: dict[str, str]) -> None:
    """Each form key (`invoice_creation[invoice_data][custom_fields][0][name]`) walks
    the request's TypedDicts: every name is one the spec defines there (metadata keys
    are ours)."""
    for key in form:
        names = re.findall(r"[^\[\]]+", key)
        current: Any = params
        for name in names:
            if name.isdigit():
                continue
            assert current is not None, key
            hints = current.__annotations__
            assert name in hints, f"{key}: {name} is not in {current.__name__}"
            if name == "metadata":
                break
            current = _typed_dict(current, hints[name])


def ad_invoice(buyer_number: str | None = "T9876543210987") -> InvoiceRequest:
    return InvoiceRequest(
        issuer=ISSUER,
        buyer_name="株式会社サンプル広告",
        buyer_registration_number=buyer_number,
        description="広告掲載 検索結果の途中 位置1（JP）2026-12から1か月",
        total=55_000,
        currency="jpy",
        metadata={"ad_reservation_id": "r-123"},
    )


def test_an_ad_checkout_asks_for_a_qualified_invoice(provider, fake):
    provider.create_payment_checkout(
        line_items=[LineItem("price_jp", 1)],
        metadata={"ad_reservation_id": "r-123"},
        success_url="https://sub.example/ads/r-123?paid=1",
        cancel_url="https://sub.example/ads/new",
        expires_at=1_900_000_000,
        idempotency_key="ad-checkout-r-123",
        invoice=ad_invoice(),
    )
    form = fake.last("POST", "/v1/checkout/sessions")["form"]
    invoice = {k: v for k, v in form.items() if k.startswith("invoice_creation")}
    assert invoice == {
        "invoice_creation[enabled]": "true",
        "invoice_creation[invoice_data][custom_fields][0][name]": "登録番号",
        "invoice_creation[invoice_data][custom_fields][0][value]": "T1234567890123",
        "invoice_creation[invoice_data][custom_fields][1][name]": "宛名",
        "invoice_creation[invoice_data][custom_fields][1][value]": "株式会社サンプル広告 御中",
        "invoice_creation[invoice_data][custom_fields][2][name]": "お客様の登録番号",
        "invoice_creation[invoice_data][custom_fields][2][value]": "T9876543210987",
        "invoice_creation[invoice_data][custom_fields][3][name]": "10%対象（税込）",
        "invoice_creation[invoice_data][custom_fields][3][value]": "¥55,000（うち消費税 ¥5,000）",
        "invoice_creation[invoice_data][description]": (
            "広告掲載 検索結果の途中 位置1（JP）2026-12から1か月"
        ),
        "invoice_creation[invoice_data][footer]": (
            "subsearch 株式会社\n東京都千代田区千代田1-1\n登録番号 T1234567890123"
        ),
        "invoice_creation[invoice_data][metadata][ad_reservation_id]": "r-123",
    }
    assert form["mode"] == "payment"
    assert_known_to_the_spec(SessionCreateParams, form)


def test_without_a_buyer_number_three_fields_and_long_names_are_cut(provider, fake):
    long_name = "株" * 200
    invoice = ad_invoice(buyer_number=None)
    invoice = InvoiceRequest(**{**invoice.__dict__, "buyer_name": long_name})
    provider.create_payment_checkout(
        line_items=[LineItem("price_jp", 1)],
        metadata={"ad_reservation_id": "r-123"},
        success_url="https://sub.example/s",
        cancel_url="https://sub.example/c",
        expires_at=1_900_000_000,
        idempotency_key="k",
        invoice=invoice,
    )
    form = fake.last("POST", "/v1/checkout/sessions")["form"]
    names = [v for k, v in form.items() if re.search(r"custom_fields\]\[\d\]\[name\]", k)]
    assert names == ["登録番号", "宛名", "10%対象（税込）"]
    values = [v for k, v in form.items() if re.search(r"custom_fields\]\[\d\]\[value\]", k)]
    assert all(len(v) <= 140 for v in values) and all(len(n) <= 40 for n in names)


def test_a_new_customer_carries_the_issuer_on_its_invoices(provider, fake):
    provider.create_customer(
        email="a@b.jp",
        name="花子",
        user_id="u-1",
        idempotency_key="customer-u-1",
        invoice_issuer=ISSUER,
    )
    form = fake.last("POST", "/v1/customers")["form"]
    assert form == {
        "email": "a@b.jp",
        "name": "花子",
        "metadata[user_id]": "u-1",
        "invoice_settings[custom_fields][0][name]": "登録番号",
        "invoice_settings[custom_fields][0][value]": "T1234567890123",
        "invoice_settings[custom_fields][1][name]": "適用税率",
        "invoice_settings[custom_fields][1][value]": "10%（価格は税込）",
        "invoice_settings[footer]": (
            "subsearch 株式会社\n東京都千代田区千代田1-1\n登録番号 T1234567890123"
        ),
    }
    assert_known_to_the_spec(CustomerCreateParams, form)


def test_an_earlier_customer_is_given_the_issuer_the_same_way(provider, fake):
    fake.customers["cus_old"] = {"id": "cus_old"}
    provider.set_invoice_issuer("cus_old", ISSUER)
    provider.set_invoice_issuer("cus_old", ISSUER)
    form = fake.last("POST", "/v1/customers/cus_old")["form"]
    assert form["invoice_settings[custom_fields][0][value]"] == "T1234567890123"
    assert form["invoice_settings[footer]"].endswith("登録番号 T1234567890123")
    assert fake.customers["cus_old"]["updates"] == 2
    assert_known_to_the_spec(CustomerUpdateParams, form)


def invoice_object(number: int, *, customer="cus_9", status="paid", amount=980, line=True):
    start = 1_800_000_000 + number * 2_592_000
    body = {
        "id": f"in_{number}",
        "object": "invoice",
        "customer": customer,
        "status": status,
        "amount_paid": amount if status == "paid" else 0,
        "currency": "jpy",
        "hosted_invoice_url": f"https://invoice.stripe.com/i/in_{number}",
        # The invoice's own period is the one before the line's, for a renewal.
        "period_start": start - 2_592_000,
        "period_end": start,
        "lines": {"object": "list", "data": [], "has_more": False, "url": "/v1/invoices/x/lines"},
    }
    if line:
        body["lines"]["data"] = [
            {
                "id": f"il_{number}",
                "object": "line_item",
                "period": {"start": start, "end": start + 2_592_000},
            }
        ]
    return body


def test_ad_receipt_is_the_hosted_invoice_of_the_checkout(provider, fake):
    fake.invoices["in_ad"] = {**invoice_object(0, customer="cus_guest"), "id": "in_ad"}
    fake.checkout_sessions["cs_paid"] = {
        "id": "cs_paid",
        "object": "checkout.session",
        "mode": "payment",
        "status": "complete",
        "payment_status": "paid",
        "invoice": "in_ad",
        "metadata": {},
    }
    fake.checkout_sessions["cs_unpaid"] = {
        "id": "cs_unpaid",
        "object": "checkout.session",
        "mode": "payment",
        "status": "open",
        "invoice": None,
        "metadata": {},
    }
    assert provider.ad_receipt_url("cs_paid") == "https://invoice.stripe.com/i/in_0"
    sent = fake.last("GET", "/v1/checkout/sessions/cs_paid")
    assert sent["query"] == {"expand[0]": "invoice"}
    assert provider.ad_receipt_url("cs_unpaid") is None


def test_subscription_receipts_every_page_newest_first(provider, fake):
    fake.invoices["in_old"] = invoice_object(0, line=False)
    for number in range(1, 4):
        fake.invoices[f"in_{number}"] = invoice_object(number)
    fake.invoices["in_open"] = invoice_object(9, status="open")
    fake.invoices["in_other"] = invoice_object(8, customer="cus_other")
    fake.invoices["in_trial"] = invoice_object(7, amount=0)
    receipts = provider.subscription_receipts("cus_9")
    assert [r.id for r in receipts] == ["in_3", "in_2", "in_1", "in_0"]
    first = receipts[0]
    start = 1_800_000_000 + 3 * 2_592_000
    assert (first.period_start, first.period_end) == (start * 1000, (start + 2_592_000) * 1000)
    assert (first.amount, first.currency, first.url) == (
        980,
        "jpy",
        "https://invoice.stripe.com/i/in_3",
    )
    # Without lines, the invoice's own period.
    assert receipts[-1].period_end == (1_800_000_000) * 1000
    sent = fake.last("GET", "/v1/invoices")
    assert {k: sent["query"][k] for k in ("customer", "status", "limit")} == {
        "customer": "cus_9",
        "status": "paid",
        "limit": "100",
    }
    assert_known_to_the_spec(InvoiceListParams, dict.fromkeys(sent["query"], ""))


def test_the_fields_read_back_are_the_specs():
    assert "invoice" in stripe.checkout.Session.__annotations__
    invoice = set(stripe.Invoice.__annotations__)
    assert {"hosted_invoice_url", "amount_paid", "currency", "status", "lines"} <= invoice
    assert {"period_start", "period_end"} <= invoice
    assert "period" in stripe.InvoiceLineItem.__annotations__


def test_an_unreachable_provider_is_unavailable():
    provider = StripeProvider("sk_test_fake", api_base="http://127.0.0.1:9", network_retries=0)
    with pytest.raises(PaymentUnavailable):
        provider.subscription_receipts("cus_9")


def test_every_line_carries_the_services_inclusive_consumption_tax_rate(provider, fake):
    # Given a provider that holds no tax rate of ours yet
    checkout = {
        "line_items": [LineItem("price_jp", 2)],
        "metadata": {"ad_reservation_id": "r-1"},
        "success_url": "https://sub.example/s",
        "cancel_url": "https://sub.example/c",
        "expires_at": 1_900_000_000,
        "idempotency_key": "k",
    }
    # When an ad checkout and then a plan checkout are made
    provider.create_payment_checkout(**checkout)
    provider.create_subscription_checkout(
        customer_id="cus_9",
        price_id="price_plus",
        reference_id="u-1",
        success_url="https://sub.example/s",
        cancel_url="https://sub.example/c",
        idempotency_key="k2",
    )
    # Then one inclusive 10% rate of Japan's consumption tax is made, once
    created = [r for r in fake.requests if (r["method"], r["path"]) == ("POST", "/v1/tax_rates")]
    assert len(created) == 1
    assert created[0]["form"] == {
        "display_name": "消費税",
        "description": "消費税 10%（標準税率、税込価格）",
        "percentage": "10.0",
        "inclusive": "true",
        "country": "JP",
        "jurisdiction": "JP",
        "tax_type": "jct",
        "metadata[subsearch_tax]": "consumption-10-inclusive",
    }
    assert_known_to_the_spec(TaxRateCreateParams, created[0]["form"])
    # and both checkouts' lines carry it, so each invoice states the rate and its tax
    sessions = [r["form"] for r in fake.requests if r["path"] == "/v1/checkout/sessions"]
    assert sessions[0]["line_items[0][tax_rates][0]"] == "txr_1"
    assert sessions[1]["subscription_data[default_tax_rates][0]"] == "txr_1"
    for form in sessions:
        assert_known_to_the_spec(SessionCreateParams, form)


def test_a_tax_rate_made_before_is_found_not_made_again(fake):
    # Given our rate made by another process (and someone else's rate beside it)
    fake.tax_rates += [
        {"id": "txr_other", "active": True, "inclusive": True, "metadata": {}},
        {
            "id": "txr_ours",
            "active": True,
            "inclusive": True,
            "metadata": {"subsearch_tax": "consumption-10-inclusive"},
        },
    ]
    with serve(fake) as url:
        provider = StripeProvider("sk_test_fake", api_base=url)
        # Then it is found, and asked for once per process
        assert provider.consumption_tax_rate() == "txr_ours"
        assert provider.consumption_tax_rate() == "txr_ours"
    looked = [r for r in fake.requests if r["path"] == "/v1/tax_rates"]
    assert [r["method"] for r in looked] == ["GET"]
    assert looked[0]["query"] == {"active": "true", "inclusive": "true", "limit": "100"}
    assert_known_to_the_spec(TaxRateListParams, looked[0]["query"])
