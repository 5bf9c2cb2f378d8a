"""What the purchase form hides stays hidden: the page's own display rules (a grid for the
new-profile fields, a box for the preview) must not override the `hidden` attribute."""

from __future__ import annotations

from tests.browser.test_purchase_form import sign_in
from tests.factories import make_profile, make_user


def test_a_saved_profile_hides_the_new_profile_fields(page, site):
    make_profile(make_user(email="hidden-profile@example.jp"))
    sign_in(page, site, "hidden-profile@example.jp")
    page.goto(f"{site}/ads/new")
    new_profile = page.locator("[data-new-profile]")
    assert not new_profile.is_visible()
    assert not page.locator("input[name=businessLegalName]").is_visible()
    page.select_option("select[name=profileId]", "")
    assert new_profile.is_visible()
    page.select_option("select[name=profileId]", index=0)  # the saved profile again
    assert not new_profile.is_visible()
    assert not page.locator("input[name=businessAddress]").is_visible()


def test_no_preview_box_and_no_error_list_before_anything_happens(page, site):
    make_user(email="hidden-preview@example.jp")
    sign_in(page, site, "hidden-preview@example.jp")
    page.goto(f"{site}/ads/new")
    # No saved profile: the new-profile fields are the only way, so they show.
    assert page.locator("[data-new-profile]").is_visible()
    assert not page.locator("[data-image-preview]").is_visible()
    assert not page.locator("[data-errors]").is_visible()
