"""GET /api/ads/slots and the advertiser profiles API: GET/POST /api/ads/profiles,
PATCH /api/ads/profiles/<id> (docs/ads.md, Slots and profiles)."""

from __future__ import annotations

import uuid

import pytest

from models.tables import AdvertiserProfile
from tests.factories import make_profile, make_user, sign_in

PROFILES = "/api/ads/profiles"
# A well-formed id no profile has (fixed: every test process must name the same tests).
NOBODYS_PROFILE = "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
# The contract's identifiers, spelled out so a category dropped from the code fails here.
CATEGORIES = (
    "it_saas",
    "ec_retail",
    "beauty_cosmetics",
    "food_beverage",
    "media",
    "entertainment_games",
    "education",
    "hr_recruiting",
    "automotive",
    "real_estate",
    "travel_tourism",
    "medical_healthcare",
    "finance",
    "gambling_gaming",
    "other",
)
REGULATED = {
    "beauty_cosmetics",
    "food_beverage",
    "medical_healthcare",
    "finance",
    "gambling_gaming",
}
REQUIRED = (
    "businessLegalName",
    "businessAddress",
    "contactName",
    "contactEmail",
    "businessCategory",
)


def valid_body(**overrides) -> dict:
    body = {
        "businessLegalName": "株式会社山田商店",
        "businessAddress": "東京都千代田区丸の内1-1-1",
        "contactName": "山田太郎",
        "contactEmail": "ads@yamada.example.jp",
        "businessCategory": "ec_retail",
        "invoiceRegistrationNumber": "T1234567890123",
    }
    body.update(overrides)
    return body


def without(field: str) -> dict:
    body = valid_body()
    del body[field]
    return body


def field_errors(response) -> dict:
    assert response.status_code == 400, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    return error["fields"]


@pytest.fixture
def user(client):
    user = make_user()
    sign_in(client, user)
    return user


# --- slots -------------------------------------------------------------------------------------


def test_the_four_slots_are_public(client):
    # Given nobody signed in
    # When the slots are asked for
    response = client.get("/api/ads/slots")
    # Then the four slots come back with their page, name and four positions
    assert response.status_code == 200
    assert response.get_json() == {
        "slots": [
            {
                "id": "search-result-midroll",
                "page": "/search",
                "displayName": "検索結果の途中",
                "positions": 4,
            },
            {
                "id": "search-result-bottom",
                "page": "/search",
                "displayName": "検索結果下部",
                "positions": 4,
            },
            {
                "id": "video-detail-below-player",
                "page": "/videos/[videoId]",
                "displayName": "動画プレイヤー下",
                "positions": 4,
            },
            {
                "id": "video-detail-below-subtitle",
                "page": "/videos/[videoId]",
                "displayName": "字幕ビューア下",
                "positions": 4,
            },
        ]
    }


# --- create ------------------------------------------------------------------------------------


def test_a_profile_is_created_with_its_fields_in_camel_case(client, user):
    # When a signed-in user creates a profile
    response = client.post(PROFILES, json=valid_body())
    # Then it answers 201 with an id and the fields as sent
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    assert uuid.UUID(body["id"])
    assert {key: body[key] for key in valid_body()} == valid_body()
    assert body["regulated"] is False
    assert body["createdAt"] and body["updatedAt"]
    # And the row is the user's
    assert AdvertiserProfile.get_by_id(body["id"]).user_id == user.id


def test_surrounding_spaces_are_trimmed(client, user):
    response = client.post(
        PROFILES, json=valid_body(businessLegalName="  株式会社山田商店　", contactName=" 山田 ")
    )
    assert response.status_code == 201
    assert response.get_json()["businessLegalName"] == "株式会社山田商店"
    assert response.get_json()["contactName"] == "山田"


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_of_the_15_categories_is_accepted(client, user, category):
    response = client.post(PROFILES, json=valid_body(businessCategory=category))
    assert response.status_code == 201
    assert response.get_json()["businessCategory"] == category
    assert response.get_json()["regulated"] is (category in REGULATED)


@pytest.mark.parametrize("field", REQUIRED)
def test_a_missing_required_field_is_named(client, user, field):
    # When a profile is created without one required field
    response = client.post(PROFILES, json=without(field))
    # Then that field, and only that one, is named as required, and nothing is stored
    assert field_errors(response) == {field: "required"}
    assert AdvertiserProfile.select().count() == 0


@pytest.mark.parametrize("field", REQUIRED)
@pytest.mark.parametrize("value", [None, "", "   ", "　", 12, ["x"]])
def test_a_blank_or_non_text_required_field_is_named(client, user, field, value):
    response = client.post(PROFILES, json=valid_body(**{field: value}))
    assert field_errors(response) == {field: "required"}


