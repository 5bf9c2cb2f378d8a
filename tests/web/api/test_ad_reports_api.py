"""The report endpoints: own reservations only, and the admin report's parameters."""

from __future__ import annotations

import uuid

from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_admin, make_reservation, make_user, sign_in


def test_an_advertiser_sees_only_their_own(client):
    owner, other = make_user(), make_user()
    mine = make_reservation(owner)
    theirs = make_reservation(other, position=2)
    sign_in(client, owner)
    listed = client.get("/api/ads/reservations").get_json()["reservations"]
    assert [r["id"] for r in listed] == [mine.id]
    assert set(listed[0]) >= {
        "id",
        "slot",
        "position",
        "country",
        "startMonth",
        "endMonth",
        "status",
        "daysLeft",
        "ended",
        "impressions",
        "clicks",
        "ctr",
    }
    detail = client.get(f"/api/ads/reservations/{mine.id}").get_json()
    assert detail["preview"]["advertiserName"] == mine.advertiser_name
    assert len(detail["daily"]) == 31  # January
    assert client.get(f"/api/ads/reservations/{theirs.id}").status_code == 404


def test_the_admin_report_endpoint(client, app):
    assert client.get("/api/admin/ads/report").status_code == 401
    sign_in(client, make_user())
    assert client.get("/api/admin/ads/report").status_code == 403
    admin = app.test_client()
    sign_in(admin, make_admin())
    report = admin.get("/api/admin/ads/report").get_json()
    assert set(report) == {"startDate", "endDate", "reservations", "totals", "dailyTrend"}
    bad = admin.get("/api/admin/ads/report?startDate=2027-02-02&endDate=2027-02-01")
    assert bad.status_code == 400
    assert bad.get_json()["error"]["code"] == "invalid_request"
    january = make_reservation()  # 2027-01, any status
    ranged = admin.get("/api/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31")
    assert [r["id"] for r in ranged.get_json()["reservations"]] == [january.id]


def _measure(reservation, rows):

    for day, count, clicks in rows:
        AdImpressionDaily.create(
            id=str(uuid.uuid4()),
            ad_reservation=reservation,
            date=day,
            country="JP",
            impressions=count,
        )
        for n in range(clicks):
            AdClickLog.create(
                id=str(uuid.uuid4()),
                ad_reservation=reservation,
                country="JP",
                created_at=f"{day}T0{n}:00:00.000Z",
                # Every other click came without a view token: logged, but invalid.
                view_token="tok" if n % 2 else None,
                invalid_reason=None if n % 2 else "missing_token",
            )


def test_the_advertiser_list_the_chart_and_the_admin_report_agree_over_the_period(client, app):
    owner = make_user()
    reservation = make_reservation(owner, start_month="2027-01", end_month="2027-02")
    _measure(
        reservation,
        [
            ("2026-12-31", 500, 3),  # the day before the period
            ("2027-01-01", 10, 1),
            ("2027-02-28", 20, 2),
            ("2027-03-01", 700, 4),  # the day after
        ],
    )
    sign_in(client, owner)
    [listed] = client.get("/api/ads/reservations").get_json()["reservations"]
    daily = client.get(f"/api/ads/reservations/{reservation.id}").get_json()["daily"]
    admin = app.test_client()
    sign_in(admin, make_admin())
    report = admin.get("/api/admin/ads/report?startDate=2027-01-01&endDate=2027-02-28")
    [in_report] = report.get_json()["reservations"]
    chart = (sum(d["impressions"] for d in daily), sum(d["clicks"] for d in daily))
    assert chart == (30, 1)  # 01-01 00:00 and 02-28 00:00 had no token: not counted
    assert (listed["impressions"], listed["clicks"]) == chart
    assert (in_report["impressions"], in_report["clicks"]) == chart
    assert in_report["unverifiedClicks"] == 2
    assert report.get_json()["totals"]["unverifiedClicks"] == 2
    assert (in_report["invalidClicks"], in_report["invalidClicksByReason"]) == (
        2,
        {"missing_token": 2},
    )


def test_the_admin_report_page_shows_clicks_without_a_view_token_apart_by_reason(app):
    # Given one click with a view token and two without
    reservation = make_reservation(start_month="2027-01", end_month="2027-01")
    _measure(reservation, [("2027-01-05", 10, 3)])
    admin = app.test_client()
    sign_in(admin, make_admin())
    # When the administrator opens the report page
    html = admin.get("/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31").get_data(
        as_text=True
    )
    # Then the two are invalid traffic, apart from the clicks, with their reason
    assert "<strong data-total-clicks>1</strong>" in html
    assert "<td data-invalid-clicks>2</td>" in html
    assert "<th data-total-invalid-clicks>2</th>" in html
    assert '<tr data-reason="missing_token"><td>表示証明なし</td><td>2</td></tr>' in html


def test_the_admin_report_page_shows_bot_clicks_apart(app):

    # Given two human clicks (one without a token: invalid) and a bot's click
    reservation = make_reservation(start_month="2027-01", end_month="2027-01")
    _measure(reservation, [("2027-01-05", 10, 2)])
    AdClickLog.create(
        id=str(uuid.uuid4()),
        ad_reservation=reservation,
        country="JP",
        created_at="2027-01-05T05:00:00.000Z",
        is_bot=True,
    )
    admin = app.test_client()
    sign_in(admin, make_admin())
    # When the administrator opens the report page
    html = admin.get("/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31").get_data(
        as_text=True
    )
    # Then the bot's click is in its own column, and not in the clicks
    assert "ボット（除外）" in html
    assert "<td data-bot-clicks>1</td>" in html
    assert "<th data-total-bot-clicks>1</th>" in html
    assert "<strong data-total-clicks>1</strong>" in html
    assert "<td data-invalid-clicks>1</td>" in html
