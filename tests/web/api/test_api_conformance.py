"""The server refuses what the API document refuses, and the document states what the
server refuses (issue 26, finding 5): an empty value is not an absent one, a query
parameter the call does not name is refused, and the document spells out countries,
control characters, e-mail and URL formats, lengths and the longest query string."""

from __future__ import annotations

import re

import pytest

from models.countries import ISO_COUNTRY_CODES
from tests.factories import make_admin, make_user, sign_in
from web.api.operation import MAX_QUERY_BYTES

SLOT = "video-detail-below-player"


def refused(response, *fields):
    """A 400 in the contract's format naming exactly `fields`."""
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert set(error["fields"]) == set(fields), error
    return error["fields"]


@pytest.fixture
def admin_client(client):
    sign_in(client, make_admin())
    return client


# The server refuses what the document refuses.


def test_an_empty_month_and_country_for_the_ads_of_a_slot_are_refused(client):
    # Given the document's month pattern (YYYY-MM) and a country of 1 to 64 characters
    # When both are sent empty
    response = client.get(f"/api/ads/serve?slot={SLOT}&month=&country=")
    # Then both are named, rather than taken as absent
    refused(response, "month", "country")


def test_an_empty_semantic_switch_is_refused(client):
    # Given semantic is 0 or 1 in the document
    response = client.get("/api/search?q=a&semantic=")
    # Then an empty one is refused, not read as 0
    refused(response, "semantic")


def test_an_empty_report_start_date_is_refused(admin_client):
    response = admin_client.get("/api/admin/ads/report?startDate=")
    refused(response, "startDate")


@pytest.mark.parametrize(
    "address",
    [
        "/api/search?q=a&bogus=1",
        "/api/search?q=a&bogus=",  # empty: was dropped before the check
        "/api/admin/ads/report?bogus=",
        "/api/ads/slots?bogus=1",  # a call without any query parameter
        "/api/me?bogus=1",
    ],
)
def test_a_query_parameter_the_call_does_not_name_is_refused(admin_client, address):
    fields = refused(admin_client.get(address), "bogus")
    assert fields["bogus"] == "not a field of this request"


def test_a_query_parameter_given_twice_is_refused(client):
    # Given a search naming q twice: which one was meant cannot be told
    response = client.get("/api/search?q=a&q=b")
    # Then it is refused rather than one of them taken
    assert refused(response, "q")["q"] == "given more than once"


def test_a_beacon_ignores_what_a_page_adds_to_its_address(client):
    # Given a click address with a tracking parameter a site added on the way
    response = client.get(
        "/api/ad-click/00000000-0000-4000-8000-000000000000?v=x&utm_source=mail&v=y"
    )
    # Then the visitor is not refused for it (an unknown ad is still a 404)
    assert response.status_code == 404


def test_a_request_that_follows_the_document_is_accepted(admin_client):
    assert admin_client.get(f"/api/ads/serve?slot={SLOT}&month=2027-01&country=JP").status_code == (
        200
    )
    assert admin_client.get("/api/search?q=a&semantic=1&channels=&target=").status_code == 200
    report = "/api/admin/ads/report?startDate=2026-01-01&endDate=2026-01-31"
    assert admin_client.get(report).status_code == 200


def test_a_page_address_may_still_carry_empty_and_other_fields(client):
    # Given the search form, which sends its empty fields and a page's own parameters
    response = client.get("/search?q=a&channels=&sort=&semantic=&utm_source=x")
    # Then the page answers as if they were absent
    assert response.status_code == 200


def test_a_query_string_longer_than_the_limit_is_a_414_in_the_contracts_format(client):
    response = client.get("/api/search?q=a&channels=" + "a" * MAX_QUERY_BYTES)
    assert response.status_code == 414
    error = response.get_json()["error"]
    assert error["code"] == "uri_too_long"
    assert str(MAX_QUERY_BYTES) in error["message"]


def test_a_query_string_within_the_limit_is_read(client):
    within = "/api/search?q=a&channels=" + ",".join(["UCabcdefghijklmnopqrstuv"] * 50)
    assert client.get(within).status_code == 200


