"""The API says each refused field in the same English as ever, pydantic's own sentences
for numbers and the consent included (now read by pydantic's error type, web/api/
operation.py), while the pages translate them by their code."""

from __future__ import annotations

import pytest

from models.ads import SLOT_IDS
from tests.factories import make_user, sign_in
from tests.web.api.test_ads_purchase_api import NEXT, body


@pytest.mark.parametrize(
    ("field", "sent", "said"),
    [
        ("months", 0, "Input should be greater than or equal to 1"),
        ("months", 13, "Input should be less than or equal to 12"),
        ("months", "two", "Input should be a valid integer"),
        ("consent", False, "Input should be True"),
        ("advertiserName", "", "required"),
        ("advertiserName", "あ" * 101, "at most 100 characters"),
        ("advertiserName", "あ" * 31, "at most 30 characters"),
        ("redirectUrl", "http://localhost/", "must not point to a local or private network"),
        ("startMonth", "2027-13", "a month as YYYY-MM"),
        ("slot", "sidebar", f"one of {', '.join(SLOT_IDS)}"),
        ("extra", 1, "not a field of this request"),
    ],
)
def test_a_refused_purchase_field_reads_as_before(client, field, sent, said):
    user = make_user()
    sign_in(client, user)
    refused = client.post("/api/ads/reservations", json=body(user, **{field: sent}))
    assert refused.status_code == 400
    assert refused.get_json()["error"]["fields"] == {field: said}


def test_a_number_in_the_query_reads_as_pydantic_says_it(client):
    sign_in(client, make_user())
    inventory = f"/api/ads/inventory?slot={SLOT_IDS[0]}&country=JP&month={NEXT}&months=two"
    assert client.get(inventory).get_json()["error"]["fields"] == {
        "months": "Input should be a valid integer, unable to parse string as an integer"
    }
    # a float's bound of 1 reads "1", as pydantic says it, not "1.0"
    assert client.get("/api/search?q=ramen&sr=2").get_json()["error"]["fields"] == {
        "sr": "Input should be less than or equal to 1"
    }