def test_every_missing_field_is_named_at_once(client, user):
    response = client.post(PROFILES, json={})
    assert field_errors(response) == dict.fromkeys(REQUIRED, "required")


@pytest.mark.parametrize(
    ("field", "limit"),
    [
        ("businessLegalName", 200),
        ("businessAddress", 300),
        ("contactName", 100),
    ],
)
def test_text_fields_have_a_length_limit(client, user, field, limit):
    # Given a value at the limit and one just over
    at_limit = client.post(PROFILES, json=valid_body(**{field: "あ" * limit}))
    over = client.post(PROFILES, json=valid_body(**{field: "あ" * (limit + 1)}))
    # Then the first is stored and the second refused on that field
    assert at_limit.status_code == 201
    assert field_errors(over) == {field: f"at most {limit} characters"}


@pytest.mark.parametrize(
    "email",
    [
        "not-an-email",
        "ads@example",
        "@example.com",
        "ads@",
        "ads@@example.com",
        "a ds@example.com",
        "ads@exa mple.com",
        "ads@example.",
        "ads@example.com.",
        "ads.example.com",
    ],
)
def test_a_bad_email_is_refused(client, user, email):
    response = client.post(PROFILES, json=valid_body(contactEmail=email))
    assert field_errors(response) == {"contactEmail": "not an e-mail address"}


@pytest.mark.parametrize("email", ["ads@example.com", "first.last+ads@mail.example.co.jp"])
def test_a_plain_email_is_accepted(client, user, email):
    response = client.post(PROFILES, json=valid_body(contactEmail=email))
    assert response.status_code == 201
    assert response.get_json()["contactEmail"] == email


@pytest.mark.parametrize("category", ["games", "IT_SAAS", "IT/SaaS", "その他", "it-saas"])
def test_an_unknown_category_is_refused(client, user, category):
    response = client.post(PROFILES, json=valid_body(businessCategory=category))
    assert field_errors(response) == {"businessCategory": "one of the 15 business categories"}


def test_an_invoice_number_of_t_and_13_digits_is_accepted(client, user):
    response = client.post(PROFILES, json=valid_body(invoiceRegistrationNumber="T9876543210987"))
    assert response.status_code == 201
    assert response.get_json()["invoiceRegistrationNumber"] == "T9876543210987"


@pytest.mark.parametrize(
    "number",
    [
        "T123",
        "1234567890123",  # no T
        "t1234567890123",  # lower-case t
        "T123456789012",  # 12 digits
        "T12345678901234",  # 14 digits
        "T123456789012a",
        "T-1234567890123",
        "TT234567890123",
        "T 1234567890123",
        "T１２３４５６７８９０１２３",  # full-width digits
        12345678901234,
    ],
)
def test_a_malformed_invoice_number_is_refused(client, user, number):
    response = client.post(PROFILES, json=valid_body(invoiceRegistrationNumber=number))
    assert "invoiceRegistrationNumber" in field_errors(response)
    assert AdvertiserProfile.select().count() == 0


@pytest.mark.parametrize(
    "body",
    [
        without("invoiceRegistrationNumber"),
        valid_body(invoiceRegistrationNumber=None),
        valid_body(invoiceRegistrationNumber=""),
    ],
)
def test_the_invoice_number_is_optional(client, user, body):
    # When a profile is created without an invoice number (absent, null or empty)
    response = client.post(PROFILES, json=body)
    # Then it is stored as null
    assert response.status_code == 201
    assert response.get_json()["invoiceRegistrationNumber"] is None
    assert (
        AdvertiserProfile.get_by_id(response.get_json()["id"]).invoice_registration_number is None
    )


@pytest.mark.parametrize("body", [[valid_body()], "profile", 1])
def test_a_body_that_is_not_an_object_is_refused(client, user, body):
    response = client.post(PROFILES, json=body)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_request"


def test_a_form_body_is_refused(client, user):
    response = client.post(PROFILES, data=valid_body())
    assert response.status_code == 415
    assert AdvertiserProfile.select().count() == 0


# --- list ---------------------------------------------------------------------------------------


def test_a_user_owns_several_profiles_and_sees_only_theirs(client, user):
    # Given two profiles of the user's and one of someone else's
    mine = [
        client.post(PROFILES, json=valid_body(businessLegalName=name)).get_json()["id"]
        for name in ("株式会社一号", "株式会社二号")
    ]
    make_profile(make_user(), business_legal_name="他人の会社")
    # When the user lists their profiles
    response = client.get(PROFILES)
    # Then exactly their two come back, in full
    assert response.status_code == 200
    profiles = response.get_json()["profiles"]
    assert sorted(p["id"] for p in profiles) == sorted(mine)
    assert {p["businessLegalName"] for p in profiles} == {"株式会社一号", "株式会社二号"}


