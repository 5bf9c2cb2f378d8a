"""Going Back (the browser's button) from a checkout recovers (issue 48, "Back and cancel
paths recover"): the ad form keeps the uploaded image and knows the buyer's own unpaid
hold (continue to its payment, or release it so position 1 is offered again); /account
shows an open plan checkout, to continue or to cancel so the other plan can be chosen."""

from __future__ import annotations

from models.tables import AdReservation, SubscriptionCheckout
from tests.browser.test_purchase_form import sign_in
from tests.browser.test_purchase_lifecycle import order_and_go_to_checkout
from tests.factories import image_bytes, make_profile, make_user
from tests.fixtures import drain, keep_screenshots_at

BUYER = "back@example.jp"


def switch_language(page, name):
    page.get_by_role("button", name=name).click()
    page.wait_for_load_state()


def test_back_from_the_ad_checkout_keeps_the_image_and_offers_the_held_payment(
    page, site, stub_broker, stub_worker
):
    # Given a buyer who ordered and reached the checkout
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    order_and_go_to_checkout(page, site)
    held = AdReservation.get()
    assert held.position == 1

    # When they go Back to the form
    page.go_back()
    page.wait_for_url("**/ads/new")

    # Then the image is still uploaded: the preview shows the URL the form will send
    preview = page.locator("[data-image-preview]")
    preview.wait_for(state="visible")
    assert preview.locator("img").get_attribute("src") == held.image_url

    # And the form says the hold is theirs, with its payment to continue or to cancel
    notice = page.locator("[data-open-hold]")
    notice.wait_for()
    assert "支払い待ちの予約があります" in notice.inner_text()
    assert "掲載位置 1" in notice.inner_text()
    keep_screenshots_at(page, "ad-form-after-back-ja")
    switch_language(page, "English")
    notice = page.locator("[data-open-hold]")
    assert "You have a reservation awaiting payment" in notice.inner_text()
    page.locator("[data-image-preview]").wait_for(state="visible")
    keep_screenshots_at(page, "ad-form-after-back-en")
    switch_language(page, "日本語")
    page.locator("[data-open-hold]").wait_for()

    # Continue goes back to the same checkout
    notice.locator("button[data-resume-checkout]").click()
    page.wait_for_url("**/_local-payments/checkout/**")
    page.go_back()
    page.wait_for_url("**/ads/new")

    # Cancelling it releases the hold: position 1 is offered again, the image still kept
    page.locator("[data-open-hold] button[data-release-hold]").click()
    page.locator("[data-inventory]").filter(has_text="割り当て予定の掲載位置: 1").wait_for()
    page.locator("[data-open-hold]").wait_for(state="detached")
    assert AdReservation.select().count() == 0
    assert page.locator("[data-image-preview]").is_visible()

    # And the order goes through again, with the image, at position 1
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")
    again = AdReservation.get()
    assert (again.position, again.image_url) == (1, held.image_url)
    drain(stub_broker, stub_worker)


def test_back_without_the_kept_form_uploads_the_file_the_browser_restored(
    page, site, stub_broker, stub_worker, tmp_path
):
    """The browser restores the chosen file on Back (a file of the disk, as a person
    chooses); the form uploads it again rather than refuse as missing an image it shows
    chosen."""
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    image = tmp_path / "ad.png"
    image.write_bytes(image_bytes())
    page.goto(f"{site}/ads/new")
    page.fill("input[name=advertiserName]", "山田商店")
    page.set_input_files("input[name=image]", str(image))
    page.locator("[data-image-preview]").wait_for(state="visible")
    page.goto(f"{site}/terms")  # left by a link: nothing of the form kept by the page
    page.go_back()
    page.wait_for_url("**/ads/new")
    assert page.evaluate("document.querySelector('input[name=image]').files.length") == 1
    page.locator("[data-image-preview]").wait_for(state="visible")
    page.fill("input[name=redirectUrl]", "https://example.jp/shop")
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    page.wait_for_url("**/_local-payments/checkout/**")
    assert AdReservation.get().position == 1
    drain(stub_broker, stub_worker)


def test_back_from_a_plan_checkout_shows_it_to_continue_or_cancel(
    page, site, stub_broker, stub_worker
):
    # Given a free member who opened the Plus checkout
    make_user(email=BUYER)
    sign_in(page, site, BUYER)
    page.goto(f"{site}/account")
    page.click("button[data-subscribe=plus]")
    page.wait_for_url("**/_local-payments/checkout/**")
    checkout_url = page.url

    # When they go Back to the account page
    page.go_back()
    page.wait_for_url("**/account")

    # Then it shows the open checkout with its time
    notice = page.locator("[data-open-checkout]")
    notice.wait_for()
    assert "プラスの決済手続きが" in notice.inner_text()
    keep_screenshots_at(page, "account-open-checkout-ja")
    switch_language(page, "English")
    assert "A checkout for Plus is open until" in page.locator("[data-open-checkout]").inner_text()
    keep_screenshots_at(page, "account-open-checkout-en")
    switch_language(page, "日本語")

    # Continue goes to the same checkout
    page.locator("[data-open-checkout] a[data-continue-checkout]").click()
    page.wait_for_url(checkout_url)
    page.go_back()
    page.wait_for_url("**/account")

    # Cancelling it lets the other plan be chosen at once
    page.locator("[data-open-checkout] button[data-cancel-checkout]").click()
    page.locator("[data-open-checkout]").wait_for(state="detached")
    assert SubscriptionCheckout.select().count() == 0
    page.click("button[data-subscribe=pro]")
    page.wait_for_url("**/_local-payments/checkout/**")
    assert page.url != checkout_url
    drain(stub_broker, stub_worker)


def test_choosing_the_same_file_again_uploads_it_again(page, site, tmp_path):
    """A file input sends no change for the file it already holds: the form empties it
    as its chooser opens, so the same file chosen again is uploaded again (after a
    refused upload, say, or a Back that lost the upload)."""
    make_profile(make_user(email=BUYER))
    sign_in(page, site, BUYER)
    image = tmp_path / "ad.png"
    image.write_bytes(image_bytes())
    uploads = []
    page.on(
        "request",
        lambda request: (
            uploads.append(request.url) if "/api/uploads/ad-image" in request.url else None
        ),
    )
    page.goto(f"{site}/ads/new")
    page.set_input_files("input[name=image]", str(image))
    page.locator("[data-image-preview]").wait_for(state="visible")
    assert len(uploads) == 1

    # When the buyer opens the chooser again
    with page.expect_file_chooser() as chooser:
        page.click("input[name=image]")
    # Then the input no longer holds the file, so choosing it again is a change
    assert page.evaluate("document.querySelector('input[name=image]').value") == ""
    with page.expect_response("**/api/uploads/ad-image") as answered:
        chooser.value.set_files(str(image))
    assert answered.value.status == 201
    page.locator("[data-image-preview]").wait_for(state="visible")
    assert len(uploads) == 2
