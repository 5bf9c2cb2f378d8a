"""Each page speaks its own reader's language, whoever came before it: nothing a template
works out once (an imported template's words, a filter of a constant) keeps the first
reader's words (issue 48)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from models.tables import AdImpressionDaily
from tests.factories import make_admin, make_reservation, make_user, sign_in
from tests.web.test_i18n import japanese_on
from web.i18n import READER_FILTERS

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"
JA, EN = {"Accept-Language": "ja"}, {"Accept-Language": "en"}


def page_words(html: str) -> dict[str, str]:
    """The page's own words handed to its scripts (base.html's client-text block)."""
    block = re.search(r'id="client-text">(.*?)</script>', html, re.S)
    assert block is not None
    words: dict[str, str] = json.loads(block.group(1))["page"]
    return words


def chart_pages(client) -> list[str]:
    """An advertiser's reservation with a day of figures, and the admin's chart pages."""
    owner = make_user(email="charts48@example.jp")
    reservation = make_reservation(owner, status="active")
    AdImpressionDaily.create(
        id="imp-48", ad_reservation=reservation, date="2027-01-09", country="JP", impressions=4
    )
    sign_in(client, owner)
    return [f"/ads/{reservation.id}", "/ads"]


@pytest.mark.parametrize(("first", "then"), [(JA, EN), (EN, JA)])
def test_chart_and_checkout_words_are_the_reader_of_each_request(client, first, then):
    """The words charts.js and checkout.js draw with follow each request's language,
    not the first one that used the template."""
    english = then is EN
    paths = chart_pages(client)
    admin_paths = ["/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31", "/admin/revenue"]
    pages = []
    for path in paths:
        client.get(path, headers=first)
        pages.append(client.get(path, headers=then).text)
    sign_in(client, make_admin())
    for path in admin_paths:
        client.get(path, headers=first)
        pages.append(client.get(path, headers=then).text)
    detail, listing, report, revenue = pages
    for page in (detail, report, revenue):
        words = page_words(page)
        assert words["chart_impressions"] == ("Impressions" if english else "表示回数")
        assert words["chart_date"] == ("Date" if english else "日付")
        assert words["chart_month"] == ("Month" if english else "月")
        assert words["chart_clicks"] == ("Click count" if english else "クリック数")
        assert words["chart_amount"].startswith("Amount received" if english else "入金額")
    for page in (detail, listing):
        released = page_words(page)["released_status"]
        assert released == "Released unpaid" if english else japanese_on(f"<p>{released}</p>")
    if english:
        for page in pages:
            assert [w for w in page_words(page).values() if japanese_on(f"<p>{w}</p>")] == []


def test_no_template_imports_words_without_its_context():
    """A template imported without `with context` is made once and kept: words it sets
    at its top (`{% set chart_text = {... _("Date") ...} %}`) would be the first
    reader's for everyone after. So every import of such a template takes the context."""
    sets_words = {
        path.relative_to(TEMPLATES).as_posix()
        for path in TEMPLATES.rglob("*.html")
        if re.search(r"^\{%-?\s*set\b[^%]*?_\(", path.read_text(), re.M | re.S)
    }
    assert "ads/_chart.html" in sets_words
    imports = re.compile(r'\{%-?\s*(?:from|import)\s+"([^"]+)"([^%]*)%\}')
    frozen = [
        (path.name, target)
        for path in TEMPLATES.rglob("*.html")
        for target, rest in imports.findall(path.read_text())
        if target in sets_words and "with context" not in rest
    ]
    assert frozen == []


SAMPLES = {
    "price": "60000",
    "when": "'2026-11-24T00:30:00.000Z'",
    "day": "'2026-11'",
    "number": "1234567",
    "country_name": "'JP'",
    "status_label": "'pending_review'",
    "delivery_label": "'scheduled'",
    "plan_label": "'free'",
    "slot_label": "'search-result-bottom'",
    "category_label": "'other'",
    "field_name": "'profile.businessAddress'",
    "duration": "3725",
}


def test_filters_of_a_constant_are_worked_out_for_each_reader(app):
    """Jinja works out `{{ "JP"|country_name }}` when it compiles the template unless the
    filter takes the render's context; compiled for a Japanese reader, it must still
    say Japan to the next, English one."""
    assert set(SAMPLES) == {*READER_FILTERS, "duration"}
    for name, value in SAMPLES.items():
        source = f"{{{{ {value}|{name} }}}}"
        with app.test_request_context("/", headers=JA):
            compiled = app.jinja_env.from_string(source)
            compiled.render()
        with app.test_request_context("/", headers=EN):
            assert compiled.render() == app.jinja_env.from_string(source).render(), name


def test_the_purchase_form_names_the_country_in_the_reader_language(client):
    sign_in(client, make_user(email="country48@example.jp"))
    japanese = client.get("/ads/new", headers=JA).text
    english = client.get("/ads/new", headers=EN).text
    assert '<option value="JP">日本</option>' in japanese
    assert '<option value="JP">Japan</option>' in english
    assert "日本" not in japanese_on(english)
