"""The report endpoints: own reservations only, and the admin report's parameters."""

from __future__ import annotations

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
