"""The accessibility audit: axe-core on every page the width test visits, in Japanese and
English, signed out, as a member, an advertiser and an admin, at a phone's and a
desktop's width. A serious or critical violation fails; the rest go to the report
(tests/browser/accessibility.py) and fail unless the README's Accessibility section
names each one left with why."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from models.credits import unlock_video
from models.tables import Alert
from tests.browser.accessibility import audit, keep_in_report, not_allowed
from tests.browser.test_alert_pages import open_control, with_news
from tests.browser.test_page_widths import (
    SEARCH,
    admin_reservations,
    advertiser_pages,
    reading_pages,
    videos,
)
from tests.browser.test_purchase_form import sign_in
from tests.browser.test_receipts import paid_ad_invoice, paid_plan_invoices
from tests.factories import image_bytes, make_admin, make_profile, make_user
from tests.fixtures import drain
from tests.web.pages.test_search_page_filters import RAMEN, index_two_channels
from web.i18n import LOCALE_COOKIE

__all__ = ["videos"]  # the width test's fixture, used here by name

WIDTHS = (375, 1280)
LANGUAGES = ("ja", "en")


def read_in(page, site, language: str) -> None:
    """The reader's language as the language menu keeps it (a signed-in reader's own
    setting comes first, and is the same)."""
    page.context.add_cookies([{"name": LOCALE_COOKIE, "value": language, "url": site}])


def check(page, site, language: str, role: str, paths: list[str]) -> None:
    """Audit each page at each width; fail on what must not be, report the rest."""
    found = []
    for path in paths:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{site}{path}")
            page.wait_for_load_state("load")
            assert page.evaluate("document.documentElement.lang") == language, path
            findings = audit(page, f"{path} ({language}, {role}, {width} px)")
            keep_in_report(findings)
            found += not_allowed(findings)
    assert not found, "\n".join(finding.line() for finding in found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_public_pages(page, site, videos, language):
    read_in(page, site, language)
    check(
        page,
        site,
        language,
        "signed out",
        [*reading_pages(videos), "/login", "/advertise", "/terms"],
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_members_pages(page, site, videos, language):
    read_in(page, site, language)
    member = make_user(email=f"audit-member-{language}@example.jp", locale=language)
    unlock_video(member.id, videos[1])  # its transcript
    sign_in(page, site, member.email)
    check(page, site, language, "member", ["/account", SEARCH, f"/videos/{videos[1]}"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_advertisers_pages(page, site, language):
    read_in(page, site, language)
    advertiser = make_user(email=f"audit-ads-{language}@example.jp", locale=language)
    paths = advertiser_pages(advertiser, make_profile(advertiser), f"pi_audit_{language}")
    sign_in(page, site, advertiser.email)
    check(page, site, language, "advertiser", paths)


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_admins_pages(page, site, language):
    read_in(page, site, language)
    admin = make_admin(email=f"audit-admin-{language}@example.jp", locale=language)
    admin_reservations(f"pi_audit_admin_{language}")
    sign_in(page, site, admin.email)
    check(
        page,
        site,
        language,
        "admin",
        ["/admin/", "/admin/ads", "/admin/ads/report", "/admin/revenue"],
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_local_checkout_and_billing_portal(page, site, stub_broker, stub_worker, language):
    read_in(page, site, language)
    make_user(email=f"audit-checkout-{language}@example.jp", locale=language)
    sign_in(page, site, f"audit-checkout-{language}@example.jp")
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    checkout = page.url.removeprefix(site)
    check(page, site, language, "member", [checkout])
    page.click("form[action$='/complete'] button[type=submit]")
    page.wait_for_url("**/account?subscribed=plus")
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/account")
    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    check(page, site, language, "member", [page.url.removeprefix(site)])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_local_checkout_for_an_ad(page, site, language):
    read_in(page, site, language)
    advertiser = make_user(email=f"audit-ad-checkout-{language}@example.jp", locale=language)
    make_profile(advertiser)
    sign_in(page, site, advertiser.email)
    page.goto(f"{site}/ads/new")
    page.select_option("select[name=slot]", "video-detail-below-subtitle")
    # A locator, not wait_for_function: the page's CSP forbids evaluating a string.
    expect(page.locator("[data-inventory]")).not_to_have_text("")
    page.fill("input[name=advertiserName]", "株式会社とても長い名前の老舗書店")
    page.set_input_files(
        "input[name=image]",
        files=[{"name": "ad.png", "mimeType": "image/png", "buffer": image_bytes()}],
    )
    page.locator("[data-image-preview]").wait_for(state="visible")  # the upload answered
    page.fill("input[name=redirectUrl]", "https://example.jp/a/very/long/landing-page/path")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")
    check(page, site, language, "advertiser", [page.url.removeprefix(site)])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_receipts(page, site, stub_broker, stub_worker, language):
    """The account with the plan's receipts, and the local provider's invoice pages (a
    plan's and an ad's)."""
    read_in(page, site, language)
    member = make_user(email=f"audit-receipts-{language}@example.jp", locale=language)
    invoices = [*paid_plan_invoices(member, site, renewals=1), paid_ad_invoice(member)]
    drain(stub_broker, stub_worker)
    sign_in(page, site, member.email)
    check(page, site, language, "member", ["/account", *invoices])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_alert_pages(page, site, platform_files, language):
    """Alerts (issue 49): the search page's 通知 control open (signed out, to save, and
    saved), and the account's alerts with news and a paused one."""
    index_two_channels(platform_files)
    read_in(page, site, language)
    found = []

    def audit_open(path: str, role: str) -> None:
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{site}{path}")
            open_control(page)
            findings = audit(page, f"{path} 通知 open ({language}, {role}, {width} px)")
            keep_in_report(findings)
            found.extend(not_allowed(findings))

    alert_search = f"/search?q=醤油&channels={RAMEN}"
    audit_open(alert_search, "signed out")
    member = make_user(email=f"audit-alerts-{language}@example.jp", locale=language)
    older, _newer = with_news(member)
    Alert.update(
        paused_at="2026-11-29T03:00:00.000Z", paused_reason="550 mailbox unavailable"
    ).where(Alert.id == older.id).execute()
    sign_in(page, site, member.email)
    audit_open(alert_search, "member")  # already an alert
    audit_open(f"{alert_search}&semantic=1", "member")  # the form
    page.locator("[data-alert-form] button[type=submit]").click()
    expect(page.locator("[data-alert-saved]")).to_be_visible()
    findings = audit(page, f"{alert_search} 通知 saved ({language}, member, 1280 px)")
    keep_in_report(findings)
    found.extend(not_allowed(findings))
    assert not found, "\n".join(finding.line() for finding in found)
    check(page, site, language, "member", ["/account"])
