"""The purchase form's error summary names each field as the field's own label does
(事業者名, not the API's 正式名称), in both languages: the names come from the labels
(issue 48)."""

from __future__ import annotations

import json

import pytest

from models.problems import ENGLISH
from tests.browser.test_accessibility_audit import read_in
from tests.browser.test_purchase_form import fill_required, sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshots_at

# Every field the API may refuse on this form, by the path it names (a new profile's
# fields under `profile.`), and the control that path points to.
FIELDS = {
    "slot": "slot",
    "country": "country",
    "startMonth": "startMonth",
    "months": "months",
    "advertiserName": "advertiserName",
    "imageUrl": "image",
    "redirectUrl": "redirectUrl",
    "profileId": "profileId",
    "profile.businessLegalName": "businessLegalName",
    "profile.businessAddress": "businessAddress",
    "profile.contactName": "contactName",
    "profile.contactEmail": "contactEmail",
    "profile.businessCategory": "businessCategory",
    "profile.invoiceRegistrationNumber": "invoiceRegistrationNumber",
}
REFUSAL = {
    "error": {
        "code": "validation_failed",
        "message": "Validation failed",
        "fields": dict.fromkeys(FIELDS, ENGLISH["required"]),
    }
}


def label_text(page, control: str) -> str:
    text: str = page.locator(f"#ad-order label:has([name={control}])").first.inner_text()
    return text.strip().splitlines()[0].strip()


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_summary_names_every_field_as_its_label(page, site, language):
    read_in(page, site, language)
    sign_in(page, site, make_user(email=f"names-{language}@example.jp").email)
    page.route(
        "**/api/ads/reservations",
        lambda route: route.fulfill(
            status=422, content_type="application/json", body=json.dumps(REFUSAL)
        ),
    )
    page.goto(f"{site}/ads/new")
    page.locator("[data-new-profile]").wait_for()
    # the submit is refused by the (stubbed) API, after the form's own checks pass
    fill_required(page)
    page.check("input[name=consent]")
    page.click("#ad-order button[type=submit]")
    errors = page.locator("[data-errors] li")
    errors.first.wait_for()
    lines = errors.all_inner_texts()
    assert len(lines) == len(FIELDS)
    said = [line.rsplit(": ", 1)[0] for line in lines]  # in the refusal's order
    for (path, control), name in zip(FIELDS.items(), said, strict=True):
        # the label is the name, or the name and a hint in brackets
        label = label_text(page, control)
        assert label == name or label.startswith((f"{name}（", f"{name} (")), (path, label, name)
    names = set(said)
    if language == "ja":
        assert "事業者名" in names and "正式名称" not in names
        assert "インボイス登録番号" in names
    else:
        assert "Business name" in names and "Legal name" not in names
    keep_screenshots_at(page, f"ad-form-error-names-{language}")
