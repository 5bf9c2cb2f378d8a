"""The delivery state beside the status in every list of reservations: a paid, approved
ad for next month is scheduled, not running."""

from __future__ import annotations

from models.ads.months import add_months, month_of
from models.clock import utcnow
from tests.factories import make_admin, make_reservation, make_user, sign_in

THIS = month_of(utcnow())
NEXT = add_months(THIS, 1)


def next_month_ad(owner):
    return make_reservation(
        owner, status="active", start_month=NEXT, end_month=NEXT, payment_intent_id="pi_next"
    )


def test_the_advertiser_reads_scheduled_for_next_month_and_running_for_this(client):
    owner = make_user()
    scheduled = next_month_ad(owner)
    running = make_reservation(owner, status="active", start_month=THIS, end_month=NEXT, position=2)
    sign_in(client, owner)
    listed = client.get("/api/ads/reservations").get_json()["reservations"]
    assert {r["id"]: r["delivery"] for r in listed} == {
        scheduled.id: "scheduled",
        running.id: "running",
    }
    detail = client.get(f"/api/ads/reservations/{scheduled.id}").get_json()
    assert (detail["status"], detail["delivery"]) == ("active", "scheduled")


def test_the_administrator_reads_it_in_the_list_and_the_report(client):
    scheduled = next_month_ad(make_user())
    stopped = make_reservation(status="stopped", start_month=THIS, end_month=THIS, position=3)
    sign_in(client, make_admin())
    listed = client.get("/api/admin/ads/reservations").get_json()["reservations"]
    assert {r["id"]: r["delivery"] for r in listed} == {
        scheduled.id: "scheduled",
        stopped.id: "stopped",
    }
    end = f"{NEXT}-01"
    report = client.get(f"/api/admin/ads/report?endDate={end}").get_json()
    assert {r["id"]: r["delivery"] for r in report["reservations"]} == {
        scheduled.id: "scheduled",
        stopped.id: "stopped",
    }


def test_the_admin_list_shows_the_landing_pages_host(client):
    make_reservation(redirect_url="https://Shop.Example.JP/sale?from=ad")
    sign_in(client, make_admin())
    (listed,) = client.get("/api/admin/ads/reservations").get_json()["reservations"]
    assert listed["redirectHost"] == "shop.example.jp"
