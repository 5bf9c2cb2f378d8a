"""A redirect URL that hides where it goes (a user name or password, a backslash) is
refused with the field named (issue 26, finding 6)."""

from __future__ import annotations

import pytest

from models.tables import AdReservation
from tests.factories import make_user, sign_in
from tests.web.api.test_ads_purchase_api import body


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://user:pw@evil.example/", "must not contain a user name or password"),
        ("https://evil.example\\@good.example", "must not contain a backslash"),
    ],
)
def test_a_reservation_with_a_deceptive_redirect_url_is_refused(client, url, problem):
    # Given a member with an uploaded image
    user = make_user()
    sign_in(client, user)
    # When they reserve with a redirect URL that hides its destination
    refused = client.post("/api/ads/reservations", json=body(user, redirectUrl=url))
    # Then the request is refused, naming the field and why, and nothing is held
    error = refused.get_json()["error"]
    assert (refused.status_code, error["code"]) == (400, "invalid_request")
    assert error["fields"]["redirectUrl"] == problem
    assert AdReservation.select().count() == 0
