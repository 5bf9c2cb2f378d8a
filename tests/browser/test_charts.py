"""The charts as a reader sees them: both series drawn on their own named axes over a
date axis, values on hover, one day drawn as a point, an empty chart said in words, the
same numbers in a table, at phone and desktop widths, and nothing refused by the CSP."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
import requests

from models.tables import AdClickLog, AdImpressionDaily
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_reservation, make_user
from tests.fixtures import keep_screenshot
from tests.web.api.test_ad_purchase_lifecycle import buy
from web.pages import own_ads

IMPRESSIONS = (0x1A, 0x73, 0xE8)  # web/static/charts.js
CLICKS = (0xD9, 0x30, 0x25)
REVENUE = (0x18, 0x80, 0x38)
WIDTHS = (375, 1280)

# Pixels of one colour in parts of the chart's canvas: left gutter, plot, right gutter,
# bottom gutter (CSS pixels, scaled by the canvas's device pixel ratio).
COUNT_COLOURS = """(figure, colours) => {
  const canvas = figure.querySelector("canvas");
  const ratio = canvas.width / canvas.getBoundingClientRect().width;
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const gutter = 50 * ratio, bottom = canvas.height - 40 * ratio;
  const near = (i, c) => Math.abs(data[i] - c[0]) + Math.abs(data[i + 1] - c[1])
    + Math.abs(data[i + 2] - c[2]) < 60 && data[i + 3] > 200;
  const out = colours.map(() => ({left: 0, plot: 0, right: 0, bottomDark: 0}));
  let bottomDark = 0;
  for (let y = 0; y < canvas.height; y++) {
    for (let x = 0; x < canvas.width; x++) {
      const i = (y * canvas.width + x) * 4;
      if (y > bottom && data[i + 3] > 200 && data[i] + data[i + 1] + data[i + 2] < 200) {
        bottomDark++;
      }
      colours.forEach((c, n) => {
        if (!near(i, c)) return;
        const part = x < gutter ? "left" : x > canvas.width - gutter ? "right" : "plot";
        out[n][part]++;
      });
    }
  }
  return {colours: out, bottomDark};
}"""


def measure(reservation, rows):
    for day, impressions, clicks in rows:
        AdImpressionDaily.create(
            id=str(uuid.uuid4()),
            ad_reservation=reservation,
            date=day,
            country="JP",
            impressions=impressions,
        )
        for n in range(clicks):
            AdClickLog.create(
                id=str(uuid.uuid4()),
                ad_reservation=reservation,
                country="JP",
                created_at=f"{day}T{n % 24:02d}:00:00.000Z",
                view_token="tok",
            )


def chart(page):
    figure = page.locator("figure[data-chart]")
    figure.wait_for()
    return figure


def drawn(page):
    figure = chart(page)
    page.wait_for_selector("figure[data-chart][data-chart-drawn] canvas")
    return figure


def pixels(figure, colours):
    return figure.evaluate(COUNT_COLOURS, colours)


def table_rows(figure):
    """The table's rows as cell texts (the table is folded in <details> until opened)."""
    return figure.locator("[data-chart-table] tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )


def hover_legend(page, figure):
    over = figure.locator(".u-over").first
    box = over.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    return figure.locator(".u-legend").first.inner_text()


def shoot(page, name, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(200)  # the chart follows the resize
    keep_screenshot(page, f"{name}-{width}")
    figure = page.locator("figure[data-chart]")
    right = figure.evaluate("f => f.getBoundingClientRect().right")
    assert right <= width, f"the chart is wider than a {width} px screen"


@pytest.fixture
def owner(page, site):
    user = make_user(email="chart-owner@example.jp")
    sign_in(page, site, "chart-owner@example.jp")
    return user


def test_the_advertiser_chart_shows_both_series_on_named_axes_with_dates(
    page, site, owner, violations, monkeypatch
):
    reservation = make_reservation(owner, status="active")  # 2027-01
    # Read after the month: every day of it has happened (the served site runs here).
    monkeypatch.setattr(own_ads, "utcnow", lambda: datetime(2027, 2, 1, tzinfo=UTC))
    measure(
        reservation,
        [("2027-01-03", 1200, 3), ("2027-01-04", 1500, 9), ("2027-01-10", 900, 5)],
    )
    page.goto(f"{site}/ads/{reservation.id}")
    figure = drawn(page)

    found = pixels(figure, [IMPRESSIONS, CLICKS])
    impressions, clicks = found["colours"]
    # Each series drawn in the plot, impressions' axis on the left, clicks' on the right.
    assert impressions["plot"] > 50 and clicks["plot"] > 50
    assert impressions["left"] > 20 and clicks["right"] > 20
    assert impressions["right"] == 0 and clicks["left"] == 0
    assert found["bottomDark"] > 20  # the dates under the plot

    legend = hover_legend(page, figure)
    assert "表示回数" in legend and "クリック数" in legend
    assert "2027年1月" in legend  # the day under the pointer, in the reader's words

    rows = table_rows(figure)
    assert len(rows) == 31  # every day of the period
    assert ["2027年1月4日", "1,500", "9"] in rows
    figure.locator("[data-chart-table] summary").click()  # 表で見る
    assert "2027年1月1日" in figure.locator("caption").inner_text()

    for width in WIDTHS:
        shoot(page, "advertiser-detail", width)
    assert violations == []


def test_one_day_of_data_is_drawn_as_a_point(page, site, violations):
    reservation = make_reservation(status="active")
    measure(reservation, [("2027-01-15", 40, 2)])
    make_admin(email="chart-admin@example.jp")
    sign_in(page, site, "chart-admin@example.jp")
    page.goto(f"{site}/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31")
    figure = drawn(page)

    impressions, clicks = pixels(figure, [IMPRESSIONS, CLICKS])["colours"]
    assert impressions["plot"] > 10 and clicks["plot"] > 10
    assert table_rows(figure) == [["2027年1月15日", "40", "2"]]
    assert "〜" not in figure.locator("figcaption").inner_text()
    for width in WIDTHS:
        shoot(page, "admin-report", width)
    assert violations == []


def test_no_data_is_said_in_words_on_the_advertiser_chart(page, site, owner, violations):
    reservation = make_reservation(owner, status="active")
    page.goto(f"{site}/ads/{reservation.id}")
    assert "まだデータがありません" in chart(page).inner_text()
    for width in WIDTHS:
        shoot(page, "advertiser-detail-empty", width)
    assert violations == []


def test_no_data_is_said_in_words_on_the_admin_charts(page, site, violations):
    make_admin(email="chart-admin@example.jp")
    sign_in(page, site, "chart-admin@example.jp")
    for path, name in [
        ("/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31", "admin-report-empty"),
        ("/admin/revenue", "admin-revenue-empty"),
    ]:
        page.goto(f"{site}{path}")
        text = chart(page).inner_text()
        assert "まだデータがありません" in text
        assert text.strip() != "〜"
        for width in WIDTHS:
            shoot(page, name, width)
    assert violations == []


def test_the_revenue_chart_draws_the_months_paid(page, site, stub_broker, violations):
    _, url = buy()
    requests.post(f"{url}/complete", allow_redirects=False, timeout=5)
    make_admin(email="chart-admin@example.jp")
    sign_in(page, site, "chart-admin@example.jp")
    page.goto(f"{site}/admin/revenue")
    figure = drawn(page)

    (money,) = pixels(figure, [REVENUE])["colours"]
    assert money["plot"] > 10 and money["left"] > 10  # the month's point and its axis
    legend = hover_legend(page, figure)
    assert "入金額（JPY）" in legend
    [row] = table_rows(figure)
    amount = page.locator("[data-revenue] tbody td").nth(3).inner_text()
    assert row[1] == amount and row[1] != "0"
    for width in WIDTHS:
        shoot(page, "admin-revenue", width)
    assert violations == []