def test_a_user_without_profiles_sees_an_empty_list(client, user):
    make_profile(make_user())
    assert client.get(PROFILES).get_json() == {"profiles": []}


# --- edit ---------------------------------------------------------------------------------------


@pytest.fixture
def profile(client, user) -> dict:
    response = client.post(PROFILES, json=valid_body())
    assert response.status_code == 201
    return response.get_json()


def test_an_edit_changes_only_the_given_fields(client, profile):
    # When the contact name and category are changed
    response = client.patch(
        f"{PROFILES}/{profile['id']}",
        json={"contactName": "佐藤花子", "businessCategory": "finance"},
    )
    # Then those change, every other field stays as it was
    assert response.status_code == 200
    body = response.get_json()
    assert body["contactName"] == "佐藤花子"
    assert body["businessCategory"] == "finance"
    assert body["regulated"] is True
    unchanged = set(valid_body()) - {"contactName", "businessCategory"}
    assert {k: body[k] for k in unchanged} == {k: profile[k] for k in unchanged}
    assert body["id"] == profile["id"]
    assert body["createdAt"] == profile["createdAt"]
    # And the stored row agrees
    row = AdvertiserProfile.get_by_id(profile["id"])
    assert (row.contact_name, row.business_legal_name) == ("佐藤花子", "株式会社山田商店")


def test_an_empty_edit_changes_nothing(client, profile):
    response = client.patch(f"{PROFILES}/{profile['id']}", json={})
    assert response.status_code == 200
    assert response.get_json() == profile


def test_an_edit_can_clear_the_invoice_number(client, profile):
    response = client.patch(f"{PROFILES}/{profile['id']}", json={"invoiceRegistrationNumber": None})
    assert response.status_code == 200
    assert response.get_json()["invoiceRegistrationNumber"] is None
    assert AdvertiserProfile.get_by_id(profile["id"]).invoice_registration_number is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"contactEmail": "nobody"}, "contactEmail"),
        ({"businessCategory": "casino"}, "businessCategory"),
        ({"invoiceRegistrationNumber": "T123"}, "invoiceRegistrationNumber"),
        ({"businessLegalName": ""}, "businessLegalName"),
        ({"businessAddress": None}, "businessAddress"),
        ({"contactName": "あ" * 101}, "contactName"),
    ],
)
def test_an_edit_with_a_bad_value_is_refused_and_changes_nothing(client, profile, change, field):
    # When a bad value is sent together with a good one
    response = client.patch(
        f"{PROFILES}/{profile['id']}", json={"contactName": "佐藤花子", **change}
    )
    # Then the bad field is named and not even the good one is applied
    assert field in field_errors(response)
    row = AdvertiserProfile.get_by_id(profile["id"])
    assert row.contact_name == "山田太郎"
    assert row.contact_email == "ads@yamada.example.jp"
    assert row.business_category == "ec_retail"
    assert row.invoice_registration_number == "T1234567890123"


def test_another_users_profile_cannot_be_edited(client, user):
    # Given someone else's profile
    theirs = make_profile(make_user(), contact_name="他人")
    # When the user tries to edit it
    response = client.patch(f"{PROFILES}/{theirs.id}", json={"contactName": "乗っ取り"})
    # Then it is not found for them, and it is unchanged
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"
    assert AdvertiserProfile.get_by_id(theirs.id).contact_name == "他人"


@pytest.mark.parametrize("profile_id", [NOBODYS_PROFILE, "not-a-uuid"])
def test_an_unknown_profile_is_not_found(client, user, profile_id):
    response = client.patch(f"{PROFILES}/{profile_id}", json={"contactName": "x"})
    assert response.status_code == 404


# --- anonymous ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", PROFILES), ("POST", PROFILES), ("PATCH", f"{PROFILES}/{NOBODYS_PROFILE}")],
)
def test_profiles_need_a_signed_in_user(client, method, path):
    # Given nobody signed in
    response = client.open(path, method=method, json=valid_body())
    # Then sign-in is asked for and nothing is stored
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthenticated"
    assert AdvertiserProfile.select().count() == 0


def test_an_anonymous_caller_cannot_edit_an_existing_profile(client):
    theirs = make_profile(contact_name="持ち主")
    response = client.patch(f"{PROFILES}/{theirs.id}", json={"contactName": "x"})
    assert response.status_code == 401
    assert AdvertiserProfile.get_by_id(theirs.id).contact_name == "持ち主"
