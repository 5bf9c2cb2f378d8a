"""Every reason the ad purchase can be refused for has its own words in the reader's
language (web/i18n.py PROBLEMS, which the form's script reads), and every field the
purchase names has a label: no refusal reads as the blanket "please check this value",
no raw field name reaches the page."""

from __future__ import annotations

from datetime import UTC, datetime

from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.months import window_problem
from models.ads.profiles import profile_problems
from models.ads.reservations import Order, order_problems
from models.settings import get_settings
from tests.factories import make_user, sign_in
from web import i18n
from web.api.schemas.ads import _redirect_url_problem

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


def refusals() -> list[str]:
    service = (get_settings().service_name,)
    found = [advertiser_name_problem(name, service) for name in NAMES]
    found += [redirect_url_problem(url) for url in URLS]
    found += [_redirect_url_problem(url) for url in URLS]
    found += [window_problem(month) for month in MONTHS]
    order = Order(
        slot="nowhere",
        country="XX",
        start_month="2020-01",
        months=13,
        advertiser_name="山田商店",
        image_url="/uploads/none.png",
        redirect_url="https://example.jp/",
        consent=False,
    )
    found += order_problems(make_user().id, order, datetime(2026, 11, 25, tzinfo=UTC)).values()
    found += order_problems(
        make_user().id,
        Order(**{**order.__dict__, "start_month": "2040-01"}),
        datetime(2026, 11, 25, tzinfo=UTC),
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
        blanket = str(i18n._("please check this value"))
        words = {problem: i18n.field_problem(problem) for problem in problems}
    assert [p for p, said in words.items() if said == blanket] == []
    assert [said for said in words.values() if not any(ord(c) > 0x3000 for c in said)] == []


def test_every_field_a_refused_purchase_names_has_a_label(client):
    sign_in(client, make_user())
    answer = client.post(
        "/api/ads/reservations",
        json={
            "slot": "nowhere",
            "country": "JP",
            "startMonth": "2020-01",
            "months": 13,
            "advertiserName": "山田広告店",
            "imageUrl": "/uploads/none.png",
            "redirectUrl": "example.jp",
            "consent": False,
            "profile": {"businessLegalName": "", "contactEmail": "x"},
        },
        headers={"Accept-Language": "ja"},
    )
    assert answer.status_code == 400
    fields = answer.get_json()["error"]["fields"]
    assert {"advertiserName", "redirectUrl", "consent", "months", "slot"} <= set(fields)
    for path, problem in fields.items():
        last = path.rsplit(".", 1)[-1]
        assert last in i18n.FIELDS, path
        with client.application.test_request_context(headers={"Accept-Language": "ja"}):
            assert i18n.field_problem(problem) != str(i18n._("please check this value")), problem