# The document states what the server refuses.


@pytest.fixture
def document(client):
    return client.get("/api/openapi.json").get_json()


def parameter(document, path, name, method="get"):
    [found] = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
    return found


def body_field(document, model, name):
    return document["components"]["schemas"][model]["properties"][name]


def test_a_country_is_documented_as_one_of_the_249_codes(document):
    # Given the country of the price list, as the document shows it
    schema = parameter(document, "/api/ads/pricing", "country")["schema"]
    country = re.compile(schema["pattern"])
    # Then every ISO code matches, in any case, and nothing else does
    assert all(country.search(code) and country.search(code.lower()) for code in ISO_COUNTRY_CODES)
    for other in ("XX", "T1", "ZZ", "JPN", "", "J P"):
        assert not country.search(other), other
    reservation = body_field(document, "ReservationBody", "country")
    assert reservation["pattern"] == schema["pattern"]


def test_text_fields_are_documented_without_control_characters(document):
    name = body_field(document, "ReservationBody", "advertiserName")
    pattern = re.compile(name["pattern"])
    assert pattern.search("Acme 株式会社")
    for bad in ("Acme\x07", "\x1b[31m", "a\x7f", "   ", ""):
        assert not pattern.search(bad), repr(bad)
    assert name["maxLength"] == 100


def test_a_text_field_over_its_length_with_spaces_around_is_refused_as_documented(client):
    # Given the document's maxLength of 64 for a referral code, counted as sent
    sign_in(client, make_user())
    response = client.post("/api/referrals/claim", json={"code": " " + "A" * 64})
    # Then 65 characters are refused, even though 64 remain once the space is taken off
    refused(response, "code")


def test_the_contact_e_mail_and_the_redirect_url_formats_are_documented(document):
    # Patterns rather than `format`, which validators read each their own way
    email = body_field(document, "ProfileBody", "contactEmail")
    assert "e-mail" in email["description"]
    assert re.search(email["pattern"], "ads@example.co.jp")
    for bad in ("ads@localhost", "ads", "a b@example.com", "a@b@example.com"):
        assert not re.search(email["pattern"], bad), bad
    redirect = body_field(document, "ReservationBody", "redirectUrl")
    assert re.search(redirect["pattern"], "https://example.com/landing?x=1")
    for bad in (
        "ftp://example.com/",
        "javascript:alert(1)",
        "https://",
        "example.com",
        "https://user:pw@evil.example/",
        "https://evil.example\\@good.example",
    ):
        assert not re.search(redirect["pattern"], bad), bad


def test_an_e_mail_the_document_refuses_is_refused(client):
    sign_in(client, make_user())
    profile = {
        "businessLegalName": "Acme",
        "businessAddress": "Tokyo",
        "contactName": "Ito",
        "contactEmail": "ads@localhost",
        "businessCategory": "it_saas",
    }
    refused(client.post("/api/ads/profiles", json=profile), "contactEmail")


def test_the_414_is_documented_on_every_call_that_reads_its_query(document):
    beacons = {"/api/ad-click/{reservation_id}", "/api/ad-impression/{reservation_id}"}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if any(p["in"] == "query" for p in operation.get("parameters", [])):
                assert ("414" in operation["responses"]) == (path not in beacons), (method, path)


def test_a_redirect_url_with_credentials_or_a_backslash_is_refused(client):
    sign_in(client, make_user())
    for url in ("https://user:pw@evil.example/", "https://evil.example\\@good.example"):
        body = {
            "redirectUrl": url,
            "slot": SLOT,
            "country": "JP",
            "startMonth": "2099-01",
            "months": 1,
            "advertiserName": "Acme",
            "imageUrl": "/uploads/x.png",
            "consent": True,
        }
        refused_with(client.post("/api/ads/reservations", json=body), "redirectUrl")


def refused_with(response, field):
    """A 400 naming `field` (among others the request may also get wrong)."""
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    fields = response.get_json()["error"]["fields"]
    assert field in fields, fields
    return fields
