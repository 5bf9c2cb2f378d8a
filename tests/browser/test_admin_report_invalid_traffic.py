"""The admin report shows invalid traffic (clicks without a valid view token) apart, by
reason, in Japanese, at a phone's and a desktop's width (issue 42)."""

from __future__ import annotations

import uuid

from models.ads.months import month_of
from models.clock import iso, utcnow
from models.tables import AdClickLog, AdImpressionDaily
from tests.browser.test_page_widths import problems_at
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_reservation
from tests.fixtures import keep_screenshots_at


def measured() -> None:
    """A live ad with 1,200 impressions today, 30 clicks that count, and invalid ones."""
    reservation = make_reservation(
        status="active", start_month=month_of(utcnow()), advertiser_name="山田ラーメン本舗"
    )
    today = utcnow()
    AdImpressionDaily.create(
        id=str(uuid.uuid4()),
        ad_reservation=reservation,
        date=today.date().isoformat(),
        country="JP",
        impressions=1200,
    )
    reasons = [None] * 30 + ["missing_token"] * 400 + ["bad_token"] * 12 + ["expired_token"] * 3
    for n, reason in enumerate(reasons):
        AdClickLog.create(
            id=str(uuid.uuid4()),
            ad_reservation=reservation,
            country="JP",
            created_at=iso(today),
            view_token=f"token{n}" if reason in (None, "expired_token") else None,
            invalid_reason=reason,
        )


def test_the_report_lists_invalid_traffic_by_reason_at_every_width(page, site):
    # Given an ad with real clicks and 415 invalid ones
    measured()
    admin = make_admin(email="report-invalid@example.jp")
    sign_in(page, site, admin.email)
    # When the administrator opens the report at a phone's and a desktop's width
    for width in (375, 1280):
        assert problems_at(page, f"{site}/admin/ads/report", width) == []
        # Then the clicks and CTR count the real ones, and the invalid are apart by reason
        assert page.text_content("[data-total-clicks]") == "30"
        assert page.text_content("[data-total-invalid-clicks]") == "415"
        rows = page.locator("[data-invalid-reasons] tbody tr")
        assert rows.all_inner_texts() == [
            "表示証明なし\t400",
            "偽造、または別の広告の表示証明\t12",
            "表示から時間が経ちすぎたクリック\t3",
        ]
        assert page.locator("[data-invalid-reasons]").is_visible()
    keep_screenshots_at(page, "admin-report-invalid")
