"""The charts for a reader who cannot see them: each figure is named by its caption and
described by a sentence of its totals over its period, the drawing itself is hidden from
screen readers, and the table opened from the keyboard holds the very numbers the chart
is drawn from. axe finds nothing serious on a page with a drawn chart and its table open
(the audit's own pages have no figures to draw); what it fails on is the audit's."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import requests
from babel.dates import format_date, format_skeleton

from tests.browser.accessibility import audit, not_allowed
from tests.browser.test_charts import drawn, measure, table_rows
from tests.browser.test_keyboard_ads import tab_until
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_reservation, make_user
from tests.fixtures import keep_screenshots_at
from tests.web.api.test_ad_purchase_lifecycle import buy
from web.pages import own_ads

# The figure's accessible name and description, from what its aria attributes point at.
NAMED = """figure => {
  const text = (ids) => (ids || "").split(/\\s+/).filter(Boolean)
    .map(id => document.getElementById(id).textContent.trim()).join(" ");
  return {
    name: text(figure.getAttribute("aria-labelledby")),
    description: text(figure.getAttribute("aria-describedby")),
    drawingHidden: [...figure.querySelectorAll("canvas")].length > 0 &&
      [...figure.querySelectorAll("canvas")].every(c => c.closest("[aria-hidden=true]")),
    scopes: [...figure.querySelectorAll("[data-chart-table] th")].map(th =>
      th.getAttribute("scope") === (th.closest("thead") ? "col" : "row")),
  };
}"""


def data_of(figure) -> dict:
    """What charts.js draws from: the figure's JSON block."""
    return json.loads(figure.locator("script[data-chart-data]").text_content())


def number(text: str) -> int:
    return int(text.replace("¥", "").replace(",", ""))


def open_table_by_keyboard(page, figure):
    """Tab to the table's summary, open it with Enter, and Tab into its scrolling box."""
    tab_until(page, "figure[data-chart] [data-chart-table] summary")
    page.keyboard.press("Enter")
    assert figure.locator("[data-chart-table]").evaluate("d => d.open")
    region = tab_until(page, "figure[data-chart] [data-chart-table] [role=region]")
    caption = figure.locator("[data-chart-table] caption").inner_text()
    labelled = figure.locator("[data-chart-table] [role=region]").get_attribute("aria-labelledby")
    assert figure.locator(f"#{labelled}").inner_text() == caption  # the box is named
    return region


def test_the_daily_chart_is_described_and_its_table_holds_its_numbers(page, site, monkeypatch):
    owner = make_user(email="alt-owner@example.jp")
    sign_in(page, site, owner.email)
    reservation = make_reservation(owner, status="active")  # 2027-01
    monkeypatch.setattr(own_ads, "utcnow", lambda: datetime(2027, 2, 1, tzinfo=UTC))
    measure(reservation, [("2027-01-03", 1200, 3), ("2027-01-04", 1500, 9), ("2027-01-10", 900, 5)])
    page.goto(f"{site}/ads/{reservation.id}")
    figure = drawn(page)

    named = figure.evaluate(NAMED)
    assert named["name"] == "日別の表示回数とクリック数"
    assert named["description"] == (
        "2027年1月1日 〜 2027年1月31日 の合計: 表示回数 3,600、クリック数 17"
    )
    assert named["drawingHidden"]

    open_table_by_keyboard(page, figure)
    data = data_of(figure)
    rows = table_rows(figure)
    assert [row[0] for row in rows] == [
        format_date(date.fromisoformat(day), "long", locale="ja") for day in data["days"]
    ]
    assert [number(row[1]) for row in rows] == data["impressions"]
    assert [number(row[2]) for row in rows] == data["clicks"]
    assert sum(data["impressions"]) == 3600 and sum(data["clicks"]) == 17
    assert all(figure.evaluate(NAMED)["scopes"])

    found = audit(page, f"/ads/{reservation.id} (chart drawn, table open)")
    assert not not_allowed(found), "\n".join(f.line() for f in not_allowed(found))
    keep_screenshots_at(page, "chart-table-open")


def test_the_revenue_chart_is_described_and_its_table_holds_its_amounts(page, site):
    _, url = buy()
    requests.post(f"{url}/complete", allow_redirects=False, timeout=5)
    sign_in(page, site, make_admin(email="alt-admin@example.jp").email)
    page.goto(f"{site}/admin/revenue")
    figure = drawn(page)
    data = data_of(figure)
    [series] = data["series"]
    total = sum(series["amounts"])
    assert total > 0

    named = figure.evaluate(NAMED)
    assert named["name"] == "月別の入金額"
    month = format_skeleton("yMMMM", date.fromisoformat(data["months"][0] + "-01"), locale="ja")
    assert named["description"] == f"{month} の入金額の合計: ¥{total:,}"
    assert named["drawingHidden"]

    open_table_by_keyboard(page, figure)
    rows = table_rows(figure)
    assert [number(row[1]) for row in rows] == series["amounts"]
    assert all(figure.evaluate(NAMED)["scopes"])

    found = audit(page, "/admin/revenue (chart drawn, table open)")
    assert not not_allowed(found), "\n".join(f.line() for f in not_allowed(found))
    keep_screenshots_at(page, "revenue-table-open")
