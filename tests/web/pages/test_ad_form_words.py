"""Every reason the ad purchase can be refused for has its own words in the reader's
language (web/i18n.py PROBLEMS, which the form's script reads), and every field the
purchase names has a label: no refusal reads as the blanket "please check this value",
no raw field name reaches the page."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.months import window_problem
from models.ads.profiles import profile_problems
from models.ads.reservations import Order, order_problems
from models.errors import ValidationError
from models.settings import get_settings
from tests.factories import make_user, sign_in
from web import i18n
from web.api.operation import json_body
from web.api.schemas.ads import ReservationBody, _redirect_url_problem

NAMES = [
    "",
    "山田\n商店",
    "あ" * 31,
    "山田広告店",
    "ＰＲ山田",
    "Sponsored Shop",
    "山田商店 公式",
    "正規代理店 山田",
    "subsearchJapan",
]
URLS = [
    "",
    "example.jp/shop",
    "ftp://example.jp/",
    "https://user:pw@evil.example/",
    "https://evil.example\\@good.example",
    "https:///path",
    "https://exa mple.jp",
    "http://127.0.0.1:6379/",
    "http://localhost/",
    "http://1.2.3.4.5/",
]
MONTHS = ["0000-01", "2027-13", "9999-12"]
NOW = datetime(2026, 11, 25, tzinfo=UTC)
# A purchase refused for its slot, country, months, first month, image and consent.
REFUSED_ORDER = Order(
    slot="nowhere",
    country="XX",
    start_month="2020-01",
    months=13,
    advertiser_name="山田商店",
    image_url="/uploads/none.png",
    redirect_url="https://example.jp/",
    consent=False,
)


def refusals() -> list[str]:
    service = (get_settings().service_name,)
    found = [advertiser_name_problem(name, service) for name in NAMES]
    found += [redirect_url_problem(url) for url in URLS]
    found += [_redirect_url_problem(url) for url in URLS]
    found += [window_problem(month) for month in MONTHS]
    found += order_problems(make_user().id, REFUSED_ORDER, NOW).values()
    found += order_problems(
        make_user().id, Order(**{**REFUSED_ORDER.__dict__, "start_month": "2040-01"}), NOW
    ).values()
    found += profile_problems(
        {
            "business_legal_name": "",
            "contact_email": "not-mail",
            "business_category": "nothing",
            "invoice_registration_number": "123",
        }
    ).values()
    return sorted({problem for problem in found if problem})


def test_each_refusal_of_a_purchase_has_its_own_japanese_words(app):
    problems = refusals()
    assert len(problems) >= 20
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        blanket = str(i18n.FALLBACK)
        words = {problem: i18n.field_problem(problem) for problem in problems}
    assert [p for p, said in words.items() if said == blanket] == []
    assert [said for said in words.values() if not any(ord(c) > 0x3000 for c in said)] == []


REFUSED_PURCHASE = {
    "slot": "nowhere",
    "country": "JP",
    "startMonth": "2020-01",
    "months": 13,
    "advertiserName": "山田広告店",
    "imageUrl": "/uploads/none.png",
    "redirectUrl": "example.jp",
    "consent": False,
    "profile": {"businessLegalName": "", "contactEmail": "x"},
}


def test_every_field_a_refused_purchase_names_has_a_label_and_words(client):
    sign_in(client, make_user())
    answer = client.post("/api/ads/reservations", json=REFUSED_PURCHASE)
    assert answer.status_code == 400
    fields = answer.get_json()["error"]["fields"]
    assert {"advertiserName", "redirectUrl", "consent", "months", "slot"} <= set(fields)
    # The same body read as the API reads it: each problem it answered is a Problem the
    # pages have words for.
    with client.application.test_request_context(
        json=REFUSED_PURCHASE, headers={"Accept-Language": "ja"}
    ):
        with pytest.raises(ValidationError) as refused:
            json_body(ReservationBody)
        problems = refused.value.fields
        assert problems == fields
        for path, problem in problems.items():
            assert path.rsplit(".", 1)[-1] in i18n.FIELDS, path
            assert i18n.field_problem(problem) != str(i18n.FALLBACK), problem


@pytest.mark.parametrize(
    ("problem", "words"),
    [
        (advertiser_name_problem("あ" * 31, ("subsearch",)), "30 文字以内で入力してください"),
        (
            advertiser_name_problem("山田広告店", ("subsearch",)),
            "「広告」「AD」「PR」「Sponsored」など広告を示す言葉は使えません",
        ),
        (redirect_url_problem("ftp://example.jp/"), "http:// または https:// で始めてください"),
        (window_problem("0000-01", NOW), "2024-11 以降の月を選んでください"),
        (window_problem("9999-12", NOW), "2031-12 以前の月を選んでください"),
        (
            profile_problems({"contact_email": "x"})["contact_email"],
            "メールアドレスの形式ではありません",
        ),
    ],
)
def test_a_refusal_reads_as_it_always_has_in_japanese(app, problem, words):
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        assert i18n.field_problem(problem) == words


def test_a_purchase_before_next_month_names_that_month_in_japanese(app):
    refused = order_problems(make_user().id, REFUSED_ORDER, NOW)
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        assert i18n.field_problem(refused["start_month"]) == "来月（2026-12）以降を選んでください"
